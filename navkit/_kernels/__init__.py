"""Numba kernels. Private: they take contiguous arrays and scalars, write into
caller-owned buffers, never raise on data and return integer status codes.

All kernels work on a *padded* grid: the walkable array with a one-cell blocked
border, flattened row-major with row length ``wp = width + 2``. The padded
index of cell ``(x, z)`` is ``(z + 1) * wp + (x + 1)``; its order equals the
order of the linear index ``z * width + x``, so tie-breaks on either agree.
"""

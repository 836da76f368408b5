"""The padded grid's index maths inside kernels (see :mod:`navkit._kernels`).

Cell ``(x, z)`` of a grid whose padded rows are ``wp = width + 2`` nodes long
is node ``(z + 1) * wp + x + 1``. Kernels that turn an unpadded cell into a
node call :func:`cell_node`; the Python side has
:class:`navkit.query.padded.PaddedGrid`. These two are the only places the
formula is written (``tests/test_layers.py`` checks it).
"""

from __future__ import annotations

from .._numba_config import njit


@njit(inline="always")
def cell_node(x, z, wp):  # type: ignore[no-untyped-def]
    """The padded node of cell ``(x, z)`` (unpadded coordinates); ``wp`` is the
    padded row length. Inlined: the same machine code as the formula written out."""
    return (z + 1) * wp + x + 1

"""Calling a compiled kernel without numba's type dispatch, for the hottest query paths.

A numba dispatcher works out the argument types of every call before it runs
the compiled code; for a kernel with tuples among its arguments (the search
kernels take their workspace and output buffers as tuples) that costs about
0.6 us of a 1.5 us call. :func:`entry_point` resolves the types once and
returns the compiled entry itself, which still converts each argument but
skips the type matching.

The caller must then pass arguments of exactly those types on every call:
the same arrays (or arrays of the same dtype, dimensions, layout and
read-only flag) and the same kinds of scalars. The query objects derive the
entry again whenever they rebuild their buffers.

>>> import numba
>>> import numpy as np
>>> @numba.njit
... def total(a, k):
...     return a.sum() * k
>>> call = entry_point(total, (np.ones(3), 2))
>>> call(np.ones(3), 2)
6.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["entry_point"]


def entry_point(kernel: Any, args: tuple[Any, ...]) -> Callable[..., Any]:
    """The compiled entry of numba dispatcher ``kernel`` for the types of ``args``
    (compiled, or loaded from the cache, if it is not yet); ``kernel`` itself
    when it is not a dispatcher (``NUMBA_DISABLE_JIT``)."""
    typeof = getattr(kernel, "typeof_pyval", None)
    if typeof is None:
        return kernel
    types = tuple(typeof(a) for a in args)
    cres = kernel.overloads.get(types)
    if cres is None:
        kernel.compile(types)
        cres = kernel.overloads[types]
    return cres.entry_point

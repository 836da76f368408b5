"""One place for the numba flags every kernel uses.

``cache=True`` keeps compiled kernels on disk between runs (the first call after
import then costs a load, not a compile); ``nogil=True`` lets threads run
kernels side by side; bounds checks stay off, so the Python layer validates
every index before a kernel sees it. ``fastmath`` is never used: route
decisions must be bit-identical on every machine.

Set ``NAVKIT_NUMBA_CACHE=0`` to disable the on-disk cache.
"""

from __future__ import annotations

import os

import numba

CACHE = os.environ.get("NAVKIT_NUMBA_CACHE", "1") != "0"

JIT_OPTIONS: dict[str, object] = {
    "cache": CACHE,
    "nogil": True,
    "boundscheck": False,
    "fastmath": False,
    "error_model": "numpy",
}


def njit(*args, **kwargs):  # type: ignore[no-untyped-def]
    """``numba.njit`` with navkit's flags; keyword arguments override them."""
    options = dict(JIT_OPTIONS)
    options.update(kwargs)
    if args and callable(args[0]):
        return numba.njit(**options)(args[0])
    return numba.njit(*args, **options)

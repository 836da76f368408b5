"""One place for the numba flags every kernel uses.

``cache=True`` keeps compiled kernels on disk between runs (the first call after
import then costs a load, not a compile); ``nogil=True`` lets threads run
kernels side by side; bounds checks stay off, so the Python layer validates
every index before a kernel sees it. ``fastmath`` is never used: route
decisions must be bit-identical on every machine.

Set ``NAVKIT_NUMBA_CACHE=0`` to disable the on-disk cache. The cache is
dropped whenever a kernel source file changes (see :func:`_drop_stale_cache`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numba

CACHE = os.environ.get("NAVKIT_NUMBA_CACHE", "1") != "0"


def _drop_stale_cache(root: Path | None = None) -> None:
    """Delete navkit's compiled kernels when any kernel source changed.

    numba keys a cached kernel on its own file's timestamp only; a kernel that
    inlines helpers from another file (every search inlines the heap) would
    keep running the old helpers after an edit to that file. A digest of the
    sources that define kernels, kept beside the cache, catches that. Best
    effort: a read-only install just keeps its cache.
    """
    root = Path(__file__).resolve().parent if root is None else root
    digest = hashlib.sha256()
    for src in sorted(root.rglob("*.py")):
        text = src.read_bytes()
        # the kernels' sources and their layouts
        if b"njit" in text or src.parent.name == "_kernels":
            digest.update(str(src.relative_to(root)).encode())
            digest.update(text)
    stamp = root / "__pycache__" / "navkit-kernels.sha256"
    want = digest.hexdigest()
    try:
        if stamp.exists() and stamp.read_text() == want:
            return
        for pattern in ("*.nbi", "*.nbc"):
            for f in root.rglob(pattern):
                f.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(want)
    except OSError:
        pass


if CACHE and not numba.config.DISABLE_JIT:
    _drop_stale_cache()

JIT_OPTIONS: dict[str, object] = {
    "cache": CACHE,
    "nogil": True,
    "boundscheck": False,
    "fastmath": False,
    "error_model": "numpy",
}


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` with navkit's flags; keyword arguments override them."""
    options = dict(JIT_OPTIONS)
    options.update(kwargs)
    if args and callable(args[0]):
        return numba.njit(**options)(args[0])
    return numba.njit(*args, **options)

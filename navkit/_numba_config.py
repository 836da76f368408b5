"""One place for the numba flags every kernel uses, where compiled kernels are
kept, and the notice that says a first call is compiling.

``cache=True`` keeps compiled kernels on disk between runs (the first call after
import then costs a load, not a compile); ``nogil=True`` lets threads run
kernels side by side; bounds checks stay off, so the Python layer validates
every index before a kernel sees it. ``fastmath`` is never used: route
decisions must be bit-identical on every machine.

Where the compiled kernels go (:func:`cache_dir`): ``$NUMBA_CACHE_DIR`` when
set; else ``__pycache__`` beside the kernel sources when the package folder
is writable; else the user cache directory (``platformdirs``, for example
``~/.cache/navkit``). numba's cache is keyed on the CPU, so build it on the
machine type that runs it (``navkit warmup`` in the container image).

Set ``NAVKIT_NUMBA_CACHE=0`` to disable the on-disk cache. A kernel module's
cached kernels are dropped when its source, or the source of a kernel module
it imports, changes (see :func:`_drop_stale_cache`).

When a first call compiles for longer than ``NAVKIT_COMPILE_NOTICE_AFTER``
seconds (default 1.5), one line on stderr says so, once per process;
``NAVKIT_QUIET_COMPILE=1`` silences it.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import event as _event

__all__ = ["njit", "JIT_OPTIONS", "CACHE", "cache_dir", "KERNELS_DIR", "KERNELS", "KERNEL_HOOKS",
           "kernel_digests", "stable_identity"]

CACHE = os.environ.get("NAVKIT_NUMBA_CACHE", "1") != "0"
#: The folder of navkit's kernel sources.
KERNELS_DIR = Path(__file__).resolve().parent / "_kernels"


def _writable(folder: Path) -> bool:
    """True when a file can be created in ``folder`` (made if missing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _user_cache_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("navkit", appauthor=False)) / "numba"


def cache_dir(env: dict[str, str] | None = None, *, writable: bool | None = None) -> Path:
    """The folder that holds navkit's compiled kernels (see the module docstring).

    ``env`` (default ``os.environ``) and ``writable`` (default: probe the
    package folder) exist for tests."""
    given = env.get("NUMBA_CACHE_DIR") if env is not None else os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given) / _numba_subpath(KERNELS_DIR)
    pycache = KERNELS_DIR / "__pycache__"
    if writable is None:
        writable = _writable(pycache)
    if writable:
        return pycache
    return _user_cache_root() / _numba_subpath(KERNELS_DIR)


def _numba_subpath(folder: Path) -> str:
    """The sub-folder numba's user-provided cache locator uses for sources in ``folder``."""
    subpath = os.path.dirname(os.path.abspath(folder / "x.py"))
    return "_".join([os.path.split(subpath)[-1], hashlib.sha1(subpath.encode()).hexdigest()])


def _use_user_cache() -> None:
    """A read-only install: point numba's cache at the user cache directory."""
    if os.environ.get("NUMBA_CACHE_DIR") or _writable(KERNELS_DIR / "__pycache__"):
        return
    numba.config.CACHE_DIR = str(_user_cache_root())


_IMPORT = re.compile(r"^\s*from \.(\w+) import|^\s*from \. import ([\w, ]+)", re.M)


def _kernel_digests(sources: Path) -> dict[str, str]:
    """Per kernel module, a digest of its source, of every kernel module it imports
    (transitively: a kernel inlines helpers from the files it imports) and of this file."""
    texts = {src.stem: src.read_bytes() for src in sorted(sources.glob("*.py"))}
    deps: dict[str, set[str]] = {}
    for name, text in texts.items():
        found: set[str] = set()
        for one, many in _IMPORT.findall(text.decode("utf-8", "replace")):
            found.update(n.strip() for n in (one or many).split(",") if n.strip())
        deps[name] = {d for d in found if d in texts and d != name}
    own = hashlib.sha256(Path(__file__).resolve().read_bytes()).hexdigest()
    out: dict[str, str] = {}
    for name in texts:
        seen, todo = {name}, [name]
        while todo:  # every module reachable through imports
            for d in deps[todo.pop()]:
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        digest = hashlib.sha256(own.encode())
        for m in sorted(seen):
            digest.update(m.encode())
            digest.update(texts[m])
        out[name] = digest.hexdigest()
    return out


def kernel_digests() -> dict[str, str]:
    """Per kernel module of this install, the digest :func:`_drop_stale_cache` keys
    its cached kernels on (its source and the kernel modules it imports)."""
    return _kernel_digests(KERNELS_DIR)


def _drop_stale_cache(sources: Path | None = None, cache: Path | None = None) -> None:
    """Delete the compiled kernels of every kernel module whose source, or the
    source of a kernel module it imports, changed.

    numba keys a cached kernel on its own file's timestamp only; a kernel that
    inlines helpers from another file (every search inlines the heap) would
    keep running the old helpers after an edit to that file. A digest per
    module over its import closure, kept beside the cache, catches that, and a
    new or edited module leaves unrelated kernels compiled. Cache files of no
    known module are dropped. Best effort: a cache that cannot be written is
    kept as it is.
    """
    sources = KERNELS_DIR if sources is None else sources
    cache = cache_dir() if cache is None else cache
    want = _kernel_digests(sources)
    stamp = cache / "navkit-kernels.json"
    try:
        try:
            have = json.loads(stamp.read_text())
            if not isinstance(have, dict):
                have = {}
        except (OSError, ValueError):
            have = {}
        if have == want:
            return
        for pattern in ("*.nbi", "*.nbc"):
            for f in cache.glob(pattern):
                module = f.name.split(".", 1)[0]
                if module not in want or have.get(module) != want[module]:
                    f.unlink(missing_ok=True)
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "navkit-kernels.sha256").unlink(missing_ok=True)  # the older, all-or-nothing stamp
        stamp.write_text(json.dumps(want, sort_keys=True))
    except OSError:
        pass


def _ours(event: _event.Event) -> bool:
    """True when a numba compile event is for a navkit kernel."""
    data = event.data if isinstance(event.data, dict) else {}
    func = getattr(data.get("dispatcher"), "py_func", None)
    return str(getattr(func, "__module__", "")).startswith("navkit.")


class _CompileNotice(_event.Listener):
    """Says once, on stderr, that a navkit kernel is compiling, when it takes a while."""

    def __init__(self) -> None:
        self.depth = 0
        self.said = False
        self.timer: threading.Timer | None = None

    def on_start(self, event: _event.Event) -> None:
        if self.said or not _ours(event):
            return
        self.depth += 1
        quiet = os.environ.get("NAVKIT_QUIET_COMPILE", "") in ("1", "true", "yes")
        if self.depth == 1 and not quiet:
            after = float(os.environ.get("NAVKIT_COMPILE_NOTICE_AFTER", "1.5"))
            self.timer = threading.Timer(after, self.say)
            self.timer.daemon = True
            self.timer.start()

    def on_end(self, event: _event.Event) -> None:
        if self.said or not _ours(event):
            return
        self.depth = max(self.depth - 1, 0)
        if self.depth == 0 and self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def say(self) -> None:
        if self.said:
            return
        self.said = True
        print("navkit: compiling kernels for this machine (first use; cached for the next run). "
              "`navkit warmup` does it ahead of time; NAVKIT_QUIET_COMPILE=1 hides this.",
              file=sys.stderr, flush=True)


#: The cyclic garbage collector's first threshold while a navkit kernel compiles.
COMPILE_GC_THRESHOLD = 100_000


class _CompileGC(_event.Listener):
    """Runs the cyclic garbage collector less often while navkit kernels compile.

    numba's front end allocates millions of small objects; at Python's
    default first threshold (700) the collector runs thousands of times per
    kernel and, as the compiled code accumulates, each run walks more of the
    heap: 10-20 % of a cold first query's CPU time (measured on
    the world query: 10.1-10.5 s -> 8.0-9.3 s). From the outermost compile's
    start to its end the first threshold is :data:`COMPILE_GC_THRESHOLD`,
    then the previous thresholds come back (the garbage is collected as usual
    afterwards; about 15 MB more at the peak of a first query).
    ``NAVKIT_COMPILE_GC=default`` leaves the collector alone.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.saved: tuple[int, ...] | None = None

    def on_start(self, event: _event.Event) -> None:
        if not _ours(event):
            return
        self.depth += 1
        if self.depth == 1 and os.environ.get("NAVKIT_COMPILE_GC", "") != "default":
            self.saved = gc.get_threshold()
            if self.saved[0] < COMPILE_GC_THRESHOLD:
                gc.set_threshold(COMPILE_GC_THRESHOLD, *self.saved[1:])

    def on_end(self, event: _event.Event) -> None:
        if not _ours(event):
            return
        self.depth = max(self.depth - 1, 0)
        if self.depth == 0 and self.saved is not None:
            gc.set_threshold(*self.saved)
            self.saved = None


if CACHE and not numba.config.DISABLE_JIT:
    _use_user_cache()
    _drop_stale_cache()
if not numba.config.DISABLE_JIT:
    _event.register("numba:compile", _CompileNotice())
    _event.register("numba:compile", _CompileGC())

JIT_OPTIONS: dict[str, object] = {
    "cache": CACHE,
    "nogil": True,
    "boundscheck": False,
    "fastmath": False,
    "error_model": "numpy",
}


_NAMES: dict[str, int] = {}
_NAMES_LOCK = threading.Lock()


def stable_identity(obj: Any, name: str | None = None) -> Any:
    """Give a kernel the same numba identity in every process.

    numba keys a cached kernel that closes over other kernels (the multi-query
    A* calls the single one) on the pickled closure, and a pickled kernel
    carries a random per-process uuid: such kernels missed the cache in every
    new process and compiled again. The uuid here comes from the module,
    qualified name and creation order instead. Best effort (a private numba
    hook): without it, kernels still work, only recompile.
    """
    if name is None:
        py = getattr(obj, "py_func", None)
        if py is None:
            return obj
        name = f"{py.__module__}.{py.__qualname__}"
    with _NAMES_LOCK:
        n = _NAMES[name] = _NAMES.get(name, -1) + 1
    try:
        obj._set_uuid(f"navkit:{name}:{n}")
    except (AttributeError, AssertionError):
        pass
    return obj


#: Every kernel :func:`njit` made, and functions called with each new one
#: (:mod:`navkit._prebuilt_cache` uses them).
KERNELS: weakref.WeakSet[Any] = weakref.WeakSet()
KERNEL_HOOKS: list[Callable[[Any], None]] = []


def _made(kernel: Any) -> Any:
    kernel = stable_identity(kernel)
    KERNELS.add(kernel)
    for hook in KERNEL_HOOKS:
        hook(kernel)
    return kernel


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` with navkit's flags; keyword arguments override them."""
    options = dict(JIT_OPTIONS)
    options.update(kwargs)
    if args and callable(args[0]):
        return _made(numba.njit(**options)(args[0]))
    decorate = numba.njit(*args, **options)
    return lambda func: _made(decorate(func))

"""Experimental, opt-in: start from a portable prebuilt kernel cache.

numba keys each cached kernel on the numba and Python versions, the source
file's content (a hash, so the install path and file times do not matter)
and the machine: the target triple, the CPU name and its feature string. A
cache built on one CPU model is therefore never used on another. Built with
numba's generic target (``NUMBA_CPU_NAME=generic``: plain x86-64, no AVX),
it runs on every CPU of the same architecture; numba looks it up only in a
process that runs generic code itself.

:func:`build` compiles the warm-up groups (:mod:`navkit.warmup`) with the
generic target into a folder (at packaging time, say). :func:`enable`, called
before navkit's kernels run, copies that folder's kernels into the kernel
cache (:func:`navkit._numba_config.cache_dir`) where they are missing, and
lets each navkit kernel whose own machine's entry is missing load the generic
one instead of compiling. A kernel that compiles here is still saved for
this machine, so the native entry wins from then on. Only modules whose
sources match the build are copied; a different numba or Python version
misses and compiles as usual.

Measured (``docs/startup.md``): generic code ran A* and JPS queries at the
same speed within noise and the simulation tick about 9 % slower than code
built for the machine; with ``enable``, no first call compiled.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from numba.core.caching import FunctionCache

from . import _numba_config as cfg

__all__ = ["build", "enable", "enabled", "PORTABLE_CPU"]

#: The CPU name and feature string a portable kernel is built and looked up with.
PORTABLE_CPU: tuple[str, str] = ("generic", "")
_STAMP = "navkit-kernels.json"
_ENABLED = False


class _PortableCache(FunctionCache):
    """numba's per-kernel cache; a miss for this machine retries with the generic key."""

    _portable = False

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        got = super().load_overload(sig, target_context)
        if got is None and _ENABLED:
            self._portable = True  # loads run one at a time (numba's compiler lock)
            try:
                got = super().load_overload(sig, target_context)
            finally:
                self._portable = False
        return got

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        key = super()._index_key(sig, codegen)
        if self._portable:
            triple = key[1][0]
            key = (key[0], (triple, *PORTABLE_CPU), key[2])
        return key


def _adopt(kernel: Any) -> None:
    cache = getattr(kernel, "_cache", None)
    if type(cache) is FunctionCache:
        cache.__class__ = _PortableCache


def build(dest: str | Path, groups: Iterable[str] | None = None, *, jobs: int = 1) -> int:
    """Compile the warm-up ``groups`` (default: all) with numba's generic CPU
    target in a new, empty cache and copy its files into ``dest`` (made if
    missing); the number of files copied. Runs in separate processes (the
    target is fixed when numba starts); their CPU time is about that of
    ``navkit warmup``."""
    from .warmup import GROUPS, check_groups

    names = list(GROUPS) if groups is None else list(groups)
    check_groups(names)
    dest = Path(dest)
    with tempfile.TemporaryDirectory(prefix="navkit-prebuilt-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CPU_FEATURES"}
        env.update(NUMBA_CPU_NAME=PORTABLE_CPU[0], NUMBA_CACHE_DIR=tmp, NAVKIT_QUIET_COMPILE="1")
        code = ("import sys\nfrom navkit.warmup import warm_up\n"
                "bad = [r for r in warm_up(sys.argv[2:], jobs=int(sys.argv[1])) if r.error]\n"
                "sys.exit(f'warm-up failed: {bad}' if bad else 0)\n")
        subprocess.run([sys.executable, "-c", code, str(jobs), *names], env=env, check=True)
        built = cfg.cache_dir({"NUMBA_CACHE_DIR": tmp})
        dest.mkdir(parents=True, exist_ok=True)
        n = 0
        for f in sorted(built.iterdir()):
            if f.suffix in (".nbi", ".nbc") or f.name == _STAMP:
                shutil.copyfile(f, dest / f.name)
                n += 1
    return n


def enable(src: str | Path) -> int:
    """Use the portable kernels :func:`build` left in ``src`` (see the module
    docstring); the number of cache files copied into the kernel cache. Call it
    before navkit's kernels run: a kernel already compiled or loaded keeps its
    code. Does nothing (0) when numba's cache or JIT is off."""
    global _ENABLED
    import numba

    if not cfg.CACHE or numba.config.DISABLE_JIT:
        return 0
    src = Path(src)
    try:
        built_from = json.loads((src / _STAMP).read_text())
    except (OSError, ValueError):
        from .errors import ConfigError

        raise ConfigError(f"{src} holds no prebuilt kernels ({_STAMP} missing or unreadable)",
                          field="src") from None
    now = cfg.kernel_digests()
    dest = cfg.cache_dir()
    dest.mkdir(parents=True, exist_ok=True)
    copied = 0
    for index in sorted(src.glob("*.nbi")):
        module = index.name.split(".", 1)[0]
        if built_from.get(module) != now.get(module) or (dest / index.name).exists():
            continue  # built from other sources, or this cache has the kernel already
        stem = index.name[:-len(".nbi")]
        for data in sorted(src.glob(f"{stem}.*.nbc")):
            shutil.copyfile(data, dest / data.name)
            copied += 1
        tmp = dest / f".{index.name}.tmp"
        shutil.copyfile(index, tmp)
        os.replace(tmp, dest / index.name)  # the index last: it names the data files
        copied += 1
    _ENABLED = True
    for kernel in list(cfg.KERNELS):
        _adopt(kernel)
    if _adopt not in cfg.KERNEL_HOOKS:
        cfg.KERNEL_HOOKS.append(_adopt)
    return copied


def enabled() -> bool:
    """True once :func:`enable` ran in this process."""
    return _ENABLED

"""Files a map names (Tiled tilesets and object templates, LDtk external levels).

A map file may name other files by relative path. navkit reads them only when
the path, with every symlink resolved, lies inside the map's own folder or a
folder the caller allows (``allow_dirs=``), and only when it is a regular file
of at most :data:`MAX_EXTERNAL_BYTES`; anything else is a
:class:`~navkit.errors.FormatError` naming the map and the reference. So a map
cannot make navkit read ``/proc/self/environ``, ``../../secret`` or a 3 GB
file.

>>> import os, tempfile
>>> d = tempfile.mkdtemp(); m = os.path.join(d, "m.tmx")
>>> roots = allowed_roots(m, None)
>>> resolve_external(m, "tiles.tsx", roots, "tileset") == Path(d).resolve() / "tiles.tsx"
True
>>> try:
...     resolve_external(m, "../x.tsx", roots, "tileset")
... except FormatError as e:
...     print(e.reason.split(",")[0])
tileset '../x.tsx' resolves outside the map's folder
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import ConfigError, FormatError, shown

__all__ = ["MAX_EXTERNAL_BYTES", "allowed_roots", "resolve_external", "read_external"]

#: Largest file a map may name (a tileset, a template, an external level).
MAX_EXTERNAL_BYTES = 16 << 20


def allowed_roots(map_path: str | os.PathLike[str], allow_dirs: Any) -> tuple[Path, ...]:
    """The folders a map's references may resolve into: the map's folder (symlinks
    resolved), then each of ``allow_dirs`` (a path or an iterable of paths; None
    for none). ConfigError (field ``allow_dirs``) for anything else."""
    roots = [Path(map_path).absolute().parent.resolve()]
    if allow_dirs is None:
        return tuple(roots)
    items: Iterable[Any] = (
        [allow_dirs] if isinstance(allow_dirs, (str, os.PathLike)) else allow_dirs)
    try:
        items = list(items)
    except TypeError:
        raise ConfigError(f"expected a folder or a list of folders, got {shown(allow_dirs)}",
                          field="allow_dirs") from None
    for d in items:
        if not isinstance(d, (str, os.PathLike)) or not os.fspath(d):
            raise ConfigError(f"expected folder paths, got {shown(d)}", field="allow_dirs")
        try:
            roots.append(Path(d).absolute().resolve())
        except (OSError, RuntimeError, ValueError) as exc:
            raise ConfigError(f"cannot resolve {shown(d)}: {exc}", field="allow_dirs") from None
    return tuple(roots)


def resolve_external(referrer: str | os.PathLike[str], ref: Any, roots: tuple[Path, ...],
                     what: str, *, map_path: str | os.PathLike[str] | None = None) -> Path:
    """The file ``ref`` (as written in ``referrer``, relative to its folder) names,
    symlinks resolved; FormatError naming ``map_path`` (default ``referrer``)
    unless it lies inside one of ``roots`` (:func:`allowed_roots`)."""
    where = Path(map_path if map_path is not None else referrer)
    if not isinstance(ref, str) or not ref or "\x00" in ref:
        raise FormatError(f"{what} {shown(ref)}: expected a file name", path=where)
    try:
        real = (Path(referrer).absolute().parent / ref).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a bad name
        raise FormatError(f"{what} {ref!r}: cannot resolve the path ({exc})",
                          path=where) from None
    if not any(real == r or real.is_relative_to(r) for r in roots):
        allowed = ", ".join(str(r) for r in roots)
        raise FormatError(f"{what} {ref!r} resolves outside the map's folder, to {real} "
                          f"(allowed: {allowed}; pass allow_dirs= to allow another folder)",
                          path=where)
    return real


def read_external(real: Path, ref: str, what: str, map_path: str | os.PathLike[str], *,
                  max_bytes: int = MAX_EXTERNAL_BYTES) -> bytes:
    """The bytes of the regular file ``real`` (resolved by :func:`resolve_external`),
    at most ``max_bytes`` (checked before reading, and while reading)."""
    where = Path(map_path)
    try:
        # non-blocking: opening a FIFO for reading would otherwise wait for a writer
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb", closefd=True) as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise FormatError(f"{what} {ref!r}: {real} is not a regular file", path=where)
            if st.st_size > max_bytes:
                raise FormatError(f"{what} {ref!r}: {real} holds {st.st_size:_} bytes, more "
                                  f"than the {max_bytes:_} allowed", path=where)
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise FormatError(f"{what} {ref!r}: no such file ({real})", path=where) from None
    except IsADirectoryError:
        raise FormatError(f"{what} {ref!r}: {real} is a directory", path=where) from None
    except OSError as exc:
        raise FormatError(f"{what} {ref!r}: cannot read {real}: {exc.strerror or exc}",
                          path=where) from None
    if len(data) > max_bytes:
        raise FormatError(f"{what} {ref!r}: {real} holds more than the {max_bytes:_} bytes "
                          "allowed", path=where)
    return data

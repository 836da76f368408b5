"""One bounded reader for zip archives and the ``.npy`` members of ``.npz`` files.

Every navkit reader of a zip (grid ``.npz``, JPS+ tables, goal bounds, meshes)
goes through :class:`Archive`, so that a small hostile file cannot make navkit
allocate much or read for long:

* the archive is opened from its central directory only; it may hold at most
  ``max_members`` entries (default :data:`MAX_MEMBERS`);
* every member's *declared* uncompressed size is checked against a cap the
  caller gives (per member, and for all members together) before a byte of it
  is decompressed;
* the *actual* stream is cut at the declared size (a member that inflates to
  more, or to less, is an error: its CRC is checked at the end); only stored
  and deflated members are read (zipfile inflates bzip2 and lzma without an
  output bound);
* an ``.npy`` member's header is read first (at most :data:`MAX_NPY_HEADER`
  bytes); its shape times its item size must be exactly the bytes the member
  declares after the header, and at most the caller's cap, before the array
  is allocated; object (pickled) dtypes are refused.

Any failure is a :class:`~navkit.errors.FormatError` naming the file (and the
member), never a ``MemoryError``, ``zipfile.BadZipFile`` or numpy exception.

>>> import io, numpy as np, tempfile, os
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.npz")
>>> np.savez_compressed(p, a=np.arange(6, dtype=np.int16).reshape(2, 3))
>>> read_npz(p, {"a": 1000}, "test file")["a"].tolist()
[[0, 1, 2], [3, 4, 5]]
>>> try:
...     read_npz(p, {"a": 8}, "test file")
... except FormatError as e:
...     print(e.reason)
test file member 'a.npy': array of shape (2, 3) int16 takes 12 bytes, more than the 8 allowed
"""

from __future__ import annotations

import ast
import math
import os
import zipfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from ..errors import FormatError

__all__ = ["Archive", "read_npz", "MAX_MEMBERS", "MAX_NPY_HEADER", "READ_ERRORS"]

#: Most entries an archive navkit reads may list.
MAX_MEMBERS = 64
#: Longest ``.npy`` header accepted (numpy writes well under 200 bytes).
MAX_NPY_HEADER = 4096
#: What zipfile, zlib and the OS raise on a damaged or hostile archive.
READ_ERRORS: tuple[type[BaseException], ...] = (
    OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, NotImplementedError,
    RuntimeError, OverflowError, MemoryError, KeyError, TypeError, SyntaxError, RecursionError,
)
_NPY_MAGIC = b"\x93NUMPY"
_CHUNK = 1 << 20


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "..."


class Archive:
    """A zip archive opened for bounded reads (a context manager).

    ``what`` names the kind of file in messages (``"JPS+ table file"``);
    ``max_total`` caps the declared uncompressed bytes of all members together,
    ``max_members`` the number of entries. Raises FormatError naming ``path``
    when the file is missing, not a zip, or over a cap.
    """

    def __init__(self, path: str | os.PathLike[str], what: str, *, max_total: int,
                 max_members: int = MAX_MEMBERS):
        self.path = str(path)
        self.what = what
        try:
            self._zf = zipfile.ZipFile(Path(path))
        except FileNotFoundError:
            raise FormatError(f"not a {what} (no such file)", path=self.path) from None
        except IsADirectoryError:
            raise FormatError(f"not a {what} (is a directory)", path=self.path) from None
        except READ_ERRORS as exc:
            raise FormatError(f"not a {what} ({_reason(exc)})", path=self.path) from None
        try:
            infos = self._zf.infolist()
            if len(infos) > max_members:
                raise self.error(f"lists {len(infos)} entries, more than {max_members}")
            self.infos: dict[str, zipfile.ZipInfo] = {}
            total = 0
            for info in infos:
                if info.filename in self.infos:
                    raise self.error(f"entry {info.filename!r} appears twice")
                self.infos[info.filename] = info
                total += int(info.file_size)
            if total > max_total:
                raise self.error(f"declares {total:_} bytes unpacked, more than the "
                                 f"{max_total:_} allowed")
        except BaseException:
            self._zf.close()
            raise

    def error(self, message: str, member: str | None = None) -> FormatError:
        """A FormatError naming the file (and ``member``)."""
        where = f" member {member!r}" if member is not None else ""
        return FormatError(f"{self.what}{where}: {message}", path=self.path)

    def close(self) -> None:
        self._zf.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # ----------------------------------------------------------- members
    def npy_name(self, key: str) -> str | None:
        """The entry holding array ``key`` (``key.npy`` or ``key``), None if absent."""
        for name in (key + ".npy", key):
            if name in self.infos:
                return name
        return None

    def keys(self) -> list[str]:
        """Entry names without a ``.npy`` suffix, in archive order."""
        return [n[:-4] if n.endswith(".npy") else n for n in self.infos]

    def _open(self, name: str, max_bytes: int) -> tuple[zipfile.ZipInfo, IO[bytes]]:
        info = self.infos.get(name)
        if info is None:
            raise self.error("is missing", name)
        if int(info.file_size) > max_bytes:
            raise self.error(f"declares {int(info.file_size):_} bytes unpacked, more than the "
                             f"{max_bytes:_} allowed", name)
        if info.flag_bits & 0x1:
            raise self.error("is encrypted", name)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            # (zipfile inflates bzip2 and lzma data without an output bound)
            raise self.error(f"compression method {info.compress_type} is not supported "
                             "(stored or deflate only)", name)
        try:
            return info, self._zf.open(info)
        except READ_ERRORS as exc:
            raise self.error(f"cannot be opened ({_reason(exc)})", name) from None

    def read_bytes(self, name: str, max_bytes: int) -> bytes:
        """Entry ``name``'s bytes, at most ``max_bytes`` (declared and actual)."""
        info, fh = self._open(name, max_bytes)
        try:
            with fh:
                data = fh.read(int(info.file_size) + 1)
                if len(data) != int(info.file_size):
                    raise self.error(f"holds {len(data)} bytes, declares "
                                     f"{int(info.file_size)}", name)
                return data
        except FormatError:
            raise
        except READ_ERRORS as exc:
            raise self.error(f"is damaged ({_reason(exc)})", name) from None

    def read_array(self, key: str, max_bytes: int,
                   check: Callable[[tuple[int, ...], np.dtype[Any]], None] | None = None
                   ) -> NDArray[Any]:
        """The ``.npy`` array ``key``: its header checked before the data is
        allocated (``check(shape, dtype)`` first, when given: it raises to refuse;
        then shape x item size exactly the member's declared data, at most
        ``max_bytes``), then read in pieces; no pickles."""
        name = self.npy_name(key)
        if name is None:
            raise self.error("is missing", key)
        info, fh = self._open(name, max_bytes + MAX_NPY_HEADER)
        try:
            with fh:
                shape, fortran, dtype, head = self._npy_header(fh, name)
                if check is not None:
                    check(shape, dtype)
                count = math.prod(shape)
                need = count * dtype.itemsize
                if need > max_bytes:
                    raise self.error(f"array of shape {shape} {dtype} takes {need:_} bytes, "
                                     f"more than the {max_bytes:_} allowed", name)
                if head + need != int(info.file_size):
                    raise self.error(f"array of shape {shape} {dtype} needs {need:_} bytes of "
                                     f"data, the member holds {int(info.file_size) - head:_}",
                                     name)
                arr = np.empty(count, dtype=dtype)
                view = memoryview(arr.view(np.uint8).reshape(-1).data) if need else memoryview(b"")
                pos = 0
                while pos < need:
                    got = fh.readinto(view[pos:pos + _CHUNK])  # type: ignore[attr-defined]
                    if not got:
                        raise self.error(f"array data cut short at {pos:_} of {need:_} bytes",
                                         name)
                    pos += got
                if fh.read(1):
                    raise self.error("holds more data than its array", name)
        except FormatError:
            raise
        except READ_ERRORS as exc:
            raise self.error(f"is damaged ({_reason(exc)})", name) from None
        if fortran:
            return arr.reshape(shape[::-1]).transpose()
        return arr.reshape(shape)

    def _npy_header(self, fh: IO[bytes], name: str
                    ) -> tuple[tuple[int, ...], bool, np.dtype[Any], int]:
        """``(shape, fortran_order, dtype, header bytes)`` of an ``.npy`` stream."""
        pre = fh.read(10)
        if len(pre) < 10 or not pre.startswith(_NPY_MAGIC):
            raise self.error("is not a .npy array", name)
        major = pre[6]
        if major == 1:
            hlen = int.from_bytes(pre[8:10], "little")
            start = 10
        elif major in (2, 3):
            more = fh.read(2)
            if len(more) < 2:
                raise self.error("has a truncated .npy header", name)
            hlen = int.from_bytes(pre[8:10] + more, "little")
            start = 12
        else:
            raise self.error(f"unsupported .npy version {major}.{pre[7]}", name)
        if hlen > MAX_NPY_HEADER:
            raise self.error(f".npy header of {hlen} bytes, more than {MAX_NPY_HEADER}", name)
        raw = fh.read(hlen)
        if len(raw) != hlen:
            raise self.error("has a truncated .npy header", name)
        try:
            d = ast.literal_eval(raw.decode("utf-8" if major == 3 else "latin1"))
        except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError,
                TypeError):
            raise self.error("has a corrupt .npy header", name) from None
        if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
            raise self.error("has a corrupt .npy header (keys)", name)
        shape, fortran, descr = d["shape"], d["fortran_order"], d["descr"]
        if not isinstance(shape, tuple) or len(shape) > 32 or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 1 << 62
                for s in shape):
            raise self.error(f"has a bad .npy shape {str(shape)[:80]}", name)
        if not isinstance(fortran, bool) or not isinstance(descr, str):
            raise self.error("has a corrupt .npy header (fields)", name)
        try:
            dtype = np.dtype(descr)
        except (TypeError, ValueError, SyntaxError):
            raise self.error(f"has an unknown dtype {descr[:40]!r}", name) from None
        if dtype.hasobject or dtype.kind not in "biufUS" or dtype.itemsize == 0 or (
                dtype.fields is not None or dtype.subdtype is not None):
            raise self.error(f"dtype {dtype} is not a plain number or string type", name)
        return tuple(shape), fortran, dtype, start + hlen


def read_npz(path: str | os.PathLike[str], limits: Mapping[str, int], what: str, *,
             optional: tuple[str, ...] = (), max_total: int | None = None
             ) -> dict[str, NDArray[Any]]:
    """The arrays ``limits`` names from the ``.npz`` file ``path``, each at most
    its limit in bytes (``optional`` ones may be absent). ``max_total`` caps all
    members together (default: the sum of the limits plus headers)."""
    total = max_total if max_total is not None else (
        sum(limits.values()) + MAX_NPY_HEADER * max(1, len(limits)))
    out: dict[str, NDArray[Any]] = {}
    with Archive(path, what, max_total=total) as ar:
        for key, limit in limits.items():
            if ar.npy_name(key) is None:
                if key in optional:
                    continue
                raise ar.error(f"has no {key!r} array")
            out[key] = ar.read_array(key, limit)
    return out

"""Helpers shared by the readers: reading files, splitting lines, decoding."""

from __future__ import annotations

import math
import os
from pathlib import Path

from ..errors import FormatError

PathLike = str | os.PathLike[str]

_BOM = b"\xef\xbb\xbf"


def read_bytes(path: PathLike) -> bytes:
    """The file's bytes; a missing or unreadable file raises :class:`FormatError`."""
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise FormatError("no such file", path=p) from None
    except IsADirectoryError:
        raise FormatError("is a directory, expected a file", path=p) from None
    except OSError as exc:
        raise FormatError(f"cannot read file: {exc.strerror or exc}", path=p) from None


def split_lines(data: bytes) -> list[bytes]:
    """Lines without their endings (LF, CRLF or CR); a leading UTF-8 BOM is dropped.

    Index ``i`` of the result is line ``i + 1`` of the file.

    >>> split_lines(b"a\\r\\nb\\n\\n")
    [b'a', b'b', b'']
    """
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    return data.splitlines()


def decode_line(raw: bytes, path: str, lineno: int) -> str:
    """Decode one line as UTF-8, naming the line when that fails."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(
            f"invalid UTF-8 at column {exc.start + 1}: {raw[exc.start : exc.start + 1]!r}",
            path=path,
            line=lineno,
        ) from None


def describe_byte(b: int) -> str:
    """A printable description of one byte for error messages."""
    if 32 <= b < 127:
        return repr(chr(b))
    return f"byte 0x{b:02x}"


def parse_int(text: str, what: str, path: str, lineno: int, *, minimum: int | None = None) -> int:
    """An integer field, or :class:`FormatError` naming ``what`` and the line."""
    try:
        value = int(text)
    except ValueError:
        raise FormatError(
            f"{what}: expected an integer, got {text!r}", path=path, line=lineno
        ) from None
    if minimum is not None and value < minimum:
        raise FormatError(f"{what}: must be >= {minimum}, got {value}", path=path, line=lineno)
    return value


def parse_float(
    text: str,
    what: str,
    path: str,
    lineno: int,
    *,
    positive: bool = False,
    nonnegative: bool = False,
) -> float:
    """A finite float field, or :class:`FormatError` naming ``what`` and the line."""
    try:
        value = float(text)
    except ValueError:
        raise FormatError(
            f"{what}: expected a number, got {text!r}", path=path, line=lineno
        ) from None
    if not math.isfinite(value):
        raise FormatError(f"{what}: expected a finite number, got {text!r}", path=path, line=lineno)
    if positive and value <= 0:
        raise FormatError(f"{what}: must be > 0, got {text!r}", path=path, line=lineno)
    if nonnegative and value < 0:
        raise FormatError(f"{what}: must be >= 0, got {text!r}", path=path, line=lineno)
    return value

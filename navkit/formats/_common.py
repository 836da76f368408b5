"""Helpers shared by the readers: reading files, splitting lines, decoding, size limits.

Reading a file's bytes and the size limit are shared with the level reader and
live below both, in :mod:`navkit._reading`; they are imported here
for the readers of this package.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from .._reading import cell_limit, open_error, read_bytes, size_message
from ..errors import FormatError, shown

__all__ = ["PathLike", "INT64_MIN", "INT64_MAX", "cell_limit", "open_error", "read_bytes",
           "size_message", "split_lines", "decode_line", "describe_byte", "parse_int",
           "parse_float", "check_cells"]

PathLike = str | os.PathLike[str]

_BOM = b"\xef\xbb\xbf"
#: The integers a numeric field of a text format may hold (int64 arrays).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_MAX_DIGITS = 30  # longer integers are refused without calling int() on them


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


def parse_int(
    text: str,
    what: str,
    path: str,
    lineno: int,
    *,
    minimum: int = INT64_MIN,
    maximum: int = INT64_MAX,
) -> int:
    """An integer field in ``[minimum, maximum]`` (default: the int64 range the arrays
    hold), or :class:`FormatError` naming ``what`` and the line."""
    digits = text.lstrip("+-")
    if len(digits) > _MAX_DIGITS and digits.isdigit():
        raise FormatError(
            f"{what}: {shown(text)} is out of range (more than {_MAX_DIGITS} digits)",
            path=path,
            line=lineno,
        )
    try:
        value = int(text)
    except ValueError:
        raise FormatError(
            f"{what}: expected an integer, got {shown(text)}", path=path, line=lineno
        ) from None
    if value < minimum:
        raise FormatError(f"{what}: must be >= {minimum}, got {value}", path=path, line=lineno)
    if value > maximum:
        raise FormatError(f"{what}: must be <= {maximum}, got {value}", path=path, line=lineno)
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
            f"{what}: expected a number, got {shown(text)}", path=path, line=lineno
        ) from None
    if not math.isfinite(value):
        raise FormatError(
            f"{what}: expected a finite number, got {shown(text)}", path=path, line=lineno
        )
    if positive and value <= 0:
        raise FormatError(f"{what}: must be > 0, got {shown(text)}", path=path, line=lineno)
    if nonnegative and value < 0:
        raise FormatError(f"{what}: must be >= 0, got {shown(text)}", path=path, line=lineno)
    return value


def check_cells(
    width: int,
    depth: int,
    limit: int,
    *,
    path: str | Path,
    line: int | None = None,
    what: str = "grid",
) -> None:
    """Refuse, before anything is allocated, a grid of more than ``limit`` cells."""
    if width * depth > limit:
        raise FormatError(size_message(width, depth, limit, what), path=path, line=line)

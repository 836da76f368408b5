"""Helpers shared by the readers: reading files, splitting lines, decoding, size limits."""

from __future__ import annotations

import math
import numbers
import os
import sys
from pathlib import Path

from ..errors import ConfigError, FormatError, shown
from ..grid import MAX_CELLS as GRID_MAX_CELLS

PathLike = str | os.PathLike[str]

_BOM = b"\xef\xbb\xbf"
#: The integers a numeric field of a text format may hold (int64 arrays).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_MAX_DIGITS = 30  # longer integers are refused without calling int() on them


def open_error(exc: OSError, path: Path) -> FormatError:
    """The :class:`FormatError` of a file that could not be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return FormatError("no such file", path=path)
    if isinstance(exc, IsADirectoryError):
        return FormatError("is a directory, expected a file", path=path)
    return FormatError(f"cannot read file: {exc.strerror or exc}", path=path)


def read_bytes(path: PathLike) -> bytes:
    """The file's bytes; a missing or unreadable file raises :class:`FormatError`."""
    p = Path(path)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise open_error(exc, p) from None


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


#: Rough memory a Pathfinder needs per grid cell, for size messages.
BYTES_PER_CELL = 50



def cell_limit(max_cells: object = None) -> int:
    """The reader limit in cells: ``max_cells``, or ``navkit.formats.MAX_CELLS`` when None.

    ``max_cells`` must be an integer in ``[1, navkit.grid.MAX_CELLS]``
    (:class:`~navkit.errors.ConfigError`, field ``max_cells``, otherwise).
    """
    if max_cells is None:
        # the package's constant, read at call time so that assigning it takes
        # effect (looked up, not imported: the package imports this module)
        return int(sys.modules[__package__].MAX_CELLS)
    if isinstance(max_cells, bool) or not isinstance(max_cells, numbers.Integral):
        raise ConfigError(f"expected an integer, got {max_cells!r}", field="max_cells")
    limit = int(max_cells)
    if not 1 <= limit <= GRID_MAX_CELLS:
        raise ConfigError(f"must lie in [1, {GRID_MAX_CELLS}], got {shown(limit)}",
                          field="max_cells")
    return limit


def size_message(width: int, depth: int, limit: int, what: str = "grid") -> str:
    """Why a ``width`` x ``depth`` grid is refused, and how to allow it."""
    cells = width * depth
    if cells >= 10**18:  # (numbers of thousands of digits are possible here)
        return (f"{what} of {shown(width)} x {shown(depth)} cells exceeds the limit of {limit} "
                "cells")
    return (
        f"{what} of {width} x {depth} = {cells} cells exceeds the limit of {limit} cells "
        f"(a Pathfinder would need about {_bytes(cells * BYTES_PER_CELL)}); to read it anyway "
        "pass max_cells= (e.g. load_grid(path, max_cells=...)) or raise navkit.formats.MAX_CELLS"
    )


def _bytes(n: float) -> str:
    """``n`` bytes for a message.

    >>> _bytes(600), _bytes(3.4e9), _bytes(5e13)
    ('600 bytes', '3.4 GB', '50 TB')
    """
    if n >= 10**18:  # (an integer too large for a float is possible here)
        return "more than 1000 PB"
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000:
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} TB"


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

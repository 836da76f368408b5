"""Reading files: their bytes, and the readers' size limit (docs/levels.md, "Grid size").

Shared by the level reader (:func:`navkit.level.read_level`) and every
reader of :mod:`navkit.formats`, which sits one layer above :mod:`navkit.level`
(it reads ``.json`` levels and Tiled levels through it): the shared piece
lives below both, and importing it loads neither (nor numba).

The limit a reader applies when no ``max_cells=`` is given is
``navkit.formats.MAX_CELLS``, read at call time so that assigning it changes
every reader in the process, the level readers included. ``navkit.formats``
hands it down when it loads (:func:`use_default_limit`); until it has loaded
nobody can have assigned it, and the limit is :data:`READER_MAX_CELLS`, the
value it starts with.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable
from pathlib import Path

from .errors import ConfigError, FormatError, shown
from .grid import MAX_CELLS as GRID_MAX_CELLS

__all__ = ["READER_MAX_CELLS", "BYTES_PER_CELL", "cell_limit", "use_default_limit",
           "open_error", "read_bytes", "size_message"]

#: The readers' default limit, 2**26 cells (``navkit.formats.MAX_CELLS`` starts at it).
READER_MAX_CELLS = 1 << 26
#: Rough memory a Pathfinder needs per grid cell, for size messages.
BYTES_PER_CELL = 50


def _start_value() -> int:
    return READER_MAX_CELLS


_default_limit: Callable[[], int] = _start_value


def use_default_limit(source: Callable[[], int]) -> None:
    """Read the default limit through ``source()`` from now on (``navkit.formats``
    passes a function returning its ``MAX_CELLS``)."""
    global _default_limit
    _default_limit = source


def cell_limit(max_cells: object = None) -> int:
    """The reader limit in cells: ``max_cells``, or ``navkit.formats.MAX_CELLS`` when None.

    ``max_cells`` must be an integer in ``[1, navkit.grid.MAX_CELLS]``
    (:class:`~navkit.errors.ConfigError`, field ``max_cells``, otherwise).
    """
    if max_cells is None:
        return int(_default_limit())
    if isinstance(max_cells, bool) or not isinstance(max_cells, numbers.Integral):
        raise ConfigError(f"expected an integer, got {max_cells!r}", field="max_cells")
    limit = int(max_cells)
    if not 1 <= limit <= GRID_MAX_CELLS:
        raise ConfigError(f"must lie in [1, {GRID_MAX_CELLS}], got {shown(limit)}",
                          field="max_cells")
    return limit


def open_error(exc: OSError, path: Path) -> FormatError:
    """The :class:`FormatError` of a file that could not be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return FormatError("no such file", path=path)
    if isinstance(exc, IsADirectoryError):
        return FormatError("is a directory, expected a file", path=path)
    return FormatError(f"cannot read file: {exc.strerror or exc}", path=path)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes; a missing or unreadable file raises :class:`FormatError`."""
    p = Path(path)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise open_error(exc, p) from None


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

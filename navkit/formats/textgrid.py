"""The pre-computed ``.txt`` grid file (docs/rules.md §2.5).

A header of ``key value`` lines, then ``gridDepth`` rows of ``gridWidth``
``1``/``0`` characters (row index = z)::

    cellSize 0.4
    agentRadius 0.45
    objectPadding 0.25
    boundaryPadding 0.0
    floorY 0.0
    minX -5.0
    minZ -5.0
    gridWidth 3
    gridDepth 2
    111
    101

Geometry is in metres. Only ``gridWidth`` and ``gridDepth`` are required;
missing geometry keys take :class:`~navkit.grid.NavGrid`'s defaults.
``objectPadding``, ``boundaryPadding`` and unknown keys go to ``grid.meta``
(unknown values as strings). navkit's extension for weighted grids: a header
line ``weighted 1``, and after the rows a line ``weights`` followed by
``gridDepth`` lines of ``gridWidth`` space-separated integer weights.
Floats are written with ``repr`` so they read back bit for bit.

>>> grid = parse_text_grid("cellSize 0.4\\nminX -5.0\\ngridWidth 3\\ngridDepth 2\\n111\\n101\\n")
>>> grid.shape, grid.cell_size, grid.min_x, bool(grid.walkable[1, 1])
((2, 3), 0.4, -5.0, False)
>>> parse_text_grid(format_text_grid(grid)).equals(grid)
True
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, FormatError
from ..grid import MAX_WEIGHT, NavGrid
from ._common import (
    PathLike,
    cell_limit,
    check_cells,
    decode_line,
    describe_byte,
    parse_float,
    parse_int,
    read_bytes,
    split_lines,
)

__all__ = ["read_text_grid", "parse_text_grid", "write_text_grid", "format_text_grid"]

# header key -> (NavGrid field or None for meta, kind)
_FLOAT_KEYS = {
    "cellSize": "cell_size",
    "agentRadius": "agent_radius",
    "floorY": "floor_y",
    "minX": "min_x",
    "minZ": "min_z",
}
_HEADER_KEY = {field: key for key, field in _FLOAT_KEYS.items()}
_META_FLOAT_KEYS = ("objectPadding", "boundaryPadding")
_INT_KEYS = ("gridWidth", "gridDepth", "weighted")
_KNOWN = {*_FLOAT_KEYS, *_META_FLOAT_KEYS, *_INT_KEYS}
_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*\Z")

_LUT = np.full(256, 2, dtype=np.uint8)
_LUT[ord("0")] = 0
_LUT[ord("1")] = 1


def read_text_grid(path: PathLike, *, max_cells: int | None = None) -> NavGrid:
    """Read a ``.txt`` grid file (docs/rules.md §2.5) into a :class:`NavGrid` named after the file.

    Raises :class:`~navkit.errors.FormatError` naming the file and line on a
    missing ``gridWidth``/``gridDepth``, a character other than ``0``/``1``,
    a short or long row, too few or too many rows, or a bad weight; and,
    before reading the rows, on a header declaring more than ``max_cells``
    cells (default ``navkit.formats.MAX_CELLS``).
    """
    limit = cell_limit(max_cells)
    return parse_text_grid(read_bytes(path), path=path, name=Path(path).name, max_cells=limit)


def parse_text_grid(
    data: bytes | str,
    *,
    path: PathLike = "<text grid>",
    name: str = "",
    max_cells: int | None = None,
) -> NavGrid:
    """Parse the text of a ``.txt`` grid file; ``path`` is used in error messages only."""
    src = os.fspath(path)
    limit = cell_limit(max_cells)
    if isinstance(data, str):
        data = data.encode("utf-8")
    lines = split_lines(data)
    n = len(lines)

    # ---- header: `key value` lines until the first line that does not start with a letter
    values: dict[str, Any] = {}
    seen: dict[str, int] = {}
    meta: dict[str, Any] = {}
    i = 0
    while i < n:
        stripped = lines[i].strip()
        if stripped and not (65 <= stripped[0] <= 90 or 97 <= stripped[0] <= 122):
            break
        lineno = i + 1
        i += 1
        if not stripped:
            continue
        text = decode_line(stripped, src, lineno)
        parts = text.split(None, 1)
        key = parts[0]
        if key in seen:
            raise FormatError(
                f"duplicate header key {key!r} (first on line {seen[key]})", path=src, line=lineno
            )
        seen[key] = lineno
        if key not in _KNOWN:
            meta[key] = parts[1].strip() if len(parts) > 1 else ""
            continue
        if len(parts) != 2 or len(parts[1].split()) != 1:
            raise FormatError(f"expected '{key} <number>', got {text!r}", path=src, line=lineno)
        raw = parts[1].strip()
        if key in _FLOAT_KEYS:
            values[_FLOAT_KEYS[key]] = parse_float(
                raw, key, src, lineno, positive=key == "cellSize", nonnegative=key == "agentRadius"
            )
        elif key in _META_FLOAT_KEYS:
            meta[key] = parse_float(raw, key, src, lineno, nonnegative=True)
        elif key == "weighted":
            flag = parse_int(raw, key, src, lineno, minimum=0)
            if flag > 1:
                raise FormatError(f"weighted: expected 0 or 1, got {raw!r}", path=src, line=lineno)
            values["weighted"] = flag
        else:
            values[key] = parse_int(raw, key, src, lineno, minimum=1)

    rows_start = i  # 0-based index of the first grid row
    for key in ("gridWidth", "gridDepth"):
        if key not in values:
            raise FormatError(
                f"header has no '{key}' line before the grid rows",
                path=src,
                line=min(rows_start + 1, max(n, 1)),
            )
    width, depth = values.pop("gridWidth"), values.pop("gridDepth")
    weighted = bool(values.pop("weighted", 0))
    check_cells(width, depth, limit, path=src, line=seen["gridDepth"])

    # ---- rows of 0/1
    rows = lines[rows_start : rows_start + depth]
    for k, row in enumerate(rows):
        if len(row) != width:
            got = "a blank line" if not row.strip() else f"{len(row)} characters"
            raise FormatError(
                f"grid row {k + 1} of {depth}: expected {width} characters, got {got}",
                path=src,
                line=rows_start + k + 1,
            )
    if len(rows) < depth:
        raise FormatError(
            f"file ends after {len(rows)} of {depth} grid rows (gridDepth {depth})",
            path=src,
            line=rows_start + len(rows) + 1,
        )
    raw_cells = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(depth, width)
    codes = _LUT[raw_cells]
    bad = codes == 2
    if bad.any():
        z, x = divmod(int(np.argmax(bad.ravel())), width)
        raise FormatError(
            f"unexpected character {describe_byte(int(raw_cells[z, x]))} at column {x + 1} "
            "(expected '0' or '1')",
            path=src,
            line=rows_start + z + 1,
        )
    i = rows_start + depth

    # ---- optional weights section
    weights = None
    while i < n and not lines[i].strip():
        i += 1
    if weighted:
        if i >= n or lines[i].strip() != b"weights":
            found = (
                "the end of the file"
                if i >= n
                else repr(lines[i].strip()[:40].decode("utf-8", "replace"))
            )
            raise FormatError(
                f"header says 'weighted 1' but the grid rows are followed by {found}, "
                "not a 'weights' line",
                path=src,
                line=min(i + 1, n + 1),
            )
        weights = np.empty((depth, width), dtype=np.int64)
        for k in range(depth):
            j = i + 1 + k
            if j >= n:
                raise FormatError(
                    f"file ends after {k} of {depth} weight rows", path=src, line=j + 1
                )
            text = decode_line(lines[j], src, j + 1)
            tokens = text.split()
            if len(tokens) != width:
                raise FormatError(
                    f"weight row {k + 1} of {depth}: expected {width} integers, got {len(tokens)}",
                    path=src,
                    line=j + 1,
                )
            try:
                row_w = np.array([int(t) for t in tokens], dtype=np.int64)
            except (ValueError, OverflowError):
                # not an integer, or beyond int64: find it and name it
                row_w = np.array(
                    [parse_int(t, f"weight {c + 1} of the row", src, j + 1)
                     for c, t in enumerate(tokens)],
                    dtype=np.int64,
                )
            out = (row_w < 1) | (row_w > MAX_WEIGHT)
            if out.any():
                col = int(np.argmax(out))
                raise FormatError(
                    f"weight {col + 1} of the row: must lie in [1, {MAX_WEIGHT}], got {row_w[col]}",
                    path=src,
                    line=j + 1,
                )
            weights[k] = row_w
        i += 1 + depth
    for j in range(i, n):
        if lines[j].strip():
            what = (
                "a 'weights' section without 'weighted 1' in the header"
                if (lines[j].strip() == b"weights" and not weighted)
                else f"text after the {depth} {'weight' if weighted else 'grid'} rows "
                f"(gridDepth {depth})"
            )
            raise FormatError(f"unexpected {what}", path=src, line=j + 1)

    try:
        return NavGrid(codes == 1, weights=weights, name=name, meta=meta, copy=False,
                       **values)
    except ConfigError as exc:  # a geometry value NavGrid refuses (cell size out of range)
        key = _HEADER_KEY.get(exc.field or "", "")
        raise FormatError(f"{key}: {exc.reason}", path=src, line=seen.get(key)) from None


def format_text_grid(grid: NavGrid) -> str:
    """The ``.txt`` grid file text of a grid (LF endings, floats via ``repr``)."""
    out = [
        f"cellSize {grid.cell_size!r}",
        f"agentRadius {grid.agent_radius!r}",
    ]
    for key in _META_FLOAT_KEYS:
        if key in grid.meta:
            out.append(f"{key} {float(grid.meta[key])!r}")
    out += [
        f"floorY {grid.floor_y!r}",
        f"minX {grid.min_x!r}",
        f"minZ {grid.min_z!r}",
    ]
    for key, value in grid.meta.items():
        # extra header keys read from a text grid (plain strings) travel along
        if (
            key not in _KNOWN
            and isinstance(key, str)
            and _KEY_RE.match(key)
            and isinstance(value, str)
            and "\n" not in value
            and "\r" not in value
        ):
            out.append(f"{key} {value}".rstrip())
    if grid.weights is not None:
        out.append("weighted 1")
    out += [f"gridWidth {grid.width}", f"gridDepth {grid.depth}"]
    body = np.where(grid.walkable, np.uint8(ord("1")), np.uint8(ord("0")))
    out += [r.tobytes().decode("ascii") for r in body]
    if grid.weights is not None:
        out.append("weights")
        out += [" ".join(map(str, r)) for r in grid.weights.tolist()]
    return "\n".join(out) + "\n"


def write_text_grid(grid: NavGrid, path: PathLike) -> None:
    """Write ``grid`` as a ``.txt`` grid file; :func:`read_text_grid` reads back an equal grid."""
    Path(path).write_text(format_text_grid(grid), encoding="utf-8", newline="\n")

"""Moving AI benchmark files: ``.map`` grids and ``.scen`` scenario lists.

Maps (https://movingai.com/benchmarks/formats.html)::

    type octile
    height H
    width W
    map
    <H rows of W characters>

Passable: ``.`` ``G`` ``S``; blocked: ``@`` ``O`` ``T`` ``W``. Moving AI's
``(x, y)`` (column, row; ``(0, 0)`` top-left) is navkit's ``(x, z)``, so the
grid array is indexed ``[y, x]``. Maps load with ``cell_size=1`` and the origin
at ``(0, 0)``.

Scenario lines hold ``bucket, map, map_width, map_height, start_x, start_y,
goal_x, goal_y, optimal_length``: tab-separated after ``version 1``,
space-separated after the legacy ``version 1.0``. Note that the map header
gives height first, scenario lines give width first.

>>> grid = parse_map("type octile\\nheight 2\\nwidth 3\\nmap\\n.@.\\nGTS\\n")
>>> grid.walkable.astype(int).tolist()
[[1, 0, 1], [1, 0, 1]]
>>> scen = parse_scenarios("version 1\\n0\\tmaps/x.map\\t3\\t2\\t0\\t0\\t2\\t1\\t2.41421356\\n")
>>> len(scen), scen.map_basename, scen.start.tolist(), scen.goal.tolist()
(1, 'x.map', [[0, 0]], [[2, 1]])
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, FormatError, QueryError
from ..grid import NavGrid
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

__all__ = [
    "PASSABLE",
    "BLOCKED",
    "read_map",
    "parse_map",
    "write_map",
    "format_map",
    "ScenarioSet",
    "read_scenarios",
    "parse_scenarios",
    "check_scenarios_fit",
    "find_map_for",
]

#: Map characters a character may stand on.
PASSABLE = ".GS"
#: Map characters that block movement.
BLOCKED = "@OTW"

_INVALID = 2
_LUT = np.full(256, _INVALID, dtype=np.uint8)
for _c in PASSABLE:
    _LUT[ord(_c)] = 1
for _c in BLOCKED:
    _LUT[ord(_c)] = 0
del _c

_SCEN_VERSIONS = ("1", "1.0")
_SCEN_COLUMNS = (
    "bucket",
    "map",
    "map_width",
    "map_height",
    "start_x",
    "start_y",
    "goal_x",
    "goal_y",
    "optimal_length",
)


# --------------------------------------------------------------------- maps
def read_map(path: PathLike, *, max_cells: int | None = None) -> NavGrid:
    """Read a Moving AI ``.map`` file into a :class:`NavGrid` of shape ``(height, width)``.

    Accepts LF or CRLF endings, a missing final newline and trailing blank
    lines; header keys in any order and case. Anything else that is off (an
    unknown character, a short or long row, too few or too many rows) raises
    :class:`~navkit.errors.FormatError` naming the file and 1-based line. A
    header declaring more than ``max_cells`` cells (default
    ``navkit.formats.MAX_CELLS``) is refused before the rows are read.
    """
    limit = cell_limit(max_cells)
    return parse_map(read_bytes(path), path=path, name=Path(path).name, max_cells=limit)


def parse_map(
    data: bytes | str, *, path: PathLike = "<map>", name: str = "", max_cells: int | None = None
) -> NavGrid:
    """Parse the text of a ``.map`` file; ``path`` is used in error messages only."""
    src = os.fspath(path)
    limit = cell_limit(max_cells)
    if isinstance(data, str):
        data = data.encode("utf-8")
    lines = split_lines(data)
    header: dict[str, tuple[str, int]] = {}
    map_line = -1
    for i, raw in enumerate(lines):
        lineno = i + 1
        text = decode_line(raw, src, lineno).strip()
        if not text:
            continue
        tokens = text.split()
        key = tokens[0].lower()
        if key == "map" and len(tokens) == 1:
            map_line = i
            break
        if key not in ("type", "height", "width"):
            raise FormatError(
                f"unexpected header line {text!r} (expected 'type', 'height', 'width' or 'map')",
                path=src,
                line=lineno,
            )
        if len(tokens) != 2:
            raise FormatError(f"expected '{key} <value>', got {text!r}", path=src, line=lineno)
        if key in header:
            raise FormatError(
                f"duplicate '{key}' header (first on line {header[key][1]})", path=src, line=lineno
            )
        header[key] = (tokens[1], lineno)
    if map_line < 0:
        raise FormatError(
            "file ends before the 'map' line that starts the grid",
            path=src,
            line=max(len(lines), 1),
        )
    map_lineno = map_line + 1
    if "type" in header and header["type"][0].lower() != "octile":
        value, lineno = header["type"]
        raise FormatError(
            f"unsupported map type {value!r} (navkit reads 'type octile')", path=src, line=lineno
        )
    for key in ("height", "width"):
        if key not in header:
            raise FormatError(f"header has no '{key}' line before 'map'", path=src, line=map_lineno)
    height = parse_int(header["height"][0], "height", src, header["height"][1], minimum=1)
    width = parse_int(header["width"][0], "width", src, header["width"][1], minimum=1)
    check_cells(width, height, limit, path=src, line=map_lineno, what="map")

    first = map_line + 1
    rows = lines[first : first + height]
    for k, row in enumerate(rows):
        if len(row) != width:
            lineno = first + k + 1
            got = "a blank line" if not row.strip() else f"{len(row)} characters"
            raise FormatError(
                f"map row {k + 1} of {height}: expected {width} characters, got {got}",
                path=src,
                line=lineno,
            )
    if len(rows) < height:
        raise FormatError(
            f"file ends after {len(rows)} of {height} map rows",
            path=src,
            line=first + len(rows) + 1,
        )
    for i in range(first + height, len(lines)):
        if lines[i].strip():
            raise FormatError(
                f"unexpected text after the {height} map rows (the header says height {height})",
                path=src,
                line=i + 1,
            )

    cells = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, width)
    codes = _LUT[cells]
    bad = codes == _INVALID
    if bad.any():
        z, x = divmod(int(np.argmax(bad.ravel())), width)
        raise FormatError(
            f"unexpected character {describe_byte(int(cells[z, x]))} at column {x + 1} "
            f"(passable: {' '.join(PASSABLE)}; blocked: {' '.join(BLOCKED)})",
            path=src,
            line=first + z + 1,
        )
    return NavGrid(codes == 1, name=name, copy=False)  # the reader's own array


def format_map(grid: NavGrid) -> bytes:
    """The ``.map`` text of a grid: ``.`` walkable, ``@`` blocked, LF endings.

    >>> import numpy as np
    >>> format_map(NavGrid(np.array([[1, 0]]))).decode()
    'type octile\\nheight 1\\nwidth 2\\nmap\\n.@\\n'
    """
    body = np.where(grid.walkable, np.uint8(ord(".")), np.uint8(ord("@")))
    out: NDArray[np.uint8] = np.empty((grid.depth, grid.width + 1), dtype=np.uint8)
    out[:, :-1] = body
    out[:, -1] = ord("\n")
    header = f"type octile\nheight {grid.depth}\nwidth {grid.width}\nmap\n".encode("ascii")
    return header + out.tobytes()


def write_map(grid: NavGrid, path: PathLike) -> None:
    """Write ``grid`` as a Moving AI ``.map`` file.

    Only walkability is stored: terrain weights and geometry (cell size,
    origin, floor height) are not part of the format and are dropped.
    """
    Path(path).write_bytes(format_map(grid))


# ---------------------------------------------------------------- scenarios
def _readonly(arr: ArrayLike, dtype: type, shape_tail: tuple[int, ...], name: str) -> NDArray[Any]:
    out: NDArray[Any] = np.array(arr, dtype=dtype)
    if out.size == 0:
        out = out.reshape((0, *shape_tail))
    if out.ndim != 1 + len(shape_tail) or out.shape[1:] != shape_tail:
        want = "(n" + "".join(f", {s}" for s in shape_tail) + ")"
        raise ConfigError(f"expected shape {want}, got {out.shape}", field=name)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class ScenarioSet:
    """The problems of one ``.scen`` file, as parallel arrays (``n`` lines).

    Attributes
    ----------
    bucket : int64 array, shape (n,)
    start, goal : int64 array, shape (n, 2)
        Cells as ``(x, z)`` (Moving AI ``(x, y)``: column, row).
    optimal : float64 array, shape (n,)
        Optimal octile length in cells, as printed (see :meth:`tolerance`).
    map_width, map_height : int64 array, shape (n,)
    lines : int64 array, shape (n,)
        1-based line number of each problem in the file.
    map_names : tuple of str
        The map field of each line, as written (``maps/dao/arena.map`` or ``arena.map``).
    version : str
        ``"1"`` or ``"1.0"``.
    path : str
        The file the set was read from (for messages).
    """

    bucket: NDArray[np.int64]
    start: NDArray[np.int64]
    goal: NDArray[np.int64]
    optimal: NDArray[np.float64]
    map_width: NDArray[np.int64]
    map_height: NDArray[np.int64]
    lines: NDArray[np.int64]
    map_names: tuple[str, ...]
    version: str = "1"
    path: str = ""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "bucket", _readonly(self.bucket, np.int64, (), "bucket"))
        n = len(self.bucket)
        set_(self, "start", _readonly(self.start, np.int64, (2,), "start"))
        set_(self, "goal", _readonly(self.goal, np.int64, (2,), "goal"))
        set_(self, "optimal", _readonly(self.optimal, np.float64, (), "optimal"))
        set_(self, "map_width", _readonly(self.map_width, np.int64, (), "map_width"))
        set_(self, "map_height", _readonly(self.map_height, np.int64, (), "map_height"))
        set_(self, "lines", _readonly(self.lines, np.int64, (), "lines"))
        set_(self, "map_names", tuple(str(m) for m in self.map_names))
        set_(self, "path", str(self.path))
        set_(self, "version", str(self.version))
        for name in ("start", "goal", "optimal", "map_width", "map_height", "lines", "map_names"):
            if len(getattr(self, name)) != n:
                raise ConfigError(
                    f"expected {n} entries like 'bucket', got {len(getattr(self, name))}",
                    field=name,
                )

    def __len__(self) -> int:
        return len(self.bucket)

    def __repr__(self) -> str:
        names = sorted({_basename(m) for m in self.map_names})
        maps = ", ".join(names) or "no map"
        return f"ScenarioSet({self.path or 'unnamed'}: {len(self)} problems on {maps})"

    @property
    def map_basename(self) -> str:
        """File name of the map every line refers to (``arena.map`` for ``maps/dao/arena.map``).

        Raises :class:`~navkit.errors.FormatError` if lines name different maps
        or the set is empty.
        """
        if not self.map_names:
            raise FormatError("no scenario lines, so no map name", path=self.path or None)
        first = _basename(self.map_names[0])
        for name, line in zip(self.map_names, self.lines, strict=True):
            if _basename(name) != first:
                raise FormatError(
                    f"map {name!r} differs from {self.map_names[0]!r} on line {int(self.lines[0])}",
                    path=self.path or None,
                    line=int(line),
                )
        return first

    def subset(self, indices: ArrayLike) -> ScenarioSet:
        """The problems at ``indices`` (integer positions or a boolean mask of length n)."""
        idx = np.asarray(indices)
        n = len(self)
        if idx.dtype == np.bool_:
            if idx.shape != (n,):
                raise QueryError(f"boolean mask must have shape ({n},), got {idx.shape}")
            idx = np.flatnonzero(idx)
        elif idx.size == 0:
            idx = np.zeros(0, dtype=np.int64)
        elif not np.issubdtype(idx.dtype, np.integer):
            raise QueryError(f"indices must be integers or a boolean mask, got dtype {idx.dtype}")
        idx = idx.reshape(-1).astype(np.int64)
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise QueryError(f"indices must lie in [{-n}, {n}), got [{idx.min()}, {idx.max()}]")
        return ScenarioSet(
            bucket=self.bucket[idx],
            start=self.start[idx],
            goal=self.goal[idx],
            optimal=self.optimal[idx],
            map_width=self.map_width[idx],
            map_height=self.map_height[idx],
            lines=self.lines[idx],
            map_names=tuple(self.map_names[i] for i in idx.tolist()),
            version=self.version,
            path=self.path,
        )

    def tolerance(self) -> NDArray[np.float64]:
        """Per-line tolerance ``0.005 + 1e-5 * optimal`` for comparing path lengths.

        Classic files print lengths with 6 significant digits (``1704`` for
        1703.999133), hence the relative term.
        """
        return 0.005 + 1e-5 * self.optimal


def _basename(map_field: str) -> str:
    return map_field.replace("\\", "/").rsplit("/", 1)[-1]


def read_scenarios(path: PathLike) -> ScenarioSet:
    """Read a Moving AI ``.scen`` file (``version 1`` or legacy ``version 1.0``).

    Blank lines are skipped. A malformed line (wrong number of columns, a
    non-numeric or negative field, a NaN length, a cell outside the declared
    map size) raises :class:`~navkit.errors.FormatError` naming the file and line.
    """
    return parse_scenarios(read_bytes(path), path=path)


def parse_scenarios(data: bytes | str, *, path: PathLike = "<scen>") -> ScenarioSet:
    """Parse the text of a ``.scen`` file; ``path`` is stored and used in messages."""
    src = os.fspath(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    lines = split_lines(data)
    version = None
    bucket: list[int] = []
    coords: list[tuple[int, int, int, int, int, int]] = []
    optimal: list[float] = []
    names: list[str] = []
    linenos: list[int] = []
    for i, raw in enumerate(lines):
        lineno = i + 1
        text = decode_line(raw, src, lineno).strip()
        if not text:
            continue
        if version is None:
            tokens = text.split()
            if tokens[0].lower() != "version":
                raise FormatError(
                    f"expected a 'version 1' header, got {text[:60]!r}", path=src, line=lineno
                )
            if len(tokens) != 2 or tokens[1] not in _SCEN_VERSIONS:
                raise FormatError(
                    f"unsupported scenario header {text!r} "
                    "(navkit reads 'version 1' and 'version 1.0')",
                    path=src,
                    line=lineno,
                )
            version = tokens[1]
            continue
        fields = [f.strip() for f in text.split("\t")] if "\t" in text else text.split()
        if len(fields) != len(_SCEN_COLUMNS):
            raise FormatError(
                f"expected {len(_SCEN_COLUMNS)} columns ({', '.join(_SCEN_COLUMNS)}), "
                f"got {len(fields)}",
                path=src,
                line=lineno,
            )
        b = parse_int(fields[0], "bucket", src, lineno, minimum=0)
        if not fields[1]:
            raise FormatError("map: empty map name", path=src, line=lineno)
        mw, mh, sx, sy, gx, gy = (
            parse_int(fields[k], _SCEN_COLUMNS[k], src, lineno, minimum=1 if k < 4 else 0)
            for k in range(2, 8)
        )
        length = parse_float(fields[8], "optimal_length", src, lineno, nonnegative=True)
        for label, x, y in (("start", sx, sy), ("goal", gx, gy)):
            if x >= mw or y >= mh:
                raise FormatError(
                    f"{label} ({x}, {y}) lies outside the declared {mw}x{mh} map",
                    path=src,
                    line=lineno,
                )
        bucket.append(b)
        names.append(fields[1])
        coords.append((mw, mh, sx, sy, gx, gy))
        optimal.append(length)
        linenos.append(lineno)
    if version is None:
        raise FormatError("empty file: expected a 'version 1' header", path=src, line=1)
    c = np.array(coords, dtype=np.int64).reshape(-1, 6)
    return ScenarioSet(
        bucket=np.array(bucket, dtype=np.int64),
        start=c[:, 2:4],
        goal=c[:, 4:6],
        optimal=np.array(optimal, dtype=np.float64),
        map_width=c[:, 0],
        map_height=c[:, 1],
        lines=np.array(linenos, dtype=np.int64),
        map_names=tuple(names),
        version=version,
        path=src,
    )


def check_scenarios_fit(scen: ScenarioSet, grid: NavGrid) -> None:
    """Check every problem of ``scen`` fits ``grid``; raise otherwise.

    A line fits when its declared width and height equal the grid's and its
    start and goal are in bounds and walkable. The first line that does not
    fit raises :class:`~navkit.errors.FormatError` naming the scenario file and line.
    """
    if len(scen) == 0:
        return
    where = grid.name or "the grid"

    def fail(i: int, msg: str) -> None:
        raise FormatError(msg, path=scen.path or None, line=int(scen.lines[i]))

    size_bad = (scen.map_width != grid.width) | (scen.map_height != grid.depth)
    if size_bad.any():
        i = int(np.argmax(size_bad))
        fail(
            i,
            f"declares a {scen.map_width[i]}x{scen.map_height[i]} map but {where} is "
            f"{grid.width}x{grid.depth} (width x height)",
        )
    for label, cells in (("start", scen.start), ("goal", scen.goal)):
        x, z = cells[:, 0], cells[:, 1]
        inside = (x >= 0) & (x < grid.width) & (z >= 0) & (z < grid.depth)
        if not inside.all():
            i = int(np.argmin(inside))
            fail(i, f"{label} ({x[i]}, {z[i]}) lies outside {where} ({grid.width}x{grid.depth})")
        blocked = ~grid.walkable[z, x]
        if blocked.any():
            i = int(np.argmax(blocked))
            fail(i, f"{label} ({x[i]}, {z[i]}) is on a blocked cell of {where}")


def find_map_for(scen_path: PathLike | ScenarioSet, map_dir: PathLike | None = None) -> Path:
    """Locate the ``.map`` a scenario file refers to, matching by file name.

    Looks in ``map_dir`` (if given), then next to the scenario file, then at
    the map field taken as a path relative to the scenario file's folder.
    Raises :class:`~navkit.errors.FormatError` listing the places it tried.
    """
    scen = scen_path if isinstance(scen_path, ScenarioSet) else read_scenarios(scen_path)
    base = scen.map_basename
    scen_dir = Path(scen.path).parent if scen.path else Path.cwd()
    candidates: list[Path] = []
    if map_dir is not None:
        candidates.append(Path(map_dir) / base)
    candidates.append(scen_dir / base)
    rel = scen.map_names[0].replace("\\", "/")
    if "/" in rel:
        candidates.append(scen_dir / rel)
    for cand in candidates:
        if cand.is_file():
            return cand
    tried = ", ".join(str(c) for c in dict.fromkeys(candidates))
    raise FormatError(f"cannot find map {base!r}; looked for {tried}", path=scen.path or None)

"""The level config's data model: frozen dataclasses that validate themselves.

:class:`LevelConfig` holds a level's parameters, its :class:`AreaConfig` areas
and :class:`ObstacleConfig` obstacles; constructing one validates everything
and raises :class:`~navkit.errors.ConfigError` naming the field as a path
such as ``areas[2].polygon[5]``. :class:`GridGeometry` says where the level's
grid lies. Reading JSON is :mod:`navkit.level.parse`'s job; the format is
described in :mod:`navkit.level.config`.

>>> cfg = LevelConfig(areas=(AreaConfig("a", ((0, 0), (4, 0), (4, 3))),))
>>> cfg.areas[0].polygon, cfg.grid_geometry().width
(((0.0, 0.0), (4.0, 0.0), (4.0, 3.0)), 18)
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import shapely
from shapely.validation import explain_validity

from .._kernels.geometry import MAX_COORD
from ..errors import ConfigError, shown, unknown_name_message
from ..grid import MAX_CELL_SIZE, MAX_CELLS, MAX_WEIGHT, MIN_CELL_SIZE

__all__ = [
    "AreaConfig",
    "ObstacleConfig",
    "LevelConfig",
    "GridGeometry",
    "make_obstacle",
    "validate_obstacle",
    "check_number",
    "check_integer",
    "check_name",
    "Point",
    "Ring",
    "DEFAULT_CELL_SIZE",
    "DEFAULT_AGENT_RADIUS",
    "DEFAULT_OBJECT_PADDING",
    "DEFAULT_BOUNDARY_PADDING",
    "DEFAULT_FLOOR_Y",
    "DEFAULT_MAX_CELLS",
]

#: docs/rules.md §1.2 defaults.
DEFAULT_CELL_SIZE = 0.4
DEFAULT_AGENT_RADIUS = 0.45
DEFAULT_OBJECT_PADDING = 0.25
DEFAULT_BOUNDARY_PADDING = 0.0
DEFAULT_FLOOR_Y = 0.0
#: Largest grid a level may rasterize to unless ``maxCells`` says otherwise.
DEFAULT_MAX_CELLS = 16_000_000

Point = tuple[float, float]
Ring = tuple[Point, ...]


# --------------------------------------------------------------------- helpers
def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _float(value: numbers.Real) -> float:
    """``float(value)``, infinite for an integer (or fraction) too large for a float."""
    try:
        return float(value)
    except OverflowError:
        return -math.inf if value < 0 else math.inf


def _number(
    value: Any, fld: str, *, positive: bool = False, nonnegative: bool = False,
    lo: float = -math.inf, hi: float = math.inf,
) -> float:
    """A finite float (> 0 or >= 0 when asked) in ``[lo, hi]``, or ConfigError naming ``fld``."""
    if not _is_number(value):
        raise ConfigError(f"expected a number, got {shown(value)}", field=fld)
    v = _float(value)
    if not math.isfinite(v):
        raise ConfigError(f"expected a finite number, got {shown(value)}", field=fld)
    if positive and v <= 0:
        raise ConfigError(f"must be > 0, got {v!r}", field=fld)
    if nonnegative and v < 0:
        raise ConfigError(f"must be >= 0, got {v!r}", field=fld)
    if not lo <= v <= hi:
        raise ConfigError(f"must lie in [{lo:g}, {hi:g}] metres, got {v!r}", field=fld)
    return v


def _integer(value: Any, fld: str, lo: int, hi: int) -> int:
    if not _is_number(value):
        raise ConfigError(f"expected an integer, got {shown(value)}", field=fld)
    if isinstance(value, numbers.Integral):
        iv = int(value)
    else:
        v = _float(value)
        if not math.isfinite(v) or v != math.floor(v):
            raise ConfigError(f"expected an integer, got {shown(value)}", field=fld)
        iv = int(v)
    if not lo <= iv <= hi:
        raise ConfigError(f"must lie in [{lo}, {hi}], got {shown(iv)}", field=fld)
    return iv


def _coerce_ring(raw: Any, fld: str) -> Ring:
    """A list of ``[x, z]`` pairs -> tuple of float pairs (closing repeat dropped).

    Coordinates are bounded by ``MAX_COORD`` (1e15 m), as obstacle circles are,
    so the rasterizer's products of coordinates cannot overflow.
    """
    if isinstance(raw, np.ndarray):
        raw = raw.tolist()
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise ConfigError(f"expected a list of [x, z] points, got {type(raw).__name__}", field=fld)
    pts: list[Point] = []
    for j, p in enumerate(raw):
        pf = f"{fld}[{j}]"
        if (
            isinstance(p, (str, bytes))
            or not isinstance(p, Sequence)
            or len(p) != 2
            or not (_is_number(p[0]) and _is_number(p[1]))
        ):
            raise ConfigError(
                f"expected a point [x, z] of two numbers, got {shown(p)}", field=pf
            )
        x, z = _float(p[0]), _float(p[1])
        if not (math.isfinite(x) and math.isfinite(z)):
            raise ConfigError(f"coordinates must be finite, got [{x!r}, {z!r}]", field=pf)
        if not (abs(x) <= MAX_COORD and abs(z) <= MAX_COORD):
            raise ConfigError(
                f"coordinates must lie within +-{MAX_COORD:g} m, got [{x!r}, {z!r}]", field=pf
            )
        pts.append((x, z))
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    if len(pts) < 3:
        raise ConfigError(f"a polygon needs at least 3 points, got {len(pts)}", field=fld)
    return tuple(pts)


def _check_valid(geom: shapely.Polygon, fld: str) -> None:
    if not geom.is_valid:
        raise ConfigError(f"invalid polygon: {explain_validity(geom)}", field=fld)


def _check_name(raw: Any, fld: str) -> str:
    if not isinstance(raw, str) or not raw:
        raise ConfigError(f"expected a non-empty string, got {shown(raw)}", field=fld)
    return raw

# ---------------------------------------------------------------- dataclasses
@dataclass(frozen=True)
class AreaConfig:
    """A navigation area: walkable where ``available`` (docs/rules.md §2.3 rule 1).

    ``polygon`` is the outer ring, ``holes`` inner rings (unwalkable), ``weight``
    the terrain cost multiplier of its cells (the last-listed available area
    covering a cell sets its weight). Validated by :class:`LevelConfig`.
    """

    name: str
    polygon: Ring
    holes: tuple[Ring, ...] = ()
    available: bool = True
    weight: int = 1

    @cached_property
    def geometry(self) -> shapely.Polygon:
        """The area as a shapely polygon (holes included)."""
        return shapely.Polygon(self.polygon, list(self.holes))

    def to_json_dict(self) -> dict[str, Any]:
        """The area as a JSON-ready dict (``holes``/``weight`` only when set)."""
        d: dict[str, Any] = {
            "name": self.name,
            "available": self.available,
            "polygon": [list(p) for p in self.polygon],
        }
        if self.holes:
            d["holes"] = [[list(p) for p in h] for h in self.holes]
        if self.weight != 1:
            d["weight"] = self.weight
        return d


@dataclass(frozen=True)
class ObstacleConfig:
    """An impassable polygon, inflated by ``agentRadius + objectPadding``."""

    name: str
    polygon: Ring

    @cached_property
    def geometry(self) -> shapely.Polygon:
        """The obstacle as a shapely polygon."""
        return shapely.Polygon(self.polygon)

    def to_json_dict(self) -> dict[str, Any]:
        """The obstacle as a JSON-ready dict."""
        return {"name": self.name, "polygon": [list(p) for p in self.polygon]}


@dataclass(frozen=True)
class GridGeometry:
    """Where a level's grid lies: corner, size in cells and cell size."""

    min_x: float
    min_z: float
    width: int
    depth: int
    cell_size: float

    @property
    def size(self) -> int:
        """Number of cells."""
        return self.width * self.depth


_T = TypeVar("_T", "AreaConfig", "ObstacleConfig")


def _mark_valid(item: _T) -> _T:
    """Remember that a (frozen) item passed validation, so config edits skip it."""
    item.__dict__["_validated"] = True
    return item


def _validate_area(area: Any, i: int) -> AreaConfig:
    pre = f"areas[{i}]"
    if not isinstance(area, AreaConfig):
        raise ConfigError(f"expected an AreaConfig, got {type(area).__name__}", field=pre)
    if area.__dict__.get("_validated"):
        return area
    name = _check_name(area.name, f"{pre}.name")
    if not isinstance(area.available, bool):
        raise ConfigError(
            f"expected true or false, got {shown(area.available)}", field=f"{pre}.available"
        )
    weight = _integer(area.weight, f"{pre}.weight", 1, MAX_WEIGHT)
    shell = _coerce_ring(area.polygon, f"{pre}.polygon")
    if isinstance(area.holes, (str, bytes)) or not isinstance(area.holes, Sequence):
        raise ConfigError(
            f"expected a list of polygons, got {type(area.holes).__name__}", field=f"{pre}.holes"
        )
    holes = tuple(_coerce_ring(h, f"{pre}.holes[{j}]") for j, h in enumerate(area.holes))
    shell_geom = shapely.Polygon(shell)
    _check_valid(shell_geom, f"{pre}.polygon")
    for j, h in enumerate(holes):
        _check_valid(shapely.Polygon(h), f"{pre}.holes[{j}]")
    full = shapely.Polygon(shell, list(holes))
    if holes and not full.is_valid:
        reason = explain_validity(full)
        bad = f"{pre}.holes"
        for j, h in enumerate(holes):
            if not shapely.Polygon(shell, [h]).is_valid:
                bad = f"{pre}.holes[{j}]"
                break
        else:
            for j in range(1, len(holes)):
                if not shapely.Polygon(shell, list(holes[: j + 1])).is_valid:
                    bad = f"{pre}.holes[{j}]"
                    break
        raise ConfigError(f"invalid polygon with holes: {reason}", field=bad)
    return _mark_valid(
        AreaConfig(name=name, polygon=shell, holes=holes, available=area.available, weight=weight)
    )


def validate_obstacle(obs: Any, pre: str) -> ObstacleConfig:
    """``obs`` checked (name, polygon within +-MAX_COORD; errors name field ``pre``)."""
    if not isinstance(obs, ObstacleConfig):
        raise ConfigError(f"expected an ObstacleConfig, got {type(obs).__name__}", field=pre)
    if obs.__dict__.get("_validated"):
        return obs
    name = _check_name(obs.name, f"{pre}.name" if pre else "name")
    fld = f"{pre}.polygon" if pre else "polygon"
    ring = _coerce_ring(obs.polygon, fld)
    _check_valid(shapely.Polygon(ring), fld)
    return _mark_valid(ObstacleConfig(name=name, polygon=ring))


def make_obstacle(name: str, polygon: Any) -> ObstacleConfig:
    """A validated :class:`ObstacleConfig` (ConfigError naming ``name`` or ``polygon[j]``).

    Coordinates must be finite and within ``+-MAX_COORD`` metres, like every polygon's.
    """
    return validate_obstacle(ObstacleConfig(name=name, polygon=polygon), "")


@dataclass(frozen=True)
class LevelConfig:
    """A parsed, validated level: parameters, areas and obstacles.

    Construction validates everything (see :func:`parse_level`); the instance is
    immutable - use :meth:`with_area_available`, :meth:`with_obstacle`,
    :meth:`without_obstacle` or :func:`dataclasses.replace` for changed copies.
    ``name`` and ``source`` label the level (file stem and path) and take no
    part in equality. ``frame`` (``(min_x, min_z, max_x, max_z)`` in metres,
    default none) is a box the grid must cover besides the areas: the floors
    of a building share one grid frame this way (docs/rules.md §16.2); it is
    not part of the JSON form.
    """

    areas: tuple[AreaConfig, ...]
    obstacles: tuple[ObstacleConfig, ...] = ()
    cell_size: float = DEFAULT_CELL_SIZE
    agent_radius: float = DEFAULT_AGENT_RADIUS
    object_padding: float = DEFAULT_OBJECT_PADDING
    boundary_padding: float = DEFAULT_BOUNDARY_PADDING
    floor_y: float = DEFAULT_FLOOR_Y
    max_cells: int = DEFAULT_MAX_CELLS
    frame: tuple[float, float, float, float] | None = None
    name: str = field(default="", compare=False)
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        try:
            self._validate()
        except ConfigError as e:
            if self.source is not None and e.path is None:
                raise ConfigError(e.reason, field=e.field, path=self.source) from None
            raise

    def _validate(self) -> None:
        s = object.__setattr__
        # bounded so that the grid's extent (areas' bounds plus the margin, in cells) is finite
        cs = _number(self.cell_size, "cellSize", positive=True, lo=MIN_CELL_SIZE, hi=MAX_CELL_SIZE)
        s(self, "cell_size", cs)
        for attr, key in (
            ("agent_radius", "agentRadius"),
            ("object_padding", "objectPadding"),
            ("boundary_padding", "boundaryPadding"),
        ):
            s(self, attr, _number(getattr(self, attr), key, nonnegative=True, lo=0.0, hi=MAX_COORD))
        s(self, "floor_y", _number(self.floor_y, "floorY"))
        s(self, "max_cells", _integer(self.max_cells, "maxCells", 1, MAX_CELLS))
        if self.frame is not None:
            if not isinstance(self.frame, Sequence) or len(self.frame) != 4:
                raise ConfigError(f"expected (min_x, min_z, max_x, max_z), got "
                                  f"{shown(self.frame)}", field="frame")
            fr = tuple(_number(v, f"frame[{i}]") for i, v in enumerate(self.frame))
            if fr[0] > fr[2] or fr[1] > fr[3]:
                raise ConfigError(f"min above max in {fr}", field="frame")
            s(self, "frame", fr)
        if isinstance(self.areas, (str, bytes)) or not isinstance(self.areas, Sequence):
            raise ConfigError(
                f"expected a list of areas, got {type(self.areas).__name__}", field="areas"
            )
        if not self.areas:
            raise ConfigError("a level needs at least one navigation area", field="areas")
        if isinstance(self.obstacles, (str, bytes)) or not isinstance(self.obstacles, Sequence):
            raise ConfigError(
                f"expected a list of obstacles, got {type(self.obstacles).__name__}",
                field="obstacles",
            )
        areas = tuple(_validate_area(a, i) for i, a in enumerate(self.areas))
        obstacles = tuple(
            validate_obstacle(o, f"obstacles[{i}]") for i, o in enumerate(self.obstacles)
        )
        for kind, names in (
            ("areas", [a.name for a in areas]),
            ("obstacles", [o.name for o in obstacles]),
        ):
            seen: dict[str, int] = {}
            for i, nm in enumerate(names):
                if nm in seen:
                    raise ConfigError(
                        f"duplicate name {nm!r} (also {kind}[{seen[nm]}])",
                        field=f"{kind}[{i}].name",
                    )
                seen[nm] = i
        s(self, "areas", areas)
        s(self, "obstacles", obstacles)
        geo = self.grid_geometry()
        if geo.size > self.max_cells:
            raise ConfigError(
                f"the level grid would have {geo.width} x {geo.depth} = {geo.size} cells, "
                f"more than maxCells = {self.max_cells}; raise cellSize or maxCells "
                "(max_cells= when loading)",
                field="maxCells",
            )

    # ------------------------------------------------------------- geometry
    @property
    def margin(self) -> float:
        """Padding around the areas' bounds: ``cellSize*2 + agentRadius + objectPadding``."""
        return self.cell_size * 2 + self.agent_radius + self.object_padding

    @property
    def obstacle_radius(self) -> float:
        """Clearance kept from obstacle edges: ``agentRadius + objectPadding``."""
        return self.agent_radius + self.object_padding

    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_z, max_x, max_z)`` of every area polygon, available or not,
        and of :attr:`frame` when set."""
        xs = [p[0] for a in self.areas for p in a.polygon]
        zs = [p[1] for a in self.areas for p in a.polygon]
        if self.frame is not None:
            xs += [self.frame[0], self.frame[2]]
            zs += [self.frame[1], self.frame[3]]
        return (min(xs), min(zs), max(xs), max(zs))

    def grid_geometry(self) -> GridGeometry:
        """The grid's corner and size (docs/rules.md §1.4 grid bounds).

        Depends only on the areas' bounds (toggling availability never changes
        it) and the parameters, never on obstacles.
        """
        x0, z0, x1, z1 = self.bounds()
        m = self.margin
        cs = self.cell_size
        min_x = x0 - m
        min_z = z0 - m
        width = max(1, math.ceil((x1 + m - min_x) / cs))
        depth = max(1, math.ceil((z1 + m - min_z) / cs))
        return GridGeometry(min_x=min_x, min_z=min_z, width=width, depth=depth, cell_size=cs)

    # ---------------------------------------------------------------- lookup
    @property
    def area_names(self) -> tuple[str, ...]:
        """Area names in config order."""
        return tuple(a.name for a in self.areas)

    @property
    def obstacle_names(self) -> tuple[str, ...]:
        """Obstacle names in config order."""
        return tuple(o.name for o in self.obstacles)

    def area(self, name: str) -> AreaConfig:
        """The area called ``name`` (ConfigError when there is none)."""
        for a in self.areas:
            if a.name == name:
                return a
        raise ConfigError(unknown_name_message("area", name, self.area_names), field="name")

    def obstacle(self, name: str) -> ObstacleConfig:
        """The obstacle called ``name`` (ConfigError when there is none)."""
        for o in self.obstacles:
            if o.name == name:
                return o
        raise ConfigError(unknown_name_message("obstacle", name, self.obstacle_names), field="name")

    # --------------------------------------------------------------- editing
    def with_area_available(self, name: str, available: bool) -> LevelConfig:
        """A copy with area ``name`` made (un)available."""
        if not isinstance(available, bool):
            raise ConfigError(f"expected True or False, got {available!r}", field="available")
        target = self.area(name)
        areas = tuple(replace(a, available=available) if a is target else a for a in self.areas)
        return replace(self, areas=areas)

    def with_obstacle(self, name: str, polygon: Any) -> LevelConfig:
        """A copy with one more obstacle (fields ``name`` / ``polygon[j]`` on error)."""
        obs = make_obstacle(name, polygon)
        if obs.name in self.obstacle_names:
            raise ConfigError(f"an obstacle called {name!r} already exists", field="name")
        return replace(self, obstacles=(*self.obstacles, obs))

    def without_obstacle(self, name: str) -> LevelConfig:
        """A copy without obstacle ``name`` (ConfigError when there is none)."""
        target = self.obstacle(name)
        return replace(self, obstacles=tuple(o for o in self.obstacles if o is not target))

    # ------------------------------------------------------------------ JSON
    def to_json_dict(self) -> dict[str, Any]:
        """The config as a JSON-ready dict; :func:`parse_level` reads it back equal."""
        return {
            "cellSize": self.cell_size,
            "agentRadius": self.agent_radius,
            "objectPadding": self.object_padding,
            "boundaryPadding": self.boundary_padding,
            "floorY": self.floor_y,
            "maxCells": self.max_cells,
            "areas": [a.to_json_dict() for a in self.areas],
            "obstacles": [o.to_json_dict() for o in self.obstacles],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The config as JSON text."""
        return json.dumps(self.to_json_dict(), indent=indent)


# ------------------------------------------------- field checks for other configs
def check_number(value: Any, fld: str, *, positive: bool = False, nonnegative: bool = False,
                 lo: float = -math.inf, hi: float = math.inf) -> float:
    """A finite float (> 0 or >= 0 when asked) in ``[lo, hi]``, or ConfigError naming ``fld``.

    >>> check_number(2, "cost", positive=True)
    2.0
    """
    return _number(value, fld, positive=positive, nonnegative=nonnegative, lo=lo, hi=hi)


def check_integer(value: Any, fld: str, lo: int, hi: int) -> int:
    """An integer in ``[lo, hi]`` (bools refused), or ConfigError naming ``fld``."""
    return _integer(value, fld, lo, hi)


def check_name(value: Any, fld: str) -> str:
    """A non-empty string, or ConfigError naming ``fld``."""
    return _check_name(value, fld)

"""A building's config: floors on one shared grid frame, joined by links (docs/rules.md §16).

A building is a level JSON object whose ``floors`` list replaces ``areas`` /
``obstacles``::

    {
      "cellSize": 0.4, "agentRadius": 0.45, "objectPadding": 0.25,
      "floors": [
        {"name": "ground", "floorY": 0.0, "areas": [...], "obstacles": [...]},
        {"name": "upper",  "floorY": 3.5, "areas": [...]}
      ],
      "links": [
        {"name": "stairs", "kind": "stairs",
         "from": {"floor": "ground", "point": [10.0, 4.0]},
         "to":   {"floor": "upper",  "point": [14.0, 4.0]},
         "bidirectional": true, "cost": 6.0}
      ]
    }

Each floor is a level (:class:`~navkit.level.LevelConfig`) with the
building's parameters, its own ``floorY`` and the building's shared
:attr:`~navkit.level.LevelConfig.frame`, so cell ``(x, z)`` is the same
place on every floor. Invalid input raises
:class:`~navkit.errors.ConfigError` naming the field, e.g.
``links[2].to.floor``.

>>> b = parse_building({"cellSize": 0.5, "agentRadius": 0, "objectPadding": 0,
...     "floors": [
...         {"name": "a", "areas": [{"name": "r", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]}]},
...         {"name": "b", "floorY": 3,
...          "areas": [{"name": "r", "polygon": [[2, 0], [8, 0], [8, 4], [2, 4]]}]}],
...     "links": [{"name": "up", "kind": "stairs", "from": {"floor": "a", "point": [3, 2]},
...                "to": {"floor": "b", "point": [7, 2]}}]})
>>> b.floor_names, b.links[0].cost, b.floors[0].grid_geometry() == b.floors[1].grid_geometry()
(('a', 'b'), 5.0, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .._kernels.geometry import MAX_COORD
from ..errors import ConfigError, shown, unknown_name_message
from ..level.model import (
    DEFAULT_MAX_CELLS,
    GridGeometry,
    LevelConfig,
    check_integer,
    check_name,
    check_number,
)
from ..level.parse import parse_level, warn_unknown_keys

__all__ = [
    "LinkEnd",
    "LinkConfig",
    "parse_links",
    "BuildingConfig",
    "LINK_KINDS",
    "MAX_FLOORS",
    "MAX_LINKS",
    "Y_TOLERANCE",
]

#: What a link may be called (descriptive only; reported with paths).
LINK_KINDS = ("stairs", "ramp", "ladder", "jump", "teleport", "elevator", "door", "custom")
#: Most floors a building may have.
MAX_FLOORS = 256
#: Most links a building may have.
MAX_LINKS = 65_536
#: Tolerance when a height ``y`` is compared with a floor's ``floorY`` (metres).
Y_TOLERANCE = 1e-6


@dataclass(frozen=True)
class LinkEnd:
    """One end of a link: a floor index and a point ``(x, z)`` in metres."""

    floor: int
    point: tuple[float, float]

    def to_json_dict(self, floor_names: Sequence[str]) -> dict[str, Any]:
        return {"floor": floor_names[self.floor], "point": list(self.point)}


@dataclass(frozen=True)
class LinkConfig:
    """A link between two floors' points (docs/rules.md §16.3).

    ``cost`` is in metres (the 3-D distance between the ends when the config
    gives none); ``capacity`` is how many characters may be on it at once
    (``None``: no limit); ``enabled`` is its state when the building loads.
    """

    name: str
    kind: str
    start: LinkEnd
    end: LinkEnd
    bidirectional: bool = True
    cost: float = 0.0
    cost_given: bool = False
    capacity: int | None = None
    enabled: bool = True

    def to_json_dict(self, floor_names: Sequence[str]) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "from": self.start.to_json_dict(floor_names),
            "to": self.end.to_json_dict(floor_names),
            "bidirectional": self.bidirectional,
        }
        if self.cost_given:
            d["cost"] = self.cost
        if self.capacity is not None:
            d["capacity"] = self.capacity
        if not self.enabled:
            d["enabled"] = False
        return d


@dataclass(frozen=True)
class BuildingConfig:
    """A validated building: one :class:`LevelConfig` per floor and the links.

    ``floors[i]`` carries the building's parameters, floor ``i``'s
    ``floorY`` and the shared frame; its ``name`` is the floor's name.
    """

    floors: tuple[LevelConfig, ...]
    links: tuple[LinkConfig, ...] = ()
    max_cells: int = DEFAULT_MAX_CELLS
    name: str = field(default="", compare=False)
    source: str | None = field(default=None, compare=False)

    @property
    def floor_names(self) -> tuple[str, ...]:
        """Floor names in config order (a floor's index is its position)."""
        return tuple(f.name for f in self.floors)

    @property
    def link_names(self) -> tuple[str, ...]:
        return tuple(lk.name for lk in self.links)

    @property
    def cell_size(self) -> float:
        return self.floors[0].cell_size

    @property
    def agent_radius(self) -> float:
        return self.floors[0].agent_radius

    def grid_geometry(self) -> GridGeometry:
        """The shared grid frame of every floor (docs/rules.md §16.2)."""
        return self.floors[0].grid_geometry()

    def floor_index(self, floor: int | str, fld: str = "floor") -> int:
        """A floor's index from its index or name (ConfigError naming ``fld``)."""
        return resolve_floor(floor, self.floor_names, fld)

    def link_index(self, name: str) -> int:
        for i, lk in enumerate(self.links):
            if lk.name == name:
                return i
        raise ConfigError(unknown_name_message("link", name, self.link_names), field="name")

    def to_json_dict(self) -> dict[str, Any]:
        """The building as JSON (``parse_building`` reads it back equal)."""
        f0 = self.floors[0]
        names = self.floor_names
        return {
            "cellSize": f0.cell_size,
            "agentRadius": f0.agent_radius,
            "objectPadding": f0.object_padding,
            "boundaryPadding": f0.boundary_padding,
            "maxCells": self.max_cells,
            "floors": [
                {
                    "name": f.name,
                    "floorY": f.floor_y,
                    "areas": [a.to_json_dict() for a in f.areas],
                    "obstacles": [o.to_json_dict() for o in f.obstacles],
                }
                for f in self.floors
            ],
            "links": [lk.to_json_dict(names) for lk in self.links],
        }


def resolve_floor(floor: Any, names: Sequence[str], fld: str) -> int:
    """Index of a floor given by index (int) or name (str), else ConfigError naming ``fld``."""
    if type(floor) is int and 0 <= floor < len(names):
        return floor
    if isinstance(floor, str):
        if floor in names:
            return names.index(floor)
        raise ConfigError(unknown_name_message("floor", floor, tuple(names)), field=fld)
    if isinstance(floor, np.integer):
        floor = int(floor)
    if isinstance(floor, bool) or not isinstance(floor, int):
        raise ConfigError(f"expected a floor name or index, got {shown(floor)}", field=fld)
    if not 0 <= floor < len(names):
        raise ConfigError(f"floor index {floor} outside 0..{len(names) - 1}", field=fld)
    return int(floor)


def link_cost_default(a: LinkEnd, b: LinkEnd, floor_ys: Sequence[float]) -> float:
    """The 3-D distance between two link ends, each at its floor's ``floorY``."""
    dx = b.point[0] - a.point[0]
    dz = b.point[1] - a.point[1]
    dy = floor_ys[b.floor] - floor_ys[a.floor]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


_TOP = ("cellSize", "agentRadius", "objectPadding", "boundaryPadding", "maxCells",
        "floors", "links")
_FLOOR = ("name", "floorY", "areas", "obstacles")
_LINK = ("name", "kind", "from", "to", "bidirectional", "cost", "capacity", "enabled")
_END = ("floor", "point")


def _object(raw: Any, fld: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"expected a JSON object, got {type(raw).__name__}", field=fld)
    return raw


def _list(raw: Any, fld: str) -> Sequence[Any]:
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise ConfigError(f"expected a list, got {type(raw).__name__}", field=fld)
    return raw


def _first_use(seen: dict[str, int], name: str, kind: str, i: int) -> None:
    """Record that ``kind[i]`` is called ``name``; ConfigError when an earlier one was."""
    if name in seen:
        raise ConfigError(f"duplicate name {name!r} (also {kind}[{seen[name]}])",
                          field=f"{kind}[{i}].name")
    seen[name] = i


def _rename(e: ConfigError, prefix: str) -> ConfigError:
    fld = prefix if e.field is None else f"{prefix}.{e.field}"
    return ConfigError(e.reason, field=fld, path=e.path)


def _end(raw: Any, fld: str, names: Sequence[str]) -> LinkEnd:
    obj = _object(raw, fld)
    warn_unknown_keys(obj, _END, fld)
    if "floor" not in obj:
        raise ConfigError("missing", field=f"{fld}.floor")
    floor = resolve_floor(obj["floor"], names, f"{fld}.floor")
    if "point" not in obj:
        raise ConfigError("missing", field=f"{fld}.point")
    pt = obj["point"]
    if isinstance(pt, (str, bytes)) or not isinstance(pt, Sequence) or len(pt) != 2:
        raise ConfigError(f"expected [x, z], got {shown(pt)}", field=f"{fld}.point")
    x = check_number(pt[0], f"{fld}.point[0]", lo=-MAX_COORD, hi=MAX_COORD)
    z = check_number(pt[1], f"{fld}.point[1]", lo=-MAX_COORD, hi=MAX_COORD)
    return LinkEnd(floor, (x, z))


def parse_building(obj: Any, *, source: str | None = None, name: str | None = None,
                   max_cells: int | None = None) -> BuildingConfig:
    """Validate a decoded building JSON object (module docs) into a :class:`BuildingConfig`.

    ``source`` (a file path) is put in error messages, ``name`` labels the
    building (default: the stem of ``source``), ``max_cells`` replaces
    ``maxCells`` (the limit on all floors' cells together).
    """
    if name is None:
        name = Path(source).stem if source else ""
    try:
        top = _object(obj, "")
        for key in ("areas", "obstacles", "floorY"):
            if key in top:
                raise ConfigError(f"a level with floors gives {key!r} per floor, not at the top",
                                  field=key)
        warn_unknown_keys(top, _TOP, "")
        raw_floors = _list(top["floors"], "floors")
        if not raw_floors:
            raise ConfigError("a building needs at least one floor", field="floors")
        if len(raw_floors) > MAX_FLOORS:
            raise ConfigError(f"{len(raw_floors)} floors, at most {MAX_FLOORS}", field="floors")
        limit = check_integer(top.get("maxCells", DEFAULT_MAX_CELLS) if max_cells is None
                              else max_cells, "maxCells", 1, 2**40)
        params = {k: top[k] for k in ("cellSize", "agentRadius", "objectPadding",
                                      "boundaryPadding") if k in top}
        levels: list[LevelConfig] = []
        seen: dict[str, int] = {}
        for i, rf in enumerate(raw_floors):
            pre = f"floors[{i}]"
            rf = _object(rf, pre)
            warn_unknown_keys(rf, _FLOOR, pre)
            if "name" not in rf:
                raise ConfigError("missing", field=f"{pre}.name")
            fname = check_name(rf["name"], f"{pre}.name")
            _first_use(seen, fname, "floors", i)
            body = {k: v for k, v in rf.items() if k != "name"}
            body.update(params)
            body["maxCells"] = min(limit, DEFAULT_MAX_CELLS * 64)
            try:
                levels.append(parse_level(body, name=fname, max_cells=body["maxCells"]))
            except ConfigError as e:
                raise _rename(e, pre) from None
        names = tuple(seen)
        # one shared frame: the union of every floor's areas (rule 16.2)
        boxes = [lv.bounds() for lv in levels]
        frame = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                 max(b[2] for b in boxes), max(b[3] for b in boxes))
        floors = tuple(replace(lv, frame=frame, name=lv.name, source=source) for lv in levels)
        geo = floors[0].grid_geometry()
        total = geo.size * len(floors)
        if total > limit:
            raise ConfigError(
                f"{len(floors)} floors of {geo.width} x {geo.depth} cells = {total} cells, "
                f"more than maxCells = {limit}; raise cellSize or maxCells", field="maxCells")
        links = tuple(parse_links(top.get("links", []), names, [f.floor_y for f in floors]))
    except ConfigError as e:
        if source is not None and e.path is None:
            raise ConfigError(e.reason, field=e.field, path=source) from None
        raise
    return BuildingConfig(floors=floors, links=links, max_cells=limit, name=name, source=source)


def parse_links(raw: Any, names: Sequence[str], floor_ys: Sequence[float]) -> list[LinkConfig]:
    """Validate a decoded ``links`` list for floors called ``names`` at heights
    ``floor_ys`` (errors name ``links[i]...``)."""
    raw_links = _list(raw, "links")
    if len(raw_links) > MAX_LINKS:
        raise ConfigError(f"{len(raw_links)} links, at most {MAX_LINKS}", field="links")
    out: list[LinkConfig] = []
    seen: dict[str, int] = {}
    for i, rl in enumerate(raw_links):
        pre = f"links[{i}]"
        rl = _object(rl, pre)
        warn_unknown_keys(rl, _LINK, pre)
        for key in ("name", "from", "to"):
            if key not in rl:
                raise ConfigError("missing", field=f"{pre}.{key}")
        lname = check_name(rl["name"], f"{pre}.name")
        _first_use(seen, lname, "links", i)
        kind = rl.get("kind", "custom")
        if kind not in LINK_KINDS:
            raise ConfigError(f"expected one of {', '.join(LINK_KINDS)}, got {shown(kind)}",
                              field=f"{pre}.kind")
        a = _end(rl["from"], f"{pre}.from", names)
        b = _end(rl["to"], f"{pre}.to", names)
        bidi = rl.get("bidirectional", True)
        if not isinstance(bidi, bool):
            raise ConfigError(f"expected true or false, got {shown(bidi)}",
                              field=f"{pre}.bidirectional")
        enabled = rl.get("enabled", True)
        if not isinstance(enabled, bool):
            raise ConfigError(f"expected true or false, got {shown(enabled)}",
                              field=f"{pre}.enabled")
        given = "cost" in rl and rl["cost"] is not None
        if given:
            cost = check_number(rl["cost"], f"{pre}.cost", positive=True, hi=1e12)
        else:
            cost = link_cost_default(a, b, floor_ys)
            if not cost > 0:
                raise ConfigError("the ends coincide, so the default cost (their distance) "
                                  "is 0; give a positive cost", field=f"{pre}.cost")
        cap_raw = rl.get("capacity", 1 if kind == "ladder" else None)
        capacity = None if cap_raw is None else check_integer(cap_raw, f"{pre}.capacity",
                                                              1, 1_000_000)
        out.append(LinkConfig(name=lname, kind=kind, start=a, end=b, bidirectional=bidi,
                              cost=cost, cost_given=given, capacity=capacity, enabled=enabled))
    return out


def is_building(obj: Any) -> bool:
    """Whether a decoded level JSON object lists floors (a building)."""
    return isinstance(obj, Mapping) and "floors" in obj

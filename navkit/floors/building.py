"""A building at run time: one :class:`~navkit.level.NavLevel` per floor, links
that can be switched off and on (docs/rules.md §16).

>>> from navkit.floors.examples import two_floors
>>> b = Building(two_floors())
>>> b.floor_names, b.link_names, b.version
(('ground', 'upper'), ('stairs',), 0)
>>> b.set_link_enabled("stairs", False), b.version
(True, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..grid import NavGrid
from ..level import NavLevel
from .model import (
    BuildingConfig,
    LinkConfig,
    LinkEnd,
    is_building,
    parse_building,
    resolve_floor,
)

__all__ = ["Building", "read_building", "building_config", "building_from_object"]


def read_building(path: str | Path, *, max_cells: int | None = None) -> BuildingConfig:
    """Read a building JSON file (FormatError on unreadable JSON, ConfigError naming
    the file and field on invalid content). A single-floor level file reads as a
    building of one floor called ``"ground"``."""
    from ..level.parse import read_json

    p = Path(path)
    obj = read_json(p)
    return building_from_object(obj, source=str(p), max_cells=max_cells)


def building_from_object(obj: Any, *, source: str | None = None,
                         max_cells: int | None = None) -> BuildingConfig:
    """A building from a decoded level object, with floors or without (one floor)."""
    if is_building(obj):
        return parse_building(obj, source=source, max_cells=max_cells)
    if isinstance(obj, dict):
        body = {k: v for k, v in obj.items()
                if k in ("cellSize", "agentRadius", "objectPadding", "boundaryPadding",
                         "maxCells")}
        floor = {k: v for k, v in obj.items() if k in ("areas", "obstacles", "floorY")}
        floor["name"] = "ground"
        unknown = {k: v for k, v in obj.items() if k not in body and k not in floor}
        body.update(unknown)  # warned about by the parser
        body["floors"] = [floor]
        return parse_building(body, source=source, max_cells=max_cells)
    raise ConfigError(f"a level config must be a JSON object, got {type(obj).__name__}",
                      path=source)


def building_config(level: Any, *, field: str = "level") -> BuildingConfig:
    """A :class:`BuildingConfig` from any level form: a BuildingConfig, a
    :class:`Building`, a level dict (with or without floors), a path, or a
    single-floor :class:`~navkit.level.LevelConfig` / NavLevel."""
    from ..level import LevelConfig

    if isinstance(level, BuildingConfig):
        return level
    if isinstance(level, Building):
        return level.config
    if isinstance(level, dict):
        return building_from_object(level)
    if isinstance(level, (str, Path)):
        return read_building(level)
    if isinstance(level, NavLevel):
        level = level.config
    if isinstance(level, LevelConfig):
        return building_from_object(level.to_json_dict())
    raise ConfigError(f"expected a building or level (config, dict or path), got "
                      f"{type(level).__name__}", field=field)


class Building:
    """Floors (each a :class:`~navkit.level.NavLevel` on the shared frame) and links.

    ``version`` counts changes: doors and obstacles on any floor, links switched.
    :meth:`stacked` gives the floors' walkable cells and weights as one array
    (floor-major), rebuilt only when a floor changed.
    """

    def __init__(self, config: BuildingConfig | dict[str, Any] | str | Path):
        cfg = building_config(config, field="config")
        self._config: BuildingConfig | None = cfg
        self._levels: tuple[NavLevel, ...] = tuple(NavLevel(f) for f in cfg.floors)
        self._grids: tuple[NavGrid, ...] | None = None
        self._setup(cfg.floor_names, [f.floor_y for f in cfg.floors], cfg.links,
                    cfg.cell_size, cfg.agent_radius, cfg.name, cfg.source)

    @classmethod
    def from_grids(cls, grids: Sequence[NavGrid], links: Any = (), *,
                   names: Sequence[str] | None = None,
                   floor_ys: Sequence[float] | None = None, name: str = "") -> Building:
        """A building whose floors are ready grids (a Tiled or LDtk map's layers):
        the same shape, cell size and corner; ``names`` default ``floor0, floor1,
        ...``, ``floor_ys`` default each grid's ``floor_y``; ``links`` as the JSON
        ``links`` list (ends name floors by name or index). Such floors have no
        areas or obstacles to edit; links can still be switched.

        >>> import numpy as np
        >>> g = NavGrid(np.ones((2, 3), bool))
        >>> Building.from_grids([g, g], [{"name": "lift", "kind": "elevator",
        ...     "from": {"floor": 0, "point": [0.5, 0.5]}, "to": {"floor": 1, "point": [0.5, 0.5]},
        ...     "cost": 2.0}]).floor_names
        ('floor0', 'floor1')
        """
        from .model import MAX_FLOORS, parse_links

        grids = tuple(grids)
        if not grids or not all(isinstance(g, NavGrid) for g in grids):
            raise ConfigError("expected a non-empty list of NavGrids", field="grids")
        if len(grids) > MAX_FLOORS:
            raise ConfigError(f"{len(grids)} floors, at most {MAX_FLOORS}", field="grids")
        g0 = grids[0]
        for i, g in enumerate(grids):
            if (g.shape, g.cell_size, g.min_x, g.min_z) != (g0.shape, g0.cell_size, g0.min_x,
                                                            g0.min_z):
                raise ConfigError("every floor's grid needs the same shape, cell size and "
                                  f"corner as the first, got {g.shape} at ({g.min_x}, "
                                  f"{g.min_z}), cell {g.cell_size}", field=f"grids[{i}]")
        nm = tuple(f"floor{i}" for i in range(len(grids))) if names is None else tuple(names)
        if len(nm) != len(grids) or len(set(nm)) != len(nm) or not all(
                isinstance(n, str) and n for n in nm):
            raise ConfigError(f"expected {len(grids)} distinct non-empty names, got {nm!r}",
                              field="names")
        ys = [g.floor_y for g in grids] if floor_ys is None else [float(y) for y in floor_ys]
        if len(ys) != len(grids):
            raise ConfigError(f"expected {len(grids)} heights, got {len(ys)}", field="floor_ys")
        self = cls.__new__(cls)
        self._config = None
        self._levels = ()
        self._grids = grids
        self._setup(nm, ys, tuple(parse_links(list(links), nm, ys)), g0.cell_size,
                    g0.agent_radius, name, None)
        return self

    def _setup(self, names: Sequence[str], ys: Sequence[float], links: Sequence[LinkConfig],
               cell_size: float, agent_radius: float, name: str, source: str | None) -> None:
        self._names = tuple(names)
        self._floor_ys = tuple(float(y) for y in ys)
        self._ys_array = np.array(self._floor_ys, dtype=np.float64)
        self._ys_array.flags.writeable = False
        self._links = tuple(links)
        self._cell_size = cell_size
        self._agent_radius = agent_radius
        self._name = name
        self._source = source
        self._link_on = np.array([lk.enabled for lk in self._links], dtype=np.uint8)
        self._link_version = 0
        self._stack: tuple[tuple[int, ...], NDArray[np.uint8], NDArray[np.int32], int] | None = None
        g0 = self.grid(0)
        self.width = g0.width
        self.depth = g0.depth
        ends = []
        for i, lk in enumerate(self._links):
            for tag, end in (("from", lk.start), ("to", lk.end)):
                ends.append(self._end_cell(end, f"links[{i}].{tag}", lk))
        self._ends = np.array(ends, dtype=np.int64).reshape(len(self._links), 2)

    # ------------------------------------------------------------ properties
    @property
    def config(self) -> BuildingConfig:
        """The building's current config: doors, obstacles and links as they are
        now (ConfigError for one made from grids)."""
        if self._config is None:
            raise ConfigError("this building was made from grids and has no level config",
                              field="config")
        cfg = self._config
        floors = tuple(lv.config for lv in self._levels)
        links = tuple(lk if lk.enabled == bool(on) else replace(lk, enabled=bool(on))
                      for lk, on in zip(self._links, self._link_on, strict=True))
        if floors == cfg.floors and links == cfg.links:
            return cfg
        return replace(cfg, floors=floors, links=links)

    @property
    def name(self) -> str:
        return self._name

    @property
    def floor_names(self) -> tuple[str, ...]:
        return self._names

    @property
    def link_names(self) -> tuple[str, ...]:
        return tuple(lk.name for lk in self._links)

    @property
    def links(self) -> tuple[LinkConfig, ...]:
        return self._links

    @property
    def levels(self) -> tuple[NavLevel, ...]:
        """One NavLevel per floor (doors and obstacles per floor); empty for a
        building made from grids."""
        return self._levels

    @property
    def version(self) -> int:
        return sum(lv.version for lv in self._levels) + self._link_version

    @property
    def floor_ys(self) -> NDArray[np.float64]:
        """Each floor's height ``floorY``, metres (a read-only array)."""
        return self._ys_array

    @property
    def cell_size(self) -> float:
        return self._cell_size

    @property
    def agent_radius(self) -> float:
        return self._agent_radius

    def grid(self, floor: int | str) -> NavGrid:
        """Floor ``floor``'s current grid (index or name)."""
        f = self.floor_index(floor)
        if self._grids is not None:
            return self._grids[f]
        return self._levels[f].grid

    def floor_index(self, floor: Any, fld: str = "floor") -> int:
        """A floor's index from its index or name (ConfigError naming ``fld``)."""
        return resolve_floor(floor, self._names, fld)

    def link_index(self, name: str) -> int:
        for i, lk in enumerate(self._links):
            if lk.name == name:
                return i
        from ..errors import unknown_name_message

        raise ConfigError(unknown_name_message("link", name, self.link_names), field="name")

    def link_end_nodes(self) -> NDArray[np.int64]:
        """``(links, 2)`` nodes (floor-major index) of each link's from and to ends."""
        return self._ends

    def link_enabled(self, name: str) -> bool:
        return bool(self._link_on[self.link_index(name)])

    @property
    def link_states(self) -> NDArray[np.uint8]:
        """1 per link that is switched on (read-only view)."""
        v = self._link_on.view()
        v.flags.writeable = False
        return v

    # --------------------------------------------------------------- editing
    def set_link_enabled(self, name: str, enabled: bool) -> bool:
        """Switch link ``name`` on or off (a lift out of order); True when it changed."""
        if not isinstance(enabled, bool):
            raise ConfigError(f"expected True or False, got {enabled!r}", field="enabled")
        k = self.link_index(name)
        if bool(self._link_on[k]) == enabled:
            return False
        self._link_on[k] = 1 if enabled else 0
        self._link_version += 1
        return True

    def _level_of_area(self, name: str, floor: Any) -> NavLevel:
        if not self._levels:
            raise ConfigError("this building was made from grids: its floors have no areas",
                              field="name")
        if floor is not None:
            return self._levels[self.floor_index(floor)]
        owners = [lv for lv in self._levels if name in lv.area_names]
        if len(owners) == 1:
            return owners[0]
        if not owners:
            from ..errors import unknown_name_message

            every = tuple(n for lv in self._levels for n in lv.area_names)
            raise ConfigError(unknown_name_message("area", name, every), field="name")
        raise ConfigError(f"area {name!r} exists on several floors; pass floor=",
                          field="floor")

    def set_area_available(self, name: str, available: bool, *, floor: Any = None) -> bool:
        """Open or close area ``name`` (a door) on its floor (``floor=`` where
        several floors have an area of that name); True when it changed."""
        return self._level_of_area(name, floor).set_area_available(name, available)

    def add_obstacle(self, name: str, polygon: Any, *, floor: Any = 0) -> None:
        """Add a polygon obstacle on one floor (default the first)."""
        if not self._levels:
            raise ConfigError("this building was made from grids: its floors take no polygon "
                              "obstacles", field="floor")
        self._levels[self.floor_index(floor)].add_obstacle(name, polygon)

    def remove_obstacle(self, name: str, *, floor: Any = None) -> None:
        """Remove obstacle ``name`` from its floor."""
        if floor is None:
            owners = [lv for lv in self._levels if name in lv.obstacle_names]
            if len(owners) != 1:
                raise ConfigError(f"obstacle {name!r} is on {len(owners)} floors; pass floor=",
                                  field="floor")
            owners[0].remove_obstacle(name)
            return
        self._levels[self.floor_index(floor)].remove_obstacle(name)

    # ------------------------------------------------------------- the stack
    def stacked(self) -> tuple[NDArray[np.uint8], NDArray[np.int32], int]:
        """``(free, weight, wmin)``: every floor's walkable cells as uint8 (1 free),
        floor-major, ``(F * depth * width,)``; their weights (one element ``[1]``
        when all are 1); the smallest weight of a walkable cell (1 without any)."""
        key = tuple(lv.version for lv in self._levels)
        st = self._stack
        if st is not None and st[0] == key:
            return st[1], st[2], st[3]
        grids = [self.grid(f) for f in range(len(self._names))]
        free = np.ascontiguousarray(
            np.stack([g.walkable for g in grids]).reshape(-1), dtype=np.uint8)
        if any(g.weights is not None for g in grids):
            weight = np.ascontiguousarray(np.stack(
                [g.weights if g.weights is not None else np.ones(g.shape, np.int32)
                 for g in grids]).reshape(-1), dtype=np.int32)
            wl = weight[free == 1]
            wmin = int(wl.min()) if wl.size else 1
        else:
            weight = np.ones(1, dtype=np.int32)
            wmin = 1
        self._stack = (key, free, weight, wmin)
        return free, weight, wmin

    # -------------------------------------------------------------- internals
    def _end_cell(self, end: LinkEnd, fld: str, lk: LinkConfig) -> int:
        grid = self.grid(end.floor)
        x, z = end.point
        cx, cz = grid.world_to_cell(x, z)
        floor = self._names[end.floor]
        if not grid.in_bounds(cx, cz) or not grid.is_walkable(cx, cz):
            raise ConfigError(f"link {lk.name!r}: its end ({x:g}, {z:g}) is not navigable on "
                              f"floor {floor!r} (cell ({cx}, {cz}) is blocked)",
                              field=f"{fld}.point", path=self._source)
        return (end.floor * self.depth + cz) * self.width + cx

    def __repr__(self) -> str:
        return (f"Building({self._name or 'unnamed'}: {len(self._names)} floors of "
                f"{self.width} x {self.depth} cells, {len(self._links)} links, "
                f"version {self.version})")

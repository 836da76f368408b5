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

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..grid import NavGrid
from ..level import NavLevel
from .model import BuildingConfig, LinkConfig, LinkEnd, is_building, parse_building

__all__ = ["Building", "read_building", "building_config"]


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
        self._config = cfg
        self._levels = tuple(NavLevel(f) for f in cfg.floors)
        self._link_on = np.array([lk.enabled for lk in cfg.links], dtype=np.uint8)
        self._link_version = 0
        self._stack: tuple[tuple[int, ...], NDArray[np.uint8], NDArray[np.int32], int] | None = None
        geo = cfg.grid_geometry()
        self.width = geo.width
        self.depth = geo.depth
        ends = []
        for i, lk in enumerate(cfg.links):
            for tag, end in (("from", lk.start), ("to", lk.end)):
                ends.append(self._end_cell(end, f"links[{i}].{tag}", lk))
        self._ends = np.array(ends, dtype=np.int64).reshape(len(cfg.links), 2)

    # ------------------------------------------------------------ properties
    @property
    def config(self) -> BuildingConfig:
        return self._config

    @property
    def floor_names(self) -> tuple[str, ...]:
        return self._config.floor_names

    @property
    def link_names(self) -> tuple[str, ...]:
        return self._config.link_names

    @property
    def links(self) -> tuple[LinkConfig, ...]:
        return self._config.links

    @property
    def levels(self) -> tuple[NavLevel, ...]:
        """One NavLevel per floor (doors and obstacles per floor)."""
        return self._levels

    @property
    def version(self) -> int:
        return sum(lv.version for lv in self._levels) + self._link_version

    @property
    def floor_ys(self) -> NDArray[np.float64]:
        return np.array([f.floor_y for f in self._config.floors], dtype=np.float64)

    @property
    def cell_size(self) -> float:
        return self._config.cell_size

    @property
    def agent_radius(self) -> float:
        return self._config.agent_radius

    def grid(self, floor: int | str) -> NavGrid:
        """Floor ``floor``'s current grid (index or name)."""
        return self._levels[self.floor_index(floor)].grid

    def floor_index(self, floor: Any, fld: str = "floor") -> int:
        return self._config.floor_index(floor, fld)

    def link_end_nodes(self) -> NDArray[np.int64]:
        """``(links, 2)`` nodes (floor-major index) of each link's from and to ends."""
        return self._ends

    def link_enabled(self, name: str) -> bool:
        return bool(self._link_on[self._config.link_index(name)])

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
        k = self._config.link_index(name)
        if bool(self._link_on[k]) == enabled:
            return False
        self._link_on[k] = 1 if enabled else 0
        self._link_version += 1
        return True

    def _level_of_area(self, name: str, floor: Any) -> NavLevel:
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
        grids = [lv.grid for lv in self._levels]
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
        grid = self._levels[end.floor].grid
        x, z = end.point
        cx, cz = grid.world_to_cell(x, z)
        floor = self._config.floor_names[end.floor]
        if not grid.in_bounds(cx, cz) or not grid.is_walkable(cx, cz):
            raise ConfigError(f"link {lk.name!r}: its end ({x:g}, {z:g}) is not navigable on "
                              f"floor {floor!r} (cell ({cx}, {cz}) is blocked)",
                              field=f"{fld}.point", path=self._config.source)
        return (end.floor * self.depth + cz) * self.width + cx

    def __repr__(self) -> str:
        c = self._config
        return (f"Building({c.name or 'unnamed'}: {len(c.floors)} floors of "
                f"{self.width} x {self.depth} cells, {len(c.links)} links, "
                f"version {self.version})")

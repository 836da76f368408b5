"""A building the viewer shows: its floors, links and paths across floors.

:class:`BuildingState` holds one :class:`~navkit.floors.FloorMap` and one
:class:`~navkit.viewer.map_state.MapState` per floor, each on that floor's own
:class:`~navkit.level.NavLevel` (shared with the building, so a door opened or an
obstacle dropped on the floor shown changes the building's paths too). The page
shows one floor at a time (:attr:`BuildingState.shown`); the map endpoints
(grid, areas, obstacles, single-floor paths, mesh) answer for that floor.

Called by :class:`~navkit.viewer.state.ViewerState` with its lock held;
arguments are validated first (see :mod:`navkit.viewer.api`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..floors import FloorMap
from ..floors.floormap import ALGORITHMS
from ..query.navmap import NavMap
from ..results import Status
from .map_state import MapState
from .protocol import finite_or_none, round4

__all__ = ["BuildingState", "ALGORITHMS"]


class BuildingState:
    """A building as the viewer shows and edits it: the floor shown, the links."""

    def __init__(self, fm: FloorMap) -> None:
        self.shown = 0
        self.maps: list[MapState] = []
        self.load(fm)

    def load(self, fm: FloorMap) -> None:
        """Show ``fm`` (the floor shown stays when the new building has it): the
        floors' map states start again, their versions keep increasing."""
        old = self.maps
        self.fm = fm
        b = fm.building
        navs = [NavMap(lv) for lv in b.levels]
        if len(old) == len(navs):
            for m, nav in zip(old, navs, strict=True):
                m.reset(nav)
        else:
            self.maps = [MapState(nav) for nav in navs]
        self.shown = min(self.shown, len(navs) - 1)
        self._start_links = tuple(bool(v) for v in b.link_states)

    @property
    def map(self) -> MapState:
        """The floor shown."""
        return self.maps[self.shown]

    @property
    def version(self) -> int:
        """The building's changes: doors and obstacles on any floor, links switched."""
        return int(self.fm.version)

    def show(self, floor: int) -> dict[str, Any]:
        """``POST /api/floors/show``: show floor ``floor`` (an index)."""
        self.shown = floor
        return {**self.summary(), "grid": self.map.grid_meta()}

    # ------------------------------------------------------------- summary
    def summary(self) -> dict[str, Any]:
        """``GET /api/floors`` (and ``building`` in ``/api/info``)."""
        b = self.fm.building
        floors = []
        for i, (name, y) in enumerate(zip(b.floor_names, b.floor_ys, strict=True)):
            g = b.grid(i)
            floors.append({"index": i, "name": name, "floorY": float(y),
                           "walkable": int(g.walkable.sum()), "shown": i == self.shown})
        return {"name": b.name, "floors": floors, "shown": self.shown,
                "links": self.link_list(), "algorithms": list(ALGORITHMS),
                "version": self.version}

    def link_list(self) -> list[dict[str, Any]]:
        """Every link: name, kind, ends (floor, point in metres, cell), cost (metres),
        one way or both, switched on or off."""
        b = self.fm.building
        on = b.link_states
        out = []
        for k, lk in enumerate(b.links):
            ends = {}
            for tag, end in (("from", lk.start), ("to", lk.end)):
                g = b.grid(end.floor)
                ends[tag] = {"floor": end.floor, "floorName": b.floor_names[end.floor],
                             "point": [round4(end.point[0]), round4(end.point[1])],
                             "cell": list(g.world_to_cell(*end.point))}
            out.append({"name": lk.name, "kind": lk.kind, "index": k,
                        "from": ends["from"], "to": ends["to"],
                        "bidirectional": lk.bidirectional, "cost": float(lk.cost),
                        "capacity": lk.capacity, "enabled": bool(on[k])})
        return out

    def edits(self) -> list[dict[str, str]]:
        """Every floor's edits (names prefixed ``floor:``) and the links switched."""
        out: list[dict[str, str]] = []
        names = self.fm.building.floor_names
        for name, m in zip(names, self.maps, strict=True):
            out += [{**e, "name": f"{name}:{e['name']}"} for e in m.edits()]
        b = self.fm.building
        for lk, was, now in zip(b.links, self._start_links, b.link_states, strict=True):
            if was != bool(now):
                out.append({"kind": "link", "name": lk.name,
                            "change": "switched on" if now else "switched off"})
        return out

    # --------------------------------------------------------------- edits
    def set_link(self, name: str, enabled: bool) -> dict[str, Any]:
        """``POST /api/floors/links``: switch a link on or off."""
        changed = bool(self.fm.set_link_enabled(name, enabled))
        return {"name": name, "enabled": enabled, "changed": changed, "version": self.version,
                "links": self.link_list()}

    def warm_up(self) -> None:
        """Load the building's search kernels (a query from a link end to itself)."""
        b = self.fm.building
        if b.links:
            lk = b.links[0]
            p = lk.start.point
            self.fm.find_path(p, p, start_floor=lk.start.floor, goal_floor=lk.start.floor)

    # ------------------------------------------------------------- queries
    def find_path(self, start: tuple[float, float], goal: tuple[float, float],
                  start_floor: int, goal_floor: int, algorithm: str) -> dict[str, Any]:
        """``POST /api/floors/path``: :meth:`FloorMap.find_path` between two world points
        on named floors, with the pieces of the path on each floor for drawing."""
        t0 = time.perf_counter()
        r = self.fm.find_path(start, goal, start_floor=start_floor, goal_floor=goal_floor,
                              algorithm=algorithm)
        ms = (time.perf_counter() - t0) * 1000.0
        b = self.fm.building
        way = np.asarray(r.waypoints, dtype=np.float64).reshape(-1, 2)
        floors = [int(f) for f in np.asarray(r.floors)]
        pts = [[round4(x), round4(z)] for x, z in way]
        links = []
        for s in r.links:
            lk = b.links[s.index]
            links.append({"name": s.name, "kind": s.kind, "index": s.index, "at": s.at,
                          "fromFloor": floors[s.at], "toFloor": floors[s.at + 1],
                          "from": pts[s.at], "to": pts[s.at + 1], "cost": float(lk.cost)})
        # the runs on one floor, cut at each link taken; the first starts at the start
        pieces: list[dict[str, Any]] = []
        cuts = [s.at + 1 for s in r.links]
        bounds = [0, *cuts, len(pts)]
        for j in range(len(bounds) - 1):
            run = pts[bounds[j]:bounds[j + 1]]
            if not run:
                continue
            s0 = [round4(start[0]), round4(start[1])]
            if j == 0 and floors[0] == start_floor and run[0] != s0:
                run = [s0, *run]
            pieces.append({"floor": floors[bounds[j]], "points": run})
        visited: list[int] = []
        for f in floors:
            if not visited or visited[-1] != f:
                visited.append(f)
        return {
            "status": r.status.name,
            "found": r.status == Status.FOUND,
            "hasPath": bool(r.has_path),
            "reason": r.reason,
            "start": [round4(start[0]), round4(start[1])],
            "goal": [round4(goal[0]), round4(goal[1])],
            "startFloor": start_floor,
            "goalFloor": goal_floor,
            "waypoints": pts,
            "floors": floors,
            "heights": [float(b.floor_ys[f]) for f in floors],
            "links": links,
            "pieces": pieces,
            "floorsVisited": visited,
            "floorNamesVisited": [b.floor_names[f] for f in visited],
            "cost": finite_or_none(r.cost),
            "costInt": int(r.cost_int),
            "length": finite_or_none(r.length),
            "expanded": int(r.expanded),
            "algorithm": algorithm,
            "timeMs": ms,
            "version": self.version,
        }

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

from ..floors import FloorMap, FloorPathResult
from ..floors.floormap import ALGORITHMS
from ..query.navmap import NavMap
from ..results import Status
from .map_state import MapState
from .protocol import finite_or_none, round4

__all__ = ["BuildingState", "ALGORITHMS", "MESH_ALGORITHMS"]

#: ``algorithm`` values of a route on the floors' navigation meshes (``mode: "mesh"``).
MESH_ALGORITHMS = ("auto", "exact", "funnel")


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
        self._mesh: Any = None  # the FloorMesh, built on the first mesh route
        self._mesh_weights_ignored = False
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
                "meshAlgorithms": list(MESH_ALGORITHMS), "version": self.version}

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

    def level_json(self) -> dict[str, Any]:
        """``GET /api/level``: the building as edited (every floor's doors and obstacles,
        the links as switched), as JSON :func:`navkit.floors.parse_building` reads."""
        b = self.fm.building
        out: dict[str, Any] = b.config.to_json_dict()
        for d, on in zip(out.get("links", []), b.link_states, strict=True):
            d.pop("enabled", None)
            if not on:
                d["enabled"] = False
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
        if b.links:  # along the first link: both floors' searches and the link routing
            lk = b.links[0]
            self.fm.find_path(lk.start.point, lk.end.point, start_floor=lk.start.floor,
                              goal_floor=lk.end.floor)

    # ------------------------------------------------------------- queries
    def find_path(self, start: tuple[float, float], goal: tuple[float, float],
                  start_floor: int, goal_floor: int, algorithm: str,
                  mode: str = "grid") -> dict[str, Any]:
        """``POST /api/floors/path``: :meth:`FloorMap.find_path` (``mode`` ``"grid"``,
        the circles of every floor as its obstacles) or :meth:`FloorMesh.find_path`
        (``"mesh"``: no circles) between two world points on given floors, with the
        pieces of the path on each floor for drawing."""
        t0 = time.perf_counter()
        if mode == "mesh":
            m = self._floor_mesh()
            r = m.find_path(start, goal, start_floor=start_floor, goal_floor=goal_floor,
                            algorithm="exact" if algorithm == "auto" else algorithm)
            ms = (time.perf_counter() - t0) * 1000.0
            entered = [int(e) for e in np.asarray(r.entered)]
            taken = [(i - 1, k) for i, k in enumerate(entered) if k >= 0 and i > 0]
            out = self._answer(r.waypoints, r.floors, taken, start, start_floor)
            out.update(status=r.status.name, found=r.status == Status.FOUND,
                       hasPath=bool(r.has_path), reason=FloorPathResult(r.status).reason,
                       cost=None, costInt=-1, length=finite_or_none(r.length),
                       expanded=None, searches=int(r.searches),
                       weightsIgnored=bool(self._mesh_weights_ignored))
        else:
            g = self.fm.find_path(start, goal, start_floor=start_floor, goal_floor=goal_floor,
                                  algorithm=algorithm, obstacles=self.circles())
            ms = (time.perf_counter() - t0) * 1000.0
            out = self._answer(g.waypoints, g.floors, [(s.at, s.index) for s in g.links],
                               start, start_floor)
            out.update(status=g.status.name, found=g.status == Status.FOUND,
                       hasPath=bool(g.has_path), reason=g.reason, cost=finite_or_none(g.cost),
                       costInt=int(g.cost_int), length=finite_or_none(g.length),
                       expanded=int(g.expanded))
        out.update(start=[round4(start[0]), round4(start[1])],
                   goal=[round4(goal[0]), round4(goal[1])], startFloor=start_floor,
                   goalFloor=goal_floor, mode=mode, algorithm=algorithm, timeMs=ms,
                   version=self.version)
        return out

    def circles(self) -> list[list[float]] | None:
        """The circle obstacles added on every floor as ``(x, z, radius, floor)`` rows
        (a grid route's ``obstacles``), None without any."""
        rows = [[x, z, r, float(f)] for f, m in enumerate(self.maps)
                for x, z, r, _ in m.circles.values()]
        return rows or None

    def _floor_mesh(self) -> Any:
        """The building's :class:`~navkit.floors.mesh.FloorMesh` (built once; it follows
        the floors' edits and the links' states). Terrain weights are ignored, as on the
        single-floor mesh layer (``weightsIgnored``)."""
        if self._mesh is None:
            from ..floors.mesh import FloorMesh

            b = self.fm.building
            self._mesh_weights_ignored = any(
                a.weight != 1 for lv in b.levels for a in lv.config.areas)
            self._mesh = FloorMesh(b, weights="ignore")
        return self._mesh

    def _answer(self, waypoints: Any, floors_: Any, taken: list[tuple[int, int]],
                start: tuple[float, float], start_floor: int) -> dict[str, Any]:
        """The drawing part of a route: waypoints, each one's floor, the links taken
        (``(at, link index)``: waypoint ``at`` on the floor left, ``at + 1`` on the
        floor reached), the pieces on one floor, the floors visited."""
        b = self.fm.building
        way = np.asarray(waypoints, dtype=np.float64).reshape(-1, 2)
        floors = [int(f) for f in np.asarray(floors_)]
        pts = [[round4(x), round4(z)] for x, z in way]
        links = []
        for at, k in taken:
            lk = b.links[k]
            links.append({"name": lk.name, "kind": lk.kind, "index": k, "at": at,
                          "fromFloor": floors[at], "toFloor": floors[at + 1],
                          "from": pts[at], "to": pts[at + 1], "cost": float(lk.cost)})
        # the runs on one floor, cut at each link taken; the first starts at the start
        pieces: list[dict[str, Any]] = []
        bounds = [0, *(at + 1 for at, _ in taken), len(pts)]
        s0 = [round4(start[0]), round4(start[1])]
        for j in range(len(bounds) - 1):
            run = pts[bounds[j]:bounds[j + 1]]
            if not run:
                continue
            if j == 0 and floors[0] == start_floor and run[0] != s0:
                run = [s0, *run]
            pieces.append({"floor": floors[bounds[j]], "points": run})
        visited: list[int] = []
        for f in floors:
            if not visited or visited[-1] != f:
                visited.append(f)
        return {
            "waypoints": pts,
            "floors": floors,
            "heights": [float(b.floor_ys[f]) for f in floors],
            "links": links,
            "pieces": pieces,
            "floorsVisited": visited,
            "floorNamesVisited": [b.floor_names[f] for f in visited],
        }

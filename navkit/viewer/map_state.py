"""The map a viewer shows: its grid for the page, its areas and obstacles, path
queries on it, and the edits clients make (doors, obstacles).

Called by :class:`~navkit.viewer.state.ViewerState` with its lock held;
arguments are validated first (see :mod:`navkit.viewer.api`).
"""

from __future__ import annotations

import base64
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import QueryError
from ..query.navmap import NavMap
from ..results import Status
from .layers import (
    KernelClock,
    circle_cells,
    flow_layer,
    hpa_layer,
    jump_points,
    rebuilt_config,
    spline_points,
)
from .protocol import LIMITS, finite_or_none, round4
from .search import Searcher

__all__ = ["MapState"]


class MapState:
    """One :class:`~navkit.query.navmap.NavMap` as the viewer shows and edits it.

    Remembers which obstacles were added from the viewer and, on a plain grid
    (no polygon level), their polygons, so the page can draw them.
    """

    def __init__(self, nav: NavMap, *, generated: frozenset[str] = frozenset()) -> None:
        self._next_obstacle = 1
        self._next_circle = 1
        self._base = 0  # added to nav.version: a rebuild keeps versions increasing
        #: Areas the map's reader made, not the author (a Tiled map's ``tiles:<i>``
        #: rectangles): listed with ``"generated": true``, not offered as doors.
        self.generated = generated
        self.clock = KernelClock()
        self.load(nav)
        self.mark_clean()

    def load(self, nav: NavMap) -> None:
        """Show ``nav`` instead: forget the viewer's obstacles and the search helpers
        (the numbering of new obstacle names goes on)."""
        self.nav = nav
        self.searcher = Searcher()
        self._grid_obstacles: dict[str, list[list[float]]] = {}  # added to a plain grid
        self._added: set[str] = set()
        self._grid_cache: tuple[int, bytes, list[int]] | None = None
        #: Circle obstacles added from the viewer: name -> (x, z, radius, occupant handle).
        self.circles: dict[str, tuple[float, float, float, int]] = {}

    def mark_clean(self) -> None:
        """Take the map as it is now as the start: :meth:`edits` lists what changes after."""
        level = self.nav.level
        self._start_areas = {} if level is None else {a.name: a.available
                                                      for a in level.config.areas}
        self._start_obstacles = tuple(self.nav.obstacle_names)
        self._start_params = self.build_params()

    def edits(self) -> list[dict[str, str]]:
        """What the server holds that the map file does not say: doors opened or closed,
        obstacles added or removed, circles, changed build parameters; each as
        ``{"kind", "name", "change"}`` (in that order, then by name order of the map)."""
        out: list[dict[str, str]] = []
        level = self.nav.level
        if level is not None:
            for a in level.config.areas:
                was = self._start_areas.get(a.name)
                if was is not None and was != a.available:
                    out.append({"kind": "area", "name": a.name,
                                "change": "opened" if a.available else "closed"})
        names = self.nav.obstacle_names
        out += [{"kind": "obstacle", "name": n, "change": "added"}
                for n in names if n not in self._start_obstacles]
        out += [{"kind": "obstacle", "name": n, "change": "removed"}
                for n in self._start_obstacles if n not in names]
        out += [{"kind": "circle", "name": n, "change": "added"} for n in self.circles]
        now, start = self.build_params(), self._start_params
        if now is not None and start is not None:
            out += [{"kind": "parameter", "name": k, "change": f"{start[k]:g} -> {now[k]:g}"}
                    for k in now if now[k] != start[k]]
        return out

    def reset(self, nav: NavMap) -> dict[str, Any]:
        """Show ``nav`` (the target file read again) instead, dropping every edit;
        the version keeps increasing."""
        base = self.version + 1
        self.load(nav)
        self._base = base - int(nav.version)
        self.mark_clean()
        return {"version": self.version, "edits": self.edits()}

    # ------------------------------------------------------------ the map
    @property
    def version(self) -> int:
        return self._base + int(self.nav.version)

    def area_list(self) -> list[dict[str, Any]]:
        level = self.nav.level
        if level is None:
            return []
        return [
            {
                "name": a.name,
                "available": a.available,
                "weight": a.weight,
                "polygon": [list(p) for p in a.polygon],
                "holes": [[list(p) for p in h] for h in a.holes],
                "generated": a.name in self.generated,
            }
            for a in level.config.areas
        ]

    def obstacle_list(self) -> list[dict[str, Any]]:
        level = self.nav.level
        if level is not None:
            return [
                {"name": o.name, "polygon": [list(p) for p in o.polygon],
                 "added": o.name in self._added}
                for o in level.config.obstacles
            ]
        return [{"name": n, "polygon": poly, "added": True}
                for n, poly in self._grid_obstacles.items()]

    def grid_meta(self) -> dict[str, Any]:
        g = self.nav.grid
        w = g.weights[g.walkable] if g.weights is not None else np.ones(0, dtype=np.int32)
        return {
            "width": g.width,
            "depth": g.depth,
            "cellSize": g.cell_size,
            "minX": g.min_x,
            "minZ": g.min_z,
            "floorY": g.floor_y,
            "agentRadius": g.agent_radius,
            "weighted": g.is_weighted,
            "minWeight": int(w.min()) if len(w) else 1,
            "maxWeight": int(w.max()) if len(w) else 1,
            "walkable": int(g.walkable.sum()),
        }

    def info(self) -> dict[str, Any]:
        """The map's part of ``/api/info``: version, grid, costs, algorithms, areas, obstacles."""
        pf = self.nav.pathfinder
        algos = self.searcher.algorithms(pf)
        # the library's default (auto), else A*, else the first that applies
        default = next((a.name for name in ("auto", "astar") for a in algos
                        if a.name == name and a.available),
                       next((a.name for a in algos if a.available), algos[0].name))
        resolve = getattr(pf, "resolve_algorithm", None)
        try:
            auto = resolve("auto") if resolve is not None else None
        except QueryError:
            auto = None
        return {
            "version": self.version,
            "grid": self.grid_meta(),
            "costs": {"name": pf.costs.name, "card": pf.costs.card, "diag": pf.costs.diag},
            "algorithms": [a.to_json() for a in algos],
            "defaultAlgorithm": default,
            "autoAlgorithm": auto,
            "areas": self.area_list(),
            "obstacles": self.obstacle_list(),
            "circles": self.circle_list(),
            "buildParams": self.build_params(),
            "warmKinds": sorted(self.clock.warm),
            "edits": self.edits(),
        }

    def circle_list(self) -> list[dict[str, Any]]:
        return [{"name": n, "center": [round4(x), round4(z)], "radius": r,
                 "cells": len(circle_cells(self.nav.grid, x, z, r))}
                for n, (x, z, r, _) in self.circles.items()]

    def build_params(self) -> dict[str, float] | None:
        """A JSON level's build parameters (None for a plain grid)."""
        level = self.nav.level
        if level is None:
            return None
        c = level.config
        return {"cellSize": c.cell_size, "agentRadius": c.agent_radius,
                "objectPadding": c.object_padding, "boundaryPadding": c.boundary_padding}

    def grid_bytes(self) -> tuple[int, bytes, list[int]]:
        """``(version, codes, legend)``: one byte per cell in ``[z, x]`` order,
        0 blocked, ``k >= 1`` walkable with terrain weight ``legend[k - 1]``."""
        v = self.version
        if self._grid_cache is not None and self._grid_cache[0] == v:
            return self._grid_cache
        g = self.nav.grid
        walk = g.walkable
        codes = np.zeros(g.shape, dtype=np.uint8)
        if g.weights is None:
            codes[walk] = 1
            legend = [1]
        else:
            w = g.weights
            uniq = np.unique(w[walk]) if walk.any() else np.array([1], dtype=np.int32)
            if len(uniq) > 255:  # more weights than codes: 255 logarithmic bins
                edges = np.unique(np.geomspace(uniq[0], uniq[-1], 256).astype(np.int64))
                idx = np.clip(np.searchsorted(edges, w, side="right"), 1, len(edges)) - 1
                legend = [int(e) for e in edges[: int(idx.max()) + 1]]
            else:
                idx = np.searchsorted(uniq, w)
                legend = [int(u) for u in uniq]
            codes[walk] = (idx[walk] + 1).astype(np.uint8)
        self._grid_cache = (v, codes.tobytes(), legend)
        return self._grid_cache

    def warm_up(self) -> None:
        """Load the search kernels before the first click."""
        walk = np.argwhere(self.nav.grid.walkable)
        if len(walk):
            z, x = (int(v) for v in walk[0])
            self.nav.pathfinder.find_path_cells((x, z), (x, z))

    # ------------------------------------------------------------- queries
    def find_path(
        self, start: tuple[int, int], goal: tuple[int, int], algorithm: str
    ) -> dict[str, Any]:
        """``POST /api/path``'s answer: the path, its cost, what the search expanded."""
        pf = self.nav.pathfinder
        resolve = getattr(pf, "resolve_algorithm", None)
        kind = resolve(algorithm) if resolve is not None and algorithm not in ("hpa", "flow") \
            else algorithm
        first = kind not in self.clock.warm
        out = self.searcher.run(pf, start, goal, algorithm)
        compile_ms = 0.0
        if first:  # the first run compiled (or loaded) the kernels: run again, time apart
            again = self.searcher.run(pf, start, goal, algorithm)
            compile_ms = max(0.0, out.time_ms - again.time_ms)
            if out.extra and again.extra is not None and "buildMs" in out.extra:
                again.extra["buildMs"] = out.extra["buildMs"]
            out = again
            self.clock.warm.add(kind)
        res = out.result
        jumps = jump_points(pf, res.start_cell) if out.resolved == "jps" else None
        return {
            "status": res.status.name,
            "found": res.found,
            "hasPath": res.has_path,
            "nearest": res.status == Status.NEAREST,
            "start": list(start),
            "goal": list(goal),
            "endCell": None if res.end_cell is None else list(res.end_cell),
            "cells": np.asarray(res.cells).tolist(),
            "smoothed": out.smoothed.tolist(),
            "waypoints": [[round4(x), round4(z)] for x, z in np.asarray(res.waypoints)],
            "cost": finite_or_none(res.cost),
            "costInt": int(res.cost_int),
            "expanded": int(res.expanded),
            "generated": int(res.generated),
            "timeMs": out.time_ms,
            "searchMs": out.time_ms,
            "compileMs": compile_ms,
            "firstCall": first,
            "jumpPoints": jumps,
            "spline": spline_points(res),
            "algorithm": out.algorithm,
            "resolvedAlgorithm": out.resolved,
            "heat": _encode_heat(out.costs, pf.costs.card),
            "version": self.version,
            "extra": out.extra or {},
        }

    # ---------------------------------------------------------------- edits
    def set_area(self, name: str, available: bool) -> dict[str, Any]:
        changed = bool(self.nav.set_area_available(name, available))
        return {"name": name, "available": available, "changed": changed, "version": self.version}

    def _free_obstacle_number(self) -> int:
        """The number of the next ``viewer_N`` name not taken (nothing is reserved)."""
        names = set(self.nav.obstacle_names)
        n = self._next_obstacle
        while f"viewer_{n}" in names:
            n += 1
        return n

    def add_obstacle(self, name: str | None, polygon: list[list[float]]) -> dict[str, Any]:
        """Add an obstacle (``name`` None: the next free ``viewer_N``). All or nothing: a
        polygon the map refuses changes nothing, not even the numbering."""
        most = LIMITS["viewerObstacles"]
        if len(self._added) >= most:
            raise QueryError(f"at most {most} obstacles may be added from the viewer")
        auto = name is None
        number = self._free_obstacle_number()
        if name is None:
            name = f"viewer_{number}"
        self.nav.add_obstacle(name, polygon)
        if auto:
            self._next_obstacle = number + 1
        self._added.add(name)
        if self.nav.level is None:
            self._grid_obstacles[name] = [list(p) for p in polygon]
        return {"name": name, "version": self.version, "obstacles": self.obstacle_list()}

    # -------------------------------------------------------------- circles
    def add_circle(self, name: str | None, x: float, z: float, radius: float) -> dict[str, Any]:
        """A circle obstacle: blocks the cells whose centre lies in the closed disc
        (docs/rules.md §7.1), as a long-lived occupant of the map (§7.5)."""
        if len(self.circles) >= LIMITS["viewerObstacles"]:
            raise QueryError(f"at most {LIMITS['viewerObstacles']} circles may be added")
        if name is None:
            while f"circle_{self._next_circle}" in self.circles:
                self._next_circle += 1
            name = f"circle_{self._next_circle}"
            self._next_circle += 1
        handle = self.nav.add_occupant(x, z, radius)
        self.circles[name] = (x, z, radius, handle)
        return {"name": name, "circles": self.circle_list(),
                "occupancyVersion": self.nav.occupancy_version}

    def remove_circle(self, name: str) -> dict[str, Any]:
        self.nav.remove_occupant(self.circles.pop(name)[3])
        return {"name": name, "circles": self.circle_list(),
                "occupancyVersion": self.nav.occupancy_version}

    # --------------------------------------------------------------- layers
    def flow(self, goal: tuple[int, int], every: int | None) -> dict[str, Any]:
        """``POST /api/flow``: a flow field toward ``goal`` as arrows."""
        pf = self.nav.pathfinder
        out, search_ms, compile_ms, first = self.clock.run(
            "flow", lambda: flow_layer(pf, goal, every=every))
        return {**out, "searchMs": search_ms, "compileMs": compile_ms, "firstCall": first,
                "version": self.version}

    def hpa(self) -> dict[str, Any]:
        """``GET /api/hpa``: HPA*'s clusters and entrances for this map version."""
        from .search import optional_attr

        cls = optional_attr("navkit.query.hpa", "HPAStar")
        if cls is None:
            raise QueryError("this navkit has no HPA* (navkit.query.hpa)")
        pf = self.nav.pathfinder
        t0 = time.perf_counter()
        hpa = self.searcher.hpa_for(pf)
        build_ms = (time.perf_counter() - t0) * 1000.0
        return {**hpa_layer(hpa), "buildMs": build_ms, "version": self.version}

    def cell_info(self, cell: tuple[int, int]) -> dict[str, Any]:
        """``GET /api/cell``: what one cell is, for the inspector."""
        g = self.nav.grid
        x, z = cell
        wx, wz = (float(v) for v in g.cells_to_world(np.array([cell]))[0])
        walk = bool(g.walkable[z, x])
        level = self.nav.level
        out: dict[str, Any] = {
            "cell": [x, z],
            "world": [round4(wx), round4(wz)],
            "walkable": walk,
            "weight": (int(g.weights[z, x]) if g.weights is not None else 1) if walk else None,
            "areas": [] if level is None else level.areas_at(wx, wz),
            "circles": [n for n, (cx, cz, r, _) in self.circles.items()
                        if (wx - cx) ** 2 + (wz - cz) ** 2 <= r * r],
            "version": self.version,
        }
        if level is not None:
            import shapely

            obs = level.config.obstacles
            hits = shapely.intersects_xy(np.array([o.geometry for o in obs], dtype=object),
                                         wx, wz) if obs else []
            out["obstacles"] = [o.name for o, h in zip(obs, hits, strict=True) if h]
        return out

    # ----------------------------------------------------------------- level
    def level_json(self) -> dict[str, Any]:
        """The level as edited (doors, obstacles, build parameters), as JSON
        :func:`navkit.level.parse_level` reads back to the grid shown. Circles are
        occupants, not part of a level file (see ``circles`` in ``/api/info``)."""
        level = self.nav.level
        if level is None:
            raise QueryError("this map is not a JSON level: there is no level to save")
        out: dict[str, Any] = level.config.to_json_dict()
        return out

    def rebuild(self, params: dict[str, float]) -> dict[str, Any]:
        """Rebuild the level with new build parameters (the doors' states, the obstacles
        and the circles are kept). All or nothing: a refused value changes nothing."""
        level = self.nav.level
        if level is None:
            raise QueryError("this map is not a JSON level: it has no build parameters")
        config = rebuilt_config(level.config, params)
        t0 = time.perf_counter()
        nav = NavMap(config, **self._nav_options())
        ms = (time.perf_counter() - t0) * 1000.0
        added, circles, base = set(self._added), dict(self.circles), self.version + 1
        self.load(nav)
        self._base = base
        self._added = {n for n in added if n in nav.obstacle_names}
        for n, (x, z, r, _) in circles.items():
            self.circles[n] = (x, z, r, nav.add_occupant(x, z, r))
        return {"version": self.version, "buildMs": ms, "grid": self.grid_meta(),
                "buildParams": self.build_params()}

    def _nav_options(self) -> dict[str, Any]:
        pf = self.nav.pathfinder
        return {"costs": pf.costs, "connectivity": pf.connectivity}

    def remove_obstacle(self, name: str) -> dict[str, Any]:
        self.nav.remove_obstacle(name)
        self._added.discard(name)
        self._grid_obstacles.pop(name, None)
        return {"name": name, "version": self.version, "obstacles": self.obstacle_list()}


def _encode_heat(costs: NDArray[np.int64] | None, card: int) -> dict[str, Any] | None:
    """Expanded cells as a compact heat map: the bounding box of the cells
    with a cost, one byte each (0: not expanded, 1..255: cost scaled to the
    largest), base64."""
    if costs is None:
        return None
    mask = costs >= 0
    if not mask.any():
        return {"x0": 0, "z0": 0, "w": 0, "h": 0, "count": 0, "maxCost": 0.0, "data": ""}
    zs = np.flatnonzero(mask.any(axis=1))
    xs = np.flatnonzero(mask.any(axis=0))
    z0, z1, x0, x1 = int(zs[0]), int(zs[-1]) + 1, int(xs[0]), int(xs[-1]) + 1
    box = costs[z0:z1, x0:x1]
    m = box >= 0
    top = int(box[m].max())
    out = np.zeros(box.shape, dtype=np.uint8)
    if top > 0:
        out[m] = 1 + np.floor(box[m] / top * 254.0).astype(np.uint8)
    else:
        out[m] = 1
    return {
        "x0": x0, "z0": z0, "w": x1 - x0, "h": z1 - z0, "count": int(m.sum()),
        "maxCost": top / card, "data": base64.b64encode(out.tobytes()).decode("ascii"),
    }

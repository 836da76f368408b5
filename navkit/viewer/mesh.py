"""The navigation mesh as the viewer draws it, and mesh path queries beside the grid's.

:class:`MeshLayer` holds a :class:`navkit.mesh.navmesh.NavMesh` of the map
shown. It is built lazily, on the first request that needs it, and again
whenever the map's version changes (a door, an obstacle) or the map itself
is replaced (a scene reset). A polygon level gives
``NavMesh.from_level(config, weights="ignore")`` (the mesh is unweighted: a
level with terrain weights says so with ``weightsIgnored``); a plain grid
gives ``NavMesh.from_grid(grid)``.

The mesh package is imported on first use, so the viewer works (without the
mesh layer) where it cannot be: :func:`mesh_support` says why.

Every method is called with the viewer state's lock held, with validated
arguments (see :mod:`navkit.viewer.api`).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..query.navmap import NavMap
from .protocol import finite_or_none, round4

__all__ = ["MeshLayer", "MeshUnavailable", "MeshTooLarge", "mesh_support", "MESH_METHODS",
           "MAX_DRAW_POLYGONS"]

#: Path methods the viewer offers on a mesh (``NavMesh.find_path``'s ``method``).
MESH_METHODS = ("exact", "funnel")
#: Largest mesh ``GET /api/mesh`` sends to the page (a bigger one answers 413).
MAX_DRAW_POLYGONS = 250_000

_MODULE = "navkit.mesh.navmesh"
_support: tuple[bool, str] | None = None  # cached once the import worked


class MeshUnavailable(Exception):
    """This navkit cannot build meshes (the mesh package does not import)."""


class MeshTooLarge(Exception):
    """The mesh has more polygons than the page is sent (``n``: how many)."""

    def __init__(self, n: int, limit: int):
        super().__init__(f"the mesh has {n} polygons, more than the {limit} the page draws")
        self.n = n


def mesh_support() -> tuple[bool, str]:
    """``(True, "")`` when :mod:`navkit.mesh.navmesh` imports, else ``(False, why)``.

    A success is remembered; a failure is tried again next time.
    """
    global _support
    if _support is not None:
        return _support
    try:
        importlib.import_module(_MODULE)
    except Exception as e:  # noqa: BLE001 - any import failure means "no mesh layer"
        return False, f"navigation meshes are not available: {type(e).__name__}: {e}"[:300]
    _support = (True, "")
    return _support


def _navmesh_class() -> Any:
    ok, reason = mesh_support()
    if not ok:
        raise MeshUnavailable(reason)
    return importlib.import_module(_MODULE).NavMesh


def _segments(vertices: np.ndarray, a: np.ndarray, b: np.ndarray) -> list[float]:
    """Edges ``a[i] -> b[i]`` (vertex ids) as flat ``[ax, az, bx, bz, ...]`` metres."""
    seg = np.empty((len(a), 4), dtype=np.float64)
    seg[:, 0:2] = vertices[a]
    seg[:, 2:4] = vertices[b]
    return [round4(v) for v in seg.ravel()]


class MeshLayer:
    """The mesh of one viewer map, rebuilt when the map changes."""

    def __init__(self) -> None:
        self._mesh: Any = None
        self._nav: NavMap | None = None
        self._version = -1
        self._drawing: dict[str, Any] | None = None
        #: milliseconds the last build took
        self.build_ms = 0.0
        #: how many times a mesh was built (tests: it is lazy and cached)
        self.builds = 0
        self.weights_ignored = False

    # ------------------------------------------------------------ building
    def is_current(self, nav: NavMap) -> bool:
        """Whether the mesh held is the one of ``nav`` at its present version."""
        return self._mesh is not None and self._nav is nav and self._version == nav.version

    def mesh(self, nav: NavMap) -> tuple[Any, float]:
        """``(mesh, build_ms)``: ``nav``'s mesh, built now (``build_ms`` > 0) or cached (0).

        Raises :class:`MeshUnavailable` without the mesh package, NavkitError
        when the map has no mesh (no free space).
        """
        if self.is_current(nav):
            return self._mesh, 0.0
        cls = _navmesh_class()
        t0 = time.perf_counter()
        level = nav.level
        self._mesh = None
        self._drawing = None
        if level is not None:
            cfg = level.config
            mesh = cls.from_level(cfg, weights="ignore")
            self.weights_ignored = any(a.available and a.weight != 1 for a in cfg.areas)
        else:
            mesh = cls.from_grid(nav.grid)
            self.weights_ignored = bool(nav.grid.is_weighted)
        self.build_ms = (time.perf_counter() - t0) * 1000.0
        self.builds += 1
        self._mesh, self._nav, self._version = mesh, nav, int(nav.version)
        return mesh, self.build_ms

    def summary(self, nav: NavMap) -> dict[str, Any]:
        """``/api/info``'s ``mesh``: whether there is a mesh layer, and the mesh if built."""
        ok, reason = mesh_support()
        out: dict[str, Any] = {"available": ok, "reason": reason,
                               "methods": list(MESH_METHODS) if ok else [],
                               "built": self.is_current(nav)}
        if out["built"]:
            out["polygons"] = int(self._mesh.n_polygons)
            out["buildMs"] = self.build_ms
        return out

    # ------------------------------------------------------------ drawing
    def drawing(self, nav: NavMap, max_polygons: int = MAX_DRAW_POLYGONS) -> dict[str, Any]:
        """``GET /api/mesh``: the polygons and their edges, world metres.

        ``polygons``: one flat ``[x0, z0, x1, z1, ...]`` list per polygon
        (counter-clockwise); ``portals``: every edge two polygons share, once,
        and ``walls``: every edge on the mesh's boundary, both as flat
        ``[ax, az, bx, bz, ...]`` lists. Coordinates are rounded to 0.1 mm.
        ``buildMs``: the time this request spent building the mesh (0: cached).
        Raises :class:`MeshTooLarge` past ``max_polygons``.
        """
        mesh, build_ms = self.mesh(nav)
        if mesh.n_polygons > max_polygons:
            raise MeshTooLarge(int(mesh.n_polygons), max_polygons)
        if self._drawing is not None:
            return {**self._drawing, "buildMs": build_ms}
        arr = mesh.arrays
        v = np.asarray(arr.vertices, dtype=np.float64)
        ps = np.asarray(arr.poly_start, dtype=np.int64)
        pv = np.asarray(arr.poly_verts, dtype=np.int64)
        adj = np.asarray(arr.poly_adj, dtype=np.int64)
        n = int(arr.n_polygons)
        flat = [round4(c) for c in v[pv].ravel()]
        polygons = [flat[2 * int(ps[i]):2 * int(ps[i + 1])] for i in range(n)]
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(ps))
        nxt = np.arange(1, len(pv) + 1, dtype=np.int64)
        nxt[ps[1:] - 1] = ps[:-1]
        a, b = pv, pv[nxt]
        portal = adj > owner  # each shared edge once (from the lower-numbered polygon)
        wall = adj < 0
        lo_x, lo_z, hi_x, hi_z = arr.bounds()
        self._drawing = {
            "version": self._version,
            "nPolygons": n,
            "nVertices": int(arr.n_vertices),
            "nPortals": int(portal.sum()),
            "nWalls": int(wall.sum()),
            "regions": int(np.asarray(arr.poly_region).max()) + 1 if n else 0,
            "bounds": [round4(lo_x), round4(lo_z), round4(hi_x), round4(hi_z)],
            "weightsIgnored": self.weights_ignored,
            "polygons": polygons,
            "portals": _segments(v, a[portal], b[portal]),
            "walls": _segments(v, a[wall], b[wall]),
        }
        return {**self._drawing, "buildMs": build_ms}

    # ------------------------------------------------------------ queries
    def find_path(self, nav: NavMap, start: tuple[float, float], goal: tuple[float, float],
                  methods: Sequence[str], nearest: bool = False) -> dict[str, Any]:
        """``POST /api/mesh/path``: one mesh path per method, world metres.

        ``nearest``: an unreachable goal gives the path to the reachable mesh
        point closest to it (``find_path_to_nearest``), as the grid query does.
        """
        mesh, build_ms = self.mesh(nav)
        paths: dict[str, Any] = {}
        for method in methods:
            query = mesh.find_path_to_nearest if nearest else mesh.find_path
            t0 = time.perf_counter()
            res = query(start, goal, algorithm=method)
            ms = (time.perf_counter() - t0) * 1000.0
            w = np.asarray(res.waypoints, dtype=np.float64)
            paths[method] = {
                "method": method,
                "status": res.status.name,
                "found": bool(res.found),
                "hasPath": bool(res.has_path),
                "waypoints": [[float(x), float(z)] for x, z in w],
                "length": finite_or_none(float(res.length)) if res.has_path else None,
                "expanded": int(res.expanded),
                "generated": int(res.generated),
                "searched": mesh.last_search(method).tolist(),
                "startPolygon": int(res.start_polygon),
                "endPolygon": int(res.end_polygon),
                "timeMs": ms,
            }
        return {
            "version": self._version,
            "start": [float(start[0]), float(start[1])],
            "goal": [float(goal[0]), float(goal[1])],
            "nearest": nearest,
            "nPolygons": int(mesh.n_polygons),
            "buildMs": build_ms,
            "weightsIgnored": self.weights_ignored,
            "paths": paths,
        }


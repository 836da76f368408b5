"""Benchmark navkit's navigation meshes (``navkit bench mesh``, ``--help`` for options).

A measurement script, not a test: it reports PASS / MISS against the
targets but always exits 0 unless its input is bad (exit 2). Three cases:

1. **queries**: a 100 x 70 m box with 150 random rectangles (seed 1), 200
   query pairs sampled (seed 2) in the largest piece of the free space.
   navkit's ``NavMesh.find_path`` (``exact`` and ``funnel``) against
   extremitypathfinder (visibility graph, optimal), pyvisgraph (visibility
   graph, pure Python), pynavmesh (A* over polygons + funnel, fed navkit's
   own polygons) and navkit's grid (``rasterize`` at 0.4 m, then
   ``Pathfinder(grid, costs="exact").find_path``, string-pulled). Every
   peer gets the same free space (``mesh.space``; its piece holding the
   queries) and the same pairs. Preparation (environment, visibility graph,
   rasterization) is timed apart from the queries. Target: the exact mesh
   query's median at least 20x faster than extremitypathfinder's.
2. **build**: ``NavMesh.from_level`` on a 200 x 200 m box with 1,000
   rectangles (seed 3): seconds (target <= 1 s), polygons, vertices, bytes.
3. **city**: a Moving AI street map (``NewYork_0_1024``; ``--map``):
   ``NavMesh.from_grid`` seconds (target <= 2 s), then the scenario file's
   last ``--city-queries`` lines (the longest) on cell centres: the exact
   mesh query against grid JPS (``find_path_cells(..., algorithm="jps")``),
   target mesh median within 3x of JPS; every mesh length must lie between
   the straight line and the scenario's octile optimum (+1e-6).

Timing: ``time.perf_counter`` per call, garbage collector paused; each
query keeps its fastest of ``--rounds`` rounds (slow pure-Python peers: one
round on ``--slow-queries`` pairs spread over the set: pyvisgraph; one round for
a peer whose first query takes over 20 ms), the figure is the
median over queries, and every ratio divides medians over the *same*
queries. ``navkit x`` is peer median / navkit exact median (how many times
faster navkit is); length ratios divide a peer's path length by navkit's
exact length on the same pair (above 1: the peer's path is longer). The
first query of each method is timed on its own (``first ms``: kernel load
or JIT compile).
"""

from __future__ import annotations

import gc
import importlib.util
import math
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import shapely
import typer
from numpy.typing import NDArray

from . import options as opt
from .common import (
    find_scenario,
    fmt,
    fmt_ratio,
    fmt_us,
    make_console,
    resolve_data_dir,
    spread,
    write_json,
)

__all__ = [
    "main",
    "box_level",
    "make_level",
    "sample_pairs",
    "query_case",
    "build_case",
    "city_case",
    "PeerRow",
    "PEERS",
    "TARGET_VS_EXTREMITY",
    "TARGET_BUILD_S",
    "TARGET_CITY_BUILD_S",
    "TARGET_CITY_VS_JPS",
]

#: The exact mesh query's median at least this many times faster than extremitypathfinder's.
TARGET_VS_EXTREMITY = 20.0
#: Case 2: build seconds of the 200 x 200 m, 1,000-obstacle level.
TARGET_BUILD_S = 1.0
#: Case 3: build seconds of the city map's mesh.
TARGET_CITY_BUILD_S = 2.0
#: Case 3: the exact mesh query's median at most this many times JPS's.
TARGET_CITY_VS_JPS = 3.0
#: Peers of case 1, in table order (``--peers``).
PEERS = ("extremitypathfinder", "pyvisgraph", "pynavmesh", "grid")
#: pyvisgraph's build is pure Python, O(n^2 log n): skipped above this many vertices.
PYVISGRAPH_MAX_VERTICES = 3000
CITY_MAP = "NewYork_0_1024"
QUICK_MAP = "arena"
#: (width, depth, obstacles, seed) of the query and build levels, full and --quick.
QUERY_LEVEL = (100.0, 70.0, 150, 1)
BUILD_LEVEL = (200.0, 200.0, 1000, 3)
QUICK_QUERY_LEVEL = (30.0, 20.0, 20, 1)
QUICK_BUILD_LEVEL = (60.0, 60.0, 80, 3)
PAIR_SEED = 2
#: A peer whose first query takes longer (ms) gets one timed round, not ``--rounds``.
SLOW_FIRST_MS = 20.0
#: Relative tolerance of the length comparisons (longer / shorter than exact).
LENGTH_RTOL = 1e-6

Point = tuple[float, float]
Solver = Callable[[Point, Point], float]  # one query -> path length in metres (inf: none)


# ---------------------------------------------------------------------- levels
def box_level(width: float, depth: float, n_obstacles: int, seed: int, *,
              agent_radius: float = 0.0, cell_size: float = 0.4) -> dict[str, Any]:
    """A level dict: a ``width`` x ``depth`` m box, ``n_obstacles`` random rectangles.

    Sides 0.5 to 4 m, turned by a random angle, centres anywhere in the box
    (they may overlap and cut the walls); ``agentRadius = agent_radius``, no
    padding. Deterministic in ``seed``.

    >>> lv = box_level(10, 8, 3, seed=1)
    >>> len(lv["obstacles"]), lv["areas"][0]["polygon"][2]
    (3, [10.0, 8.0])
    """
    rng = np.random.default_rng(seed)
    obstacles = []
    for i in range(int(n_obstacles)):
        cx, cz = rng.uniform(0.0, width), rng.uniform(0.0, depth)
        hw, hd = rng.uniform(0.25, 2.0, 2)
        a = rng.uniform(0.0, math.pi)
        c, s = math.cos(a), math.sin(a)
        corners = [(-hw, -hd), (hw, -hd), (hw, hd), (-hw, hd)]
        ring = [[round(cx + c * x - s * z, 4), round(cz + s * x + c * z, 4)] for x, z in corners]
        obstacles.append({"name": f"o{i}", "polygon": ring})
    return {
        "cellSize": cell_size, "agentRadius": agent_radius, "objectPadding": 0.0,
        "areas": [{"name": "floor", "polygon": [[0.0, 0.0], [float(width), 0.0],
                                                [float(width), float(depth)],
                                                [0.0, float(depth)]]}],
        "obstacles": obstacles,
    }


def make_level(width: float, depth: float, n_obstacles: int, seed: int, *,
               agent_radius: float | None = None, cell_size: float = 0.4) -> tuple[Any, str]:
    """``(LevelConfig, source)``: :func:`navkit.mesh.build.random_level` when it
    exists (``source`` ``"random_level"``), else :func:`box_level` (``"box_level"``).

    ``agent_radius`` (metres, with no object padding) overrides the
    generator's clearance (``None``: random_level's defaults, 0.45 + 0.25 m);
    ``cell_size`` is the grid the level rasterizes to.
    """
    from ..level import LevelConfig, parse_level
    from ..mesh import build

    name = f"box{width:g}x{depth:g}-{int(n_obstacles)}-s{seed}"
    gen = getattr(build, "random_level", None)
    if gen is not None:
        if agent_radius is None:
            lv = gen(width, depth, n_obstacles, seed)
        else:
            lv = gen(width, depth, n_obstacles, seed, agent_radius=agent_radius,
                     object_padding=0.0)
        if isinstance(lv, LevelConfig):
            lv = lv.to_json_dict()
        lv = dict(lv)
        lv["cellSize"] = cell_size
        return parse_level(lv, name=name), "random_level"
    r = 0.45 if agent_radius is None else agent_radius
    return parse_level(box_level(width, depth, n_obstacles, seed, agent_radius=r,
                                 cell_size=cell_size), name=name), "box_level"


def largest_piece(space: Any) -> shapely.Polygon:
    """The largest polygon of a (multi)polygon."""
    parts = [p for p in shapely.get_parts(space) if isinstance(p, shapely.Polygon)]
    return max(parts, key=lambda p: p.area)


def sample_pairs(piece: shapely.Polygon, n: int, seed: int) -> tuple[NDArray[np.float64],
                                                                      NDArray[np.float64]]:
    """``(starts, goals)``, ``(n, 2)`` each: points drawn uniformly inside ``piece``.

    Deterministic in ``seed`` (rejection sampling in the bounding box).

    >>> s, g = sample_pairs(shapely.box(0, 0, 2, 1), 5, 0)
    >>> s.shape, bool(((s >= 0) & (s <= 2)).all())
    ((5, 2), True)
    """
    rng = np.random.default_rng(seed)
    minx, minz, maxx, maxz = piece.bounds
    shapely.prepare(piece)
    got: list[NDArray[np.float64]] = []
    have = 0
    for _ in range(1000):
        if have >= 2 * n:
            break
        pts = np.column_stack([rng.uniform(minx, maxx, 4 * n + 16),
                               rng.uniform(minz, maxz, 4 * n + 16)])
        pts = pts[shapely.contains_xy(piece, pts[:, 0], pts[:, 1])]
        got.append(pts)
        have += len(pts)
    allp = np.concatenate(got)[: 2 * n] if got else np.zeros((0, 2))
    if len(allp) < 2 * n:
        raise ValueError("could not sample points in the free space")
    return np.ascontiguousarray(allp[:n]), np.ascontiguousarray(allp[n:])


def polyline_length(points: Any) -> float:
    """Length of a polyline ``(m, 2)``, metres (0 for fewer than two points).

    >>> polyline_length([[0, 0], [3, 4], [3, 5]])
    6.0
    """
    p = np.asarray(points, dtype=np.float64)
    if len(p) < 2:
        return 0.0
    return float(np.hypot(*np.diff(p[:, :2], axis=0).T).sum())


def vertex_count(geom: Any) -> int:
    """Distinct ring vertices of a (multi)polygon (closing points not counted)."""
    return int(sum(len(r.coords) - 1 for p in shapely.get_parts(geom)
                   for r in (p.exterior, *p.interiors)))


# ----------------------------------------------------------------------- timing
@dataclass
class PeerRow:
    """One method's figures on case 1 (or case 3)."""

    name: str
    status: str = "ok"  # ok | not installed | skipped: ... | error: ...
    prep_s: float | None = None
    first_ms: float | None = None
    queries: int = 0
    found: int = 0
    median_us: float | None = None
    navkit_median_us: float | None = None  # navkit exact, same queries
    navkit_speedup: float | None = None  # peer median / navkit exact median
    time_ratio: float | None = None  # navkit exact median / peer median
    length_ratio_median: float | None = None  # peer length / navkit exact length
    length_ratio_min: float | None = None
    length_ratio_max: float | None = None
    longer: int = 0  # paths longer than navkit's exact by more than LENGTH_RTOL
    shorter: int = 0  # ... shorter (a peer cutting through walls, or navkit not optimal)
    note: str = ""
    indices: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def time_solver(solve: Solver, starts: NDArray[np.float64], goals: NDArray[np.float64],
                idx: Sequence[int], rounds: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(lengths, times_us)`` of ``solve`` on queries ``idx``: each query's
    length from its first call, its fastest of ``rounds`` calls (gc paused)."""
    n = len(idx)
    lengths = np.full(n, np.inf)
    best = np.full(n, np.inf)
    qs = [((float(starts[i, 0]), float(starts[i, 1])), (float(goals[i, 0]), float(goals[i, 1])))
          for i in idx]
    gc_on = gc.isenabled()
    gc.disable()
    try:
        for r in range(max(1, rounds)):
            for k, (s, g) in enumerate(qs):
                t0 = time.perf_counter()
                out = solve(s, g)
                dt = (time.perf_counter() - t0) * 1e6
                if r == 0:
                    lengths[k] = out
                if dt < best[k]:
                    best[k] = dt
    finally:
        if gc_on:
            gc.enable()
    return lengths, best


def fill_row(row: PeerRow, lengths: NDArray[np.float64], times: NDArray[np.float64],
             idx: Sequence[int], exact_len: NDArray[np.float64],
             exact_us: NDArray[np.float64]) -> None:
    """Medians, ratios and length comparisons of ``row`` against navkit exact."""
    ix = np.asarray(idx, dtype=np.int64)
    row.indices = [int(i) for i in ix]
    row.queries = len(ix)
    ok = np.isfinite(lengths)
    row.found = int(ok.sum())
    row.median_us = float(np.median(times)) if len(times) else None
    base = float(np.median(exact_us[ix])) if len(ix) else None
    row.navkit_median_us = base
    if row.median_us and base:
        row.navkit_speedup = row.median_us / base
        row.time_ratio = base / row.median_us
    ref = exact_len[ix]
    both = ok & np.isfinite(ref) & (ref > 0)
    if both.any():
        ratio = lengths[both] / ref[both]
        row.length_ratio_median = float(np.median(ratio))
        row.length_ratio_min = float(ratio.min())
        row.length_ratio_max = float(ratio.max())
        row.longer = int((ratio > 1 + LENGTH_RTOL).sum())
        row.shorter = int((ratio < 1 - LENGTH_RTOL).sum())


def _first_call(solve: Solver, s: NDArray[np.float64], g: NDArray[np.float64]) -> float:
    t0 = time.perf_counter()
    solve((float(s[0]), float(s[1])), (float(g[0]), float(g[1])))
    return (time.perf_counter() - t0) * 1e3


# ------------------------------------------------------------------------ peers
def _rings(piece: shapely.Polygon) -> tuple[NDArray[np.float64], list[NDArray[np.float64]]]:
    """``(boundary, holes)``: boundary counter-clockwise, holes clockwise, no closing point."""
    from shapely.geometry.polygon import orient

    p = orient(piece, 1.0)
    ext = np.asarray(p.exterior.coords, dtype=np.float64)[:-1]
    holes = [np.asarray(r.coords, dtype=np.float64)[:-1] for r in p.interiors]
    return ext, holes


def prepare_extremitypathfinder(piece: shapely.Polygon) -> tuple[Solver, str]:
    """extremitypathfinder's ``PolygonEnvironment`` on ``piece`` (``store``
    builds the reduced visibility graph: the preparation)."""
    from extremitypathfinder import PolygonEnvironment

    ext, holes = _rings(piece)
    env = PolygonEnvironment()
    env.store(ext, holes, validate=False)

    def solve(s: Point, g: Point) -> float:
        _path, length = env.find_shortest_path(s, g, verify=False)
        return math.inf if length is None else float(length)

    return solve, "PolygonEnvironment.store(boundary, holes); find_shortest_path(verify=False)"


def pyvisgraph_obstacles(piece: shapely.Polygon) -> list[NDArray[np.float64]]:
    """pyvisgraph's input for ``piece``, rings ``(k, 2)`` without closing points.

    pyvisgraph knows only hole-free obstacles in an unbounded plane: the holes
    of ``piece``, and a *keyhole* frame for its outer ring, one weakly simple
    polygon (a larger box, a slit from its bottom up to the ring's lowest
    vertex, the ring itself clockwise, the slit back). One polygon, so
    pyvisgraph checks its interior; pieces sharing vertices would let paths
    leak through the frame.
    """
    from shapely.geometry.polygon import orient

    p = orient(piece, 1.0)
    minx, minz, maxx, maxz = p.bounds
    m = max(1.0, 0.05 * max(maxx - minx, maxz - minz))
    x0, z0, x1, z1 = minx - m, minz - m, maxx + m, maxz + m
    ring = np.asarray(p.exterior.coords, dtype=np.float64)[:-1][::-1]  # clockwise
    k = int(np.lexsort((ring[:, 0], ring[:, 1]))[0])  # lowest vertex, then leftmost
    ring = np.roll(ring, -k, axis=0)
    vx = float(ring[0, 0])
    frame = np.vstack([[[vx, z0], [x1, z0], [x1, z1], [x0, z1], [x0, z0], [vx, z0]],
                       ring, ring[:1]])
    holes = [np.asarray(r.coords, dtype=np.float64)[:-1] for r in p.interiors]
    return [frame, *holes]


def prepare_pyvisgraph(piece: shapely.Polygon) -> tuple[Solver, str]:
    """pyvisgraph's ``VisGraph.build`` over :func:`pyvisgraph_obstacles` (one worker)."""
    import pyvisgraph as vg

    obst = pyvisgraph_obstacles(piece)
    nverts = sum(len(o) for o in obst)
    if nverts > PYVISGRAPH_MAX_VERTICES:
        raise _Skip(f"{nverts:,} obstacle vertices > {PYVISGRAPH_MAX_VERTICES:,} "
                    f"(pure-Python O(n^2 log n) build)")
    polys = [[vg.Point(float(x), float(z)) for x, z in o] for o in obst]
    g = vg.VisGraph()
    g.build(polys, workers=1, status=False)

    def solve(s: Point, t: Point) -> float:
        path = g.shortest_path(vg.Point(*s), vg.Point(*t))
        if not path:
            return math.inf
        return polyline_length([(q.x, q.y) for q in path])

    return solve, (f"VisGraph.build({len(obst)} obstacle polygons, {nverts} vertices: holes + "
                   f"a keyhole frame); shortest_path")


def prepare_pynavmesh(mesh: Any) -> tuple[Solver, str]:
    """pynavmesh's ``Navmesh`` on navkit's own polygons (reversed: it wants
    them clockwise seen from above), queries ``search_path`` (A* + funnel)."""
    from pathfinder.navmesh import Navmesh

    arr = mesh.arrays
    verts = [(float(x), 0.0, float(z)) for x, z in arr.vertices]
    ps, pv = arr.poly_start, arr.poly_verts
    polys = [[int(v) for v in pv[ps[i]:ps[i + 1]][::-1]] for i in range(arr.n_polygons)]
    nm = Navmesh(verts, polys)

    def solve(s: Point, g: Point) -> float:
        path = nm.search_path((s[0], 0.0, s[1]), (g[0], 0.0, g[1]))
        if not path:
            return math.inf
        return polyline_length([(p[0], p[2]) for p in path])

    return solve, (f"pathfinder.navmesh.Navmesh(navkit's {arr.n_polygons} polygons, clockwise); "
                   "search_path")


def prepare_grid(cfg: Any) -> tuple[Solver, str]:
    """navkit's grid: ``rasterize(cfg)``, ``Pathfinder(grid, costs="exact").find_path``
    (string-pulled; the length counts start -> waypoints -> goal)."""
    from ..level import rasterize
    from ..query.pathfinder import Pathfinder

    grid = rasterize(cfg)
    pf = Pathfinder(grid, costs="exact")

    def solve(s: Point, g: Point) -> float:
        r = pf.find_path(s, g)
        if not len(r.waypoints):
            return math.inf
        w = r.waypoints
        return polyline_length(np.vstack([np.asarray([s]), w[:, :2], np.asarray([g])]))

    return solve, (f"rasterize (cellSize {cfg.cell_size:g} m: {grid.width}x{grid.depth} cells); "
                   "Pathfinder(costs='exact').find_path (JPS + string pulling)")


class _Skip(Exception):
    """A peer declines this input (the message says why)."""


# ---------------------------------------------------------------------- case 1
def query_case(n_queries: int, rounds: int, slow_queries: int, peers: Sequence[str],
               level: tuple[float, float, int, int] = QUERY_LEVEL,
               status: Callable[[str], None] = lambda s: None,
               agent_radius: float | None = None) -> dict[str, Any]:
    """Case 1 (module docstring): every method on the same pairs; the figures."""
    from ..mesh.navmesh import NavMesh

    w, d, n_obst, seed = level
    cfg, source = make_level(w, d, n_obst, seed, agent_radius=agent_radius)
    status("case 1: building the mesh")
    t0 = time.perf_counter()
    mesh = NavMesh.from_level(cfg)
    build_s = time.perf_counter() - t0
    space = mesh.space
    piece = largest_piece(space)
    starts, goals = sample_pairs(piece, n_queries, PAIR_SEED)
    n = len(starts)
    all_idx = list(range(n))

    def nav(method: str) -> Solver:
        def solve(s: Point, g: Point) -> float:
            r = mesh.find_path(s, g, algorithm=method)
            return float(r.length) if r.has_path else math.inf
        return solve

    rows: list[PeerRow] = []
    status("case 1: navkit exact")
    exact = nav("exact")
    first_exact = _first_call(exact, starts[0], goals[0])
    exact_len, exact_us = time_solver(exact, starts, goals, all_idx, rounds)
    # the straight line is a lower bound of every path: an independent check
    straight = np.hypot(*(goals - starts).T)
    below_straight = int((exact_len < straight * (1 - 1e-9) - 1e-9).sum())
    row = PeerRow("navkit exact", first_ms=first_exact, prep_s=build_s,
                  note="NavMesh.from_level; find_path(algorithm='exact') (Polyanya)")
    fill_row(row, exact_len, exact_us, all_idx, exact_len, exact_us)
    rows.append(row)
    expanded = [mesh.find_path(tuple(starts[i]), tuple(goals[i])).expanded for i in all_idx]

    status("case 1: navkit funnel")
    funnel = nav("funnel")
    row = PeerRow("navkit funnel", first_ms=_first_call(funnel, starts[0], goals[0]),
                  note="find_path(algorithm='funnel') (A* over polygons + funnel)")
    f_len, f_us = time_solver(funnel, starts, goals, all_idx, rounds)
    fill_row(row, f_len, f_us, all_idx, exact_len, exact_us)
    rows.append(row)

    makers: dict[str, tuple[str, str | None, Callable[[], tuple[Solver, str]], bool]] = {
        "extremitypathfinder": ("extremitypathfinder", "extremitypathfinder",
                                lambda: prepare_extremitypathfinder(piece), False),
        "pyvisgraph": ("pyvisgraph", "pyvisgraph", lambda: prepare_pyvisgraph(piece), True),
        "pynavmesh": ("pynavmesh", "pathfinder", lambda: prepare_pynavmesh(mesh), False),
        "grid": ("navkit grid", None, lambda: prepare_grid(cfg), False),
    }
    for key in PEERS:
        label, module, make, slow = makers[key]
        if key not in peers:
            rows.append(PeerRow(label, status="skipped"))
            continue
        if module is not None and not _installed(module):
            rows.append(PeerRow(label, status="not installed"))
            continue
        status(f"case 1: {label}")
        gc.collect()
        try:
            t0 = time.perf_counter()
            solve, note = make()
            prep = time.perf_counter() - t0
            idx = [int(i) for i in spread(n, slow_queries)] if slow else all_idx
            row = PeerRow(label, prep_s=prep, note=note)
            row.first_ms = _first_call(solve, starts[idx[0]], goals[idx[0]])
            slow = slow or row.first_ms > SLOW_FIRST_MS
            lengths, times = time_solver(solve, starts, goals, idx, 1 if slow else rounds)
            fill_row(row, lengths, times, idx, exact_len, exact_us)
        except _Skip as exc:
            row = PeerRow(label, status=f"skipped: {exc}")
        except ImportError as exc:
            row = PeerRow(label, status=f"not installed ({exc})")
        except Exception as exc:  # noqa: BLE001 - a benchmark reports, never crashes
            row = PeerRow(label, status=f"error: {type(exc).__name__}: {exc}")
        rows.append(row)

    epf = next(r for r in rows if r.name == "extremitypathfinder")
    speed = epf.navkit_speedup
    return {
        "level": {"width": w, "depth": d, "obstacles": n_obst, "seed": seed, "source": source,
                  "agent_radius": cfg.agent_radius, "object_padding": cfg.object_padding},
        "mesh": {"build_s": build_s, "polygons": mesh.n_polygons, "vertices": mesh.n_vertices,
                 "bytes": mesh.nbytes()},
        "free_space": {"pieces": len(shapely.get_parts(space)),
                       "vertices": vertex_count(space), "query_piece_vertices": vertex_count(piece),
                       "query_piece_holes": len(piece.interiors), "area_m2": float(space.area)},
        "queries": n,
        "pair_seed": PAIR_SEED,
        "exact_median_length_m": float(np.median(exact_len[np.isfinite(exact_len)]))
        if np.isfinite(exact_len).any() else None,
        "exact_found": int(np.isfinite(exact_len).sum()),
        "exact_below_straight_line": below_straight,
        "exact_median_expanded": float(np.median(expanded)) if expanded else None,
        "rows": [r.to_json() for r in rows],
        "speedup_vs_extremitypathfinder": speed,
        "target_vs_extremitypathfinder": TARGET_VS_EXTREMITY,
        "pass_vs_extremitypathfinder": None if speed is None
        else bool(speed >= TARGET_VS_EXTREMITY),
    }


# ---------------------------------------------------------------------- case 2
def build_case(repeats: int, level: tuple[float, float, int, int] = BUILD_LEVEL,
               agent_radius: float | None = None) -> dict[str, Any]:
    """Case 2: ``NavMesh.from_level`` seconds (first call, then the median and
    best of ``repeats`` more), and the mesh's size."""
    from ..mesh.build import free_space
    from ..mesh.navmesh import NavMesh

    w, d, n_obst, seed = level
    cfg, source = make_level(w, d, n_obst, seed, agent_radius=agent_radius)
    t0 = time.perf_counter()
    mesh = NavMesh.from_level(cfg)
    first_s = time.perf_counter() - t0
    times = []
    for _ in range(max(0, repeats)):
        gc.collect()
        t0 = time.perf_counter()
        mesh = NavMesh.from_level(cfg)
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    space = free_space(cfg)
    space_s = time.perf_counter() - t0
    med = float(np.median(times)) if times else first_s
    return {
        "level": {"width": w, "depth": d, "obstacles": n_obst, "seed": seed, "source": source,
                  "agent_radius": cfg.agent_radius},
        "first_build_s": first_s,
        "build_s_median": med,
        "build_s_best": float(min(times)) if times else first_s,
        "repeats": len(times),
        "free_space_s": space_s,
        "free_space_vertices": vertex_count(space),
        "polygons": mesh.n_polygons,
        "vertices": mesh.n_vertices,
        "bytes": mesh.nbytes(),
        "target_s": TARGET_BUILD_S,
        "pass": bool(med <= TARGET_BUILD_S),
    }


# ---------------------------------------------------------------------- case 3
def resolve_map(option: Path | None, data_dir: Path, quick: bool) -> tuple[Path, Path] | None:
    """``(map, scen)`` for case 3: ``--map PATH`` (its ``.scen`` beside it), else
    :data:`CITY_MAP` (:data:`QUICK_MAP` with ``--quick``) in ``data_dir``."""
    if option is not None:
        mp = Path(option)
        if not mp.is_file():
            return None
        try:
            return mp, find_scenario(mp.parent, mp.name)
        except FileNotFoundError:
            return None
    for name in ((QUICK_MAP,) if quick else (CITY_MAP,)):
        mp = data_dir / f"{name}.map"
        if mp.is_file():
            try:
                return mp, find_scenario(data_dir, name)
            except FileNotFoundError:
                return None
    return None


def city_case(map_path: Path, scen_path: Path, n_queries: int, rounds: int,
              status: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Case 3: the mesh of a Moving AI map against grid JPS on the scenario's
    last (longest) ``n_queries`` lines."""
    from ..formats import load_grid, read_scenarios
    from ..mesh.navmesh import NavMesh
    from ..query.checks import is_optimal
    from ..query.pathfinder import Pathfinder

    grid = load_grid(map_path)
    scen = read_scenarios(scen_path)
    k = min(n_queries, len(scen))
    sel = scen.subset(np.arange(len(scen) - k, len(scen), dtype=np.int64))
    status("case 3: building the mesh")
    gc.collect()
    t0 = time.perf_counter()
    mesh = NavMesh.from_grid(grid)
    first_build = time.perf_counter() - t0
    gc.collect()
    t0 = time.perf_counter()
    mesh = NavMesh.from_grid(grid)
    build_s = time.perf_counter() - t0

    cs = grid.cell_size
    sc = np.asarray(sel.start, dtype=np.int64)
    gcells = np.asarray(sel.goal, dtype=np.int64)
    starts = np.column_stack([grid.min_x + (sc[:, 0] + 0.5) * cs,
                              grid.min_z + (sc[:, 1] + 0.5) * cs]).astype(np.float64)
    goals = np.column_stack([grid.min_x + (gcells[:, 0] + 0.5) * cs,
                             grid.min_z + (gcells[:, 1] + 0.5) * cs]).astype(np.float64)
    optimal = np.asarray(sel.optimal, dtype=np.float64) * cs
    idx = list(range(k))

    def nav(method: str) -> Solver:
        def solve(s: Point, g: Point) -> float:
            r = mesh.find_path(s, g, algorithm=method)
            return float(r.length) if r.has_path else math.inf
        return solve

    status("case 3: navkit exact")
    exact = nav("exact")
    first_exact = _first_call(exact, starts[0], goals[0])
    ex_len, ex_us = time_solver(exact, starts, goals, idx, rounds)
    funnel = nav("funnel")
    first_funnel = _first_call(funnel, starts[0], goals[0])
    fu_len, fu_us = time_solver(funnel, starts, goals, idx, rounds)

    status("case 3: grid JPS")
    pf = Pathfinder(grid, costs="exact")
    cell_q = [((int(a[0]), int(a[1])), (int(b[0]), int(b[1]))) for a, b in zip(sc, gcells,
                                                                               strict=True)]
    t0 = time.perf_counter()
    pf.find_path_cells(*cell_q[0], algorithm="jps")
    first_jps = (time.perf_counter() - t0) * 1e3
    jps_us = np.full(k, np.inf)
    jps_cost = np.full(k, np.inf)
    gc_on = gc.isenabled()
    gc.disable()
    try:
        for r in range(max(1, rounds)):
            for i, (s, g) in enumerate(cell_q):
                t0 = time.perf_counter()
                res = pf.find_path_cells(s, g, algorithm="jps")
                dt = (time.perf_counter() - t0) * 1e6
                if r == 0:
                    jps_cost[i] = res.cost
                jps_us[i] = min(jps_us[i], dt)
    finally:
        if gc_on:
            gc.enable()

    straight = np.hypot(*(goals - starts).T)
    found = np.isfinite(ex_len)
    over_opt = int((found & (ex_len > optimal + 1e-6)).sum())
    below_line = int((found & (ex_len < straight - 1e-6)).sum())
    jps_opt = int(sum(is_optimal(float(c), float(o) / cs) for c, o in zip(jps_cost, optimal,
                                                                           strict=True)))
    med_exact = float(np.median(ex_us))
    med_jps = float(np.median(jps_us))
    ratio = med_exact / med_jps if med_jps > 0 else None
    fu_ratio = fu_len[found] / ex_len[found] if found.any() else np.zeros(0)
    return {
        "map": map_path.stem,
        "map_path": str(map_path),
        "scenario": str(scen_path),
        "size": [grid.width, grid.depth],
        "walkable_cells": int(grid.walkable.sum()),
        "first_build_s": first_build,
        "build_s": build_s,
        "polygons": mesh.n_polygons,
        "vertices": mesh.n_vertices,
        "bytes": mesh.nbytes(),
        "queries": k,
        "query_lines": [int(v) for v in sel.lines],
        "optimal_median": float(np.median(optimal)) if k else None,
        "first_query_ms": {"exact": first_exact, "funnel": first_funnel, "jps": first_jps},
        "median_us": {"exact": med_exact, "funnel": float(np.median(fu_us)), "jps": med_jps},
        "exact_over_jps": ratio,
        "funnel_over_jps": float(np.median(fu_us)) / med_jps if med_jps > 0 else None,
        "exact_found": int(found.sum()),
        "exact_over_octile_optimum": over_opt,
        "exact_below_straight_line": below_line,
        "exact_to_octile_median": float(np.median(ex_len[found] / optimal[found]))
        if found.any() else None,
        "funnel_to_exact_median": float(np.median(fu_ratio)) if len(fu_ratio) else None,
        "funnel_to_exact_max": float(fu_ratio.max()) if len(fu_ratio) else None,
        "jps_optimal": jps_opt,
        "exact_median_expanded": float(np.median(
            [mesh.find_path(tuple(starts[i]), tuple(goals[i])).expanded for i in idx]))
        if k else None,
        "target_build_s": TARGET_CITY_BUILD_S,
        "target_vs_jps": TARGET_CITY_VS_JPS,
        "pass_build": bool(build_s <= TARGET_CITY_BUILD_S),
        "pass_vs_jps": None if ratio is None else bool(ratio <= TARGET_CITY_VS_JPS),
        "lengths_ok": bool(over_opt == 0 and below_line == 0 and int(found.sum()) == k),
    }


# ------------------------------------------------------------------------ output
def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("[green]PASS[/]" if ok else "[red]MISS[/]")


def query_table(res: dict[str, Any]) -> Any:
    """The rich table of case 1."""
    from rich.table import Table

    lv = res["level"]
    fs = res["free_space"]
    t = Table(title=(f"case 1: {lv['width']:g} x {lv['depth']:g} m, {lv['obstacles']} obstacles "
                     f"({lv['source']}, agentRadius {lv['agent_radius']:g}): {res['queries']} "
                     f"pairs; mesh {res['mesh']['polygons']:,} polygons, free space "
                     f"{fs['query_piece_vertices']:,} vertices, {fs['query_piece_holes']} holes"),
              caption=("navkit x: peer median / navkit exact median on the same pairs; "
                       "length: peer / exact (median, min..max); longer/shorter: beyond "
                       f"{LENGTH_RTOL:g} relative"))
    for col, just in (("method", "left"), ("prep s", "right"), ("first ms", "right"),
                      ("n", "right"), ("found", "right"), ("median us", "right"),
                      ("navkit x", "right"), ("length", "right"), ("min..max", "right"),
                      ("longer", "right"), ("shorter", "right")):
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    for r in res["rows"]:
        if r["status"] != "ok":
            t.add_row(r["name"], "-", "-", "-", "-", r["status"], "-", "-", "-", "-", "-",
                      style="dim")
            continue
        t.add_row(r["name"], fmt(r["prep_s"], ".3f"), fmt(r["first_ms"], ".1f"),
                  str(r["queries"]), str(r["found"]), fmt_us(r["median_us"]),
                  fmt_ratio(r["navkit_speedup"]), fmt(r["length_ratio_median"], ".5f"),
                  f"{fmt(r['length_ratio_min'], '.4f')}..{fmt(r['length_ratio_max'], '.4f')}",
                  str(r["longer"]), str(r["shorter"]))
    return t


def print_report(console: Any, cases: dict[str, Any]) -> None:
    """Every case's table and verdict."""
    q = cases.get("queries")
    if q is not None:
        console.print(query_table(q))
        for r in q["rows"]:
            if r["status"] == "ok" and r["note"]:
                console.print(f"  [bold]{r['name']}[/]: {r['note']}")
        console.print(f"exact: {q['exact_found']}/{q['queries']} found, median length "
                      f"{fmt(q['exact_median_length_m'], '.2f')} m, median expanded "
                      f"{fmt(q['exact_median_expanded'], '.0f')}, "
                      f"{q['exact_below_straight_line']} below the straight line")
        console.print(f"target: exact >= {TARGET_VS_EXTREMITY:g}x faster than "
                      f"extremitypathfinder: {fmt_ratio(q['speedup_vs_extremitypathfinder'])} "
                      f"{_verdict(q['pass_vs_extremitypathfinder'])}")
    b = cases.get("build")
    if b is not None:
        lv = b["level"]
        console.print(
            f"\n[bold]case 2[/]: build {lv['width']:g} x {lv['depth']:g} m, {lv['obstacles']:,} "
            f"obstacles ({lv['source']}): first {b['first_build_s']:.3f} s, median "
            f"{b['build_s_median']:.3f} s, best {b['build_s_best']:.3f} s of {b['repeats']} "
            f"(free space alone {b['free_space_s']:.3f} s, {b['free_space_vertices']:,} vertices)"
            f"; {b['polygons']:,} polygons, {b['vertices']:,} vertices, {b['bytes']:,} bytes; "
            f"target <= {TARGET_BUILD_S:g} s {_verdict(b['pass'])}")
    c = cases.get("city")
    if c is not None:
        if "error" in c:
            console.print(f"\n[bold]case 3[/]: {c['error']}")
            return
        m = c["median_us"]
        f = c["first_query_ms"]
        console.print(
            f"\n[bold]case 3[/]: {c['map']} ({c['size'][0]}x{c['size'][1]}): from_grid first "
            f"{c['first_build_s']:.3f} s, again {c['build_s']:.3f} s; {c['polygons']:,} polygons,"
            f" {c['vertices']:,} vertices, {c['bytes']:,} bytes; target <= "
            f"{TARGET_CITY_BUILD_S:g} s {_verdict(c['pass_build'])}")
        console.print(
            f"  {c['queries']} longest scenario queries (median optimum "
            f"{fmt(c['optimal_median'], '.1f')}): exact {fmt_us(m['exact'])} us, funnel "
            f"{fmt_us(m['funnel'])} us, grid JPS {fmt_us(m['jps'])} us; exact / JPS "
            f"{fmt_ratio(c['exact_over_jps'])} (target <= {TARGET_CITY_VS_JPS:g}x "
            f"{_verdict(c['pass_vs_jps'])}); first query ms: exact {f['exact']:.1f}, funnel "
            f"{f['funnel']:.1f}, JPS {f['jps']:.1f}")
        console.print(
            f"  lengths: exact found {c['exact_found']}/{c['queries']}, "
            f"{c['exact_over_octile_optimum']} over the octile optimum, "
            f"{c['exact_below_straight_line']} below the straight line "
            f"{_verdict(c['lengths_ok'])}; exact / octile median "
            f"{fmt(c['exact_to_octile_median'], '.4f')}; funnel / exact median "
            f"{fmt(c['funnel_to_exact_median'], '.5f')}, max "
            f"{fmt(c['funnel_to_exact_max'], '.4f')}; JPS optimal {c['jps_optimal']}/"
            f"{c['queries']}; exact median expanded {fmt(c['exact_median_expanded'], '.0f')}")


# -------------------------------------------------------------------------- main

def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    quick = bool(args.quick)
    nq = args.queries if args.queries is not None else (20 if quick else 200)
    ncity = args.city_queries if args.city_queries is not None else (20 if quick else 200)
    nslow = args.slow_queries if args.slow_queries is not None else (5 if quick else 50)
    if args.agent_radius is not None and not (math.isfinite(args.agent_radius)
                                              and args.agent_radius >= 0):
        print("error: --agent-radius must be a finite number >= 0", file=sys.stderr)
        return 2
    if min(nq, ncity, nslow, args.rounds) < 1 or args.build_repeats < 0:
        print("error: --queries, --city-queries, --slow-queries and --rounds must be at least 1, "
              "--build-repeats at least 0", file=sys.stderr)
        return 2
    peers = [s.strip() for s in args.peers.split(",") if s.strip()]
    bad = sorted(set(peers) - set(PEERS))
    cases_wanted = [s.strip() for s in args.cases.split(",") if s.strip()]
    bad_cases = sorted(set(cases_wanted) - {"queries", "build", "city"})
    if bad or bad_cases:
        print(f"error: unknown {'peers ' + ', '.join(bad) if bad else ''}"
              f"{'; ' if bad and bad_cases else ''}"
              f"{'cases ' + ', '.join(bad_cases) if bad_cases else ''} "
              f"(peers: {', '.join(PEERS)}; cases: queries, build, city)", file=sys.stderr)
        return 2
    maps = None
    if "city" in cases_wanted:
        maps = resolve_map(args.map, resolve_data_dir(args.data), quick)
        if maps is None and args.map is not None:
            print(f"error: --map {args.map}: no such .map file with a .scen beside it",
                  file=sys.stderr)
            return 2

    console = make_console(160)
    t_start = time.perf_counter()
    cases: dict[str, Any] = {}

    def status(msg: str) -> None:
        console.print(f"[dim]{msg} ({time.perf_counter() - t_start:.1f} s)[/]")

    if "queries" in cases_wanted:
        cases["queries"] = query_case(nq, args.rounds, nslow, peers,
                                      QUICK_QUERY_LEVEL if quick else QUERY_LEVEL, status,
                                      args.agent_radius)
    if "build" in cases_wanted:
        status("case 2: build")
        cases["build"] = build_case(args.build_repeats, QUICK_BUILD_LEVEL if quick
                                    else BUILD_LEVEL, args.agent_radius)
    if "city" in cases_wanted:
        if maps is None:
            cases["city"] = {"error": f"skipped: {QUICK_MAP if quick else CITY_MAP}.map and its "
                                      f".scen not found in {resolve_data_dir(args.data)} "
                                      "(pass --data DIR or --map PATH)"}
        else:
            cases["city"] = city_case(maps[0], maps[1], ncity, args.rounds, status)
    console.print()
    print_report(console, cases)
    console.print(f"(benchmark {time.perf_counter() - t_start:.1f} s)")

    if args.json is not None:
        import numba

        payload = {
            "benchmark": "mesh",
            "python": platform.python_version(),
            "platform": platform.platform(),
            "numba_version": numba.__version__,
            "numpy_version": np.__version__,
            "shapely_version": shapely.__version__,
            "peer_versions": _peer_versions(),
            "config": {"quick": quick, "queries": nq, "city_queries": ncity,
                       "slow_queries": nslow, "rounds": args.rounds,
                       "build_repeats": args.build_repeats, "peers": peers,
                       "agent_radius": args.agent_radius,
                       "cases": cases_wanted,
                       "timing": "perf_counter per call, gc off, fastest of the rounds per "
                                 "query, median over queries; ratios on the same queries"},
            "targets": {"vs_extremitypathfinder": TARGET_VS_EXTREMITY,
                        "build_s": TARGET_BUILD_S, "city_build_s": TARGET_CITY_BUILD_S,
                        "city_vs_jps": TARGET_CITY_VS_JPS},
            "cases": cases,
        }
        write_json(args.json, payload, console)
    return 0


def _peer_versions() -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {}
    for dist in ("extremitypathfinder", "pyvisgraph", "pynavmesh"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


#: ``navkit bench mesh``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("mesh", cls=opt.BenchCommand,
             help=__doc__.split("\n")[0] if __doc__ else None)
def cli(
    data: Annotated[Path | None, opt.data()] = None,
    quick: Annotated[
        bool,
        opt.quick("Small sizes for a CI smoke run (30 x 20 m level, "
            "20 pairs, the arena map)."),
    ] = False,
    queries: Annotated[
        int | None,
        typer.Option('--queries',
                     help="Case 1 query pairs (default 200; --quick 20)."),
    ] = None,
    city_queries: Annotated[
        int | None,
        typer.Option('--city-queries',
                     help="Case 3 scenario queries, the last lines (default "
                          "200; --quick 20)."),
    ] = None,
    slow_queries: Annotated[
        int | None,
        typer.Option('--slow-queries',
                     help="Pairs for the slow pure-Python peer pyvisgraph, "
                          "spread over the set, one round (default 50; --quick "
                          "5)."),
    ] = None,
    rounds: Annotated[
        int,
        typer.Option('--rounds',
                     help="Timed rounds; each query keeps its fastest (default "
                          "3)."),
    ] = 3,
    build_repeats: Annotated[
        int,
        typer.Option('--build-repeats',
                     help="Case 2 builds after the first (default 3)."),
    ] = 3,
    agent_radius: Annotated[
        float | None,
        typer.Option('--agent-radius', metavar='M',
                     help="Clearance of the generated levels, metres, without "
                          "object padding (default: random_level's 0.45 m + "
                          "0.25 m padding; 0 keeps the rectangles sharp, which "
                          "the pure-Python pyvisgraph needs)."),
    ] = None,
    map: Annotated[
        Path | None,
        typer.Option('--map', metavar='PATH',
                     help="Case 3 Moving AI .map (its .scen beside it; default "
                          f"{CITY_MAP} in the data folder)."),
    ] = None,
    peers: Annotated[
        str,
        typer.Option('--peers',
                     help=f"Comma-separated case 1 peers (default {','.join(PEERS)}; "
                          "'' for none)."),
    ] = ",".join(PEERS),
    cases: Annotated[
        str,
        typer.Option('--cases',
                     help="Comma-separated cases to run (default queries,build,city)."),
    ] = "queries,build,city",
    json: Annotated[Path | None, opt.json_file("Also write the results here.", 'OUT')] = None,
) -> None:
    """``navkit bench mesh`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the mesh benchmark with command-line ``argv``; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench mesh")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

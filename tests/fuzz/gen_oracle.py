"""Answers checked against references navkit did not produce (tests/reference.py).

Small random grids (1..14 cells a side, random density, terrain weights or
none), a random cost model and connectivity. Costs must equal scipy's Dijkstra
on the same 8- (or 4-) connected graph with the corner rule and the entered
cell's weight (docs/rules.md §3); paths are re-walked step by step and
re-costed; the queue order, budgets and windows must match the textbook A* of
§3.4; nearest-reachable answers §6.2; snapping §4.1; line of sight §5.2;
distance and flow fields the multi-source Dijkstra (away from / toward the
sources); batches, NavMap's cache, HPA* updates and flow-field updates must
equal the single queries, the uncached answers and fresh builds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.sparse.csgraph import dijkstra

from tests.reference import (
    brute_line_of_sight,
    brute_snap,
    dijkstra_costs,
    grid_graph,
    is_valid_path,
    path_cost,
    reachable_nearest,
    reference_astar,
)

from .core import Case, Context, Gen, check

#: docs/rules.md §3.8: E, S, W, N, SE, SW, NW, NE (z grows "south").
FLOW_OFFSETS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
FLOW_GOAL, FLOW_NONE = 8, -1


class World:
    """One random grid and cost model, with the references' view of it."""

    def __init__(self, g: Gen, *, weighted: bool | None = None, max_side: int = 14):
        self.depth, self.width = g.randint(1, max_side), g.randint(1, max_side)
        self.walk = g.np.random((self.depth, self.width)) < g.choice(
            [0.45, 0.6, 0.75, 0.85, 0.95, 1.0])
        if weighted is None:
            weighted = g.chance(0.4)
        self.weights: np.ndarray | None = None
        if weighted:
            hi = g.choice([2, 4, 10, 10, 65536])
            self.weights = g.np.integers(1, hi, self.walk.shape).astype(np.int64)
            if np.all(self.weights == 1):
                self.weights = None
        name = g.choice(["seed", "exact", "pair", "pair"])
        if name == "seed":
            self.costs: Any = "seed"
            self.card, self.diag = 10, 14
        elif name == "exact":
            self.costs, self.card, self.diag = "exact", 1_000_000, 1_414_214
        else:
            self.card = g.randint(1, 40)
            self.diag = g.randint(self.card, 2 * self.card)
            self.costs = (self.card, self.diag)
        self.conn = g.choice([8, 8, 4])
        self.eight = self.conn == 8
        self.cs = g.choice([1.0, 1.0, 0.5, 0.4, 0.25])
        self.min_x = g.choice([0.0, 0.0, -3.7, 12.25])
        self.min_z = g.choice([0.0, 0.0, 5.5, -0.1])
        walk_w = self.weights[self.walk] if self.weights is not None else np.ones(1, np.int64)
        self.wmin = int(walk_w.min()) if self.weights is not None and self.walk.any() else 1

    def describe(self) -> str:
        w = "" if self.weights is None else f" weights<={int(self.weights.max())}"
        return (f"{self.width}x{self.depth} density {self.walk.mean():.2f}{w} costs "
                f"{self.card}/{self.diag} {self.conn}-conn cs {self.cs:g}")

    def grid(self) -> Any:
        from navkit import NavGrid

        return NavGrid(self.walk, weights=self.weights, cell_size=self.cs, min_x=self.min_x,
                       min_z=self.min_z)

    def pathfinder(self, **kw: Any) -> Any:
        from navkit import Pathfinder

        return Pathfinder(self.grid(), self.costs, connectivity=self.conn, **kw)

    def cell(self, g: Gen, walkable: bool | None = None) -> tuple[int, int]:
        if walkable is not None:
            zz, xx = np.nonzero(self.walk == walkable)
            if len(zz):
                i = g.randint(0, len(zz) - 1)
                return (int(xx[i]), int(zz[i]))
        return (g.randint(0, self.width - 1), g.randint(0, self.depth - 1))

    def dist_from(self, cell: tuple[int, int], free: np.ndarray | None = None) -> np.ndarray:
        free = self.walk if free is None else free
        return dijkstra_costs(free, self.weights, cell, self.card, self.diag, self.eight)

    def centre(self, cell: tuple[int, int]) -> tuple[float, float]:
        return (self.min_x + (cell[0] + 0.5) * self.cs, self.min_z + (cell[1] + 0.5) * self.cs)

    def point_in(self, g: Gen, cell: tuple[int, int]) -> tuple[float, float]:
        return (self.min_x + (cell[0] + g.uniform(0.01, 0.99)) * self.cs,
                self.min_z + (cell[1] + g.uniform(0.01, 0.99)) * self.cs)

    def circles(self, g: Gen, k: int) -> np.ndarray:
        rows = []
        for _ in range(k):
            x, z = self.point_in(g, self.cell(g))
            rows.append([x, z, g.choice([0.0, 0.3, 0.7, 1.2, 2.0]) * self.cs])
        return np.array(rows, dtype=np.float64).reshape(k, 3)

    def stamped(self, circles: np.ndarray) -> np.ndarray:
        """Cells whose centre lies in a closed disc (docs/rules.md §7.1)."""
        xs = self.min_x + (np.arange(self.width) + 0.5) * self.cs
        zs = self.min_z + (np.arange(self.depth) + 0.5) * self.cs
        out = np.zeros(self.walk.shape, bool)
        for x, z, r in circles:
            out |= ((xs[None, :] - x) ** 2 + (zs[:, None] - z) ** 2) <= r * r
        return out

    def cost_of(self, cells: np.ndarray) -> int:
        return path_cost(cells, self.weights, self.card, self.diag)


def _path(res: Any, w: World, free: np.ndarray, start: tuple[int, int],
          end: tuple[int, int], want_cost: float, what: str, where: str) -> None:
    """A path answer against the reference: ``what`` names the check (the signature),
    ``where`` the query (the detail)."""
    cells = np.asarray(res.cells)
    check(len(cells) > 0, f"{what}: no path where the reference has one", where)
    check(is_valid_path(free, cells, w.eight), f"{what}: path makes an illegal step",
          lambda: f"{where}: {cells.tolist()!r:.300}")
    check(tuple(cells[0]) == start, f"{what}: path does not start at the start", where)
    check(tuple(cells[-1]) == end, f"{what}: path does not end where it should",
          f"{where}: {tuple(cells[-1])} != {end}")
    check(w.cost_of(cells) == res.cost_int, f"{what}: cost_int is not the path's cost", where)
    check(res.cost_int == want_cost, f"{what}: cost differs from scipy's Dijkstra",
          f"{where}: {res.cost_int} != {want_cost}")


def _algorithms(w: World, pf: Any) -> list[str]:
    out = ["astar", "dijkstra", "auto"]
    if pf.engine.jps.usable:
        out.append("jps")
    return out


# ------------------------------------------------------------------ generators
def gen_search(g: Gen) -> Case:
    w = World(g)
    pairs = [(w.cell(g, True if g.chance(0.9) else None),
              w.cell(g, True if g.chance(0.9) else None)) for _ in range(g.randint(1, 6))]
    nearest = g.chance(0.4)

    def run(ctx: Context) -> None:
        from navkit import Status

        pf = w.pathfinder()
        for s, e in pairs:
            dist = w.dist_from(s)
            for algo in _algorithms(w, pf):
                what = f"find_path_cells({algo}{', nearest' if nearest else ''})"
                where = f"{s}->{e}"
                ctx.at(f"Pathfinder.find_path_cells({algo}{', nearest' if nearest else ''})")
                res = pf.find_path_cells(s, e, algorithm=algo, nearest=nearest)
                if not w.walk[s[1], s[0]]:
                    check(res.status == Status.NO_START, f"{what}: blocked start not NO_START",
                          f"{where}: {res.status.name}")
                    continue
                reach = math.isfinite(dist[e[1], e[0]])
                if reach:
                    check(res.status == Status.FOUND, f"{what}: reachable goal not FOUND",
                          f"{where}: {res.status.name}")
                    _path(res, w, w.walk, s, e, dist[e[1], e[0]], what, where)
                elif not nearest:
                    want = Status.NO_GOAL if not w.walk[e[1], e[0]] else Status.UNREACHABLE
                    check(res.status == want, f"{what}: wrong status for an unreachable goal",
                          f"{where}: {res.status.name} != {want.name}")
                    check(len(res.cells) == 0, f"{what}: a path to an unreachable goal", where)
                else:
                    best = reachable_nearest(dist, e)
                    if best == s:
                        check(len(res.cells) == 0, f"{what}: path though the start is nearest",
                              where)
                    else:
                        check(res.status == Status.NEAREST, f"{what}: status not NEAREST",
                              f"{where}: {res.status.name}")
                        _path(res, w, w.walk, s, best, dist[best[1], best[0]], what, where)

    return Case("oracle", "Pathfinder.find_path_cells",
                f"{w.describe()} pairs {pairs} nearest={nearest}", run)


def gen_order(g: Gen) -> Case:
    """Expansion order, budgets and windows against the heapq A* of docs/rules.md §3.4."""
    w = World(g)
    s, e = w.cell(g, True), w.cell(g, True)
    budget = g.choice([None, 1, 2, 3, 5, 10, 40]) if g.chance(0.6) else None
    window = None
    if g.chance(0.5):
        x0, x1 = sorted((g.randint(-2, w.width), g.randint(-2, w.width + 1)))
        z0, z1 = sorted((g.randint(-2, w.depth), g.randint(-2, w.depth + 1)))
        window = (x0, z0, x1, z1)
    algos = ["astar"] if window is not None else ["astar", "dijkstra"]

    def run(ctx: Context) -> None:
        if not (w.walk[s[1], s[0]] and w.walk[e[1], e[0]]):
            return
        pf = w.pathfinder()
        for algo in algos:
            hmul = w.wmin if algo == "astar" else 0
            ref = reference_astar(w.walk, w.weights, s, e, w.card, w.diag, w.eight, hmul,
                                  budget, window)
            ctx.at(f"Pathfinder.find_path_cells({algo}, budget, window)")
            res = pf.find_path_cells(s, e, algorithm=algo, budget=budget, window=window)
            got = (res.status.name, res.expanded, res.generated)
            want = (ref["status"], ref["expanded"], ref["generated"])
            check(got == want, "status/expanded/generated differ from the reference A*",
                  f"{algo} {s}->{e} budget={budget} window={window}: {got} != {want}")
            if ref["status"] == "FOUND":
                check(res.cost_int == ref["cost"], "windowed cost differs from the reference")
                if window is None:
                    check(is_valid_path(w.walk, res.cells, w.eight),
                          "path makes an illegal step")

    return Case("oracle", "Pathfinder.find_path_cells(budget, window)",
                f"{w.describe()} {s}->{e} budget={budget} window={window}", run)


def gen_distance(g: Gen) -> Case:
    w = World(g)
    sources = [w.cell(g, True) for _ in range(g.randint(1, 4))]
    k = g.choice([0, 0, 1, 3])
    circles = w.circles(g, k)

    def run(ctx: Context) -> None:
        free = w.walk & ~w.stamped(circles)
        srcs = [c for c in sources if free[c[1], c[0]]]
        if not srcs:
            return
        pf = w.pathfinder()
        ctx.at("Pathfinder.distance_field")
        got = pf.distance_field(srcs, obstacles=circles if k else None)
        want = dijkstra_costs(free, w.weights, srcs, w.card, w.diag, w.eight) / w.card
        check(np.array_equal(np.isinf(got), np.isinf(want)),
              "distance field reaches other cells than scipy's Dijkstra")
        fin = np.isfinite(want)
        check(np.allclose(got[fin], want[fin], rtol=0, atol=1e-9),
              "distance field differs from scipy's Dijkstra",
              f"max error {np.max(np.abs(got[fin] - want[fin])) if fin.any() else 0}")

    return Case("oracle", "Pathfinder.distance_field",
                f"{w.describe()} sources {sources} circles {k}", run)


def gen_batch(g: Gen) -> Case:
    w = World(g)
    n = g.randint(1, 12)
    starts = np.array([w.cell(g) for _ in range(n)], dtype=np.int64)
    goals = np.array([w.cell(g) for _ in range(n)], dtype=np.int64)
    budget = g.choice([None, None, 1, 5])
    threads = g.choice([None, 1, 2])

    def run(ctx: Context) -> None:
        pf = w.pathfinder()
        for algo in _algorithms(w, pf):
            ctx.at(f"Pathfinder.find_paths_batch({algo})")
            b = pf.find_paths_batch(starts, goals, return_paths=True, algorithm=algo,
                                    budget=budget, threads=threads)
            for i in range(n):
                ctx.at(f"Pathfinder.find_path_cells({algo}) for the batch")
                r = pf.find_path_cells(tuple(starts[i]), tuple(goals[i]), algorithm=algo,
                                       budget=budget)
                got = (int(b.status[i]), int(b.cost_int[i]), int(b.expanded[i]),
                       int(b.generated[i]))
                want = (int(r.status), r.cost_int, r.expanded, r.generated)
                check(got == want, "batch row differs from the single query",
                      f"{algo} row {i}: {got} != {want}")
                check(np.array_equal(b.path(i), r.cells), "batch path differs from the "
                      "single query's", f"{algo} row {i}")

    return Case("oracle", "Pathfinder.find_paths_batch",
                f"{w.describe()} n={n} budget={budget} threads={threads}", run)


def gen_world(g: Gen) -> Case:
    """Snapping (§4.1) and world paths around obstacle circles, A* and JPS."""
    w = World(g)
    snap_radius = g.choice([8.0, 0.0, 1.0, 2.5, 100.0])
    k = g.choice([0, 1, 2, 4])
    circles = w.circles(g, k)
    queries = []
    for _ in range(g.randint(1, 4)):
        cells = [w.cell(g) if g.chance(0.8) else (g.randint(-4, w.width + 3),
                                                   g.randint(-4, w.depth + 3)) for _ in range(2)]
        queries.append(tuple(w.point_in(g, c) for c in cells))
    algo = g.choice(["astar", "auto"])
    smooth = g.chance(0.4)

    def run(ctx: Context) -> None:
        from navkit import Status

        pf = w.pathfinder(snap_radius=snap_radius)
        free = w.walk & ~w.stamped(circles)
        radius = math.floor(snap_radius / w.cs + 1e-9)
        obs = circles if k else None
        grid = pf.grid
        for sp, ep in queries:
            own_s, own_e = grid.world_to_cell(*sp), grid.world_to_cell(*ep)
            want_s = brute_snap(free, own_s, radius)
            want_e = brute_snap(free, own_e, radius)
            ctx.at("Pathfinder.snap")
            got = pf.snap(sp, obstacles=obs)
            check(got == want_s, "snap differs from brute force (§4.1)",
                  f"{sp} cell {own_s} R={radius}: {got} != {want_s}")
            ctx.at(f"Pathfinder.find_path({algo})")
            res = pf.find_path(sp, ep, smooth=smooth, algorithm=algo, obstacles=obs)
            what = f"find_path({algo})"
            where = f"{sp}->{ep}"
            if want_s is None:
                check(res.status == Status.NO_START, f"{what}: no start cell but not NO_START",
                      f"{where}: {res.status.name}")
                continue
            if want_e is None:
                check(res.status == Status.NO_GOAL, f"{what}: no end cell but not NO_GOAL",
                      f"{where}: {res.status.name}")
                continue
            dist = w.dist_from(want_s, free)
            d = dist[want_e[1], want_e[0]]
            if not math.isfinite(d):
                check(res.status == Status.UNREACHABLE, f"{what}: unreachable but not "
                      "UNREACHABLE", f"{where}: {res.status.name}")
                continue
            check(res.status == Status.FOUND, f"{what}: reachable but not FOUND",
                  f"{where}: {res.status.name}")
            _path(res, w, free, want_s, want_e, d, what, where)
            wp = np.asarray(res.waypoints)
            if own_e == want_e:
                check(tuple(wp[-1]) == tuple(ep), f"{what}: last waypoint is not the end "
                      "point (§4.3)", f"{where}: {tuple(wp[-1])}")
            else:
                check(np.allclose(wp[-1], w.centre(want_e), rtol=0, atol=1e-9),
                      f"{what}: snapped end's waypoint is not the cell centre (§4.3)", where)

    return Case("oracle", "Pathfinder.find_path / snap",
                f"{w.describe()} snap {snap_radius} circles {k} queries {len(queries)} {algo} "
                f"smooth={smooth}", run)


def gen_navmap_cache(g: Gen) -> Case:
    w = World(g)
    k = g.choice([0, 1, 3])
    seq = []
    for _ in range(g.randint(2, 8)):
        sp = w.point_in(g, w.cell(g))
        ep = w.point_in(g, w.cell(g)) if g.chance(0.9) else (w.min_x - 7.0 * w.cs, w.min_z)
        seq.append((sp, ep, g.chance(0.5), g.chance(0.3), g.chance(0.5)))
    circles = w.circles(g, k)

    def run(ctx: Context) -> None:
        from navkit import NavMap

        cached = NavMap(w.grid(), costs=w.costs, connectivity=w.conn)
        plain = NavMap(w.grid(), costs=w.costs, connectivity=w.conn, cache_size=0)
        for sp, ep, nearest, use_obs, smooth in seq * 2:
            obs = circles if (use_obs and k) else None
            name = "find_path_to_nearest" if nearest else "find_path"
            ctx.at(f"NavMap.{name} (cached)")
            a = getattr(cached, name)(sp, ep, obstacles=obs, smooth=smooth)
            ctx.at(f"NavMap.{name} (cache_size=0)")
            b = getattr(plain, name)(sp, ep, obstacles=obs, smooth=smooth)
            check(a.status == b.status and a.cost_int == b.cost_int
                  and np.array_equal(a.waypoints, b.waypoints) and np.array_equal(a.cells, b.cells),
                  "NavMap answer with the cache differs from the uncached one (§12.6)",
                  f"{name}({sp}, {ep}) {a!r} vs {b!r}")

    return Case("oracle", "NavMap cache", f"{w.describe()} {len(seq)} queries circles {k}", run)


def gen_los(g: Gen) -> Case:
    w = World(g, weighted=False)
    pairs = [(w.cell(g), w.cell(g)) for _ in range(g.randint(1, 10))]

    def run(ctx: Context) -> None:
        pf = w.pathfinder()
        for a, b in pairs:
            ctx.at("Pathfinder.line_of_sight")
            got = pf.line_of_sight(a, b)
            want = brute_line_of_sight(w.walk, a, b)
            check(got == want, "line of sight differs from exact geometry (§5.2)",
                  f"{a}->{b}: {got} != {want}")

    return Case("oracle", "Pathfinder.line_of_sight", f"{w.describe()} pairs {pairs}", run)


def gen_hpa(g: Gen) -> Case:
    w = World(g, max_side=24)
    cluster = g.choice([2, 3, 4, 5, 8, 16])
    gap = g.choice([None, 1, 2, 16])
    pairs = [(w.cell(g), w.cell(g)) for _ in range(g.randint(1, 6))]
    update = g.chance(0.4)

    def run(ctx: Context) -> None:
        from navkit import HPAStar, NavGrid, Status

        walk = w.walk
        ctx.at("HPAStar()")
        h = HPAStar(w.grid(), w.costs, cluster, connectivity=w.conn, entrance_gap=gap)
        if update:
            walk = walk ^ (g.np.random(walk.shape) < 0.15)
            grid2 = NavGrid(walk, weights=w.weights, cell_size=w.cs, min_x=w.min_x,
                            min_z=w.min_z)
            ctx.at("HPAStar.update")
            h.update(grid2)
            fresh = HPAStar(grid2, w.costs, cluster, connectivity=w.conn, entrance_gap=gap)
            a, b = h.graph_arrays(), fresh.graph_arrays()
            check(all(np.array_equal(a[x], b[x]) for x in a),
                  "HPA* update differs from a fresh build",
                  ", ".join(x for x in a if not np.array_equal(a[x], b[x])))
        labels = h.components()
        for s, e in pairs:
            ctx.at("HPAStar.find_path_cells")
            res = h.find_path_cells(s, e)
            what, where = "HPA*", f"{s}->{e}"
            if not walk[s[1], s[0]]:
                check(res.status == Status.NO_START, f"{what}: blocked start not NO_START", where)
                continue
            if not walk[e[1], e[0]]:
                check(res.status == Status.NO_GOAL, f"{what}: blocked goal not NO_GOAL", where)
                continue
            dist = dijkstra_costs(walk, w.weights, s, w.card, w.diag, w.eight)
            d = dist[e[1], e[0]]
            check((labels[s[1], s[0]] == labels[e[1], e[0]]) == math.isfinite(d),
                  f"{what}: components disagree with reachability", where)
            if not math.isfinite(d):
                check(res.status == Status.UNREACHABLE, f"{what}: unreachable but not "
                      "UNREACHABLE", f"{where}: {res.status.name}")
                continue
            check(res.status == Status.FOUND, f"{what}: reachable but not FOUND",
                  f"{where}: {res.status.name}")
            cells = np.asarray(res.cells)
            check(is_valid_path(walk, cells, w.eight), f"{what}: path makes an illegal step",
                  where)
            check(tuple(cells[0]) == s and tuple(cells[-1]) == e, f"{what}: path endpoints",
                  where)
            check(w.cost_of(cells) == res.cost_int, f"{what}: cost_int is not the path's cost",
                  where)
            check(res.cost_int >= d, f"{what}: cheaper than the optimum",
                  f"{where}: {res.cost_int} < {d}")

    return Case("oracle", "HPAStar", f"{w.describe()} cluster {cluster} gap {gap} "
                f"update={update} pairs {pairs}", run)


def _flow_reference(w: World, free: np.ndarray, goals: list[tuple[int, int]]) -> np.ndarray:
    """Cost of walking from every cell to the nearest goal (the entered cell pays)."""
    graph = grid_graph(free, w.weights, w.card, w.diag, w.eight).T.tocsr()
    idx = [z * w.width + x for x, z in goals if free[z, x]]
    if not idx:
        return np.full(free.shape, np.inf)
    d = dijkstra(graph, directed=True, indices=sorted(set(idx)), min_only=True)
    return np.asarray(d, dtype=np.float64).reshape(free.shape)


def _check_flow(ctx: Context, f: Any, w: World, free: np.ndarray,
                goals: list[tuple[int, int]], what: str) -> None:
    want = _flow_reference(w, free, goals)
    cost = np.asarray(f.cost_int)
    check(np.array_equal(cost < 0, np.isinf(want)), f"{what}: reaches other cells than Dijkstra")
    fin = np.isfinite(want)
    check(np.array_equal(cost[fin], want[fin].astype(np.int64)),
          f"{what}: costs differ from Dijkstra toward the goals")
    direction = np.asarray(f.direction)
    wts = np.ones(free.shape, np.int64) if w.weights is None else w.weights
    goal_set = {(x, z) for x, z in goals if free[z, x]}
    codes = range(8) if w.eight else range(4)
    for z in range(w.depth):
        for x in range(w.width):
            d = int(direction[z, x])
            if not fin[z, x]:
                check(d == FLOW_NONE, f"{what}: unreachable cell has a direction",
                      f"({x}, {z}): {d}")
                continue
            if (x, z) in goal_set:
                check(d == FLOW_GOAL, f"{what}: goal cell is not GOAL", f"({x}, {z}): {d}")
                continue
            good = []
            for c in codes:
                dx, dz = FLOW_OFFSETS[c]
                nx, nz = x + dx, z + dz
                if not is_valid_path(free, np.array([[x, z], [nx, nz]]), w.eight):
                    continue
                step = (w.card if c < 4 else w.diag) * int(wts[nz, nx])
                if fin[nz, nx] and want[nz, nx] + step == want[z, x]:
                    good.append(c)
            check(good and d == good[0], f"{what}: direction is not the lowest code among the "
                  "best moves (§3.8)", f"({x}, {z}): {d}, the rule gives {good[:1]}")


def gen_flow(g: Gen) -> Case:
    w = World(g)
    goals = [w.cell(g) for _ in range(g.randint(1, 3))]
    k1, k2 = g.choice([0, 0, 1, 2]), g.choice([0, 1, 3])
    c1, c2 = w.circles(g, k1), w.circles(g, k2)
    queue = g.choice(["auto", "buckets", "heap"])
    region = g.choice([None, "mask"])

    def run(ctx: Context) -> None:
        from navkit import FlowField

        ctx.at("FlowField.build")
        f = FlowField(w.grid(), w.costs, connectivity=w.conn, queue=queue)
        f.build(goals, obstacles=c1 if k1 else None)
        _check_flow(ctx, f, w, w.walk & ~w.stamped(c1), goals, "flow build")
        ctx.at("FlowField.update")
        reg = None
        if region == "mask":
            reg = w.stamped(c1) | w.stamped(c2)
        f.update(reg, obstacles=c2 if k2 else None)
        fresh = FlowField(w.grid(), w.costs, connectivity=w.conn, queue=queue)
        fresh.build(goals, obstacles=c2 if k2 else None)
        check(np.array_equal(f.cost_int, fresh.cost_int)
              and np.array_equal(f.direction, fresh.direction),
              "flow update differs from a fresh build")
        _check_flow(ctx, f, w, w.walk & ~w.stamped(c2), goals, "flow update")
        for _ in range(3):
            c = w.cell(g)
            ctx.at("FlowField.follow")
            chain = f.follow(c)
            if len(chain):
                check(is_valid_path(w.walk & ~w.stamped(c2), chain, w.eight),
                      "flow chain makes an illegal step")
                check(w.cost_of(chain) == f.cost_int[c[1], c[0]],
                      "flow chain's cost is not the cell's field cost")

    return Case("oracle", "FlowField", f"{w.describe()} goals {goals} circles {k1}->{k2} "
                f"queue {queue} region {region}", run)


GENERATORS: list[tuple[int, Callable[[Gen], Case]]] = [
    (6, gen_search), (4, gen_order), (2, gen_distance), (2, gen_batch), (4, gen_world),
    (2, gen_navmap_cache), (2, gen_los), (2, gen_hpa), (3, gen_flow),
]

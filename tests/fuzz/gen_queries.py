"""Every public query entry point under hostile arguments.

Pathfinder (find_path_cells, find_path, find_path_to_nearest, snap,
line_of_sight, smooth_cells, distance_field, find_paths_batch, occupants),
NavMap, HPAStar, FlowField and FlowFieldCache, on small random grids (some
with extreme geometry: tiny or huge cells, far-away origins). One to three
arguments of a call are hostile (extreme floats, NaN, huge ints, ragged lists,
wrong dtypes and types, read-only or non-contiguous arrays, budgets 0 / 1 /
2**63, inverted and huge windows, wild obstacle snapshots); the rest are
valid. An answer must obey the rules whatever the input: every path is a
chain of legal moves on the grid, costs add up, windows and budgets hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from tests.reference import is_valid_path, path_cost

from .core import BIG300, BIG4400, Case, Context, Gen, check, show

# ------------------------------------------------------------------ the grids


def grid_spec(g: Gen) -> dict[str, Any]:
    d, w = g.randint(1, 16), g.randint(1, 16)
    walk = g.np.random((d, w)) < g.choice([0.3, 0.7, 0.9, 1.0])
    weights = None
    if g.chance(0.3):
        weights = g.np.integers(1, g.choice([3, 10, 65536]), (d, w))
    geo = {"cell_size": 1.0, "min_x": 0.0, "min_z": 0.0}
    if g.chance(0.25):
        geo["cell_size"] = g.choice([0.4, 0.25, 1e-9, 1e-300, 1e6, 1e300, 3.0])
    if g.chance(0.15):
        geo["min_x"] = g.choice([1e300, -1e300, 1e15, -7.5, 1e17])
        geo["min_z"] = g.choice([0.0, 1e300, -1e16])
    return {"walk": walk, "weights": weights, **geo}


def make_grid(spec: dict[str, Any]) -> Any:
    from navkit import NavGrid

    return NavGrid(spec["walk"], weights=spec["weights"], cell_size=spec["cell_size"],
                   min_x=spec["min_x"], min_z=spec["min_z"])


def describe(spec: dict[str, Any]) -> str:
    d, w = spec["walk"].shape
    text = f"{w}x{d} grid{' weighted' if spec['weights'] is not None else ''}"
    if spec["cell_size"] != 1.0 or spec["min_x"] or spec["min_z"]:
        text += f" cs={spec['cell_size']:g} origin=({spec['min_x']:g}, {spec['min_z']:g})"
    return text


# ------------------------------------------------------------------ hostile values
def some_cell(g: Gen, spec: dict[str, Any]) -> tuple[int, int]:
    d, w = spec["walk"].shape
    return (g.randint(0, w - 1), g.randint(0, d - 1))


def hostile_cell(g: Gen, spec: dict[str, Any]) -> Any:
    d, w = spec["walk"].shape
    x, z = some_cell(g, spec)
    return g.choice([
        (x, z), np.array([x, z], dtype=g.choice([np.int8, np.uint16, np.int64, np.uint64])),
        [float(x), float(z)], (x + 0.5, z), (1e308, 0), (math.nan, 0), (math.inf, z), (2**63, 0),
        (-1, 0), (w, 0), (0, d), (BIG300, 0), (BIG4400, 1), [[1, 2], [3]], "ab", None, {},
        (1, 2, 3), np.array([[x, z]]), np.array([x, z], dtype=object), (complex(1, 0), 0),
        (np.uint64(2**64 - 1), 0), (True, False), (np.longdouble(x), z), (Fraction(x), z),
        (np.float32(x), np.float16(z)), np.array([x, z])[::-1], (x,), (), b"xz", (-0.0, 0.0),
        (np.int64(-(2**63)), 0), ("1", "2"),
    ])


def world_of(spec: dict[str, Any], cell: tuple[int, int], g: Gen) -> tuple[float, float]:
    cs = spec["cell_size"]
    return (spec["min_x"] + (cell[0] + g.random()) * cs,
            spec["min_z"] + (cell[1] + g.random()) * cs)


def hostile_point(g: Gen, spec: dict[str, Any]) -> Any:
    p = world_of(spec, some_cell(g, spec), g)
    return g.choice([
        p, p, (1e308, 1e308), (-1e308, 0.0), (math.nan, 0.0), (math.inf, 1.0), (1e15, -1e15),
        (1e300, 1e-300), (p[0], 0.0, p[1]), (p[0], math.nan, p[1]), (1, 2, 3, 4), [[1, 2], [3]],
        "xz", None, (True, 1.0), (BIG300, 0), (BIG4400, 0), (5e-324, -5e-324),
        np.array(p, dtype=np.float32), np.array([p]), (2**63, 2**63), (complex(1, 1), 0),
        (Fraction(1, 3), 0.5), (-1e17, 1e17), (p[0] * 1e10, p[1]),
    ])


BUDGETS: tuple[Any, ...] = (None, 0, 1, 2, 3, 2**63, 2**63 - 1, 2**64, -1, BIG300, BIG4400, 1.5,
                            True, np.int64(5), np.uint64(2**64 - 1), "5", math.nan, np.int8(3),
                            np.int64(-1), 10**9)


def hostile_window(g: Gen, spec: dict[str, Any]) -> Any:
    d, w = spec["walk"].shape
    x0, x1 = sorted((g.randint(0, w - 1), g.randint(0, w - 1)))
    z0, z1 = sorted((g.randint(0, d - 1), g.randint(0, d - 1)))
    return g.choice([
        None, (x0, z0, x1, z1), (x0, z0, x1, z1), (x1 + 1, z0, x0, z1), (-5, -5, w + 5, d + 5),
        (-BIG300, 0, BIG300, d), (0, 0, BIG4400, 5), (math.nan, 0, 1, 1), (0.5, 0, 1, 1),
        (0, 0, 1), "abcd", np.array([x0, z0, x1, z1]), (w + 3, d + 3, w + 9, d + 9),
        (-(2**63), -(2**63), 2**63, 2**63), [x0, z0, x1, z1], (None, 0, 1, 1), 5,
        (np.float64(x0), z0, x1, np.uint8(z1)), (math.inf, 0, math.inf, 1), (True, 0, 1, 1),
    ])


def hostile_obstacles(g: Gen, spec: dict[str, Any]) -> Any:
    from navkit.query.navmap import Obstacle

    d, w = spec["walk"].shape
    cs = spec["cell_size"]

    def circle() -> list[float]:
        x, z = world_of(spec, (g.randint(-2, w + 1), g.randint(-2, d + 1)), g)
        return [x, z, g.uniform(0, 3) * cs]

    k = g.randint(0, 5)
    ok = np.array([circle() for _ in range(k)], dtype=np.float64).reshape(k, 3)
    kind = g.choice(["none", "valid", "valid", "valid", "value", "value", "shape", "type",
                     "layout", "many", "namedtuples"])
    if kind == "none":
        return None
    if kind == "valid":
        return ok
    if kind == "value":
        bad = ok.copy() if k else np.array([circle()])
        i, j = g.randint(0, len(bad) - 1), g.randint(0, 2)
        bad[i, j] = g.choice([-1.0, math.nan, math.inf, -math.inf, 1e15, 1e16, 1e308, -1e308,
                              5e-324, -0.0])
        return bad
    if kind == "shape":
        return g.choice([np.zeros((3, 2)), np.zeros((2, 4)), np.zeros(3), np.zeros((0,)),
                         np.zeros((1, 1, 3)), [[1, 2, 3], [4, 5]], [], np.zeros((0, 3)),
                         [[0, 0, 1]], [(1.0, 2.0, BIG4400)], [[BIG300, 0, 1]]])
    if kind == "type":
        return g.choice(["circles", {"x": 1}, 5, [["a", "b", "c"]], np.array([[1, 2, 3]],
                        dtype=object), np.array([[1 + 1j, 2, 3]]), [[None, 1, 1]],
                         np.array([[1, 2, 3]], dtype=np.int8), [[True, True, True]]])
    if kind == "layout":
        base = np.zeros((max(k, 1), 6))
        base[:, ::2] = ok if k else np.array([circle()])
        return g.choice([base[:, ::2], np.asfortranarray(base[:, ::2]), _readonly(ok),
                         ok.astype(np.float32), ok.astype(np.float16), ok[::-1]])
    if kind == "many":
        n = g.choice([100, 3000])
        xs = spec["min_x"] + g.np.random(n) * w * cs
        zs = spec["min_z"] + g.np.random(n) * d * cs
        return np.stack([xs, zs, g.np.random(n) * cs], axis=1)
    return [Obstacle(*c) for c in ok.tolist()]


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


COSTS: tuple[Any, ...] = ("seed", "exact", (1, 1), (1, 2), (10**9, 2 * 10**9),
                          (10**9 + 1, 10**9 + 1), (0, 0), (-1, 2), (1.5, 2), ("a", "b"),
                          (True, 2), [10, 14], (10, 14, 1),
                          None, "SEED", (10, 21), (BIG300, BIG300), (np.int64(3), np.int64(4)),
                          (7, 9))


# ------------------------------------------------------------------ answer checks
class Expect:
    """What a valid answer of a call must satisfy."""

    def __init__(self, spec: dict[str, Any], card: int, diag: int, eight: bool):
        self.walk = spec["walk"]
        self.weights = spec["weights"]
        self.card, self.diag, self.eight = card, diag, eight

    def path(self, res: Any, *, start: Any = None, goal: Any = None, budget: Any = None,
             window: Any = None, exact_cost: bool = True) -> None:
        from navkit import PathResult, Status

        check(isinstance(res, PathResult), "query returned no PathResult", type(res).__name__)
        check(isinstance(res.status, Status), "status is no Status", show(res.status))
        cells = np.asarray(res.cells)
        check(cells.ndim == 2 and cells.shape[1] == 2, "cells not (n, 2)", str(cells.shape))
        wps = np.asarray(res.waypoints)
        check(wps.ndim == 2 and wps.shape[1] == 2 and np.all(np.isfinite(wps)),
              "waypoints not finite (m, 2)", show(wps))
        if res.status in (Status.FOUND, Status.NEAREST):
            check(len(cells) > 0, f"{res.status.name} without a path")
        if len(cells) == 0:
            check(res.cost_int == -1 and math.isinf(res.cost), "no path but a cost",
                  f"{res.cost_int} {res.cost}")
            check(len(wps) == 0, "waypoints without a path")
            return
        check(len(wps) > 0, "a path without waypoints")
        check(is_valid_path(self.walk, cells, self.eight), "path makes an illegal step",
              lambda: cells.tolist().__repr__()[:300])
        if exact_cost:
            want = path_cost(cells, self.weights, self.card, self.diag)
            check(res.cost_int == want, "cost_int is not the cost of the path",
                  f"{res.cost_int} != {want}")
        check(res.cost_int >= 0 and res.cost == res.cost_int / self.card,
              "cost is not cost_int / card", f"{res.cost} {res.cost_int}")
        if start is not None:
            check(tuple(cells[0]) == tuple(start), "path does not start at the start",
                  f"{tuple(cells[0])} != {start}")
        if goal is not None and res.status == Status.FOUND:
            check(tuple(cells[-1]) == tuple(goal), "FOUND path does not end at the goal",
                  f"{tuple(cells[-1])} != {goal}")
        if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 1:
            check(res.expanded <= budget, "expanded more nodes than the budget",
                  f"{res.expanded} > {show(budget)}")
        if window is not None:
            x0, z0, x1, z1 = (int(v) for v in window)
            inside = ((cells[1:, 0] >= x0) & (cells[1:, 0] <= x1) & (cells[1:, 1] >= z0)
                      & (cells[1:, 1] <= z1))
            check(bool(np.all(inside)), "windowed path leaves the window", str(window))


def _costs_of(pf_costs: Any) -> tuple[int, int]:
    return int(pf_costs.card), int(pf_costs.diag)


def _valid_cell_window(w: Any) -> bool:
    try:
        return (isinstance(w, (tuple, list)) and len(w) == 4
                and all(isinstance(v, int) and not isinstance(v, bool) for v in w))
    except Exception:
        return False


# ------------------------------------------------------------------ generators
def _pathfinder_args(g: Gen) -> tuple[dict[str, Any], bool]:
    """Constructor arguments (hostile with some chance) and whether any is hostile."""
    kw: dict[str, Any] = {}
    hostile = g.chance(0.15)
    if g.chance(0.5) or hostile:
        kw["costs"] = g.choice(COSTS) if hostile and g.chance(0.5) else g.choice(
            ["seed", "exact", (1, 1), (3, 4), (7, 9)])
    if g.chance(0.3):
        kw["connectivity"] = g.choice([4, 8]) if not hostile else g.choice(
            [4, 8, 6, "8", 8.0, True, None, np.int64(8)])
    if hostile and g.chance(0.3):
        kw["budget"] = g.choice(BUDGETS)
    if hostile and g.chance(0.3):
        kw["snap_radius"] = g.choice([0, 1e308, math.nan, -1, math.inf, "8", 10**400 // 10**91,
                                      BIG4400, 10**300, np.float64(2.0), True])
    return kw, hostile


def gen_pathfinder(g: Gen) -> Case:
    spec = grid_spec(g)
    kw, _ = _pathfinder_args(g)
    method = g.choice(["find_path_cells"] * 4 + ["find_path"] * 3 + ["find_path_to_nearest"] * 2
                      + ["snap", "line_of_sight", "smooth_cells", "distance_field",
                         "distance_field_int", "occupants", "last_search"])
    args: dict[str, Any] = {}
    if method == "find_path_cells":
        args["start"] = hostile_cell(g, spec) if g.chance(0.2) else some_cell(g, spec)
        args["goal"] = hostile_cell(g, spec) if g.chance(0.2) else some_cell(g, spec)
    elif method in ("find_path", "find_path_to_nearest"):
        args["start"] = hostile_point(g, spec) if g.chance(0.3) else world_of(
            spec, some_cell(g, spec), g)
        args["end"] = hostile_point(g, spec) if g.chance(0.3) else world_of(
            spec, some_cell(g, spec), g)
    if method in ("find_path_cells", "find_path", "find_path_to_nearest"):
        for key, p, make in (
                ("budget", 0.25, lambda: g.choice(BUDGETS)),
                ("window", 0.25, lambda: hostile_window(g, spec)),
                ("obstacles", 0.35, lambda: hostile_obstacles(g, spec)),
                ("smooth", 0.2, lambda: g.choice([True, False, "yes", None, np.bool_(True), 0])),
                ("algorithm", 0.3, lambda: g.choice(["astar", "dijkstra", "jps", "auto", "JPS",
                                                     "", None, 3, "hpa"]))):
            if g.chance(p):
                args[key] = make()
        if method == "find_path_cells" and g.chance(0.2):
            args["nearest"] = g.choice([True, False, "no", None])
    elif method == "snap":
        args["point"] = hostile_point(g, spec)
        if g.chance(0.4):
            args["obstacles"] = hostile_obstacles(g, spec)
    elif method == "line_of_sight":
        args["a"] = hostile_cell(g, spec) if g.chance(0.3) else some_cell(g, spec)
        args["b"] = hostile_cell(g, spec) if g.chance(0.3) else some_cell(g, spec)
    elif method == "smooth_cells":
        args["cells"] = g.choice([
            np.array([some_cell(g, spec) for _ in range(g.randint(0, 6))], dtype=np.int64
                     ).reshape(-1, 2),
            [hostile_cell(g, spec) for _ in range(g.randint(1, 3))], [], np.zeros((0, 2), int),
            np.array([some_cell(g, spec)] * 3, dtype=np.int8), "cells", None,
            np.array([[0, 0], [BIG300 % 7, 0]], dtype=object)])
    elif method in ("distance_field", "distance_field_int"):
        args["sources"] = g.choice([
            [some_cell(g, spec)], [some_cell(g, spec) for _ in range(g.randint(1, 4))],
            some_cell(g, spec), [], np.zeros((0, 2), int), [hostile_cell(g, spec)],
            np.array([some_cell(g, spec)], dtype=np.float64), [[0, 0], [1]], "src",
            np.array([some_cell(g, spec)] * 5000)])
        if g.chance(0.35):
            args["obstacles"] = hostile_obstacles(g, spec)
        if method == "distance_field" and g.chance(0.4):
            shape = spec["walk"].shape
            args["out"] = g.choice([
                np.empty(shape), _readonly(np.empty(shape)), np.empty(shape, np.float32),
                np.empty((shape[0] + 1, shape[1])), np.empty(shape[::-1]),
                np.empty((shape[0], shape[1] * 2))[:, ::2], np.asfortranarray(np.empty(shape)),
                [[0.0] * shape[1]] * shape[0], np.empty(shape, np.int64), None])
    elif method == "occupants":
        cs = spec["cell_size"]
        p = world_of(spec, some_cell(g, spec), g)
        args["x"], args["z"] = (p if g.chance(0.6) else (g.number(), g.number()))
        args["radius"] = g.choice([cs, 0.0, 2 * cs, -1.0, math.nan, math.inf, 1e15, 1e308,
                                   "1", None, BIG4400, 1e16 * cs])
        args["handle"] = g.choice([None, None, -1, 0, 10**6, "h", 1.5, BIG300])
    elif method == "last_search":
        args["since"] = g.choice([None, 0, 1, -1, 2**63, "x", 1.5, BIG4400])

    def run(ctx: Context) -> None:
        from navkit import Pathfinder

        grid = make_grid(spec)
        ctx.at("Pathfinder()")
        pf = Pathfinder(grid, **kw)
        card, diag = _costs_of(pf.costs)
        expect = Expect(spec, card, diag, pf.connectivity == 8)
        ctx.at(f"Pathfinder.{method}")
        a = dict(args)
        if method == "find_path_cells":
            res = pf.find_path_cells(a.pop("start"), a.pop("goal"), **a)
            s = args["start"]
            window = args.get("window")
            expect.path(res, start=tuple(int(v) for v in s) if type(s) is tuple and all(
                type(v) is int for v in s) else None,
                goal=args["goal"] if type(args["goal"]) is tuple and all(
                    type(v) is int for v in args["goal"]) else None,
                budget=args.get("budget"),
                window=window if _valid_cell_window(window) else None)
        elif method in ("find_path", "find_path_to_nearest"):
            fn = getattr(pf, method)
            res = fn(a.pop("start"), a.pop("end"), **a)
            expect.path(res, budget=args.get("budget"))
        elif method == "snap":
            cell = pf.snap(**a)
            check(cell is None or (isinstance(cell, tuple) and len(cell) == 2
                                   and grid.is_walkable(*cell)),
                  "snap gave a cell that is not walkable", show(cell))
        elif method == "line_of_sight":
            check(isinstance(pf.line_of_sight(a["a"], a["b"]), bool), "line_of_sight not a bool")
        elif method == "smooth_cells":
            kept = pf.smooth_cells(a["cells"])
            check(isinstance(kept, np.ndarray) and kept.ndim == 2, "smooth_cells not (k, 2)")
        elif method == "distance_field":
            out = pf.distance_field(**a)
            check(out.shape == grid.shape and out.dtype == np.float64,
                  "distance field of the wrong shape", str(out.shape))
            blocked = ~grid.walkable
            src = np.asarray(a["sources"]).reshape(-1, 2).astype(np.int64)
            blocked[src[:, 1], src[:, 0]] = False
            check(bool(np.all(np.isinf(out[blocked]))), "blocked cell with a finite distance")
            if "out" in a and isinstance(a["out"], np.ndarray):
                check(out is a["out"], "distance_field did not fill out")
        elif method == "distance_field_int":
            out = pf.distance_field_int(**a)
            check(out.shape == grid.shape, "integer distance field of the wrong shape")
        elif method == "occupants":
            h = pf.add_occupant(a["x"], a["z"], a["radius"])
            ctx.at("Pathfinder.remove_occupant")
            pf.remove_occupant(h if a["handle"] is None else a["handle"])
        elif method == "last_search":
            pf.find_path_cells(some_cell(g, spec), some_cell(g, spec))
            pf.last_search(a["since"])

    return Case("queries", f"Pathfinder.{method}",
                f"{describe(spec)} Pathfinder{show(kw, 50)} args {show(args, 140)}", run)


def gen_batch(g: Gen) -> Case:
    spec = grid_spec(g)
    kw, _ = _pathfinder_args(g)
    n = g.choice([0, 1, 3, 8, 40])
    cells = [some_cell(g, spec) for _ in range(2 * n)]
    starts: Any = np.array(cells[:n], dtype=np.int64).reshape(n, 2)
    goals: Any = np.array(cells[n:], dtype=np.int64).reshape(n, 2)
    hostile = g.choice(["none", "starts", "goals", "budget", "threads", "obstacles",
                        "algorithm", "return_paths"])
    args: dict[str, Any] = {}
    if hostile in ("starts", "goals"):
        v = g.choice([starts[:-1] if n else [[0, 0]], starts.astype(np.float64),
                      starts.astype(np.uint8), [[0, 0], [1]], "s", None, np.zeros((n, 3), int),
                      [hostile_cell(g, spec)], starts.T, starts[::-1], _readonly(starts),
                      np.full((n or 1, 2), 2**63 - 1), [[BIG300, 0]], np.zeros((n, 2), bool)])
        if hostile == "starts":
            starts = v
        else:
            goals = v
    elif hostile == "budget":
        args["budget"] = g.choice(BUDGETS)
    elif hostile == "threads":
        args["threads"] = g.choice([None, 1, 2, 0, -1, 2**63, 1.5, True, np.int64(2), 1000,
                                    "2", BIG4400])
    elif hostile == "obstacles":
        args["obstacles"] = hostile_obstacles(g, spec)
    elif hostile == "algorithm":
        args["algorithm"] = g.choice(["astar", "dijkstra", "jps", "auto", "hpa", None, 1])
    elif hostile == "return_paths":
        args["return_paths"] = g.choice([True, "no", None, 1])
    if hostile != "return_paths" and g.chance(0.5):
        args["return_paths"] = True

    def run(ctx: Context) -> None:
        from navkit import BatchResult, Pathfinder

        grid = make_grid(spec)
        ctx.at("Pathfinder()")
        pf = Pathfinder(grid, **kw)
        card, diag = _costs_of(pf.costs)
        expect = Expect(spec, card, diag, pf.connectivity == 8)
        ctx.at("Pathfinder.find_paths_batch")
        res = pf.find_paths_batch(starts, goals, **args)
        check(isinstance(res, BatchResult), "find_paths_batch returned no BatchResult")
        m = len(res)
        check(m == len(np.asarray(starts)), "batch answers a different number of queries",
              f"{m}")
        if res.path_offsets is not None and not (isinstance(args.get("obstacles"), np.ndarray)
                                                 or args.get("obstacles")):
            for i in range(m):
                p = res.path(i)
                if len(p):
                    check(is_valid_path(expect.walk, p, expect.eight),
                          "batch path makes an illegal step", str(i))
                    check(int(res.cost_int[i]) == path_cost(p, expect.weights, card, diag),
                          "batch cost_int is not its path's cost", str(i))

    return Case("queries", "Pathfinder.find_paths_batch",
                f"{describe(spec)} n={n} hostile {hostile} {show(args, 80)} "
                f"starts {show(starts, 30)} goals {show(goals, 30)}", run)


def gen_navmap(g: Gen) -> Case:
    spec = grid_spec(g)
    kw, _ = _pathfinder_args(g)
    if g.chance(0.3):
        kw["cache_size"] = g.choice([0, 1, 1024, -1, 1.5, "8", None, BIG300, True, 2**63])
    method = g.choice(["find_path", "find_path", "find_path_to_nearest", "is_walkable", "snap",
                       "occupants", "obstacle_radius", "repeat"])
    args: dict[str, Any] = {
        "start": hostile_point(g, spec) if g.chance(0.3) else world_of(spec, some_cell(g, spec), g),
        "end": hostile_point(g, spec) if g.chance(0.3) else world_of(spec, some_cell(g, spec), g),
    }
    for key, p, make in (("budget", 0.2, lambda: g.choice(BUDGETS)),
                         ("window", 0.2, lambda: hostile_window(g, spec)),
                         ("obstacles", 0.4, lambda: hostile_obstacles(g, spec)),
                         ("smooth", 0.1, lambda: g.choice([False, "x", None]))):
        if g.chance(p):
            args[key] = make()
    xz = (g.number(), g.number()) if g.chance(0.4) else world_of(spec, some_cell(g, spec), g)
    radius = g.choice([0.5, 0.0, -1.0, math.nan, 1e15, 1e308, "r", None, BIG4400])

    def run(ctx: Context) -> None:
        from navkit import NavMap

        grid = make_grid(spec)
        ctx.at("NavMap()")
        m = NavMap(grid, **kw)
        card, diag = _costs_of(m.pathfinder.costs)
        expect = Expect(spec, card, diag, m.pathfinder.connectivity == 8)
        a = dict(args)
        if method in ("find_path", "find_path_to_nearest", "repeat"):
            fn = m.find_path_to_nearest if method != "find_path" and g.chance(0.7) else m.find_path
            ctx.at(f"NavMap.{fn.__name__}")
            res = fn(a.pop("start"), a.pop("end"), **a)
            expect.path(res, budget=args.get("budget"))
            if method == "repeat":
                again = fn(args["start"], args["end"], **{k: v for k, v in args.items()
                                                          if k not in ("start", "end")})
                check(np.array_equal(again.waypoints, res.waypoints)
                      and again.status == res.status and again.cost_int == res.cost_int,
                      "NavMap answer changed on a repeat (cache)")
        elif method == "is_walkable":
            ctx.at("NavMap.is_walkable")
            check(isinstance(m.is_walkable(*xz), bool), "is_walkable not a bool")
        elif method == "snap":
            ctx.at("NavMap.snap")
            p = m.snap(*xz)
            check(p is None or (len(p) == 2 and all(math.isfinite(v) for v in p)),
                  "NavMap.snap gave a non-finite point", show(p))
        elif method == "occupants":
            ctx.at("NavMap.add_occupant")
            h = m.add_occupant(xz[0], xz[1], radius)
            ctx.at("NavMap.find_path with an occupant")
            expect.path(m.find_path(args["start"], args["end"]))
            ctx.at("NavMap.remove_occupant")
            m.remove_occupant(h)
        else:
            ctx.at("NavMap.obstacle_radius")
            r = m.obstacle_radius(radius)
            check(isinstance(r, float) and math.isfinite(r), "obstacle radius not finite",
                  show(r))

    return Case("queries", f"NavMap.{method}",
                f"{describe(spec)} NavMap{show(kw, 50)} args {show(args, 120)} xz {show(xz)} "
                f"r {show(radius)}", run)


def gen_hpa(g: Gen) -> Case:
    spec = grid_spec(g)
    kw: dict[str, Any] = {}
    if g.chance(0.5):
        kw["cluster_size"] = g.choice([2, 3, 4, 8, 16, 32, 256] + [1, 257, 0, -4, 2.0, True,
                                                                  "8", None, BIG300])
    if g.chance(0.3):
        kw["entrance_gap"] = g.choice([None, 1, 2, 16, 0, -1, 1.5, True, "x", BIG4400])
    if g.chance(0.3):
        kw["connectivity"] = g.choice([4, 8, 6, True])
    if g.chance(0.2):
        kw["costs"] = g.choice(COSTS)
    method = g.choice(["find_path_cells"] * 3 + ["find_paths_batch", "update", "components"])
    s = hostile_cell(g, spec) if g.chance(0.2) else some_cell(g, spec)
    e = hostile_cell(g, spec) if g.chance(0.2) else some_cell(g, spec)
    smooth = g.choice([False, True, "x"]) if g.chance(0.3) else False
    changed_kind = g.choice(["none", "mask", "cells", "bad"])

    def run(ctx: Context) -> None:
        from navkit import HPAStar, NavGrid

        grid = make_grid(spec)
        ctx.at("HPAStar()")
        h = HPAStar(grid, **kw)
        card, diag = _costs_of(h.costs)
        expect = Expect(spec, card, diag, h.connectivity == 8)
        if method == "find_path_cells":
            ctx.at("HPAStar.find_path_cells")
            res = h.find_path_cells(s, e, smooth=smooth)
            expect.path(res, start=s if type(s) is tuple and all(type(v) is int for v in s)
                        else None)
        elif method == "find_paths_batch":
            ctx.at("HPAStar.find_paths_batch")
            h.find_paths_batch(g.choice([[s], [s, s], np.array([s]), "x", []]), [e],
                               return_paths=True)
        elif method == "update":
            walk2 = spec["walk"].copy()
            flips = g.np.random(walk2.shape) < 0.1
            walk2 ^= flips
            grid2 = NavGrid(walk2, weights=spec["weights"], cell_size=spec["cell_size"],
                            min_x=spec["min_x"], min_z=spec["min_z"])
            changed: Any = None
            if changed_kind == "mask":
                changed = flips
            elif changed_kind == "cells":
                zz, xx = np.nonzero(flips)
                changed = np.stack([xx, zz], axis=1)
            elif changed_kind == "bad":
                changed = g.choice([flips[:-1], "x", [[99, 99]], np.array([[-1, 0]]),
                                    flips.astype(int), [[0.5, 1]]])
            ctx.at("HPAStar.update")
            h.update(grid2, changed)
            fresh = HPAStar(grid2, **kw)
            if changed_kind in ("none", "mask", "cells"):
                a, b = h.graph_arrays(), fresh.graph_arrays()
                check(a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a),
                      "HPA* update differs from a fresh build",
                      ", ".join(k for k in a if not np.array_equal(a[k], b.get(k))))
        else:
            ctx.at("HPAStar.components")
            lab = h.components()
            check(lab.shape == grid.shape and bool(np.all((lab == 0) == ~grid.walkable)),
                  "components: label 0 is not exactly the blocked cells")

    return Case("queries", f"HPAStar.{method}",
                f"{describe(spec)} HPAStar{show(kw, 60)} {show(s)} -> {show(e)}", run)


def gen_flow(g: Gen) -> Case:
    spec = grid_spec(g)
    kw: dict[str, Any] = {}
    if g.chance(0.3):
        kw["costs"] = g.choice(COSTS)
    if g.chance(0.2):
        kw["connectivity"] = g.choice([4, 8, 6, None, "8"])
    if g.chance(0.3):
        kw["queue"] = g.choice(["auto", "buckets", "heap", "fifo", None])
    on_pathfinder = g.chance(0.3)
    goals = g.choice([[some_cell(g, spec)], [some_cell(g, spec) for _ in range(3)],
                      some_cell(g, spec), [hostile_cell(g, spec)], [], np.zeros((0, 2)),
                      np.array([some_cell(g, spec)], dtype=np.float64) + 0.5, "g",
                      np.array([some_cell(g, spec)] * 10_000), [[BIG300, 0]]]) \
        if g.chance(0.3) else [some_cell(g, spec)]
    obstacles = hostile_obstacles(g, spec) if g.chance(0.4) else None
    method = g.choice(["build", "update", "next_cell", "follow", "lookup_cells", "lookup",
                       "cache"])
    region = g.choice([None, (0, 0, 3, 3), (5, 5, 0, 0), "box", (0, 0, BIG4400, 1),
                       (math.nan, 0, 1, 1), np.zeros(spec["walk"].shape, bool),
                       np.zeros((2, 2), bool), (-(2**63), 0, 2**63, 9)])
    cell = hostile_cell(g, spec) if g.chance(0.4) else some_cell(g, spec)
    positions = g.choice([hostile_point(g, spec), [hostile_point(g, spec)] * 2,
                          np.zeros((0, 2)), np.zeros((4, 3)), [world_of(spec, some_cell(g, spec),
                                                                        g)]])
    version = g.choice([None, 1, "v", [1], {}, math.nan])

    def run(ctx: Context) -> None:
        from navkit import FlowField, FlowFieldCache, Pathfinder

        grid = make_grid(spec)
        src: Any = grid
        if on_pathfinder:
            ctx.at("Pathfinder()")
            src = Pathfinder(grid)
        if method == "cache":
            ctx.at("FlowFieldCache.get")
            f = FlowFieldCache(maxsize=2).get(src, goals, obstacles=obstacles, version=version,
                                              **{k: v for k, v in kw.items() if k != "queue"})
        else:
            ctx.at("FlowField()")
            f = FlowField(src, **kw)
            ctx.at("FlowField.build")
            f.build(goals, obstacles=obstacles)
        cost = f.cost_int
        check(cost.shape == grid.shape and bool(np.all(cost[~grid.walkable] == -1)),
              "flow field: a blocked cell has a cost")
        if method == "update":
            ctx.at("FlowField.update")
            f.update(region, obstacles=hostile_obstacles(g, spec))
        elif method == "next_cell":
            ctx.at("FlowField.next_cell")
            c = cell if isinstance(cell, tuple) and len(cell) == 2 else (0, 0)
            nxt = f.next_cell(*c)
            check(nxt is None or grid.is_walkable(*nxt), "next_cell is blocked", show(nxt))
        elif method == "follow":
            ctx.at("FlowField.follow")
            chain = f.follow(cell)
            if len(chain):
                check(is_valid_path(spec["walk"], chain, f.connectivity == 8),
                      "flow chain makes an illegal step")
        elif method == "lookup_cells":
            ctx.at("FlowField.lookup_cells")
            f.lookup_cells(g.choice([[cell], cell, "c"]))
        elif method == "lookup":
            ctx.at("FlowField.lookup")
            v = f.lookup(positions)
            check(np.all(np.isfinite(v)), "lookup gave non-finite directions")

    arg = {"update": region, "next_cell": cell, "follow": cell, "lookup_cells": cell,
           "lookup": positions, "cache": version}.get(method)
    return Case("queries", f"FlowField.{method}",
                f"{describe(spec)} FlowField{show(kw, 40)} {method}({show(arg, 40)}) goals "
                f"{show(goals, 40)} obstacles {show(obstacles, 40)}", run)


def gen_construct(g: Gen) -> Case:
    """Query objects built on odd grids: one row, one cell, all blocked, heavy weights, geometry
    at the edge of float range."""
    d, w = g.choice([(1, 1), (1, 40), (40, 1), (2, 2), (1, 2)])
    walk = g.np.random((d, w)) < g.choice([0.0, 1.0, 0.5])
    weights = g.choice([None, np.full((d, w), 65535), np.full((d, w), 2)])
    cls = g.choice(["Pathfinder", "NavMap", "HPAStar", "FlowField"])
    costs = g.choice(["seed", "exact", (10**9, 2 * 10**9), (1, 1)])
    cs = g.choice([1.0, 1e-300, 1e300, 5e-324])

    def run(ctx: Context) -> None:
        import navkit

        grid = navkit.NavGrid(walk, weights=weights, cell_size=cs)
        ctx.at(f"{cls}()")
        obj = getattr(navkit, cls)(grid, costs=costs)
        s, e = (0, 0), (w - 1, d - 1)
        ctx.at(f"{cls} query")
        if cls == "FlowField":
            obj.build([e])
            obj.follow(s)
        elif cls == "NavMap":
            obj.find_path_to_nearest(grid.cell_center(*s), grid.cell_center(*e))
        else:
            obj.find_path_cells(s, e)

    return Case("queries", f"{cls}()", f"{w}x{d} walk {walk.mean():.1f} weights "
                f"{show(weights)} costs {show(costs)} cs {cs:g}", run)


GENERATORS: list[tuple[int, Callable[[Gen], Case]]] = [
    (12, gen_pathfinder), (4, gen_batch), (5, gen_navmap), (3, gen_hpa), (4, gen_flow),
    (2, gen_construct),
]


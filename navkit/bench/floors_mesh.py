"""Benchmark paths across floors on meshes (:class:`navkit.floors.mesh.FloorMesh`).

A measurement, not a test (``python -m navkit.bench.floors_mesh``). A
generated building: ``floors`` floors, each a 100 x 100 m box with
``obstacles`` random rectangles (:func:`navkit.bench.mesh.box_level`, one
seed per floor), joined by ``links`` stairs between consecutive floors (ends
on random walkable cells). After :meth:`FloorMesh.prepare` (timed apart),
``queries`` random pairs on floor 0 (the single-floor reference: the floor's
own ``NavMesh.find_path``, and ``FloorMesh.find_path`` with both ends on floor
0) and ``queries`` pairs on two different floors. Each query keeps the
fastest of ``rounds`` rounds, garbage collector paused. Target: a cross-floor
query takes at most 2x the single-floor median times the number of floors it
visits (``per floor`` below: its time over floors visited, over the
single-floor median).
"""

from __future__ import annotations

import gc
import math
import time
from typing import Any

import numpy as np

__all__ = ["building_dict", "run"]


def building_dict(floors: int = 4, links: int = 8, obstacles: int = 60, size: float = 100.0,
                  seed: int = 1) -> dict[str, Any]:
    """A building dict: ``floors`` boxes of ``size`` m with random rectangles, 3 m
    apart, and ``links`` stairs between consecutive floors (ends on walkable cells)."""
    from ..floors.building import Building
    from .mesh import box_level

    out = []
    for f in range(floors):
        lv = box_level(size, size, obstacles, seed + 101 * f)
        out.append({"name": f"F{f}", "floorY": 3.0 * f, "areas": lv["areas"],
                    "obstacles": lv["obstacles"]})
    obj: dict[str, Any] = {"cellSize": 0.4, "agentRadius": 0.0, "objectPadding": 0.0,
                           "floors": out}
    b = Building(obj)
    rng = np.random.default_rng(seed)
    lks = []
    for i in range(links):
        fa = i % max(1, floors - 1)
        fb = min(fa + 1, floors - 1)
        ends = []
        for f in (fa, fb):
            g = b.grid(f)
            free = np.argwhere(g.walkable)
            z, x = free[int(rng.integers(len(free)))]
            ends.append({"floor": f"F{f}", "point": [float(g.min_x + (x + 0.5) * g.cell_size),
                                                     float(g.min_z + (z + 0.5) * g.cell_size)]})
        lks.append({"name": f"L{i}", "kind": "stairs", "from": ends[0], "to": ends[1],
                    "cost": 8.0})
    obj["links"] = lks
    return obj


def _fastest(fn: Any, args: list[tuple[Any, ...]], rounds: int) -> np.ndarray:
    best = np.full(len(args), math.inf)
    gc_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for i, a in enumerate(args):
                t0 = time.perf_counter()
                fn(*a)
                best[i] = min(best[i], time.perf_counter() - t0)
    finally:
        if gc_on:
            gc.enable()
    return best


def run(floors: int = 4, links: int = 8, obstacles: int = 60, queries: int = 200,
        rounds: int = 3, seed: int = 2) -> dict[str, float]:
    """Time the queries (module docs); returns the figures (seconds, ratios)."""
    from ..floors.building import Building
    from ..floors.mesh import FloorMesh

    b = Building(building_dict(floors, links, obstacles))
    t0 = time.perf_counter()
    fm = FloorMesh(b)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    fm.prepare()
    t_prep = time.perf_counter() - t0
    rng = np.random.default_rng(seed)

    def sample(f: int) -> tuple[float, float]:
        while True:
            p = (float(rng.uniform(0, 100)), float(rng.uniform(0, 100)))
            if fm.is_walkable(p, f):
                return p

    single = [(sample(0), sample(0)) for _ in range(queries)]
    cross = []
    for _ in range(queries):
        fs, fg = (int(v) for v in rng.choice(floors, 2, replace=False))
        cross.append((sample(fs), sample(fg), fs, fg))
    mesh0 = fm.mesh(0)
    for s, g in single[:5]:  # warm up
        mesh0.find_path(s, g)
        fm.find_path(s, g, start_floor=0, goal_floor=0)
    t_mesh = _fastest(lambda s, g: mesh0.find_path(s, g), single, rounds)
    t_same = _fastest(lambda s, g: fm.find_path(s, g, start_floor=0, goal_floor=0),
                      single, rounds)
    t_cross = _fastest(lambda s, g, a, c: fm.find_path(s, g, start_floor=a, goal_floor=c),
                       cross, rounds)
    res = [fm.find_path(s, g, start_floor=a, goal_floor=c) for s, g, a, c in cross]
    found = np.array([r.has_path for r in res])
    visited = np.array([max(1, r.floors_visited) for r in res], dtype=np.float64)
    searches = np.array([r.searches for r in res], dtype=np.float64)
    ref = float(np.median(t_mesh))
    per_floor = t_cross[found] / visited[found] / ref
    return {
        "build_s": t_build, "prepare_s": t_prep,
        "single_mesh_median_s": ref,
        "single_floormesh_median_s": float(np.median(t_same)),
        "cross_median_s": float(np.median(t_cross[found])),
        "cross_found": float(found.mean()),
        "cross_floors_visited_median": float(np.median(visited[found])),
        "cross_searches_median": float(np.median(searches[found])),
        "cross_over_single": float(np.median(t_cross[found])) / ref,
        "per_floor_ratio_median": float(np.median(per_floor)),
        "per_floor_ratio_p90": float(np.percentile(per_floor, 90)),
        "within_target": float((per_floor <= 2.0).mean()),
    }


def main() -> int:
    r = run()
    for k, v in r.items():
        print(f"{k:32s} {v * 1e6:10.1f} us" if k.endswith("_s") and "median" in k
              else f"{k:32s} {v:10.3f}")
    ok = r["per_floor_ratio_median"] <= 2.0
    print("target (cross-floor median per floor visited <= 2x single-floor median):",
          "PASS" if ok else "MISS")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

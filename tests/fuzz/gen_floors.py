"""Buildings (floors and links): hostile building JSON, hostile queries, and an oracle.

Buildings are the bundled ``tavern.json``, the two-floor example or small random
ones, mutated structurally (a field replaced by an extreme or wrong value, a
key dropped, a link to a missing floor or into a wall, names duplicated, many
floors). One that loads answers queries with hostile arguments (points, floors,
obstacles, windows, budgets, algorithms) and random valid ones, whose costs
must equal the layered Dijkstra's (docs/rules.md §16.4, §16.9).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from .core import NUMBERS, Case, Context, Gen, check, show
from .gen_levels import _get, _paths, hostile_value


def _base(g: Gen) -> tuple[dict[str, Any], str]:
    from navkit.examples import path
    from navkit.floors.examples import two_floors

    kind = g.choice(["tavern", "two", "random"])
    if kind == "tavern":
        return json.loads(path("tavern.json").read_text(encoding="utf-8")), "tavern.json"
    if kind == "two":
        return two_floors(), "two_floors"
    floors = []
    n = g.randint(1, 3)
    for f in range(n):
        x0, z0 = g.randint(0, 4), g.randint(0, 4)
        floors.append({"name": f"F{f}", "floorY": 3.0 * f,
                       "areas": [{"name": "a", "polygon": [[x0, z0], [x0 + 8, z0],
                                                           [x0 + 8, z0 + 6], [x0, z0 + 6]]}]})
    links = [{"name": f"L{i}", "kind": "stairs",
              "from": {"floor": f"F{g.randint(0, n - 1)}", "point": [6.5, 6.5]},
              "to": {"floor": f"F{g.randint(0, n - 1)}", "point": [7.5, 5.5]},
              "bidirectional": g.chance(0.7), "cost": g.choice([0.5, 2.0, 9.0])}
             for i in range(g.randint(0, 3))]
    return ({"cellSize": 1.0, "agentRadius": 0.0, "objectPadding": 0.0, "floors": floors,
             "links": links}, f"random {n} floors")


def _mutate(g: Gen, obj: dict[str, Any]) -> tuple[dict[str, Any], str]:
    obj = copy.deepcopy(obj)
    done = []
    for _ in range(g.choice([1, 1, 2])):
        op = g.choice(["replace"] * 5 + ["delete", "missing-floor", "into-wall", "dup-floor",
                                          "dup-link", "many-floors", "zero-cost", "top-areas"])
        paths = [p for p in _paths(obj) if p]
        links = obj.get("links") if isinstance(obj.get("links"), list) else None
        floors = obj.get("floors") if isinstance(obj.get("floors"), list) else None
        if op == "replace" and paths:
            p = g.choice(paths)
            parent = _get(obj, p[:-1])
            v = hostile_value(g) if g.chance(0.7) else g.choice(NUMBERS)
            parent[p[-1]] = v
            done.append(f"{'.'.join(map(str, p))}={show(v, 24)}")
        elif op == "delete" and paths:
            p = g.choice(paths)
            del _get(obj, p[:-1])[p[-1]]
            done.append(f"del {'.'.join(map(str, p))}")
        elif op == "missing-floor" and links:
            lk = g.choice(links)
            if isinstance(lk, dict) and isinstance(lk.get("to"), dict):
                lk["to"]["floor"] = g.choice(["attic", 99, -1, 1.5, None])
                done.append("link to a missing floor")
        elif op == "into-wall" and links:
            lk = g.choice(links)
            if isinstance(lk, dict) and isinstance(lk.get("from"), dict):
                lk["from"]["point"] = [g.choice([-50.0, 1e9, 0.0]), g.choice([-50.0, 1e9])]
                done.append("link end off the floor")
        elif op == "dup-floor" and floors:
            floors.append(dict(floors[0]) if isinstance(floors[0], dict) else floors[0])
            done.append("duplicate floor")
        elif op == "dup-link" and links:
            links.append(dict(links[0]) if isinstance(links[0], dict) else links[0])
            done.append("duplicate link")
        elif op == "many-floors" and floors and isinstance(floors[0], dict):
            n = g.choice([257, 1000])
            obj["floors"] = floors + [dict(floors[0], name=f"x{i}") for i in range(n)]
            done.append(f"{n} more floors")
        elif op == "zero-cost" and links:
            lk = g.choice(links)
            if isinstance(lk, dict):
                lk["cost"] = g.choice([0, 0.0, -1.0, float("nan"), float("inf")])
                done.append(f"cost={lk['cost']}")
        elif op == "top-areas":
            obj["areas"] = []
            done.append("areas at the top")
    return obj, ", ".join(done) or "unchanged"


def _oracle_queries(ctx: Context, fm: Any, g: Gen) -> None:
    """Random cell pairs: every algorithm costs what the layered Dijkstra says."""
    import numpy as np

    s = fm.search
    free = np.flatnonzero(fm.building.stacked()[0] == 1)
    if not len(free):
        return
    rng = g.np
    for _ in range(3):
        a, t = (int(v) for v in rng.choice(free, 2))
        ca, ct = (tuple(int(v) for v in c) for c in s.cells_of(np.array([a, t])))
        ctx.at("FloorMap.find_path_cells(dijkstra)")
        ref = fm.find_path_cells(ca, ct, algorithm="dijkstra")
        for algo in ("auto", "astar", "layered"):
            ctx.at(f"FloorMap.find_path_cells({algo})")
            r = fm.find_path_cells(ca, ct, algorithm=algo)
            check(r.status == ref.status and r.cost_int == ref.cost_int,
                  f"{algo} cost differs from Dijkstra",
                  lambda r=r, algo=algo, ca=ca, ct=ct, ref=ref: f"{algo} {ca}->{ct}: "
                  f"{r.status.name} {r.cost_int} vs {ref.status.name} {ref.cost_int}")


def gen_building(g: Gen) -> Case:
    obj, base = _base(g)
    obj, how = _mutate(g, obj) if g.chance(0.8) else (obj, "unmutated")

    def run(ctx: Context) -> None:
        from navkit.floors import FloorMap

        ctx.at("FloorMap(building)")
        fm = FloorMap(obj, warm=False)
        _oracle_queries(ctx, fm, g)

    return Case("floors", "FloorMap(building)", f"{base}: {how}", run)


def _hostile_point(g: Gen) -> Any:
    return g.choice([(1.0, 0.0, 1.0), (float("nan"), 0.0, 1.0), (1e300, 0.0, 1.0), (1.0,),
                     "here", None, (1.0, 2.0, 3.0, 4.0), [[1, 2]], (True, 1.0), (1, 10**400, 1),
                     (16.5, 3.2, 2.0), (19.0, 1e9, 4.0), (-5.0, -5.0)])


def gen_queries(g: Gen) -> Case:
    start, goal = _hostile_point(g), _hostile_point(g)
    kw: dict[str, Any] = {}
    for key, values in (("start_floor", [None, 0, 1, 5, -1, "upstairs", "attic", 1.5, True]),
                        ("algorithm", ["auto", "jps", "jps+", "dijkstra", "layered", "exact",
                                       None, 3]),
                        ("budget", [None, 1, 0, -5, 10**20, 2.5, True]),
                        ("obstacles", [None, [[14.25, 4.25, 0.6, 1]], [[1, 2, 3]],
                                       [[1, 2, -1, 0]], [[1, 2, 1, 9]], [[float("nan"), 1, 1, 0]],
                                       "x", [[1, 2, 1, 0.5]]]),
                        ("window", [None, (0, 0, 5, 5), (5, 5, 0, 0), (0, 0), "w",
                                    (0, 0, 10**30, 3), (-100, -100, -90, -90)]),
                        ("preset", [None, "bounded", "fast", 3]),
                        ("nearest", [False, True])):
        if g.chance(0.4):
            kw[key] = g.choice(values)
    how = f"{show(start, 24)} -> {show(goal, 24)} {show(kw, 80)}"

    def run(ctx: Context) -> None:
        import navkit
        from navkit.results import Status

        ctx.at("FloorMap(tavern.json)")
        fm = navkit.FloorMap(navkit.examples.path("tavern.json"), warm=False)
        ctx.at("FloorMap.find_path")
        r = fm.find_path(start, goal, **kw)
        check(isinstance(r.status, Status), "status is not a Status")
        if r.status == Status.FOUND:
            check(len(r.waypoints) == len(r.floors) == len(r.heights), "ragged result")
            check(r.cost_int >= 0 and r.length >= 0, "negative cost or length")

    return Case("floors", "FloorMap.find_path", how, run)


GENERATORS = [(5, gen_building), (4, gen_queries)]

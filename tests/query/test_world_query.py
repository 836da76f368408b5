"""The one-call world query (``navkit._kernels.query``) against the step-by-step path.

``Pathfinder.find_path`` answers JPS world queries (the default on uniform
8-connected grids) in one kernel call; :func:`stepwise` answers the same
query one public call at a time (snapping, a JPS cell query with the same
obstacles, the waypoint rules of docs/rules.md §4). Both must give the very
same result on every query, with
obstacle snapshots that change, stay, or vanish between queries (the kernel
keeps the last snapshot stamped), and with occupants and cell queries in
between. Its parts are checked against independent references: the bit-row
line of sight against exact rational geometry, the flood against Dijkstra.
Hypothesis runs derandomized with no example database.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from navkit import NavGrid, Pathfinder, QueryError, Status
from navkit._kernels import geometry as _geo
from navkit._kernels import query as _query
from navkit.query.navmap import NavMap, Obstacle
from navkit.query.padded import world_point
from navkit.results import no_path, path_result
from tests.conftest import fixed
from tests.reference import brute_line_of_sight, dijkstra_costs, is_valid_path
from tests.reference import reachable_nearest as ref_reachable_nearest


def same(a, b) -> None:
    """Two PathResults are identical, field by field."""
    assert a.status == b.status
    assert (a.cost_int, a.expanded, a.generated) == (b.cost_int, b.expanded, b.generated)
    assert (a.start_cell, a.end_cell, a.floor_y) == (b.start_cell, b.end_cell, b.floor_y)
    np.testing.assert_array_equal(a.cells, b.cells)
    np.testing.assert_array_equal(a.waypoints, b.waypoints)
    assert a.cost == b.cost or (np.isinf(a.cost) and np.isinf(b.cost))


def stepwise(pf, start, end, *, obstacles=None, nearest=False, smooth=True, budget=None):
    """The world query one public call at a time (docs/rules.md §4-§6): snap both
    ends (avoiding the obstacles), a JPS cell query with the same obstacles,
    then the last- and first-waypoint rules. An end outside the grid that
    snaps nowhere is left to A*, as the one-call kernel leaves it to Python."""
    grid = pf.grid
    fy = grid.floor_y
    sw, ew = world_point(start, "start"), world_point(end, "end")
    s = pf.snap(sw, obstacles=obstacles)
    if s is None:
        return no_path(Status.NO_START, floor_y=fy)
    kw = {"smooth": smooth, "budget": budget, "obstacles": obstacles}
    g = pf.snap(ew, obstacles=obstacles)
    if g is None:
        if not nearest:
            return no_path(Status.NO_GOAL, start_cell=s, floor_y=fy)
        g = grid.world_to_cell(*ew)
        if not grid.in_bounds(*g):
            return pf.find_path_to_nearest(sw, ew, algorithm="astar", **kw)
        res = pf.find_path_cells(s, g, nearest=True, algorithm="jps", **kw)
    else:
        res = pf.find_path_cells(s, g, nearest=nearest, algorithm="jps", **kw)
    if not res.has_path:
        return res
    pts = np.array(res.waypoints, dtype=np.float64)
    if res.status == Status.FOUND and grid.world_to_cell(*ew) == res.end_cell:
        pts[-1] = ew
    if len(pts) > 1 and math.hypot(pts[0, 0] - sw[0], pts[0, 1] - sw[1]) <= 0.75 * grid.cell_size:
        pts = pts[1:]
    return path_result(res.status, res.cells, pts, res.cost_int, pf.costs.card,
                       res.expanded, res.generated, res.start_cell, res.end_cell, fy)


@st.composite
def worlds(draw: st.DrawFn) -> dict:
    depth = draw(st.integers(1, 22))
    width = draw(st.integers(1, 22))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < draw(st.sampled_from([0.5, 0.7, 0.85, 1.0]))
    cs = draw(st.sampled_from([1.0, 0.5, 0.4, 2.0]))
    x0 = draw(st.sampled_from([0.0, -3.25, 10.0]))
    z0 = draw(st.sampled_from([0.0, 2.5, -7.0]))
    costs = draw(st.sampled_from(["seed", "exact"]))
    snaps = [
        np.array([[float(rng.uniform(x0 - cs, x0 + (width + 1) * cs)),
                   float(rng.uniform(z0 - cs, z0 + (depth + 1) * cs)),
                   float(rng.uniform(0, 2.5 * cs))] for _ in range(int(rng.integers(1, 5)))])
        for _ in range(3)
    ]

    def point() -> tuple[float, float]:
        # mostly inside, sometimes outside the grid
        return (float(rng.uniform(x0 - 3 * cs, x0 + (width + 3) * cs)),
                float(rng.uniform(z0 - 3 * cs, z0 + (depth + 3) * cs)))

    steps = []
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["query", "query", "query", "cells", "occupant"]))
        steps.append((kind, point(), point(),
                      draw(st.sampled_from([None, 0, 1, 2, "copy"])), draw(st.booleans()),
                      draw(st.booleans()), draw(st.sampled_from([None, None, 1, 3]))))
    return {"walk": walk, "cs": cs, "x0": x0, "z0": z0,
            "costs": costs, "snaps": snaps, "steps": steps}


@fixed(250)
@given(worlds())
def test_one_call_equals_step_by_step(w):
    """Same results, with obstacle snapshots that change, repeat, vanish, and
    occupants and cell queries in between (they must release the kernel's
    standing overlay)."""
    grid = NavGrid(w["walk"], cell_size=w["cs"], min_x=w["x0"], min_z=w["z0"], floor_y=0.5)
    fused = Pathfinder(grid, costs=w["costs"])
    plain = Pathfinder(grid, costs=w["costs"])
    for i, (kind, a, b, snap, nearest, smooth, budget) in enumerate(w["steps"]):
        obs = None
        if snap == "copy":
            obs = w["snaps"][0].copy()  # equal values, another array
        elif snap is not None:
            obs = w["snaps"][snap]
        note(f"step {i}: {kind} {a} -> {b} obstacles {None if obs is None else obs.tolist()} "
             f"nearest={nearest} smooth={smooth} budget={budget}")
        if kind == "occupant":
            for pf in (fused, plain):
                pf.add_occupant(a[0], a[1], 0.7 * w["cs"])
            continue
        if kind == "cells":
            cell = grid.world_to_cell(*a)
            goal = grid.world_to_cell(*b)
            if grid.in_bounds(*cell) and grid.in_bounds(*goal):
                same(fused.find_path_cells(cell, goal, obstacles=obs, algorithm="jps"),
                     plain.find_path_cells(cell, goal, obstacles=obs, algorithm="jps"))
            continue
        r1 = fused.find_path(a, b, obstacles=obs, nearest=nearest, smooth=smooth, budget=budget)
        r2 = stepwise(plain, a, b, obstacles=obs, nearest=nearest, smooth=smooth, budget=budget)
        same(r1, r2)
        if r1.has_path:
            eng = fused.engine
            walk = fused.grid.walkable & (eng.padded.unpad(eng.occupancy.cells) > 0)
            if obs is not None:
                zz, xx = np.mgrid[0 : walk.shape[0], 0 : walk.shape[1]]
                cx = grid.min_x + (xx + 0.5) * grid.cell_size
                cz = grid.min_z + (zz + 0.5) * grid.cell_size
                for x, z, r in obs:
                    walk &= (cx - x) ** 2 + (cz - z) ** 2 > r * r
            assert is_valid_path(walk, r1.cells)
    # after everything, the packed rows are the cells again
    if fused.engine.jps.built:
        fresh = Pathfinder(NavGrid(fused.engine.padded.unpad(fused.engine.occupancy.cells) > 0),
                           costs=w["costs"])
        for mine, theirs in zip(fused.engine.jps.bits()[:2], fresh.engine.jps.bits()[:2],
                                strict=True):
            np.testing.assert_array_equal(mine, theirs)


@fixed(150)
@given(st.integers(1, 24), st.integers(1, 24),
       st.sampled_from([0.5, 0.7, 0.9]), st.integers(0, 2**32 - 1))
def test_line_of_sight_on_bits(depth, width, density, seed):
    """The bit-row line of sight == the supercover walk == exact rational geometry."""
    rng = np.random.default_rng(seed)
    walk = rng.random((depth, width)) < density
    pf = Pathfinder(NavGrid(walk))
    bits = pf.engine.jps.bits()
    wp = pf.engine.padded.wp
    free = np.argwhere(walk)  # (z, x)
    if len(free) < 2:
        return
    for _ in range(60):
        (az, ax), (bz, bx) = free[rng.integers(len(free), size=2)]
        a = (az + 1) * wp + ax + 1
        b = (bz + 1) * wp + bx + 1
        want = brute_line_of_sight(walk, (ax, az), (bx, bz))
        assert bool(_query.line_of_sight_bits(bits, a, b)) == want, ((ax, az), (bx, bz))
        assert bool(_geo.line_of_sight(pf.engine.occupancy.cells,
                                       (pf.engine.overlay.marks, np.int32(0)), wp, a, b)) == want


@fixed(80)
@given(st.integers(2, 30), st.integers(2, 30),
       st.sampled_from([0.55, 0.7, 0.85]), st.integers(0, 2**32 - 1))
def test_string_pull_on_bits(depth, width, density, seed):
    """String-pulling on bit rows (with its cache of blocking cells) keeps the
    very nodes of the plain string pull, on A* paths and on random walks."""
    rng = np.random.default_rng(seed)
    walk = rng.random((depth, width)) < density
    pf = Pathfinder(NavGrid(walk), costs="exact")
    bits = pf.engine.jps.bits()
    free = np.argwhere(walk)
    if len(free) < 2:
        return
    for _ in range(8):
        (sz, sx), (gz, gx) = free[rng.integers(len(free), size=2)]
        r = pf.find_path_cells((sx, sz), (gx, gz), algorithm="astar")
        if not r.found:
            continue
        cells = np.ascontiguousarray(r.cells, dtype=np.int32)
        nodes = ((cells[:, 1] + 1) * pf.engine.padded.wp + cells[:, 0] + 1).astype(np.int32)
        out1 = np.zeros(len(nodes) + 1, np.int32)
        out2 = np.zeros(len(nodes) + 1, np.int32)
        m1 = _query.string_pull_bits(bits, nodes, cells, len(nodes), out1)
        m2 = _geo.string_pull(pf.engine.occupancy.cells, (pf.engine.overlay.marks, np.int32(0)),
                              pf.engine.padded.wp, nodes, len(nodes), out2)
        np.testing.assert_array_equal(out1[:m1], out2[:m2])


@fixed(60)
@given(st.integers(1, 20), st.integers(1, 20),
       st.sampled_from([0.4, 0.6, 0.8]), st.integers(0, 2**32 - 1))
def test_reachable_nearest_is_dijkstras(depth, width, density, seed):
    """The flood's pick == the reachable cell closest to the goal by Dijkstra reachability."""
    rng = np.random.default_rng(seed)
    walk = rng.random((depth, width)) < density
    free = np.argwhere(walk)
    if len(free) == 0:
        return
    pf = Pathfinder(NavGrid(walk), costs="seed")
    for _ in range(5):
        sz, sx = free[rng.integers(len(free))]
        goal = (int(rng.integers(-3, width + 3)), int(rng.integers(-3, depth + 3)))
        ws = pf.engine.workspace
        best, count = _geo.reachable_nearest(pf.engine.occupancy.cells, (pf.engine.overlay.marks,
                                                                         np.int32(0)),
                                             np.int64(pf.engine.padded.wp),
                                             np.int64((sz + 1) * pf.engine.padded.wp + sx + 1),
                                             np.int64(goal[0] + 1), np.int64(goal[1] + 1),
                                             ws.tag, np.int64(ws.next_gen()), ws.path)
        dist = dijkstra_costs(walk, None, (sx, sz), 10, 14)
        assert pf.engine.padded.cell(int(best)) == ref_reachable_nearest(dist, goal)
        assert count == int(np.isfinite(dist).sum())


def test_nearest_paths_go_to_the_reachable_cell_closest_to_the_goal():
    walk = np.ones((30, 30), bool)
    walk[:, 15] = False  # the right half is cut off
    walk[10, 3:14] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    # (15.5, 15.5) lies in the wall: it snaps to (14, 15), on this side
    for goal, status in [((25.5, 5.5), Status.NEAREST), ((22.5, 29.5), Status.NEAREST),
                         ((15.5, 15.5), Status.FOUND), ((40.0, 12.0), Status.NEAREST)]:
        r = pf.find_path_to_nearest((2.5, 2.5), goal)
        assert r.status == status
        a = pf.find_path_to_nearest((2.5, 2.5), goal, algorithm="astar")
        assert (r.status, r.cost_int, r.end_cell) == (a.status, a.cost_int, a.end_cell)
        assert is_valid_path(walk, r.cells) and r.end_cell[0] == 14
    # budget smaller than the grid: A* decides which cells count, as on the Python path
    r = pf.find_path_to_nearest((2.5, 2.5), (25.5, 5.5), budget=50)
    a = pf.find_path_to_nearest((2.5, 2.5), (25.5, 5.5), budget=50, algorithm="jps")
    same(r, stepwise(pf, (2.5, 2.5), (25.5, 5.5), nearest=True, budget=50))
    assert r.status == a.status


def test_bad_and_odd_obstacles():
    walk = np.ones((10, 10), bool)
    pf = Pathfinder(NavGrid(walk))
    with pytest.raises(QueryError, match=r"obstacles\[1\]"):
        pf.find_path((0.5, 0.5), (8.5, 8.5),
                     obstacles=np.array([[1.0, 1.0, 1.0], [np.nan, 2.0, 1.0]]))
    with pytest.raises(QueryError, match=r"obstacles\[0\] has a negative radius"):
        pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=[[5.0, 5.0, -1.0]])
    with pytest.raises(QueryError, match="shape"):
        pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=np.zeros((2, 4)))
    free = pf.find_path((0.5, 0.5), (8.5, 8.5))
    # a failed query leaves no stamp behind
    same(pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=np.zeros((0, 3))), free)
    # absurd circles: a QueryError on both paths, never a crash
    for circles in ([[1e300, 1e300, 1e300]], [[-1e300, 5.0, 1.0]], [[5.0, 5.0, 1e300]]):
        for query in (pf.find_path, lambda a, b, **kw: stepwise(pf, a, b, **kw)):
            with pytest.raises(QueryError, match=r"obstacles\[0\] .* lies beyond"):
                query((0.5, 0.5), (8.5, 8.5), obstacles=circles)
    # far away but sane ones, and a huge one that covers everything
    for circles in ([[1e14, -1e14, 5.0]], [[5.0, 5.0, 1e14]], [[-1e14, 5.0, 1e14 - 100]]):
        r = pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=circles)
        same(r, stepwise(pf, (0.5, 0.5), (8.5, 8.5), obstacles=circles))
    # any array-like: lists, Obstacle tuples, ints, Fortran order, a (3,) triple
    o = np.array([[4.5, 4.5, 1.2], [2.0, 7.0, 0.8]])
    want = pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=o)
    for alt in (o.tolist(), [Obstacle(*row) for row in o.tolist()],
                np.asfortranarray(o), o.astype(np.float32)):
        same(pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=alt), want)
    same(pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=(4.5, 4.5, 1.2)),
         pf.find_path((0.5, 0.5), (8.5, 8.5), obstacles=o[:1]))
    # a world point far outside: QueryError from the Python path, never a crash
    with pytest.raises(QueryError):
        pf.find_path_to_nearest((0.5, 0.5), (1e300, 0.5))
    r = pf.find_path((0.5, 0.5), (1e300, 0.5))
    assert r.status == Status.NO_GOAL
    r = pf.find_path_to_nearest((0.5, 0.5), (30.0, 3.0))  # outside: answered by the Python path
    assert r.status == Status.NEAREST and r.end_cell == (9, 3)


def test_counters_wrap_around():
    walk = np.ones((12, 12), bool)
    walk[6, 1:11] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    ref = Pathfinder(NavGrid(walk), costs="exact")
    pf.find_path((0.5, 0.5), (5.5, 11.5))  # builds the kernel's arguments
    limit = _query.GEN_LIMIT
    pf.engine.overlay.counters[:] = (limit - 2, limit - 1)
    pf.engine.workspace.gens[0] = limit - 1
    circles = [[[3.0, 3.0, 1.0]], [[8.0, 9.0, 1.5]], None]
    for i in range(12):
        o = circles[i % 3]
        for kw in ({"nearest": True}, {"nearest": False}):
            same(pf.find_path((0.5, 0.5), (11.5, 11.5 - i), obstacles=o, **kw),
                 stepwise(ref, (0.5, 0.5), (11.5, 11.5 - i), obstacles=o, **kw))
    assert (pf.engine.overlay.counters[0] < 100 and pf.engine.overlay.counters[1] < 100
            and pf.engine.workspace.gens[0] < 100)


def test_long_world_path_grows_the_buffers():
    walk = np.zeros((61, 61), bool)
    walk[::2, :] = True
    for z in range(1, 61, 2):
        walk[z, 60 if (z // 2) % 2 == 0 else 0] = True
    pf = Pathfinder(NavGrid(walk), costs="exact")
    pf.engine.jps_bufs.grow(4)
    pf.engine.jps_bufs.cells = pf.engine.jps_bufs.cells[:4]
    pf.engine.jps_bufs.wpts = pf.engine.jps_bufs.wpts[:4]
    r = pf.find_path((0.5, 0.5), (0.5, 60.5), smooth=False)
    ref = Pathfinder(NavGrid(walk), costs="exact")
    same(r, stepwise(ref, (0.5, 0.5), (0.5, 60.5), smooth=False))
    assert len(r.cells) > 1024 and len(pf.engine.jps_bufs.cells) >= len(r.cells)


def test_navmap_queries_use_one_call_and_agree():
    walk = np.ones((20, 20), bool)
    walk[10, 2:18] = False
    nav = NavMap(NavGrid(walk, cell_size=0.5), cache_size=0)
    ref = Pathfinder(NavGrid(walk, cell_size=0.5))
    obs = np.array([[5.0, 2.0, 0.6], [2.0, 7.0, 0.6]])
    for a, b in [((0.3, 0.3), (9.7, 9.7)), ((9.7, 0.3), (0.3, 9.7)), ((5.0, 2.0), (5.0, 8.0))]:
        same(nav.find_path_to_nearest(a, b, obstacles=obs),
             stepwise(ref, a, b, obstacles=obs, nearest=True))
        same(nav.find_path(a, b), stepwise(ref, a, b))
    assert nav.pathfinder.world.kernel_queries == 6


def test_one_call_without_jit():
    """The kernel runs as plain Python (NUMBA_DISABLE_JIT=1) with the same answers."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, numpy as np, numba\n"
        "from navkit import NavGrid, Pathfinder\n"
        "assert numba.config.DISABLE_JIT\n"
        "rng = np.random.default_rng(4)\n"
        "walk = rng.random((16, 18)) < 0.8\n"
        "pf = Pathfinder(NavGrid(walk, cell_size=0.5), costs='exact')\n"
        "obs = np.array([[3.0, 3.0, 0.6], [6.0, 2.0, 0.9]])\n"
        "out = []\n"
        "for i in range(12):\n"
        "    a = (float(rng.uniform(0, 9)), float(rng.uniform(0, 8)))\n"
        "    b = (float(rng.uniform(0, 9)), float(rng.uniform(0, 8)))\n"
        "    r = pf.find_path(a, b, obstacles=obs if i % 3 else None, nearest=bool(i % 2))\n"
        "    out.append([int(r.status), int(r.cost_int), r.cells.tolist(), r.waypoints.tolist()])\n"
        "print(json.dumps(out))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env=env, timeout=300, check=True)
    got = json.loads(done.stdout)
    ns: dict = {}
    exec(code.replace("assert numba.config.DISABLE_JIT\n", "")
             .replace("print(json.dumps(out))\n", ""), ns)
    assert got == json.loads(json.dumps(ns["out"]))
    assert any(row[0] == int(Status.NEAREST) or row[0] == int(Status.FOUND) for row in got)


# ------------------------------------------------------------------ snapping cost (hardening)
@pytest.mark.parametrize("snap_radius, cell_size", [(1e9, 1.0), (3e4, 1.0), (8.0, 1e-4),
                                                    (1e300, 1.0)])
def test_snapping_on_a_blocked_grid_stops_at_the_grid_edge(snap_radius: float,
                                                           cell_size: float) -> None:
    # all blocked: every ring up to the radius used to be walked (1e9: never returned)
    import time

    grid = NavGrid(np.zeros((8, 8), bool), cell_size=cell_size)
    pf = Pathfinder(grid, snap_radius=snap_radius)
    Pathfinder(NavGrid(np.ones((2, 2), bool))).find_path((0.5, 0.5), (1.5, 1.5))  # compiled
    t0 = time.perf_counter()
    r = pf.find_path((0.5 * cell_size, 0.5 * cell_size), (7.5 * cell_size, 7.5 * cell_size))
    assert r.status == Status.NO_START
    assert pf.snap((3 * cell_size, 3 * cell_size)) is None
    assert time.perf_counter() - t0 < 1.0


def test_snapping_with_a_huge_radius_equals_brute_force() -> None:
    rng = np.random.default_rng(3)
    for _ in range(30):
        walk = rng.random((9, 13)) < 0.08
        pf = Pathfinder(NavGrid(walk), snap_radius=1e12)
        free = np.argwhere(walk)
        for px, pz in rng.uniform(-30, 40, size=(10, 2)):
            got = pf.snap((px, pz))
            cx, cz = int(np.floor(px)), int(np.floor(pz))
            if 0 <= cx < 13 and 0 <= cz < 9 and walk[cz, cx]:
                assert got == (cx, cz)
                continue
            if not len(free):
                assert got is None
                continue
            # nearest by squared cell distance, ties to the lower padded index (row-major)
            d2 = (free[:, 1] - cx) ** 2 + (free[:, 0] - cz) ** 2
            best = min(zip(d2.tolist(), free[:, 0].tolist(), free[:, 1].tolist(), strict=True))
            assert got == (best[2], best[1]), (px, pz, got, best)

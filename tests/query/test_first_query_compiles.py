"""What a cold first query compiles (issue #13), and the world kernel variant
for plain queries (``navkit._kernels.query.world_jps_free``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import navkit
from navkit._kernels import query as _query
from navkit._kernels.layouts import WorldArgs, WorldOut

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import json
import numpy as np
import navkit
from navkit._kernels import geometry as G, jps as J, query as Q, search as S

KERNELS = {"jps": J.jps, "jps_path": J.jps_path, "_add": J._add, "_scan_fwd": J._scan_fwd,
           "overlay_block": J.overlay_block, "overlay_restore": J.overlay_restore,
           "stamp_circles": G.stamp_circles, "reachable_nearest": G.reachable_nearest,
           "release": Q.release, "world_jps": Q.world_jps, "world_jps_free": Q.world_jps_free,
           "move_masks": S.move_masks, "nearest_free": G.nearest_free}

def count():
    return {k: len(d.signatures) for k, d in KERNELS.items()}

walk = np.ones((24, 24), bool)
walk[4:20, 12] = False
pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
out = {}
pf.find_path_cells((1, 1), (22, 22))
out["cells"] = count()
pf.find_path((1.5, 1.5), (22.5, 22.5))
out["world"] = count()
pf.find_path((1.5, 1.5), (22.5, 22.5), obstacles=[(8.0, 8.0, 1.5)])
pf.find_path_to_nearest((1.5, 1.5), (12.5, 10.5))
out["general"] = count()
pf.find_path_cells((1, 1), (22, 22), algorithm="astar")
out["astar"] = count()
print("PROBE " + json.dumps(out))
"""


def test_a_cold_first_query_compiles_only_what_it_runs(tmp_path: Path) -> None:
    """In a new process with an empty cache: a first cell query compiles one
    JPS specialisation and no world or overlay kernel; a first world query
    without obstacles (ends on free cells) reuses it and compiles no overlay
    kernel, no nearest-cell or snapping ring search and not the general world kernel; queries with
    obstacles or to the nearest cell compile the general kernel, still on
    the same JPS specialisation. The level-queue A*'s move masks are built
    (and compiled) at the first A* query, not for JPS queries."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_DISABLE_JIT", "NAVKIT_NUMBA_CACHE")}
    env.update(PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path), NAVKIT_QUIET_COMPILE="1")
    r = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env,
                       timeout=900, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("PROBE "))
    got = json.loads(line.split(" ", 1)[1])
    assert got["cells"] == {"jps": 1, "jps_path": 1, "_add": 1, "_scan_fwd": 1,
                            "overlay_block": 0, "overlay_restore": 0, "stamp_circles": 0,
                            "reachable_nearest": 0, "release": 0, "world_jps": 0,
                            "world_jps_free": 0, "move_masks": 0, "nearest_free": 0}
    assert got["world"] == {**got["cells"], "world_jps_free": 1}
    general = got["general"]
    assert general["world_jps"] == 1 and general["world_jps_free"] == 1
    assert general["nearest_free"] == 1  # snapping: compiled with world_jps, not before
    assert general["overlay_block"] == 1 and general["stamp_circles"] == 1
    assert general["reachable_nearest"] == 1
    assert general["jps"] == 1 and general["_add"] == 1  # one JPS specialisation throughout
    assert general["move_masks"] == 0 and got["astar"]["move_masks"] == 1


def _walk(rng: np.random.Generator, depth: int, width: int, density: float) -> np.ndarray:
    return rng.random((depth, width)) < density


def test_the_free_kernel_equals_the_general_one() -> None:
    """world_jps_free answers what world_jps answers with no circles (status,
    counts, cost, ends, waypoints) when both ends lie on free cells, and its
    costs are A*'s; otherwise it answers NEED_SNAP (world_jps snaps)."""
    checked = 0
    deferred = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        depth, width = int(rng.integers(2, 40)), int(rng.integers(2, 40))
        grid = navkit.NavGrid(_walk(rng, depth, width, float(rng.choice([0.6, 0.8, 1.0]))),
                              cell_size=float(rng.choice([1.0, 0.5])), min_x=-2.0, min_z=3.0)
        pf = navkit.Pathfinder(grid, costs="seed" if rng.integers(2) else "exact")
        ref = navkit.Pathfinder(grid, costs=pf.costs)
        fx = pf.engine.world.kernel_args()
        wpts = WorldOut(*WorldArgs(*fx).out).wpts
        none = np.zeros((0, 3))
        res_a = np.zeros(_query.RES_SIZE, np.int64)
        res_b = np.zeros(_query.RES_SIZE, np.int64)
        lo = (grid.min_x - 1.0, grid.min_z - 1.0)
        hi = (grid.min_x + (width + 1) * grid.cell_size,
              grid.min_z + (depth + 1) * grid.cell_size)
        for _ in range(40):
            sx, ex = rng.uniform(lo[0], hi[0], 2)
            sz, ez = rng.uniform(lo[1], hi[1], 2)
            smooth = bool(rng.integers(2))
            a = _query.world_jps(fx, none, sx, sz, ex, ez, 10**9, False, smooth, res_a)
            wa = wpts.copy()
            b = _query.world_jps_free(fx, none, sx, sz, ex, ez, 10**9, False, smooth, res_b)
            ends = [grid.world_to_cell(sx, sz), grid.world_to_cell(ex, ez)]
            on_free = all(grid.in_bounds(*c) and grid.walkable[c[1], c[0]] for c in ends)
            if b == _query.NEED_SNAP:  # it leaves snapping to world_jps
                assert not on_free
                deferred += 1
                continue
            assert on_free and a == b
            np.testing.assert_array_equal(res_a, res_b)
            if b == int(navkit.Status.FOUND):
                first, n = int(res_b[_query.R_FIRST]), int(res_b[_query.R_NPTS])
                np.testing.assert_array_equal(wa[first:first + n], wpts[first:first + n])
                r = ref.find_path((sx, sz), (ex, ez), algorithm="astar", smooth=smooth)
                assert r.status == navkit.Status.FOUND and r.cost_int == res_b[_query.R_COST]
                checked += 1
    assert checked > 20 and deferred > 20


def test_plain_world_queries_run_the_free_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """find_path without obstacles and not to the nearest cell runs
    world_jps_free, after releasing a standing overlay the way world_jps
    would; the others run world_jps. The answers are those of a fresh
    Pathfinder and the packed rows come back to the cells."""
    calls: list[str] = []
    free, general = _query.world_jps_free, _query.world_jps

    def spy(name: str, kernel: Any) -> Any:
        def run(*a: Any) -> Any:
            calls.append(name)
            return kernel(*a)
        return run

    monkeypatch.setattr(_query, "world_jps_free", spy("free", free))
    monkeypatch.setattr(_query, "world_jps", spy("general", general))
    walk = np.ones((20, 30), bool)
    walk[3:17, 10] = False
    walk[5, 3:25] = False
    pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
    a, b = (1.5, 1.5), (27.5, 18.5)
    mid = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact").find_path(a, b).cells[17]
    obstacles = [(float(mid[0]) + 0.5, float(mid[1]) + 0.5, 1.5), (20.0, 15.0, 1.0)]
    calls.clear()
    r_obs = pf.find_path(a, b, obstacles=obstacles)
    assert calls == ["general"] and pf.engine.overlay.standing[0] > 0  # the standing overlay
    r_plain = pf.find_path(a, b)
    assert calls == ["general", "free"] and pf.engine.overlay.standing[0] == 0
    r_near = pf.find_path_to_nearest(a, b)
    assert calls == ["general", "free", "general"]
    for got, want in ((r_obs, navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
                       .find_path(a, b, obstacles=obstacles)),
                      (r_plain, navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
                       .find_path(a, b)),
                      (r_near, navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
                       .find_path_to_nearest(a, b))):
        assert got.status == want.status and got.cost_int == want.cost_int
        np.testing.assert_array_equal(got.cells, want.cells)
        np.testing.assert_array_equal(got.waypoints, want.waypoints)
    assert r_obs.cost_int > r_plain.cost_int  # the circles were in the way, then were not
    fresh = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
    for mine, theirs in zip(pf.engine.jps.bits()[:2], fresh.engine.jps.bits()[:2], strict=True):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("rule", [0, 1, 2, 3])
def test_move_masks_equal_brute_force(rule: int) -> None:
    """move_masks (its diagonal test written as a count of free side cells)
    against the rule spelled out: 0 no diagonals, 1 both side cells free,
    2 at least one, 3 always; blocked nodes and moves into blocked cells 0."""
    from navkit._kernels.search import move_masks

    rng = np.random.default_rng(rule)
    for _ in range(5):
        depth, width = int(rng.integers(1, 14)), int(rng.integers(1, 14))
        walk = np.zeros((depth + 2, width + 2), np.uint8)
        walk[1:-1, 1:-1] = rng.random((depth, width)) < 0.7
        cells = walk.ravel()
        wp = width + 2
        out = np.zeros_like(cells)
        move_masks(cells, np.int64(wp), np.int64(1), np.int64(1), np.int64(width),
                   np.int64(depth), np.int64(rule), out)
        for z in range(1, depth + 1):
            for x in range(1, width + 1):
                want = 0
                if walk[z, x]:
                    moves = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]
                    for d, (dx, dz) in enumerate(moves):
                        if not walk[z + dz, x + dx]:
                            continue
                        if dx and dz:
                            sides = int(walk[z, x + dx]) + int(walk[z + dz, x])
                            if not (rule == 3 or (rule == 2 and sides >= 1)
                                    or (rule == 1 and sides == 2)):
                                continue
                        want |= 1 << d
                assert out[z * wp + x] == want, (rule, x, z)

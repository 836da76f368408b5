"""One query object shared by threads: every answer equals the single-threaded one.

Before the objects had a lock, 4 threads on one Pathfinder, HPAStar or NavMap
segfaulted or hung (their kernels share workspaces), and a shared World gave
wrong answers and stayed corrupted (its block cache, hierarchy and buffers). The workload runs in a
subprocess, so a crash or a hang fails this test instead of killing the run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WORKLOAD = textwrap.dedent("""
    import sys, threading, time
    import numpy as np
    import navkit

    SECONDS = float(sys.argv[1])
    rng = np.random.default_rng(7)
    walk = rng.random((48, 64)) > 0.25
    grid = navkit.NavGrid(walk, cell_size=0.5)
    free = np.argwhere(walk)[:, ::-1]
    pairs = [(tuple(map(int, free[i])), tuple(map(int, free[j])))
             for i, j in rng.integers(0, len(free), size=(24, 2))]
    obs = np.array([[10.0, 8.0, 1.5], [20.0, 12.0, 2.0]])

    def pf_calls(pf):
        out = []
        for s, g in pairs[:6]:
            out.append(("astar", pf.find_path_cells(s, g, algorithm="astar").cost))
            out.append(("jps", pf.find_path_cells(s, g, algorithm="jps").cost))
            out.append(("obs", pf.find_path_cells(s, g, obstacles=obs).cost))
            out.append(("nearest", pf.find_path_cells(s, (0, 0), nearest=True).cost))
            w = pf.find_path((s[0] * 0.5 + 0.25, s[1] * 0.5 + 0.25),
                             (g[0] * 0.5 + 0.25, g[1] * 0.5 + 0.25), obstacles=obs)
            out.append(("world", w.cost, w.waypoints.tobytes()))
        b = pf.find_paths_cells(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
        out.append(("batch", b.cost.tobytes()))
        out.append(("field", pf.distance_field([pairs[0][0]]).tobytes()))
        return out

    def hpa_calls(h):
        return [h.find_path_cells(s, g).cost for s, g in pairs[:8]]

    def nav_calls(nav):
        out = []
        for s, g in pairs[:8]:
            a = (s[0] * 0.5 + 0.25, s[1] * 0.5 + 0.25)
            b = (g[0] * 0.5 + 0.25, g[1] * 0.5 + 0.25)
            out.append(nav.find_path_to_nearest(a, b, obstacles=obs).cost)
            out.append(nav.find_path(a, b).cost)
        return out

    def world_calls(w):
        out = []
        for s, g in pairs[:6]:
            a = (s[0] * 0.5 + 0.25, s[1] * 0.5 + 0.25)
            b = (g[0] * 0.5 + 0.25, g[1] * 0.5 + 0.25)
            out.append(w.find_path(a, b, obstacles=obs).waypoints.tobytes())
            out.append(w.find_path_cells(s, g, window=(0, 0, 40, 30)).cost)
            out.append(w.find_path_to_nearest(a, b, preset="bounded").cost)
            out.append(w.find_path_cells(s, g).cost)
        return out

    def mesh_calls(m):
        out = []
        for s, g in pairs[:6]:
            a = (s[0] * 0.5 + 0.25, s[1] * 0.5 + 0.25)
            b = (g[0] * 0.5 + 0.25, g[1] * 0.5 + 0.25)
            out.append(m.find_path(a, b).waypoints.tobytes())
            out.append(m.find_path(a, b, algorithm="funnel", obstacles=obs).length)
            out.append(m.find_path_to_nearest(a, (100.0, 100.0)).length)
        return out

    def hammer(name, obj, calls):
        want = calls(obj)  # single-threaded reference
        errors, rounds = [], [0]
        stop = time.perf_counter() + SECONDS

        def worker():
            while time.perf_counter() < stop:
                got = calls(obj)
                rounds[0] += 1
                if got != want:
                    errors.append(name)
                    return

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=SECONDS + 120)
            if t.is_alive():
                print("HANG", name, flush=True)
                sys.exit(3)
        print(name, "rounds", rounds[0], "errors", len(errors), flush=True)
        return not errors

    pf = navkit.Pathfinder(grid, costs="exact")
    ok = hammer("pathfinder", pf, pf_calls)
    ok &= hammer("hpa", navkit.HPAStar(grid, costs="exact", cluster_size=8), hpa_calls)
    ok &= hammer("navmap", navkit.NavMap(grid, cache_size=4), nav_calls)
    from navkit.world.world import World
    ok &= hammer("world", World.from_grid(grid, chunk=16, small_world_cells=0,
                                          block_cap_bytes=1 << 14), world_calls)
    ok &= hammer("navmesh", navkit.NavMesh.from_grid(grid), mesh_calls)
    print("OK" if ok else "WRONG", flush=True)
""")


def test_four_threads_sharing_one_object_get_the_single_threaded_answers() -> None:
    r = subprocess.run([sys.executable, "-c", WORKLOAD, "2.0"], cwd=str(ROOT),
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"exit {r.returncode} (negative: a signal)\n{r.stdout}\n{r.stderr}"
    assert r.stdout.strip().endswith("OK"), r.stdout
    for name in ("pathfinder", "hpa", "navmap", "world", "navmesh"):
        line = next(ln for ln in r.stdout.splitlines() if ln.startswith(name))
        assert int(line.split()[2]) > 0, line  # every object was really shared

"""HPA* (navkit.query.hpa) checked against oracles it did not produce.

* scipy's Dijkstra on an explicitly built move graph (tests/reference.py):
  every HPA* path is a legal move chain from the start cell to the goal cell,
  its reported cost is the cost of its cells recomputed step by step, never
  below the optimal cost, and a path is returned exactly when one exists;
* a fresh build: an incrementally updated HPAStar holds the same arrays as
  one built from scratch on the changed grid;
* the Moving AI optimal lengths: on a fixed subset of scenario lines the
  mean suboptimality stays within 5%.

Hypothesis runs derandomized with no database, so every run checks the same
cases.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import navkit
from navkit import ConfigError, NavGrid, QueryError, Status
from navkit.query.hpa import HPAStar
from tests.conftest import NAMED_COSTS, fixed
from tests.jitcheck import assert_same_without_jit
from tests.reference import brute_line_of_sight, dijkstra_costs, is_valid_path, path_cost


# --------------------------------------------------------------------------- strategies
@st.composite
def hpa_cases(draw: st.DrawFn, max_side: int = 40) -> dict[str, object]:
    """A random grid (up to ``max_side`` cells a side) and HPA* settings."""
    depth = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.55, 0.7, 0.8, 0.9, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    walk = rng.random((depth, width)) < density
    if draw(st.booleans()):
        # long walls with gaps: entrances of every length, cut-off pockets
        for _ in range(draw(st.integers(1, 4))):
            if rng.random() < 0.5:
                walk[int(rng.integers(depth)), :] = False
            else:
                walk[:, int(rng.integers(width))] = False
            gaps = rng.integers(0, depth * width, size=3)
            walk.flat[gaps] = True
    weights = (rng.integers(1, 10, size=(depth, width)).astype(np.int32) if draw(st.booleans())
               else None)
    name = draw(st.sampled_from(["seed", "exact", "pair"]))
    if name == "pair":
        card = draw(st.integers(1, 30))
        diag = draw(st.integers(card, 2 * card))
        costs: object = (card, diag)
    else:
        costs = name
        card, diag = NAMED_COSTS[name]
    return {
        "walk": walk,
        "weights": weights,
        "costs": costs,
        "card": card,
        "diag": diag,
        "C": draw(st.integers(4, 8)),
        "gap": draw(st.sampled_from([None, 1, 2, 3, 16])),
        "conn": draw(st.sampled_from([8, 8, 8, 4])),
    }


def make(case: dict[str, object]) -> HPAStar:
    grid = NavGrid(case["walk"], weights=case["weights"])  # type: ignore[arg-type]
    return HPAStar(grid, costs=case["costs"], cluster_size=case["C"],  # type: ignore[arg-type]
                   connectivity=case["conn"], entrance_gap=case["gap"])  # type: ignore[arg-type]


def cells_st(walk: np.ndarray) -> st.SearchStrategy[tuple[int, int]]:
    depth, width = walk.shape
    anywhere = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    free = [(int(x), int(z)) for z, x in zip(*np.nonzero(walk), strict=True)]
    if not free:
        return anywhere
    return st.one_of(anywhere, st.sampled_from(free), st.sampled_from(free), st.sampled_from(free))


def check_answer(case: dict[str, object], r: navkit.PathResult, s: tuple[int, int],
                 g: tuple[int, int], dist: np.ndarray) -> None:
    """``r`` answers s -> g correctly given the Dijkstra costs ``dist`` from s."""
    walk: np.ndarray = case["walk"]  # type: ignore[assignment]
    card, diag = int(case["card"]), int(case["diag"])  # type: ignore[call-overload]
    eight = case["conn"] == 8
    if not walk[s[1], s[0]]:
        assert r.status == Status.NO_START
        return
    if not walk[g[1], g[0]]:
        assert r.status == Status.NO_GOAL
        return
    opt = dist[g[1], g[0]]
    if not math.isfinite(opt):
        assert r.status == Status.UNREACHABLE
        assert len(r.cells) == 0 and r.cost == math.inf and r.cost_int == -1
        return
    assert r.status == Status.FOUND, (s, g, r)
    cells = np.asarray(r.cells)
    assert tuple(cells[0]) == s and tuple(cells[-1]) == g
    assert is_valid_path(walk, cells, eight=eight)
    c = path_cost(cells, case["weights"], card, diag)  # type: ignore[arg-type]
    assert r.cost_int == c
    assert r.cost_int >= int(opt)
    assert r.cost == c / card
    assert len(r.waypoints) == len(cells)


# --------------------------------------------------------------------------- paths
@fixed(300)
@given(case=hpa_cases(), data=st.data())
def test_paths_are_valid_costed_and_complete(case, data):
    """Valid chain, exact cost >= optimal; FOUND iff a path exists (else UNREACHABLE / NO_*)."""
    hpa = make(case)
    walk = case["walk"]
    eight = case["conn"] == 8
    for _ in range(4):
        s = data.draw(cells_st(walk), label="start")
        dist = dijkstra_costs(walk, case["weights"], s, case["card"], case["diag"], eight)
        for _ in range(3):
            g = data.draw(cells_st(walk), label="goal")
            check_answer(case, hpa.find_path_cells(s, g), s, g, dist)
    assert hpa.fallbacks == 0


@fixed(60)
@given(case=hpa_cases(max_side=30), data=st.data())
def test_smoothed_waypoints_see_each_other(case, data):
    hpa = make(case)
    walk = case["walk"]
    free = np.argwhere(walk)
    if len(free) < 2:
        return
    for _ in range(3):
        s = tuple(int(v) for v in free[data.draw(st.integers(0, len(free) - 1))][::-1])
        g = tuple(int(v) for v in free[data.draw(st.integers(0, len(free) - 1))][::-1])
        r = hpa.find_path_cells(s, g, smooth=True)
        if r.status != Status.FOUND:
            continue
        raw = hpa.find_path_cells(s, g)
        assert np.array_equal(r.cells, raw.cells) and r.cost_int == raw.cost_int
        pts = np.asarray(r.waypoints)
        kept = np.floor(pts).astype(int)  # unit cells at the origin: centre -> cell
        assert tuple(kept[0]) == s and tuple(kept[-1]) == g
        if case["conn"] == 8:
            for a, b in zip(kept[:-1], kept[1:], strict=True):
                assert brute_line_of_sight(walk, a, b)


def test_unreachable_returns_without_search():
    walk = np.ones((20, 30), dtype=bool)
    walk[:, 15] = False
    hpa = HPAStar(NavGrid(walk), cluster_size=8)
    r = hpa.find_path_cells((1, 1), (28, 18))
    assert r.status == Status.UNREACHABLE and r.expanded == 0 and not r.has_path
    comp = hpa.components()
    assert comp[1, 1] != comp[18, 28] and comp[0, 15] == 0


def test_same_cell_and_blocked_endpoints():
    walk = np.ones((10, 10), dtype=bool)
    walk[5, 5] = False
    hpa = HPAStar(NavGrid(walk), cluster_size=4)
    r = hpa.find_path_cells((2, 3), (2, 3))
    assert r.status == Status.FOUND and r.cells.tolist() == [[2, 3]] and r.cost == 0
    assert hpa.find_path_cells((5, 5), (0, 0)).status == Status.NO_START
    assert hpa.find_path_cells((0, 0), (5, 5)).status == Status.NO_GOAL


def test_pocket_without_entrances_is_reached_inside_its_cluster():
    """A region touching no border crossing: only the in-cluster candidate reaches it."""
    walk = np.zeros((16, 16), dtype=bool)
    walk[1:7, 1:7] = True  # inside cluster 0 (C = 8), no cell on a shared border
    walk[9:15, 9:15] = True
    hpa = HPAStar(NavGrid(walk), cluster_size=8)
    r = hpa.find_path_cells((1, 1), (6, 6))
    assert r.status == Status.FOUND and r.cost == pytest.approx(5 * math.sqrt(2), abs=1e-5)
    assert hpa.find_path_cells((1, 1), (10, 10)).status == Status.UNREACHABLE
    assert hpa.stats.nodes == 0


def test_batch_equals_single_queries():
    rng = np.random.default_rng(5)
    walk = rng.random((37, 41)) < 0.8
    hpa = HPAStar(NavGrid(walk), cluster_size=6)
    starts = rng.integers(0, 37, size=(30, 2))
    goals = rng.integers(0, 37, size=(30, 2))
    b = hpa.find_paths_batch(starts, goals, return_paths=True)
    for i in range(30):
        r = hpa.find_path_cells(starts[i], goals[i])
        assert int(b.status[i]) == int(r.status) and int(b.cost_int[i]) == r.cost_int
        assert np.array_equal(b.path(i), r.cells)


def test_determinism():
    rng = np.random.default_rng(9)
    walk = rng.random((40, 40)) < 0.75
    a = HPAStar(NavGrid(walk), cluster_size=7)
    b = HPAStar(NavGrid(walk), cluster_size=7)
    for _ in range(20):
        s, g = tuple(rng.integers(0, 40, 2)), tuple(rng.integers(0, 40, 2))
        ra, rb = a.find_path_cells(s, g), b.find_path_cells(s, g)
        assert ra.status == rb.status and np.array_equal(ra.cells, rb.cells)


def test_threaded_build_equals_one_thread(monkeypatch: pytest.MonkeyPatch):
    """The cluster Dijkstras shared out over threads give the same graph, trees and
    updates as on one thread (each thread writes only its own clusters' rows)."""
    from navkit.query import hpa_graph

    rng = np.random.default_rng(5)
    walk = rng.random((200, 200)) < 0.7
    weights = rng.integers(1, 4, walk.shape).astype(np.int32)
    changed = walk.copy()
    changed[40:160, 100] = False
    grids = [NavGrid(walk, weights=weights), NavGrid(changed, weights=weights)]
    calls: list[int] = []
    fan_out = hpa_graph.fan_out
    monkeypatch.setattr(hpa_graph, "max_threads", lambda: 4)
    monkeypatch.setattr(hpa_graph, "fan_out",
                        lambda n, items, work: (calls.append(n), fan_out(n, items, work)))
    threaded = HPAStar(grids[0], cluster_size=6)
    threaded.update(grids[1])
    assert calls and calls[0] == 4  # 1,156 clusters: 4 threads
    monkeypatch.setattr(hpa_graph, "max_threads", lambda: 1)
    single = HPAStar(grids[0], cluster_size=6)
    single.update(grids[1])
    assert_same_graph(threaded, single)
    assert np.array_equal(threaded.graph.trees, single.graph.trees)


# --------------------------------------------------------------------------- updates
def assert_same_graph(a: HPAStar, b: HPAStar) -> None:
    ga, gb = a.graph_arrays(), b.graph_arrays()
    for key in ga:
        assert np.array_equal(ga[key], gb[key]), key
    assert np.array_equal(a.components(), b.components())


@fixed(120)
@given(case=hpa_cases(max_side=36), data=st.data())
def test_update_equals_full_rebuild(case, data):
    hpa = make(case)
    walk = case["walk"].copy()
    weights = None if case["weights"] is None else case["weights"].copy()
    depth, width = walk.shape
    for _step in range(3):
        kind = data.draw(st.sampled_from(["cells", "rect", "weights", "unweight"]), label="kind")
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
        new_walk, new_w = walk.copy(), None if weights is None else weights.copy()
        if kind == "cells":
            k = int(rng.integers(1, 6))
            zs, xs = rng.integers(0, depth, k), rng.integers(0, width, k)
            new_walk[zs, xs] = ~new_walk[zs, xs]
        elif kind == "rect":
            x0, z0 = int(rng.integers(width)), int(rng.integers(depth))
            x1, z1 = (min(width, x0 + int(rng.integers(1, 9))),
                      min(depth, z0 + int(rng.integers(1, 9))))
            new_walk[z0:z1, x0:x1] = bool(rng.random() < 0.5)
        elif kind == "weights":
            if new_w is None:
                new_w = np.ones((depth, width), dtype=np.int32)
            k = int(rng.integers(1, 6))
            new_w[rng.integers(0, depth, k), rng.integers(0, width, k)] = rng.integers(1, 10, k)
        else:
            new_w = None
        diff = (new_walk != walk) | (
            (np.ones_like(walk, np.int32) if new_w is None else new_w)
            != (np.ones_like(walk, np.int32) if weights is None else weights))
        grid = NavGrid(new_walk, weights=new_w)
        how = data.draw(st.sampled_from(["none", "mask", "cells", "superset"]), label="how")
        if how == "none":
            rep = hpa.update(grid)
        elif how == "mask":
            rep = hpa.update(grid, diff)
        elif how == "cells":
            rep = hpa.update(grid, np.argwhere(diff)[:, ::-1])
        else:
            extra = diff | (rng.random(diff.shape) < 0.05)
            rep = hpa.update(grid, extra)
        assert rep.changed_cells >= int(diff.sum())
        walk, weights = new_walk, grid.weights
        fresh = HPAStar(grid, costs=case["costs"], cluster_size=case["C"],
                        connectivity=case["conn"], entrance_gap=case["gap"])
        assert_same_graph(hpa, fresh)
        free = np.argwhere(walk)
        if len(free):
            for _ in range(2):
                s = tuple(int(v) for v in free[int(rng.integers(len(free)))][::-1])
                g = tuple(int(v) for v in free[int(rng.integers(len(free)))][::-1])
                ra, rb = hpa.find_path_cells(s, g), fresh.find_path_cells(s, g)
                assert ra.status == rb.status and ra.cost_int == rb.cost_int
                assert np.array_equal(ra.cells, rb.cells)
                dist = dijkstra_costs(walk, grid.weights, s, case["card"],
                                      case["diag"], case["conn"] == 8)
                check_answer({**case, "walk": walk, "weights": grid.weights}, ra, s, g, dist)


def test_update_modes_and_unreachable_after_update():
    walk = np.ones((32, 32), dtype=bool)
    hpa = HPAStar(NavGrid(walk), cluster_size=8)
    # interior cell: transitions unchanged -> in place
    w2 = walk.copy()
    w2[3, 3] = False
    rep = hpa.update(NavGrid(w2), [(3, 3)])
    assert rep.mode == "in-place" and rep.touched_clusters == 1 and rep.changed_cells == 1
    # a wall on a border moves transitions -> splice; both clusters touched
    w3 = w2.copy()
    w3[0:32, 8] = False
    rep = hpa.update(NavGrid(w3))
    assert rep.mode == "splice" and rep.touched_clusters == 8
    r = hpa.find_path_cells((0, 0), (31, 31))
    assert r.status == Status.UNREACHABLE
    rep = hpa.update(NavGrid(w3))
    assert rep.mode == "none"
    assert_same_graph(hpa, HPAStar(NavGrid(w3), cluster_size=8))


def test_update_errors():
    hpa = HPAStar(NavGrid(np.ones((10, 12), dtype=bool)), cluster_size=4)
    with pytest.raises(QueryError, match="shape"):
        hpa.update(NavGrid(np.ones((12, 10), dtype=bool)))
    with pytest.raises(QueryError, match="outside"):
        hpa.update(NavGrid(np.ones((10, 12), dtype=bool)), [(12, 0)])
    with pytest.raises(QueryError, match="changed"):
        hpa.update(NavGrid(np.ones((10, 12), dtype=bool)), np.zeros((3, 3)))
    with pytest.raises(QueryError):
        hpa.update(np.ones((10, 12), dtype=bool))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- API
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"cluster_size": 1}, "cluster_size"), ({"cluster_size": 300}, "cluster_size"),
     ({"cluster_size": 8.0}, "cluster_size"), ({"cluster_size": True}, "cluster_size"),
     ({"connectivity": 6}, "connectivity"), ({"entrance_gap": 0}, "entrance_gap"),
     ({"costs": "nope"}, "costs")],
)
def test_bad_config(kwargs, field):
    with pytest.raises(ConfigError) as exc:
        HPAStar(NavGrid(np.ones((5, 5), dtype=bool)), **kwargs)
    assert exc.value.field == field


@pytest.mark.parametrize("bad", [(5, 0), (-1, 0), (0, 5), (0.5, 1), "ab", (1, 2, 3), (True, False)])
def test_bad_cells(bad):
    hpa = HPAStar(NavGrid(np.ones((5, 5), dtype=bool)), cluster_size=4)
    with pytest.raises(QueryError):
        hpa.find_path_cells(bad, (0, 0))
    with pytest.raises(QueryError):
        hpa.find_path_cells((0, 0), bad)


def test_stats_and_repr():
    rng = np.random.default_rng(3)
    hpa = HPAStar(NavGrid(rng.random((50, 70)) < 0.85), cluster_size=10)
    st_ = hpa.stats
    assert st_.clusters == 5 * 7 and st_.cluster_size == 10
    assert st_.nodes == len(hpa.abstract_nodes()) > 0 and st_.edges > 0
    assert st_.memory_bytes == sum(st_.memory.values()) > 0
    assert set(st_.phases_ms) == {"entrances", "adjacency", "cluster_dijkstra", "components"}
    assert st_.build_ms >= 0 and json.dumps(st_.as_dict())
    assert "HPAStar(" in repr(hpa)
    again = hpa.rebuild()
    assert again.nodes == st_.nodes and again.edges == st_.edges


def test_large_path_grows_output_buffer():
    walk = np.zeros((60, 80), dtype=bool)
    walk[::2, :] = True  # a serpentine: rows joined at alternating ends
    for z in range(1, 60, 2):
        walk[z, 79 if (z // 2) % 2 == 0 else 0] = True
    hpa = HPAStar(NavGrid(walk), cluster_size=8)
    hpa.path_buffer = np.empty(16, dtype=np.int64)  # force the retry path
    r = hpa.find_path_cells((0, 0), (0, 58))
    assert r.status == Status.FOUND and len(r.cells) > 16
    assert is_valid_path(walk, r.cells)


def test_kernels_without_jit():
    """The kernels run as plain Python (NUMBA_DISABLE_JIT=1) and agree with the compiled ones."""
    code = (
        "import numpy as np, navkit\n"
        "from navkit.query.hpa import HPAStar\n"
        "rng = np.random.default_rng(4)\n"
        "walk = rng.random((13, 11)) < 0.8\n"
        "w = rng.integers(1, 4, size=walk.shape)\n"
        "out = []\n"
        "for weights in (None, w):\n"
        "    h = HPAStar(navkit.NavGrid(walk, weights=weights), cluster_size=4, entrance_gap=2)\n"
        "    for s, g in [((0, 0), (10, 12)), ((3, 1), (8, 9)), ((10, 0), (0, 12))]:\n"
        "        r = h.find_path_cells(s, g)\n"
        "        out.append([int(r.status), r.cost_int, r.cells.tolist()])\n"
        "    w2 = walk.copy(); w2[4:6, 3:7] = ~w2[4:6, 3:7]\n"
        "    h.update(navkit.NavGrid(w2, weights=weights))\n"
        "    r = h.find_path_cells((0, 0), (10, 12))\n"
        "    out.append([int(r.status), r.cost_int, r.cells.tolist()])\n"
        "print(out)\n"
    )
    assert_same_without_jit(code, timeout=120)


# --------------------------------------------------------------------------- Moving AI
#: (map, every k-th scenario line) for the suboptimality check.
MOVINGAI_SUBSET = [("den520d", 20), ("Berlin_0_256", 20), ("brc202d", 50), ("ht_chantry", 10)]


@pytest.mark.parametrize(("name", "every"), MOVINGAI_SUBSET)
def test_movingai_suboptimality(movingai: Path, name: str, every: int):
    from navkit.query.checks import path_length

    grid = navkit.load_grid(movingai / f"{name}.map")
    scen = navkit.read_scenarios(movingai / f"{name}.map.scen")
    hpa = HPAStar(grid)  # the defaults
    subs = []
    for i in range(0, len(scen), every):
        s = (int(scen.start[i, 0]), int(scen.start[i, 1]))
        g = (int(scen.goal[i, 0]), int(scen.goal[i, 1]))
        opt = float(scen.optimal[i])
        r = hpa.find_path_cells(s, g)
        length, why = path_length(r.cells, grid.walkable, s, g)
        assert length is not None, (i, why)
        assert abs(length - r.cost) <= 1e-5 * max(1.0, length)
        assert length >= opt - (0.005 + 1e-5 * opt)
        if opt > 0:
            subs.append(length / opt - 1.0)
    assert len(subs) >= 40
    assert float(np.mean(subs)) <= 0.05


# --------------------------------------------------------------------------- interfaces
def _cli(*args: object):
    from typer.testing import CliRunner

    from navkit.cli import app

    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args])


def test_cli_scen_hpa_reports_suboptimality(movingai: Path):
    r = _cli("scen", movingai / "den520d.map.scen", "--algorithm", "hpa", "--every", "25", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["algorithm"] == "hpa" and out["total"] == 36
    assert out["invalidPaths"] == 0 and out["mismatched"] == 0
    assert 0.0 <= out["meanSuboptimality"] <= out["maxSuboptimality"]
    assert out["meanSuboptimality"] <= 0.05


def test_cli_scen_hpa_fails_only_on_missing_paths(tmp_path: Path):
    """Suboptimal lengths pass (exit 0); a line whose goal cannot be reached fails (exit 1)."""
    rows = ["....@....", "....@....", "....@....", ".........", "....@...."]
    (tmp_path / "m.map").write_text("type octile\nheight 5\nwidth 9\nmap\n"
                                    + "\n".join(rows) + "\n")
    grid = navkit.load_grid(tmp_path / "m.map")
    opt = navkit.Pathfinder(grid, costs="exact").find_path_cells((0, 0), (8, 0)).cost
    (tmp_path / "m.map.scen").write_text(f"version 1\n0\tm.map\t9\t5\t0\t0\t8\t0\t{opt:.8f}\n")
    r = _cli("scen", tmp_path / "m.map.scen", "--algorithm", "hpa", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["invalidPaths"] == 0
    rows[3] = "....@...."  # the wall is now complete: the line has no path
    (tmp_path / "m.map").write_text("type octile\nheight 5\nwidth 9\nmap\n"
                                    + "\n".join(rows) + "\n")
    r = _cli("scen", tmp_path / "m.map.scen", "--algorithm", "hpa", "--json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["invalidPaths"] == 1 and out["mismatched"] == 1


def test_bench_hpa_smoke(movingai: Path, tmp_path: Path):
    from navkit.bench import hpa as bench_hpa

    out = tmp_path / "hpa.json"
    rc = bench_hpa.main(["--data", str(movingai), "--maps", "ht_chantry",
                         "--queries", "10", "--no-all-lines", "--json", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())
    row = res["maps"][0]
    assert row["map"] == "ht_chantry" and row["queries"] == 10 and row["invalidPaths"] == 0
    assert row["buildMs"] > 0 and row["memoryBytes"] > 0 and row["medianUs"]["hpa"] > 0
    assert set(res["targets"]) == {"meanSuboptimality", "speedupVsAstar"}

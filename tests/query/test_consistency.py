"""Consistency fixes of issue #18 §5: one default algorithm policy, Literal
option types, ``NavMap.find_path(algorithm=)``, ``FlowField(navmap)``, the
swapped-cell hint, ``navkit path --algorithm``, ``scen --algorithm auto`` and
the CLI's JSON casing.

Oracles: scipy Dijkstra (tests/reference.py), a fresh Pathfinder asked with
an explicit algorithm, the scenario file's optimal lengths.
"""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from navkit import FlowField, NavGrid, NavMap, Pathfinder, QueryError
from navkit.cli import app
from navkit.cli.json_casing import camel_keys, snake_keys, to_camel, to_snake
from navkit.level import parse_level
from navkit.query.cells import ALGORITHMS
from tests.conftest import fixed
from tests.reference import dijkstra_costs, is_valid_path, path_cost

EXACT = (1_000_000, 1_414_214)


def random_walk(seed: int, depth: int, width: int, p: float = 0.25) -> np.ndarray:
    rng = np.random.default_rng(seed)
    walk = rng.random((depth, width)) >= p
    walk[0, 0] = walk[-1, -1] = True
    return walk


def free_cells(walk: np.ndarray) -> np.ndarray:
    zs, xs = np.nonzero(walk)
    return np.stack([xs, zs], axis=1)


# ------------------------------------------------------- one default policy
QUERY_METHODS = ["find_path_cells", "find_path", "find_path_to_nearest", "find_paths_batch"]


@pytest.mark.parametrize("name", QUERY_METHODS)
def test_pathfinder_queries_default_to_auto(name: str) -> None:
    sig = inspect.signature(getattr(Pathfinder, name))
    assert sig.parameters["algorithm"].default == "auto"


@pytest.mark.parametrize("name", ["find_path", "find_path_to_nearest"])
def test_navmap_queries_take_algorithm_default_auto(name: str) -> None:
    sig = inspect.signature(getattr(NavMap, name))
    assert sig.parameters["algorithm"].default == "auto"


def test_algorithm_and_costs_are_literal_types() -> None:
    hints = typing.get_type_hints(Pathfinder.find_path_cells)
    assert set(typing.get_args(hints["algorithm"])) == set(ALGORITHMS)
    for fn in (Pathfinder.find_path, Pathfinder.find_paths_batch, NavMap.find_path):
        assert typing.get_type_hints(fn)["algorithm"] == hints["algorithm"]
    costs = typing.get_type_hints(Pathfinder.__init__)["costs"]
    literals = [a for a in typing.get_args(costs) if typing.get_origin(a) is typing.Literal]
    assert literals and set(typing.get_args(literals[0])) == {"seed", "exact"}
    nav_costs = typing.get_type_hints(NavMap.__init__)["costs"]
    assert nav_costs == costs


@fixed(25)
@given(seed=st.integers(0, 10_000), weighted=st.booleans(), conn=st.sampled_from([4, 8]))
def test_default_cell_and_batch_answers_cost_what_dijkstra_says(seed: int, weighted: bool,
                                                                conn: int) -> None:
    depth, width = 9, 11
    walk = random_walk(seed, depth, width)
    rng = np.random.default_rng(seed + 1)
    weights = rng.integers(1, 4, size=walk.shape).astype(np.int32) if weighted else None
    grid = NavGrid(walk, weights=weights)
    pf = Pathfinder(grid, costs=EXACT, connectivity=conn)
    free = free_cells(walk)
    pick = rng.integers(0, len(free), size=(6, 2))
    starts, goals = free[pick[:, 0]], free[pick[:, 1]]
    batch = pf.find_paths_batch(starts, goals, return_paths=True)
    for i, (s, g) in enumerate(zip(starts, goals, strict=True)):
        dist = dijkstra_costs(walk, weights, tuple(s), *EXACT, eight=conn == 8)
        want = dist[g[1], g[0]]
        r = pf.find_path_cells(tuple(s), tuple(g))
        if np.isfinite(want):
            assert r.found and r.cost_int == int(want)
            assert is_valid_path(walk, r.cells, eight=conn == 8)
            assert path_cost(r.cells, weights, *EXACT) == int(want)
            assert int(batch.cost_int[i]) == int(want)
        else:
            assert not r.found and int(batch.cost_int[i]) < 0
        # the default is "auto": identical to asking for it, expansions included
        explicit = pf.find_path_cells(tuple(s), tuple(g), algorithm="auto")
        assert (r.status, r.cost_int, r.expanded) == (explicit.status, explicit.cost_int,
                                                      explicit.expanded)
        assert r.cells.tolist() == explicit.cells.tolist()
        # and the batch answers what the single query answers (docs: identical)
        assert int(batch.expanded[i]) == r.expanded
        # a window query under the default policy runs A*: A*'s own answer
        win = (0, 0, width - 1, depth - 1)
        rw = pf.find_path_cells(tuple(s), tuple(g), window=win)
        ra = pf.find_path_cells(tuple(s), tuple(g), window=win, algorithm="astar")
        assert (rw.cost_int, rw.expanded, rw.cells.tolist()) == (ra.cost_int, ra.expanded,
                                                                 ra.cells.tolist())


def test_auto_is_jps_on_uniform_8_connected_and_astar_otherwise() -> None:
    walk = random_walk(3, 12, 12)
    assert Pathfinder(NavGrid(walk)).resolve_algorithm("auto") == "jps"
    assert Pathfinder(NavGrid(walk), connectivity=4).resolve_algorithm("auto") == "astar"
    w = np.full(walk.shape, 2, dtype=np.int32)
    assert Pathfinder(NavGrid(walk, weights=w)).resolve_algorithm("auto") == "astar"


# --------------------------------------------------------- NavMap algorithm=
@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "jps", "auto"])
@pytest.mark.parametrize("cache_size", [0, 64])
def test_navmap_algorithm_matches_a_fresh_pathfinder(algorithm: str, cache_size: int) -> None:
    walk = random_walk(11, 20, 24)
    grid = NavGrid(walk)
    nav = NavMap(grid, costs="exact", cache_size=cache_size)
    oracle = Pathfinder(grid, costs="exact")
    free = free_cells(walk)
    rng = np.random.default_rng(5)
    for _ in range(8):
        s, g = free[rng.integers(0, len(free), size=2)]
        sw, gw = grid.cell_center(*s), grid.cell_center(*g)
        # warm the cache with another algorithm first: entries must not leak across
        nav.find_path(sw, gw, algorithm="astar" if algorithm != "astar" else "jps")
        got = nav.find_path(sw, gw, algorithm=algorithm)  # type: ignore[arg-type]
        want = oracle.find_path(sw, gw, algorithm=algorithm)  # type: ignore[arg-type]
        assert (got.status, got.cost_int, got.expanded) == (want.status, want.cost_int,
                                                            want.expanded)
        assert got.cells.tolist() == want.cells.tolist()
        assert got.waypoints.tolist() == want.waypoints.tolist()
        near = nav.find_path_to_nearest(sw, (99.0, 99.0), algorithm=algorithm)  # type: ignore[arg-type]
        want_near = oracle.find_path_to_nearest(sw, (99.0, 99.0), algorithm=algorithm)  # type: ignore[arg-type]
        assert (near.status, near.cost_int, near.end_cell) == (want_near.status,
                                                                want_near.cost_int,
                                                                want_near.end_cell)


def test_navmap_rejects_bad_algorithms() -> None:
    nav = NavMap(NavGrid(np.ones((6, 6), bool)))
    with pytest.raises(QueryError, match="algorithm must be one of"):
        nav.find_path((0.5, 0.5), (4.5, 4.5), algorithm="fast")  # type: ignore[arg-type]
    weighted = NavMap(NavGrid(np.ones((6, 6), bool), weights=np.full((6, 6), 2, np.int32)))
    with pytest.raises(QueryError, match="JPS needs a uniform-cost grid"):
        weighted.find_path((0.5, 0.5), (4.5, 4.5), algorithm="jps")
    assert weighted.find_path((0.5, 0.5), (4.5, 4.5), algorithm="auto").found


# --------------------------------------------------------- FlowField(navmap)
def _door_level() -> NavMap:
    return NavMap(parse_level({
        "cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
        "areas": [
            {"name": "west", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
            {"name": "east", "polygon": [[6, 0], [10, 0], [10, 4], [6, 4]]},
            {"name": "door", "available": False, "polygon": [[4, 1], [6, 1], [6, 3], [4, 3]]},
        ],
    }))


def _flow_oracle(grid: NavGrid, goal: tuple[int, int]) -> np.ndarray:
    """Seed-cost distances to ``goal`` (uniform terrain: symmetric), inf where unreachable."""
    return dijkstra_costs(grid.walkable, None, goal, 10, 14)


def test_flowfield_accepts_a_navmap_and_follows_its_version() -> None:
    nav = _door_level()
    ff = FlowField(nav)
    assert ff.pathfinder is nav.pathfinder and ff.navmap is nav
    goal = (18, 4)
    ff.build(goal)
    want = _flow_oracle(nav.grid, goal)
    assert np.isinf(want[4, 2])  # the door is shut: west cannot reach the goal
    np.testing.assert_array_equal(ff.cost_int >= 0, np.isfinite(want))
    np.testing.assert_array_equal(ff.cost_int[np.isfinite(want)], want[np.isfinite(want)])
    nav.set_area_available("door", True)  # a map change, not a Pathfinder edit
    assert ff.stale
    cost = ff.cost_int  # the next use repairs the field
    want = _flow_oracle(nav.grid, goal)
    assert np.isfinite(want[4, 2])
    np.testing.assert_array_equal(cost >= 0, np.isfinite(want))
    np.testing.assert_array_equal(cost[np.isfinite(want)], want[np.isfinite(want)])
    assert ff.next_cell(2, 4) is not None


def test_flowfield_rejects_other_sources() -> None:
    with pytest.raises(QueryError, match=r"NavGrid or a Pathfinder \(or a NavMap\)"):
        FlowField("map.txt")  # type: ignore[arg-type]


# ------------------------------------------------------ swapped (x, z) hint
def test_swapped_cell_gets_a_hint() -> None:
    pf = Pathfinder(NavGrid(np.ones((4, 9), bool)))  # width 9, depth 4
    with pytest.raises(QueryError, match=r"\(x, z\) order: did you mean \(z, x\) = \(7, 2\)"):
        pf.find_path_cells((7, 2), (2, 7))  # (2, 7): z = 7 is outside, (7, 2) inside
    with pytest.raises(QueryError) as err:
        pf.find_path_cells((0, 0), (20, 20))  # swapped is outside too: no hint
    assert "did you mean" not in str(err.value) and "outside" in str(err.value)
    with pytest.raises(QueryError, match=r"goals\[1\].*did you mean \(z, x\) = \(6, 1\)"):
        pf.find_paths_batch([[0, 0], [0, 0]], [[1, 1], [6, 1][::-1]])
    # a swapped pair inside both ways is a valid cell and is answered
    assert pf.find_path_cells((0, 0), (3, 1)).found
    assert pf.find_path_cells((0, 0), (1, 3)).found


# ------------------------------------------------------------------- CLI
def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def _write_map(path: Path, walk: np.ndarray) -> None:
    rows = ["".join("." if v else "@" for v in row) for row in walk]
    path.write_text(f"type octile\nheight {walk.shape[0]}\nwidth {walk.shape[1]}\nmap\n"
                    + "\n".join(rows) + "\n")


@pytest.fixture()
def small_map(tmp_path: Path) -> tuple[Path, np.ndarray]:
    walk = random_walk(21, 16, 20)
    p = tmp_path / "rand.map"
    _write_map(p, walk)
    return p, walk


@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "jps", "auto", "hpa"])
def test_cli_path_algorithm(small_map: tuple[Path, np.ndarray], algorithm: str) -> None:
    path, walk = small_map
    s, g = (0, 0), (19, 15)
    want = dijkstra_costs(walk, None, s, *EXACT)[g[1], g[0]]
    assert np.isfinite(want)
    res = _runner().invoke(app, ["path", str(path), "--cells", "--from", "0,0", "--to", "19,15",
                                 "--costs", "exact", "--algorithm", algorithm, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    cells = np.asarray(out["cells"])
    assert is_valid_path(walk, cells) and path_cost(cells, None, *EXACT) == out["costInt"]
    if algorithm == "hpa":
        assert out["costInt"] >= int(want) and out["algorithm"] == "hpa"
    else:
        assert out["costInt"] == int(want)
        assert out["algorithm"] == ("jps" if algorithm == "auto" else algorithm)


def test_cli_path_hpa_world_points_and_bad_choices(small_map: tuple[Path, np.ndarray]) -> None:
    path, walk = small_map
    res = _runner().invoke(app, ["path", str(path), "--from", "0.5,0.5", "--to", "19.5,15.5",
                                 "--costs", "exact", "--algorithm", "hpa", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["startCell"] == [0, 0] and out["endCell"] == [19, 15]
    assert out["costInt"] >= int(dijkstra_costs(walk, None, (0, 0), *EXACT)[15, 19])
    bad = _runner().invoke(app, ["path", str(path), "--from", "0,0", "--to", "1,1",
                                 "--algorithm", "fastest"])
    assert bad.exit_code == 2


def test_cli_scen_algorithm_auto(tmp_path: Path, small_map: tuple[Path, np.ndarray]) -> None:
    path, walk = small_map
    free = free_cells(walk)
    rng = np.random.default_rng(8)
    lines = ["version 1"]
    n = 0
    while n < 20:
        s, g = free[rng.integers(0, len(free), size=2)]
        d = dijkstra_costs(walk, None, tuple(s), *EXACT)[g[1], g[0]]
        if not np.isfinite(d):
            continue
        length = d / EXACT[0]
        lines.append(f"0\t{path.name}\t{walk.shape[1]}\t{walk.shape[0]}\t"
                     f"{s[0]}\t{s[1]}\t{g[0]}\t{g[1]}\t{length:.8f}")
        n += 1
    scen = tmp_path / "rand.map.scen"
    scen.write_text("\n".join(lines) + "\n")
    for extra in ([], ["--batch"]):
        res = _runner().invoke(app, ["scen", str(scen), "--algorithm", "auto", "--json", *extra])
        assert res.exit_code == 0, res.output
        out = json.loads(res.stdout)
        assert out["total"] == 20 and out["matched"] == 20


def test_cli_json_casing(small_map: tuple[Path, np.ndarray]) -> None:
    path, _ = small_map
    args = ["path", str(path), "--cells", "--from", "0,0", "--to", "19,15", "--json"]
    snake = json.loads(_runner().invoke(app, args, env={"NAVKIT_JSON_CASE": "snake"}).stdout)
    camel = json.loads(_runner().invoke(app, args).stdout)  # the default
    assert "cost_int" in snake and "start_cell" in snake and "costInt" not in snake
    assert "costInt" in camel and "startCell" in camel and "cost_int" not in camel
    assert camel["costInt"] == snake["cost_int"] and camel["cells"] == snake["cells"]
    bad = _runner().invoke(app, args, env={"NAVKIT_JSON_CASE": "kebab"})
    assert bad.exit_code == 2 and "NAVKIT_JSON_CASE" in (bad.stderr or bad.output)


_WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=5)


@fixed(40)
@given(words=st.lists(_WORD, min_size=1, max_size=4))
def test_casing_round_trips(words: list[str]) -> None:
    snake = "_".join(words)
    camel = words[0] + "".join(w[0].upper() + w[1:] for w in words[1:])
    assert to_camel(snake) == camel
    assert to_snake(camel) == snake
    obj = {snake: [{snake: 1}], "x": {"already_snake": None}}
    assert snake_keys(camel_keys(obj)) == obj

"""``navkit precompute`` and ``navkit path --algorithm jps+ --tables/--bounds``.

Oracles: a fresh ``JumpTables.build`` of the same map (entry for entry), A*'s
costs on the same queries, the boxes of a goal-bounds build without progress
reports (the chunked build must give the same), and the errors the library
raises for a map where JPS does not apply or tables of another map.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from typer.testing import CliRunner

import navkit
from navkit.cli import app
from navkit.examples import path as example
from navkit.query.goal_bounds import PROGRESS_STEP, GoalBounds
from navkit.query.jps_plus import JumpTables

DEN = example("den520d.map")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_precompute_writes_tables_and_bounds_that_load(tmp_path: Path) -> None:
    tables, bounds = tmp_path / "den.npz", tmp_path / "den_gb.npz"
    r = run("precompute", str(DEN), "-o", str(tables), "--goal-bounds", str(bounds), "--json")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["autoPicksJpsPlus"] is True and info["jumpPoints"] > 0
    assert 0 < info["jumpPointDensity"] <= 0.25 and info["tablesMb"] > 0
    grid = navkit.load_grid(DEN)
    pf = navkit.Pathfinder(grid, costs="exact")
    pf.precompute(tables=tables, bounds=bounds)
    jp = pf.engine.cells.jps_plus
    assert jp is not None and jp.goal_bounds is not None
    assert np.array_equal(jp.tables.tab, JumpTables.build(pf).tab)
    free = np.argwhere(grid.walkable)[:, ::-1]
    rng = np.random.default_rng(4)
    for i, j in rng.integers(len(free), size=(20, 2)):
        s, g = tuple(int(v) for v in free[i]), tuple(int(v) for v in free[j])
        assert pf.find_cost(s, g, algorithm="jps+") == pf.find_cost(s, g, algorithm="astar")
    r = run("path", str(DEN), "--cells", "--from", "12,208", "--to", "77,36", "--costs", "exact",
            "--algorithm", "jps+", "--tables", str(tables), "--bounds", str(bounds), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["algorithm"] == "jps+"
    assert out["costInt"] == pf.find_cost((12, 208), (77, 36), algorithm="astar")
    r = run("precompute", str(DEN), "-o", str(tmp_path / "t2.npz"))  # the table view
    assert r.exit_code == 0 and "auto picks JPS+" in r.output


def test_progress_reports_and_chunks_give_the_same_boxes() -> None:
    walk = np.ones((40, 60), dtype=bool)
    rng = np.random.default_rng(2)
    walk[rng.random(walk.shape) < 0.08] = False
    pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
    tables = JumpTables.build(pf)
    plain = GoalBounds.build(pf, tables, threads=2)
    seen: list[tuple[int, int]] = []
    chunked = GoalBounds.build(pf, tables, threads=2, progress=lambda d, t: seen.append((d, t)))
    assert plain.jump_points > 2 * PROGRESS_STEP  # several chunks per thread
    assert np.array_equal(plain.boxes, chunked.boxes)
    assert np.array_equal(plain.index, chunked.index)
    assert seen[-1] == (plain.jump_points, plain.jump_points)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_bad_input_exits_2(tmp_path: Path) -> None:
    weighted = tmp_path / "w.npz"
    navkit.save_grid(navkit.NavGrid(np.ones((6, 6), bool), weights=np.full((6, 6), 2)), weighted)
    r = run("precompute", str(weighted), "-o", str(tmp_path / "x.npz"))
    assert r.exit_code == 2 and "uniform-cost" in r.output
    r = run("precompute", str(DEN), "-o", str(tmp_path / "t.npz"), "--goal-bounds",
            str(tmp_path / "gb.npz"), "--max-jump-points", "10")
    assert r.exit_code == 2 and "max_jump_points" in r.output
    r = run("precompute", str(DEN), "-o", str(tmp_path / "no" / "such" / "dir" / "t.npz"))
    assert r.exit_code == 2 and "error: cannot use" in r.output
    other = tmp_path / "arena.npz"
    assert run("precompute", str(example("arena.map")), "-o", str(other)).exit_code == 0
    r = run("path", str(DEN), "--cells", "--from", "12,208", "--to", "77,36",
            "--algorithm", "jps+", "--tables", str(other))
    assert r.exit_code == 2 and "another grid" in r.output
    r = run("path", str(DEN), "--cells", "--from", "12,208", "--to", "77,36",
            "--bounds", str(other))
    assert r.exit_code == 2 and "--tables" in r.output


def test_scen_runs_jps_plus() -> None:
    r = run("scen", str(example("arena.map.scen")), "--map", str(example("arena.map")),
            "--algorithm", "jps+", "--limit", "20", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["matched"] == out["total"] == 20

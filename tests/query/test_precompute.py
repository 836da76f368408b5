"""Pathfinder.precompute(): JPS+ tables wired into find_path_cells, auto, batches,
save/load and cell edits; answers equal to A*'s (the oracle)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from navkit import ConfigError, FormatError, NavGrid, Pathfinder, QueryError
from navkit.query.jps_plus import JumpTables


def _grid(seed: int) -> NavGrid:
    rng = np.random.default_rng(seed)
    walk = np.ones((40, 48), dtype=bool)
    for _ in range(30):  # room-like walls: low jump-point density
        x, z = int(rng.integers(0, 44)), int(rng.integers(0, 36))
        if rng.random() < 0.5:
            walk[z, x:x + int(rng.integers(3, 12))] = False
        else:
            walk[z:z + int(rng.integers(3, 12)), x] = False
    return NavGrid(walk)


def test_precompute_answers_like_astar_and_survives_edits(tmp_path: Path) -> None:
    grid = _grid(3)
    pf = Pathfinder(grid, costs="exact")
    tables = pf.precompute()
    assert tables.nbytes > 0
    free = np.argwhere(grid.walkable)[:, ::-1]
    rng = np.random.default_rng(0)
    pairs = [(tuple(free[i]), tuple(free[j])) for i, j in rng.integers(len(free), size=(40, 2))]
    for s, g in pairs:
        want = pf.find_path_cells(s, g, algorithm="astar")
        for algorithm in ("jps+", "auto"):
            got = pf.find_path_cells(s, g, algorithm=algorithm)
            assert (got.status, got.cost_int) == (want.status, want.cost_int)
    batch = pf.find_paths_batch([p[0] for p in pairs], [p[1] for p in pairs], algorithm="jps+")
    assert list(batch.cost_int) == [pf.find_path_cells(s, g, algorithm="astar").cost_int
                                    for s, g in pairs]
    path = tmp_path / "t.npz"
    pf.save_tables(path)
    again = Pathfinder(grid, costs="exact")
    again.precompute(tables=path)
    s, g = pairs[0]
    assert again.find_path_cells(s, g, algorithm="jps+").cost_int == \
        pf.find_path_cells(s, g, algorithm="astar").cost_int
    # an edit updates the tables in place of a rebuild: entry for entry those of the
    # edited grid (the object precompute returned is left as it was)
    before, auto = tables.tab.copy(), pf.engine.cells.auto_jps_plus
    x, z = (int(v) for v in free[len(free) // 2])
    pf.set_walkable([[x, z]], False)
    assert pf.engine.cells.auto_jps_plus == auto
    jp = pf.engine.cells.jps_plus
    assert jp is not None and jp.tables is not tables and jp.tables.updates == 1
    assert np.array_equal(tables.tab, before)
    fresh = Pathfinder(NavGrid(pf.grid.walkable), costs="exact")
    rebuilt = JumpTables.build(fresh)
    assert np.array_equal(jp.tables.tab, rebuilt.tab)
    assert jp.tables.fingerprint == rebuilt.fingerprint != tables.fingerprint
    pf.save_tables(path)
    fresh.precompute(tables=path)  # the saved tables are the edited grid's
    for s, g in pairs[:15]:
        if (x, z) in (s, g):
            continue
        a = pf.find_path_cells(s, g, algorithm="jps+")
        b = fresh.find_path_cells(s, g, algorithm="astar")
        assert (a.status, a.cost_int) == (b.status, b.cost_int)


def test_precompute_refuses_where_jps_does_not_apply() -> None:
    walk = np.ones((6, 6), dtype=bool)
    with pytest.raises(QueryError):
        Pathfinder(NavGrid(walk, weights=np.full((6, 6), 2))).precompute()
    with pytest.raises(QueryError):
        Pathfinder(NavGrid(walk), connectivity=4).precompute()
    with pytest.raises(QueryError):
        Pathfinder(NavGrid(walk)).save_tables("never.npz")


def test_constructor_flag_builds_or_loads_the_tables(tmp_path: Path) -> None:
    grid = _grid(5)
    pf = Pathfinder(grid, costs="exact", precompute=True)
    jp = pf.engine.cells.jps_plus
    assert jp is not None and jp.tables.build_seconds > 0
    path = tmp_path / "t.npz"
    pf.save_tables(path)
    again = Pathfinder(grid, costs="exact", precompute=path)
    jq = again.cells.jps_plus
    assert jq is not None and np.array_equal(jq.tables.tab, jp.tables.tab)
    assert again.resolve_algorithm("auto") == pf.resolve_algorithm("auto")
    s, g = (1, 1), (46, 38)
    assert again.find_cost(s, g, algorithm="jps+") == pf.find_cost(s, g, algorithm="astar")
    with pytest.raises(ConfigError, match="precompute"):
        Pathfinder(grid, precompute=1)  # type: ignore[arg-type]
    with pytest.raises(QueryError, match="uniform-cost"):
        Pathfinder(NavGrid(np.ones((4, 4), bool), weights=np.full((4, 4), 2)), precompute=True)
    with pytest.raises(FormatError, match="another grid"):
        Pathfinder(_grid(6), costs="exact", precompute=path)

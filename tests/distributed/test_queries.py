"""Batch queries over two Moving AI maps: cluster == local == Pathfinder one by one == scen."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

from navkit.distributed.cluster import close_client, local_client  # noqa: E402
from navkit.distributed.queries import (  # noqa: E402
    MapQueries,
    clear_cache,
    run_queries,
    scenario_jobs,
)
from navkit.distributed.runner import DaskRunner  # noqa: E402
from navkit.errors import ConfigError, FormatError  # noqa: E402
from navkit.formats import load_grid  # noqa: E402
from navkit.grid import NavGrid  # noqa: E402
from navkit.query.pathfinder import Pathfinder  # noqa: E402

MAPS = Path(__file__).resolve().parents[2].parent / "shared" / "maps" / "movingai"
if not (MAPS / "arena.map.scen").is_file():  # the house checkout or the main one
    MAPS = Path("/work/shared/maps/movingai")
pytestmark = pytest.mark.skipif(not (MAPS / "den520d.map.scen").is_file(),
                                reason="Moving AI maps not found")


@pytest.fixture(scope="module")
def jobs() -> list[MapQueries]:
    return [MapQueries.from_scenario(MAPS / "arena.map.scen"),
            MapQueries.from_scenario(MAPS / "den520d.map", every=4)]


@pytest.fixture(scope="module")
def oracle(jobs):
    """Each query answered alone by Pathfinder.find_path_cells (no batching, no Dask)."""
    out = []
    for j in jobs:
        pf = Pathfinder(j.grid, costs="exact")
        rs = [pf.find_path_cells(tuple(s), tuple(g), algorithm="astar")
              for s, g in zip(j.starts.tolist(), j.goals.tolist(), strict=True)]
        out.append((np.array([r.cost_int for r in rs]), np.array([int(r.status) for r in rs]),
                    np.array([r.expanded for r in rs])))
    return out


@pytest.fixture(scope="module")
def runner():
    r = DaskRunner(local_client(2), progress=False)
    yield r
    close_client(r.client)


def _check(run, jobs, oracle) -> None:
    for a, j, (cost, status, expanded) in zip(run.answers, jobs, oracle, strict=True):
        assert np.array_equal(a.cost_int, cost)
        assert np.array_equal(a.status, status)
        assert np.array_equal(a.expanded, expanded)
        # the scenario files' optimal lengths, independently of navkit
        assert np.all(np.abs(a.cost - j.optimal) <= j.tolerance)
        assert len(a.mismatched) == 0


def test_local_run_matches_one_by_one_queries(jobs, oracle) -> None:
    run = run_queries(jobs, progress=False)
    _check(run, jobs, oracle)


def test_cluster_equals_local_bit_for_bit(jobs, oracle, runner) -> None:
    local = run_queries(jobs, progress=False, batch_items=37)
    dist = run_queries(jobs, runner=runner, progress=False, batch_items=37)
    assert dist.same_as(local)
    _check(dist, jobs, oracle)
    assert dist.stats["batches"] == len(sum(len(j) for j in jobs) // 37 * [0])


def test_order_restored_for_any_seed_and_batch_size(jobs, oracle, runner) -> None:
    for seed, items in ((1, 50), (12345, 200)):
        run = run_queries(jobs, runner=runner, progress=False, seed=seed, batch_items=items)
        _check(run, jobs, oracle)


def test_published_by_path_equals_scattered(jobs, oracle, runner) -> None:
    runner.client.run(clear_cache)
    run = run_queries(jobs, runner=runner, progress=False, publish="path", batch_items=100)
    _check(run, jobs, oracle)


def test_calibrated_batches_hold_the_minimum_work(jobs, runner) -> None:
    run = run_queries(jobs, runner=runner, progress=False, min_batch_s=0.02)
    s = run.stats
    assert s["batch_items"] * s["per_item_s"] >= 0.02 * (1 - 1e-9) or s["batches"] == 1
    assert s["batches"] * s["batch_items"] <= s["items"]


def test_threaded_cluster_equals_local(jobs, oracle) -> None:
    client = local_client(2, processes=False)
    try:
        run = run_queries(jobs, runner=client, progress=False, batch_items=60)
    finally:
        close_client(client)
    _check(run, jobs, oracle)


def test_a_changed_map_file_is_caught(tmp_path) -> None:
    src = (MAPS / "arena.map").read_text()
    path = tmp_path / "arena.map"
    path.write_text(src)
    grid = load_grid(path)
    clear_cache()  # (earlier tests cached arena's Pathfinder in this thread)
    walk = grid.walkable.copy()
    free = np.argwhere(walk)
    job = MapQueries.from_grid(NavGrid(walk), starts=free[:2, ::-1], goals=free[-2:, ::-1],
                               path=str(path))
    lines = src.splitlines()
    header = next(i for i, line in enumerate(lines) if line.strip() == "map") + 1
    z, x = map(int, free[1])
    row = list(lines[header + z])
    row[x] = "@"
    lines[header + z] = "".join(row)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match="different map"):
        run_queries([job], progress=False, publish="path", batch_items=1)


def test_bad_arguments(jobs) -> None:
    with pytest.raises(ConfigError, match="algorithm"):
        run_queries(jobs, algorithm="hpa")
    with pytest.raises(ConfigError, match="publish"):
        run_queries(jobs, publish="mail")  # type: ignore[arg-type]
    with pytest.raises(FormatError):
        scenario_jobs([MAPS / "no_such.map"])


def test_cli_batch_json() -> None:
    import json

    from typer.testing import CliRunner

    from navkit.cli import app

    res = CliRunner().invoke(app, ["batch", str(MAPS / "arena.map.scen"), str(MAPS / "den520d.map"),
                                   "--every", "8", "--threads", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["mismatched"] == 0 and out["equalToLocal"] is True
    assert [m["queries"] for m in out["maps"]] == [20, 111]  # every 8th of 160 and 888 lines
    bad = CliRunner().invoke(app, ["batch", str(MAPS / "arena.map.scen"),
                                   "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"])
    assert bad.exit_code == 2
    assert "127.0.0.1:9" in bad.output

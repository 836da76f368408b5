"""Smoke test of the peer benchmark (navkit.bench.peers): it runs, writes JSON, navkit is
optimal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navkit.bench import peers
from navkit.bench.common import select_queries
from navkit.cli.json_casing import snake_keys
from tests.cli.jsonkeys import snake_keys_in


def test_select_queries_every_10th_line_the_last_n() -> None:
    assert select_queries(888, 100).tolist() == list(range(0, 888, 10))
    assert len(select_queries(2180, 100)) == 100
    assert select_queries(2180, 100)[0] == 1180


def test_quick_benchmark_on_arena(
    movingai: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not (movingai / "arena.map.scen").is_file() or not (movingai / "arena.map").is_file():
        pytest.skip(f"arena.map / arena.map.scen not found in {movingai}")
    monkeypatch.setenv("NAVKIT_MOVINGAI_DIR", str(movingai))
    out = tmp_path / "b.json"
    rc = peers.main(["--quick", "--maps", "arena", "--queries", "5", "--json", str(out),
                     "--no-jit"])
    assert rc == 0
    camel = json.loads(out.read_text())
    assert not snake_keys_in(camel)  # --json files are camelCase (docs/architecture.md)
    data = snake_keys(camel)
    for key in ("config", "maps", "targets", "jit", "note", "numba_threads", "benchmark_s"):
        assert key in data
    assert data["jit"] is None
    assert data["config"]["queries"] == 5
    assert len(data["maps"]) == 1
    m = data["maps"][0]
    assert m["map"] == "arena"
    assert m["queries"] == 5
    for key in ("size", "scenario_lines", "query_lines", "navkit", "peers"):
        assert key in m
    nav = m["navkit"]
    for key in ("median_us", "median_expanded", "ns_per_expansion", "optimal", "run"):
        assert key in nav
    assert nav["run"] == 5
    assert nav["optimal"] == 5, "navkit must answer every scenario line optimally"
    assert nav["median_us"] > 0
    rows = {row["peer"]: row for row in m["peers"]}
    assert rows["navkit A*"]["optimal"] == rows["navkit A*"]["run"] == 5
    assert rows["navkit A*"]["valid"] == 5
    batch = rows["navkit batch"]
    if batch["status"] == "ok":
        assert batch["optimal"] == batch["run"] == 5
        assert batch["threads"] >= 1
    for row in m["peers"]:
        for key in ("peer", "status", "run", "optimal", "valid", "median_us", "ratio"):
            assert key in row
        assert not row["status"].startswith("error"), row
        if row["status"] == "ok":
            assert 0 <= row["optimal"] <= row["valid"] <= row["run"]
    # --quick skips the slow pure-Python peers
    for name in ("networkx A*", "scikit-image MCP", "pathfinding A* (search)"):
        assert rows[name]["status"] == "skipped"

"""``navkit replay`` and ``navkit sim --record-queries`` through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import navkit
from navkit import Pathfinder
from navkit.cli import app
from navkit.corpus import QueryRecorder
from navkit.formats import load_grid, read_scenarios, save_grid

EXAMPLES = Path(navkit.__file__).parent / "examples"
ARENA = EXAMPLES / "arena.map"
runner = CliRunner()


def record_arena(path: Path, map_path: Path = ARENA) -> list[dict]:
    grid = load_grid(map_path)
    scen = read_scenarios(EXAMPLES / "arena.map.scen")
    pf = Pathfinder(grid, "exact", record=QueryRecorder.for_grid(path, grid, map_path=map_path,
                                                                  costs="exact"))
    for i in range(len(scen)):
        pf.find_path_cells(tuple(scen.start[i]), tuple(scen.goal[i]), algorithm="astar")
    pf.record.close()
    return [json.loads(t) for t in path.read_text().splitlines()]


def test_replay_all_match_table_and_json(tmp_path):
    p = tmp_path / "a.jsonl"
    lines = record_arena(p)
    res = runner.invoke(app, ["replay", str(p), "--budget", "10,100,none"])
    assert res.exit_code == 0, res.output
    assert f"all {len(lines) - 1} answers match" in res.output
    assert "budget sweep" in res.output and "unlimited" in res.output
    res = runner.invoke(app, ["replay", str(p), "--json", "--budget", "10,none"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["ok"] is True and out["replayed"] == out["matches"] == len(lines) - 1
    assert [r["budget"] for r in out["sweep"]] == [10, None]
    found = sum(x["outcome"]["status"] == "FOUND" for x in lines[1:])
    assert out["sweep"][-1]["found"] == found
    assert out["sweep"][0]["maxExpanded"] <= 10
    assert all("_" not in k for k in out)  # camelCase (docs/architecture.md)


def test_replay_changed_answer_exits_1_and_names_the_line(tmp_path):
    p = tmp_path / "a.jsonl"
    lines = record_arena(p)
    lines[5]["outcome"]["cells"] += 1  # file line 6
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = runner.invoke(app, ["replay", str(p), "--quiet"])
    assert res.exit_code == 1
    assert "line 6" in res.output and "answer(s) changed" in res.output
    res = runner.invoke(app, ["replay", str(p), "--json"])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert [m["line"] for m in out["answerMismatches"]] == [6]
    cells = out["answerMismatches"][0]["fields"]["cells"]
    assert cells["recorded"] == lines[5]["outcome"]["cells"]


def test_replay_on_an_edited_map(tmp_path):
    p = tmp_path / "a.jsonl"
    record_arena(p)
    grid = load_grid(ARENA)
    walk = grid.walkable.copy()
    walk[10:40, 24] = False  # a wall across the arena
    walk[24, 10:40] = False
    other = tmp_path / "walled.map"
    save_grid(navkit.NavGrid(walk), other)
    res = runner.invoke(app, ["replay", str(p), "--map", str(other)])
    assert res.exit_code == 2 and "not the map" in res.output
    res = runner.invoke(app, ["replay", str(p), "--map", str(other), "--no-fingerprint-check",
                              "--json"])
    assert res.exit_code == 1
    assert json.loads(res.stdout)["answerMismatches"]


def test_replay_bad_input_exits_2(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"navkitCorpus": 2, "source": null}\n{"kind": "find_path_cells"\n')
    res = runner.invoke(app, ["replay", str(p), "--map", str(ARENA)])
    assert res.exit_code == 2 and f"{p}:2" in res.output and "malformed JSON" in res.output
    res = runner.invoke(app, ["replay", str(tmp_path / "missing.jsonl")])
    assert res.exit_code == 2 and "error:" in res.output
    res = runner.invoke(app, ["replay", str(p), "--budget", "10,-3"])
    assert res.exit_code == 2 and "--budget" in res.output


def test_sim_record_queries_then_replay(tmp_path):
    scene = {
        "navigation": {"cellSize": 0.5, "agentRadius": 0.3, "objectPadding": 0.0,
                       "areas": [{"name": "room",
                                  "polygon": [[0, 0], [15, 0], [15, 10], [0, 10]]}]},
        "tickRate": 20,
        "characters": [
            {"id": "a", "kind": "npc", "position": [1, 1], "walkSpeed": 2.0},
            {"id": "b", "kind": "npc", "position": [13, 8], "walkSpeed": 2.0},
        ],
        "commands": [{"tick": 0, "character": "a", "moveTo": [13, 1]},
                     {"tick": 0, "character": "b", "moveTo": [1, 8]}],
    }
    sp = tmp_path / "scene.json"
    sp.write_text(json.dumps(scene))
    corpus = tmp_path / "sim.jsonl"
    res = runner.invoke(app, ["sim", str(sp), "--ticks", "40", "--record-queries", str(corpus),
                              "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    lines = [json.loads(t) for t in corpus.read_text().splitlines()]
    assert summary["queriesRecorded"] == len(lines) - 1 >= 2
    assert {x["kind"] for x in lines[1:]} == {"find_path_to_nearest"}
    # the level is embedded in the scene: replay it on the level's grid
    from navkit.level import NavLevel

    level_path = tmp_path / "level.json"
    level_path.write_text(json.dumps(scene["navigation"]))
    assert NavLevel.from_file(level_path).grid.shape
    res = runner.invoke(app, ["replay", str(corpus), "--map", str(level_path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["matches"] == len(lines) - 1

"""Replaying corpora and budget sweeps (navkit.corpus.replay).

Oracles: scipy's Dijkstra (tests/reference.py) on an edited map, hand edits
of the corpus file, the recorded file read back with ``json``, and the
budget's own definition.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import navkit
from navkit import NavGrid, Pathfinder
from navkit.corpus import (
    RECORDED,
    QueryRecorder,
    ReplaySpec,
    Task,
    make_batches,
    read_corpus,
    replay,
    replay_batch,
    serial_map_batches,
)
from navkit.errors import FormatError
from navkit.formats import load_grid, read_scenarios
from navkit.query.navmap import NavMap
from tests.reference import dijkstra_costs

EXAMPLES = Path(navkit.__file__).parent / "examples"
ARENA = EXAMPLES / "arena.map"
BUDGETS = [5, 20, 50, 100, 250, 500, 1000, 2000, None]


def lines_of(path):
    return [json.loads(t) for t in Path(path).read_text().splitlines()]


def write_lines(path, lines):
    Path(path).write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.fixture(scope="module")
def arena_corpus(tmp_path_factory):
    """Every arena scenario with A*, JPS and Dijkstra, plus budgets, windows,
    nearest, obstacles and world queries."""
    grid = load_grid(ARENA)
    scen = read_scenarios(EXAMPLES / "arena.map.scen")
    path = tmp_path_factory.mktemp("corpus") / "arena.jsonl"
    pf = Pathfinder(grid, "seed", record=QueryRecorder.for_grid(path, grid, map_path=ARENA))
    for i in range(len(scen)):
        s, g = tuple(scen.start[i]), tuple(scen.goal[i])
        pf.find_path_cells(s, g, algorithm=("astar", "jps", "dijkstra")[i % 3])
        if i % 5 == 0:
            pf.find_path_cells(s, g, budget=30, nearest=True)
            pf.find_path_cells(s, g, window=(0, 0, 30, 30))
            pf.find_path_cells(s, g, obstacles=[[float(g[0]) + 0.5, float(g[1]) - 1.5, 0.6]])
            pf.find_path(grid.cell_center(*s), grid.cell_center(*g), budget=80)
            pf.find_path_to_nearest(grid.cell_center(*s), (24.0, 24.0))
    pf.record.close()
    return path


def test_replay_matches_everything(arena_corpus):
    n = len(lines_of(arena_corpus)) - 1
    r = replay(arena_corpus, progress=False)  # the header's map path
    assert r.ok and r.lines == r.replayed == r.matches == n > 200
    assert r.answer_mismatches == [] and r.expansion_mismatches == [] and r.skipped == []
    recorded_found = sum(x["outcome"]["status"] == "FOUND" for x in lines_of(arena_corpus)[1:])
    assert r.recorded_found == r.replayed_found == recorded_found
    json.dumps(r.to_json_dict(), allow_nan=False)


def test_an_edited_answer_is_a_mismatch_on_its_line(arena_corpus, tmp_path):
    lines = lines_of(arena_corpus)
    lines[7]["outcome"]["costInt"] += 1  # file line 8
    lines[12]["expanded"] += 3  # file line 13: effort only
    lines[20]["outcome"]["endCell"] = [0, 0]  # file line 21
    p = tmp_path / "edited.jsonl"
    write_lines(p, lines)
    r = replay(p, grid=ARENA, progress=False)
    assert not r.ok
    assert [(m.line, set(m.fields)) for m in r.answer_mismatches] == \
        [(8, {"cost_int"}), (21, {"end_cell"})]
    assert r.answer_mismatches[0].fields["cost_int"] == (lines[7]["outcome"]["costInt"],
                                                        lines[7]["outcome"]["costInt"] - 1)
    assert [(m.line, set(m.fields)) for m in r.expansion_mismatches] == [(13, {"expanded"})]
    assert r.matches == r.replayed - 2


def test_a_changed_map_is_refused_then_replayed_against_scipy(tmp_path):
    grid = load_grid(ARENA)
    scen = read_scenarios(EXAMPLES / "arena.map.scen")
    path = tmp_path / "astar.jsonl"
    pf = Pathfinder(grid, "seed", record=QueryRecorder.for_grid(path, grid, map_path=ARENA))
    results = [pf.find_path_cells(tuple(scen.start[i]), tuple(scen.goal[i]))
               for i in range(len(scen))]
    pf.record.close()
    # block a 5 x 5 square around the middle of the longest path
    longest = max(results, key=lambda r: len(r.cells))
    bx, bz = longest.cells[len(longest.cells) // 2]
    walk = grid.walkable.copy()
    walk[max(bz - 2, 0):bz + 3, max(bx - 2, 0):bx + 3] = False
    for c in (*scen.start, *scen.goal):
        walk[c[1], c[0]] = grid.walkable[c[1], c[0]]
    edited = NavGrid(walk)
    with pytest.raises(FormatError) as info:
        replay(path, grid=edited, progress=False)
    assert info.value.path == str(path) and info.value.line == 1
    assert "not the map" in info.value.reason
    r = replay(path, grid=edited, progress=False, check_fingerprint=False)
    changed = set()
    for i in range(len(scen)):
        d = dijkstra_costs(walk, None, tuple(scen.start[i]))
        gx, gz = scen.goal[i]
        want = -1 if not np.isfinite(d[gz, gx]) else int(d[gz, gx])
        if want != results[i].cost_int:
            changed.add(i + 2)  # file line of query i
    cost_lines = {m.line for m in r.answer_mismatches if "cost_int" in m.fields}
    assert changed and cost_lines == changed


def test_budget_sweep(arena_corpus):
    r = replay(arena_corpus, budgets=BUDGETS, progress=False)
    rows = r.sweep
    assert [row.budget for row in rows] == BUDGETS
    rates = [row.success_rate for row in rows]
    assert rates == sorted(rates) and rates[0] < rates[-1]
    # unlimited: every query runs without a budget; FOUND then counted from the file,
    # for the lines recorded without a budget
    lines = lines_of(arena_corpus)[1:]
    assert all(row.queries == len(lines) for row in rows)
    unbudgeted = [x for x in lines if x["options"]["budget"] is None]
    assert rows[-1].found >= sum(x["outcome"]["status"] == "FOUND" for x in unbudgeted)
    for row in rows[:-1]:
        assert row.max_expanded <= row.budget
        assert row.median_expanded <= row.p99_expanded <= row.max_expanded
        assert row.median_us <= row.p99_us


def test_unlimited_sweep_equals_the_recorded_found_rate(tmp_path):
    grid = load_grid(ARENA)
    scen = read_scenarios(EXAMPLES / "arena.map.scen")
    path = tmp_path / "plain.jsonl"
    pf = Pathfinder(grid, record=path)
    for i in range(0, len(scen), 2):
        pf.find_path_cells(tuple(scen.start[i]), tuple(scen.goal[i]), algorithm="jps")
    pf.find_path_cells((0, 0), (48, 48))  # a blocked corner: NO_START
    pf.record.close()
    recorded = [x["outcome"]["status"] for x in lines_of(path)[1:]]
    r = replay(path, grid=grid, budgets=[1, None], progress=False)
    assert r.sweep[-1].found == recorded.count("FOUND") == len(recorded) - 1
    assert r.sweep[-1].success_rate == recorded.count("FOUND") / len(recorded)
    assert r.sweep[0].success_rate < r.sweep[-1].success_rate


def test_every_budgeted_run_stays_within_its_budget(arena_corpus):
    _, queries = read_corpus(arena_corpus)
    spec = ReplaySpec.of_grid(str(arena_corpus), load_grid(ARENA))
    tasks = [Task(q, b) for q in queries for b in (1, 7, 64, 300)]
    for t, o in zip(tasks, replay_batch(spec, tasks), strict=True):
        assert o.line == t.query.line and o.budget == t.budget
        assert o.expanded <= t.budget
        if o.status == "FOUND":  # the budget sufficed: the unbudgeted answer
            assert o.cost_int == t.query.cost_int or t.query.budget is not None


def test_a_foreign_map_batches_gives_identical_answers(arena_corpus):
    seen = []

    def shuffled(fn, spec, batches):
        spec = pickle.loads(pickle.dumps(spec))
        batches = [pickle.loads(pickle.dumps(b)) for b in batches]
        seen.extend(len(b) for b in batches)
        for b in reversed(batches):
            yield fn(spec, b)

    a = replay(arena_corpus, budgets=[50, None], progress=False)
    b = replay(arena_corpus, budgets=[50, None], progress=False, map_batches=shuffled)
    assert b.ok and b.matches == a.matches and sum(seen) == 3 * a.replayed
    strip = lambda rows: [(r.budget, r.found, r.max_expanded, r.median_expanded)  # noqa: E731
                          for r in rows]
    assert strip(a.sweep) == strip(b.sweep)


def test_batches_carry_at_least_twenty_ms(arena_corpus):
    _, queries = read_corpus(arena_corpus)
    batches = make_batches(queries, [100, None])
    assert sum(len(b) for b in batches) == 3 * len(queries)
    for b in batches[:-1]:
        assert sum(t.query.time for t in b if t.budget == RECORDED) * 3 >= 0.02
    assert list(serial_map_batches(lambda s, b: [len(b)], None, batches)) == \
        [[len(b)] for b in batches]


def test_navmap_and_sim_corpora_replay(tmp_path):
    from navkit.level import parse_level
    from tests.corpus.test_record import sim_location

    level = parse_level({
        "cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
        "areas": [
            {"name": "west", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
            {"name": "east", "polygon": [[6, 0], [10, 0], [10, 4], [6, 4]]},
            {"name": "door", "available": False, "polygon": [[4, 1], [6, 1], [6, 3], [4, 3]]},
        ]})
    p = tmp_path / "nav.jsonl"
    nav = NavMap(level, record=p, cache_size=4)
    closed = nav.grid
    nav.find_path((1, 2), (9, 2))
    nav.find_path((1.1, 2.1), (3, 3))
    nav.find_path((1.1, 2.1), (3, 3))  # a cache hit
    h = nav.add_occupant(2.0, 2.0, 0.6)
    nav.find_path_to_nearest((1, 1), (3.2, 2.9), obstacles=[(2.5, 1.0, 0.5)])
    nav.remove_occupant(h)
    nav.set_area_available("door", True)
    nav.find_path((1, 2), (9, 2))
    nav.record.close()
    r = replay(p, grid=closed, progress=False)
    assert r.ok and r.replayed == 4 and r.skipped == [6] and r.expansion_mismatches == []
    s = tmp_path / "sim.jsonl"
    loc = sim_location(s)
    loc.map.record.close()
    r = replay(s, grid=loc.map.grid, progress=False)
    assert r.ok and r.replayed == r.lines == 2 and r.expansion_mismatches == []


# ------------------------------------------------------------------ bad input
GOOD_HEAD = {"navkitCorpus": 2, "source": None, "costs": None, "connectivity": 8,
             "createdBy": "test"}


def good_line():
    return {"kind": "find_path_cells", "fingerprint": None, "start": [0, 0], "goal": [2, 2],
            "options": {"algorithm": "astar", "smooth": False, "nearest": False,
                        "budget": None, "window": None, "costs": [10, 14],
                        "connectivity": 8},
            "obstacles": None,
            "outcome": {"status": "FOUND", "costInt": 28, "cost": 2.8, "cells": 3,
                        "endCell": [2, 2]},
            "expanded": 3, "generated": 8, "time": 1e-5}


def test_a_hand_written_line_replays(tmp_path):
    # 3 x 3 open grid, seed costs: two diagonal steps = 28, A* expands 3 cells
    p = tmp_path / "hand.jsonl"
    p.write_text(json.dumps(GOOD_HEAD) + "\n" + json.dumps(good_line()) + "\n")
    r = replay(p, grid=NavGrid(np.ones((3, 3), bool)), progress=False)
    assert r.ok and r.matches == 1


def _mutations():
    def drop(*keys):
        def f(x):
            d = x
            for k in keys[:-1]:
                d = d[k]
            del d[keys[-1]]
        return f

    def put(value, *keys):
        def f(x):
            d = x
            for k in keys[:-1]:
                d = d[k]
            d[keys[-1]] = value
        return f

    return [
        (drop("kind"), "kind"), (drop("outcome", "status"), "outcome.status"),
        (drop("options", "costs"), "options.costs"), (put("fly", "kind"), "unknown query kind"),
        (put([0.5, 0], "start"), "start"), (put([0], "goal"), "goal"),
        (put("1", "options", "budget"), "options.budget"), (put(0, "options", "budget"), ">= 1"),
        (put(6, "options", "connectivity"), "connectivity"),
        (put("yes", "options", "smooth"), "options.smooth"),
        (put("LOST", "outcome", "status"), "unknown status"),
        (put([[1, 2]], "obstacles"), "obstacles[0]"),
        (put(float("nan"), "time"), "time"), (put([], "options"), "options"),
        (put([5, 14], "options", "costs"), "options.costs"),
    ]


@pytest.mark.parametrize(("mutate", "needle"), _mutations())
def test_bad_lines_name_file_and_line(tmp_path, mutate, needle):
    bad = good_line()
    mutate(bad)
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps(GOOD_HEAD) + "\n" + json.dumps(good_line()) + "\n"
                 + json.dumps(bad) + "\n")
    with pytest.raises(FormatError) as info:
        replay(p, grid=NavGrid(np.ones((3, 3), bool)), progress=False)
    assert info.value.path == str(p) and info.value.line == 3
    assert needle in info.value.reason


@pytest.mark.parametrize(("text", "line", "needle"), [
    ("", 1, "empty corpus"),
    ("[1, 2]\n", 1, "not a navkit query corpus"),
    ('{"navkitCorpus": 9}\n', 1, "unsupported corpus version"),
    ('{"navkit_corpus": 2}\n', 1, "unsupported corpus version"),
    ('{"navkitCorpus": 1}\n', 1, "unsupported corpus version"),
    ('{"navkitCorpus": 2, "navkit_corpus": 1}\n', 1, "both"),
    ('{"navkitCorpus": 2, "created_by": "x"}\n', 1, "snake_case key 'created_by'"),
    ('{"navkitCorpus": 2, "source": {"kind": "moon", "fingerprint": "x"}}\n', 1,
     "source.kind"),
    ("{nope\n", 1, "malformed JSON"),
    (json.dumps(GOOD_HEAD) + "\n" + json.dumps(good_line()) + "\n{\"kind\": \n", 3,
     "malformed JSON"),
    (json.dumps(GOOD_HEAD) + "\n" + json.dumps(good_line())[:-1] + "\n", 2, "malformed JSON"),
])
def test_bad_files_name_file_and_line(tmp_path, text, line, needle):
    p = tmp_path / "bad.jsonl"
    p.write_text(text)
    with pytest.raises(FormatError) as info:
        replay(p, grid=NavGrid(np.ones((3, 3), bool)), progress=False)
    assert info.value.path == str(p) and info.value.line == line
    assert needle in info.value.reason


def test_binary_and_missing_map_and_impossible_query(tmp_path):
    p = tmp_path / "bin.jsonl"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FormatError) as info:
        replay(p, progress=False)
    assert info.value.path == str(p)
    p.write_text(json.dumps(GOOD_HEAD) + "\n")
    with pytest.raises(FormatError) as info:  # no map anywhere
        replay(p, progress=False)
    assert info.value.line == 1 and "names no map" in info.value.reason
    far = good_line()
    far["goal"] = [7, 7]  # outside a 3 x 3 grid
    p.write_text(json.dumps(GOOD_HEAD) + "\n" + json.dumps(far) + "\n")
    with pytest.raises(FormatError) as info:
        replay(p, grid=NavGrid(np.ones((3, 3), bool)), progress=False)
    assert info.value.line == 2 and "cannot replay" in info.value.reason


def test_spec_from_a_map_file_and_a_relative_header_path(tmp_path, arena_corpus):
    import shutil

    shutil.copy(ARENA, tmp_path / "arena.map")
    grid = load_grid(tmp_path / "arena.map")
    _, queries = read_corpus(arena_corpus)
    tasks = [Task(q) for q in queries[:40]]
    from_file = ReplaySpec(corpus="c", fingerprint=ReplaySpec.of_grid("c", grid).fingerprint,
                           map_path=str(tmp_path / "arena.map"))
    a = [(o.status, o.cost_int, o.expanded) for o in replay_batch(from_file, tasks)]
    assert a == [(q.status, q.cost_int, q.expanded) for q in queries[:40]]
    wrong = ReplaySpec(corpus="c", fingerprint="0" * 64, map_path=str(tmp_path / "arena.map"))
    with pytest.raises(FormatError):
        replay_batch(wrong, tasks)
    # a corpus naming its map relatively is replayed from anywhere, next to its map
    lines = lines_of(arena_corpus)
    lines[0]["source"]["path"] = "arena.map"
    write_lines(tmp_path / "rel.jsonl", lines)
    r = replay(tmp_path / "rel.jsonl", progress=False)
    assert r.ok and r.replayed == len(lines) - 1

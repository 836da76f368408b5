"""Recording query corpora (navkit.corpus.record) and map fingerprints.

Oracles: the Moving AI optimal lengths of the bundled arena scenarios, the
PathResult objects the queries returned, hashlib over the documented byte
layout, and a JSON parser reading the file back.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import navkit
from navkit import NavGrid, Pathfinder
from navkit.corpus import QueryRecorder, grid_fingerprint
from navkit.errors import ConfigError
from navkit.formats import load_grid, read_scenarios
from navkit.query.navmap import NavMap
from navkit.sim.location import Location
from tests.conftest import fixed

EXAMPLES = Path(navkit.__file__).parent / "examples"
ARENA = EXAMPLES / "arena.map"


def read_lines(path):
    return [json.loads(t) for t in Path(path).read_text().splitlines() if t.strip()]


# -------------------------------------------------------------- fingerprint
def test_fingerprint_follows_the_documented_layout():
    walk = np.array([[1, 0, 1], [1, 1, 0]], bool)
    g = NavGrid(walk, cell_size=0.5, min_x=-2.0, min_z=3.0)
    h = hashlib.sha256(b"navkit-grid-v1")
    h.update((2).to_bytes(8, "little") + (3).to_bytes(8, "little"))
    h.update(np.array([0.5, -2.0, 3.0], "<f8").tobytes())
    h.update(bytes([0b10111000]))  # 1 0 1 1 1 0, padded with zeros
    h.update(b"\x00")
    assert grid_fingerprint(g) == h.hexdigest()


def test_fingerprint_is_pinned():
    # the same hex on every machine and in every run (a change breaks old corpora)
    g = NavGrid(np.ones((3, 4), bool))
    assert grid_fingerprint(g) == \
        "dc9f498e03b6894ed41be792c064ea86b009e337369e9de3bdf63bb90b899ce9"


@fixed(30)
@given(st.integers(2, 9), st.integers(2, 9), st.data())
def test_fingerprint_sees_every_cell_and_weight(w, d, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    walk = rng.random((d, w)) < 0.7
    weights = rng.integers(1, 4, (d, w))
    a = NavGrid(walk, weights=weights)
    assert grid_fingerprint(a) == grid_fingerprint(NavGrid(walk.copy(), weights=weights.copy()))
    x, z = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, d - 1))
    flipped = walk.copy()
    flipped[z, x] = not flipped[z, x]
    assert grid_fingerprint(NavGrid(flipped, weights=weights)) != grid_fingerprint(a)
    heavier = weights.copy()
    heavier[z, x] += 1
    assert grid_fingerprint(NavGrid(walk, weights=heavier)) != grid_fingerprint(a)
    assert grid_fingerprint(NavGrid(walk, weights=weights, cell_size=0.5)) != grid_fingerprint(a)
    assert grid_fingerprint(NavGrid(walk, weights=weights, min_z=1.0)) != grid_fingerprint(a)
    if w != d:  # same bits, other shape
        assert grid_fingerprint(NavGrid(walk.reshape(w, d), weights=weights.reshape(w, d))) \
            != grid_fingerprint(a)


# ----------------------------------------------------------------- Pathfinder
def test_pathfinder_corpus_of_the_arena_scenarios(tmp_path):
    grid = load_grid(ARENA)
    scen = read_scenarios(EXAMPLES / "arena.map.scen")
    out = tmp_path / "arena.jsonl"
    rec = QueryRecorder.for_grid(out, grid, map_path=ARENA, costs="exact")
    pf = Pathfinder(grid, "exact", record=rec)
    results = []
    for i in range(len(scen)):
        algo = ("astar", "jps", "dijkstra", "auto")[i % 4]
        results.append(pf.find_path_cells(tuple(scen.start[i]), tuple(scen.goal[i]),
                                          algorithm=algo))
    rec.close()
    lines = read_lines(out)
    head, body = lines[0], lines[1:]
    assert head["navkitCorpus"] == 2
    assert head["source"] == {"kind": "grid", "path": str(ARENA),
                              "fingerprint": grid_fingerprint(grid)}
    assert head["costs"] == {"card": 1_000_000, "diag": 1_414_214, "name": "exact"}
    assert head["connectivity"] == 8
    assert head["createdBy"] == f"navkit {navkit.__version__}"
    assert len(body) == len(scen)
    for i, (line, res) in enumerate(zip(body, results, strict=True)):
        assert line["kind"] == "find_path_cells"
        assert line["start"] == scen.start[i].tolist() and line["goal"] == scen.goal[i].tolist()
        assert line["options"]["algorithm"] == ("astar", "jps", "dijkstra", "auto")[i % 4]
        assert line["options"]["budget"] is None and line["obstacles"] is None
        out_ = line["outcome"]
        # the Moving AI optimal length (independent of navkit)
        assert out_["status"] == "FOUND"
        assert math.isclose(out_["cost"], scen.optimal[i], rel_tol=0, abs_tol=1e-4)
        assert out_["costInt"] == res.cost_int and out_["cells"] == len(res.cells)
        assert out_["endCell"] == scen.goal[i].tolist()
        assert line["expanded"] == res.expanded and line["generated"] == res.generated
        assert line["fingerprint"] == head["source"]["fingerprint"]
        assert 0 <= line["time"] < 1.0


def test_record_path_owned_and_world_queries(tmp_path):
    walk = np.ones((8, 10), bool)
    walk[2:7, 4] = False
    grid = NavGrid(walk, cell_size=0.5)
    out = tmp_path / "w.jsonl"
    pf = Pathfinder(grid, record=out, budget=500)
    obs = np.array([[1.25, 1.25, 0.3]])
    r1 = pf.find_path((0.25, 0.25), (4.75, 3.75), obstacles=obs)
    r2 = pf.find_path_to_nearest((0.25, 0.25), (2.25, 2.25), budget=40)
    h = pf.add_occupant(3.0, 0.5, 0.3)
    r3 = pf.find_path_cells((0, 0), (9, 7), window=(0, 0, 9, 7), nearest=True)
    pf.remove_occupant(h)
    pf.record.close()
    head, *body = read_lines(out)
    assert head["source"]["path"] is None
    assert [b["kind"] for b in body] == ["find_path", "find_path_to_nearest", "find_path_cells"]
    assert body[0]["obstacles"] == [[1.25, 1.25, 0.3]]
    assert body[0]["options"]["budget"] == 500 and body[1]["options"]["budget"] == 40
    assert body[1]["options"]["nearest"] is True
    assert body[0]["start"] == [0.25, 0.25] and body[0]["options"]["snapRadius"] == 8.0
    assert body[2]["options"]["window"] == [0, 0, 9, 7]
    assert body[2]["options"]["occupants"] == [[3.0, 0.5, 0.3]]
    assert "occupants" not in body[0]["options"]
    for b, r in zip(body, (r1, r2, r3), strict=True):
        assert b["outcome"]["status"] == r.status.name
        assert b["outcome"]["costInt"] == r.cost_int
        assert b["outcome"]["endCell"] == (None if r.end_cell is None else list(r.end_cell))


def test_no_record_writes_nothing_and_bad_record_is_a_config_error(tmp_path):
    pf = Pathfinder(NavGrid(np.ones((3, 3), bool)))
    assert pf.record is None
    with pytest.raises(ConfigError) as info:
        Pathfinder(NavGrid(np.ones((3, 3), bool)), record=42)
    assert info.value.field == "record"


def test_text_file_recorder_threads_and_content_is_deterministic():
    grid = NavGrid(np.ones((12, 12), bool))
    pairs = [((i % 12, 0), (11 - i % 12, 11)) for i in range(200)]

    def run(threads):
        buf = io.StringIO()
        rec = QueryRecorder(buf)
        pfs = [Pathfinder(grid, record=rec) for _ in range(threads)]
        chunks = [pairs[k::threads] for k in range(threads)]
        ts = [threading.Thread(target=lambda pf=pf, ch=ch: [pf.find_path_cells(a, b)
                                                             for a, b in ch])
              for pf, ch in zip(pfs, chunks, strict=True)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        rec.flush()
        return [json.loads(t) for t in buf.getvalue().splitlines()]

    one, four = run(1), run(4)
    assert len(one) == len(four) == 201  # header + every query, none torn
    strip = lambda ls: sorted(json.dumps({k: v for k, v in d.items() if k != "time"},  # noqa: E731
                                         sort_keys=True) for d in ls[1:])
    assert strip(one) == strip(four)


# ---------------------------------------------------------------- NavMap, sim
def test_navmap_records_fingerprint_per_map_version(tmp_path):
    from navkit.level import parse_level

    level = parse_level({
        "cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
        "areas": [
            {"name": "west", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
            {"name": "east", "polygon": [[6, 0], [10, 0], [10, 4], [6, 4]]},
            {"name": "door", "available": False, "polygon": [[4, 1], [6, 1], [6, 3], [4, 3]]},
        ]})
    out = tmp_path / "nav.jsonl"
    nav = NavMap(level, record=out)
    closed_fp = grid_fingerprint(nav.grid)
    r1 = nav.find_path((1, 2), (9, 2))
    nav.set_area_available("door", True)
    open_fp = grid_fingerprint(nav.grid)
    r2 = nav.find_path((1, 2), (9, 2))
    r3 = nav.find_path_to_nearest((1, 2), (9, 2), obstacles=[(5.0, 2.0, 1.2)])
    nav.record.close()
    head, *body = read_lines(out)
    assert head["source"]["kind"] == "level" and head["source"]["fingerprint"] == closed_fp
    assert [b["fingerprint"] for b in body] == [closed_fp, open_fp, open_fp]
    assert [b["outcome"]["status"] for b in body] == [r.status.name for r in (r1, r2, r3)]
    assert body[0]["outcome"]["status"] == "UNREACHABLE" and body[1]["outcome"]["status"] == "FOUND"
    assert body[2]["kind"] == "find_path_to_nearest"
    assert body[2]["obstacles"] == [[5.0, 2.0, 1.2]]


def sim_location(record):
    grid = NavGrid(np.ones((20, 30), bool), cell_size=0.5, agent_radius=0.3)
    loc = Location(grid, record=record)
    a = loc.add_character("a", kind="npc", position=(1.25, 2.25), walk_speed=2.0)
    b = loc.add_character("b", kind="npc", position=(13.25, 2.25), walk_speed=2.0)
    a.set_target((13.75, 8.25))
    b.set_target((1.25, 8.25))
    loc.run(60)
    return loc


def test_sim_records_every_plan(tmp_path):
    out = tmp_path / "sim.jsonl"
    loc = sim_location(out)
    loc.map.record.close()
    head, *body = read_lines(out)
    assert head["source"]["fingerprint"] == grid_fingerprint(loc.map.grid)
    # two characters, one target each, an open field: one plan each, no retries
    assert loc.stats.retries == 0 and len(body) == 2
    assert {b["kind"] for b in body} == {"find_path_to_nearest"}
    assert all(b["options"]["nearest"] and b["obstacles"] is not None for b in body)

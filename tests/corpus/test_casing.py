"""Corpus casing (issue #18): camelCase corpora (version 2), snake_case ones
(version 1) still read with one deprecation notice, mixed keys refused.

Oracles: a corpus recorded by the code before the change
(``data/arena_snake_v1.jsonl``, written by the recorder at git HEAD: its
recorded answers), :mod:`navkit.cli.json_casing`'s key mapping (an
independent copy), and the key tables of docs/corpora.md.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import navkit
import navkit.casing
from navkit.cli import json_casing
from navkit.corpus import casing, read_corpus, replay, upgrade_corpus
from navkit.errors import FormatError
from navkit.formats import load_grid
from navkit.grid import NavGrid
from navkit.world.store import ChunkStore
from navkit.world.world import World

HERE = Path(__file__).parent
OLD = HERE / "data" / "arena_snake_v1.jsonl"
ARENA = Path(navkit.__file__).parent / "examples" / "arena.map"


def _keys(obj: Any, where: str = "") -> list[str]:
    """Every dict key of a JSON value, dotted (lists walked too)."""
    out: list[str] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(where + k)
            out += _keys(v, where + k + ".")
    elif isinstance(obj, list):
        for v in obj:
            out += _keys(v, where)
    return out


def _rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(t) for t in text.splitlines() if t.strip()]


@pytest.fixture(autouse=True)
def _fresh_notice(monkeypatch):
    monkeypatch.setattr(navkit.casing, "_noticed", set())


def test_recording_writes_camel_case_only():
    grid = load_grid(ARENA)
    buf = io.StringIO()
    pf = navkit.Pathfinder(grid, "exact", record=buf, snap_radius=3.0)
    pf.find_path_cells((3, 45), (10, 30), algorithm="astar", budget=40)
    h = pf.add_occupant(3.5, 4.5, 0.4)
    pf.find_path_to_nearest((43.5, 14.5), (12.5, 14.5), window=(0, 0, 30, 30),
                            obstacles=[[20.0, 14.5, 0.6]])
    pf.remove_occupant(h)
    pf.record.flush()
    wbuf = io.StringIO()
    world = World(ChunkStore.from_grid(grid, chunk=16), record=wbuf)
    world.find_path_cells((3, 45), (10, 30), preset="bounded")
    world.find_path((10.5, 40.5), (30.5, 11.5))
    world.record.flush()
    for text in (buf.getvalue(), wbuf.getvalue()):
        rows = _rows(text)
        assert rows[0]["navkitCorpus"] == 2 and len(rows) >= 3
        keys = [k for r in rows for k in _keys(r)]
        assert keys and not [k for k in keys if "_" in k]
        # the multi-word keys of docs/corpora.md's tables, camelCase
        assert {"navkitCorpus", "createdBy", "outcome.costInt", "outcome.endCell",
                "options.snapRadius"} <= set(keys)
    pf_keys = set(_keys(_rows(buf.getvalue())))
    assert "options.occupants" in pf_keys
    world_keys = set(_keys(_rows(wbuf.getvalue())[0]))
    assert {"source.world.smallWorldCells", "source.world.openSpacing",
            "source.world.refineChunks"} <= world_keys


def test_a_snake_case_corpus_replays_with_its_answers_and_one_notice(capsys):
    recorded = _rows(OLD.read_text())
    assert recorded[0]["navkit_corpus"] == 1 and len(recorded) == 7
    with pytest.warns(DeprecationWarning, match="snake_case query corpora"):
        r = replay(OLD, grid=ARENA, progress=False)
    assert r.ok and r.replayed == r.matches == 6 and not r.expansion_mismatches
    assert r.recorded_found == sum(x["outcome"]["status"] == "FOUND" for x in recorded[1:])
    header, queries = read_corpus(OLD)  # a second read: no second notice
    err = capsys.readouterr().err
    assert err.count("DeprecationWarning:") == 1 and json_casing.SNAKE_REMOVED_IN in err
    # the parsed lines carry the file's values (Python names)
    assert header["created_by"] == recorded[0]["created_by"]
    assert header["source"]["fingerprint"] == recorded[0]["source"]["fingerprint"]
    for q, raw in zip(queries, recorded[1:], strict=True):
        o = raw["outcome"]
        assert (q.status, q.cost_int, q.cells) == (o["status"], o["cost_int"], o["cells"])
        assert q.end_cell == (None if o["end_cell"] is None else tuple(o["end_cell"]))
        assert q.snap_radius == raw["options"].get("snap_radius", 8.0)
        assert list(q.occupants) == [tuple(c) for c in raw["options"].get("occupants", [])]


def test_upgrade_corpus_writes_the_camel_case_format(tmp_path):
    new = tmp_path / "arena_v2.jsonl"
    with pytest.warns(DeprecationWarning):
        assert upgrade_corpus(OLD, new) == 6
    old_rows, new_rows = _rows(OLD.read_text()), _rows(new.read_text())
    assert new_rows[0]["navkitCorpus"] == 2
    assert not [k for r in new_rows for k in _keys(r) if "_" in k]
    # the same document, key for key (json_casing's mapping is the oracle)
    back = json_casing.snake_keys(new_rows)
    back[0].pop("navkit_corpus")
    old_rows[0].pop("navkit_corpus")
    assert back == old_rows
    r = replay(new, grid=ARENA, progress=False)
    assert r.ok and r.matches == 6 and not r.expansion_mismatches


def _camel_line() -> dict[str, Any]:
    return {"kind": "find_path", "fingerprint": None, "start": [0.5, 0.5],
            "goal": [2.5, 2.5], "options": {"algorithm": "astar", "smooth": False,
                                            "nearest": False, "budget": None, "window": None,
                                            "costs": [10, 14], "connectivity": 8,
                                            "snapRadius": 1.0},
            "obstacles": None,
            "outcome": {"status": "FOUND", "costInt": 28, "cost": 2.8, "cells": 3,
                        "endCell": [2, 2]},
            "expanded": 3, "generated": 8, "time": 1e-5}


CAMEL_HEAD = {"navkitCorpus": 2, "source": None, "costs": None, "connectivity": 8,
              "createdBy": "test"}
SNAKE_HEAD = {"navkit_corpus": 1, "source": None, "costs": None, "connectivity": 8,
              "created_by": "test"}


def _snake_line() -> dict[str, Any]:
    return json_casing.snake_keys(_camel_line())


def _write(p: Path, head: dict[str, Any], lines: list[dict[str, Any]]) -> Path:
    p.write_text("\n".join(json.dumps(x) for x in [head, *lines]) + "\n")
    return p


def test_both_casings_replay_alike(tmp_path):
    grid = NavGrid(np.ones((3, 3), bool))
    a = replay(_write(tmp_path / "c.jsonl", CAMEL_HEAD, [_camel_line()]), grid=grid,
               progress=False)
    with pytest.warns(DeprecationWarning):
        b = replay(_write(tmp_path / "s.jsonl", SNAKE_HEAD, [_snake_line()]), grid=grid,
                   progress=False)
    assert a.ok and b.ok and a.matches == b.matches == 1


def _set(d: dict[str, Any], path: str, value: Any) -> None:
    *head, last = path.split(".")
    for k in head:
        d = d[k]
    d[last] = value


def _drop(d: dict[str, Any], path: str) -> None:
    *head, last = path.split(".")
    for k in head:
        d = d[k]
    del d[last]


@pytest.mark.parametrize(("snake", "drop", "put", "needle"), [
    # a mixed line: a snake_case key in a camelCase corpus, and the other way round
    (False, "outcome.costInt", ("outcome.cost_int", 28),
     "snake_case key 'outcome.cost_int' in a camelCase corpus"),
    (False, None, ("end_cell", [2, 2]), "snake_case key 'end_cell'"),
    (True, "outcome.end_cell", ("outcome.endCell", [2, 2]),
     "camelCase key 'outcome.endCell' in a snake_case corpus"),
    # misspelt keys
    (False, "outcome.costInt", ("outcome.costInd", 28), "unknown field 'outcome.costInd'"),
    (False, "outcome.costInt", None, "missing field 'outcome.costInt'"),
    (False, "options.snapRadius", ("options.snapRadus", 1.0),
     "unknown field 'options.snapRadus'"),
    (True, "outcome.cost_int", ("outcome.cost_in", 28), "unknown field 'outcome.cost_in'"),
    (True, "outcome.cost_int", None, "missing field 'outcome.cost_int'"),
    (False, None, ("expandd", 3), "unknown field 'expandd'"),
    (False, None, ("outcome.costint", 3), "unknown field 'outcome.costint'"),
    # a bad value is named as the corpus spells the field
    (False, None, ("outcome.costInt", "28"), "outcome.costInt: expected an integer"),
    (True, None, ("outcome.cost_int", "28"), "outcome.cost_int: expected an integer"),
])
def test_mixed_or_misspelt_keys_name_the_line(tmp_path, snake, drop, put, needle):
    good = _snake_line() if snake else _camel_line()
    bad = _snake_line() if snake else _camel_line()
    if drop:
        _drop(bad, drop)
    if put:
        _set(bad, *put)
    p = _write(tmp_path / "bad.jsonl", SNAKE_HEAD if snake else CAMEL_HEAD, [good, bad])
    with pytest.raises(FormatError) as info:
        if snake:
            with pytest.warns(DeprecationWarning):
                read_corpus(p)
        else:
            read_corpus(p)
    assert info.value.path == str(p) and info.value.line == 3
    assert needle in info.value.reason, info.value.reason


def test_a_camel_case_key_in_a_snake_case_header_is_refused(tmp_path):
    head = dict(SNAKE_HEAD, createdBy="x")
    del head["created_by"]
    p = _write(tmp_path / "h.jsonl", head, [])
    with pytest.raises(FormatError, match="camelCase key 'createdBy'") as info:
        read_corpus(p)
    assert info.value.line == 1


_WORD = st.from_regex(re.compile(r"[a-z][a-z0-9]{0,5}"), fullmatch=True)


@settings(deadline=None, max_examples=60)
@given(st.lists(_WORD, min_size=1, max_size=4), st.booleans())
def test_the_key_mapping_is_json_casings(words, underscore):
    key = "_".join(words) if underscore else "".join(words)
    assert casing.to_camel(key) == json_casing.to_camel(key)
    camel = json_casing.to_camel(key)
    assert casing.to_snake(camel) == json_casing.to_snake(camel)
    assert casing.camel_keys({key: {key: [1]}}) == json_casing.camel_keys({key: {key: [1]}})
    assert casing.SNAKE_REMOVED_IN == json_casing.SNAKE_REMOVED_IN

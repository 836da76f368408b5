"""Hostile values that escaped as Python exceptions instead of navkit errors.

Each test pins a defect a hostile-input campaign found: a query-corpus line with
an integer of 500 digits where a float belongs (``OverflowError``) or
``"status": []`` (``TypeError``); a search window of ``10**30`` (``OverflowError``,
on a Pathfinder and on a NavMap); ragged rows given to NavGrid (numpy's
``ValueError``); a tiny ``chord_error`` that built a mesh for half a minute
before refusing the value. Each must be a navkit error naming the field (or
the file and line).
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import navkit
from navkit.corpus.replay import read_corpus
from navkit.errors import ConfigError, FormatError, QueryError

HEAD = {"navkitCorpus": 2, "source": None, "costs": None, "connectivity": 8, "createdBy": "t"}
LINE: dict[str, Any] = {
    "kind": "find_path", "fingerprint": None, "start": [0.5, 0.5], "goal": [2.5, 2.5],
    "options": {"algorithm": "astar", "smooth": False, "nearest": False, "budget": None,
                "window": None, "costs": [10, 14], "connectivity": 8, "snapRadius": 1.0},
    "obstacles": None,
    "outcome": {"status": "FOUND", "costInt": 28, "cost": 2.8, "cells": 3, "endCell": [2, 2]},
    "expanded": 3, "generated": 8, "time": 1e-5,
}


def corpus(tmp_path: Path, line: dict[str, Any] | str) -> Path:
    p = tmp_path / "c.jsonl"
    body = line if isinstance(line, str) else json.dumps(line)
    p.write_text(json.dumps(HEAD) + "\n" + body + "\n")
    return p


def test_a_valid_line_reads(tmp_path: Path):
    _, qs = read_corpus(corpus(tmp_path, LINE))
    assert qs[0].status == "FOUND" and qs[0].start == (0.5, 0.5)


@pytest.mark.parametrize("where, value, field", [
    (("start", 0), 10**500, "start"),
    (("time",), 10**500, "time"),
    (("options", "snapRadius"), -(10**400), "snapRadius"),
    (("obstacles",), [[0.0, 0.0, 10**309]], "obstacles"),
    (("outcome", "status"), [], "status"),
    (("outcome", "status"), {"a": 1}, "status"),
    (("kind",), [], "kind"),
    (("options", "algorithm"), {}, "algorithm"),
], ids=["start-500-digits", "time-500-digits", "snap-400-digits", "obstacle-309-digits",
        "status-list", "status-dict", "kind-list", "algorithm-dict"])
def test_hostile_corpus_fields_are_format_errors(tmp_path: Path, where: tuple, value: Any,
                                                 field: str):
    line = copy.deepcopy(LINE)
    obj = line
    for k in where[:-1]:
        obj = obj[k]
    obj[where[-1]] = value
    p = corpus(tmp_path, line)
    with pytest.raises(FormatError, match=field) as ei:
        read_corpus(p)
    assert ei.value.path == str(p) and ei.value.line == 2


def test_corpus_numbers_past_pythons_digit_limit_and_deep_nesting(tmp_path: Path):
    text = json.dumps(LINE).replace('"expanded": 3', '"expanded": ' + "7" * 5000)
    with pytest.raises(FormatError, match="malformed JSON") as ei:
        read_corpus(corpus(tmp_path, text))
    assert ei.value.line == 2
    deep = copy.deepcopy(LINE)
    node: dict[str, Any] = deep["options"]
    for _ in range(900):  # within json's own depth, beyond a recursive walk's
        node["x"] = {}
        node = node["x"]
    with pytest.raises(FormatError):
        read_corpus(corpus(tmp_path, deep))
    with pytest.raises(FormatError, match="cannot read"):
        read_corpus(tmp_path / "missing.jsonl")


WINDOWS = [(10**30, 0, 10**30 + 1, 3), (0, 0, 10**30, 10**30), (-(10**30), -5, -(10**29), 2),
           (0, -(2**63) - 1, 2**64, 3)]


@pytest.mark.parametrize("window", WINDOWS, ids=["past-1e30", "to-1e30", "before-1e30",
                                                  "int64-edges"])
def test_huge_windows_are_answered_or_refused_never_overflow(window: tuple):
    pf = navkit.Pathfinder(navkit.NavGrid(np.ones((5, 5), dtype=bool)))
    r = pf.find_path_cells((0, 0), (1, 1), window=window)
    inside = window[0] <= 0 and window[2] >= 1 and window[1] <= 0 and window[3] >= 1
    assert (r.status == navkit.Status.FOUND) == inside
    grid = navkit.NavGrid(np.ones((5, 5), dtype=bool))
    nm = navkit.NavMap(grid)
    r2 = nm.find_path(grid.cell_center(0, 0), grid.cell_center(1, 1), window=window)
    assert r2.status == r.status
    with pytest.raises(QueryError):
        pf.find_path_cells((0, 0), (1, 1), window=(10**400, 0, 1, 1))


@pytest.mark.parametrize("rows", [[[1, 0], [1]], [[1], [0, 1, 1]], [[[1]], [1]]])
def test_ragged_rows_are_a_config_error(rows: list):
    with pytest.raises(ConfigError) as ei:
        navkit.NavGrid(rows)
    assert ei.value.field == "walkable"
    with pytest.raises(ConfigError) as ei:
        navkit.NavGrid([[1, 1], [1, 1]], weights=rows)
    assert ei.value.field == "weights"


@pytest.mark.parametrize("chord_error", [1e-7, 0.0, -1.0, float("nan"), 2.0, True, "0.1"])
def test_chord_error_is_checked_before_any_work(chord_error: Any):
    from navkit.level import parse_level
    from navkit.mesh.build import random_level

    level = parse_level(random_level(40, 30, 25, seed=1))
    t0 = time.perf_counter()
    with pytest.raises(ConfigError) as ei:
        navkit.NavMesh.from_level(level, chord_error=chord_error)
    assert ei.value.field == "chord_error"
    assert time.perf_counter() - t0 < 1.0


def test_a_mesh_algorithm_that_is_not_a_string_is_a_query_error():
    """An array (or any non-string) as ``algorithm`` / ``method``: a QueryError, not numpy's
    "truth value of an array is ambiguous"."""
    mesh = navkit.NavMesh.from_grid(navkit.NavGrid(np.ones((6, 8), bool), cell_size=0.5))
    bad = np.array(["exact", "funnel"])
    with pytest.raises(QueryError, match="algorithm"):
        mesh.find_path((0.5, 0.5), (3.0, 2.0), algorithm=bad)
    with pytest.raises(QueryError, match="algorithm"):
        mesh.find_path_to_nearest((0.5, 0.5), (3.0, 2.0), algorithm=bad)


def test_a_character_kind_past_pythons_digit_limit_is_a_config_error():
    from navkit.sim import Location

    loc = Location(navkit.NavGrid(np.ones((6, 8), bool), cell_size=0.5))
    with pytest.raises(ConfigError, match="kind"):
        loc.add_character("a", kind=10 ** 5000, position=(0.5, 0.5))

"""`navkit bake` and `navkit replay` on a Dask cluster: the same bytes and answers as here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("distributed")

import navkit  # noqa: E402
from navkit.cli import app  # noqa: E402
from navkit.corpus import QueryRecorder  # noqa: E402
from navkit.examples import path as example  # noqa: E402


def test_bake_on_two_workers_writes_the_same_bytes(tmp_path: Path) -> None:
    src = str(example("arena.map"))
    here, there = tmp_path / "here.nkw", tmp_path / "there.nkw"
    r1 = CliRunner().invoke(app, ["bake", src, "-o", str(here), "--json"])
    r2 = CliRunner().invoke(app, ["bake", src, "-o", str(there), "--workers", "2", "--threads",
                                  "--json"])
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.output + r2.output
    assert here.read_bytes() == there.read_bytes()


def test_replay_on_two_workers_matches(tmp_path: Path) -> None:
    grid = navkit.load_grid(example("arena.map"))
    corpus = tmp_path / "c.jsonl"
    rec = QueryRecorder.for_grid(corpus, grid, map_path=str(example("arena.map")))
    pf = navkit.Pathfinder(grid, record=rec)
    scen = navkit.read_scenarios(example("arena.map.scen"))
    for a, b in zip(scen.start[:40], scen.goal[:40], strict=True):
        pf.find_path_cells(a, b)
    rec.close()
    res = CliRunner().invoke(app, ["replay", str(corpus), "--workers", "2", "--threads",
                                   "--budget", "50,none", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["replayed"] == 40 and not out["answerMismatches"]

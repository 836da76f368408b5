"""Search against the Moving AI benchmarks: every scenario line's optimal length is an oracle.

The default run checks ~40 lines of every ``.scen`` file (evenly spaced, plus
the first, the last and the longest) with single queries; the ``heavy`` test
runs every line of every file through :meth:`Pathfinder.find_paths_batch`.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

import navkit
from navkit import Pathfinder, Status
from tests.conftest import movingai_dir

#: Lines per file in the default (non-heavy) run.
SAMPLE = 40


def _scen_names() -> list[str]:
    d = movingai_dir()
    return sorted(p.name for p in d.glob("*.scen")) if d.is_dir() else []


SCEN_FILES = _scen_names()


@functools.lru_cache(maxsize=4)
def _pathfinder(map_path: Path) -> Pathfinder:
    return Pathfinder(navkit.load_grid(map_path), costs="exact")


def _load(movingai: Path, name: str) -> tuple[Pathfinder, navkit.formats.ScenarioSet]:
    scen = navkit.read_scenarios(movingai / name)
    assert len(scen) > 0, f"{name}: no scenario lines"
    map_path = movingai / scen.map_basename
    assert map_path.is_file(), f"{name}: map {scen.map_basename} not found in {movingai}"
    return _pathfinder(map_path), scen


def _sample(scen: navkit.formats.ScenarioSet, k: int = SAMPLE) -> np.ndarray:
    """Evenly spaced line indices, including the first, the last and the longest line."""
    n = len(scen)
    idx = np.linspace(0, n - 1, num=min(k, n)).round().astype(np.int64)
    return np.unique(np.concatenate([idx, [n - 1, int(np.argmax(scen.optimal))]]))


def _mismatches(name: str, scen, idx, status, cost) -> list[str]:
    tol = scen.tolerance()[idx]
    opt = scen.optimal[idx]
    bad = (status != Status.FOUND) | ~(np.abs(cost - opt) <= tol)
    return [
        f"{name}:{int(scen.lines[i])}: {tuple(scen.start[i])} -> {tuple(scen.goal[i])}: "
        f"{Status(int(s)).name} {c:.6f}, optimal {o}"
        for i, s, c, o in zip(idx[bad], status[bad], cost[bad], opt[bad], strict=True)
    ]


def test_all_scenario_files_found(movingai):
    assert SCEN_FILES, f"no .scen files in {movingai}"
    for name in SCEN_FILES:
        assert (movingai / name).is_file()


@pytest.mark.parametrize("name", SCEN_FILES)
def test_scenario_sample(movingai, name):
    pf, scen = _load(movingai, name)
    navkit.formats.check_scenarios_fit(scen, pf.grid)
    idx = _sample(scen)
    status = np.empty(len(idx), dtype=np.int64)
    cost = np.empty(len(idx), dtype=np.float64)
    for j, i in enumerate(idx):
        r = pf.find_path_cells(scen.start[i], scen.goal[i])
        status[j], cost[j] = int(r.status), r.cost
        if r.found:
            # the integer cost is what the path's steps add up to
            steps = np.abs(np.diff(r.cells, axis=0)).sum(axis=1)
            assert r.cost_int == 1_000_000 * int((steps == 1).sum()) + 1_414_214 * int(
                (steps == 2).sum()
            )
            assert tuple(r.cells[0]) == tuple(scen.start[i]) and tuple(r.cells[-1]) == tuple(
                scen.goal[i]
            )
    bad = _mismatches(name, scen, idx, status, cost)
    assert not bad, f"{len(bad)} of {len(idx)} lines differ:\n" + "\n".join(bad[:20])


@pytest.mark.heavy
def test_every_scenario_line(movingai):
    """Every line of every file, through the batch API (make test-heavy)."""
    total = 0
    bad: list[str] = []
    for name in SCEN_FILES:
        pf, scen = _load(movingai, name)
        b = pf.find_paths_batch(scen.start, scen.goal)
        idx = np.arange(len(scen))
        bad += _mismatches(name, scen, idx, b.status, b.cost)
        total += len(scen)
    assert total > 0
    assert not bad, f"{len(bad)} of {total} lines differ:\n" + "\n".join(bad[:40])

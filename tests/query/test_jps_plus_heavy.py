"""Every line of every Moving AI scenario file through JPS+ (``make test-heavy``).

The oracle is the file's own optimal length (within its tolerance): the same
check as tests/query/test_movingai.py's heavy test, through
:class:`navkit.query.jps_plus.JPSPlus` single queries.
"""

from __future__ import annotations

import numpy as np
import pytest

import navkit
from navkit import Pathfinder, Status
from navkit.query.jps_plus import JPSPlus
from tests.conftest import movingai_dir

BIG = 10**12


def _scen_names() -> list[str]:
    d = movingai_dir()
    return sorted(p.name for p in d.glob("*.scen")) if d.is_dir() else []


@pytest.mark.heavy
def test_every_scenario_line_jps_plus(movingai):
    names = _scen_names()
    assert names, f"no .scen files in {movingai}"
    total = 0
    bad: list[str] = []
    for name in names:
        scen = navkit.read_scenarios(movingai / name)
        pf = Pathfinder(navkit.load_grid(movingai / scen.map_basename), costs="exact")
        jp = JPSPlus(pf)
        tol = scen.tolerance()
        starts = np.asarray(scen.start, dtype=np.int64).tolist()
        goals = np.asarray(scen.goal, dtype=np.int64).tolist()
        for i, (s, g) in enumerate(zip(starts, goals, strict=True)):
            r = jp.cell_query(tuple(s), tuple(g), smooth=False, nearest=False, budget=BIG)
            if r.status != Status.FOUND or not abs(r.cost - scen.optimal[i]) <= tol[i]:
                bad.append(f"{name}:{int(scen.lines[i])}: {tuple(s)} -> {tuple(g)}: "
                           f"{r.status.name} {r.cost:.6f}, optimal {scen.optimal[i]}")
        assert jp.fallbacks == 0
        total += len(scen)
    assert total > 0
    assert not bad, f"{len(bad)} of {total} lines differ:\n" + "\n".join(bad[:40])

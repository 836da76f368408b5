"""Every line of every Moving AI scenario file through JPS+ (``make test-heavy``).

The oracle is the file's own optimal length (within its tolerance): the same
check as tests/query/test_movingai.py's heavy test, through
:class:`navkit.query.jps_plus.JPSPlus` single queries; every 10th line is also
compared with online JPS's whole answer. One test per scenario file:
``pytest -m heavy tests/query/test_jps_plus_heavy.py -k den520d``.
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
@pytest.mark.parametrize("name", _scen_names() or ["(no scenario files)"])
def test_every_scenario_line_jps_plus(movingai, name):
    """One test per scenario file (``-k den520d`` runs one map): every line's
    JPS+ cost equals the optimal length, and every 10th line's answer is
    online JPS's own (status, cost, counts, cells)."""
    if not (movingai / name).is_file():
        pytest.fail(f"no .scen files in {movingai}")
    scen = navkit.read_scenarios(movingai / name)
    pf = Pathfinder(navkit.load_grid(movingai / scen.map_basename), costs="exact")
    jp = JPSPlus(pf)
    tol = scen.tolerance()
    starts = np.asarray(scen.start, dtype=np.int64).tolist()
    goals = np.asarray(scen.goal, dtype=np.int64).tolist()
    bad: list[str] = []
    for i, (s, g) in enumerate(zip(starts, goals, strict=True)):
        r = jp.cell_query(tuple(s), tuple(g), smooth=False, nearest=False, budget=BIG)
        if r.status != Status.FOUND or not abs(r.cost - scen.optimal[i]) <= tol[i]:
            bad.append(f"{name}:{int(scen.lines[i])}: {tuple(s)} -> {tuple(g)}: "
                       f"{r.status.name} {r.cost:.6f}, optimal {scen.optimal[i]}")
        elif i % 10 == 0:
            a = pf.engine.jps.cell_query(tuple(s), tuple(g), smooth=False, nearest=False,
                                         budget=BIG)
            if ((r.cost_int, r.expanded, r.generated) != (a.cost_int, a.expanded, a.generated)
                    or not np.array_equal(r.cells, a.cells)):
                bad.append(f"{name}:{int(scen.lines[i])}: {tuple(s)} -> {tuple(g)}: JPS+ "
                           f"differs from online JPS")
    assert jp.fallbacks == 0
    assert len(scen) > 0
    assert not bad, f"{len(bad)} of {len(scen)} lines differ:\n" + "\n".join(bad[:40])

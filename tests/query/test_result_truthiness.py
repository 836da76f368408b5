"""`if result:` means "there is a path to follow"; a Status prints its name (issue #18 §5)."""

from __future__ import annotations

import numpy as np

import navkit
from navkit.results import Status


def _split_grid() -> navkit.Pathfinder:
    walk = np.ones((6, 9), dtype=bool)
    walk[:, 4] = False  # a full wall: the two halves never meet
    return navkit.Pathfinder(navkit.NavGrid(walk))


def test_unreachable_result_is_falsy_and_a_found_one_truthy() -> None:
    pf = _split_grid()
    found = pf.find_path_cells((0, 0), (3, 5))
    unreachable = pf.find_path_cells((0, 0), (8, 5))
    nearest = pf.find_path_cells((0, 0), (8, 5), nearest=True)
    blocked = pf.find_path_cells((4, 0), (0, 0))
    assert found.status is Status.FOUND and found
    assert unreachable.status is Status.UNREACHABLE and not unreachable
    assert nearest.status is Status.NEAREST and nearest  # a path toward the goal
    assert blocked.status is Status.NO_START and not blocked
    budget = pf.find_path_cells((0, 0), (3, 5), budget=1)
    assert budget.status is Status.BUDGET_EXHAUSTED and not budget


def test_status_prints_its_name_and_keeps_its_code() -> None:
    for st in Status:
        assert str(st) == st.name and f"{st}" == st.name and f"{st:>20}" == f"{st.name:>20}"
    assert int(Status.NEAREST) == 4 and Status(0) is Status.FOUND
    assert f"{int(Status.NO_GOAL)}" == "6"

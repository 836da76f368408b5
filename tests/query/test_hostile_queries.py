"""Hostile arguments to the public query API: a navkit error or a valid answer,
never Python's own exceptions (OverflowError, ValueError from numpy, ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import navkit
from navkit import NavkitError

g = navkit.NavGrid(np.ones((10, 12), bool), cell_size=0.5)
pf = navkit.Pathfinder(g)
nav = navkit.NavMap(g)
h = navkit.HPAStar(g, cluster_size=4)
ro = np.zeros((10, 12))
ro.flags.writeable = False


def _ff() -> navkit.FlowField:
    f = navkit.FlowField(g)
    f.build([(1, 1)])
    return f


CASES: dict[str, Callable[[], Any]] = {
    "budget 2**63": lambda: pf.find_path_cells((0, 0), (5, 5), budget=2**63),
    "budget -1": lambda: pf.find_path_cells((0, 0), (5, 5), budget=-1),
    "budget 1.5": lambda: pf.find_path_cells((0, 0), (5, 5), budget=1.5),
    "window 1e30": lambda: pf.find_path_cells((0, 0), (5, 5), window=(0, 0, 1e30, 1e30)),
    "window -1e30": lambda: pf.find_path_cells((0, 0), (5, 5), window=(-1e30, 0, 5, 5)),
    "world 1e308 astar": lambda: pf.find_path((1e308, 1e308), (1, 1), algorithm="astar"),
    "world 1e308 jps": lambda: pf.find_path((1e308, 1e308), (1, 1)),
    "world -1e308 nearest astar": lambda: pf.find_path_to_nearest((1, 1), (-1e308, 1e308),
                                                                  algorithm="astar"),
    "world nan": lambda: pf.find_path((float('nan'), 1), (1, 1)),
    "cells huge int": lambda: pf.find_path_cells((10**300, 0), (5, 5)),
    "cells huge int2": lambda: pf.find_path_cells((0, 0), (5, -10**300)),
    "world huge int": lambda: pf.find_path((10**300, 0), (5, 5)),
    "snap_radius 1e300": lambda: navkit.Pathfinder(g, snap_radius=1e300).find_path((1, 1), (3, 3)),
    "snap huge": lambda: pf.snap((10**400, 1)),
    "ragged batch": lambda: pf.find_paths_batch([[0, 0], [1]], [[5, 5], [6, 6]]),
    "ragged batch2": lambda: pf.find_paths_batch([[0, 0, 0]], [[5, 5]]),
    "batch huge": lambda: pf.find_paths_batch([[10**30, 0]], [[5, 5]]),
    "batch float": lambda: pf.find_paths_batch([[0.5, 0]], [[5, 5]]),
    "is_walkable str": lambda: nav.is_walkable('a', 'b'),
    "nav far point": lambda: nav.find_path((1e308, 1e308), (1, 1)),
    "nav far end nearest": lambda: nav.find_path_to_nearest((1, 1), (-1e308, 1e308)),
    "nav snap str": lambda: nav.snap('a', 'b'),
    "nav find_path str": lambda: nav.find_path('ab', (1, 1)),
    "distance_field ro": lambda: pf.distance_field([(0, 0)], out=ro),
    "distance_field bad shape": lambda: pf.distance_field([(0, 0)], out=np.zeros((3, 3))),
    "distance_field huge": lambda: pf.distance_field([(10**40, 0)]),
    "distance_field_int ro": lambda: pf.distance_field_int([(0, 0)], out=ro.astype(np.int64)),
    "obstacles ragged": lambda: pf.find_path_cells((0, 0), (5, 5), obstacles=[[1, 1], [2, 2, 2]]),
    "obstacles 1e308": lambda: pf.find_path_cells((0, 0), (5, 5), obstacles=[[1e308, 1, 1]]),
    "obstacles huge int": lambda: pf.find_path_cells((0, 0), (5, 5), obstacles=[[10**400, 1, 1]]),
    "add_occupant huge": lambda: pf.add_occupant(1e308, 1, 1),
    "add_occupant str": lambda: pf.add_occupant('a', 1, 1),
    "add_occupant hugeint": lambda: pf.add_occupant(10**400, 1, 1),
    "remove_occupant str": lambda: pf.remove_occupant('x'),
    "hpa huge": lambda: h.find_path_cells((10**300, 0), (5, 5)),
    "hpa ragged": lambda: h.find_paths_batch([[0, 0], [1]], [[5, 5], [6, 6]]),
    "flow goal huge": lambda: navkit.FlowField(g).build([(10**300, 0)]),
    "flow lookup huge": lambda: _ff().lookup([[1e308, 1e308]]),
    "flow next_cell huge": lambda: _ff().next_cell(10**300, 1),
    "flow update huge": lambda: _ff().update((0, 0, 10**300, 5)),
    "line_of_sight huge": lambda: pf.line_of_sight((10**300, 0), (1, 1)),
    "smooth_cells ragged": lambda: pf.smooth_cells([[0, 0], [1]]),
    "smooth_cells huge": lambda: pf.smooth_cells([[0, 0], [10**300, 1]]),
    "Pathfinder budget huge": lambda: navkit.Pathfinder(g, budget=2**70),
    "costs huge": lambda: navkit.Pathfinder(g, costs=(10**30, 10**30)),
    "costs neg": lambda: navkit.Pathfinder(g, costs=(-1, 3)),
    "nav cache_size huge": lambda: navkit.NavMap(g, cache_size=10**30),
    "hpa cluster huge": lambda: navkit.HPAStar(g, cluster_size=10**30),
    "threads huge": lambda: pf.find_paths_batch([[0, 0]], [[5, 5]], threads=10**30),
}
del CASES["distance_field_int ro"]  # no such keyword: a TypeError is right


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_query_arguments_get_a_navkit_error_or_an_answer(name: str) -> None:
    try:
        CASES[name]()
    except NavkitError:
        pass


def test_huge_budget_means_no_budget() -> None:
    assert pf.find_path_cells((0, 0), (5, 5), budget=2**63).cost == \
        pf.find_path_cells((0, 0), (5, 5)).cost


def test_far_world_points_on_a_fine_grid_answer_like_jps() -> None:
    # 1e308 / 0.5 overflows to inf: the A* route used to raise OverflowError
    for algorithm in ("astar", "jps"):
        r = pf.find_path((1e308, 1e308), (1.0, 1.0), algorithm=algorithm)
        assert r.status == navkit.Status.NO_START

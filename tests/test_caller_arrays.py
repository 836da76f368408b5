"""navkit never freezes or keeps a live view of the caller's numpy arrays.

A grid keeps its own read-only copy: the caller's array stays writeable, and
writing to it later changes neither the grid nor a query built on it
(``copy=False`` is the documented way to hand an array over instead).
Then every public call that takes an array is run on writeable arrays and
must leave them writeable.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import navkit
from navkit.errors import ConfigError
from navkit.formats import from_array
from navkit.grid import NavGrid


def _walk() -> np.ndarray:
    walk = np.ones((6, 8), dtype=bool)
    walk[1:5, 4] = False
    return walk


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int64, np.float64])
def test_the_callers_walkable_array_stays_writeable_and_detached(dtype: type) -> None:
    walk = _walk().astype(dtype)
    before = walk.copy()
    grid = NavGrid(walk)
    assert walk.flags.writeable
    walk[0, 0] = 0  # the write that used to fail with "assignment destination is read-only"
    walk[1:5, 4] = 1
    assert grid.walkable[0, 0] and not grid.walkable[1:5, 4].any()
    assert np.array_equal(grid.walkable, before != 0)
    assert not grid.walkable.flags.writeable


def test_the_callers_weights_stay_writeable_and_detached() -> None:
    weights = np.full((6, 8), 3, dtype=np.int32)
    grid = NavGrid(_walk(), weights)
    weights[:] = 7
    assert weights.flags.writeable and int(grid.weights.max()) == 3
    assert not grid.weights.flags.writeable


def test_a_view_of_the_callers_array_is_copied_too() -> None:
    big = np.ones((12, 16), dtype=bool)
    view = big[::2, ::2]  # not contiguous: converted, so copied anyway
    grid = NavGrid(view)
    big[:] = False
    assert grid.walkable.all() and big.flags.writeable
    rows = big[:6]  # contiguous view: shares memory unless copied
    grid = NavGrid(rows)
    big[:] = True
    assert not grid.walkable.any() and rows.flags.writeable


def test_every_way_of_making_a_grid_leaves_the_caller_alone() -> None:
    walk = _walk()
    costs = np.where(walk, 1.5, 0.0)
    tiles = np.where(walk, 3, 7)
    grids = [
        NavGrid.from_costs(costs),
        NavGrid.from_tiles(tiles, {3: 2, 7: None}),
        navkit.Pathfinder(tiles).grid,
        from_array(walk),
        navkit.NavGrid(np.ones((6, 8), bool)).with_walkable(walk),
        navkit.NavGrid(walk).with_weights(np.full((6, 8), 2, dtype=np.int32)),
        dataclasses.replace(NavGrid(np.ones((6, 8), bool)), walkable=walk),
    ]
    for g in grids:
        assert not g.walkable.flags.writeable
    assert walk.flags.writeable and costs.flags.writeable and tiles.flags.writeable
    assert np.array_equal(tiles, np.where(_walk(), 3, 7))
    walk[:] = False
    tiles[:] = 7
    assert all(g.walkable.any() for g in grids)


def test_a_pathfinder_does_not_see_later_writes_to_the_callers_array() -> None:
    walk = _walk()
    pf = navkit.Pathfinder(NavGrid(walk))
    before = pf.find_path_cells((0, 2), (7, 2), algorithm="astar")
    walk[:, 6] = False  # would cut the map in two
    after = pf.find_path_cells((0, 2), (7, 2), algorithm="astar")
    assert after.status == before.status == navkit.Status.FOUND
    assert after.cost_int == before.cost_int
    assert walk.flags.writeable


def test_copy_false_takes_ownership() -> None:
    walk = _walk()
    grid = NavGrid(walk, copy=False)
    assert grid.walkable is walk and not walk.flags.writeable
    weights = np.full((6, 8), 2, dtype=np.int32)
    grid = NavGrid(walk, weights, copy=False)
    assert grid.weights is weights and not weights.flags.writeable
    # an array of another dtype is converted (a new array): the caller's stays writeable
    codes = _walk().astype(np.uint8)
    grid = NavGrid(codes, copy=False)
    assert codes.flags.writeable and grid.walkable is not codes


def test_grids_share_their_own_arrays_without_copying() -> None:
    grid = NavGrid(_walk(), np.full((6, 8), 2, dtype=np.int32))
    other = dataclasses.replace(grid, name="other")
    assert other.walkable is grid.walkable and other.weights is grid.weights
    assert grid.with_weights(grid.weights).weights is grid.weights


@pytest.mark.parametrize("bad", [None, 1, "yes", 0.0])
def test_copy_must_be_a_bool(bad: object) -> None:
    with pytest.raises(ConfigError) as err:
        NavGrid(_walk(), copy=bad)  # type: ignore[arg-type]
    assert err.value.field == "copy"


def test_public_calls_leave_every_array_writeable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    walk = _walk()
    pf = navkit.Pathfinder(NavGrid(walk))
    starts = np.array([[0, 0], [0, 5]], dtype=np.int64)
    goals = np.array([[7, 0], [7, 5]], dtype=np.int64)
    circles = np.array([[2.5, 2.5, 0.5]], dtype=np.float64)
    point = np.array([0.5, 0.5])
    cells = np.array([[0, 0], [1, 1], [2, 2]], dtype=np.int64)
    pf.find_path(point, np.array([7.5, 5.5]), obstacles=circles)
    pf.find_paths_batch(starts, goals)
    pf.distance_field(goals)
    pf.smooth_cells(cells)
    pf.snapshot(circles)
    navkit.FlowField(pf).build(goals, obstacles=circles)
    navkit.NavMesh.from_grid(NavGrid(walk)).find_path(point, np.array([7.5, 5.5]))
    for name, arr in [("walk", walk), ("starts", starts), ("goals", goals), ("circles", circles),
                      ("point", point), ("cells", cells)]:
        assert arr.flags.writeable, name

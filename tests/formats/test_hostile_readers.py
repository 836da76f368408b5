"""Hostile input to the readers and to NavGrid: every bad file or value is a navkit error.

Each test pins one defect found by a hostile-input campaign: oversized
declarations (decompression bombs), corrupt headers, numbers that overflow,
geometry that does not fit in a float. The reader must refuse with a
:class:`~navkit.errors.FormatError` or :class:`~navkit.errors.ConfigError`
naming the file and line or field, before allocating anything large.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from navkit.errors import ConfigError, QueryError
from navkit import grid as grid_module
from navkit.grid import NavGrid


# ------------------------------------------------------------------------- NavGrid
@pytest.mark.parametrize("cell_size", [1e-300, 5e-324, 1e-10, 1e10, 1e300, math.inf, math.nan])
def test_navgrid_cell_size_out_of_range(cell_size):
    with pytest.raises(ConfigError) as ei:
        NavGrid(np.ones((3, 3), dtype=bool), cell_size=cell_size)
    assert ei.value.field == "cell_size"


@pytest.mark.parametrize("field", ["min_x", "min_z"])
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_navgrid_origin_must_be_finite(field, value):
    with pytest.raises(ConfigError) as ei:
        NavGrid(np.ones((3, 3), dtype=bool), **{field: value})
    assert ei.value.field == field


def test_navgrid_cell_size_limits_are_accepted_and_stay_finite():
    for cs in (grid_module.MIN_CELL_SIZE, grid_module.MAX_CELL_SIZE):
        grid = NavGrid(np.ones((4, 5), dtype=bool), cell_size=cs, min_x=1.7e308, min_z=-1.7e308)
        assert math.isfinite(grid.max_x) and math.isfinite(grid.max_z)
        assert all(math.isfinite(v) for v in grid.cell_center(4, 3))


def test_world_to_cell_far_away_is_a_query_error():
    grid = NavGrid(np.ones((3, 3), dtype=bool), cell_size=0.5, min_x=-1e308)
    with pytest.raises(QueryError, match="far"):
        grid.world_to_cell(1.7e308, 0.0)

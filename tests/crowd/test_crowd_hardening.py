"""Crowd under hostile input: huge tick counts and damaged saved states raise a
navkit error naming the argument (before: an OverflowError from numba, a
KeyError, or NaN positions a few ticks later)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from navkit import NavGrid
from navkit.crowd import Crowd, Weights
from navkit.crowd.crowd import MAX_TICKS
from navkit.errors import ConfigError, QueryError


def crowd() -> Crowd:
    walk = np.ones((12, 12), dtype=bool)
    walk[5, 2:9] = False
    c = Crowd([[1.5, 1.5], [3.5, 2.5], [8.5, 9.5]], grid=NavGrid(walk),
              weights=Weights(seek=1.0, separation=1.0), max_speed=[1.0, 2.0, 1.5])
    c.set_targets([10.5, 10.5])
    c.set_path(1, [[3.5, 2.5], [10.5, 3.5]])
    c.run(5, 0.1)
    return c


@pytest.mark.parametrize("ticks", [2**70, 2**63, MAX_TICKS + 1, -1, 1.5, True, "3"])
def test_run_refuses_tick_counts_out_of_range(ticks):
    c = crowd()
    with pytest.raises(QueryError, match="^ticks: "):
        c.run(ticks, 0.1)
    assert c.tick == 5


def test_run_refuses_to_pass_the_tick_counter_bound():
    state = crowd().state_dict()
    state["tick"] = 2**62 - 2
    c = Crowd.from_state(state)
    with pytest.raises(QueryError, match="^ticks: "):
        c.run(5, 0.1)


@pytest.mark.parametrize("key", ["pos", "vel", "max_speed", "weights", "params", "grid", "tick",
                                 "seed", "path_off", "flow_dir", "status", "blending"])
def test_from_state_names_a_missing_key(key):
    state = crowd().state_dict()
    del state[key]
    with pytest.raises(ConfigError) as err:
        Crowd.from_state(state)
    assert err.value.field == key


@pytest.mark.parametrize("key,row,value", [
    ("vel", 1, [np.inf, 0.0]), ("vel", 0, [np.nan, 1.0]), ("vel", 2, [1e200, 0.0]),
    ("max_speed", 0, -1.0), ("max_speed", 1, np.nan), ("max_speed", 2, 0.0),
    ("max_force", 0, -2.0), ("head", 0, [np.inf, 0.0]), ("wander", 1, np.nan),
    ("target", 0, [np.nan, 0.0]), ("weights", 0, [-1.0] + [0.0] * 11),
    ("chase", 0, 3), ("avoid", 1, -2), ("flow_id", 0, 0), ("flow_id", 2, -7),
    ("status", 0, 5), ("path_idx", 1, 2), ("path_idx", 0, 1), ("path_idx", 2, -1),
    ("pos", 0, [np.inf, 0.0]), ("pos", 1, [5.5, 5.5]),
])
def test_from_state_refuses_values_the_setters_refuse(key, row, value):
    state = crowd().state_dict()
    state[key][row] = value
    with pytest.raises(ConfigError) as err:
        Crowd.from_state(state)
    assert err.value.field == key


@pytest.mark.parametrize("key,value", [
    ("tick", -1), ("tick", 2**62), ("tick", 1.5), ("params", {"no_such": 1.0}),
    ("params", [1.0]), ("grid", {"walkable": [[1]]}), ("grid", "grid"),
    ("path_off", [0, 1, 2]), ("path_pts", [[np.nan, 0.0]]), ("flow_dir", np.zeros((1, 3, 3))),
    ("chase", [0.5, 0.0, 0.0]), ("vel", "fast"),
])
def test_from_state_refuses_malformed_entries(key, value):
    state = crowd().state_dict()
    state[key] = value
    with pytest.raises(ConfigError) as err:
        Crowd.from_state(state)
    assert err.value.field is not None and err.value.field.split(".")[0] == key


def test_a_valid_state_still_continues_bit_for_bit():
    c = crowd()
    state = copy.deepcopy(c.state_dict())
    again = Crowd.from_state(state)
    c.run(20, 0.1)
    again.run(20, 0.1)
    assert np.array_equal(c.positions, again.positions)
    assert np.array_equal(c.velocities, again.velocities)

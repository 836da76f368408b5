"""navkit.agents.AgentStore, the one structure-of-arrays agent store, against
plain Python models (a sorted list of IDs, dicts of rows); and its two users,
SimState and Crowd, keep their columns in it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit.agents import AGENT_COLUMNS, AgentStore, id_sort_key, map_index
from navkit.crowd import Crowd
from navkit.errors import QueryError
from navkit.sim.state import FIELDS, SimState

COLUMNS = {**AGENT_COLUMNS, "ref": (np.int32, (), -1), "tag": (np.int64, (3,), 7)}

ids = st.one_of(st.integers(0, 40), st.text("abc", min_size=1, max_size=3))


@settings(max_examples=60, deadline=None)
@given(st.lists(ids, unique=True, max_size=30), st.data())
def test_rows_stay_in_stable_id_order_with_their_values(new_ids, data):
    s = AgentStore(COLUMNS, slot_columns=("ref",))
    model: dict[object, tuple[float, object]] = {}  # id -> (x, referenced id)
    for k, cid in enumerate(new_ids):
        others = list(model)
        ref = data.draw(st.sampled_from(others)) if others and k % 2 else None
        slot = s.add(cid, pos=(float(k), -float(k)))
        assert s.ref[slot] == -1
        if ref is not None:
            s.ref[slot] = s.slot_of(ref)  # renumbered by the inserts that follow
        model[cid] = (float(k), ref)
        assert s.id_of(slot) == cid
    want = sorted(model, key=id_sort_key)
    assert s.ids == want and len(s) == s.n == len(want)
    for slot, cid in enumerate(want):
        x, ref = model[cid]
        assert s.slot_of(cid) == slot and cid in s
        assert s.pos[slot].tolist() == [x, -x]
        assert s.ref[slot] == (-1 if ref is None else s.slot_of(ref))
        assert s.tag[slot].tolist() == [7, 7, 7] and s.speed[slot] == 0.0


def test_integer_ids_in_order_need_no_id_table_until_another_comes():
    s = AgentStore(COLUMNS)
    s.append_many(3, pos=np.arange(6.0).reshape(3, 2), speed=2.0)
    assert s._ids is None and s.ids == [0, 1, 2] and s.slot_of(2) == 2 and 1.0 in s
    assert s.add(3) == 3 and s._ids is None
    assert s.add("x", speed=5.0) == 4 and s.add(-1) == 0  # other IDs: an ID table
    assert s.ids == [-1, 0, 1, 2, 3, "x"]
    assert s.speed.tolist() == [0.0, 2.0, 2.0, 2.0, 0.0, 5.0]
    for bad in (9, "y", None, [1]):
        assert bad not in s
        with pytest.raises(QueryError, match="no agent"):
            s.slot_of(bad)


def test_views_are_replaced_when_rows_are_added_or_a_column_widens():
    s = AgentStore(COLUMNS)
    g = s.generation
    s.add(0, tag=(1, 2, 3))
    assert s.generation > g and s.pos.flags.c_contiguous
    g = s.generation
    s.widen("tag", (5,))
    assert s.generation > g and s.tag.tolist() == [[1, 2, 3, 7, 7]]
    with pytest.raises(ValueError):
        AgentStore({"pos": AGENT_COLUMNS["pos"]})


def test_the_simulation_state_and_the_crowd_are_agent_stores():
    assert all(FIELDS[c][:2] == AGENT_COLUMNS[c][:2] for c in AGENT_COLUMNS)
    a = SimState()
    assert isinstance(a, AgentStore)
    a.add("b", pos=(1.0, 2.0))
    a.add(4, pos=(3.0, 4.0))
    assert a.ids == [4, "b"] and a.pos.tolist() == [[3.0, 4.0], [1.0, 2.0]]
    with pytest.raises(QueryError, match="no character"):
        a.slot_of("zz")
    c = Crowd([[0.0, 0.0], [2.0, 1.0]], max_speed=[1.0, 2.0])
    assert isinstance(c.store, AgentStore) and c.store.ids == [0, 1]
    assert c.store.pos is not None and np.array_equal(c.store.pos, c.positions)
    assert c.store.speed.tolist() == [1.0, 2.0]
    c.run(3, 0.1)
    assert np.array_equal(c.store.pos, c.positions)  # the crowd's state is the store


def test_map_index_cells_cover_the_reach():
    ix = map_index(0.5, -1.0, 2.0, 10.0, 4.0, 7)
    geom, dims = ix[0], ix[1]
    assert geom[2] >= 0.5 and geom.tolist()[:2] == [-1.0, 2.0]
    assert dims.tolist() == [int(10.0 // geom[2]) + 1, int(4.0 // geom[2]) + 1]
    big = map_index(1e-3, 0.0, 0.0, 1e6, 1e6, 10)
    assert big[1][0] * big[1][1] <= 1 << 16  # cells double until the grid fits

"""A character put where no plan can start is reported (docs/rules.md §9.7)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import navkit
from navkit.level import NavkitWarning
from navkit.sim import Location


def _location() -> Location:
    walk = np.ones((20, 20), bool)
    walk[5:15, 5:15] = False  # a 5 m block: its centre is far beyond any snap radius
    return Location(navkit.NavGrid(walk, cell_size=0.5, agent_radius=0.3))


def test_spawned_in_a_wall_warns_and_is_reported_once() -> None:
    loc = _location()
    with pytest.warns(NavkitWarning, match="walks out of the wall") as caught:
        loc.add_character("near", position=(5.0, 5.0))  # 5 cells deep: it snaps out
    assert caught[0].message.field == "position"  # type: ignore[union-attr]
    with pytest.warns(NavkitWarning, match="cannot plan a path"):
        c = loc.add_character("stuck", position=(30.0, 30.0))  # beyond the 8 m snap radius
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loc.add_character(2, position=(1.25, 1.25))  # free: no warning
        loc.add_character(1, position=(1.25, 8.25))
    c.set_target((9.0, 1.0))
    ev = loc.step()
    assert ev.in_wall == ["near", "stuck"]
    assert ev.to_json_dict()["inWall"] == ["near", "stuck"]
    assert c.position == (30.0, 30.0)  # it cannot plan: it never moves
    later = loc.run(5)
    assert all(e.in_wall == [] and "inWall" not in e.to_json_dict() for e in later)
    assert c.position == (30.0, 30.0)
    near = loc.character("near")
    near.set_target((9.0, 1.0))
    loc.run(80)
    assert loc.map.is_walkable(*near.position)  # it walked out


def test_moving_a_character_into_a_wall_is_reported_in_stable_id_order() -> None:
    loc = _location()
    a = loc.add_character("b", position=(1.25, 1.25))
    b = loc.add_character(7, position=(1.75, 1.25))
    with pytest.warns(NavkitWarning):
        a.position = (4.0, 4.5)
    with pytest.warns(NavkitWarning):
        b.position = (6.0, 4.0)
    assert loc.step().in_wall == [7, "b"]  # integers first (stable-ID order)
    a.position = (1.25, 1.25)  # moved out again: nothing new is reported
    assert loc.step().in_wall == []


def test_the_check_agrees_with_the_maps_place() -> None:
    """The oracle: the walkable cells of the padded grid the plans use."""
    loc = _location()
    rng = np.random.default_rng(3)
    walls = 0
    for i, p in enumerate(rng.uniform(0.01, 9.99, size=(60, 2))):
        cell = (int(p[0] // 0.5), int(p[1] // 0.5))
        expect_wall = not bool(loc.map.grid.walkable[cell[1], cell[0]])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            loc.add_character(i, position=p)
        assert any(isinstance(x.message, NavkitWarning) for x in w) == expect_wall
        walls += expect_wall
    assert 0 < walls < 60

"""One planner, three backends: the same scene on a grid, a mesh and a world.

A ``Location`` plans and moves on a ``SimMap`` whatever holds its space; the
planner class, the movement kernel and the tick are the same. Checked here:
the same characters cross the same level on a ``NavMap``, a ``NavMesh`` and a
``World`` (through one ``Planner`` and one ``SimMap`` class), never leave the
walkable space, never overlap, and arrive; on a world with long plans the
characters take exactly the grid's positions, tick by tick (docs/rules.md §14.5).
"""

from __future__ import annotations

import numpy as np
import pytest

from navkit.contract import SimulationSpace
from navkit.level import NavLevel, parse_level
from navkit.mesh.navmesh import NavMesh
from navkit.query.navmap import NavMap
from navkit.sim import Location, SimMap, WorldView
from navkit.world.world import World

LEVEL = {
    "cellSize": 0.25, "agentRadius": 0.3, "objectPadding": 0.0,
    "areas": [{"name": "hall", "polygon": [[0, 0], [16, 0], [16, 8], [0, 8]]}],
    "obstacles": [{"name": "wall", "polygon": [[7, 0], [9, 0], [9, 5.5], [7, 5.5]]}],
}
STARTS = [(1.0, 1.0), (1.0, 3.0), (15.0, 1.5), (15.0, 3.5)]
GOALS = [(15.0, 1.0), (14.0, 3.0), (1.0, 1.5), (2.0, 3.5)]


def _location(kind: str) -> Location:
    level = parse_level(LEVEL)
    if kind == "grid":
        return Location(NavMap(level))
    if kind == "mesh":
        return Location(NavMesh.from_level(level))
    grid = NavLevel(level).grid
    return Location(WorldView(World.from_grid(grid, chunk=16), preset=None,
                              agent_radius=LEVEL["agentRadius"]))


def _run(loc: Location, ticks: int) -> list[np.ndarray]:
    for i, (s, g) in enumerate(zip(STARTS, GOALS, strict=True)):
        c = loc.add_character(f"c{i}", kind="npc", position=s, walk_speed=2.0)
        assert c.set_target(g)
    frames = []
    for _ in range(ticks):
        loc.step()
        frames.append(loc.state.pos[: loc.state.n].copy())
    return frames


@pytest.mark.parametrize("kind", ["grid", "mesh", "world"])
def test_the_same_scene_on_every_backend(kind: str) -> None:
    loc = _location(kind)
    assert isinstance(loc.map, SimMap)
    assert isinstance(loc.map.backend, SimulationSpace)
    assert loc.navigation_mode == ("world" if kind == "world" else kind)
    frames = _run(loc, 700)
    assert loc.stats.arrivals == len(STARTS)
    for pos in frames:
        for p in pos:  # never inside the wall's interior, never off the walls grid
            assert not (7.0 + 1e-9 < p[0] < 9.0 - 1e-9 and p[1] < 5.5 - 1e-9)
            assert loc.map.is_walkable(*p) or kind == "mesh"
    assert loc.stats.min_gap >= -1e-9  # contact circles never overlapped
    for i, g in enumerate(GOALS):
        assert np.hypot(*(frames[-1][i] - np.asarray(g))) < 0.06


def test_one_planner_class_and_one_map_class() -> None:
    locs = [_location(k) for k in ("grid", "mesh", "world")]
    assert len({type(loc._planner) for loc in locs}) == 1
    assert {type(loc.map).__mro__[-2] for loc in locs} == {SimMap}
    assert all(type(loc.map).find_path is SimMap.find_path for loc in locs)


def test_a_world_with_long_plans_moves_as_the_grid() -> None:
    grid = _run(_location("grid"), 400)
    world = _run(_location("world"), 400)
    for t, (a, b) in enumerate(zip(grid, world, strict=True)):
        assert np.array_equal(a, b), f"tick {t}"

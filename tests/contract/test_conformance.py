"""The navigation contract (``navkit.contract``), checked on every backend.

One level: a room 20 x 10 m with a wall that leaves a 2 m gap at the top, and an
island room 10 m away that nothing joins. The same calls run on a
``Pathfinder``, a ``NavMap``, a ``World``, a ``NavMesh`` and an ``HPAStar`` built
from it; every answer is checked against an oracle the backend did not produce:
scipy Dijkstra on the grid's move graph (grids and worlds; HPA* is near-optimal,
so at least that cost and a valid path), and the visibility graph of the free
space (the mesh's exact paths).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import navkit
from navkit.contract import Agent, Navigator, Place, RaycastHit
from navkit.errors import ConfigError, QueryError
from navkit.level import NavLevel, parse_level
from navkit.results import NavResult, Status
from navkit.world.world import World
from tests.mesh.oracle import VisibilityOracle
from tests.reference import dijkstra_costs, is_valid_path

LEVEL = {
    "cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
    "areas": [{"name": "room", "polygon": [[0, 0], [20, 0], [20, 10], [0, 10]]},
              {"name": "island", "polygon": [[30, 0], [40, 0], [40, 10], [30, 10]]}],
    "obstacles": [{"name": "wall", "polygon": [[9, 0], [11, 0], [11, 8], [9, 8]]}],
}
#: A plug that closes the gap above the wall (the edit every backend makes).
PLUG = [[8.5, 7.5], [11.5, 7.5], [11.5, 10.5], [8.5, 10.5]]

A, B = (1.0, 1.0), (19.0, 1.0)  # both sides of the wall: the path goes through the gap
ISLAND = (35.0, 5.0)
FAR = (100.0, 100.0)  # beyond every snap radius
IN_WALL = (10.0, 4.0)


@dataclass
class Backend:
    name: str
    nav: Any
    close_gap: Callable[[], None]
    #: ``"grid"``: exact on the grid (Dijkstra oracle); ``"hpa"``: at least that;
    #: ``"mesh"``: Euclidean (visibility-graph oracle).
    oracle: str
    walk: np.ndarray | None = None
    geometry: Any = None


def _grid() -> navkit.NavGrid:
    return NavLevel(parse_level(LEVEL)).grid


def _plug_cells(grid: navkit.NavGrid) -> np.ndarray:
    zs, xs = np.nonzero(grid.walkable)
    cx = grid.min_x + (xs + 0.5) * grid.cell_size
    cz = grid.min_z + (zs + 0.5) * grid.cell_size
    inside = (cx > 8.5) & (cx < 11.5) & (cz > 7.5) & (cz < 10.5)
    return np.stack([xs[inside], zs[inside]], axis=1)


def make(name: str) -> Backend:
    grid = _grid()
    walk = grid.walkable.copy()
    if name == "pathfinder":
        pf = navkit.Pathfinder(grid)
        return Backend(name, pf, lambda: pf.set_walkable(_plug_cells(grid), False), "grid",
                       walk, grid)
    if name == "navmap":
        nav = navkit.NavMap(parse_level(LEVEL))
        return Backend(name, nav, lambda: nav.add_obstacle("plug", PLUG), "grid", walk, grid)
    if name == "world":
        w = World.from_grid(grid, chunk=16)
        return Backend(name, w, lambda: w.set_cells(_plug_cells(grid), 0), "grid", walk, grid)
    if name == "navmesh":
        mesh = navkit.NavMesh.from_level(parse_level(LEVEL))
        return Backend(name, mesh, lambda: mesh.add_obstacle("plug", PLUG), "mesh")
    if name == "hpastar":
        h = navkit.HPAStar(grid, costs="seed", cluster_size=8)

        def close() -> None:
            walk2 = grid.walkable.copy()
            c = _plug_cells(grid)
            walk2[c[:, 1], c[:, 0]] = False
            h.update(navkit.NavGrid(walk2, cell_size=grid.cell_size, min_x=grid.min_x,
                                    min_z=grid.min_z))
        return Backend(name, h, close, "hpa", walk, grid)
    raise AssertionError(name)


NAMES = ["pathfinder", "navmap", "world", "navmesh", "hpastar"]


@pytest.fixture(params=NAMES)
def backend(request: pytest.FixtureRequest) -> Backend:
    return make(request.param)


@pytest.fixture(scope="module")
def visibility() -> VisibilityOracle:
    return VisibilityOracle(navkit.NavMesh.from_level(parse_level(LEVEL)).space)


def check_answer(b: Backend, res: Any, start: tuple[float, float], goal: tuple[float, float],
                 vis: VisibilityOracle) -> None:
    """``res`` (FOUND) against the backend's oracle."""
    assert isinstance(res, NavResult)
    assert res.status == Status.FOUND and res.found and bool(res)
    assert len(res.waypoints) >= 1 and math.isfinite(res.length) and math.isfinite(res.cost)
    assert res.length >= math.dist(start, goal) - 1e-9
    if b.oracle == "mesh":
        assert res.length == pytest.approx(vis.length(start, goal), abs=1e-6)
        assert res.cost == res.length
        return
    g = b.geometry
    s_cell = b.nav.place(start).cell
    e_cell = b.nav.place(goal).cell
    dist = dijkstra_costs(b.walk, None, s_cell)
    best = dist[e_cell[1], e_cell[0]]
    assert res.cells[0].tolist() == list(s_cell) and res.cells[-1].tolist() == list(e_cell)
    assert is_valid_path(b.walk, res.cells)
    if b.oracle == "grid":
        assert res.cost_int == best
    else:  # HPA*: near-optimal, never shorter than the optimum
        assert res.cost_int >= best
    assert res.waypoints[-1].tolist() == list(goal)  # docs/rules.md §4.3
    assert g is not None


# ------------------------------------------------------------------ identity
def test_every_backend_is_a_navigator(backend: Backend) -> None:
    assert isinstance(backend.nav, Navigator)
    assert not isinstance(object(), Navigator)
    assert backend.nav.cell_size == 0.5 or backend.oracle == "mesh"
    assert backend.nav.agent_radius == 0.0
    assert backend.nav.navigation_mode in ("grid", "mesh", "world")


# ------------------------------------------------------------------ statuses
def test_found_against_the_oracle(backend: Backend, visibility: VisibilityOracle) -> None:
    res = backend.nav.find_path(A, B)
    check_answer(backend, res, A, B, visibility)
    # (x, y, z) points are the same query
    again = backend.nav.find_path((A[0], 3.0, A[1]), (B[0], 3.0, B[1]))
    assert again.status == res.status and again.length == pytest.approx(res.length)


def test_unreachable(backend: Backend) -> None:
    res = backend.nav.find_path(A, ISLAND)
    assert res.status == Status.UNREACHABLE and not res and not res.found
    assert len(res.waypoints) == 0 and res.length == math.inf and res.cost == math.inf


def test_no_start_and_no_goal(backend: Backend) -> None:
    r = backend.nav.find_path(FAR, A)
    assert r.status == Status.NO_START
    assert r.reason.startswith("start (100, 100) lies") and "outside the map" in r.reason
    assert "snap radius" in r.reason
    r = backend.nav.find_path(A, FAR)
    assert r.status == Status.NO_GOAL and r.reason.startswith("goal (100, 100) lies")
    assert backend.nav.find_path(A, B).reason.startswith("found")


def test_budget(backend: Backend) -> None:
    if backend.name == "hpastar":
        with pytest.raises(ConfigError, match="budget"):
            backend.nav.find_path(A, B, budget=1)
        return
    res = backend.nav.find_path(A, B, budget=1)
    assert res.status == Status.BUDGET_EXHAUSTED and not res


def test_nearest_ends_in_the_reachable_part(backend: Backend,
                                            visibility: VisibilityOracle) -> None:
    res = backend.nav.find_path(A, ISLAND, nearest=True)
    assert res.status == Status.NEAREST and res
    end = res.waypoints[-1]
    assert end[0] <= 20.5  # inside the room, at its side nearest the island
    assert end[0] >= 19.0
    assert backend.nav.is_walkable(end)
    near = backend.nav.find_path_to_nearest(A, ISLAND)
    assert near.status == Status.NEAREST
    assert near.waypoints[-1].tolist() == end.tolist()


def test_find_paths_equals_one_by_one(backend: Backend) -> None:
    starts = np.array([A, A, B, FAR])
    goals = np.array([B, ISLAND, A, A])
    many = backend.nav.find_paths(starts, goals)
    one = [backend.nav.find_path(s, g) for s, g in zip(starts, goals, strict=True)]
    assert [r.status for r in many] == [r.status for r in one]
    for r, o in zip(many, one, strict=True):
        assert np.array_equal(r.waypoints, o.waypoints)


# ------------------------------------------------------------------ points
def test_point_queries(backend: Backend) -> None:
    nav = backend.nav
    assert nav.is_walkable(A) and nav.is_walkable((1.0, 0.0, 1.0))
    assert not nav.is_walkable(IN_WALL)
    assert not nav.is_walkable((25.0, 5.0))
    p = nav.place((1.2, 1.3))
    assert isinstance(p, Place) and p.point == pytest.approx((1.2, 1.3))
    assert nav.place(FAR) is None
    q, r, i = nav.place(A), nav.place(B), nav.place(ISLAND)
    if q.region >= 0:  # a world keeps no global regions (-1)
        assert q.region == r.region != i.region
    near = nav.nearest_point(IN_WALL)
    assert near is not None and nav.is_walkable(near)
    assert nav.nearest_point(A) == pytest.approx(A)
    assert nav.nearest_point(FAR) is None


def test_raycast(backend: Backend) -> None:
    nav = backend.nav
    hit = nav.raycast((1.0, 4.0), (19.0, 4.0))
    assert isinstance(hit, RaycastHit) and hit.hit
    assert hit.point[0] == pytest.approx(9.0, abs=1e-6)
    assert hit.fraction == pytest.approx(8.0 / 18.0, abs=1e-6)
    clear = nav.raycast((1.0, 9.0), (19.0, 9.0))
    assert not clear.hit and clear.fraction == 1.0 and clear.point == pytest.approx((19.0, 9.0))
    with pytest.raises(QueryError):
        nav.raycast(IN_WALL, A)


# ------------------------------------------------------------------ edits
def test_version_and_edits(backend: Backend) -> None:
    nav = backend.nav
    v0 = nav.version
    assert nav.find_path(A, B).status == Status.FOUND
    backend.close_gap()
    assert nav.version > v0
    assert nav.find_path(A, B).status == Status.UNREACHABLE


def test_last_search(backend: Backend) -> None:
    nav = backend.nav
    algorithm = {"navmesh": "exact", "hpastar": "auto"}.get(backend.name, "astar")
    nav.find_path(A, B, algorithm=algorithm)
    trace = nav.last_search()
    assert trace is not None
    assert len(getattr(trace, "cells", trace)) > 0


# ------------------------------------------------------------------ agents
def test_agent_of_the_level_radius_passes_another_is_refused(backend: Backend) -> None:
    nav = backend.nav
    ok = nav.find_path(A, B, agent=Agent(0.0))
    assert ok.status == Status.FOUND
    assert nav.find_path(A, B, agent=0.0).status == Status.FOUND
    for call in (lambda: nav.find_path(A, B, agent=Agent(0.4)),
                 lambda: nav.is_walkable(A, agent=0.4),
                 lambda: nav.place(A, agent=0.4),
                 lambda: nav.raycast(A, B, agent=0.4),
                 lambda: nav.nearest_point(A, agent=0.4)):
        with pytest.raises(ConfigError) as err:
            call()
        assert err.value.field == "agent"
    with pytest.raises(ConfigError):
        Agent(-1.0)
    with pytest.raises(ConfigError):
        nav.find_path(A, B, agent="big")


# ------------------------------------------------------------- old names
def test_old_keyword_names_warn_and_answer_alike(backend: Backend) -> None:
    nav = backend.nav
    new = nav.find_path(A, goal=B)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        old = nav.find_path(A, end=B)
    assert any(issubclass(x.category, DeprecationWarning) and "goal" in str(x.message)
               and x.filename == __file__ for x in w)
    assert old.status == new.status and np.array_equal(old.waypoints, new.waypoints)
    with pytest.raises(TypeError):
        nav.find_path(A, B, no_such_option=1)


def test_mesh_old_names() -> None:
    mesh = make("navmesh").nav
    with pytest.warns(DeprecationWarning, match="algorithm"):
        r = mesh.find_path(A, B, method="funnel")
    assert r.method == "funnel" == r.algorithm
    with pytest.warns(DeprecationWarning, match="budget"):
        assert mesh.find_path(A, B, max_nodes=1).status == Status.BUDGET_EXHAUSTED
    with pytest.warns(DeprecationWarning, match="goals"):
        assert len(mesh.find_paths([A], ends=[B])) == 1
    with pytest.raises(QueryError):
        mesh.find_path(A, B, budget=3, max_nodes=3)


@pytest.mark.parametrize("name", ["pathfinder", "hpastar"])
def test_batch_old_name(name: str) -> None:
    nav = make(name).nav
    cell_a = nav.place(A).cell
    cell_b = nav.place(B).cell
    new = nav.find_paths_cells([cell_a], [cell_b])
    with pytest.warns(DeprecationWarning, match="find_paths_cells"):
        old = nav.find_paths_batch([cell_a], [cell_b])
    assert old.cost_int.tolist() == new.cost_int.tolist()

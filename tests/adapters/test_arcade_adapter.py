"""navkit.adapters.arcade against a networkx Dijkstra and against arcade itself.

The oracle is built here from the barrier list alone: grid points ``left..right``
x ``bottom..top``, a step enters only a point not in ``barrier_list``, straight
steps cost 1, diagonal ones sqrt 2 and need both straight neighbours free (no
corner cutting); a step may leave a blocked start (as arcade's search does).
"""

from __future__ import annotations

import math
import time

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit.adapters.arcade import (
    NavkitBarrierList,
    astar_calculate_path,
    grid_from_barrier_list,
    invalidate,
    pathfinder_for,
)
from navkit.errors import ConfigError, QueryError
from tests.conftest import fixed


class FakeBarrierList:
    """The attributes arcade's AStarBarrierList has (grid coordinates, pixels per point)."""

    def __init__(self, grid_size: float, left: int, right: int, bottom: int, top: int,
                 barriers: list[tuple[int, int]]):
        self.grid_size = grid_size
        self.left, self.right, self.bottom, self.top = left, right, bottom, top
        self.barrier_list = sorted(barriers)

    def recalculate(self) -> None:
        self.barrier_list = sorted(self.barrier_list)  # a new list object, as arcade's


def oracle(bl: FakeBarrierList, start: tuple[int, int], end: tuple[int, int],
           eight: bool = True) -> float | None:
    blocked = set(bl.barrier_list)

    def inside(p: tuple[int, int]) -> bool:
        return bl.left <= p[0] <= bl.right and bl.bottom <= p[1] <= bl.top

    def free(p: tuple[int, int]) -> bool:
        return inside(p) and p not in blocked

    g = nx.DiGraph()
    moves = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if eight:
        moves += [(1, 1), (-1, 1), (1, -1), (-1, -1)]
    for x in range(bl.left, bl.right + 1):
        for y in range(bl.bottom, bl.top + 1):
            if not free((x, y)) and (x, y) != start:
                continue
            for dx, dy in moves:
                q = (x + dx, y + dy)
                if not free(q):
                    continue
                if dx and dy and not (free((x + dx, y)) and free((x, y + dy))):
                    continue
                g.add_edge((x, y), q, weight=math.sqrt(2) if dx and dy else 1.0)
    if not free(end) or not inside(start):
        return None
    if start == end:
        return 0.0
    try:
        return float(nx.dijkstra_path_length(g, start, end))
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None


def check_path(bl: FakeBarrierList, path: list[tuple[int, int]], start: tuple[int, int],
               end: tuple[int, int], eight: bool = True) -> float:
    """Length in grid steps; asserts arcade's conventions and navkit's move rules."""
    gs = bl.grid_size
    blocked = set(bl.barrier_list)
    assert all(isinstance(x, int) and isinstance(y, int) for x, y in path)
    pts = [(x / gs, y / gs) for x, y in path]
    assert all(float(a).is_integer() and float(b).is_integer() for a, b in pts)
    pts = [(int(a), int(b)) for a, b in pts]
    assert pts[0] == start and pts[-1] == end
    length = 0.0
    for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:], strict=True):
        dx, dy = x1 - x0, y1 - y0
        assert max(abs(dx), abs(dy)) == 1 and (eight or abs(dx) + abs(dy) == 1)
        assert (x1, y1) not in blocked
        assert bl.left <= x1 <= bl.right and bl.bottom <= y1 <= bl.top
        if dx and dy:  # no corner cutting
            assert (x0 + dx, y0) not in blocked and (x0, y0 + dy) not in blocked
        length += math.sqrt(2) if dx and dy else 1.0
    return length


@st.composite
def scenes(draw: st.DrawFn) -> tuple[FakeBarrierList, tuple[float, float], tuple[float, float]]:
    w = draw(st.integers(2, 11))
    h = draw(st.integers(2, 11))
    left = draw(st.integers(-3, 3))
    bottom = draw(st.integers(-3, 3))
    gs = draw(st.sampled_from([1, 7, 32]))
    density = draw(st.sampled_from([0.0, 0.2, 0.35, 0.5]))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    barriers = [(left + x, bottom + y) for y in range(h) for x in range(w)
                if rng.random() < density]
    bl = FakeBarrierList(gs, left, left + w - 1, bottom, bottom + h - 1, barriers)

    def pixel() -> tuple[float, float]:  # anywhere in the bounds' pixel span, fractions too
        x = draw(st.floats(left * gs, (left + w) * gs - 1e-6, allow_nan=False))
        y = draw(st.floats(bottom * gs, (bottom + h) * gs - 1e-6, allow_nan=False))
        return x, y

    return bl, pixel(), pixel()


@fixed(80)
@given(scenes(), st.booleans())
def test_length_matches_dijkstra_octile_without_corner_cutting(
        scene: tuple[FakeBarrierList, tuple[float, float], tuple[float, float]],
        diagonal: bool) -> None:
    bl, sp, ep = scene
    gs = bl.grid_size
    s = (int(sp[0] // gs), int(sp[1] // gs))  # arcade's _collapse
    e = (int(ep[0] // gs), int(ep[1] // gs))
    want = oracle(bl, s, e, diagonal)
    got = astar_calculate_path(sp, ep, bl, diagonal_movement=diagonal)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert check_path(bl, got, s, e, diagonal) == pytest.approx(want, abs=1e-9)


def test_unreachable_blocked_and_outside_give_none() -> None:
    wall = [(3, y) for y in range(0, 6)]
    bl = FakeBarrierList(10, 0, 6, 0, 5, wall)
    assert astar_calculate_path((5, 5), (55, 5), bl) is None  # walled off
    assert astar_calculate_path((5, 5), (35, 5), bl) is None  # end on a barrier
    assert astar_calculate_path((5, 5), (95, 5), bl) is None  # end outside
    assert astar_calculate_path((-25, 5), (15, 5), bl) is None  # start outside
    assert astar_calculate_path((5, 5), (5, 5), bl) == [(0, 0)]


def test_blocked_start_steps_off_like_arcade() -> None:
    bl = FakeBarrierList(10, 0, 5, 0, 5, [(0, 0), (1, 1)])
    got = astar_calculate_path((0, 0), (50, 0), bl)
    assert got is not None
    assert check_path(bl, got, (0, 0), (5, 0)) == pytest.approx(oracle(bl, (0, 0), (5, 0)))


def test_cache_rebuilds_after_recalculate_and_invalidate() -> None:
    bl = FakeBarrierList(1, 0, 4, 0, 0, [])
    pf = pathfinder_for(bl)
    assert pathfinder_for(bl) is pf
    assert astar_calculate_path((0, 0), (4, 0), bl) is not None
    bl.barrier_list.append((2, 0))  # in place: the cache cannot see it...
    invalidate(bl)  # ...until told
    assert astar_calculate_path((0, 0), (4, 0), bl) is None
    bl.barrier_list = []
    bl.recalculate()  # a new list object: rebuilt by itself
    assert astar_calculate_path((0, 0), (4, 0), bl) is not None
    assert pathfinder_for(bl) is not pf
    assert pathfinder_for(bl, diagonal_movement=False).connectivity == 4


def test_grid_and_world_coordinates_are_arcade_pixels() -> None:
    bl = FakeBarrierList(32, -2, 5, 3, 7, [(-2, 3), (4, 6)])
    g = grid_from_barrier_list(bl)
    assert g.shape == (5, 8)
    assert not g.is_walkable(0, 0) and not g.is_walkable(6, 3)
    assert int(np.count_nonzero(~g.walkable)) == 2
    assert g.cell_center(0, 0) == (-64.0, 96.0)
    assert g.cell_center(7, 4) == (160.0, 224.0)


def test_navkit_barrier_list() -> None:
    blocked = np.zeros((4, 6), bool)
    blocked[:3, 2] = True
    bl = NavkitBarrierList(blocked, grid_size=16, left=1, bottom=2)
    assert (bl.left, bl.right, bl.bottom, bl.top) == (1, 6, 2, 5)
    assert bl.barrier_list == [(3, 2), (3, 3), (3, 4)]
    got = astar_calculate_path((16, 32), (16 * 6, 32), bl)
    assert got is not None
    fake = FakeBarrierList(16, 1, 6, 2, 5, list(bl.barrier_list))
    assert check_path(fake, got, (1, 2), (6, 2)) == pytest.approx(oracle(fake, (1, 2), (6, 2)))
    with pytest.raises(ConfigError) as e:
        bl.set_blocked(np.zeros((2, 2), bool))
    assert e.value.field == "blocked"


@pytest.mark.parametrize("attr,value", [("grid_size", 0), ("grid_size", float("nan")),
                                        ("left", "a"), ("right", -5), ("top", -9),
                                        ("barrier_list", None)])
def test_bad_barrier_lists_name_the_field(attr: str, value: object) -> None:
    bl = FakeBarrierList(10, 0, 3, 0, 3, [])
    setattr(bl, attr, value)
    with pytest.raises(ConfigError) as e:
        astar_calculate_path((0, 0), (10, 10), bl)
    assert e.value.field == f"astar_barrier_list.{attr}"


def test_bad_points_raise_query_error() -> None:
    bl = FakeBarrierList(10, 0, 3, 0, 3, [])
    with pytest.raises(QueryError):
        astar_calculate_path((0, float("nan")), (10, 10), bl)
    with pytest.raises(QueryError):
        astar_calculate_path("ab", (10, 10), bl)


# ----------------------------------------------------------- against arcade
arcade = pytest.importorskip("arcade")


def _arcade_barriers(walls: list[tuple[int, int]], gs: int, w: int, h: int,
                     offset: int = 0) -> object:
    from arcade.paths import AStarBarrierList

    sprites = arcade.SpriteList(use_spatial_hash=True)
    for x, y in walls:
        s = arcade.SpriteSolidColor(gs, gs, color=arcade.color.WHITE)
        s.position = (x * gs, y * gs)
        sprites.append(s)
    me = arcade.SpriteSolidColor(gs - 2, gs - 2, color=arcade.color.RED)
    return AStarBarrierList(me, sprites, gs, offset * gs, (offset + w - 1) * gs,
                            offset * gs, (offset + h - 1) * gs)


def test_real_arcade_barrier_list_and_conventions() -> None:
    walls = [(6, y) for y in range(3, 12)] + [(x, 8) for x in range(8, 14)]
    bl = _arcade_barriers(walls, 32, 16, 14, offset=2)
    assert set(walls) <= set(bl.barrier_list)  # type: ignore[attr-defined]
    fake = FakeBarrierList(32, bl.left, bl.right, bl.bottom, bl.top,  # type: ignore[attr-defined]
                           list(bl.barrier_list))  # type: ignore[attr-defined]
    for sp, ep in [((70.0, 100.0), (400.0, 300.0)), ((95.9, 64.0), (450.5, 420.0)),
                   ((300.0, 130.0), (300.0, 400.0))]:
        s = (int(sp[0] // 32), int(sp[1] // 32))
        e = (int(ep[0] // 32), int(ep[1] // 32))
        ours = astar_calculate_path(sp, ep, bl)
        theirs = arcade.astar_calculate_path(sp, ep, bl)
        want = oracle(fake, s, e)
        assert ours is not None and want is not None
        assert check_path(fake, ours, s, e) == pytest.approx(want)
        if theirs is not None:  # same snapping and pixel convention as arcade
            assert theirs[0] == ours[0] and theirs[-1] == ours[-1]


def test_at_least_ten_times_faster_than_arcade() -> None:
    rng = np.random.default_rng(5)
    w = h = 24
    walls = [(x, y) for y in range(h) for x in range(w) if rng.random() < 0.22]
    bl = _arcade_barriers(walls, 16, w, h)
    free = [(x, y) for y in range(h) for x in range(w)
            if (x, y) not in set(bl.barrier_list)]  # type: ignore[attr-defined]
    queries = []
    for _ in range(200):
        a, b = rng.choice(len(free), 2, replace=False)
        sp, ep = (free[a][0] * 16 + 8.0, free[a][1] * 16 + 8.0), (free[b][0] * 16 + 8.0,
                                                                  free[b][1] * 16 + 8.0)
        if arcade.astar_calculate_path(sp, ep, bl) is not None:
            queries.append((sp, ep))
        if len(queries) == 8:
            break
    assert len(queries) >= 4
    for sp, ep in queries:  # warm: compile and build the Pathfinder
        astar_calculate_path(sp, ep, bl)
    t0 = time.perf_counter()
    for sp, ep in queries:
        arcade.astar_calculate_path(sp, ep, bl)
    t_arcade = time.perf_counter() - t0
    best = math.inf
    for _ in range(5):
        t0 = time.perf_counter()
        for sp, ep in queries:
            astar_calculate_path(sp, ep, bl)
        best = min(best, time.perf_counter() - t0)
    assert t_arcade / best >= 10, f"only {t_arcade / best:.1f}x faster"

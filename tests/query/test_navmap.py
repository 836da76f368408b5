"""NavMap (the world facade), PathCache, runtime edits, dynamic obstacles, `navkit build`.

Oracles are independent of navkit's search: scipy Dijkstra on the grid graph
(``reference.dijkstra_costs``), brute-force snapping and nearest-reachable
(``reference.brute_snap`` / ``reachable_nearest``), a move-by-move validity
check (``reference.is_valid_path``), and circle coverage computed here with
numpy, cell centre by cell centre.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import navkit
from navkit import ConfigError, NavGrid, NavMap, PathCache, Pathfinder, QueryError, Status
from navkit import examples as navkit_examples
from navkit.cli import app
from navkit.level import NavLevel, read_level
from navkit.query.cache import obstacle_key
from navkit.query.navmap import Obstacle, obstacle_radius
from tests.conftest import fixed
from tests.reference import brute_snap, dijkstra_costs, is_valid_path, path_cost, reachable_nearest

EXAMPLES = navkit_examples.path("interior.json").parent
INTERIOR = EXAMPLES / "interior.json"
OUTDOOR = EXAMPLES / "outdoor.json"

HALL_W = (2.0, 9.5)
HALL_E = (28.0, 9.5)
KITCHEN = (13.5, 13.0)
DINING = (23.0, 12.0)
BATHROOM = (13.0, 4.5)  # behind door_bathroom, closed in the example
BEDROOM = (5.0, 4.0)
STUDY = (22.0, 5.0)
DINING_TABLE = (24.8, 14.6)  # inside the dining_table obstacle polygon
QUERIES = [(HALL_W, KITCHEN), (HALL_W, DINING), (HALL_W, HALL_E),
           (KITCHEN, DINING), (BEDROOM, STUDY)]




# ----------------------------------------------------------------- helpers
def covered(grid: NavGrid, circles) -> np.ndarray:
    """Cells whose centre lies in any circle (closed disc), computed centre by centre."""
    xs = grid.min_x + (np.arange(grid.width) + 0.5) * grid.cell_size
    zs = grid.min_z + (np.arange(grid.depth) + 0.5) * grid.cell_size
    out = np.zeros(grid.shape, dtype=bool)
    for x, z, r in np.asarray(circles, dtype=np.float64).reshape(-1, 3):
        dx = xs[None, :] - x
        dz = zs[:, None] - z
        out |= dx * dx + dz * dz <= r * r
    return out


def free_cells(nav: NavMap, obstacles=()) -> np.ndarray:
    """Walkable, not occupied, not under this query's obstacles."""
    occ = list(nav.occupants.values())
    return nav.grid.walkable & ~covered(nav.grid, occ) & ~covered(nav.grid, obstacles)


def snap_rings(nav: NavMap) -> int:
    return int(math.floor(8.0 / nav.cell_size + 1e-9))


def expected_nearest_end(nav: NavMap, start, end, obstacles=()) -> tuple[tuple[int, int], bool]:
    """(end cell, found) of find-path-to-nearest by brute force (docs/rules.md §4.1, §6)."""
    free = free_cells(nav, obstacles)
    grid = nav.grid
    s = brute_snap(free, grid.world_to_cell(*start), snap_rings(nav))
    g = brute_snap(free, grid.world_to_cell(*end), snap_rings(nav))
    assert s is not None and g is not None
    dist = dijkstra_costs(free, None, s)
    if np.isfinite(dist[g[1], g[0]]):
        return g, True
    return reachable_nearest(dist, g), False


def assert_safe(nav: NavMap, res, obstacles=()) -> None:
    """The path is a legal move sequence on free cells (docs/rules.md §3.1 corner rule included)."""
    if not res.has_path:
        return
    free = free_cells(nav, obstacles)
    assert is_valid_path(free, res.cells), res
    assert tuple(res.cells[0]) == res.start_cell and tuple(res.cells[-1]) == res.end_cell


def same_result(a, b) -> bool:
    return (a.status == b.status and a.cost_int == b.cost_int and a.start_cell == b.start_cell
            and a.end_cell == b.end_cell and np.array_equal(a.cells, b.cells)
            and np.array_equal(a.waypoints, b.waypoints))


def fresh_answer(nav: NavMap, start, end, obstacles=None, nearest=True):
    """The same query on a new, uncached Pathfinder over the NavMap's current state."""
    pf = Pathfinder(nav.grid)
    for x, z, r in nav.occupants.values():
        pf.add_occupant(x, z, r)
    q = pf.find_path_to_nearest if nearest else pf.find_path
    return q(start, end, obstacles=obstacles)


@pytest.fixture
def interior() -> NavMap:
    return NavMap.load(INTERIOR)


# ---------------------------------------------------------- construction
def test_obstacle_radius_is_the_seed_rule():
    assert obstacle_radius(0.45, 0.45, 0.4) == pytest.approx(0.45 + 0.45 + 0.4 * math.sqrt(2) / 2)
    nav = NavMap.load(INTERIOR)
    assert nav.obstacle_radius(0.45) == pytest.approx(0.45 + 0.3 + 0.25 * math.sqrt(2) / 2)
    with pytest.raises(ConfigError, match="collision_radius"):
        obstacle_radius(-1.0, 0.45, 0.4)
    with pytest.raises(ConfigError, match="cell_size"):
        obstacle_radius(0.45, 0.45, float("nan"))


def test_sources_and_properties(tmp_path):
    cfg = read_level(INTERIOR)
    level = NavLevel(cfg)
    by_config, by_level, by_path = NavMap(cfg), NavMap(level), NavMap(str(INTERIOR))
    assert by_config.grid.equals(by_level.grid) and by_path.grid.equals(by_level.grid)
    assert by_level.level is level and by_config.area_names == cfg.area_names
    grid_map = NavMap(by_level.grid)
    assert grid_map.level is None and grid_map.area_names == ()
    nav = by_level
    assert (nav.cell_size, nav.agent_radius, nav.floor_y) == (0.25, 0.3, 0.0)
    assert nav.version == 0 and nav.occupancy_version == 0
    with pytest.raises(ConfigError, match="source"):
        NavMap(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="cache_size"):
        NavMap(cfg, cache_size=-1)
    assert "NavMap(" in repr(nav)


# ------------------------------------------------------------ .txt files
@pytest.mark.parametrize("path", [INTERIOR, OUTDOOR], ids=["interior", "outdoor"])
def test_txt_round_trip(tmp_path, path):
    nav = NavMap.load(path)
    out = tmp_path / "grid.txt"
    nav.save_grid(out)
    back = NavMap.load(out)
    assert back.grid.equals(nav.grid)
    assert back.grid.is_weighted == nav.grid.is_weighted
    rng = np.random.default_rng(3)
    lo = (nav.grid.min_x, nav.grid.min_z)
    hi = (nav.grid.max_x, nav.grid.max_z)
    for _ in range(20):
        a, b = rng.uniform(lo, hi), rng.uniform(lo, hi)
        assert same_result(nav.find_path_to_nearest(a, b), back.find_path_to_nearest(a, b))
    # a saved grid reflects the runtime edits
    nav.set_area_available(nav.area_names[-1], not nav.is_area_available(nav.area_names[-1]))
    nav.add_obstacle("crate", [[10, 10], [12, 10], [12, 12], [10, 12]])
    nav.save_grid(out)
    assert NavMap.load(out).grid.equals(nav.grid)


def test_plain_grid_has_no_areas_but_takes_obstacles(tmp_path):
    level_map = NavMap.load(INTERIOR)
    level_map.save_grid(tmp_path / "interior.txt")
    txt_map = NavMap.load(tmp_path / "interior.txt")
    with pytest.raises(ConfigError, match="door_kitchen"):
        txt_map.set_area_available("door_kitchen", False)
    with pytest.raises(ConfigError, match="door_kitchen"):
        txt_map.is_area_available("door_kitchen")
    # an obstacle polygon blocks the same cells as on the polygon level
    # (clearance agentRadius + objectPadding, kept in the .txt header)
    sofa = [[13.0, 16.5], [14.6, 17.2], [13.9, 18.4], [12.6, 17.7]]
    base = txt_map.grid
    for nav in (level_map, txt_map):
        nav.add_obstacle("sofa2", sofa)
        assert nav.version == 1
    assert txt_map.grid.equals(level_map.grid) and not txt_map.grid.equals(base)
    with pytest.raises(ConfigError, match="already exists"):
        txt_map.add_obstacle("sofa2", sofa)
    for nav in (level_map, txt_map):
        nav.remove_obstacle("sofa2")
    assert txt_map.grid.equals(base) and txt_map.version == 2
    with pytest.raises(ConfigError, match="no obstacle called 'sofa3'"):
        txt_map.remove_obstacle("sofa3")
    with pytest.raises(ConfigError, match=r"polygon"):
        txt_map.add_obstacle("bad", [[0, 0], [1, 1]])


# ------------------------------------------------------- dynamic overlay
def test_overlay_never_changes_the_static_grid(interior):
    nav = interior
    pf = nav.pathfinder
    walk = nav.grid.walkable.copy()
    static = pf.engine.padded.cells.copy()
    cells = pf.engine.occupancy.cells.copy()
    rng = np.random.default_rng(5)
    lo, hi = (nav.grid.min_x, nav.grid.min_z), (nav.grid.max_x, nav.grid.max_z)
    for _ in range(60):
        k = int(rng.integers(1, 12))
        obs = np.column_stack([rng.uniform(lo, hi, (k, 2)), rng.uniform(0.1, 2.0, k)])
        a, b = rng.uniform(lo, hi), rng.uniform(lo, hi)
        res = nav.find_path_to_nearest(a, b, obstacles=obs)
        assert_safe(nav, res, obs)
        nav.find_path(a, b, obstacles=obs, smooth=False)
    assert nav.pathfinder is pf
    assert np.array_equal(nav.grid.walkable, walk)
    assert np.array_equal(pf.engine.padded.cells,
                          static) and np.array_equal(pf.engine.occupancy.cells, cells)
    assert not nav.grid.walkable.flags.writeable
    # without obstacles the query sees the static grid only
    r = nav.find_path(HALL_W, HALL_E)
    assert r.found and r.cost_int == pytest.approx(
        dijkstra_costs(walk, None, r.start_cell)[r.end_cell[1], r.end_cell[0]])


# ------------------------------------------------------ nearest reachable
def test_nearest_when_target_inside_obstacle_polygon(interior):
    nav = interior
    assert not nav.is_walkable(*DINING_TABLE)
    for query in (nav.find_path_to_nearest, nav.find_path):
        res = query(HALL_W, DINING_TABLE)
        end, found = expected_nearest_end(nav, HALL_W, DINING_TABLE)
        assert found and res.found and res.end_cell == end
        assert_safe(nav, res)
        # the last waypoint is the snapped cell's centre, not the point inside the table
        assert tuple(res.waypoints[-1]) == nav.grid.cell_center(*end)


def test_nearest_when_target_in_closed_room(interior):
    nav = interior
    assert not nav.is_area_available("door_bathroom")
    res = nav.find_path_to_nearest(HALL_W, BATHROOM)
    end, found = expected_nearest_end(nav, HALL_W, BATHROOM)
    assert not found and res.status == Status.NEAREST and res.end_cell == end
    assert_safe(nav, res)
    assert nav.find_path(HALL_W, BATHROOM).status == Status.UNREACHABLE
    # open the door: the bathroom itself is reached
    nav.set_area_available("door_bathroom", True)
    res = nav.find_path_to_nearest(HALL_W, BATHROOM)
    assert res.found and res.end_cell == nav.grid.world_to_cell(*BATHROOM)
    assert tuple(res.waypoints[-1]) == BATHROOM


@pytest.mark.parametrize("how", ["snapshot", "occupant"])
def test_occupied_destination_resolves_to_nearby_free_cell(interior, how):
    nav = interior
    other = Obstacle(DINING[0], DINING[1], nav.obstacle_radius(0.45))
    obstacles = None
    if how == "snapshot":
        obstacles = [other]
    else:
        nav.add_occupant(*other)
    snapshot = [other]
    for query in (nav.find_path_to_nearest, nav.find_path):
        res = query(HALL_W, DINING, obstacles=obstacles)
        end, found = expected_nearest_end(nav, HALL_W, DINING,
                                          snapshot if how == "snapshot" else ())
        assert found and res.found and res.end_cell == end
        assert end != nav.grid.world_to_cell(*DINING)
        cx, cz = nav.grid.cell_center(*end)
        assert math.hypot(cx - DINING[0], cz - DINING[1]) > other.radius
        assert math.hypot(cx - DINING[0], cz - DINING[1]) <= other.radius + nav.cell_size * 1.5
        assert_safe(nav, res, snapshot)
        assert same_result(res, fresh_answer(nav, HALL_W, DINING, obstacles,
                                             nearest=query == nav.find_path_to_nearest))


def test_nearest_never_retries_without_obstacles(interior):
    nav = interior
    grid = nav.grid
    sc = grid.world_to_cell(*HALL_W)
    # eight tiny circles on the neighbours' centres: the start cell stays free, sealed in
    ring = [(*grid.cell_center(sc[0] + dx, sc[1] + dz), 0.05)
            for dx in (-1, 0, 1) for dz in (-1, 0, 1) if (dx, dz) != (0, 0)]
    assert nav.find_path_to_nearest(HALL_W, HALL_E).found
    res = nav.find_path_to_nearest(HALL_W, HALL_E, obstacles=ring)
    assert not res.has_path and res.status == Status.UNREACHABLE and res.start_cell == sc
    assert len(res.waypoints) == 0
    # a wider pocket: the path stays inside it
    cx, cz = grid.cell_center(*sc)
    pocket = [(cx + 1.2 * math.cos(a), cz + 1.2 * math.sin(a), 0.35)
              for a in np.linspace(0, 2 * math.pi, 48, endpoint=False)]
    res = nav.find_path_to_nearest(HALL_W, HALL_E, obstacles=pocket)
    assert res.status == Status.NEAREST
    for x, z in nav.grid.cells_to_world(res.cells):
        assert math.hypot(x - cx, z - cz) < 1.2
    end, found = expected_nearest_end(nav, HALL_W, HALL_E, pocket)
    assert not found and res.end_cell == end
    assert_safe(nav, res, pocket)


# ------------------------------------------------------------------ cache
def test_cache_hits_misses_and_evictions():
    nav = NavMap.load(INTERIOR, cache_size=2)
    a, b, c = (HALL_W, KITCHEN), (HALL_W, DINING), (BEDROOM, STUDY)
    first = nav.find_path(*a)
    assert nav.cache.stats == {"hits": 0, "misses": 1, "evictions": 0,
                               "invalidations": 0, "size": 1, "maxsize": 2}
    # another point in the same two cells is a hit with its own exact end point
    moved = (KITCHEN[0] + 0.05, KITCHEN[1] - 0.05)
    assert nav.grid.world_to_cell(*moved) == nav.grid.world_to_cell(*KITCHEN)
    hit = nav.find_path(HALL_W, moved)
    assert nav.cache.stats["hits"] == 1
    assert tuple(hit.waypoints[-1]) == moved and tuple(first.waypoints[-1]) == KITCHEN
    assert same_result(hit, Pathfinder(nav.grid).find_path(HALL_W, moved))
    nav.find_path(*b)
    nav.find_path(*c)  # evicts a
    s = nav.cache.stats
    assert (s["misses"], s["evictions"], s["size"]) == (3, 1, 2)
    nav.find_path(*a)
    assert nav.cache.stats["misses"] == 4 and nav.cache.stats["evictions"] == 2
    nav.cache.clear()
    assert nav.cache.stats == {"hits": 0, "misses": 0, "evictions": 0,
                               "invalidations": 0, "size": 0, "maxsize": 2}
    off = NavMap.load(INTERIOR, cache_size=0)
    off.find_path(*a)
    off.find_path(*a)
    assert off.cache.stats["size"] == 0 and not off.cache.enabled


def test_cache_keys_options_and_obstacle_snapshots(interior):
    nav = interior
    base = nav.find_path(HALL_W, DINING)
    for kwargs in ({"smooth": False}, {"budget": 50}, {"window": (0, 0, 60, 60)}):
        r = nav.find_path(HALL_W, DINING, **kwargs)
        assert same_result(r, Pathfinder(nav.grid).find_path(HALL_W, DINING, **kwargs))
    assert nav.find_path_to_nearest(HALL_W, BATHROOM).status == Status.NEAREST
    assert nav.find_path(HALL_W, BATHROOM).status == Status.UNREACHABLE
    assert nav.cache.stats["hits"] == 0
    # the same snapshot in another row order hits; any other snapshot misses
    blocker = np.array([[8.0, 9.5, 0.6], [20.0, 9.5, 0.6], [27.0, 12.0, 0.6]])
    r1 = nav.find_path(HALL_W, DINING, obstacles=blocker)
    hits = nav.cache.stats["hits"]
    r2 = nav.find_path(HALL_W, DINING, obstacles=[tuple(row) for row in blocker[::-1]])
    assert nav.cache.stats["hits"] == hits + 1 and same_result(r1, r2)
    nudged = blocker.copy()
    nudged[0, 2] += 0.7  # now seals the hallway
    r3 = nav.find_path(HALL_W, DINING, obstacles=nudged)
    assert nav.cache.stats["hits"] == hits + 1
    assert same_result(r3, fresh_answer(nav, HALL_W, DINING, nudged, nearest=False))
    assert not same_result(r1, base) and not same_result(r3, r1)
    for r, obs in ((r1, blocker), (r3, nudged)):
        assert_safe(nav, r, obs)
    assert obstacle_key(np.zeros((0, 3))) is None
    assert obstacle_key(np.array([[-0.0, 1.0, 2.0]])) == obstacle_key(np.array([[0.0, 1.0, 2.0]]))


def test_cached_results_are_read_only(interior):
    nav = interior
    for _ in range(2):
        r = nav.find_path(HALL_W, KITCHEN, obstacles=[(8.0, 9.5, 0.5)])
        assert not r.cells.flags.writeable and not r.waypoints.flags.writeable
        with pytest.raises(ValueError):
            r.cells[0, 0] = 0
    assert nav.cache.stats["hits"] == 1


def _close_door(nav: NavMap) -> None:
    nav.set_area_available("door_kitchen", False)


def _add_wall(nav: NavMap) -> None:
    nav.add_obstacle("hall_block", [[10.0, 8.0], [11.0, 8.0], [11.0, 11.0], [10.0, 11.0]])


def _remove_wall(nav: NavMap) -> None:
    nav.remove_obstacle("hall_block")


def _add_occupant(nav: NavMap) -> None:
    nav.add_occupant(17.5, 9.5, 1.4)


def _remove_occupant(nav: NavMap) -> None:
    nav.remove_occupant(next(iter(nav.occupants)))


def _edit_level_directly(nav: NavMap) -> None:
    assert nav.level is not None
    nav.level.set_area_available("door_dining", False)
    nav.level.set_area_available("door_kitchen", False)


CHANGES = {
    "area toggle": (None, _close_door),
    "obstacle add": (None, _add_wall),
    "obstacle remove": (_add_wall, _remove_wall),
    "occupant add": (None, _add_occupant),
    "occupant remove": (_add_occupant, _remove_occupant),
    "shared NavLevel edited directly": (None, _edit_level_directly),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_cache_invalidated_on_every_map_change(change):
    setup, apply = CHANGES[change]
    nav = NavMap(NavLevel.from_file(INTERIOR))
    if setup is not None:
        setup(nav)
    before = [nav.find_path_to_nearest(a, b) for a, b in QUERIES]
    again = [nav.find_path_to_nearest(a, b) for a, b in QUERIES]
    assert nav.cache.stats["hits"] == len(QUERIES)
    assert all(same_result(x, y) for x, y in zip(before, again, strict=True))
    version = (nav.version, nav.occupancy_version)
    apply(nav)
    assert (nav.version, nav.occupancy_version) != version
    if change.startswith("occupant"):
        assert nav.version == version[0]  # occupants are not map changes
    after = [nav.find_path_to_nearest(a, b) for a, b in QUERIES]
    assert nav.cache.stats["hits"] == len(QUERIES)  # nothing stale was served
    for (a, b), r in zip(QUERIES, after, strict=True):
        assert same_result(r, fresh_answer(nav, a, b)), (change, a, b)
        assert_safe(nav, r)
    assert any(not same_result(x, y) for x, y in zip(before, after, strict=True))


def test_occupants_survive_a_rebuild(interior):
    nav = interior
    h = nav.add_occupant(17.5, 9.5, 1.4)
    pf = nav.pathfinder
    nav.set_area_available("door_kitchen", False)  # map change: edited in place
    assert nav.pathfinder is pf and nav.version == 1
    assert not nav.is_walkable(17.5, 9.5)
    r = nav.find_path_to_nearest(HALL_W, HALL_E)
    assert_safe(nav, r)
    assert same_result(r, fresh_answer(nav, HALL_W, HALL_E))
    nav.remove_occupant(h)
    assert nav.is_walkable(17.5, 9.5) and nav.occupants == {}
    with pytest.raises(QueryError, match="no occupant"):
        nav.remove_occupant(h)
    # overlapping occupants are counted
    h1, h2 = nav.add_occupant(17.5, 9.5, 1.0), nav.add_occupant(17.9, 9.5, 1.0)
    nav.remove_occupant(h1)
    assert not nav.is_walkable(17.5, 9.5)
    nav.remove_occupant(h2)
    assert nav.is_walkable(17.5, 9.5)


def test_is_walkable_and_snap(interior):
    nav = interior
    assert nav.is_walkable(*HALL_W) and not nav.is_walkable(*DINING_TABLE)
    assert not nav.is_walkable(-100.0, -100.0)
    assert nav.snap(*HALL_W) == nav.grid.cell_center(*nav.grid.world_to_cell(*HALL_W))
    end, _ = expected_nearest_end(nav, HALL_W, DINING_TABLE)
    assert nav.snap(*DINING_TABLE) == nav.grid.cell_center(*end)
    assert nav.snap(-100.0, -100.0) is None
    with pytest.raises(QueryError):
        nav.is_walkable(float("nan"), 0.0)


def test_bad_queries_raise_navkit_errors(interior):
    nav = interior
    for obstacles in ([[1.0, 2.0]], [[1.0, 2.0, -1.0]],
                      [[float("nan"), 0.0, 1.0]], "abc", [[1, 2, 3, 4]]):
        with pytest.raises(QueryError):
            nav.find_path(HALL_W, KITCHEN, obstacles=obstacles)
    for point in ((1.0,), (float("inf"), 0.0), "xy"):
        with pytest.raises(QueryError):
            nav.find_path(point, KITCHEN)
    with pytest.raises(QueryError):
        nav.find_path(HALL_W, KITCHEN, budget=0)
    with pytest.raises(QueryError):
        nav.find_path(HALL_W, KITCHEN, window=(5, 5, 1, 1))
    with pytest.raises(ConfigError, match="door_nowhere"):
        nav.set_area_available("door_nowhere", True)
    assert nav.cache.stats["size"] == 0


def test_path_cache_unit():
    c = PathCache(3)
    for k in "abcd":
        c.put(k, k.upper())
    assert "a" not in c and len(c) == 3 and c.get("b") == "B"
    c.put("e", "E")  # evicts c (b was used more recently)
    assert c.get("c") is None and c.get("b") == "B"
    c.invalidate()
    s = c.stats
    assert ((s["size"], s["invalidations"], s["evictions"], s["hits"], s["misses"])
            == (0, 1, 2, 2, 1))
    with pytest.raises(ConfigError):
        PathCache(True)  # type: ignore[arg-type]
    assert "PathCache(" in repr(c)


# ----------------------------------------------------------- properties
@fixed(150)
@given(data=st.data())
def test_no_path_enters_a_blocked_or_covered_cell(data):
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    width, depth = data.draw(st.integers(3, 14)), data.draw(st.integers(3, 14))
    cs = data.draw(st.sampled_from([0.4, 0.5, 1.0]))
    walk = rng.random((depth, width)) < data.draw(st.sampled_from([0.6, 0.8, 0.95]))
    grid = NavGrid(walk, cell_size=cs, min_x=float(rng.uniform(-3, 3)),
                   min_z=float(rng.uniform(-3, 3)), agent_radius=0.3)
    nav = NavMap(grid, cache_size=data.draw(st.sampled_from([0, 4, 64])))
    lo = np.array([grid.min_x, grid.min_z]) - cs
    hi = np.array([grid.max_x, grid.max_z]) + cs
    for x, z in rng.uniform(lo, hi, (data.draw(st.integers(0, 2)), 2)):
        nav.add_occupant(float(x), float(z), float(rng.uniform(0, 1.5 * cs)))
    k = data.draw(st.integers(0, 5))
    obs = np.column_stack([rng.uniform(lo, hi, (k, 2)), rng.uniform(0, 2 * cs, k)])
    pf = Pathfinder(grid)
    for x, z, r in nav.occupants.values():
        pf.add_occupant(x, z, r)
    for _ in range(4):
        a, b = tuple(rng.uniform(lo, hi)), tuple(rng.uniform(lo, hi))
        nearest = bool(rng.integers(2))
        smooth = bool(rng.integers(2))
        snapshot = obs if k else None
        for _rep in range(2):
            q = nav.find_path_to_nearest if nearest else nav.find_path
            res = q(a, b, obstacles=snapshot, smooth=smooth)
            assert_safe(nav, res, obs)
            direct = (pf.find_path_to_nearest if nearest else pf.find_path)(
                a, b, obstacles=snapshot, smooth=smooth)
            assert same_result(res, direct)
            if res.has_path:
                # every waypoint lies in a free cell (kept cell centres, the exact end point)
                free = free_cells(nav, obs)
                for wx, wz in res.waypoints:
                    cx, cz = grid.world_to_cell(wx, wz)
                    assert free[cz, cx]
            # another point in the same cells: a cache hit with that point's own waypoints
            a = tuple(np.floor((np.array(a) - (grid.min_x, grid.min_z)) / cs) * cs
                      + (grid.min_x, grid.min_z) + rng.uniform(0.05, 0.95, 2) * cs)


# ------------------------------------------------------- example levels
def test_door_toggling_changes_a_path(interior):
    nav = interior
    door = nav.level.config.area("door_kitchen_dining").geometry
    import shapely

    def through_door(res) -> bool:
        pts = nav.grid.cells_to_world(res.cells)
        return bool(shapely.intersects_xy(door, pts[:, 0], pts[:, 1]).any())

    open_ = nav.find_path(KITCHEN, DINING)
    assert open_.found and through_door(open_)
    nav.set_area_available("door_kitchen_dining", False)
    closed = nav.find_path(KITCHEN, DINING)
    assert closed.found and not through_door(closed) and closed.cost > open_.cost + 5
    dist = dijkstra_costs(nav.grid.walkable, None, closed.start_cell)
    assert closed.cost_int == dist[closed.end_cell[1], closed.end_cell[0]]
    nav.set_area_available("door_kitchen_dining", True)
    assert same_result(nav.find_path(KITCHEN, DINING), open_)
    assert nav.version == 2


def test_outdoor_level_prefers_the_road():
    nav = NavMap.load(OUTDOOR)
    grid = nav.grid
    w = grid.weight_array()
    start, end = (1.5, 20.4), (31.3, 33.8)  # west end of road_west, north end of the trail
    res = nav.find_path(start, end)
    assert res.found
    s, g = res.start_cell, res.end_cell
    assert w[s[1], s[0]] == 1 and w[g[1], g[0]] == 1
    # optimal under the terrain weights (scipy Dijkstra)
    dist = dijkstra_costs(grid.walkable, w, s)
    assert res.cost_int == dist[g[1], g[0]]
    # the straight line between the end cells, as king moves
    n = max(abs(g[0] - s[0]), abs(g[1] - s[1]))
    line = np.array([(round(s[0] + i * (g[0] - s[0]) / n), round(s[1] + i * (g[1] - s[1]) / n))
                     for i in range(n + 1)])
    line_cost = path_cost(line, w, 10, 14)
    assert res.cost_int < line_cost
    on_road = (w[res.cells[:, 1], res.cells[:, 0]] == 1).mean()
    line_road = (w[line[:, 1], line[:, 0]] == 1).mean()
    assert on_road > 0.9 and on_road > line_road + 0.2
    # the geometrically shortest route (unit weights) is shorter but costs more on this terrain
    flat = NavMap(grid.with_weights(None))
    short = flat.find_path(start, end)
    assert len(short.cells) < len(res.cells)
    assert path_cost(short.cells, w, 10, 14) > res.cost_int


# -------------------------------------------------------------------- CLI
def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def test_cli_build(tmp_path):
    out, png = tmp_path / "interior.txt", tmp_path / "interior.png"
    r = _runner().invoke(app, ["build", str(INTERIOR), "-o", str(out), "--png", str(png), "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    grid = navkit.load_grid(out)
    assert grid.equals(navkit.load_grid(INTERIOR))
    assert ((info["width"], info["depth"], info["walkable"])
            == (grid.width, grid.depth, int(grid.walkable.sum())))
    assert info["closedAreas"] == ["door_bathroom", "door_closet"] and info["obstacles"] == 26
    assert png.stat().st_size > 0 and info["buildMs"] > 0
    r = _runner().invoke(app, ["build", str(OUTDOOR), "-o", str(tmp_path / "o.txt")])
    assert r.exit_code == 0 and "walkable" in r.stdout and "gate_farmyard" in r.stdout
    r = _runner().invoke(app, ["build", str(tmp_path / "missing.json"), "-o", str(out)])
    assert r.exit_code == 2 and "no such file" in r.stderr
    r = _runner().invoke(app, ["build", str(INTERIOR), "-o", str(tmp_path / "x.unknown")])
    assert r.exit_code == 2 and "cannot write" in r.stderr


def test_cli_path_with_json_level_and_obstacles():
    base = ["path", str(INTERIOR), "--from", "2,9.5", "--to", "28,9.5", "--json"]
    r = _runner().invoke(app, base)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["status"] == "FOUND"
    sealed = base + ["--obstacle", "10,9.5,1.6", "--nearest"]
    r = _runner().invoke(app, sealed)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["status"] == "NEAREST"
    nav = NavMap.load(INTERIOR)
    want = nav.find_path_to_nearest((2.0, 9.5), (28.0, 9.5), obstacles=[(10.0, 9.5, 1.6)])
    assert out["cells"] == want.cells.tolist()
    r = _runner().invoke(app, base + ["--obstacle", "10,9.5,1.6", "--obstacle", "1,1,0"])
    assert r.exit_code == 1  # no path without --nearest
    for bad in ("10,9.5", "a,1,1", "1,1,-2", "1,1,inf"):
        r = _runner().invoke(app, base + ["--obstacle", bad])
        assert r.exit_code == 2 and "--obstacle" in r.stderr


def test_bench_level_smoke(tmp_path):
    from navkit.bench import level as bench_level

    out = bench_level.run(counts=(4,), n_characters=5, repeat=1, raster=False)
    assert (out["width"], out["depth"]) == (80, 80) and out["characters"] == 5
    row = out["rows"]["navmap"]["4"]
    assert row["best_ms"] > 0 and row["seed_ratio"] is None
    assert sum(out["statuses"].values()) == 4
    assert out["obstacle_radius"] == pytest.approx(obstacle_radius(0.45, 0.45, 0.4))
    dest = tmp_path / "b.json"
    assert bench_level.main(["--queries", "3", "--repeat", "1", "--characters", "2", "--no-raster",
                             "--json", str(dest)]) == 0
    assert json.loads(dest.read_text())["rows"]["navmap"]["3"]["bestMs"] > 0

"""One reading of input arrays and one set of level forms (docs/rules.md §1.6).

* a bool array, or a numeric one of only 0 and 1, is a walkability mask;
* another numeric array given as a mask warns (FutureWarning naming the
  explicit constructors); given to ``Pathfinder`` as a whole map it is a
  tcod-style cost array;
* ``NavGrid.from_tiles`` maps tile ids to costs;
* ``NavMap`` takes a level in every form the others take; a scene file read as
  a map gives the map it names.

Path costs are checked against an independent Dijkstra (``tests.reference``)
on weights written out by hand.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import navkit
from navkit import ConfigError, NavGrid, NavMap, Pathfinder
from navkit.formats import from_array, load_grid, save_grid
from navkit.level import LevelConfig, NavkitWarning, NavLevel, level_config, parse_level, read_level
from navkit.mesh.navmesh import NavMesh
from tests.reference import dijkstra_costs

EXAMPLES = Path(navkit.__file__).parent / "examples"
SCENES = EXAMPLES / "scenes"

# 0 floor, 1 wall, 2 mud: the tile map a newcomer writes first
TILES = np.array([
    [0, 0, 0, 0, 0, 0],
    [0, 1, 1, 1, 2, 0],
    [0, 0, 0, 1, 2, 0],
    [2, 2, 0, 1, 0, 0],
    [0, 0, 0, 0, 0, 1],
])
MAPPING = {0: 1, 1: None, 2: 4}
# the same map written out by hand: walls where the tile is 1, weight 4 on mud
HAND_WALK = np.array([[t != 1 for t in row] for row in TILES.tolist()])
HAND_WEIGHTS = np.array([[4 if t == 2 else 1 for t in row] for row in TILES.tolist()])


def _no_warnings(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


# ------------------------------------------------------------------ arrays
def test_a_tile_map_given_as_walkable_warns_and_names_the_explicit_constructors() -> None:
    with pytest.warns(FutureWarning, match="from_tiles") as rec:
        grid = NavGrid(TILES)
    msg = str(rec[0].message)
    assert "from_costs" in msg and "walkable" in msg and "(2)" in msg
    assert rec[0].filename == __file__  # attributed to the caller, not to navkit
    # the old reading is kept while deprecated: nonzero = walkable
    assert np.array_equal(grid.walkable, TILES != 0)


@pytest.mark.parametrize("make", [
    lambda a: NavGrid(a),
    lambda a: from_array(a),
    lambda a: NavGrid(np.ones(a.shape, bool)).with_walkable(a),
])
def test_every_mask_entry_point_warns_on_other_numbers(make: Any) -> None:
    for arr in (TILES, TILES.astype(np.float64), (TILES * 127).astype(np.uint8)):
        with pytest.warns(FutureWarning, match="other than 0 and 1"):
            make(arr)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.int64, np.float32, np.float64])
def test_a_0_1_array_is_a_mask_and_agrees_with_the_cost_reading(dtype: type) -> None:
    mask: np.ndarray = HAND_WALK.astype(dtype)
    grid = _no_warnings(NavGrid, mask)
    assert np.array_equal(grid.walkable, HAND_WALK) and grid.weights is None
    pf = _no_warnings(Pathfinder, mask)  # the cost reading: same cells
    assert np.array_equal(pf.grid.walkable, HAND_WALK)
    w = pf.grid.weight_array()
    assert np.all(w[HAND_WALK] == pf.grid.meta["weight_resolution"])  # uniform: 1 or 100


def test_a_npy_tile_map_warns_through_load_grid(tmp_path: Path) -> None:
    np.save(tmp_path / "tiles.npy", TILES)
    with pytest.warns(FutureWarning, match="from_tiles"):
        load_grid(tmp_path / "tiles.npy")
    np.save(tmp_path / "mask.npy", HAND_WALK.astype(np.uint8))
    grid = _no_warnings(load_grid, tmp_path / "mask.npy")
    assert np.array_equal(grid.walkable, HAND_WALK)


def test_pathfinder_reads_an_integer_array_as_costs() -> None:
    costs = np.where(HAND_WALK, HAND_WEIGHTS, 0)  # tcod style: 0 wall, else the cost
    pf = _no_warnings(Pathfinder, costs, costs=(10, 14))
    assert np.array_equal(pf.grid.walkable, HAND_WALK)
    assert np.array_equal(pf.grid.weight_array()[HAND_WALK], HAND_WEIGHTS[HAND_WALK])
    oracle = dijkstra_costs(HAND_WALK, HAND_WEIGHTS, (0, 0), 10, 14)
    for goal in [(5, 0), (0, 3), (4, 4), (5, 3), (2, 2)]:
        assert pf.find_cost((0, 0), goal, algorithm="astar") == int(oracle[goal[1], goal[0]])
    # the same array through NavGrid would be a (deprecated) mask, with no weights:
    # Pathfinder's reading is the documented one and differs on purpose
    with pytest.warns(FutureWarning):
        assert NavGrid(costs).weights is None


def test_from_tiles_matches_the_hand_written_weights_and_the_oracle() -> None:
    grid = _no_warnings(NavGrid.from_tiles, TILES, MAPPING, cell_size=0.5, min_x=-1.0)
    hand = NavGrid(HAND_WALK, weights=HAND_WEIGHTS, cell_size=0.5, min_x=-1.0)
    assert grid.equals(hand)
    a, b = Pathfinder(grid, costs=(10, 14)), Pathfinder(hand, costs=(10, 14))
    oracle = dijkstra_costs(HAND_WALK, HAND_WEIGHTS, (0, 4), 10, 14)
    for z in range(TILES.shape[0]):
        for x in range(TILES.shape[1]):
            want = int(oracle[z, x]) if np.isfinite(oracle[z, x]) else -1
            assert a.find_cost((0, 4), (x, z), algorithm="astar") == want, (x, z)
            assert b.find_cost((0, 4), (x, z), algorithm="astar") == want, (x, z)
    # the weights matter: a grid that dropped them (NavGrid(TILES)'s old reading,
    # walls inverted aside) would give other costs
    plain = dijkstra_costs(HAND_WALK, None, (0, 4), 10, 14)
    assert (oracle != plain)[HAND_WALK].sum() >= 3


def test_from_tiles_float_costs_and_zero_walls() -> None:
    grid = NavGrid.from_tiles(TILES, {0: 1.0, 1: 0, 2: 2.5})
    assert grid.meta["weight_resolution"] == 100
    assert np.array_equal(grid.walkable, HAND_WALK)
    assert np.array_equal(grid.weight_array()[HAND_WALK],
                          np.where(TILES == 2, 250, 100)[HAND_WALK])


def test_from_tiles_names_unknown_ids_and_bad_costs() -> None:
    with pytest.raises(ConfigError, match="2") as err:
        NavGrid.from_tiles(TILES, {0: 1, 1: None})
    assert err.value.field == "ids" and "mapping" in str(err.value)
    with pytest.raises(ConfigError) as err:
        NavGrid.from_tiles(TILES, {0: 1, 1: None, 2: -3})
    assert err.value.field == "mapping[2]"
    for big in (70000, 10**30):
        with pytest.raises(ConfigError) as err:
            NavGrid.from_tiles(TILES, {0: 1, 1: None, 2: big})
        assert err.value.field == "mapping[2]"
    with pytest.raises(ConfigError) as err:  # a float cost: weight 700.0 * 100 > 65535
        NavGrid.from_tiles(TILES, {0: 1, 1: None, 2: 700.0})
    assert err.value.field == "mapping"
    with pytest.raises(ConfigError) as err:
        NavGrid.from_tiles(TILES, {0: 1, 1: None, 2: 3, 10**30: 1})
    assert err.value.field == "mapping"
    with pytest.raises(ConfigError, match=str(2**64 - 1)) as err:
        NavGrid.from_tiles(np.full((2, 2), 2**64 - 1, dtype=np.uint64), MAPPING)
    assert err.value.field == "ids"
    for bad_ids in (TILES.astype(np.float64), TILES.astype(bool), TILES[0]):
        with pytest.raises(ConfigError) as err:
            NavGrid.from_tiles(bad_ids, MAPPING)
        assert err.value.field == "ids"
    for bad_map in ({}, [1, 2], {"0": 1}, {0: "1"}, {0: True}):
        with pytest.raises(ConfigError) as err:
            NavGrid.from_tiles(TILES, bad_map)  # type: ignore[arg-type]
        assert err.value.field is not None and err.value.field.startswith("mapping")


def test_the_callers_arrays_are_never_modified_or_frozen() -> None:
    tiles = TILES.copy()
    costs = np.where(HAND_WALK, HAND_WEIGHTS, 0)
    NavGrid.from_tiles(tiles, MAPPING)
    Pathfinder(costs)
    with pytest.warns(FutureWarning):
        NavGrid(tiles)
    NavMap(NavGrid.from_tiles(tiles, MAPPING))
    assert np.array_equal(tiles, TILES) and tiles.flags.writeable
    assert np.array_equal(costs, np.where(HAND_WALK, HAND_WEIGHTS, 0)) and costs.flags.writeable


# ------------------------------------------------------------ level forms
def _level_dict() -> dict:
    return json.loads((EXAMPLES / "interior.json").read_text())


QUERIES = [((3.0, 9.5), (25.0, 15.0)), ((1.0, 1.0), (20.0, 3.0)), ((12.0, 6.0), (2.0, 14.0))]


def _answers(nav: NavMap) -> list:
    out = []
    for s, g in QUERIES:
        r = nav.find_path(s, g)
        out.append((r.status, r.cost_int, r.waypoints.tolist()))
    return out


def test_navmap_takes_a_level_dict_like_the_other_constructors() -> None:
    raw = _level_dict()
    cfg = parse_level(raw)
    path = EXAMPLES / "interior.json"
    forms: list[Any] = [raw, cfg, NavLevel(cfg), str(path), path]
    maps = [NavMap(f) for f in forms]
    want = _answers(maps[1])
    for nav in maps:
        assert nav.level is not None and nav.grid.equals(maps[1].grid)
        assert _answers(nav) == want
    # a dict-built map keeps its areas: a door can be closed
    door = cfg.areas[-1].name
    for nav in (maps[0], maps[1]):
        nav.set_area_available(door, False)
    assert _answers(maps[0]) == _answers(maps[1])
    assert raw == _level_dict()  # the caller's dict is not changed
    # the shared helper is what NavMesh.from_level uses
    assert level_config(raw) == cfg == level_config(NavLevel(cfg))
    assert NavMesh.from_level(raw).arrays.n_polygons == NavMesh.from_level(cfg).arrays.n_polygons


def test_navmap_refuses_other_objects_naming_source() -> None:
    for bad in (3, [1, 2], np.ones((3, 3), bool)):
        with pytest.raises(ConfigError) as err:
            NavMap(bad)  # type: ignore[arg-type]
        assert err.value.field == "source"
    with pytest.raises(ConfigError) as err:
        NavMap({"cellSize": 0.5})  # a dict that is not a level: the level's own error
    assert err.value.field == "areas"


# ------------------------------------------------------------------ scenes
@pytest.mark.parametrize("name", sorted(p.name for p in SCENES.glob("*.json")))
def test_load_grid_on_a_scene_gives_its_map_without_unknown_key_warnings(name: str) -> None:
    scene = json.loads((SCENES / name).read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("error", NavkitWarning)
        grid = load_grid(SCENES / name)
        nav = NavMap(SCENES / name)
    nav_src = scene["navigation"]
    if isinstance(nav_src, dict):
        want = NavLevel(parse_level(nav_src)).grid
    else:
        want = load_grid(SCENES / nav_src)
    assert grid.equals(want) and nav.grid.equals(want)
    assert nav.level is not None or not isinstance(nav_src, dict)


def _scene(tmp: Path, navigation: Any) -> Path:
    p = tmp / "scene.json"
    p.write_text(json.dumps({"navigation": navigation, "tickRate": 20, "characters": [],
                             "commands": []}))
    return p


def test_a_scene_naming_a_map_file_loads_that_file(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "arena.map", tmp_path / "arena.map")
    shutil.copy(EXAMPLES / "interior.json", tmp_path / "interior.json")
    p = _scene(tmp_path, "arena.map")
    assert load_grid(p).equals(load_grid(EXAMPLES / "arena.map"))
    assert NavMap(p).grid.equals(load_grid(EXAMPLES / "arena.map"))
    # a grid file is no level: read_level says what to call instead
    with pytest.raises(ConfigError, match="load_grid") as err:
        read_level(p)
    assert err.value.field == "navigation" and "arena.map" in str(err.value)
    with pytest.raises(ConfigError) as err:
        load_grid(p, cell_size=0.5)
    assert err.value.field == "cell_size"
    p = _scene(tmp_path, "interior.json")
    assert load_grid(p).equals(load_grid(EXAMPLES / "interior.json"))
    assert isinstance(read_level(p), LevelConfig) and NavMap(p).level is not None


def test_a_scene_naming_a_scene_or_holding_nonsense_is_refused(tmp_path: Path) -> None:
    inner = _scene(tmp_path, _level_dict()).rename(tmp_path / "inner.json")
    outer = _scene(tmp_path, inner.name)
    with pytest.raises(ConfigError, match="another scene") as err:
        load_grid(outer)
    assert err.value.field == "navigation"
    with pytest.raises(ConfigError) as err:
        load_grid(_scene(tmp_path, 5))
    assert err.value.field == "navigation"
    bad = _level_dict()
    bad["areas"][0]["polygon"] = [[0, 0], [1, 0]]
    with pytest.raises(ConfigError) as err:
        load_grid(_scene(tmp_path, bad))
    assert err.value.field == "navigation.areas[0].polygon"


def test_a_navigation_key_makes_a_scene_as_the_viewer_reads_it(tmp_path: Path) -> None:
    raw = _level_dict()
    other = _level_dict()
    other["cellSize"] = 0.5
    raw["navigation"] = other
    p = tmp_path / "both.json"
    p.write_text(json.dumps(raw))
    from navkit.viewer.state import load_target

    with warnings.catch_warnings():  # the scene schema warns of the level's top keys
        warnings.simplefilter("ignore", NavkitWarning)
        assert load_target(p)[0] == "scene"
    assert load_grid(p).cell_size == 0.5  # the scene's map, not the top-level areas


def test_save_and_reload_keeps_the_from_tiles_grid(tmp_path: Path) -> None:
    grid = NavGrid.from_tiles(TILES, MAPPING)
    save_grid(grid, tmp_path / "g.npz")
    assert _no_warnings(load_grid, tmp_path / "g.npz").equals(grid)

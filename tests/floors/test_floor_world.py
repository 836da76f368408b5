"""Buildings whose floors are baked worlds (navkit.floors.world, docs/rules.md §16.12).

The worlds here are small (far fewer than ``small_world_cells`` = 2**20 cells),
so every World long query is exact (one whole-world Pathfinder,
docs/world-queries.md): the default route's costs must equal the layered
Dijkstra on the same building in memory. One test forces the hierarchy
(``small_world_cells=0``), where costs are only bounded below by the optimum.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from navkit.errors import ConfigError, FormatError, QueryError
from navkit.floors import Building, FloorMap, FloorSearch
from navkit.floors.examples import two_floors
from navkit.floors.world import MANIFEST, FloorWorld, bake_building
from navkit.results import Status
from navkit.world import BOUNDED

from .oracle import distances, layered_graph
from .test_floor_search import _check_steps, _random_building


def _hall(floors: int = 2) -> dict:
    """The seed's case: a 60 x 10 m hall per floor (cellSize 0.5), stairs at x = 55."""
    names = ["ground", "upper", "top"][:floors]
    obj = {"cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
           "floors": [{"name": n, "floorY": 3.5 * i, "areas": [
               {"name": "hall", "polygon": [[0, 0], [60, 0], [60, 10], [0, 10]]}]}
               for i, n in enumerate(names)],
           "links": [{"name": "stairs", "kind": "stairs",
                      "from": {"floor": "ground", "point": [55.0, 5.0]},
                      "to": {"floor": "upper", "point": [57.0, 5.0]}}]}
    if floors == 3:  # back at the west end from the upper floor to the top
        obj["links"].append({"name": "ladder", "kind": "ladder",
                             "from": {"floor": "upper", "point": [3.0, 5.0]},
                             "to": {"floor": "top", "point": [3.0, 5.0]}})
    return obj


def _cell_of(b: Building, f: int, x: float, z: float) -> tuple[int, int, int]:
    return (f, *b.grid(f).world_to_cell(x, z))


# ------------------------------------------------------------ (a) the seed case
def test_the_seeds_case_bounded_ends_window_exhausted_default_takes_the_stairs(tmp_path):
    obj = _hall()
    fm = FloorMap(obj)
    with FloorWorld.open(bake_building(obj, tmp_path, chunk=16)) as fw:
        bounded = fw.find_path((5.0, 0.0, 5.0), (5.0, 3.5, 5.0), preset="bounded")
        assert bounded.status == Status.WINDOW_EXHAUSTED and not bounded.has_path
        full = fw.find_path((5.0, 0.0, 5.0), (5.0, 3.5, 5.0))
        assert full.status == Status.FOUND and full.link_names == ["stairs"]
        ref = fm.find_path((5.0, 0.0, 5.0), (5.0, 3.5, 5.0), algorithm="layered")
        assert full.cost_int == ref.cost_int
        assert full.length == pytest.approx(ref.length)
        assert np.allclose(full.waypoints[-1], (5.0, 5.0)) and full.floors[-1] == 1
        assert np.allclose(full.heights, np.where(full.floors == 1, 3.5, 0.0))
        # lazily: the start to the stairs, the stairs to the goal, the two pieces
        assert fw.last_world_queries <= 4
        # cells too, floors by name
        a, t = _cell_of(fm.building, 0, 5, 5), _cell_of(fm.building, 1, 5, 5)
        rc = fw.find_path_cells(("ground", *a[1:]), ("upper", *t[1:]), preset="bounded")
        assert rc.status == Status.WINDOW_EXHAUSTED
        assert fw.find_path_cells(a, t).cost_int == ref.cost_int
        # with the stairs inside the box the bounded query finds them
        near = fw.find_path((50.0, 0.0, 5.0), (52.0, 3.5, 5.0), preset="bounded")
        ref = fm.find_path((50.0, 0.0, 5.0), (52.0, 3.5, 5.0), preset="bounded")
        assert near.status == Status.FOUND and near.link_names == ["stairs"]
        assert near.cost_int == ref.cost_int


# --------------------------------------------- (b) default routes on random buildings
def _pairs(b: Building, rng: np.random.Generator, n: int, near: tuple[float, float] | None = None):
    """``n`` random cell pairs: mostly free cells (one in ten anywhere), around
    ``near`` (world x, z, within 8 m) when given."""
    s = FloorSearch(b)
    every = s.cells_of(np.arange(s.nodes))
    free = every[b.stacked()[0] == 1]
    if near is not None:
        g = b.grid(0)
        cx, cz = g.world_to_cell(*near)
        r = int(8 / g.cell_size)
        free = free[(abs(free[:, 1] - cx) <= r) & (abs(free[:, 2] - cz) <= r)]
    for _ in range(n):
        pick = [every if rng.random() < 0.1 or not len(free) else free for _ in range(2)]
        yield tuple(tuple(int(v) for v in c[int(rng.integers(len(c)))]) for c in pick)


@pytest.mark.parametrize("seed", range(16))
def test_default_routes_equal_the_layered_dijkstra(tmp_path, seed):
    """Small worlds: World's long queries are exact, so the routes' costs equal the
    layered search's (and scipy's Dijkstra on the rules' graph); every step is a
    legal move or an enabled link, and the steps sum to the cost."""
    floors = 1 + seed % 3
    obj, b, grids, rng = _random_building(seed, floors, int(rng_links(seed)))
    fm = FloorMap(b)
    s = fm.search
    graph = layered_graph(grids, obj, s.costs.card, s.costs.diag)
    free = b.stacked()[0]
    with FloorWorld.open(bake_building(b, tmp_path, chunk=16)) as fw:
        for a, t in _pairs(b, rng, 16):
            got = fw.find_path_cells(a, t)
            ref = fm.find_path_cells(a, t, algorithm="layered")
            assert got.status == ref.status, (a, t)
            assert got.cost_int == ref.cost_int
            if free[s.node(a)] and free[s.node(t)]:
                d = distances(graph, s.node(a))[s.node(t)]
                assert got.cost_int == (-1 if np.isinf(d) else int(d))
            if got.status == Status.FOUND:
                assert tuple(got.cells[0]) == a and tuple(got.cells[-1]) == t
                total = _check_steps(fw.as_cell_path(got), s, obj, grids, s.costs.card,
                                     s.costs.diag)
                assert total == got.cost_int


def rng_links(seed: int) -> int:
    return np.random.default_rng(1000 + seed).integers(1, 8)


def test_the_hierarchy_regime_never_beats_the_optimum(tmp_path):
    """``small_world_cells=0``: every floor answers long queries with the hierarchy
    (priced exactly, possibly longer): costs are never below the layered
    optimum, the steps are legal and sum to the cost."""
    obj = _hall(3)
    b = Building(obj)
    fm = FloorMap(b)
    s = fm.search
    grids = [b.grid(f) for f in range(3)]
    rng = np.random.default_rng(7)
    free = np.flatnonzero(b.stacked()[0] == 1)
    with FloorWorld.open(bake_building(b, tmp_path, chunk=16), small_world_cells=0) as fw:
        for _ in range(6):
            a, t = (tuple(int(v) for v in s.cells_of(np.array([n]))[0])
                    for n in rng.choice(free, 2))
            got = fw.find_path_cells(a, t)
            ref = fm.find_path_cells(a, t, algorithm="layered")
            assert got.status == ref.status == Status.FOUND
            assert got.cost_int >= ref.cost_int
            assert _check_steps(fw.as_cell_path(got), s, obj, grids, s.costs.card,
                                s.costs.diag) == got.cost_int


def test_an_edit_drops_the_cached_distances(tmp_path):
    """Ground -> stairs (east) -> the upper floor -> ladder (west) -> top: the upper
    floor's stairs-to-ladder distance is cached; a wall built on that world
    afterwards (a gap at one side) must lengthen the route as the layered search
    on the edited grids says."""
    obj = _hall(3)
    b = Building(obj)
    with FloorWorld.open(bake_building(b, tmp_path, chunk=16)) as fw:
        a, t = _cell_of(b, 0, 20, 5), _cell_of(b, 2, 20, 5)
        before = fw.find_path_cells(a, t)
        assert before.status == Status.FOUND and [s.name for s in before.links] == [
            "stairs", "ladder"]
        assert before.cost_int == FloorMap(b).find_path_cells(a, t, algorithm="layered").cost_int
        g1 = b.grid(1)
        wx, _ = g1.world_to_cell(30.0, 0.0)
        zs = np.flatnonzero(g1.walkable[:, wx])[2:]  # leave a 2-cell gap at one side
        fw.world(1).set_walkable(np.column_stack([np.full(len(zs), wx), zs]), False)
        walk = g1.walkable.copy()
        walk[zs, wx] = False
        from navkit.grid import NavGrid

        grids = [b.grid(0), NavGrid(walk, cell_size=g1.cell_size, min_x=g1.min_x,
                                    min_z=g1.min_z), b.grid(2)]
        edited = Building.from_grids(grids, obj["links"], names=b.floor_names,
                                     floor_ys=b.floor_ys)
        after = fw.find_path_cells(a, t)
        ref = FloorMap(edited).find_path_cells(a, t, algorithm="layered")
        assert after.status == Status.FOUND and after.cost_int == ref.cost_int
        assert after.cost_int > before.cost_int
        # links switched off
        assert fw.set_link_enabled("ladder", False)
        assert fw.find_path_cells(a, t).status == Status.UNREACHABLE
        assert fw.find_path_cells(a, t, window=(0, 0, 999, 999)).status == Status.UNREACHABLE


# -------------------------------------------------- (c) the manifest
def test_the_manifest_round_trip(tmp_path):
    b = Building(two_floors())
    b.set_link_enabled("stairs", False)
    path = bake_building(b, tmp_path / "b", chunk=16)
    assert path.name == MANIFEST
    for target in (path, path.parent, str(path.parent)):
        with FloorWorld.open(target) as fw:
            assert fw.floor_names == b.floor_names
            assert np.array_equal(fw.floor_ys, b.floor_ys)
            g = b.grid(0)
            assert (fw.cell_size, fw.min_x, fw.min_z, fw.width, fw.depth) == (
                g.cell_size, g.min_x, g.min_z, g.width, g.depth)
            assert len(fw.links) == 1
            got, want = fw.links[0], b.links[0]
            assert (got.name, got.kind, got.bidirectional, got.cost, got.start, got.end) == (
                want.name, want.kind, want.bidirectional, want.cost, want.start, want.end)
            assert got.enabled is False  # its state when baked
            for f in range(2):
                assert np.array_equal(fw.world(f).store.to_grid().walkable, b.grid(f).walkable)


def _baked(tmp_path):
    path = bake_building(two_floors(), tmp_path / "b", chunk=16)
    return path, json.loads(path.read_text())


def _write(path, obj) -> None:
    path.write_text(json.dumps(obj))


@pytest.mark.parametrize("edit, field", [
    (lambda m, p: m["floors"][1].update(file="gone.nkw"), "floors[1].file"),
    (lambda m, p: m["floors"][0].update(file="../escape.nkw"), "floors[0].file"),
    (lambda m, p: m["floors"].pop(), "links[0].to.floor"),  # a floor fewer than the links use
    (lambda m, p: m.update(floors=[]), "floors"),
    (lambda m, p: m["floors"][1].update(name="ground"), "floors[1].name"),
    (lambda m, p: m["floors"][1].update(floorY="high"), "floors[1].floorY"),
    (lambda m, p: m["links"][0].update(cost=-1), "links[0].cost"),
    (lambda m, p: m["links"][0]["to"].update(floor="attic"), "links[0].to.floor"),
    (lambda m, p: m["links"][0]["from"].update(point=[12.5, 5.0]), "links[0].from.point"),
    (lambda m, p: m["links"][0].pop("name"), "links[0].name"),
    (lambda m, p: m.update(cellSize=0), "cellSize"),
    (lambda m, p: m.update(width=7), "floors[0].file"),  # the files disagree with it
    (lambda m, p: m.update(format="something"), "format"),
    (lambda m, p: m.update(version=99), "version"),
])
def test_hostile_manifests_name_the_field(tmp_path, edit, field):
    path, m = _baked(tmp_path)
    edit(m, path)
    _write(path, m)
    with pytest.raises(ConfigError) as e:
        FloorWorld.open(path)
    assert e.value.field == field and e.value.path == str(path)
    assert field in str(e.value) and MANIFEST in str(e.value)


def test_hostile_files(tmp_path):
    path, m = _baked(tmp_path)
    # a floor's file deleted
    (path.parent / "upper.nkw").unlink()
    with pytest.raises(ConfigError, match=r"floors\[1\]\.file.*missing"):
        FloorWorld.open(path)
    # a floor file of another building (other frame)
    bake_building(_hall(), tmp_path / "other", chunk=16)
    shutil.copy(tmp_path / "other" / "upper.nkw", path.parent / "upper.nkw")
    with pytest.raises(ConfigError, match=r"floors\[1\]\.file"):
        FloorWorld.open(path)
    # not a chunk file at all
    (path.parent / "upper.nkw").write_bytes(b"not a world")
    with pytest.raises(FormatError):
        FloorWorld.open(path)
    # broken JSON, not an object, no manifest
    path.write_text("{")
    with pytest.raises(FormatError, match=MANIFEST):
        FloorWorld.open(path)
    path.write_text("[]")
    with pytest.raises(ConfigError, match=MANIFEST):
        FloorWorld.open(path)
    with pytest.raises(FormatError, match="manifest"):
        FloorWorld.open(tmp_path / "nowhere")


def test_bad_queries(tmp_path):
    with FloorWorld.open(bake_building(two_floors(), tmp_path, chunk=16)) as fw:
        with pytest.raises(QueryError):
            fw.find_path_cells((0, 1), (0, 2, 2))
        with pytest.raises(QueryError):
            fw.find_path_cells((5, 1, 1), (0, 2, 2))
        with pytest.raises(QueryError):
            fw.find_path_cells((0, 1.5, 1), (0, 2, 2))
        with pytest.raises(ConfigError):
            fw.find_path_cells(("attic", 1, 1), (0, 2, 2))
        with pytest.raises(QueryError, match="budget"):
            fw.find_path_cells((0, 4, 4), (0, 6, 6), budget=10)
        with pytest.raises(ConfigError, match="preset"):
            fw.find_path_cells((0, 4, 4), (0, 6, 6), preset="huge")
        assert fw.find_path_cells((0, 0, 0), (0, 6, 6)).status == Status.NO_START
        assert fw.find_path((500.0, 4.0), (1.0, 4.0)).status == Status.NO_START


# --------------------------------------------- (d) bounded windows
def _windows(rng, b: Building, a, t):
    """The preset's box, a box around the start (often holding the goal), a box anywhere."""
    yield BOUNDED.window_for(a[1:], t[1:]), 1000
    lo = np.minimum(a[1:], t[1:]) - rng.integers(-3, 4, 2)
    hi = np.maximum(a[1:], t[1:]) + rng.integers(-3, 4, 2)
    yield (int(lo[0]), int(lo[1]), max(int(lo[0]), int(hi[0])), max(int(lo[1]), int(hi[1]))), \
        [None, 1000, int(rng.integers(1, 60))][int(rng.integers(3))]
    x0 = int(rng.integers(-2, b.width))
    z0 = int(rng.integers(-2, b.depth))
    yield (x0, z0, x0 + int(rng.integers(1, 12)), z0 + int(rng.integers(1, 12))), \
        [None, 1000, int(rng.integers(1, 60))][int(rng.integers(3))]


@pytest.mark.parametrize("seed", range(8))
def test_bounded_windows_equal_the_layered_search_in_memory(tmp_path, seed):
    """A window (or the bounded preset) reads the box's cells from the worlds: the
    answer equals FloorSearch.path(..., window=box, budget=) on the building in
    memory (docs/rules.md §16.12.3). On the halls (unweighted, no link cheaper
    than walking, so the heuristic is the same) status, cost, cells and
    expansions agree; on random buildings (weights, cheap links) the status
    agrees unless a budget ends one search, and the cost of a found path."""
    if seed < 6:
        obj, b, grids, rng = _random_building(seed, 1 + seed % 3, int(rng_links(seed)))
    else:
        b = Building(_hall(2 + seed % 2))
        rng = np.random.default_rng(seed)
    s = FloorSearch(b)
    near = None if seed < 6 else [(55.0, 5.0), (4.0, 5.0)][seed % 2]  # by the links
    with FloorWorld.open(bake_building(b, tmp_path, chunk=16)) as fw:
        for a, t in _pairs(b, rng, 10, near):
            for box, budget in _windows(rng, b, a, t):
                ref = s.path(a, t, window=box, budget=budget)
                got = fw.find_path_cells(a, t, window=box, budget=budget)
                if near is None and Status.BUDGET_EXHAUSTED in (got.status, ref.status):
                    continue
                assert got.status == ref.status, (a, t, box, budget)
                assert got.cost_int == ref.cost_int
                if near is not None:
                    assert got.expanded == ref.expanded
                    assert np.array_equal(got.cells, ref.cells)
                    assert [x.index for x in got.links] == ref.links
            pre = fw.find_path_cells(a, t, preset="bounded")
            ref = s.path(a, t, window=BOUNDED.window_for(a[1:], t[1:]), budget=1000)
            if near is not None or Status.BUDGET_EXHAUSTED not in (pre.status, ref.status):
                assert (pre.status, pre.cost_int) == (ref.status, ref.cost_int)

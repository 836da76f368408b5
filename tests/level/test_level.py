"""Polygon levels: config validation, rasterization against a brute-force reference,
runtime edits."""

from __future__ import annotations

import copy
import json
import math
import warnings
from collections import deque

import numpy as np
import pytest
import shapely

from navkit import examples as navkit_examples
from navkit.bench.raster import benchmark_level, benchmark_rasterize
from navkit.errors import ConfigError, FormatError, QueryError
from navkit.level import (
    AreaConfig,
    LevelConfig,
    NavkitWarning,
    NavLevel,
    ObstacleConfig,
    load_level,
    parse_level,
    rasterize,
    read_level,
)

EXAMPLES = navkit_examples.path("interior.json").parent
EPS = 1e-9


# --------------------------------------------------------------------------
# independent brute-force reference (plain Python, one cell at a time)
# --------------------------------------------------------------------------
def _edges(rings):
    for ring in rings:
        n = len(ring)
        for i in range(n):
            yield ring[i], ring[(i + 1) % n]


def _inside(px, pz, rings):
    """Ray casting (even-odd) over all rings; boundary points unspecified."""
    inside = False
    for (x0, z0), (x1, z1) in _edges(rings):
        if (z0 > pz) != (z1 > pz):
            xc = x0 + (pz - z0) * (x1 - x0) / (z1 - z0)
            if px < xc:
                inside = not inside
    return inside


def _seg_dist(px, pz, a, b):
    (ax, az), (bx, bz) = a, b
    dx, dz = bx - ax, bz - az
    l2 = dx * dx + dz * dz
    t = 0.0 if l2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (pz - az) * dz) / l2))
    qx, qz = ax + t * dx, az + t * dz
    return math.hypot(px - qx, pz - qz)


def _edge_dist(px, pz, rings):
    return min(_seg_dist(px, pz, a, b) for a, b in _edges(rings))


def _union_boundary_rings(areas):
    """Rings of the boundary of the union of areas (shapely only builds the union)."""
    union = shapely.union_all([shapely.Polygon(a.polygon, list(a.holes)) for a in areas])
    rings = []
    for poly in shapely.get_parts(union):
        for ring in [poly.exterior, *poly.interiors]:
            rings.append(list(ring.coords)[:-1])
    return rings


def reference_raster(cfg: LevelConfig):
    """(walkable, weights, ambiguous) computed cell by cell from the rules of docs/rules.md §2.3."""
    m = cfg.cell_size * 2 + cfg.agent_radius + cfg.object_padding
    xs = [p[0] for a in cfg.areas for p in a.polygon]
    zs = [p[1] for a in cfg.areas for p in a.polygon]
    min_x, min_z = min(xs) - m, min(zs) - m
    width = math.ceil((max(xs) + m - min_x) / cfg.cell_size)
    depth = math.ceil((max(zs) + m - min_z) / cfg.cell_size)
    avail = [a for a in cfg.areas if a.available]
    r = cfg.agent_radius + cfg.object_padding
    bp = cfg.boundary_padding
    border = _union_boundary_rings(avail) if bp > 0 and avail else []
    walk = np.zeros((depth, width), dtype=bool)
    weight = np.ones((depth, width), dtype=np.int32)
    amb = np.zeros((depth, width), dtype=bool)
    for z in range(depth):
        pz = min_z + (z + 0.5) * cfg.cell_size
        for x in range(width):
            px = min_x + (x + 0.5) * cfg.cell_size
            w, ok, unsure = 1, False, False
            for a in avail:
                rings = [a.polygon, *a.holes]
                if _edge_dist(px, pz, rings) < EPS:
                    unsure = True
                if _inside(px, pz, rings):
                    ok, w = True, a.weight
            if ok and border:
                d = _edge_dist(px, pz, border)
                unsure |= abs(d - bp) < EPS
                ok = d > bp
            for o in cfg.obstacles:
                if not ok:
                    break
                d = _edge_dist(px, pz, [o.polygon])
                unsure |= abs(d - r) < EPS or d < EPS
                if d <= r or _inside(px, pz, [o.polygon]):
                    ok = False
            walk[z, x] = ok
            weight[z, x] = w if ok else 1
            amb[z, x] = unsure
    return walk, weight, amb, (min_x, min_z, width, depth)


# --------------------------------------------------------------------------
# random levels
# --------------------------------------------------------------------------
def _star(rng, cx, cz, r_lo, r_hi, n):
    ang = (np.arange(n) + rng.uniform(0.05, 0.95, n)) * (2 * math.pi / n)
    rad = rng.uniform(r_lo, r_hi, n)
    return tuple(
        (float(cx + r * math.cos(t)), float(cz + r * math.sin(t)))
        for t, r in zip(ang, rad, strict=True)
    )


def _random_area(rng, i, extent):
    kind = rng.integers(3)
    c = rng.uniform(0.2 * extent, 0.8 * extent, 2)
    size = rng.uniform(0.15, 0.4) * extent
    if kind == 0:  # concave star
        shell = _star(rng, c[0], c[1], 0.35 * size, size, int(rng.integers(5, 14)))
    elif kind == 1:  # convex: regular-ish polygon
        shell = _star(rng, c[0], c[1], size, size, int(rng.integers(3, 9)))
    else:  # rectangle
        w, d = rng.uniform(0.3, 1.0, 2) * size
        shell = (
            (c[0] - w, c[1] - d),
            (c[0] + w, c[1] - d),
            (c[0] + w, c[1] + d),
            (c[0] - w, c[1] + d),
        )
    holes = []
    if rng.random() < 0.5:
        for _ in range(20):
            h = _star(
                rng,
                c[0] + rng.normal(0, 0.1 * size),
                c[1] + rng.normal(0, 0.1 * size),
                0.05 * size,
                0.3 * size,
                int(rng.integers(3, 8)),
            )
            if shapely.Polygon(shell, [*holes, h]).is_valid:
                holes.append(h)
                if rng.random() < 0.5:
                    break
    return AreaConfig(
        name=f"area{i}",
        polygon=shell,
        holes=tuple(holes),
        available=bool(rng.random() < 0.8),
        weight=int(rng.choice([1, 1, 2, 4, 7])),
    )


def random_level(seed: int, *, boundary_padding: float | None = None) -> LevelConfig:
    rng = np.random.default_rng(seed)
    extent = 16.0
    areas = [_random_area(rng, i, extent) for i in range(int(rng.integers(1, 5)))]
    obstacles = []
    for i in range(int(rng.integers(0, 7))):
        c = rng.uniform(0, extent, 2)
        poly = _star(rng, c[0], c[1], 0.2, rng.uniform(0.5, 3.0), int(rng.integers(3, 10)))
        obstacles.append(ObstacleConfig(f"obs{i}", poly))
    bp = float(rng.choice([0.0, 0.0, 0.3, 0.55])) if boundary_padding is None else boundary_padding
    return LevelConfig(
        areas=tuple(areas),
        obstacles=tuple(obstacles),
        cell_size=float(rng.uniform(0.3, 0.5)),
        agent_radius=float(rng.choice([0.0, 0.3, 0.45])),
        object_padding=float(rng.choice([0.0, 0.25])),
        boundary_padding=bp,
    )


def _assert_matches_reference(cfg: LevelConfig, grid=None):
    grid = rasterize(cfg) if grid is None else grid
    walk, weight, amb, (min_x, min_z, width, depth) = reference_raster(cfg)
    assert (grid.min_x, grid.min_z, grid.width, grid.depth) == (min_x, min_z, width, depth)
    ok = ~amb
    bad = np.argwhere((grid.walkable != walk) & ok)
    assert bad.size == 0, f"{len(bad)} cells differ, first (z, x) {bad[:5].tolist()}"
    bad = np.argwhere((grid.weight_array() != weight) & ok)
    assert bad.size == 0, f"{len(bad)} weights differ, first (z, x) {bad[:5].tolist()}"
    assert amb.mean() < 0.05  # the comparison is meaningful


@pytest.mark.parametrize("seed", range(14))
def test_rasterize_matches_brute_force(seed):
    _assert_matches_reference(random_level(seed))


@pytest.mark.parametrize("seed", [100, 101, 102])
def test_boundary_padding_matches_brute_force(seed):
    _assert_matches_reference(random_level(seed, boundary_padding=0.45))


def test_bench_level_matches_shapely():
    """The large benchmark level against shapely's robust predicates and exact distances."""
    cfg = benchmark_level(seed=3, size=160, n_obstacles=40)
    grid = rasterize(cfg)
    geo = cfg.grid_geometry()
    cx = geo.min_x + (np.arange(geo.width) + 0.5) * geo.cell_size
    cz = geo.min_z + (np.arange(geo.depth) + 0.5) * geo.cell_size
    X, Z = np.meshgrid(cx, cz)
    pts = shapely.points(X, Z)
    avail = [a.geometry for a in cfg.areas if a.available]
    union = shapely.union_all(avail)
    walk = shapely.intersects(union, pts)
    walk &= ~(shapely.distance(union.boundary, pts) <= cfg.boundary_padding)
    obs = shapely.union_all([o.geometry for o in cfg.obstacles])
    walk &= ~(shapely.distance(obs, pts) <= cfg.obstacle_radius)
    assert np.array_equal(grid.walkable, walk)


# --------------------------------------------------------------------------
# exact semantics on hand-made levels (integer cell centres)
# --------------------------------------------------------------------------
def _integer_level(areas, obstacles=(), *, agent=0.0, pad=0.0, bp=0.0):
    """cellSize 1 and a closed anchor area placing every cell centre on an integer point."""
    a = -12 + (2 + agent + pad) - 0.5  # min_x = a - margin = -12.5
    anchor = {"name": "_anchor", "available": False, "polygon": [[a, a], [a + 1, a], [a, a + 1]]}
    return parse_level(
        {
            "cellSize": 1.0,
            "agentRadius": agent,
            "objectPadding": pad,
            "boundaryPadding": bp,
            "areas": [anchor, *areas],
            "obstacles": list(obstacles),
        }
    )


def _walkable_points(grid):
    zs, xs = np.nonzero(grid.walkable)
    return {grid.cell_center(int(x), int(z)) for x, z in zip(xs, zs, strict=True)}


def test_area_boundary_counts_as_inside():
    cfg = _integer_level(
        [
            {
                "name": "sq",
                "polygon": [[0, 0], [3, 0], [3, 3], [0, 3]],
                "holes": [[[1, 1], [2, 1], [2, 2], [1, 2]]],
            },
            {"name": "tri", "polygon": [[10, 0], [14, 0], [10, 4]]},
        ]
    )
    grid = rasterize(cfg)
    assert grid.min_x == -12.5 and grid.cell_center(0, 0) == (-12.0, -12.0)
    got = _walkable_points(grid)
    square = {(float(x), float(z)) for x in range(4) for z in range(4)}  # hole edges count too
    tri = {(float(10 + x), float(z)) for x in range(5) for z in range(5) if x + z <= 4}
    assert got == square | tri
    # same as shapely's covers
    for x, z in got:
        assert any(shapely.intersects_xy(a.geometry, x, z) for a in cfg.areas[1:])


def test_obstacle_clearance_is_exact_distance():
    cfg = _integer_level(
        [{"name": "floor", "polygon": [[-6, -6], [8, -6], [8, 8], [-6, 8]]}],
        [{"name": "box", "polygon": [[0, 0], [2, 0], [2, 2], [0, 2]]}],
        agent=1.5,
        # r = 2: (-2, 0) blocked (d = 2), (-1, -1) not inflated to a square: d^2 = 2 -> blocked
        pad=0.5,
    )
    grid = rasterize(cfg)
    blocked = {
        (x, z)
        for x in range(-6, 9)
        for z in range(-6, 9)
        if (max(0 - x, 0, x - 2) ** 2 + max(0 - z, 0, z - 2) ** 2) <= 4
    }
    got = {(int(x), int(z)) for x in range(-6, 9) for z in range(-6, 9) if (x, z) not in blocked}
    assert got == {(int(x), int(z)) for x, z in _walkable_points(grid)}
    assert grid.is_walkable(*grid.world_to_cell(-2.0, -2.0))
    assert not grid.is_walkable(*grid.world_to_cell(-2.0, 0.0))


def test_obstacle_boundary_blocked_with_zero_radius():
    cfg = _integer_level(
        [{"name": "floor", "polygon": [[0, 0], [6, 0], [6, 6], [0, 6]]}],
        [{"name": "box", "polygon": [[2, 2], [4, 2], [4, 4], [2, 4]]}],
    )
    grid = rasterize(cfg)
    got = _walkable_points(grid)
    assert (1.0, 3.0) in got and (5.0, 5.0) in got
    for x in (2, 3, 4):
        for z in (2, 3, 4):
            assert (float(x), float(z)) not in got


def test_boundary_padding_ignores_seams_between_areas():
    areas = [
        {"name": "room_a", "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]},
        {"name": "door", "polygon": [[10, 3], [12, 3], [12, 7], [10, 7]]},
        {"name": "room_b", "polygon": [[12, 0], [22, 0], [22, 10], [12, 10]]},
    ]
    cfg = _integer_level(areas, bp=1.0)
    grid = rasterize(cfg)
    got = _walkable_points(grid)
    # the seams x = 10 and x = 12 inside the door are not edges
    for x in range(9, 14):
        assert (float(x), 5.0) in got
    # the outer boundary is: distance <= 1 blocked
    assert (1.0, 5.0) not in got and (2.0, 5.0) in got
    # door jambs: z = 3 and z = 7 are edges of the union, so the door's free strip is z in (4, 6)
    assert (11.0, 4.0) not in got and (11.0, 5.0) in got and (11.0, 6.0) not in got


def test_weights_last_listed_area_wins_and_uniform_is_none():
    base = [
        {"name": "grass", "weight": 2, "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]},
        {"name": "road", "weight": 1, "polygon": [[0, 4], [10, 4], [10, 6], [0, 6]]},
        {"name": "mud", "weight": 4, "polygon": [[4, 0], [6, 0], [6, 10], [4, 10]]},
    ]
    grid = rasterize(_integer_level(base))
    w = grid.weight_array()

    def at(x, z):
        cx, cz = grid.world_to_cell(x, z)
        return int(w[cz, cx])

    assert (at(1, 1), at(1, 5), at(5, 5), at(5, 1)) == (2, 1, 4, 4)
    grid2 = rasterize(_integer_level([base[2], base[1], base[0]]))
    w = grid2.weight_array()
    assert (at(1, 1), at(1, 5), at(5, 5), at(5, 1)) == (2, 2, 2, 2)
    # blocked cells carry weight 1
    assert np.all(grid.weight_array()[~grid.walkable] == 1)
    plain = rasterize(_integer_level([{"name": "a", "polygon": [[0, 0], [3, 0], [3, 3]]}]))
    assert plain.weights is None
    # a weighted area that is unavailable does not weight the grid
    closed = copy.deepcopy(base)
    for a in closed:
        a["available"] = a["name"] == "road"
    assert rasterize(_integer_level(closed)).weights is None


def test_grid_bounds_and_metadata():
    cfg = parse_level(
        {
            "cellSize": 0.4,
            "areas": [
                {"name": "a", "polygon": [[1, 2], [7.3, 2], [7.3, 5.1], [1, 5.1]]},
                {"name": "far", "available": False, "polygon": [[20, 20], [21, 20], [21, 21]]},
            ],
            "objectPadding": 0.3,
            "boundaryPadding": 0.1,
            "floorY": 1.5,
        },
        name="lvl",
    )
    grid = rasterize(cfg)
    m = 0.4 * 2 + 0.45 + 0.3
    assert grid.min_x == 1 - m and grid.min_z == 2 - m
    assert grid.width == math.ceil((21 + m - (1 - m)) / 0.4)
    assert grid.depth == math.ceil((21 + m - (2 - m)) / 0.4)
    assert grid.floor_y == 1.5 and grid.agent_radius == 0.45 and grid.cell_size == 0.4
    assert grid.name == "lvl"
    assert grid.meta["objectPadding"] == 0.3 and grid.meta["boundaryPadding"] == 0.1
    # toggling an area never moves the grid
    g2 = rasterize(cfg.with_area_available("far", True))
    assert (g2.min_x, g2.min_z, g2.shape) == (grid.min_x, grid.min_z, grid.shape)
    assert g2.walkable.sum() > grid.walkable.sum()


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------
def _base():
    return {
        "cellSize": 0.5,
        "areas": [
            {"name": "a", "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]},
            {
                "name": "b",
                "polygon": [[10, 0], [20, 0], [20, 10], [10, 10]],
                "holes": [[[12, 2], [14, 2], [14, 4]]],
            },
            {"name": "c", "polygon": [[0, 10], [4, 10], [4, 14], [2, 15], [0, 14], [0, 12]]},
        ],
        "obstacles": [
            {"name": "o1", "polygon": [[1, 1], [2, 1], [2, 2]]},
            {"name": "o2", "polygon": [[5, 5], [6, 5], [6, 6], [5, 6]]},
        ],
    }


def _set(path, value):
    def mutate(d):
        keys = path
        cur = d
        for k in keys[:-1]:
            cur = cur[k]
        if value is _DELETE:
            del cur[keys[-1]]
        else:
            cur[keys[-1]] = value

    return mutate


_DELETE = object()
NAN = float("nan")
INF = float("inf")

VALIDATION_CASES = [
    ("too_few_points", _set(["areas", 0, "polygon"], [[0, 0], [1, 0]]), "areas[0].polygon"),
    (
        "closed_ring_too_few",
        _set(["areas", 0, "polygon"], [[0, 0], [1, 0], [0, 0]]),
        "areas[0].polygon",
    ),
    ("point_not_pair", _set(["areas", 2, "polygon", 5], [0, 12, 3]), "areas[2].polygon[5]"),
    ("point_not_numbers", _set(["areas", 2, "polygon", 5], ["0", "12"]), "areas[2].polygon[5]"),
    ("point_is_string", _set(["areas", 2, "polygon", 5], "0,12"), "areas[2].polygon[5]"),
    ("point_is_bool", _set(["areas", 2, "polygon", 1], [True, 10]), "areas[2].polygon[1]"),
    ("nan_coordinate", _set(["areas", 1, "polygon", 2], [NAN, 10]), "areas[1].polygon[2]"),
    ("inf_coordinate", _set(["areas", 1, "polygon", 2], [20, INF]), "areas[1].polygon[2]"),
    ("polygon_not_list", _set(["areas", 0, "polygon"], "square"), "areas[0].polygon"),
    (
        "bowtie",
        _set(["areas", 0, "polygon"], [[0, 0], [10, 10], [10, 0], [0, 10]]),
        "areas[0].polygon",
    ),
    ("collinear", _set(["areas", 0, "polygon"], [[0, 0], [1, 1], [2, 2]]), "areas[0].polygon"),
    ("hole_bad_point", _set(["areas", 1, "holes", 0, 1], [14]), "areas[1].holes[0][1]"),
    (
        "hole_bowtie",
        _set(["areas", 1, "holes", 0], [[12, 2], [14, 4], [14, 2], [12, 4]]),
        "areas[1].holes[0]",
    ),
    (
        "hole_outside",
        _set(["areas", 1, "holes", 0], [[30, 2], [34, 2], [34, 4]]),
        "areas[1].holes[0]",
    ),
    (
        "holes_overlap",
        _set(["areas", 1, "holes"], [[[12, 2], [14, 2], [14, 4]], [[13, 2], [16, 2], [16, 5]]]),
        "areas[1].holes[1]",
    ),
    ("holes_not_list", _set(["areas", 1, "holes"], 3), "areas[1].holes"),
    ("duplicate_area", _set(["areas", 2, "name"], "a"), "areas[2].name"),
    ("duplicate_obstacle", _set(["obstacles", 1, "name"], "o1"), "obstacles[1].name"),
    ("empty_name", _set(["areas", 1, "name"], ""), "areas[1].name"),
    ("name_not_string", _set(["obstacles", 0, "name"], 7), "obstacles[0].name"),
    ("missing_name", _set(["areas", 1, "name"], _DELETE), "areas[1].name"),
    ("missing_polygon", _set(["obstacles", 1, "polygon"], _DELETE), "obstacles[1].polygon"),
    (
        "obstacle_bowtie",
        _set(["obstacles", 1, "polygon"], [[5, 5], [6, 6], [6, 5], [5, 6]]),
        "obstacles[1].polygon",
    ),
    (
        "obstacle_bad_point",
        _set(["obstacles", 0, "polygon", 2], [2, NAN]),
        "obstacles[0].polygon[2]",
    ),
    ("area_not_object", _set(["areas", 1], [[0, 0], [1, 0], [1, 1]]), "areas[1]"),
    ("obstacle_not_object", _set(["obstacles", 0], "table"), "obstacles[0]"),
    ("available_not_bool", _set(["areas", 0, "available"], "yes"), "areas[0].available"),
    ("weight_zero", _set(["areas", 0, "weight"], 0), "areas[0].weight"),
    ("weight_fraction", _set(["areas", 0, "weight"], 1.5), "areas[0].weight"),
    ("weight_string", _set(["areas", 0, "weight"], "2"), "areas[0].weight"),
    ("weight_huge", _set(["areas", 0, "weight"], 70000), "areas[0].weight"),
    ("cell_size_zero", _set(["cellSize"], 0), "cellSize"),
    ("cell_size_negative", _set(["cellSize"], -0.4), "cellSize"),
    ("cell_size_string", _set(["cellSize"], "0.4"), "cellSize"),
    ("cell_size_nan", _set(["cellSize"], NAN), "cellSize"),
    ("agent_radius_negative", _set(["agentRadius"], -0.1), "agentRadius"),
    ("object_padding_negative", _set(["objectPadding"], -1), "objectPadding"),
    ("boundary_padding_negative", _set(["boundaryPadding"], -0.01), "boundaryPadding"),
    ("floor_y_inf", _set(["floorY"], INF), "floorY"),
    ("max_cells_zero", _set(["maxCells"], 0), "maxCells"),
    ("max_cells_exceeded", _set(["maxCells"], 100), "maxCells"),
    ("no_areas", _set(["areas"], []), "areas"),
    ("areas_missing", _set(["areas"], _DELETE), "areas"),
    ("areas_not_list", _set(["areas"], {"name": "a"}), "areas"),
    ("obstacles_not_list", _set(["obstacles"], "none"), "obstacles"),
]


@pytest.mark.parametrize(
    "mutate,field", [c[1:] for c in VALIDATION_CASES], ids=[c[0] for c in VALIDATION_CASES]
)
def test_validation_names_the_field(mutate, field):
    cfg = _base()
    parse_level(copy.deepcopy(cfg))  # the base is valid
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        parse_level(cfg)
    assert info.value.field == field
    assert str(info.value).startswith(field + ": ")


def test_max_cells_message_says_how_many():
    cfg = _base()
    cfg["maxCells"] = 1000
    with pytest.raises(
        ConfigError, match=r"would have \d+ x \d+ = \d+ cells, more than maxCells = 1000"
    ) as info:
        parse_level(cfg)
    geo_cells = int(str(info.value).split(" = ")[1].split(" ")[0])
    cfg["maxCells"] = geo_cells
    assert parse_level(cfg).grid_geometry().size == geo_cells
    # the default limit is 16 million cells
    cfg = _base()
    cfg["cellSize"] = 0.001
    with pytest.raises(ConfigError, match="16000000"):
        parse_level(cfg)


def test_top_level_must_be_object():
    with pytest.raises(ConfigError, match="JSON object"):
        parse_level([1, 2, 3])  # type: ignore[arg-type]


def test_unknown_keys_warn_with_field():
    cfg = _base()
    cfg["cellsize"] = 0.5
    cfg["areas"][1]["colour"] = "red"
    cfg["obstacles"][0]["height"] = 1.2
    with pytest.warns(NavkitWarning) as record:
        parse_level(cfg)
    fields = [w.message.field for w in record if isinstance(w.message, NavkitWarning)]
    assert fields == ["cellsize", "areas[1].colour", "obstacles[0].height"]
    assert "did you mean 'cellSize'" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_level(_base())  # no warning for known keys


def test_defaults():
    cfg = parse_level({"areas": [{"name": "a", "polygon": [[0, 0], [1, 0], [1, 1]]}]})
    assert (
        cfg.cell_size,
        cfg.agent_radius,
        cfg.object_padding,
        cfg.boundary_padding,
        cfg.floor_y,
    ) == (
        0.4,
        0.45,
        0.25,
        0.0,
        0.0,
    )
    assert cfg.max_cells == 16_000_000 and cfg.obstacles == ()
    a = cfg.areas[0]
    assert a.available is True and a.weight == 1 and a.holes == ()


def test_closing_point_is_dropped_and_weight_float_accepted():
    cfg = parse_level(
        {"areas": [{"name": "a", "weight": 3.0, "polygon": [[0, 0], [1, 0], [1, 1], [0, 0]]}]}
    )
    assert cfg.areas[0].polygon == ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0))
    assert cfg.areas[0].weight == 3 and isinstance(cfg.areas[0].weight, int)


# --------------------------------------------------------------------------
# files and JSON round trip
# --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_json_round_trip(seed):
    cfg = random_level(seed)
    text = json.dumps(cfg.to_json_dict())
    back = parse_level(json.loads(text))
    assert back == cfg
    assert rasterize(back).equals(rasterize(cfg))


def test_json_syntax_error_names_file_and_line(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{\n  "cellSize": 0.4,\n  "areas": [,]\n}\n')
    with pytest.raises(FormatError) as info:
        read_level(p)
    assert info.value.path == str(p) and info.value.line == 3
    assert str(info.value).startswith(f"{p}:3: ")


def test_config_error_from_file_names_file_and_field(tmp_path):
    cfg = _base()
    cfg["areas"][2]["polygon"][5] = [0, None]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(cfg))
    with pytest.raises(ConfigError) as info:
        read_level(p)
    assert info.value.field == "areas[2].polygon[5]" and info.value.path == str(p)
    assert str(info.value).startswith(f"{p}: areas[2].polygon[5]: ")


def test_load_level_name_and_options(tmp_path):
    p = tmp_path / "my_level.json"
    p.write_text(json.dumps(_base()))
    grid = load_level(p)
    assert grid.name == "my_level" and grid.cell_size == 0.5
    assert grid.meta["source"] == str(p)
    fine = load_level(p, cell_size=0.25, name="other")
    assert fine.cell_size == 0.25 and fine.name == "other" and fine.width > grid.width
    with pytest.raises(ConfigError) as info:
        load_level(p, cell_size=-1)
    assert info.value.field == "cellSize"
    with pytest.raises(ConfigError) as info:
        load_level(p, bogus=1)
    assert info.value.field == "bogus"
    # navkit.load_grid dispatches .json here
    from navkit.formats import load_grid

    assert load_grid(p, cell_size=0.25).equals(fine)


# --------------------------------------------------------------------------
# runtime edits
# --------------------------------------------------------------------------
def _door_level():
    return {
        "cellSize": 0.5,
        "agentRadius": 0.3,
        "objectPadding": 0.0,
        "boundaryPadding": 0.3,
        "areas": [
            {"name": "west", "polygon": [[0, 0], [8, 0], [8, 8], [0, 8]]},
            {"name": "east", "weight": 2, "polygon": [[8.4, 0], [16, 0], [16, 8], [8.4, 8]]},
            {
                "name": "door",
                "available": False,
                "polygon": [[7.9, 3], [8.5, 3], [8.5, 5], [7.9, 5]],
            },
        ],
        "obstacles": [{"name": "crate", "polygon": [[3, 3], [4, 3], [4, 4], [3, 4]]}],
    }


def _connected(grid, a, b):
    """4-connected flood fill from world point a; is b's cell reached?"""
    start = grid.world_to_cell(*a)
    goal = grid.world_to_cell(*b)
    if not (grid.is_walkable(*start) and grid.is_walkable(*goal)):
        return False
    seen = {start}
    todo = deque([start])
    while todo:
        x, z = todo.popleft()
        if (x, z) == goal:
            return True
        for nx, nz in ((x + 1, z), (x - 1, z), (x, z + 1), (x, z - 1)):
            if (nx, nz) not in seen and grid.is_walkable(nx, nz):
                seen.add((nx, nz))
                todo.append((nx, nz))
    return False


def test_set_area_available_changes_grid_and_version():
    level = NavLevel(parse_level(_door_level()))
    g0 = level.grid
    assert level.version == 0 and level.grid is g0  # cached while unchanged
    assert not _connected(g0, (2, 6), (12, 4))
    assert level.set_area_available("door", True) is True
    assert level.version == 1 and level.is_area_available("door")
    g1 = level.grid
    assert _connected(g1, (2, 6), (12, 4))
    assert (g1.min_x, g1.min_z, g1.shape) == (g0.min_x, g0.min_z, g0.shape)
    assert level.set_area_available("door", True) is False  # no-op
    assert level.version == 1 and level.grid is g1
    level.set_area_available("door", False)
    assert level.version == 2 and level.grid.equals(g0)
    with pytest.raises(ConfigError) as info:
        level.set_area_available("dor", True)
    assert info.value.field == "name" and "did you mean 'door'" in str(info.value)
    assert level.version == 2


def test_add_and_remove_obstacle():
    level = NavLevel(parse_level(_door_level()))
    g0 = level.grid
    assert g0.is_walkable(*g0.world_to_cell(12, 4))
    level.add_obstacle("boulder", [[11.5, 3.5], [12.5, 3.5], [12.5, 4.5], [11.5, 4.5]])
    assert level.version == 1 and level.obstacle_names == ("crate", "boulder")
    assert not level.grid.is_walkable(*g0.world_to_cell(12, 4))
    with pytest.raises(ConfigError) as info:
        level.add_obstacle("boulder", [[1, 1], [2, 1], [2, 2]])
    assert info.value.field == "name"
    with pytest.raises(ConfigError) as info:
        level.add_obstacle("bad", [[1, 1], [2, 1], [2, "x"]])
    assert info.value.field == "polygon[2]"
    with pytest.raises(ConfigError) as info:
        level.add_obstacle("bowtie", [[1, 1], [2, 2], [2, 1], [1, 2]])
    assert info.value.field == "polygon"
    assert level.version == 1
    level.remove_obstacle("boulder")
    level.remove_obstacle("crate")
    assert level.version == 3 and level.obstacle_names == ()
    assert level.grid.is_walkable(*g0.world_to_cell(3.5, 3.5))
    with pytest.raises(ConfigError) as info:
        level.remove_obstacle("crate")
    assert info.value.field == "name"


@pytest.mark.parametrize("seed", range(4))
def test_incremental_rebuild_equals_full_rasterize(seed):
    rng = np.random.default_rng(seed)
    cfg = random_level(seed + 50)
    level = NavLevel(cfg)
    level.grid  # noqa: B018 - build once so later changes go through windows
    for step in range(12):
        action = rng.integers(3)
        if action == 0:
            name = str(rng.choice(level.area_names))
            level.set_area_available(name, not level.is_area_available(name))
        elif action == 1 or not level.obstacle_names:
            c = rng.uniform(0, 16, 2)
            level.add_obstacle(f"new{step}", _star(rng, c[0], c[1], 0.2, 1.5, 6))
        else:
            level.remove_obstacle(str(rng.choice(level.obstacle_names)))
        if rng.random() < 0.6:
            assert level.grid.equals(rasterize(level.config)), f"step {step}"
    assert level.grid.equals(rasterize(level.config))
    _assert_matches_reference(level.config, level.grid)


def test_areas_at():
    level = NavLevel(parse_level(_door_level()))
    assert level.areas_at(8.2, 4) == ["door"]
    assert level.areas_at(8.0, 4) == ["west", "door"]  # edges count
    assert level.areas_at(8.0, 4, available_only=True) == ["west"]
    assert level.areas_at(-5, -5) == []
    with pytest.raises(QueryError):
        level.areas_at(math.nan, 0)
    assert level.area_names == ("west", "east", "door")


# --------------------------------------------------------------------------
# examples and benchmark helper
# --------------------------------------------------------------------------
def test_interior_example():
    level = NavLevel.from_file(EXAMPLES / "interior.json")
    grid = level.grid
    assert grid.name == "interior"
    assert 25 <= level.config.bounds()[2] - level.config.bounds()[0] <= 40
    doors = [n for n in level.area_names if n.startswith("door_")]
    assert "door_kitchen" in doors and len(doors) >= 5
    assert len(level.obstacle_names) >= 10
    hall, kitchen = (10.0, 9.5), (13.5, 13.0)
    assert _connected(grid, hall, kitchen)
    level.set_area_available("door_kitchen", False)
    level.set_area_available("door_kitchen_dining", False)
    assert not _connected(level.grid, hall, kitchen)
    level.set_area_available("door_kitchen_dining", True)  # round through the dining room
    assert _connected(level.grid, hall, kitchen)


def test_outdoor_example():
    level = NavLevel.from_file(EXAMPLES / "outdoor.json")
    grid = level.grid
    lo_x, lo_z, hi_x, hi_z = level.config.bounds()
    assert 50 <= hi_x - lo_x <= 70 and 30 <= hi_z - lo_z <= 50
    assert set(np.unique(grid.weight_array()[grid.walkable]).tolist()) == {1, 2, 4}
    names = level.area_names
    assert {"grassland", "bridge", "mud_bank"} <= set(names)
    assert any(n.startswith("tree_") for n in level.obstacle_names)
    assert any(n.startswith("rock_") for n in level.obstacle_names)
    # the pond is water: a hole in the grassland
    assert not grid.is_walkable(*grid.world_to_cell(40.0, 27.0))
    assert level.areas_at(40.0, 27.0) == []
    # weights by terrain
    w = grid.weight_array()
    for point, top, weight in (
        ((5, 20.4), "road_west", 1),
        ((50, 20), "grassland", 2),
        ((10, 6), "mud_field", 4),
    ):
        assert level.areas_at(*point)[-1] == top
        x, z = grid.world_to_cell(*point)
        assert grid.is_walkable(x, z) and int(w[z, x]) == weight, top
    # the bridge carries the road over the stream; closed, its deck is water
    deck = shapely.get_coordinates(level.config.area("bridge").geometry.centroid)[0]
    assert grid.is_walkable(*grid.world_to_cell(*deck))
    level.set_area_available("bridge", False)
    assert not level.grid.is_walkable(*grid.world_to_cell(*deck))


def test_examples_load_through_load_level():
    """Every bundled single-floor level loads; a building (``floors``) is refused with
    a ConfigError that points at FloorMap (docs/floors.md)."""
    for path in sorted(EXAMPLES.glob("*.json")):
        if "floors" in json.loads(path.read_text(encoding="utf-8")):
            with pytest.raises(ConfigError, match="FloorMap") as e:
                load_level(path)
            assert e.value.field == "floors"
            continue
        grid = load_level(path)
        assert grid.walkable.any() and grid.name == path.stem


def test_benchmark_helper_runs():
    out = benchmark_rasterize(seed=1, size=120, n_obstacles=20, repeat=1)
    assert (out["width"], out["depth"], out["cells"], out["obstacles"]) == (120, 120, 14400, 20)
    assert out["seconds"] > 0 and 0 < out["walkable_fraction"] < 1

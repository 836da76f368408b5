"""Paths across floors on meshes (navkit.floors.mesh) equal Dijkstra on the floors'
visibility graphs joined at the link ends.

The oracle knows only the building dict: per floor the free space (shapely:
the union of the available areas less the obstacles; agentRadius 0), its ring
vertices (the visibility graph of tests/mesh/oracle.py) plus the query points
and the link ends, an edge where the segment lies in the free space (shapely
``covers`` with a 1e-9 m slack); link edges (on, in their directions) cost
their metres; scipy's Dijkstra. Pieces of a floor's free space that touch only
at a point are not joined (each piece has its own visibility graph), as on
one NavMesh, whose regions are joined by shared edges.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from navkit.errors import ConfigError, QueryError
from navkit.floors import Building, parse_building
from navkit.floors.examples import two_floors
from navkit.floors.mesh import FloorMesh
from navkit.results import Status
from tests.mesh.oracle import VisibilityOracle, segment_inside

from .oracle import add_random_links, building_dict


def floor_space(fl: dict[str, Any]) -> shapely.Geometry:
    """Union of a floor's available areas less its obstacles (no paddings)."""
    areas = [shapely.Polygon(a["polygon"]) for a in fl["areas"] if a.get("available", True)]
    obst = [shapely.Polygon(o["polygon"]) for o in fl.get("obstacles", [])]
    space = shapely.union_all(areas) if areas else shapely.Polygon()
    if obst:
        space = space.difference(shapely.union_all(obst))
    return space


def link_cost(obj: dict[str, Any], lk: dict[str, Any]) -> float:
    if "cost" in lk:
        return float(lk["cost"])
    names = [f["name"] for f in obj["floors"]]
    ya = obj["floors"][names.index(lk["from"]["floor"])].get("floorY", 0.0)
    yb = obj["floors"][names.index(lk["to"]["floor"])].get("floorY", 0.0)
    (xa, za), (xb, zb) = lk["from"]["point"], lk["to"]["point"]
    return math.sqrt((xb - xa) ** 2 + (yb - ya) ** 2 + (zb - za) ** 2)


class BuildingOracle:
    """Shortest lengths across floors from the building dict alone (module docs)."""

    def __init__(self, obj: dict[str, Any], enabled: dict[str, bool] | None = None):
        self.obj = obj
        self.enabled = enabled or {}
        self.names = [f["name"] for f in obj["floors"]]
        self.spaces = [floor_space(f) for f in obj["floors"]]
        # one visibility graph per piece of each floor's free space
        self.vis = [[VisibilityOracle(g) for g in getattr(s, "geoms", [s]) if not g.is_empty]
                    for s in self.spaces]

    def on(self, lk: dict[str, Any]) -> bool:
        return self.enabled.get(lk["name"], lk.get("enabled", True))

    def covers(self, f: int, p: tuple[float, float]) -> bool:
        return any(v.visible(p, p) for v in self.vis[f])

    def length(self, start: tuple[float, float], sf: int, goal: tuple[float, float],
               gf: int) -> float:
        # special points per floor: (node id, point)
        special: list[list[tuple[int, tuple[float, float]]]] = [[] for _ in self.names]
        special[sf].append((0, start))
        special[gf].append((1, goal))
        links = self.obj.get("links", [])
        for k, lk in enumerate(links):
            special[self.names.index(lk["from"]["floor"])].append(
                (2 + 2 * k, tuple(lk["from"]["point"])))
            special[self.names.index(lk["to"]["floor"])].append(
                (3 + 2 * k, tuple(lk["to"]["point"])))
        n = 2 + 2 * len(links)
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        wts: list[np.ndarray] = []
        for f, pieces in enumerate(self.vis):
            for vis in pieces:
                verts = vis.verts
                base = n
                n += len(verts)
                rows += [base + vis._i, base + vis._j]
                cols += [base + vis._j, base + vis._i]
                wts += [vis._w, vis._w]
                sp = [(i, p) for i, p in special[f] if vis.visible(p, p)]
                for a, (ia, pa) in enumerate(sp):
                    lines = shapely.linestrings(np.stack(
                        [np.broadcast_to(pa, verts.shape), verts], axis=1))
                    d = np.hypot(*(verts - np.asarray(pa)).T)
                    ok = np.nonzero(shapely.covers(vis.covered, lines) | (d == 0))[0]
                    rows += [np.full(len(ok), ia), base + ok]
                    cols += [base + ok, np.full(len(ok), ia)]
                    wts += [np.maximum(d[ok], 1e-300)] * 2
                    for ib, pb in sp[a + 1:]:
                        if vis.visible(pa, pb):
                            d1 = max(math.hypot(pb[0] - pa[0], pb[1] - pa[1]), 1e-300)
                            rows += [np.array([ia, ib])]
                            cols += [np.array([ib, ia])]
                            wts += [np.array([d1, d1])]
        for k, lk in enumerate(links):
            if not self.on(lk):
                continue
            c = link_cost(self.obj, lk)
            rows.append(np.array([2 + 2 * k]))
            cols.append(np.array([3 + 2 * k]))
            wts.append(np.array([c]))
            if lk.get("bidirectional", True):
                rows.append(np.array([3 + 2 * k]))
                cols.append(np.array([2 + 2 * k]))
                wts.append(np.array([c]))
        if start == goal and sf == gf:
            return 0.0 if self.covers(sf, start) else math.inf
        # parallel edges: coo -> csr sums duplicates, so keep the minimum by hand
        r = np.concatenate(rows).astype(np.int64)
        c_ = np.concatenate(cols).astype(np.int64)
        w = np.concatenate(wts)
        order = np.lexsort((w, c_, r))
        r, c_, w = r[order], c_[order], w[order]
        first = np.ones(len(r), dtype=bool)
        first[1:] = (r[1:] != r[:-1]) | (c_[1:] != c_[:-1])
        g = coo_matrix((w[first], (r[first], c_[first])), shape=(n, n)).tocsr()
        return float(dijkstra(g, directed=True, indices=0)[1])


def sample_points(space: shapely.Geometry, k: int, rng: np.random.Generator) -> list:
    if space.is_empty:
        return []
    x0, z0, x1, z1 = space.bounds
    out: list[tuple[float, float]] = []
    for _ in range(200):
        p = rng.uniform((x0, z0), (x1, z1), (4 * k, 2))
        inside = shapely.contains_xy(space, p[:, 0], p[:, 1])
        out += [(float(x), float(z)) for x, z in p[inside]]
        if len(out) >= k:
            break
    return out[:k]


def random_building(seed: int, floors: int, links: int) -> tuple[dict[str, Any], Building]:
    rng = np.random.default_rng(seed)
    obj = building_dict(rng, floors)
    base = Building(parse_building(obj))
    add_random_links(obj, [base.grid(f) for f in range(floors)], rng, links)
    return obj, Building(obj)


def check_path(r, fm: FloorMesh, obj: dict[str, Any], oracle: BuildingOracle,
               start, sf, goal, gf) -> None:
    """Every walk inside its floor's free space, every link on and walked its way,
    the ends right, and the length their sum."""
    wp, fl, ent = r.waypoints, r.floors, r.entered
    assert len(wp) == len(fl) == len(ent) == len(r.heights) >= 1
    assert tuple(wp[0]) == start and fl[0] == sf
    assert tuple(wp[-1]) == goal and fl[-1] == gf
    ys = [f.get("floorY", 0.0) for f in obj["floors"]]
    assert np.array_equal(r.heights, [ys[f] for f in fl])
    total = 0.0
    taken = []
    for i in range(1, len(wp)):
        k = int(ent[i])
        if k < 0:
            assert fl[i] == fl[i - 1]
            assert segment_inside(oracle.spaces[fl[i]], wp[i - 1:i + 1], 1e-7)
            total += float(np.hypot(*(wp[i] - wp[i - 1])))
            continue
        lk = obj["links"][k]
        assert fm.building.link_states[k] == 1 and oracle.on(lk)
        ends = [(oracle.names.index(lk[e]["floor"]), tuple(lk[e]["point"])) for e in ("from", "to")]
        here = [(int(fl[i - 1]), tuple(wp[i - 1])), (int(fl[i]), tuple(wp[i]))]
        assert here == ends or (lk.get("bidirectional", True) and here == ends[::-1]), (here, ends)
        total += link_cost(obj, lk)
        taken.append(k)
    assert taken == r.links
    assert total == pytest.approx(r.length, rel=1e-9, abs=1e-9)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), floors=st.integers(1, 4), links=st.integers(0, 7))
def test_lengths_equal_the_visibility_graph_oracle(seed, floors, links):
    obj, b = random_building(seed, floors, links)
    fm = FloorMesh(b, weights="ignore")
    oracle = BuildingOracle(obj)
    rng = np.random.default_rng(seed ^ 0x5EED)
    pts = [sample_points(s, 3, rng) for s in oracle.spaces]
    for lk in obj.get("links", []):  # link ends lie in the free space (cell centres)
        for e in ("from", "to"):
            assert oracle.covers(oracle.names.index(lk[e]["floor"]), lk[e]["point"])
    queries = [(p, sf, q, gf) for sf in range(floors) for gf in range(floors)
               for p in pts[sf][:2] for q in pts[gf][:2]]
    for start, sf, goal, gf in queries:
        want = oracle.length(start, sf, goal, gf)
        r = fm.find_path(start, goal, start_floor=sf, goal_floor=gf)
        rf = fm.find_path(start, goal, start_floor=sf, goal_floor=gf, algorithm="funnel")
        if math.isinf(want):
            assert r.status == Status.UNREACHABLE and rf.status == Status.UNREACHABLE
            assert not r.has_path and math.isinf(r.length)
            continue
        assert r.status == Status.FOUND, (start, sf, goal, gf, want)
        assert r.length == pytest.approx(want, rel=1e-9, abs=1e-9), (start, sf, goal, gf)
        check_path(r, fm, obj, oracle, start, sf, goal, gf)
        assert rf.status == Status.FOUND
        assert rf.length >= r.length - 1e-9 * max(1.0, r.length)
        check_path(rf, fm, obj, oracle, start, sf, goal, gf)


def test_switched_off_and_one_way_links():
    obj = two_floors()
    b = Building(obj)
    fm = FloorMesh(b)
    up = fm.find_path((2, 8), (18, 8), start_floor="ground", goal_floor="upper")
    assert up.status == Status.FOUND and up.links == [0]
    assert up.length == pytest.approx(
        BuildingOracle(obj).length((2, 8), 0, (18, 8), 1), rel=1e-9)
    b.set_link_enabled("stairs", False)
    off = fm.find_path((2, 8), (18, 8), start_floor=0, goal_floor=1)
    assert off.status == Status.UNREACHABLE
    assert math.isinf(BuildingOracle(obj, {"stairs": False}).length((2, 8), 0, (18, 8), 1))
    b.set_link_enabled("stairs", True)
    assert fm.find_path((2, 8), (18, 8), start_floor=0, goal_floor=1).length == up.length
    obj["links"][0]["bidirectional"] = False
    fm1 = FloorMesh(Building(obj))
    assert fm1.find_path((2, 8), (18, 8), start_floor=0, goal_floor=1).status == Status.FOUND
    assert fm1.find_path((18, 8), (2, 8), start_floor=1, goal_floor=0).status == \
        Status.UNREACHABLE


def test_a_switched_off_shortcut_is_not_taken():
    """Two links up; the short one switched off: the path takes the long one, as the
    oracle with that link off says."""
    obj = two_floors()
    obj["links"].append({"name": "lift", "kind": "elevator",
                         "from": {"floor": "ground", "point": [3.0, 8.0]},
                         "to": {"floor": "upper", "point": [17.0, 8.0]}, "cost": 1.0})
    b = Building(obj)
    fm = FloorMesh(b)
    r = fm.find_path((2, 8), (18, 8), start_floor=0, goal_floor=1)
    assert r.links == [1]
    assert r.length == pytest.approx(BuildingOracle(obj).length((2, 8), 0, (18, 8), 1))
    b.set_link_enabled("lift", False)
    r = fm.find_path((2, 8), (18, 8), start_floor=0, goal_floor=1)
    assert r.links == [0]
    assert r.length == pytest.approx(
        BuildingOracle(obj, {"lift": False}).length((2, 8), 0, (18, 8), 1), rel=1e-9)


def test_a_door_closed_on_one_floor_rebuilds_its_mesh():
    obj = two_floors()
    # a doorway through the upper floor's middle; closing it cuts the way east
    obj["floors"][1]["areas"] = [
        {"name": "west", "polygon": [[8, 0], [15, 0], [15, 10], [8, 10]]},
        {"name": "door", "polygon": [[15, 4], [16, 4], [16, 6], [15, 6]]},
        {"name": "east", "polygon": [[16, 0], [20, 0], [20, 10], [16, 10]]}]
    b = Building(obj)
    fm = FloorMesh(b)
    r = fm.find_path((2, 8), (19, 9), start_floor=0, goal_floor=1)
    assert r.length == pytest.approx(BuildingOracle(obj).length((2, 8), 0, (19, 9), 1), rel=1e-9)
    ground, upper = fm.mesh(0), fm.mesh(1)
    b.set_area_available("door", False, floor="upper")
    assert fm.mesh(0) is ground and fm.mesh(1) is not upper  # only the edited floor rebuilds
    assert fm.find_path((2, 8), (19, 9), start_floor=0, goal_floor=1).status == \
        Status.UNREACHABLE
    b.set_area_available("door", True, floor="upper")
    assert fm.find_path((2, 8), (19, 9), start_floor=0, goal_floor=1).length == r.length


def test_few_mesh_searches_per_query():
    """Links far from the start cost no search: their straight-line bound loses."""
    obj = two_floors()
    for i in range(6):
        obj["links"].append({"name": f"far{i}", "kind": "stairs",
                             "from": {"floor": "ground", "point": [19.5, 0.5 + i]},
                             "to": {"floor": "upper", "point": [19.5, 9.5 - i]}})
    fm = FloorMesh(Building(obj))
    fm.prepare()
    r = fm.find_path((9, 4), (14.5, 4), start_floor=0, goal_floor=1)
    assert r.links == [0] and r.searches == 2
    same = fm.find_path((1, 1), (2, 2), start_floor=0, goal_floor=0)
    assert same.searches == 1 and same.links == [] and same.length == pytest.approx(math.sqrt(2))


def test_ends_at_link_ends_and_zero_length():
    b = Building(two_floors())
    fm = FloorMesh(b)
    r = fm.find_path((10, 4), (14, 4), start_floor=0, goal_floor=1)
    assert r.waypoints.tolist() == [[10, 4], [14, 4]] and r.floors.tolist() == [0, 1]
    assert r.entered.tolist() == [-1, 0] and r.heights.tolist() == [0.0, 3.5]
    assert r.length == b.links[0].cost == pytest.approx(math.hypot(4, 3.5))
    z = fm.find_path((2, 8), (2, 8), start_floor=0, goal_floor=0)
    assert z.status == Status.FOUND and z.length == 0 and z.waypoints.tolist() == [[2, 8], [2, 8]]
    # there and back: up the stairs, down again (the only way between these points)
    obj = two_floors()
    obj["floors"][0]["obstacles"][0]["polygon"] = [[12, 0], [13, 0], [13, 10], [12, 10]]
    obj["links"].append({"name": "east", "kind": "ladder",
                         "from": {"floor": "upper", "point": [14.5, 9.5]},
                         "to": {"floor": "ground", "point": [14.5, 9.5]}, "cost": 2.0})
    fm2 = FloorMesh(Building(obj))
    r = fm2.find_path((2, 8), (18, 8), start_floor=0, goal_floor=0)
    assert r.links == [0, 1] and r.floors.tolist() == [0, 0, 1, 1, 0, 0]
    assert r.length == pytest.approx(BuildingOracle(obj).length((2, 8), 0, (18, 8), 0), rel=1e-9)


def test_off_mesh_ends_and_bad_input():
    fm = FloorMesh(Building(two_floors()))
    assert fm.find_path((2, 8), (100, 100), start_floor=0, goal_floor=1).status == Status.NO_GOAL
    assert fm.find_path((-50, 8), (18, 8), start_floor=0, goal_floor=1).status == \
        Status.NO_START
    # the upper floor does not reach over x < 8: off its mesh there but within snap
    p = fm.place((7, 5), 1)
    assert p is not None and p.point == (8.0, 5.0) and p.y == 3.5
    assert not fm.is_walkable((7, 5), "upper") and fm.is_walkable((7, 5), "ground")
    assert fm.nearest_point((7, 5), 1) == (8.0, 5.0)
    hit = fm.raycast((1, 3), (19, 3), 0)
    assert hit.hit and hit.point[0] == pytest.approx(12.0)
    with pytest.raises(QueryError, match="start_floor"):
        fm.find_path((2, 8), (18, 8), start_floor=2, goal_floor=1)
    with pytest.raises(QueryError, match="goal_floor"):
        fm.find_path((2, 8), (18, 8), start_floor=0, goal_floor="attic")
    with pytest.raises(QueryError, match="algorithm"):
        fm.find_path((2, 8), (18, 8), start_floor=0, goal_floor=1, algorithm="jps")
    with pytest.raises(QueryError, match="start"):
        fm.find_path((2, math.nan), (18, 8), start_floor=0, goal_floor=1)
    obj = two_floors()
    obj["floors"][1]["areas"][0]["weight"] = 3
    with pytest.raises(ConfigError) as e:
        FloorMesh(Building(obj))
    assert e.value.field == "floors[1].areas[0].weight"

"""Buildings from Tiled and LDtk maps: read_tiled_floors / read_ldtk_floors, then
FloorMaps.build(Building.from_grids).

Oracles: each floor's grid equals the single-floor reader's grid of a map that
holds only that floor's layers (or that one level); link ends are the cells the
test computes from the pixels it wrote; a path's cost equals scipy's Dijkstra on
the layered graph of tests/floors/oracle.py built from those grids and the
links the test wrote (in metres, converted here, not by the reader).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import navkit.formats
from navkit.errors import ConfigError, FormatError
from navkit.floors import Building, FloorSearch
from navkit.formats.ldtk import read_ldtk, read_ldtk_floors
from navkit.formats.tiled import FloorMaps, read_tiled, read_tiled_floors
from navkit.results import Status
from tests.floors.oracle import distances, layered_graph


def read_tiled_building(path: Path, **options: Any) -> Building:
    return read_tiled_floors(path, **options).build(Building.from_grids)


def read_ldtk_building(path: Path, **options: Any) -> Building:
    return read_ldtk_floors(path, **options).build(Building.from_grids)


TILE = 16  # pixels
# gid 1 floor, 2 blocked (tile property), 3 floor of weight 3; 0 no tile (blocked)
TILESET = {"firstgid": 1, "name": "t", "tilewidth": TILE, "tileheight": TILE, "tilecount": 4,
           "columns": 4, "image": "t.png", "imagewidth": 64, "imageheight": 16, "margin": 0,
           "spacing": 0,
           "tiles": [{"id": 1, "properties": [{"name": "blocked", "type": "bool", "value": True}]},
                     {"id": 2, "properties": [{"name": "weight", "type": "int", "value": 3}]}]}


def _prop(name: str, value: Any) -> dict[str, Any]:
    kind = ("bool" if isinstance(value, bool) else "int" if isinstance(value, int)
            else "float" if isinstance(value, float) else "string")
    return {"name": name, "type": kind, "value": value}


def tile_layer(name: str, gids: np.ndarray, lid: int) -> dict[str, Any]:
    h, w = gids.shape
    return {"id": lid, "name": name, "type": "tilelayer", "width": w, "height": h, "x": 0,
            "y": 0, "opacity": 1, "visible": True, "data": [int(v) for v in gids.ravel()]}


def object_layer(name: str, objects: list[dict[str, Any]], lid: int) -> dict[str, Any]:
    return {"id": lid, "name": name, "type": "objectgroup", "draworder": "topdown", "x": 0,
            "y": 0, "opacity": 1, "visible": True, "objects": objects}


def group(name: str, layers: list[dict[str, Any]], lid: int, **props: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"id": lid, "name": name, "type": "group", "x": 0, "y": 0, "opacity": 1,
                         "visible": True, "layers": layers}
    if props:
        d["properties"] = [_prop(k, v) for k, v in props.items()]
    return d


def tiled_map(layers: list[dict[str, Any]], w: int, h: int, **props: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "map", "version": "1.10", "orientation": "orthogonal",
                         "renderorder": "right-down", "width": w, "height": h,
                         "tilewidth": TILE, "tileheight": TILE, "infinite": False,
                         "nextlayerid": 999, "nextobjectid": 999, "layers": layers,
                         "tilesets": [TILESET]}
    if props:
        d["properties"] = [_prop(k, v) for k, v in props.items()]
    return d


def point(oid: int, name: str, x: float, y: float, cls: str = "link", **props: Any
          ) -> dict[str, Any]:
    return {"id": oid, "name": name, "type": cls, "point": True, "x": x, "y": y, "width": 0,
            "height": 0, "rotation": 0, "visible": True,
            "properties": [_prop(k, v) for k, v in props.items()]}


def rect(oid: int, name: str, x: float, y: float, w: float, h: float, cls: str, **props: Any
         ) -> dict[str, Any]:
    return {"id": oid, "name": name, "type": cls, "x": x, "y": y, "width": w, "height": h,
            "rotation": 0, "visible": True,
            "properties": [_prop(k, v) for k, v in props.items()]}


def write(folder: Path, name: str, doc: Any) -> Path:
    p = folder / name
    p.write_text(json.dumps(doc))
    return p


def _cell_of(px: float, py: float) -> tuple[int, int]:
    return int(px // TILE), int(py // TILE)


def _check_search(b: Any, grids: list[Any], obj: dict[str, Any], rng: np.random.Generator
                  ) -> int:
    """Paths between random free cells cost what Dijkstra on the layered graph says;
    returns how many crossed a link."""
    s = FloorSearch(b)
    graph = layered_graph(grids, obj, s.costs.card, s.costs.diag)
    free = np.argwhere(b.stacked()[0] == 1).ravel()
    crossed = 0
    for _ in range(6):
        a, t = (int(v) for v in rng.choice(free, 2))
        dist = distances(graph, a)
        ca, ct = s.cells_of(np.array([a, t]))
        r = s.path(tuple(ca), tuple(ct))
        if np.isinf(dist[t]):
            assert r.status == Status.UNREACHABLE
            continue
        assert r.status == Status.FOUND and r.cost_int == int(dist[t])
        crossed += bool(r.links)
    return crossed


# ------------------------------------------------------------------- Tiled
def _random_tiled(rng: np.random.Generator, folder: Path, cell_size: float
                  ) -> tuple[Path, dict[str, Any], list[Path], list[tuple[int, int, int]]]:
    """A map of 1-3 floor groups (tiles, a door, a wall object, link objects); the
    oracle maps (one per group), the building JSON the test expects (metres) and
    each link's expected (floor, x, z) start cells."""
    F = int(rng.integers(1, 4))
    W, H = int(rng.integers(3, 8)), int(rng.integers(3, 7))
    names = [f"level {f}" for f in range(F)]
    groups, oracles, gids_of = [], [], []
    ys: list[float] = []
    for f in range(F):
        gids = rng.choice([0, 1, 1, 1, 1, 2, 3], size=(H, W)).astype(np.int64)
        gids[0, 0] = 1
        over = np.where(rng.random((H, W)) < 0.2, 2, 0)
        layers = [tile_layer("floor", gids, 10 * f + 1), tile_layer("walls", over, 10 * f + 2)]
        objs = []
        if rng.random() < 0.5:  # a door over a wall tile
            x, z = int(rng.integers(W)), int(rng.integers(H))
            objs.append(rect(100 * f + 1, f"door{f}", x * TILE, z * TILE, TILE, TILE, "door"))
        if rng.random() < 0.5:
            x, z = int(rng.integers(W)), int(rng.integers(H))
            objs.append(rect(100 * f + 2, f"pillar{f}", x * TILE + 2, z * TILE + 2, 12, 12,
                             "wall"))
        layers.append(object_layer("objects", objs, 10 * f + 3))
        gids_of.append(layers)
        oracles.append(write(folder, f"only{f}.tmj", tiled_map(layers, W, H)))
        gprops: dict[str, Any] = {}
        if rng.random() < 0.6:
            ys.append(float(np.round(rng.uniform(-5, 20), 2)))
            gprops["floorY"] = ys[-1]
        else:
            ys.append(3.0 * f)
        groups.append((names[f], layers, gprops))
    ogrids = [read_tiled(o, cell_size=cell_size) for o in oracles]
    free = [np.argwhere(g.walkable) for g in ogrids]  # (z, x)
    links, starts = [], []
    oid = 500
    for i in range(int(rng.integers(0, 5))):
        fa = int(rng.integers(F))
        fb = int(rng.integers(F))
        if not len(free[fa]) or not len(free[fb]):
            continue
        za, xa = free[fa][int(rng.integers(len(free[fa])))]
        zb, xb = free[fb][int(rng.integers(len(free[fb])))]
        pa = (float(xa * TILE + rng.uniform(1, 15)), float(za * TILE + rng.uniform(1, 15)))
        pb = (float(xb * TILE + rng.uniform(1, 15)), float(zb * TILE + rng.uniform(1, 15)))
        props: dict[str, Any] = {"kind": str(rng.choice(["stairs", "Ladder", "elevator"])),
                                 "to": names[fb], "toX": pb[0], "toZ": pb[1]}
        if fa == fb and (xa, za) == (xb, zb):
            props["cost"] = 1.5
        if rng.random() < 0.3:
            props["cost"] = float(np.round(rng.uniform(0.2, 4), 2))
        if rng.random() < 0.3:
            props["bidirectional"] = False
        oid += 1
        if rng.random() < 0.5:
            obj = point(oid, f"L{i}", pa[0], pa[1], **props)
        else:  # a rectangle centred on pa (its centre is the link's start)
            obj = rect(oid, f"L{i}", pa[0] - 0.5, pa[1] - 0.5, 1.0, 1.0, "link", **props)
        assert _cell_of(*pa) == (xa, za)
        groups[fa][1][-1]["objects"].append(obj)
        link: dict[str, Any] = {
            "name": f"L{i}", "kind": props["kind"].lower(),
            "from": {"floor": names[fa], "point": [pa[0] / TILE * cell_size,
                                                   pa[1] / TILE * cell_size]},
            "to": {"floor": names[fb], "point": [pb[0] / TILE * cell_size,
                                                 pb[1] / TILE * cell_size]},
            "bidirectional": props.get("bidirectional", True)}
        if "cost" in props:
            link["cost"] = props["cost"]
        links.append(link)
        starts.append((fa, int(xa), int(za)))
    doc = tiled_map([group(n, lay, 1000 + f, **pr) for f, (n, lay, pr) in enumerate(groups)],
                    W, H)
    p = write(folder, "building.tmj", doc)
    obj = {"floors": [{"name": n, "floorY": y} for n, y in zip(names, ys, strict=True)],
           "links": links}
    return p, obj, oracles, starts


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), cell_size=st.sampled_from([1.0, 0.5]))
def test_tiled_floors_links_and_paths_against_oracles(seed: int, cell_size: float) -> None:
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        p, obj, oracles, starts = _random_tiled(rng, Path(tmp), cell_size)
        b = read_tiled_building(p, cell_size=cell_size)
        ogrids = [read_tiled(o, cell_size=cell_size) for o in oracles]
    assert b.floor_names == tuple(f["name"] for f in obj["floors"])
    np.testing.assert_array_equal(b.floor_ys, [f["floorY"] for f in obj["floors"]])
    for f, og in enumerate(ogrids):
        g = b.grid(f)
        np.testing.assert_array_equal(g.walkable, og.walkable)
        np.testing.assert_array_equal(g.weight_array(), og.weight_array())
        assert g.cell_size == cell_size and g.floor_y == obj["floors"][f]["floorY"]
    # links in floor order, then object order within a floor
    assert sorted(b.link_names) == sorted(lk["name"] for lk in obj["links"])
    W, D = b.width, b.depth
    for i, lk in enumerate(obj["links"]):
        k = b.link_index(lk["name"])
        f, x, z = starts[i]
        assert b.link_end_nodes()[k, 0] == (f * D + z) * W + x
        fb = b.floor_names.index(lk["to"]["floor"])
        xb, zb = (int(v // cell_size) for v in lk["to"]["point"])
        assert b.link_end_nodes()[k, 1] == (fb * D + zb) * W + xb
        assert b.links[k].kind == lk["kind"]
        assert b.links[k].bidirectional == lk["bidirectional"]
    _check_search(b, ogrids, obj, rng)


def _two_floor_doc(**link_props: Any) -> dict[str, Any]:
    """ground (4 x 3, a wall tile at (1, 1)) and upper (floorY 4.5), stairs from
    cell (3, 2) of the ground up to cell (0, 0) of the upper floor."""
    g0 = np.array([[1, 1, 1, 1], [1, 2, 1, 1], [1, 1, 3, 1]])
    g1 = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [2, 1, 1, 1]])
    props: dict[str, Any] = {"kind": "stairs", "to": "upper", "toX": 8.0, "toZ": 8.0}
    props.update(link_props)
    props = {k: v for k, v in props.items() if v is not None}
    stairs = point(7, "stairs", 56, 40, **props)
    return tiled_map([group("ground", [tile_layer("floor", g0, 1),
                                       object_layer("links", [stairs], 2)], 3),
                      group("upper", [tile_layer("floor", g1, 4)], 5, floorY=4.5)], 4, 3)


def test_two_floors_by_hand(tmp_path: Path) -> None:
    p = write(tmp_path, "two.tmj", _two_floor_doc())
    b = read_tiled_building(p)
    assert b.floor_names == ("ground", "upper") and b.floor_ys.tolist() == [0.0, 4.5]
    lk = b.links[0]
    assert (lk.name, lk.kind, lk.start.point, lk.end.point) == ("stairs", "stairs",
                                                                (3.5, 2.5), (0.5, 0.5))
    assert lk.cost == pytest.approx(float(np.sqrt(3**2 + 2**2 + 4.5**2)))
    assert b.grid("upper").name == "two:upper" and b.grid("upper").meta["floor"] == "upper"
    r = FloorSearch(b).path((0, 0, 0), (1, 1, 2))
    assert r.status == Status.FOUND and r.links == [0]
    up = int(np.flatnonzero(r.entered == 0)[0])
    assert tuple(r.cells[up - 1]) == (0, 3, 2) and tuple(r.cells[up]) == (1, 0, 0)


def test_map_without_groups_is_one_floor_and_links_default_to_it(tmp_path: Path) -> None:
    g = np.ones((3, 5), np.int64)
    hop = point(3, "", 8, 8, kind="teleport", toX=72.0, toZ=40.0, cost=0.5)
    doc = tiled_map([tile_layer("floor", g, 1), object_layer("o", [hop], 2)], 5, 3, floorY=2.0)
    p = write(tmp_path, "flat.tmj", doc)
    b = read_tiled_building(p)
    assert b.floor_names == ("ground",) and b.floor_ys.tolist() == [2.0]
    assert b.link_names == ("link3",)
    assert b.link_end_nodes().tolist() == [[0, 2 * 5 + 4]]
    np.testing.assert_array_equal(b.grid(0).walkable, read_tiled(p).walkable)
    assert read_tiled(p).meta["doors"] == []  # a link is no door, area or obstacle


TMX = """<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down"
     width="4" height="3" tilewidth="16" tileheight="16" infinite="0" nextlayerid="9"
     nextobjectid="9">
 <tileset firstgid="1" source="t.tsj"/>
 <group id="1" name="ground">
  <layer id="2" name="floor" width="4" height="3"><data encoding="csv">
1,1,1,1,
1,2,1,1,
1,1,3,1</data></layer>
  <objectgroup id="3" name="links">
   <object id="7" name="stairs" x="48" y="32" width="16" height="16">
    <properties>
     <property name="link" type="bool" value="true"/>
     <property name="kind" value="ramp"/>
     <property name="to" value="upper"/>
     <property name="toX" type="float" value="24"/>
     <property name="toZ" type="float" value="20"/>
     <property name="bidirectional" type="bool" value="false"/>
     <property name="capacity" type="int" value="2"/>
     <property name="enabled" type="bool" value="false"/>
    </properties>
   </object>
  </objectgroup>
 </group>
 <group id="4" name="upper">
  <properties><property name="floorY" type="float" value="-2.5"/></properties>
  <layer id="5" name="floor" width="4" height="3"><data encoding="csv">
1,1,0,0,
1,1,1,1,
2,1,1,1</data></layer>
 </group>
</map>
"""


def test_tmx_building_and_the_link_property(tmp_path: Path) -> None:
    tiles = dict(TILESET)
    del tiles["firstgid"]
    write(tmp_path, "t.tsj", tiles)
    p = tmp_path / "two.tmx"
    p.write_text(TMX)
    b = read_tiled_building(p, cell_size=0.5)
    assert b.floor_names == ("ground", "upper") and b.floor_ys.tolist() == [0.0, -2.5]
    lk = b.links[0]
    assert (lk.name, lk.kind, lk.bidirectional, lk.capacity, lk.enabled) == (
        "stairs", "ramp", False, 2, False)
    assert lk.start.point == (1.75, 1.25) and lk.end.point == (0.75, 0.625)  # rectangle centre
    assert b.link_end_nodes().tolist() == [[2 * 4 + 3, 12 + 1 * 4 + 1]]
    assert not b.link_enabled("stairs")
    assert read_tiled(p).meta["doors"] == []


def test_floor_selection_drops_links_to_the_rest(tmp_path: Path) -> None:
    p = write(tmp_path, "two.tmj", _two_floor_doc())
    b = read_tiled_building(p, floors=["upper"])
    assert b.floor_names == ("upper",) and b.links == () and b.floor_ys.tolist() == [4.5]
    b = read_tiled_building(p, floors=[1, 0])
    assert b.floor_names == ("upper", "ground") and b.link_names == ("stairs",)
    with pytest.raises(ConfigError, match="did you mean 'upper'") as e:
        read_tiled_building(p, floors=["uper"])
    assert e.value.field == "floors[0]"


@pytest.mark.parametrize("props, error, match", [
    ({"to": "attic"}, ConfigError, r"property 'to': no floor called 'attic'"),
    ({"toX": 40.0, "toZ": 8.0}, ConfigError,
     r"properties 'toX' / 'toZ': .* not navigable on floor 'upper' \(cell \(2, 0\)"),
    ({"kind": "rope"}, ConfigError, r"property 'kind': expected one of stairs"),
    ({"cost": -1.0}, ConfigError, r"property 'cost': must be > 0"),
    ({"capacity": 0}, ConfigError, r"property 'capacity': must lie in \[1"),
    ({"cost": "cheap"}, FormatError, r"property 'cost': expected a finite number"),
    ({"bidirectional": 3}, FormatError, r"property 'bidirectional': expected true or false"),
    ({"capacity": 1.5}, FormatError, r"property 'capacity': expected an integer"),
])
def test_hostile_link_properties_name_file_and_object(tmp_path: Path, props: dict[str, Any],
                                                      error: type, match: str) -> None:
    p = write(tmp_path, "bad.tmj", _two_floor_doc(**props))
    with pytest.raises(error, match=match) as e:
        read_tiled_building(p)
    text = str(e.value)
    assert text.startswith(f"{p}: object layer 'ground/links', object 7 'stairs', "), text
    assert type(e.value) is error


def test_link_start_in_a_wall_names_the_object(tmp_path: Path) -> None:
    doc = _two_floor_doc()
    doc["layers"][0]["layers"][1]["objects"][0].update(x=24, y=24)  # the wall tile (1, 1)
    p = write(tmp_path, "wall.tmj", doc)
    with pytest.raises(ConfigError, match=r"not navigable on floor 'ground'") as e:
        read_tiled_building(p)
    assert str(p) in str(e.value) and "object 7 'stairs', its position" in str(e.value.field)


def test_duplicate_links_groups_and_stray_layers(tmp_path: Path) -> None:
    doc = _two_floor_doc()
    twin = dict(doc["layers"][0]["layers"][1]["objects"][0], id=8)
    doc["layers"][0]["layers"][1]["objects"].append(twin)
    with pytest.raises(ConfigError, match="duplicate link name 'stairs'.*object 7") as e:
        read_tiled_building(write(tmp_path, "dup.tmj", doc))
    assert "object 8" in str(e.value)
    doc = _two_floor_doc()
    doc["layers"][1]["name"] = "ground"
    with pytest.raises(FormatError, match="two floors are called 'ground'"):
        read_tiled_building(write(tmp_path, "dupfloor.tmj", doc))
    doc = _two_floor_doc()
    doc["layers"].append(tile_layer("loose", np.ones((3, 4), np.int64), 9))
    with pytest.raises(FormatError, match="layer 'loose' lies outside the group layers"):
        read_tiled_building(write(tmp_path, "stray.tmj", doc))
    doc = _two_floor_doc()
    doc["layers"][1]["properties"] = [_prop("floorY", "high")]
    with pytest.raises(FormatError, match="group layer 'upper', property 'floorY'"):
        read_tiled_building(write(tmp_path, "y.tmj", doc))
    doc = _two_floor_doc()
    doc["layers"][0]["layers"][1]["objects"][0].update(point=False, polyline=[{"x": 0, "y": 0},
                                                                              {"x": 5, "y": 0}])
    with pytest.raises(FormatError, match="object 7 'stairs': a link must be a point"):
        read_tiled_building(write(tmp_path, "line.tmj", doc))


def test_floors_count_against_the_cell_limit(tmp_path: Path) -> None:
    doc = _two_floor_doc()
    doc["layers"] += [group(f"empty{i}", [], 100 + i) for i in range(4)]
    p = write(tmp_path, "tall.tmj", doc)
    with pytest.raises(FormatError, match="6 floors of 4 x 3 cells = 72 cells, more than the "
                       "70-cell limit"):
        read_tiled_building(p, max_cells=70)
    b = read_tiled_building(p, max_cells=72)
    assert b.floor_ys.tolist() == [0.0, 4.5, 6.0, 9.0, 12.0, 15.0]  # i * 3 where no floorY
    assert not b.grid("empty0").walkable.any()


def test_the_documented_example(tmp_path: Path) -> None:
    doc = (Path(__file__).parents[2] / "docs" / "tiled.md").read_text(encoding="utf-8")
    text = doc.split("A small example map, `tower.tmj`")[1].split("```json\n")[1].split("```")[0]
    (tmp_path / "tower.tmj").write_text(text)
    tiles = dict(TILESET, name="tiles")
    del tiles["firstgid"]
    write(tmp_path, "tiles.tsj", tiles)
    b = read_tiled_building(tmp_path / "tower.tmj")
    assert b.floor_names == ("ground", "upper") and b.floor_ys.tolist() == [0.0, 4.5]
    lk = b.links[0]
    assert (lk.name, lk.start.point, lk.end.point) == ("stairs", (3.5, 2.5), (0.5, 0.5))
    assert "≈ 5.77 m" in doc and round(lk.cost, 2) == 5.77
    assert FloorSearch(b).path((0, 0, 0), (1, 1, 2)).status == Status.FOUND


def test_exported_from_navkit_formats() -> None:
    assert navkit.formats.read_tiled_floors is read_tiled_floors
    assert navkit.formats.read_ldtk_floors is read_ldtk_floors
    assert navkit.formats.FloorMaps is FloorMaps
    assert {"read_tiled_floors", "read_ldtk_floors", "FloorMaps"} <= set(navkit.formats.__all__)


def test_floor_maps_record_and_explain(tmp_path: Path) -> None:
    p = write(tmp_path, "two.tmj", _two_floor_doc(cost=2.0, capacity=3))
    fm = read_tiled_floors(p)
    assert fm.names == ("ground", "upper") and fm.floor_ys == (0.0, 4.5) and fm.name == "two"
    assert fm.links == ({"name": "stairs", "kind": "stairs",
                         "from": {"floor": "ground", "point": [3.5, 2.5]},
                         "to": {"floor": "upper", "point": [0.5, 0.5]},
                         "cost": 2.0, "capacity": 3},)
    assert fm.sources[0].where == "object layer 'ground/links', object 7 'stairs'"
    assert [g.floor_y for g in fm.grids] == [0.0, 4.5]
    e = fm.explain(ConfigError("bad", field="links[0].capacity"))
    assert (e.field, e.path) == ("object layer 'ground/links', object 7 'stairs', property "
                                 "'capacity'", str(p))
    e = fm.explain(ConfigError("bad", field="grids[1]"))
    assert (e.field, e.path) == ("grids[1]", str(p))


# -------------------------------------------------------------------- LDtk
GS = 8  # LDtk grid size, pixels
VALUES = [{"value": 1, "identifier": "wall"}, {"value": 2, "identifier": "mud"}]


def _field(name: str, value: Any) -> dict[str, Any]:
    return {"__identifier": name, "__value": value, "__type": "Auto"}


def _level(name: str, csv: np.ndarray, entities: list[dict[str, Any]],
           floor_y: float | None = None) -> dict[str, Any]:
    h, w = csv.shape
    return {"identifier": name, "uid": 0, "pxWid": w * GS, "pxHei": h * GS,
            "fieldInstances": [] if floor_y is None else [_field("floorY", floor_y)],
            "layerInstances": [
                {"__identifier": "Entities", "__type": "Entities", "__cWid": w, "__cHei": h,
                 "__gridSize": GS, "__pxTotalOffsetX": 0, "__pxTotalOffsetY": 0,
                 "entityInstances": entities},
                {"__identifier": "Grid", "__type": "IntGrid", "__cWid": w, "__cHei": h,
                 "__gridSize": GS, "layerDefUid": 1, "__pxTotalOffsetX": 0,
                 "__pxTotalOffsetY": 0, "intGridCsv": [int(v) for v in csv.ravel()],
                 "entityInstances": []}]}


def _entity(ident: str, x: float, y: float, w: int = GS, h: int = GS, **fields: Any
            ) -> dict[str, Any]:
    return {"__identifier": ident, "__pivot": [0, 0], "px": [x, y], "width": w, "height": h,
            "fieldInstances": [_field(k, v) for k, v in fields.items()]}


def _ldtk(levels: list[dict[str, Any]]) -> dict[str, Any]:
    return {"jsonVersion": "1.5.3",
            "defs": {"layers": [{"__type": "IntGrid", "identifier": "Grid", "uid": 1,
                                 "gridSize": GS, "intGridValues": VALUES}]},
            "levels": levels}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), cell_size=st.sampled_from([1.0, 0.25]))
def test_ldtk_levels_links_and_paths_against_oracles(seed: int, cell_size: float) -> None:
    rng = np.random.default_rng(seed)
    F = int(rng.integers(1, 4))
    W, H = int(rng.integers(2, 8)), int(rng.integers(2, 7))
    names = [f"Floor_{f}" for f in range(F)]
    csvs = [rng.choice([0, 0, 0, 1, 2], size=(H, W)) for _ in range(F)]
    ys = [float(rng.uniform(0, 9)) if rng.random() < 0.5 else None for _ in range(F)]
    ents: list[list[dict[str, Any]]] = [[] for _ in range(F)]
    links, starts = [], []
    for i in range(int(rng.integers(0, 5))):
        fa, fb = (int(v) for v in rng.integers(F, size=2))
        fa_free, fb_free = np.argwhere(csvs[fa] != 1), np.argwhere(csvs[fb] != 1)
        if not len(fa_free) or not len(fb_free):
            continue
        za, xa = fa_free[int(rng.integers(len(fa_free)))]
        zb, xb = fb_free[int(rng.integers(len(fb_free)))]
        # an entity of 2 x 2 px somewhere in cell (xa, za): its centre is the start
        x0 = int(xa) * GS + int(rng.integers(0, GS - 2))
        y0 = int(za) * GS + int(rng.integers(0, GS - 2))
        tx, ty = float(xb * GS + rng.uniform(0, GS - 0.01)), float(zb * GS + rng.uniform(0, GS))
        fields: dict[str, Any] = {"kind": "ramp", "to": names[fb], "toX": tx, "toY": ty,
                                  "name": f"link {i}"}
        if fa == fb and (xa, za) == (xb, zb):
            fields["cost"] = 2.0
        ents[fa].append(_entity(str(rng.choice(["Link", "link", "LINK"])), x0, y0, 2, 2,
                                **fields))
        link: dict[str, Any] = {"name": f"link {i}", "kind": "ramp",
                                "from": {"floor": names[fa],
                                         "point": [(x0 + 1) / GS * cell_size,
                                                   (y0 + 1) / GS * cell_size]},
                                "to": {"floor": names[fb],
                                       "point": [tx / GS * cell_size, ty / GS * cell_size]}}
        if "cost" in fields:
            link["cost"] = fields["cost"]
        links.append(link)
        starts.append((fa, int(xa), int(za)))
    doc = _ldtk([_level(n, c, e, y) for n, c, e, y in zip(names, csvs, ents, ys, strict=True)])
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "tower.ldtk"
        p.write_text(json.dumps(doc))
        b = read_ldtk_building(p, cell_size=cell_size, weights={"mud": 4})
        oracle = [read_ldtk(p, level=n, cell_size=cell_size, weights={"mud": 4}) for n in names]
    heights = [3.0 * f if y is None else y for f, y in enumerate(ys)]
    assert b.floor_names == tuple(names) and b.floor_ys.tolist() == heights
    for f, og in enumerate(oracle):
        np.testing.assert_array_equal(b.grid(f).walkable, og.walkable)
        np.testing.assert_array_equal(b.grid(f).weight_array(), og.weight_array())
    assert sorted(b.link_names) == sorted(lk["name"] for lk in links)
    W_, D = b.width, b.depth
    for i, lk in enumerate(links):
        k = b.link_index(lk["name"])
        f, x, z = starts[i]
        assert b.link_end_nodes()[k, 0] == (f * D + z) * W_ + x
        fb = names.index(lk["to"]["floor"])
        xb, zb = (int(v // cell_size) for v in lk["to"]["point"])
        assert b.link_end_nodes()[k, 1] == (fb * D + zb) * W_ + xb
    obj = {"floors": [{"name": n, "floorY": y} for n, y in zip(names, heights, strict=True)],
           "links": links}
    _check_search(b, oracle, obj, rng)


def _tower(**fields: Any) -> dict[str, Any]:
    csv = np.zeros((3, 4), np.int64)
    csv[1, 1] = 1
    f: dict[str, Any] = {"kind": "elevator", "to": "Roof", "toX": 4, "toY": 4, "name": "lift"}
    f.update(fields)
    f = {k: v for k, v in f.items() if v is not None}
    return _ldtk([_level("Lobby", csv, [_entity("Link", 24, 16, **f)]),
                  _level("Roof", csv.copy(), [], floor_y=10.0)])


def test_ldtk_by_hand(tmp_path: Path) -> None:
    p = write(tmp_path, "t.ldtk", _tower())
    b = read_ldtk_building(p)
    assert b.floor_names == ("Lobby", "Roof") and b.floor_ys.tolist() == [0.0, 10.0]
    lk = b.links[0]
    assert (lk.name, lk.kind, lk.start.point, lk.end.point) == ("lift", "elevator",
                                                                (3.5, 2.5), (0.5, 0.5))
    assert b.link_end_nodes().tolist() == [[2 * 4 + 3, 12 + 0]]
    assert read_ldtk_building(p, levels=["Roof"]).links == ()


@pytest.mark.parametrize("fields, error, match", [
    ({"to": "Attic"}, ConfigError, r"no level called 'Attic' \(known: 'Lobby', 'Roof'\)"),
    ({"toX": 12, "toY": 12}, ConfigError, r"not navigable on floor 'Roof'"),
    ({"kind": 4}, FormatError, r"field 'kind': expected a string"),
    ({"capacity": 0}, ConfigError, r"capacity"),
])
def test_ldtk_hostile_links_name_file_level_and_entity(tmp_path: Path, fields: dict[str, Any],
                                                       error: type, match: str) -> None:
    p = write(tmp_path, "bad.ldtk", _tower(**fields))
    with pytest.raises(error, match=match) as e:
        read_ldtk_building(p)
    text = str(e.value)
    assert str(p) in text and "level 'Lobby', entity 'Link' #0 'lift'" in text, text


def test_ldtk_hostile_fields_and_limits(tmp_path: Path) -> None:
    doc = _tower()
    doc["levels"][1]["fieldInstances"] = 7
    with pytest.raises(FormatError, match="level 'Roof'.fieldInstances: expected a list"):
        read_ldtk_building(write(tmp_path, "f.ldtk", doc))
    doc = _tower()
    doc["levels"][1]["fieldInstances"] = [_field("floorY", "high")]
    with pytest.raises(FormatError, match="level 'Roof', field 'floorY'"):
        read_ldtk_building(write(tmp_path, "y.ldtk", doc))
    with pytest.raises(FormatError, match="2 levels of 4 x 3 cells = 24 cells"):
        read_ldtk_building(write(tmp_path, "t.ldtk", _tower()), max_cells=20)
    doc = _tower()
    doc["levels"][1]["identifier"] = "Lobby"
    with pytest.raises(FormatError, match="two levels are called 'Lobby'"):
        read_ldtk_building(write(tmp_path, "d.ldtk", doc))


def test_ldtk_levels_of_different_sizes(tmp_path: Path) -> None:
    doc = _tower()
    doc["levels"].append(_level("Shed", np.zeros((2, 4), np.int64), []))
    p = write(tmp_path, "sizes.ldtk", doc)
    with pytest.raises(ConfigError, match=r"4 x 2 cells of 8 px, but level 'Lobby' has 4 x 3"
                       ) as e:
        read_ldtk_building(p)
    assert e.value.field == "level 'Shed'" and e.value.path == str(p)
    assert read_ldtk_building(p, levels=["Shed"]).floor_names == ("Shed",)
    with pytest.raises(ConfigError, match="did you mean 'Shed'") as e:
        read_ldtk_building(p, levels=["Shd"])
    assert e.value.field == "levels[0]"

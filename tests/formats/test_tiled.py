"""Tiled import (navkit.formats.tiled): fixtures written by hand after the TMX / JSON
format docs, checked cell by cell against arrays written by hand here."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import struct
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from navkit.errors import ConfigError, FormatError, MissingExtraError
from navkit.formats import load_grid
from navkit.formats.tiled import TiledMapping, read_tiled, read_tiled_level
from tests.reference import dijkstra_costs

FIX = Path(__file__).parent / "fixtures"

# basic.tmx / basic.tmj (6 x 4 tiles of 16 px): see the fixture for what each tile is.
# Tiles alone: Walls layer blocks (0,0) and (5,3) by name, fence (5,0) by layer property,
# (5,1) has no tile, pillar (ellipse), water (walkable=false), crate (triangle whose edge
# passes through the centre) block; corner's shape misses the centre.
TILES_ONLY = np.array([
    [0, 1, 1, 1, 1, 0],
    [1, 1, 1, 1, 1, 0],
    [1, 0, 1, 0, 0, 1],
    [1, 1, 1, 1, 1, 0],
], dtype=bool)
TILES_WEIGHTS = np.array([
    [1, 1, 1, 1, 1, 1],
    [1, 3, 3, 5, 3, 1],   # grass 3, mud cost 4.6 -> 5, decor grass over floor at (4, 1)
    [1, 1, 1, 1, 1, 1],
    [5, 1, 1, 1, 1, 1],   # decor mud over floor
])
# With objects: statue obstacle blocks (2,0); door_east opens (5,1); bridge area opens
# (3,2) with weight 2; door1 opens (4,2).
WITH_OBJECTS = np.array([
    [0, 1, 0, 1, 1, 0],
    [1, 1, 1, 1, 1, 1],
    [1, 0, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 0],
], dtype=bool)
OBJECT_WEIGHTS = TILES_WEIGHTS.copy()
OBJECT_WEIGHTS[2, 3] = 2
NO_OBJECTS: dict[str, Any] = dict(door_classes=(), door_prefix="", obstacle_classes=(),
                                  area_classes=())

# infinite.tmx / .tmj: chunks of 2 x 2 at tiles (-2,-2), (0,-2), (0,0); (-2,0) missing.
INFINITE = np.array([
    [1, 1, 1, 1],
    [1, 0, 1, 1],
    [0, 0, 0, 1],
    [0, 0, 1, 1],
], dtype=bool)


@pytest.mark.parametrize("name", ["basic.tmx", "basic.tmj"])
def test_basic_map_cell_by_cell(name: str) -> None:
    g = load_grid(FIX / name)
    np.testing.assert_array_equal(g.walkable, WITH_OBJECTS)
    w = OBJECT_WEIGHTS.copy()
    w[~WITH_OBJECTS] = 1
    np.testing.assert_array_equal(g.weight_array(), w)
    assert (g.cell_size, g.min_x, g.min_z) == (1.0, 0.0, 0.0)
    assert g.meta["layers"] == ["ground", "decor", "Walls", "fence"]
    assert g.meta["doors"] == [
        {"name": "door1", "cells": [4, 2, 5, 3], "rect": [4.0, 2.0, 5.0, 3.0]},
        {"name": "door_east", "cells": [5, 1, 6, 2], "rect": [5.0, 1.0, 6.0, 2.0]},
    ]
    assert g.meta["obstacles"] == ["statue"] and g.meta["areas"] == ["bridge"]


@pytest.mark.parametrize("name", ["basic.tmx", "basic.tmj"])
def test_tiles_only_mapping(name: str) -> None:
    g = read_tiled(FIX / name, **NO_OBJECTS)
    np.testing.assert_array_equal(g.walkable, TILES_ONLY)
    w = TILES_WEIGHTS.copy()
    w[~TILES_ONLY] = 1
    np.testing.assert_array_equal(g.weight_array(), w)
    assert g.meta["doors"] == []


def test_mapping_options() -> None:
    # no collision shapes: pillar (1,2) and crate (4,2) walk; Walls layer no longer blocks
    g = read_tiled(FIX / "basic.tmj", mapping=TiledMapping(collision_shapes=False,
                                                           blocking_layers=()), **NO_OBJECTS)
    exp = TILES_ONLY.copy()
    exp[2, 1] = exp[2, 4] = True
    exp[0, 0] = exp[3, 5] = True
    np.testing.assert_array_equal(g.walkable, exp)
    g = read_tiled(FIX / "basic.tmx", cell_size=0.5)
    assert g.cell_size == 0.5 and g.meta["doors"][0]["rect"] == [2.0, 1.0, 2.5, 1.5]
    with pytest.raises(ConfigError, match="bogus"):
        read_tiled(FIX / "basic.tmx", bogus=1)
    with pytest.raises(ConfigError, match="cell_size"):
        read_tiled(FIX / "basic.tmx", cell_size=-1)


@pytest.mark.parametrize("name", ["infinite.tmx", "infinite.tmj"])
def test_infinite_map(name: str) -> None:
    g = load_grid(FIX / name)
    np.testing.assert_array_equal(g.walkable, INFINITE)
    exp_w = np.ones((4, 4), dtype=np.int32)
    exp_w[3, 3] = 3
    np.testing.assert_array_equal(g.weight_array(), exp_w)
    assert g.meta["infinite"] is True and g.meta["tile_offset"] == [-2, -2]
    assert g.meta["doors"] == [{"name": "gate", "cells": [0, 0, 1, 1],
                                "rect": [0.0, 0.0, 1.0, 1.0]}]


def test_level_doors_toggle() -> None:
    level = read_tiled_level(FIX / "basic.tmj")
    g = level.grid
    assert g.shape == (8, 10) and (g.min_x, g.min_z) == (-2.0, -2.0)
    np.testing.assert_array_equal(g.walkable[2:-2, 2:-2], WITH_OBJECTS)
    assert not g.walkable[:2].any() and not g.walkable[:, -2:].any()
    w = OBJECT_WEIGHTS.copy()
    w[~WITH_OBJECTS] = 1
    np.testing.assert_array_equal(g.weight_array()[2:-2, 2:-2], w)
    assert level.set_area_available("door1", False)
    closed = WITH_OBJECTS.copy()
    closed[2, 4] = False
    np.testing.assert_array_equal(level.grid.walkable[2:-2, 2:-2], closed)
    level.set_area_available("door_east", False)
    closed[1, 5] = False
    np.testing.assert_array_equal(level.grid.walkable[2:-2, 2:-2], closed)
    assert "statue" in level.obstacle_names
    # a world point keeps its cell: world (4.5, 2.5) is tile (4, 2) in both grids
    assert level.grid.world_to_cell(4.5, 2.5) == (6, 4)


def test_level_obstacle_padding_inflates() -> None:
    level = read_tiled_level(FIX / "basic.tmj", agent_radius=0.5)
    # cells whose centre is within 0.5 m of the statue triangle are blocked (shapely oracle)
    from shapely import Point, Polygon

    tri = Polygon([(2, 0), (3, 0), (2.5, 1)])
    for z in range(4):
        for x in range(6):
            near = tri.distance(Point(x + 0.5, z + 0.5)) <= 0.5
            if near:
                assert not level.grid.walkable[z + 2, x + 2], (x, z)


def test_group_layers(tmp_path: Path) -> None:
    doc = json.loads((FIX / "basic.tmj").read_text())
    walls = doc["layers"].pop(2)
    doc["layers"].insert(2, {"id": 9, "name": "structure", "type": "group", "opacity": 1,
                             "visible": True, "x": 0, "y": 0, "layers": [walls]})
    shutil.copy(FIX / "terrain.tsj", tmp_path / "terrain.tsj")
    p = tmp_path / "grouped.tmj"
    p.write_text(json.dumps(doc))
    g = read_tiled(p, **NO_OBJECTS)
    np.testing.assert_array_equal(g.walkable, TILES_ONLY)
    assert g.meta["layers"] == ["ground", "decor", "structure/Walls", "fence"]


# ------------------------------------------------------------ generated maps
_TSX = """<tileset name="t" tilewidth="16" tileheight="16" tilecount="4" columns="4">
 <tile id="1"><properties><property name="blocked" type="bool" value="true"/></properties></tile>
 <tile id="2"><objectgroup>{shape}</objectgroup></tile>
 <tile id="3"><properties><property name="weight" type="int" value="{weight}"/></properties></tile>
</tileset>"""


def _tmx(w: int, h: int, data: str, *, encoding: str = "csv", compression: str = "",
         tileset: str | None = None, extra: str = "", attrs: str = "") -> str:
    comp = f' compression="{compression}"' if compression else ""
    ts = tileset if tileset is not None else _TSX.format(shape="", weight=2).replace(
        "<tileset ", '<tileset firstgid="1" ')
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<map version="1.10" tiledversion="1.10.2" '
            f'orientation="orthogonal" renderorder="right-down" width="{w}" height="{h}" '
            f'tilewidth="16" tileheight="16" infinite="0" nextlayerid="2" nextobjectid="1"'
            f'{attrs}>\n{ts}\n<layer id="1" name="ground" width="{w}" height="{h}">'
            f'<data encoding="{encoding}"{comp}>{data}</data></layer>{extra}</map>\n')


def _encode(gids: np.ndarray, how: str) -> tuple[str, str, str]:
    flat = [int(v) for v in gids.ravel()]
    if how == "csv":
        return ",".join(map(str, flat)), "csv", ""
    raw = struct.pack(f"<{len(flat)}I", *flat)
    if how == "zlib":
        raw = zlib.compress(raw)
    elif how == "gzip":
        raw = gzip.compress(raw, mtime=0)
    return base64.b64encode(raw).decode(), "base64", "" if how == "base64" else how


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.sampled_from(["csv", "base64", "zlib", "gzip"]),
       st.data())
def test_encodings_against_source_array(w: int, h: int, how: str, data: st.DataObject) -> None:
    gids = np.array(data.draw(st.lists(st.sampled_from([0, 1, 2, 4, 1 | 0x80000000]),
                                       min_size=w * h, max_size=w * h))).reshape(h, w)
    text, enc, comp = _encode(gids, how)
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "enc.tmx"
        p.write_text(_tmx(w, h, text, encoding=enc, compression=comp))
        g = read_tiled(p)
        base = gids & 0x0FFFFFFF
        np.testing.assert_array_equal(g.walkable, (base != 0) & (base != 2))
        exp_w = np.where(base == 4, 2, 1)
        exp_w[~g.walkable] = 1
        np.testing.assert_array_equal(g.weight_array(), exp_w)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 16), st.integers(0, 16), st.integers(1, 16), st.integers(1, 16),
       st.sampled_from(["rect", "ellipse", "polygon"]))
def test_collision_shape_at_cell_centre(x: int, y: int, w: int, h: int, kind: str) -> None:
    if kind == "rect":
        shape = f'<object id="1" x="{x}" y="{y}" width="{w}" height="{h}"/>'
        inside = x <= 8 <= x + w and y <= 8 <= y + h
    elif kind == "ellipse":
        shape = f'<object id="1" x="{x}" y="{y}" width="{w}" height="{h}"><ellipse/></object>'
        # centre well inside or well outside (the ellipse is a 256-gon)
        v = ((8 - x - w / 2) / (w / 2)) ** 2 + ((8 - y - h / 2) / (h / 2)) ** 2
        if abs(v - 1) < 0.01:
            return
        inside = v <= 1
    else:  # right triangle (x, y), (x + w, y), (x, y + h)
        shape = (f'<object id="1" x="{x}" y="{y}"><polygon points="0,0 {w},0 0,{h}"/>'
                 "</object>")
        inside = 8 >= x and 8 >= y and (8 - x) * h + (8 - y) * w <= w * h
    ts = _TSX.format(shape=shape, weight=2).replace("<tileset ", '<tileset firstgid="1" ')
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "shape.tmx"
        p.write_text(_tmx(2, 1, "3,1", tileset=ts))
        g = read_tiled(p)
        assert g.walkable.tolist() == [[not inside, True]]


@settings(max_examples=25, deadline=None)
@given(st.sets(st.tuples(st.integers(-3, 2), st.integers(-3, 2)), min_size=1, max_size=5),
       st.data())
def test_infinite_chunks_against_brute_force(spots: set[tuple[int, int]],
                                              data: st.DataObject) -> None:
    doc = json.loads((FIX / "infinite.tmj").read_text())
    chunks, cells = [], {}
    for cx, cy in sorted(spots):
        vals = data.draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=4, max_size=4))
        chunks.append({"data": vals, "width": 2, "height": 2, "x": 2 * cx, "y": 2 * cy})
        for i, v in enumerate(vals):
            cells[(2 * cx + i % 2, 2 * cy + i // 2)] = v
    doc["layers"] = [dict(doc["layers"][0], chunks=chunks)]
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "inf.tmj"
        p.write_text(json.dumps(doc))
        g = read_tiled(p)
    x0 = min(2 * cx for cx, _ in spots)
    y0 = min(2 * cy for _, cy in spots)
    x1 = max(2 * cx + 2 for cx, _ in spots)
    y1 = max(2 * cy + 2 for _, cy in spots)
    assert g.shape == (y1 - y0, x1 - x0) and g.meta["tile_offset"] == [x0, y0]
    for z in range(y1 - y0):
        for x in range(x1 - x0):
            v = cells.get((x + x0, z + y0), 0)  # missing chunk: no tile
            assert g.walkable[z, x] == (v in (1, 3)), (x, z, v)


# ------------------------------------------------------------------ the CLI
def _invoke(*args: str | Path) -> Any:
    from navkit.cli import app

    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args])


def test_cli_info_and_path() -> None:
    r = _invoke("info", FIX / "basic.tmj", "--json")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["width"] == 6 and info["depth"] == 4
    # (0,1) -> (5,2): the only way east in row 2 is through the opened door cells
    r = _invoke("path", FIX / "basic.tmx", "--cells", "--from", "0,1", "--to", "5,2",
                "--no-smooth", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["found"] is True
    # the hand-written grid and weights, through scipy's Dijkstra (tests/reference.py)
    w = OBJECT_WEIGHTS.copy()
    w[~WITH_OBJECTS] = 1
    oracle = dijkstra_costs(WITH_OBJECTS, w, (0, 1))
    assert out["costInt"] == int(oracle[2, 5])
    # unreachable from the blocked corner cell
    r = _invoke("path", FIX / "basic.tmx", "--cells", "--from", "0,1", "--to", "0,0", "--json")
    assert r.exit_code != 0


# ------------------------------------------------------------------- errors
def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _copy(tmp_path: Path, name: str, old: str = "", new: str = "") -> Path:
    text = (FIX / name).read_text()
    if old:
        assert old in text
        text = text.replace(old, new)
    for ts in ("terrain.tsx", "terrain.tsj"):
        shutil.copy(FIX / ts, tmp_path / ts)
    return _write(tmp_path, name, text)


def test_malformed_xml_and_json(tmp_path: Path) -> None:
    p = _write(tmp_path, "bad.tmx", "<map>\n<layer>\n</map>")
    with pytest.raises(FormatError, match="malformed XML") as e:
        load_grid(p)
    assert e.value.path == str(p) and e.value.line == 3
    p = _write(tmp_path, "bad.tmj", '{"type": "map",\n "width": 3,,}')
    with pytest.raises(FormatError, match="malformed JSON") as e:
        load_grid(p)
    assert e.value.line == 2


def test_missing_and_bad_tileset(tmp_path: Path) -> None:
    p = _copy(tmp_path, "basic.tmx", "terrain.tsx", "nowhere.tsx")
    with pytest.raises(FormatError, match="tileset 'nowhere.tsx': no such file"):
        load_grid(p)
    p = _copy(tmp_path, "basic.tmj", "terrain.tsj", "nowhere.tsj")
    with pytest.raises(FormatError, match="nowhere.tsj"):
        load_grid(p)
    p = _copy(tmp_path, "basic.tmx")
    (tmp_path / "terrain.tsx").write_text("<tileset><tile></tileset>")
    with pytest.raises(FormatError, match="malformed XML") as e:
        load_grid(p)
    assert e.value.path == str(tmp_path / "terrain.tsx")


def test_zstd_and_unknown_encoding(tmp_path: Path) -> None:
    p = _copy(tmp_path, "basic.tmx", 'compression="zlib"', 'compression="zstd"')
    with pytest.raises(FormatError, match="layer 'decor': zstd"):
        load_grid(p)
    p = _copy(tmp_path, "basic.tmj", '"compression":"zlib"', '"compression":"zstd"')
    with pytest.raises(FormatError, match="layer 'decor': zstd"):
        load_grid(p)
    p = _copy(tmp_path, "basic.tmx", 'encoding="csv"', 'encoding="hex"')
    with pytest.raises(FormatError, match="layer 'ground': unsupported encoding"):
        load_grid(p)
    p = _copy(tmp_path, "basic.tmx", "eJxjYCAOMBOQZ8EhDgABaAAI", "eJxjYCAOMBOQ")
    with pytest.raises(FormatError, match="layer 'decor': bad zlib"):
        load_grid(p)


def test_chunks_need_an_infinite_map(tmp_path: Path) -> None:
    p = _copy(tmp_path, "infinite.tmx", 'infinite="1"', 'infinite="0"')
    with pytest.raises(FormatError, match="layer 'ground': chunked layer data"):
        load_grid(p)
    p = _copy(tmp_path, "infinite.tmj", '"infinite":true', '"infinite":false')
    with pytest.raises(FormatError, match="layer 'ground': chunked layer data"):
        load_grid(p)


def test_wrong_tile_count(tmp_path: Path) -> None:
    p = _copy(tmp_path, "basic.tmx", "1,1,1,1,1,1\n</data>", "1,1,1,1,1\n</data>")
    with pytest.raises(FormatError, match="layer 'ground': layer data holds 23 tiles, expected 24"):
        load_grid(p)


def test_gid_with_no_tileset(tmp_path: Path) -> None:
    p = _copy(tmp_path, "basic.tmx", "1,5,6,7,8,1", "1,5,6,7,99,1")
    with pytest.raises(FormatError, match="layer 'ground': tile gid 99 belongs to no tileset"):
        load_grid(p)


def test_bad_weight_names_layer_tile_and_property(tmp_path: Path) -> None:
    p = _copy(tmp_path, "basic.tmx")
    ts = tmp_path / "terrain.tsx"
    ts.write_text(ts.read_text().replace('type="int" value="3"', 'type="int" value="70000"'))
    with pytest.raises(FormatError) as e:
        load_grid(p)
    msg = str(e.value)
    for part in ("basic.tmx", "layer 'ground'", "tile 2 (gid 3)", "property 'weight'", "70000"):
        assert part in msg
    ts.write_text((FIX / "terrain.tsx").read_text().replace(
        '<property name="weight" type="int" value="3"/>',
        '<property name="weight" value="heavy"/>'))
    with pytest.raises(FormatError, match="property 'weight': expected a number"):
        load_grid(p)
    ts.write_text((FIX / "terrain.tsx").read_text().replace(
        '<property name="walkable" type="bool" value="false"/>',
        '<property name="walkable" value="maybe"/>'))
    with pytest.raises(FormatError, match="tile 6 .*property 'walkable': expected true or false"):
        load_grid(p)


def test_max_cells(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="exceeds the limit of 10 cells"):
        load_grid(FIX / "basic.tmx", max_cells=10)
    with pytest.raises(FormatError, match="union of chunks"):
        load_grid(FIX / "infinite.tmj", max_cells=15)
    assert load_grid(FIX / "infinite.tmj", max_cells=16).size == 16
    # a huge declared map is refused before anything is decoded or allocated
    p = _copy(tmp_path, "basic.tmj", '"width":6\n', '"width":600000000\n')
    with pytest.raises(FormatError, match="exceeds the limit"):
        load_grid(p)


def test_orientation_door_shape_duplicates(tmp_path: Path) -> None:
    p = _copy(tmp_path, "basic.tmx", 'orientation="orthogonal"', 'orientation="isometric"')
    with pytest.raises(FormatError, match="orientation 'isometric'"):
        load_grid(p)
    p = _copy(tmp_path, "basic.tmx", 'name="door1" type="door" x="64" y="32" width="16" '
              'height="16"/>', 'name="door1" type="door" x="64" y="32"><polygon '
              'points="0,0 16,0 0,16"/></object>')
    with pytest.raises(FormatError, match="object 1 'door1': a door must be a rectangle"):
        load_grid(p)
    p = _copy(tmp_path, "basic.tmx", 'name="door_east"', 'name="door1"')
    with pytest.raises(FormatError, match="duplicate name 'door1'"):
        load_grid(p)


def test_parser_errors_are_wrapped(tmp_path: Path) -> None:
    # nextobjectid is required by pytiled-parser; its KeyError must come back as FormatError
    p = _copy(tmp_path, "basic.tmj", '"nextobjectid":5,', "")
    with pytest.raises(FormatError, match="pytiled-parser could not read the map"):
        load_grid(p)


def test_missing_parser_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pytiled_parser", None)
    with pytest.raises(MissingExtraError, match=r"navkit\[tiled\]"):
        load_grid(FIX / "basic.tmx")


def test_bundled_example() -> None:
    from navkit.examples import __file__ as ex

    g = load_grid(Path(ex).parent / "dungeon.tmj")
    assert g.walkable.any() and g.meta["doors"]

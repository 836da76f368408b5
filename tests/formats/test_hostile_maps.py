"""Hostile Tiled and LDtk maps: the files they name, their polygons and their numbers.

Each test pins a defect a hostile-input campaign found. A map may name other
files (Tiled tilesets and object templates, LDtk external levels); navkit read
them wherever they pointed (absolute paths, ``../`` escapes, symlinks,
``/proc/self/environ``) and whatever their size (a 3 GB file read whole). A
self-intersecting object polygon of 3,000 points took over 40 s in
``shapely.make_valid``. Numbers past Python's limits escaped as ``ValueError``
or ``OverflowError``. Big files are sparse here: nothing large is written.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from navkit.errors import ConfigError, FormatError
from navkit.formats import load_grid
from navkit.formats.ldtk import read_ldtk
from navkit.formats.tiled import read_tiled, read_tiled_level

FIX = Path(__file__).parent / "fixtures"

pytest.importorskip("pytiled_parser")


def tmx(tmp_path: Path, source: str = "terrain.tsx", objects: str = "") -> Path:
    """basic.tmx in ``tmp_path / "maps"`` naming the tileset ``source``."""
    d = tmp_path / "maps"
    d.mkdir(exist_ok=True)
    text = (FIX / "basic.tmx").read_text().replace('source="terrain.tsx"', f'source="{source}"')
    if objects:
        text = text.replace(' <objectgroup id="5" name="objects">',
                            ' <objectgroup id="5" name="objects">\n' + objects)
    p = d / "m.tmx"
    p.write_text(text)
    return p


def outside(tmp_path: Path) -> Path:
    """A valid tileset in a folder beside the map's."""
    d = tmp_path / "elsewhere"
    d.mkdir(exist_ok=True)
    shutil.copy(FIX / "terrain.tsx", d / "terrain.tsx")
    return d / "terrain.tsx"


# ---------------------------------------------------------------- containment
@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink", "proc"])
def test_tileset_outside_the_maps_folder_is_refused(tmp_path: Path, how: str):
    ts = outside(tmp_path)
    if how == "absolute":
        ref = str(ts)
    elif how == "dotdot":
        ref = "../elsewhere/terrain.tsx"
    elif how == "symlink":
        (tmp_path / "maps").mkdir()
        os.symlink(ts, tmp_path / "maps" / "link.tsx")
        ref = "link.tsx"
    else:
        ref = "/proc/self/environ"
    p = tmx(tmp_path, ref)
    with pytest.raises(FormatError, match="outside the map's folder") as ei:
        read_tiled(p)
    assert ei.value.path == str(p)
    assert "allow_dirs" in str(ei.value)
    if how != "proc":  # the caller may allow the folder explicitly
        g = read_tiled(p, allow_dirs=[tmp_path / "elsewhere"])
        assert g.walkable.shape == (4, 6)
        assert load_grid(p, allow_dirs=str(tmp_path / "elsewhere")).walkable.shape == (4, 6)


def test_symlinked_folder_inside_the_map_folder_is_followed_to_its_target(tmp_path: Path):
    ts = outside(tmp_path)
    (tmp_path / "maps").mkdir()
    os.symlink(ts.parent, tmp_path / "maps" / "sub")
    p = tmx(tmp_path, "sub/terrain.tsx")
    with pytest.raises(FormatError, match="outside the map's folder"):
        read_tiled(p)
    # ../ after a symlinked folder goes up from the link's target, as the OS does
    p = tmx(tmp_path, "sub/../maps/terrain.tsx")
    with pytest.raises(FormatError, match="outside|no such file"):
        read_tiled(p)


def test_tileset_inside_the_maps_folder_still_reads(tmp_path: Path):
    d = tmp_path / "maps" / "tiles"
    d.mkdir(parents=True)
    shutil.copy(FIX / "terrain.tsx", d / "terrain.tsx")
    g = read_tiled(tmx(tmp_path, "tiles/./terrain.tsx"))
    assert g.walkable.shape == (4, 6)


TEMPLATE = """<?xml version="1.0" encoding="UTF-8"?>
<template>
 <object type="obstacle" width="16" height="16"/>
</template>
"""


def test_object_templates_and_their_tilesets_are_contained(tmp_path: Path):
    ts = outside(tmp_path)
    (tmp_path / "elsewhere" / "t.tx").write_text(TEMPLATE)
    obj = '  <object id="9" template="../elsewhere/t.tx" x="0" y="48"/>\n'
    p = tmx(tmp_path, objects=obj)
    shutil.copy(FIX / "terrain.tsx", p.parent / "terrain.tsx")
    with pytest.raises(FormatError, match="template '../elsewhere/t.tx' resolves outside"):
        read_tiled(p)
    assert not read_tiled(p, allow_dirs=[ts.parent]).walkable[3, 0]  # the obstacle blocks
    # a template inside whose tileset points outside
    (p.parent / "t.tx").write_text(TEMPLATE.replace(
        "<template>", f'<template>\n <tileset firstgid="1" source="{ts}"/>'))
    p = tmx(tmp_path, objects=obj.replace("../elsewhere/t.tx", "t.tx"))
    with pytest.raises(FormatError, match="tileset .* resolves outside"):
        read_tiled(p)


def test_json_maps_are_contained_too(tmp_path: Path):
    d = tmp_path / "maps"
    d.mkdir()
    doc = json.loads((FIX / "basic.tmj").read_text())
    doc["tilesets"][0]["source"] = "../elsewhere/terrain.tsj"
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(FIX / "terrain.tsj", tmp_path / "elsewhere" / "terrain.tsj")
    (d / "m.tmj").write_text(json.dumps(doc))
    with pytest.raises(FormatError, match="outside the map's folder"):
        read_tiled(d / "m.tmj")
    assert read_tiled(d / "m.tmj", allow_dirs=tmp_path / "elsewhere").walkable.shape == (4, 6)
    doc["tilesets"][0]["source"] = "terrain.tsj"
    shutil.copy(FIX / "terrain.tsj", d / "terrain.tsj")
    doc["layers"].append({"type": "objectgroup", "name": "more", "id": 99, "objects": [
        {"id": 50, "template": "/etc/passwd", "x": 0, "y": 0}]})
    (d / "m.tmj").write_text(json.dumps(doc))
    with pytest.raises(FormatError, match="template '/etc/passwd' resolves outside"):
        read_tiled(d / "m.tmj")


def test_bad_allow_dirs_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError) as ei:
        read_tiled(tmx(tmp_path), allow_dirs=[3])
    assert ei.value.field == "allow_dirs"


# ---------------------------------------------------------------- size caps
def test_huge_tileset_is_refused_without_reading_it(tmp_path: Path):
    p = tmx(tmp_path, "big.tsx")
    with open(p.parent / "big.tsx", "wb") as f:
        f.truncate(3 << 30)  # sparse: 3 GB declared, nothing written
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(FormatError, match="more than the") as ei:
            read_tiled(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ei.value.path == str(p) and time.perf_counter() - t0 < 5
    assert peak < 16 << 20


def test_fifo_tileset_is_refused_without_blocking(tmp_path: Path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    p = tmx(tmp_path, "pipe.tsx")
    os.mkfifo(p.parent / "pipe.tsx")
    with pytest.raises(FormatError, match="not a regular file"):
        read_tiled(p)


def test_a_template_read_once_per_object_is_capped(tmp_path: Path):
    p = tmx(tmp_path)
    shutil.copy(FIX / "terrain.tsx", p.parent / "terrain.tsx")
    big = TEMPLATE.replace("<template>", "<template>\n<!--" + "x" * (1 << 20) + "-->")
    (p.parent / "t.tx").write_text(big)
    objs = "".join(f'  <object id="{100 + i}" template="t.tx" x="0" y="48"/>\n'
                   for i in range(80))  # 80 MB of template reads for pytiled-parser
    p = tmx(tmp_path, objects=objs)
    with pytest.raises(FormatError, match="read once per object"):
        read_tiled(p)


# ---------------------------------------------------------------- polygons
def polygon_object(points: np.ndarray, cls: str = "obstacle") -> str:
    pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in points)
    return (f'  <object id="77" name="poly" type="{cls}" x="0" y="0">\n'
            f'   <polygon points="{pts}"/>\n  </object>\n')


def test_self_intersecting_polygon_of_3000_points_is_refused_quickly(tmp_path: Path):
    rng = np.random.default_rng(0)
    p = tmx(tmp_path, objects=polygon_object(rng.random((3000, 2)) * 96))
    shutil.copy(FIX / "terrain.tsx", p.parent / "terrain.tsx")
    t0 = time.perf_counter()
    with pytest.raises(FormatError, match="crosses itself more than") as ei:
        read_tiled(p)
    assert time.perf_counter() - t0 < 10
    assert "object 77 'poly'" in str(ei.value)
    with pytest.raises(FormatError, match="crosses itself"):
        read_tiled_level(p)


def test_simple_and_slightly_twisted_polygons_still_read(tmp_path: Path):
    ang = np.linspace(0, 2 * np.pi, 5000, endpoint=False)  # a fine circle: simple
    circle = np.c_[48 + 20 * np.cos(ang), 32 + 20 * np.sin(ang)]
    p = tmx(tmp_path, objects=polygon_object(circle))
    shutil.copy(FIX / "terrain.tsx", p.parent / "terrain.tsx")
    assert not read_tiled(p).walkable[2, 3]  # the centre is blocked
    bowtie = np.array([[0, 0], [32, 32], [32, 0], [0, 32]], dtype=float) + [48, 0]
    p = tmx(tmp_path, objects=polygon_object(bowtie))
    g = read_tiled(p)  # repaired by make_valid, as before
    assert not g.walkable[0, 3]


def test_polygon_with_infinite_coordinates_is_a_format_error(tmp_path: Path):
    p = tmx(tmp_path, objects=polygon_object(np.array([[0, 0], [16, 0], [8, 16]]))
            .replace('x="0" y="0"', 'x="1e400" y="0"'))
    shutil.copy(FIX / "terrain.tsx", p.parent / "terrain.tsx")
    with pytest.raises(FormatError, match="finite"):
        read_tiled(p)


# ---------------------------------------------------------------- numbers
def test_json_width_of_5000_digits_is_a_format_error(tmp_path: Path):
    doc = (FIX / "basic.tmj").read_text()
    d = tmp_path / "maps"
    d.mkdir()
    shutil.copy(FIX / "terrain.tsj", d / "terrain.tsj")
    (d / "w.tmj").write_text(doc.replace('"width":6', '"width":' + "9" * 5000, 1)
                             .replace('"width": 6', '"width": ' + "9" * 5000, 1))
    with pytest.raises(FormatError) as ei:
        read_tiled(d / "w.tmj")
    assert ei.value.path == str(d / "w.tmj")


# ---------------------------------------------------------------- LDtk
def ldtk_project(tmp_path: Path, rel: str) -> Path:
    """dungeon.ldtk with its first level saved separately at ``rel``."""
    doc = json.loads((FIX / "dungeon.ldtk").read_text())
    lv = doc["levels"][0]
    d = tmp_path / "proj"
    d.mkdir(exist_ok=True)
    level = {"layerInstances": lv.pop("layerInstances")}
    lv["layerInstances"] = None
    lv["externalRelPath"] = rel
    (d / "level.ldtkl").write_text(json.dumps(level))
    (tmp_path / "level.ldtkl").write_text(json.dumps(level))
    p = d / "p.ldtk"
    p.write_text(json.dumps(doc))
    return p


def test_ldtk_external_levels_are_contained_and_capped(tmp_path: Path):
    p = ldtk_project(tmp_path, "level.ldtkl")
    inside = read_ldtk(p)
    for rel in ("../level.ldtkl", str(tmp_path / "level.ldtkl"), "/proc/self/environ"):
        p = ldtk_project(tmp_path, rel)
        with pytest.raises(FormatError, match="outside the map's folder") as ei:
            read_ldtk(p)
        assert ei.value.path == str(p)
    p = ldtk_project(tmp_path, "../level.ldtkl")
    assert np.array_equal(read_ldtk(p, allow_dirs=[tmp_path]).walkable, inside.walkable)
    p = ldtk_project(tmp_path, "huge.ldtkl")
    with open(p.parent / "huge.ldtkl", "wb") as f:
        f.truncate(3 << 30)
    with pytest.raises(FormatError, match="more than the"):
        read_ldtk(p)


def test_ldtk_int_grid_value_of_10_to_the_30_is_a_format_error(tmp_path: Path):
    doc = json.loads((FIX / "dungeon.ldtk").read_text())
    for la in doc["levels"][0]["layerInstances"]:
        if la.get("__type") == "IntGrid":
            la["intGridCsv"][0] = 10**30
            break
    p = tmp_path / "big.ldtk"
    p.write_text(json.dumps(doc))
    with pytest.raises(FormatError, match="out of range") as ei:
        read_ldtk(p)
    assert ei.value.path == str(p)

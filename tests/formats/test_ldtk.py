"""LDtk import (navkit.formats.ldtk): a project written by hand after ldtk.io/json,
checked cell by cell against arrays written by hand here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navkit.errors import ConfigError, FormatError
from navkit.formats import load_grid
from navkit.formats.ldtk import read_ldtk

FIX = Path(__file__).parent / "fixtures"
PROJECT = FIX / "dungeon.ldtk"

# Entrance: Collisions 1 = wall (blocked), 2 = water, 3 = unnamed (walkable, not 1);
# Terrain 1 = mud; the Door entity (pivot 0.5,1 at px 40,64) covers cell (2, 3).
ENTRANCE = np.array([
    [0, 0, 1, 0, 0],
    [0, 1, 1, 1, 0],
    [0, 1, 1, 1, 0],
    [0, 0, 1, 0, 0],
], dtype=bool)


def test_entrance_cell_by_cell() -> None:
    g = load_grid(PROJECT)
    np.testing.assert_array_equal(g.walkable, ENTRANCE)
    assert g.weights is None
    assert g.meta["level"] == "Entrance" and g.meta["layers"] == ["Collisions", "Terrain"]
    assert g.meta["doors"] == [{"name": "front", "cells": [2, 3, 3, 4],
                                "rect": [2.0, 3.0, 3.0, 4.0]}]
    assert g.name == "dungeon:Entrance"


def test_weights_and_options() -> None:
    g = read_ldtk(PROJECT, weights={"mud": 4, "Water": 2}, cell_size=0.5)
    exp = np.ones((4, 5), dtype=np.int32)
    exp[1, 1] = exp[1, 2] = 4
    exp[2, 1] = 2
    np.testing.assert_array_equal(g.weight_array(), exp)
    assert g.cell_size == 0.5 and g.meta["doors"][0]["rect"] == [1.0, 1.5, 1.5, 2.0]
    # water blocked too; door entities ignored
    g = read_ldtk(PROJECT, blocked=("wall", "water"), door_entities=())
    exp_w = ENTRANCE.copy()
    exp_w[2, 1] = False
    exp_w[3, 2] = False
    np.testing.assert_array_equal(g.walkable, exp_w)


def test_level_by_name_and_index() -> None:
    a = read_ldtk(PROJECT, level="Cellar")
    b = load_grid(PROJECT, level=1)
    for g in (a, b):
        assert g.walkable.tolist() == [[True, False, True], [True, True, True]]
    with pytest.raises(ConfigError, match="did you mean 'Cellar'") as e:
        read_ldtk(PROJECT, level="Celar")
    assert e.value.field == "level"
    with pytest.raises(ConfigError, match="out of range"):
        read_ldtk(PROJECT, level=2)


def _project(layers: list[dict[str, Any]], values: list[dict[str, Any]] | None = None
             ) -> dict[str, Any]:
    return {
        "jsonVersion": "1.5.3",
        "defs": {"layers": [{"__type": "IntGrid", "identifier": "Grid", "uid": 1,
                             "gridSize": 8, "intGridValues": values or []}]},
        "levels": [{"identifier": "L", "uid": 0, "layerInstances": layers}],
    }


def _grid_layer(w: int, h: int, csv: list[int]) -> dict[str, Any]:
    return {"__identifier": "Grid", "__type": "IntGrid", "__cWid": w, "__cHei": h,
            "__gridSize": 8, "layerDefUid": 1, "pxOffsetX": 0, "pxOffsetY": 0,
            "intGridCsv": csv, "entityInstances": []}


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.data())
def test_generated_intgrid_against_source(w: int, h: int, data: st.DataObject) -> None:
    import tempfile

    csv = data.draw(st.lists(st.integers(0, 4), min_size=w * h, max_size=w * h))
    values = [{"value": 2, "identifier": "solid"}, {"value": 3, "identifier": "grass"}]
    doc = _project([_grid_layer(w, h, csv)], values)
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "gen.ldtk"
        p.write_text(json.dumps(doc))
        g = read_ldtk(p, weights={"grass": 7})
    src = np.array(csv).reshape(h, w)
    walk = (src != 1) & (src != 2)  # 1 unnamed, 2 'solid'
    np.testing.assert_array_equal(g.walkable, walk)
    exp = np.where((src == 3) & walk, 7, 1)
    np.testing.assert_array_equal(g.weight_array(), exp)


def _write(tmp_path: Path, doc: Any, name: str = "p.ldtk") -> Path:
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="malformed JSON") as e:
        load_grid(_write(tmp_path, '{"levels": [\n,]}'))
    assert e.value.line == 2
    with pytest.raises(FormatError, match="not an LDtk project"):
        load_grid(_write(tmp_path, {"foo": 1}))
    bad = _project([_grid_layer(3, 2, [0, 0, 0, 0, 0])])
    with pytest.raises(FormatError, match="level 'L', layer 'Grid'.intGridCsv: holds 5 values, "
                                          "expected 3 x 2 = 6"):
        load_grid(_write(tmp_path, bad))
    bad = _project([_grid_layer(3, 1, [0, 0, 0])])
    bad["levels"][0]["layerInstances"][0]["intGridCsv"][1] = "x"
    with pytest.raises(FormatError, match="expected integers"):
        load_grid(_write(tmp_path, bad))
    bad = _project([{"__identifier": "E", "__type": "Entities", "entityInstances": []}])
    with pytest.raises(FormatError, match="has no IntGrid layer"):
        load_grid(_write(tmp_path, bad))
    bad = _project([_grid_layer(3, 1, [0, 0, 0])])
    bad["levels"][0]["layerInstances"][0]["__cWid"] = "3"
    with pytest.raises(FormatError, match="__cWid: expected an integer"):
        load_grid(_write(tmp_path, bad))
    with pytest.raises(FormatError, match="exceeds the limit of 10 cells"):
        load_grid(PROJECT, max_cells=10)
    with pytest.raises(ConfigError) as ce:
        read_ldtk(PROJECT, weights={"mud": 0})
    assert ce.value.field == "weights['mud']"
    with pytest.raises(ConfigError) as ce:
        read_ldtk(PROJECT, blocked="wall")
    assert ce.value.field == "blocked"
    with pytest.raises(FormatError, match="no such file"):
        load_grid(tmp_path / "missing.ldtk")


def test_external_level_file(tmp_path: Path) -> None:
    layer = _grid_layer(2, 1, [1, 0])
    doc = _project([])
    doc["levels"][0]["layerInstances"] = None
    doc["levels"][0]["externalRelPath"] = "p/L.ldtkl"
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "L.ldtkl").write_text(json.dumps({"identifier": "L",
                                                       "layerInstances": [layer]}))
    g = load_grid(_write(tmp_path, doc))
    assert g.walkable.tolist() == [[False, True]]

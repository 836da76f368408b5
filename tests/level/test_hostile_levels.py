"""Hostile level configs: every bad JSON file or value is a navkit error, and edits are atomic.

Each test pins one defect found by a hostile-input campaign: integers too long
for a float or for Python's int-string limit, nesting deep enough to exhaust
the recursion limit, lengths and coordinates whose arithmetic overflows (a
grid extent of infinity, an obstacle polygon rasterized as nothing), a
missing file, a grid too large for the reader limit, and edits that failed
halfway.
"""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import navkit.formats
from navkit._kernels.geometry import MAX_COORD
from navkit.errors import ConfigError, FormatError
from navkit.level import (
    LevelConfig,
    NavLevel,
    ObstacleConfig,
    block_obstacles,
    load_level,
    make_obstacle,
    parse_level,
    rasterize,
    read_level,
)
from navkit.level import runtime as level_runtime
from navkit.query.navmap import NavMap

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def _level(**top):
    """A 10 m square room with one crate (fresh lists each call)."""
    return {
        "cellSize": 0.5,
        "agentRadius": 0.0,
        "objectPadding": 0.0,
        "areas": [{"name": "room", "polygon": copy.deepcopy(SQUARE)}],
        "obstacles": [{"name": "crate", "polygon": [[3, 3], [4, 3], [4, 4], [3, 4]]}],
        **top,
    }


def _write(tmp_path, text, name="level.json"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _raises_config(path, field, **kw):
    with pytest.raises(ConfigError) as ei:
        read_level(path, **kw)
    assert ei.value.field == field and ei.value.path == str(path), str(ei.value)
    assert len(str(ei.value)) < 400  # long numbers are not quoted whole
    return ei.value


# ------------------------------------------------------------------------- JSON numbers
@pytest.mark.parametrize("digits", [400, 5000])
def test_json_integers_too_long_for_a_float_or_int_parsing(tmp_path, digits):
    big = "9" * digits
    base = json.dumps(_level())
    for key, field in (("cellSize", "cellSize"), ("agentRadius", "agentRadius"),
                       ("maxCells", "maxCells")):
        path = _write(tmp_path, base[:-1] + f', "{key}": {big}}}')
        _raises_config(path, field)
    text = json.dumps(_level()).replace("[10, 0]", f"[{big}, 0]", 1)
    _raises_config(_write(tmp_path, text), "areas[0].polygon[1]")
    weighted = _level()
    weighted["areas"][0]["weight"] = 7
    text = json.dumps(weighted).replace('"weight": 7', f'"weight": {big}')
    _raises_config(_write(tmp_path, text), "areas[0].weight")


def test_python_integers_too_large_for_a_float():
    for kw, field in (({"cell_size": 10**400}, "cellSize"), ({"max_cells": 10**5000}, "maxCells")):
        with pytest.raises(ConfigError) as ei:
            LevelConfig(areas=parse_level(_level()).areas, **kw)
        assert ei.value.field == field and len(str(ei.value)) < 400


@pytest.mark.parametrize("opener, closer", [("[", "]"), ('{"a": ', "}")])
def test_deeply_nested_json_is_a_format_error(tmp_path, opener, closer):
    depth = 100_000
    path = _write(tmp_path, '{"areas":\n' + opener * depth + "1" + closer * depth + "}")
    with pytest.raises(FormatError, match="nested") as ei:
        read_level(path)
    assert ei.value.path == str(path) and ei.value.line == 2


# ------------------------------------------------------------------------- lengths and extent
@pytest.mark.parametrize(
    "key, value",
    [
        ("agentRadius", 1.7e308),
        ("objectPadding", 1e308),
        ("boundaryPadding", 1e308),
        ("agentRadius", 2 * MAX_COORD),
        ("cellSize", 5e-324),
        ("cellSize", 1e-300),
        ("cellSize", 1e300),
    ],
)
def test_lengths_whose_extent_overflows(tmp_path, key, value):
    path = _write(tmp_path, json.dumps(_level(**{key: value})))
    err = _raises_config(path, key)
    assert "inf" not in str(err)  # the range named is [0, 1e+15] or [1e-09, 1e+09]


def test_lengths_at_the_limits_are_accepted():
    cfg = parse_level(_level(cellSize=1e9, agentRadius=1e12, boundaryPadding=1e12))
    geo = cfg.grid_geometry()
    assert math.isfinite(geo.min_x) and geo.width == geo.depth < 2100
    with pytest.raises(ConfigError) as ei:  # accepted, but its grid is too large
        parse_level(_level(cellSize=1e9, agentRadius=MAX_COORD))
    assert ei.value.field == "maxCells"


# ------------------------------------------------------------------------- polygon coordinates
@pytest.mark.parametrize("value", [1e200, -1e16, 2 * MAX_COORD, math.inf, math.nan])
def test_polygon_coordinates_are_bounded(value):
    cases = [
        (["areas", 0, "polygon", 2], "areas[0].polygon[2]"),
        (["obstacles", 0, "polygon", 1], "obstacles[0].polygon[1]"),
    ]
    for keys, field in cases:
        cfg = _level()
        cfg["areas"][0]["holes"] = [[[4, 4], [6, 4], [6, 6]]]
        cur = cfg
        for k in keys:
            cur = cur[k]
        cur[0] = value
        with pytest.raises(ConfigError) as ei:
            parse_level(cfg)
        assert ei.value.field == field, str(ei.value)
    cfg = _level()
    cfg["areas"][0]["holes"] = [[[4, 4], [6, 4], [6, value]]]
    with pytest.raises(ConfigError) as ei:
        parse_level(cfg)
    assert ei.value.field == "areas[0].holes[0][2]"
    with pytest.raises(ConfigError) as ei:
        make_obstacle("huge", [[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5], [value, 0]])
    assert ei.value.field == "polygon[5]"


def test_block_obstacles_validates_unchecked_obstacles():
    geo = parse_level(_level()).grid_geometry()
    walk = np.ones((geo.depth, geo.width), dtype=bool)
    raw = ObstacleConfig("huge", ((-1e200, -1e200), (1e200, -1e200), (0.0, 1e200)))
    with pytest.raises(ConfigError) as ei:
        block_obstacles(walk, geo, [make_obstacle("ok", [[1, 1], [2, 1], [2, 2]]), raw], 0.0)
    assert ei.value.field == "obstacles[1].polygon[0]"
    assert walk.all()  # nothing painted before the error


def test_obstacle_at_max_coord_covering_the_map_blocks_every_cell():
    cfg = _level()
    cfg["obstacles"] = [{"name": "sky", "polygon": [[-MAX_COORD, -MAX_COORD],
                                                   [MAX_COORD, -MAX_COORD], [0, MAX_COORD]]}]
    assert not rasterize(parse_level(cfg)).walkable.any()
    level = NavLevel(parse_level(_level()))
    level.add_obstacle("sky", [[-MAX_COORD, -MAX_COORD], [MAX_COORD, -MAX_COORD], [0, MAX_COORD]])
    assert not level.grid.walkable.any()


# ------------------------------------------------------------------------- atomic edits
def _snapshot(level):
    grid = level.grid
    return level.version, level.obstacle_names, level.config, grid.walkable.copy()


def _unchanged(level, before):
    version, names, config, walk = before
    assert level.version == version and level.obstacle_names == names
    assert level.config == config
    assert np.array_equal(level.grid.walkable, walk)


def test_add_obstacle_with_huge_coordinates_changes_nothing():
    level = NavLevel(parse_level(_level()))
    before = _snapshot(level)
    with pytest.raises(ConfigError) as ei:
        level.add_obstacle("huge", [[-1e200, -1e200], [1e200, -1e200], [0, 1e200]])
    assert ei.value.field == "polygon[0]"
    _unchanged(level, before)


def test_edits_failing_while_computing_change_nothing(monkeypatch):
    level = NavLevel(parse_level(_level(areas=[
        {"name": "room", "polygon": SQUARE},
        {"name": "door", "available": False, "polygon": [[10, 4], [12, 4], [12, 6], [10, 6]]},
    ])))
    before = _snapshot(level)

    def broken(*args):
        raise ConfigError("window computation failed", field="test")

    monkeypatch.setattr(level_runtime, "_clamp", broken)
    edits = [
        lambda: level.add_obstacle("box", [[6, 6], [7, 6], [7, 7]]),
        lambda: level.remove_obstacle("crate"),
        lambda: level.set_area_available("door", True),
    ]
    for edit in edits:
        with pytest.raises(ConfigError, match="window computation failed"):
            edit()
        _unchanged(level, before)
    monkeypatch.undo()
    level.set_area_available("door", True)
    assert level.version == before[0] + 1


def test_failed_validation_edits_change_nothing():
    level = NavLevel(parse_level(_level()))
    before = _snapshot(level)
    for edit, field in [
        (lambda: level.add_obstacle("crate", [[6, 6], [7, 6], [7, 7]]), "name"),
        (lambda: level.add_obstacle("bad", [[6, 6], [7, 6], [7, math.nan]]), "polygon[2]"),
        (lambda: level.remove_obstacle("nothing"), "name"),
        (lambda: level.set_area_available("room", "yes"), "available"),
        (lambda: level.set_area_available("nowhere", True), "name"),
    ]:
        with pytest.raises(ConfigError) as ei:
            edit()
        assert ei.value.field == field
        _unchanged(level, before)


# ------------------------------------------------------------------------- missing files
@pytest.mark.parametrize("load", [read_level, load_level, NavLevel.from_file, NavMap.load,
                                  navkit.formats.load_grid])
def test_missing_level_file_is_a_format_error(tmp_path, load):
    path = tmp_path / "nowhere.json"
    with pytest.raises(FormatError, match="no such file") as ei:
        load(path)
    assert ei.value.path == str(path)
    with pytest.raises(FormatError, match="directory"):
        load(tmp_path)


# ------------------------------------------------------------------------- cell limit
def test_level_max_cells_keyword_on_every_loader(tmp_path):
    path = _write(tmp_path, json.dumps(_level()))  # 10 m / 0.5 m + margin: 24 x 24 cells
    cells = parse_level(_level()).grid_geometry().size
    for load in (read_level, load_level, NavLevel.from_file, navkit.formats.load_grid):
        load(path, max_cells=cells)
        with pytest.raises(ConfigError) as ei:
            load(path, max_cells=cells - 1)
        assert ei.value.field == "maxCells" and ei.value.path == str(path)
        assert f"{cells} cells" in str(ei.value) and "max_cells=" in str(ei.value)
        with pytest.raises(ConfigError) as ei:
            load(path, max_cells=0)
        assert ei.value.field == "max_cells"


def test_file_max_cells_cannot_exceed_the_reader_limit(tmp_path):
    # a file may not lift itself past navkit.formats.MAX_CELLS by declaring maxCells
    big = _level(cellSize=1e-3, maxCells=2**30)  # 10 m at 1 mm: about 10**8 cells
    path = _write(tmp_path, json.dumps(big))
    with pytest.raises(ConfigError) as ei:
        read_level(path)
    assert ei.value.field == "maxCells" and "navkit.formats.MAX_CELLS" in str(ei.value)
    assert str(navkit.formats.MAX_CELLS) in str(ei.value)
    assert read_level(path, max_cells=2**28).max_cells == 2**28  # validated, not rasterized
    with pytest.raises(ConfigError):
        NavLevel(big)  # a decoded dict goes through the same reader limit
    # a small cellSize override is checked against the limit too
    path = _write(tmp_path, json.dumps(_level(maxCells=2**30)), "small.json")
    with pytest.raises(ConfigError) as ei:
        load_level(path, cell_size=1e-3)
    assert "navkit.formats.MAX_CELLS" in str(ei.value)

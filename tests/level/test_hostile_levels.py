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

import pytest

import navkit.formats
from navkit._kernels.geometry import MAX_COORD
from navkit.errors import ConfigError, FormatError
from navkit.level import (
    LevelConfig,
    NavLevel,
    load_level,
    parse_level,
    read_level,
)
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
    _raises_config(path, key)


def test_lengths_at_the_limits_are_accepted():
    cfg = parse_level(_level(cellSize=1e9, agentRadius=1e12, boundaryPadding=1e12))
    geo = cfg.grid_geometry()
    assert math.isfinite(geo.min_x) and geo.width == geo.depth < 2100
    with pytest.raises(ConfigError) as ei:  # accepted, but its grid is too large
        parse_level(_level(cellSize=1e9, agentRadius=MAX_COORD))
    assert ei.value.field == "maxCells"


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

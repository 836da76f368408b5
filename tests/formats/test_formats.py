"""Readers and writers in navkit.formats: real Moving AI data, round trips, malformed input."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from navkit.errors import ConfigError, FormatError, QueryError
from navkit.formats import (
    READ_EXTENSIONS,
    ScenarioSet,
    check_scenarios_fit,
    find_map_for,
    from_array,
    load_grid,
    parse_map,
    parse_scenarios,
    parse_text_grid,
    read_image,
    read_map,
    read_npy,
    read_scenarios,
    read_text_grid,
    save_grid,
    write_image,
    write_map,
    write_npz,
    write_text_grid,
)
from navkit.formats.image import image_values
from navkit.formats.textgrid import format_text_grid
from navkit.grid import MAX_WEIGHT, NavGrid

# --------------------------------------------------------------------------- data tables
# (width, height) from SOURCES.md / README.md of the Moving AI data directory
MAP_SIZES = {
    "8room_000.map": (512, 512),
    "AR0011SR.map": (512, 512),
    "Aftershock.map": (512, 512),
    "Berlin_0_256.map": (256, 256),
    "NewYork_0_1024.map": (1024, 1024),
    "arena.map": (49, 49),
    "brc202d.map": (530, 481),
    "den520d.map": (256, 257),
    "ht_chantry.map": (162, 141),
    "lt_gallowstemplar_n.map": (251, 180),
    "maze-32-32-2.map": (32, 32),
    "maze512-1-0.map": (512, 512),
    "orz900d.map": (1491, 656),
    "random-32-32-20.map": (32, 32),
    "random512-10-0.map": (512, 512),
    "random512-40-0.map": (512, 512),
    "room-64-64-8.map": (64, 64),
    "w_woundedcoast.map": (642, 578),
    "warehouse-10-20-10-2-1.map": (161, 63),
}

# scenario file -> (non-blank scenario lines, map file)
SCEN_COUNTS = {
    "8room_000.map.scen": (1940, "8room_000.map"),
    "AR0011SR.map.scen": (2180, "AR0011SR.map"),
    "Aftershock.map.scen": (1920, "Aftershock.map"),
    "Berlin_0_256.map.scen": (930, "Berlin_0_256.map"),
    "NewYork_0_1024.map.scen": (3670, "NewYork_0_1024.map"),
    "arena.map.scen": (160, "arena.map"),
    "brc202d.map.scen": (2519, "brc202d.map"),
    "den520d-even-1.scen": (860, "den520d.map"),
    "den520d-random-1.scen": (1000, "den520d.map"),
    "den520d.map.scen": (888, "den520d.map"),
    "ht_chantry.map.scen": (470, "ht_chantry.map"),
    "lt_gallowstemplar_n.map.scen": (620, "lt_gallowstemplar_n.map"),
    "maze-32-32-2-random-1.scen": (333, "maze-32-32-2.map"),
    "maze512-1-0.map.scen": (11960, "maze512-1-0.map"),
    "orz900d.map.scen": (7015, "orz900d.map"),
    "random-32-32-20-random-1.scen": (409, "random-32-32-20.map"),
    "random512-10-0.map.scen": (1670, "random512-10-0.map"),
    "random512-40-0.map.scen": (3060, "random512-40-0.map"),
    "room-64-64-8-random-1.scen": (1000, "room-64-64-8.map"),
    "w_woundedcoast.map.scen": (2140, "w_woundedcoast.map"),
    "warehouse-10-20-10-2-1-random-1.scen": (1000, "warehouse-10-20-10-2-1.map"),
}

SMALL_MAP = "type octile\nheight 3\nwidth 4\nmap\n.@..\nGTS.\n@@.W\n"
SMALL_WALK = [[1, 0, 1, 1], [1, 0, 1, 1], [0, 0, 1, 0]]


def raw_rows(path: Path) -> tuple[int, int, list[str]]:
    """A deliberately naive reading of a .map file: (width, height, rows)."""
    lines = path.read_bytes().decode("ascii").replace("\r\n", "\n").split("\n")
    head = {}
    k = 0
    while lines[k].strip() != "map":
        key, value = lines[k].split()
        head[key] = value
        k += 1
    h, w = int(head["height"]), int(head["width"])
    return w, h, lines[k + 1 : k + 1 + h]


@pytest.fixture(scope="session")
def map_cache(movingai):
    cache: dict[str, NavGrid] = {}

    def get(name: str) -> NavGrid:
        if name not in cache:
            cache[name] = read_map(movingai / name)
        return cache[name]

    return get


def expect_error(exc_info, path: Path, line: int | None) -> None:
    """The FormatError names the file and (if given) the line, in attributes and message."""
    err = exc_info.value
    assert isinstance(err, FormatError)
    assert err.path is not None and Path(err.path).name == path.name
    assert path.name in str(err)
    if line is not None:
        assert err.line == line, str(err)
        assert f"{path.name}:{line}:" in str(err)


# ------------------------------------------------------------------------- Moving AI maps
@pytest.mark.parametrize("name", sorted(MAP_SIZES))
def test_every_map_parses_with_header_size(movingai, map_cache, name):
    grid = map_cache(name)
    w, h, rows = raw_rows(movingai / name)
    assert (w, h) == MAP_SIZES[name]
    assert grid.shape == (h, w)
    assert grid.name == name
    assert (grid.cell_size, grid.min_x, grid.min_z, grid.weights) == (1.0, 0.0, 0.0, None)
    rng = np.random.default_rng(len(name))
    for x, z in zip(rng.integers(0, w, 400), rng.integers(0, h, 400), strict=True):
        assert bool(grid.walkable[z, x]) == (rows[z][x] in ".GS"), (x, z, rows[z][x])


def test_small_maps_every_cell_matches_raw_text(movingai, map_cache):
    for name in ("arena.map", "maze-32-32-2.map", "warehouse-10-20-10-2-1.map"):
        _, _, rows = raw_rows(movingai / name)
        expected = np.array([[c in ".GS" for c in row] for row in rows])
        assert np.array_equal(map_cache(name).walkable, expected)


def test_known_cells(map_cache):
    arena = map_cache("arena.map")
    assert not arena.walkable[0, 0]  # 'T' border
    # first arena.map.scen line: start (1, 11), goal (1, 12) both passable
    assert arena.walkable[11, 1] and arena.walkable[12, 1]


def test_berlin_crlf_without_final_newline(movingai, map_cache, tmp_path):
    raw = (movingai / "Berlin_0_256.map").read_bytes()
    assert b"\r\n" in raw and not raw.endswith(b"\n")
    grid = map_cache("Berlin_0_256.map")
    assert grid.shape == (256, 256)
    lf = tmp_path / "berlin_lf.map"
    lf.write_bytes(raw.replace(b"\r\n", b"\n") + b"\n")
    assert np.array_equal(read_map(lf).walkable, grid.walkable)


@pytest.mark.parametrize(
    "variant",
    [
        SMALL_MAP.replace("\n", "\r\n"),
        SMALL_MAP.rstrip("\n"),
        SMALL_MAP.replace("\n", "\r\n").rstrip("\r\n"),
        SMALL_MAP + "\n\n\n",
        SMALL_MAP.replace("\n", "\r\n") + "\r\n  \r\n",
        SMALL_MAP.replace("\n", "\r"),
        "\ufeff" + SMALL_MAP,
        "WIDTH 4\nType Octile\nHeight 3\nMAP\n.@..\nGTS.\n@@.W\n",
        "type octile\n\nheight 3\nwidth   4\n\nmap\n.@..\nGTS.\n@@.W",
        "height 3\nwidth 4\nmap\n.@..\nGTS.\n@@.W\n",
    ],
    ids=[
        "crlf",
        "no-eol",
        "crlf-no-eol",
        "blank-tail",
        "crlf-blank-tail",
        "cr",
        "bom",
        "order-case",
        "blank-header",
        "no-type",
    ],
)
def test_map_line_ending_and_header_variants(tmp_path, variant):
    lf = tmp_path / "lf.map"
    lf.write_text(SMALL_MAP, newline="")
    other = tmp_path / "variant.map"
    other.write_bytes(variant.encode("utf-8"))
    a, b = read_map(lf), read_map(other)
    assert a.walkable.tolist() == [[bool(v) for v in r] for r in SMALL_WALK]
    assert np.array_equal(a.walkable, b.walkable)


@pytest.mark.parametrize(
    "name", ["arena.map", "Berlin_0_256.map", "den520d.map", "warehouse-10-20-10-2-1.map"]
)
def test_map_round_trip_real(map_cache, tmp_path, name):
    grid = map_cache(name)
    out = tmp_path / name
    write_map(grid, out)
    data = out.read_bytes()
    assert b"\r" not in data and data.endswith(b"\n")
    assert data.startswith(f"type octile\nheight {grid.depth}\nwidth {grid.width}\nmap\n".encode())
    assert np.array_equal(read_map(out).walkable, grid.walkable)


def test_map_round_trip_random(tmp_path):
    rng = np.random.default_rng(7)
    for shape in [(1, 1), (1, 9), (7, 1), (13, 29)]:
        grid = NavGrid(rng.random(shape) < 0.6, weights=rng.integers(1, 5, shape))
        path = tmp_path / "r.map"
        write_map(grid, path)
        back = read_map(path)
        assert np.array_equal(back.walkable, grid.walkable)
        assert back.weights is None  # the format has no weights


# ------------------------------------------------------------------------- Moving AI scens
def nonblank_line_numbers(path: Path) -> list[int]:
    text = path.read_bytes().decode("ascii").replace("\r\n", "\n")
    return [i + 1 for i, line in enumerate(text.split("\n")) if line.strip()]


@pytest.mark.parametrize("name", sorted(SCEN_COUNTS))
def test_every_scen_parses(movingai, map_cache, name):
    count, map_name = SCEN_COUNTS[name]
    path = movingai / name
    scen = read_scenarios(path)
    numbers = nonblank_line_numbers(path)
    assert len(scen) == count == len(numbers) - 1
    assert scen.lines.tolist() == numbers[1:]
    assert scen.version == "1"
    assert scen.path == str(path)
    assert scen.bucket.dtype == scen.start.dtype == scen.lines.dtype == np.int64
    assert scen.optimal.dtype == np.float64
    assert scen.start.shape == scen.goal.shape == (count, 2)
    assert len(scen.map_names) == count
    assert np.all(np.isfinite(scen.optimal)) and np.all(scen.optimal > 0)
    # first and last lines against a naive split of the raw text
    raw = path.read_text().replace("\r\n", "\n").split("\n")
    for k in (0, count - 1):
        fields = raw[scen.lines[k] - 1].split("\t")
        assert scen.bucket[k] == int(fields[0]) and scen.map_names[k] == fields[1]
        assert [scen.map_width[k], scen.map_height[k]] == [int(fields[2]), int(fields[3])]
        assert scen.start[k].tolist() == [int(fields[4]), int(fields[5])]
        assert scen.goal[k].tolist() == [int(fields[6]), int(fields[7])]
        assert scen.optimal[k] == float(fields[8])
    # the map resolves by basename, and every start/goal is on a passable cell
    assert scen.map_basename == map_name
    found = find_map_for(path)
    assert found.name == map_name and found.is_file()
    grid = map_cache(map_name)
    assert (scen.map_width == grid.width).all() and (scen.map_height == grid.depth).all()
    check_scenarios_fit(scen, grid)
    assert grid.walkable[scen.start[:, 1], scen.start[:, 0]].all()
    assert grid.walkable[scen.goal[:, 1], scen.goal[:, 0]].all()


def test_scen_map_field_variants(movingai):
    assert read_scenarios(movingai / "arena.map.scen").map_names[0] == "maps/dao/arena.map"
    assert read_scenarios(movingai / "AR0011SR.map.scen").map_names[0] == "AR0011SR.map"


def test_den520d_scen_ends_with_blank_lines(movingai):
    raw = (movingai / "den520d.map.scen").read_bytes()
    assert raw.endswith(b"\n\n\n")
    assert len(read_scenarios(movingai / "den520d.map.scen")) == 888


def test_legacy_version_1_0_space_separated(movingai, map_cache, tmp_path):
    tab = read_scenarios(movingai / "arena.map.scen")
    lines = (movingai / "arena.map.scen").read_text().splitlines()
    legacy = ["version 1.0"] + [" ".join(line.split("\t")) for line in lines[1:]]
    path = tmp_path / "arena_legacy.map.scen"
    path.write_text("\n".join(legacy) + "\n")
    scen = read_scenarios(path)
    assert scen.version == "1.0"
    assert len(scen) == len(tab) == 160
    for field in ("bucket", "start", "goal", "optimal", "map_width", "map_height", "lines"):
        assert np.array_equal(getattr(scen, field), getattr(tab, field)), field
    assert scen.map_names == tab.map_names
    assert find_map_for(path, movingai) == movingai / "arena.map"
    check_scenarios_fit(scen, map_cache("arena.map"))


def test_legacy_two_decimal_lengths(tmp_path):
    path = tmp_path / "bg.map.scen"
    path.write_text("version 1.0\n0 maps/bgmaps/AR0011SR.map 512 512 10 20 11 21 1.41\n")
    scen = read_scenarios(path)
    assert scen.optimal.tolist() == [1.41] and scen.map_basename == "AR0011SR.map"


def test_scenario_set_helpers(movingai):
    scen = read_scenarios(movingai / "orz900d.map.scen")
    assert np.allclose(scen.tolerance(), 0.005 + 1e-5 * scen.optimal)
    assert scen.tolerance()[np.argmax(scen.optimal)] > 0.005
    sub = scen.subset([0, 5, -1])
    assert isinstance(sub, ScenarioSet) and len(sub) == 3
    assert sub.lines.tolist() == [scen.lines[0], scen.lines[5], scen.lines[-1]]
    assert sub.path == scen.path and sub.version == scen.version
    mask = scen.bucket == 3
    assert len(scen.subset(mask)) == int(mask.sum())
    assert len(scen.subset([])) == 0
    assert scen.subset([]).start.shape == (0, 2)
    with pytest.raises(QueryError):
        scen.subset([len(scen)])
    with pytest.raises(QueryError):
        scen.subset(mask[:-1])
    with pytest.raises(ValueError):
        scen.start[0, 0] = 5  # read-only arrays


def test_map_basename_disagreement(tmp_path):
    path = tmp_path / "mixed.scen"
    path.write_text(
        "version 1\n"
        "0\tmaps/a.map\t4\t4\t0\t0\t1\t1\t1.41421356\n"
        "\n"
        "0\tb.map\t4\t4\t0\t0\t1\t1\t1.41421356\n"
    )
    scen = read_scenarios(path)
    with pytest.raises(FormatError) as ei:
        _ = scen.map_basename
    expect_error(ei, path, 4)
    assert (
        parse_scenarios("version 1\n0\tmaps\\dao\\x.map\t4\t4\t0\t0\t1\t1\t1\n").map_basename
        == "x.map"
    )
    empty = tmp_path / "empty.scen"
    empty.write_text("version 1\n")
    assert len(read_scenarios(empty)) == 0
    with pytest.raises(FormatError):
        _ = read_scenarios(empty).map_basename


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("0\tt.map\t5\t3\t0\t0\t1\t0\t1", "5x3"),  # width mismatch
        ("0\tt.map\t4\t4\t0\t0\t1\t0\t1", "4x4"),  # height mismatch
        ("0\tt.map\t4\t3\t1\t0\t0\t0\t1", "start (1, 0) is on a blocked cell"),
        ("0\tt.map\t4\t3\t0\t0\t3\t2\t4", "goal (3, 2) is on a blocked cell"),
    ],
)
def test_check_scenarios_fit_failures(tmp_path, line, fragment):
    grid = parse_map(SMALL_MAP, name="t.map")
    path = tmp_path / "t.map.scen"
    path.write_text("version 1\n0\tt.map\t4\t3\t0\t0\t2\t0\t2\n" + line + "\n")
    scen = read_scenarios(path)
    with pytest.raises(FormatError, match=fragment.replace("(", r"\(").replace(")", r"\)")) as ei:
        check_scenarios_fit(scen, grid)
    expect_error(ei, path, 3)
    check_scenarios_fit(scen.subset([0]), grid)


def test_find_map_for(tmp_path, movingai):
    scen_dir = tmp_path / "scens"
    scen_dir.mkdir()
    path = scen_dir / "arena.map.scen"
    path.write_bytes((movingai / "arena.map.scen").read_bytes())
    with pytest.raises(FormatError, match="arena.map") as ei:
        find_map_for(path)
    expect_error(ei, path, None)
    assert str(scen_dir / "arena.map") in str(ei.value)
    # map_dir is searched first
    assert find_map_for(path, map_dir=movingai) == movingai / "arena.map"
    # the map field as a path relative to the scen's folder
    (scen_dir / "maps" / "dao").mkdir(parents=True)
    (scen_dir / "maps" / "dao" / "arena.map").write_bytes((movingai / "arena.map").read_bytes())
    assert find_map_for(path) == scen_dir / "maps" / "dao" / "arena.map"
    # next to the scen file beats the relative path; a ScenarioSet works too
    (scen_dir / "arena.map").write_bytes((movingai / "arena.map").read_bytes())
    assert find_map_for(read_scenarios(path)) == scen_dir / "arena.map"


# ------------------------------------------------------------------------- malformed files
MAP_HEAD = "type octile\nheight 2\nwidth 3\nmap\n"
BAD_MAPS = [
    ("bad-char", MAP_HEAD + "...\n.x.\n", 6, "column 2"),
    ("bad-char-crlf", (MAP_HEAD + "...\n..?\n").replace("\n", "\r\n"), 6, "column 3"),
    ("space-in-row", MAP_HEAD + ". .\n...\n", 5, "column 2"),
    ("non-ascii-row", MAP_HEAD + "...\n..\u00e9\n", 6, "got 4 characters"),
    ("short-row", MAP_HEAD + "...\n..\n", 6, "expected 3 characters, got 2"),
    ("long-row", MAP_HEAD + "....\n...\n", 5, "expected 3 characters, got 4"),
    ("too-few-rows", MAP_HEAD + "...\n", 6, "1 of 2 map rows"),
    ("too-few-rows-blank-tail", MAP_HEAD + "...\n\n\n", 6, "blank line"),
    ("extra-row", MAP_HEAD + "...\n...\n...\n", 7, "after the 2 map rows"),
    ("extra-row-after-blank", MAP_HEAD + "...\n...\n\n\n@@@\n", 9, "after the 2 map rows"),
    ("missing-width", "type octile\nheight 2\nmap\n...\n...\n", 3, "'width'"),
    ("missing-height", "type octile\nwidth 3\nmap\n...\n...\n", 3, "'height'"),
    ("missing-map-line", "type octile\nheight 2\nwidth 3\n", 3, "'map'"),
    ("empty-file", "", 1, "'map'"),
    ("height-not-int", "type octile\nheight two\nwidth 3\nmap\n...\n...\n", 2, "height"),
    ("width-zero", "type octile\nheight 2\nwidth 0\nmap\n", 3, "width"),
    ("height-no-value", "type octile\nheight\nwidth 3\nmap\n", 2, "height"),
    ("unknown-key", "type octile\nheight 2\nfoo 1\nwidth 3\nmap\n...\n...\n", 3, "foo"),
    ("octile-corner", "type octile-corner\nheight 2\nwidth 3\nmap\n...\n...\n", 1, "octile-corner"),
    ("duplicate-height", "type octile\nheight 2\nheight 2\nwidth 3\nmap\n", 3, "duplicate"),
    ("bad-utf8-header", "type octile\nheight 2\nwi\udcffdth 3\nmap\n", 3, "UTF-8"),
]


@pytest.mark.parametrize("case, text, line, fragment", BAD_MAPS, ids=[c[0] for c in BAD_MAPS])
def test_malformed_map(tmp_path, case, text, line, fragment):
    path = tmp_path / f"{case}.map"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(FormatError) as ei:
        read_map(path)
    expect_error(ei, path, line)
    assert fragment in str(ei.value)


def test_map_error_names_byte(tmp_path):
    path = tmp_path / "byte.map"
    path.write_bytes(b"type octile\nheight 1\nwidth 3\nmap\n.\x01.\n")
    with pytest.raises(FormatError, match="byte 0x01 at column 2") as ei:
        read_map(path)
    expect_error(ei, path, 5)


SCEN_OK = "0\tm.map\t4\t4\t0\t0\t1\t1\t1.41421356"
BAD_SCENS = [
    ("no-version", SCEN_OK + "\n", 1, "version"),
    ("empty", "", 1, "version"),
    ("blank-only", "\n\n", 1, "version"),
    ("version-2", "version 2\n" + SCEN_OK + "\n", 1, "version 2"),
    ("version-no-number", "version\n" + SCEN_OK + "\n", 1, "version"),
    ("eight-columns", "version 1\n" + SCEN_OK + "\n0\tm.map\t4\t4\t0\t0\t1\t1\n", 3, "got 8"),
    ("ten-columns", "version 1\n" + SCEN_OK + "\t7\n", 2, "got 10"),
    ("non-numeric-x", "version 1\n0\tm.map\t4\t4\ta\t0\t1\t1\t1\n", 2, "start_x"),
    ("float-coord", "version 1\n0\tm.map\t4\t4\t0\t0.5\t1\t1\t1\n", 2, "start_y"),
    ("negative-goal", "version 1\n0\tm.map\t4\t4\t0\t0\t-1\t1\t1\n", 2, "goal_x"),
    (
        "nan-length",
        "version 1\n" + SCEN_OK + "\n0\tm.map\t4\t4\t0\t0\t1\t1\tnan\n",
        3,
        "optimal_length",
    ),
    ("inf-length", "version 1\n0\tm.map\t4\t4\t0\t0\t1\t1\tinf\n", 2, "optimal_length"),
    ("negative-length", "version 1\n0\tm.map\t4\t4\t0\t0\t1\t1\t-2\n", 2, "optimal_length"),
    ("text-length", "version 1\n0\tm.map\t4\t4\t0\t0\t1\t1\tfar\n", 2, "optimal_length"),
    ("float-bucket", "version 1\n1.5\tm.map\t4\t4\t0\t0\t1\t1\t1\n", 2, "bucket"),
    ("zero-width", "version 1\n0\tm.map\t0\t4\t0\t0\t1\t1\t1\n", 2, "map_width"),
    ("start-outside", "version 1\n0\tm.map\t4\t4\t4\t0\t1\t1\t1\n", 2, "outside the declared 4x4"),
    ("goal-outside", "version 1\n0\tm.map\t4\t4\t0\t0\t1\t9\t1\n", 2, "goal (1, 9)"),
    ("empty-map-name", "version 1\n0\t\t4\t4\t0\t0\t1\t1\t1\n", 2, "map"),
    ("after-blank-lines", "version 1\n\n" + SCEN_OK + "\n\n\n0 m.map 4 4 0 0 1 1\n", 6, "got 8"),
    (
        "crlf",
        ("version 1\n" + SCEN_OK + "\n0\tm.map\t4\t4\t0\tz\t1\t1\t1\n").replace("\n", "\r\n"),
        3,
        "start_y",
    ),
    (
        "legacy-bad",
        "version 1.0\n0 m.map 4 4 0 0 1 1 1.41\n0 m.map 4 4 0 0 1 1 x\n",
        3,
        "optimal_length",
    ),
]


@pytest.mark.parametrize("case, text, line, fragment", BAD_SCENS, ids=[c[0] for c in BAD_SCENS])
def test_malformed_scen(tmp_path, case, text, line, fragment):
    path = tmp_path / f"{case}.scen"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(FormatError) as ei:
        read_scenarios(path)
    expect_error(ei, path, line)
    assert fragment in str(ei.value)


TXT_HEAD = "cellSize 0.5\nminX 0.0\nminZ 0.0\ngridWidth 3\ngridDepth 2\n"
WEIGHTED_HEAD = "cellSize 0.5\nweighted 1\ngridWidth 3\ngridDepth 2\n111\n101\nweights\n"
BAD_TXTS = [
    ("missing-width", "cellSize 0.5\ngridDepth 2\n111\n101\n", 3, "gridWidth"),
    ("missing-depth", "cellSize 0.5\ngridWidth 3\n111\n101\n", 3, "gridDepth"),
    ("missing-depth-no-rows", "cellSize 0.5\ngridWidth 3\n", 2, "gridDepth"),
    ("bad-char", TXT_HEAD + "111\n1x1\n", 7, "column 2"),
    ("dot-char", TXT_HEAD + "111\n1.1\n", 7, "column 2"),
    ("short-row", TXT_HEAD + "11\n111\n", 6, "got 2"),
    ("long-row", TXT_HEAD + "111\n1111\n", 7, "got 4"),
    ("too-few-rows", TXT_HEAD + "111\n", 7, "1 of 2 grid rows"),
    ("blank-row", TXT_HEAD + "111\n\n111\n", 7, "blank line"),
    ("extra-row", TXT_HEAD + "111\n111\n111\n", 8, "after the 2 grid rows"),
    ("extra-text", TXT_HEAD + "111\n111\n\nfoo 1\n", 9, "after the 2 grid rows"),
    ("cellsize-zero", "cellSize 0\ngridWidth 3\ngridDepth 2\n111\n101\n", 1, "cellSize"),
    ("cellsize-nan", "gridWidth 3\ncellSize nan\ngridDepth 2\n111\n101\n", 2, "cellSize"),
    ("minx-text", "minX left\ngridWidth 3\ngridDepth 2\n111\n101\n", 1, "minX"),
    ("radius-negative", "agentRadius -0.1\ngridWidth 3\ngridDepth 2\n111\n101\n", 1, "agentRadius"),
    ("width-negative", "gridWidth -3\ngridDepth 2\n111\n101\n", 1, "gridWidth"),
    ("depth-float", "gridWidth 3\ngridDepth 2.0\n111\n101\n", 2, "gridDepth"),
    ("no-value", "cellSize\ngridWidth 3\ngridDepth 2\n111\n101\n", 1, "cellSize"),
    ("two-values", "cellSize 0.4 0.5\ngridWidth 3\ngridDepth 2\n111\n101\n", 1, "cellSize"),
    ("duplicate", "gridWidth 3\ngridWidth 3\ngridDepth 2\n111\n101\n", 2, "duplicate"),
    ("weighted-2", "weighted 2\ngridWidth 3\ngridDepth 2\n111\n101\n", 1, "weighted"),
    ("weighted-no-section", "weighted 1\ngridWidth 3\ngridDepth 2\n111\n101\n", 6, "'weights'"),
    (
        "weighted-wrong-section",
        "weighted 1\ngridWidth 3\ngridDepth 2\n111\n101\nweight\n1 1 1\n",
        6,
        "'weights'",
    ),
    ("weights-short-row", WEIGHTED_HEAD + "1 2 3\n1 1\n", 9, "got 2"),
    ("weights-non-int", WEIGHTED_HEAD + "1 2 3\n1 1.5 1\n", 9, "weight 2"),
    ("weights-zero", WEIGHTED_HEAD + "1 0 3\n1 1 1\n", 8, "weight 2"),
    ("weights-too-big", WEIGHTED_HEAD + f"1 2 3\n1 1 {MAX_WEIGHT + 1}\n", 9, "weight 3"),
    ("weights-too-few-rows", WEIGHTED_HEAD + "1 2 3\n", 9, "1 of 2 weight rows"),
    ("weights-extra-row", WEIGHTED_HEAD + "1 2 3\n1 1 1\n1 1 1\n", 10, "after the 2 weight rows"),
    ("weights-without-header", TXT_HEAD + "111\n101\nweights\n1 1 1\n1 1 1\n", 8, "weighted 1"),
    ("crlf-bad-char", (TXT_HEAD + "111\n121\n").replace("\n", "\r\n"), 7, "column 2"),
]


@pytest.mark.parametrize("case, text, line, fragment", BAD_TXTS, ids=[c[0] for c in BAD_TXTS])
def test_malformed_text_grid(tmp_path, case, text, line, fragment):
    path = tmp_path / f"{case}.txt"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(FormatError) as ei:
        read_text_grid(path)
    expect_error(ei, path, line)
    assert fragment in str(ei.value)


@pytest.mark.parametrize(
    "reader", [read_map, read_scenarios, read_text_grid, read_image, read_npy, load_grid]
)
def test_missing_file(tmp_path, reader):
    path = tmp_path / "nothing_here.map"
    with pytest.raises(FormatError, match="no such file") as ei:
        reader(path)
    expect_error(ei, path, None)


# ------------------------------------------------------------------------- text grids
def test_seed_example_text_grid(tmp_path):
    path = tmp_path / "seed.txt"
    path.write_text(
        "cellSize 0.4\nagentRadius 0.45\nfloorY 0.0\nobjectPadding 0.25\nboundaryPadding 0.0\n"
        "minX -5.0\nminZ -5.0\ngridWidth 4\ngridDepth 3\n1111\n1001\n1101\n"
    )
    grid = read_text_grid(path)
    assert grid.shape == (3, 4) and grid.name == "seed.txt"
    assert (grid.cell_size, grid.agent_radius, grid.floor_y, grid.min_x, grid.min_z) == (
        0.4,
        0.45,
        0.0,
        -5.0,
        -5.0,
    )
    assert grid.meta == {"objectPadding": 0.25, "boundaryPadding": 0.0}
    assert grid.walkable.astype(int).tolist() == [[1, 1, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1]]
    # row index is z: cell (x=2, z=1) is blocked
    assert not grid.is_walkable(2, 1) and grid.is_walkable(3, 1)


def test_text_grid_defaults_and_unknown_keys(tmp_path):
    path = tmp_path / "extra.txt"
    path.write_text("gridWidth 2\ngridDepth 1\nbakedBy level tool 3\nversion 7\n10\n")
    grid = read_text_grid(path)
    assert (grid.cell_size, grid.min_x, grid.min_z, grid.floor_y, grid.agent_radius) == (
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
    )
    assert grid.meta == {"bakedBy": "level tool 3", "version": "7"}
    out = tmp_path / "extra_out.txt"
    write_text_grid(grid, out)
    back = read_text_grid(out)
    assert back.equals(grid) and back.meta == grid.meta


def test_text_grid_round_trip_odd_geometry(tmp_path):
    rng = np.random.default_rng(3)
    grid = NavGrid(
        rng.random((17, 23)) < 0.7,
        cell_size=0.1 + 0.2,
        min_x=-5.123456789,
        min_z=1e-300,
        floor_y=-0.0000123456789012345,
        agent_radius=1 / 3,
        meta={"objectPadding": 0.1 + 0.7, "boundaryPadding": 2 / 7},
    )
    path = tmp_path / "odd.txt"
    write_text_grid(grid, path)
    text = path.read_text()
    assert "minX -5.123456789\n" in text and "weighted" not in text
    lines = text.splitlines()
    assert lines[lines.index("gridDepth 17") - 1] == "gridWidth 23"
    assert set(lines[lines.index("gridDepth 17") + 1]) <= {"0", "1"}
    back = read_text_grid(path)
    assert back.equals(grid)
    assert back.cell_size == 0.1 + 0.2 and back.agent_radius == 1 / 3
    assert back.meta["objectPadding"] == 0.1 + 0.7 and back.meta["boundaryPadding"] == 2 / 7


def test_text_grid_round_trip_weighted(tmp_path):
    rng = np.random.default_rng(4)
    weights = rng.integers(1, 10, (9, 11))
    weights[0, 0] = MAX_WEIGHT
    grid = NavGrid(rng.random((9, 11)) < 0.8, weights=weights, cell_size=0.25, min_x=-2.5)
    path = tmp_path / "weighted.txt"
    write_text_grid(grid, path)
    text = path.read_text()
    assert "weighted 1\n" in text and "\nweights\n" in text
    back = read_text_grid(path)
    assert back.equals(grid) and np.array_equal(back.weights, grid.weights)
    # CRLF and trailing blank lines are fine too
    crlf = tmp_path / "weighted_crlf.txt"
    crlf.write_bytes(text.replace("\n", "\r\n").encode() + b"\r\n\r\n")
    assert read_text_grid(crlf).equals(grid)


@settings(max_examples=40, deadline=None)
@given(
    walk=hnp.arrays(np.bool_, hnp.array_shapes(min_dims=2, max_dims=2, max_side=6)),
    cell=st.floats(min_value=1e-9, max_value=1e9, allow_nan=False),
    mx=st.floats(allow_nan=False, allow_infinity=False),
    mz=st.floats(allow_nan=False, allow_infinity=False),
    fy=st.floats(allow_nan=False, allow_infinity=False),
    radius=st.floats(min_value=0, max_value=1e9, allow_nan=False),
    weighted=st.booleans(),
)
def test_text_grid_round_trip_property(walk, cell, mx, mz, fy, radius, weighted):
    weights = (np.arange(walk.size).reshape(walk.shape) % 5 + 1) if weighted else None
    grid = NavGrid(
        walk, weights=weights, cell_size=cell, min_x=mx, min_z=mz, floor_y=fy, agent_radius=radius
    )
    back = parse_text_grid(format_text_grid(grid))
    assert back.equals(grid)


# ------------------------------------------------------------------------- images
def test_png_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    grid = NavGrid(rng.random((13, 21)) < 0.6)
    path = tmp_path / "grid.png"
    write_image(grid, path)
    back = read_image(path, cell_size=0.5)
    assert back.name == "grid.png" and back.cell_size == 0.5
    assert np.array_equal(back.walkable, grid.walkable)
    scaled = tmp_path / "scaled.png"
    write_image(grid, scaled, scale=3)
    big = read_image(scaled)
    assert big.shape == (39, 63)
    assert np.array_equal(big.walkable, np.kron(grid.walkable, np.ones((3, 3), dtype=bool)))
    assert np.array_equal(read_image(path, invert=True).walkable, ~grid.walkable)


def test_image_weighted_grey_levels(tmp_path):
    walk = np.array([[1, 1, 1, 1, 0]])
    grid = NavGrid(walk, weights=np.array([[1, 2, 100, MAX_WEIGHT, 7]]))
    values = image_values(grid)[0].tolist()
    assert values[0] == 255 and values[4] == 0
    assert 255 > values[1] > values[2] > values[3] == 128
    path = tmp_path / "weighted.png"
    write_image(grid, path)
    assert np.array_equal(read_image(path).walkable, grid.walkable)  # default threshold 128
    assert read_image(path, threshold=210).walkable.tolist() == [[True, True, False, False, False]]


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "P", "1", "I;16"])
def test_image_modes(tmp_path, mode):
    from PIL import Image

    lum = np.array([[0, 255, 127], [128, 200, 10]], dtype=np.uint8)
    img = Image.fromarray(lum)
    if mode == "I;16":
        img = Image.fromarray(lum.astype(np.uint16) * 257)
    elif mode == "1":
        img = img.point(lambda v: 255 if v >= 128 else 0).convert("1")
    else:
        img = img.convert(mode)
    path = tmp_path / f"mode_{mode.replace(';', '_')}.png"
    img.save(path)
    assert read_image(path).walkable.tolist() == [[False, True, False], [True, True, False]]


def test_image_formats_via_save_and_load(tmp_path):
    grid = NavGrid(np.array([[1, 0, 1], [0, 1, 1]]))
    for ext in (".png", ".bmp", ".tif", ".tiff"):
        path = tmp_path / f"g{ext}"
        save_grid(grid, path)
        assert np.array_equal(load_grid(path).walkable, grid.walkable), ext
    gif = tmp_path / "g.gif"
    write_image(grid, gif)
    assert np.array_equal(load_grid(gif).walkable, grid.walkable)


@pytest.mark.parametrize(
    "content", [b"", b"not an image at all", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40]
)
def test_bad_image(tmp_path, content):
    path = tmp_path / "broken.png"
    path.write_bytes(content)
    with pytest.raises(FormatError) as ei:
        read_image(path)
    expect_error(ei, path, None)


def test_image_bad_arguments(tmp_path):
    grid = NavGrid(np.ones((2, 2)))
    with pytest.raises(ConfigError):
        write_image(grid, tmp_path / "x.png", scale=0)
    write_image(grid, tmp_path / "x.png")
    with pytest.raises(ConfigError):
        read_image(tmp_path / "x.png", threshold=float("nan"))


# ------------------------------------------------------------------------- numpy arrays
def test_npz_round_trip(tmp_path):
    rng = np.random.default_rng(6)
    grid = NavGrid(
        rng.random((8, 5)) < 0.5,
        weights=rng.integers(1, 40, (8, 5)),
        cell_size=0.37,
        min_x=-5.123456789,
        min_z=3.3,
        floor_y=1.25,
        agent_radius=0.45,
    )
    path = tmp_path / "grid.npz"
    write_npz(grid, path)
    assert path.exists()
    back = read_npy(path)
    assert back.equals(grid) and back.name == "grid.npz"
    plain = NavGrid(np.eye(3))
    path2 = tmp_path / "plain"  # no suffix is added
    write_npz(plain, path2)
    assert path2.exists() and read_npy(path2).equals(plain)


def test_npy_and_from_array(tmp_path):
    arr = np.array([[1, 0, 2], [0, 0, 1]], dtype=np.int8)
    path = tmp_path / "walk.npy"
    np.save(path, arr)
    # a 2 in a mask is deprecated (docs/rules.md §1.6): read as nonzero = walkable, with a warning
    with pytest.warns(FutureWarning, match="other than 0 and 1"):
        grid = read_npy(path)
    assert grid.walkable.tolist() == [[True, False, True], [False, False, True]]
    with pytest.warns(FutureWarning, match="other than 0 and 1"):
        assert from_array(arr, cell_size=0.5, min_x=1.0).cell_size == 0.5
    mask = (arr != 0).astype(np.int8)  # 0 and 1 only: a mask, no warning
    assert from_array(mask).walkable.tolist() == grid.walkable.tolist()
    with pytest.raises(ConfigError):
        from_array(mask, cellsize=0.5)
    with pytest.raises(ConfigError):
        from_array(np.ones(3))
    # a minimal npz with only 'walkable'
    npz = tmp_path / "minimal.npz"
    np.savez(npz, walkable=mask)
    assert read_npy(npz).equals(NavGrid(mask))


def _bad_npy(path: Path) -> None:
    path.write_bytes(b"\x93NUMPY garbage")


BAD_ARRAYS = [
    ("garbage.npy", lambda p: p.write_bytes(b"definitely not numpy"), "numpy"),
    ("truncated.npy", _bad_npy, "numpy"),
    ("garbage.npz", lambda p: p.write_bytes(b"PK\x03\x04 broken zip"), "numpy"),
    ("three_d.npy", lambda p: np.save(p, np.ones((2, 2, 2))), "2-D"),
    ("one_d.npy", lambda p: np.save(p, np.ones(4)), "2-D"),
    (
        "objects.npy",
        lambda p: np.save(p, np.array([[None, 1]], dtype=object), allow_pickle=True),
        "numpy",
    ),
    ("no_walkable.npz", lambda p: np.savez(p, weights=np.ones((2, 2))), "walkable"),
    ("extra_key.npz", lambda p: np.savez(p, walkable=np.ones((2, 2)), colour=np.ones(1)), "colour"),
    (
        "vector_cell.npz",
        lambda p: np.savez(p, walkable=np.ones((2, 2)), cell_size=np.ones(2)),
        "cell_size",
    ),
    (
        "zero_cell.npz",
        lambda p: np.savez(p, walkable=np.ones((2, 2)), cell_size=np.array(0.0)),
        "cell_size",
    ),
    (
        "bad_weights.npz",
        lambda p: np.savez(p, walkable=np.ones((2, 2)), weights=np.zeros((2, 2))),
        "weights",
    ),
    ("nan_walk.npy", lambda p: np.save(p, np.array([[np.nan, 1.0]])), "NaN"),
]


@pytest.mark.parametrize("name, make, fragment", BAD_ARRAYS, ids=[c[0] for c in BAD_ARRAYS])
def test_bad_numpy_files(tmp_path, name, make, fragment):
    path = tmp_path / name
    make(path)
    with pytest.raises(FormatError) as ei:
        read_npy(path)
    expect_error(ei, path, None)
    assert fragment in str(ei.value)


# ------------------------------------------------------------------------- load_grid / save_grid
def test_load_and_save_grid_dispatch(tmp_path, movingai):
    grid = NavGrid(
        np.array([[1, 0, 1], [1, 1, 0]]),
        weights=np.array([[2, 1, 1], [1, 3, 1]]),
        cell_size=0.4,
        min_x=-1.5,
    )
    for name in ("g.txt", "g.npz", "G.TXT"):
        save_grid(grid, tmp_path / name)
        assert load_grid(tmp_path / name).equals(grid), name
    for name in ("g.map", "g.png"):
        save_grid(grid, tmp_path / name)
        assert np.array_equal(load_grid(tmp_path / name).walkable, grid.walkable), name
    np.save(tmp_path / "g.npy", grid.walkable)
    assert np.array_equal(load_grid(tmp_path / "g.npy").walkable, grid.walkable)
    assert load_grid(str(movingai / "arena.map")).shape == (49, 49)
    assert load_grid(tmp_path / "g.png", threshold=10, cell_size=2.0).cell_size == 2.0
    with pytest.raises(ConfigError):
        load_grid(tmp_path / "g.map", threshold=3)
    with pytest.raises(ConfigError):
        load_grid(tmp_path / "g.png", thresh=3)
    with pytest.raises(FormatError, match="cannot write"):
        save_grid(grid, tmp_path / "g.jpg")


def test_load_grid_unknown_extension(tmp_path):
    path = tmp_path / "grid.xyz"
    path.write_text("whatever")
    with pytest.raises(FormatError) as ei:
        load_grid(path)
    expect_error(ei, path, None)
    for ext in READ_EXTENSIONS:
        assert ext in str(ei.value)
    with pytest.raises(FormatError, match="directory"):
        load_grid(tmp_path)


def test_load_grid_json_without_level_module(tmp_path, monkeypatch):
    path = tmp_path / "level.json"
    path.write_text("{}")
    monkeypatch.setitem(sys.modules, "navkit.level", None)  # import raises ImportError
    with pytest.raises(FormatError, match="navkit.level") as ei:
        load_grid(path)
    expect_error(ei, path, None)


def test_load_grid_json_forwards_to_level(tmp_path, monkeypatch):
    path = tmp_path / "level.json"
    path.write_text("{}")
    calls = []
    fake = types.ModuleType("navkit.level")

    def load_level_or_map(p, **options):  # a level, or the grid file a scene names
        calls.append((p, options))
        return NavGrid(np.ones((1, 1)))

    fake.load_level_or_map = load_level_or_map  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "navkit.level", fake)
    assert load_grid(path, agent_radius=0.3).shape == (1, 1)
    assert calls == [(path, {"agent_radius": 0.3})]

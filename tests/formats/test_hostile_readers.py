"""Hostile input to the readers and to NavGrid: every bad file or value is a navkit error.

Each test pins one defect found by a hostile-input campaign: oversized
declarations (decompression bombs), corrupt headers, numbers that overflow,
geometry that does not fit in a float. The reader must refuse with a
:class:`~navkit.errors.FormatError` or :class:`~navkit.errors.ConfigError`
naming the file and line or field, before allocating anything large.
"""

from __future__ import annotations

import io
import math
import struct
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

import navkit.formats
from navkit import grid as grid_module
from navkit.errors import ConfigError, FormatError, QueryError
from navkit.formats import load_grid, parse_map, parse_text_grid, read_image, read_npy
from navkit.grid import NavGrid


# ------------------------------------------------------------------------- NavGrid
@pytest.mark.parametrize("cell_size", [1e-300, 5e-324, 1e-10, 1e10, 1e300, math.inf, math.nan])
def test_navgrid_cell_size_out_of_range(cell_size):
    with pytest.raises(ConfigError) as ei:
        NavGrid(np.ones((3, 3), dtype=bool), cell_size=cell_size)
    assert ei.value.field == "cell_size"


@pytest.mark.parametrize("field", ["min_x", "min_z"])
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_navgrid_origin_must_be_finite(field, value):
    with pytest.raises(ConfigError) as ei:
        NavGrid(np.ones((3, 3), dtype=bool), **{field: value})
    assert ei.value.field == field


def test_navgrid_cell_size_limits_are_accepted_and_stay_finite():
    for cs in (grid_module.MIN_CELL_SIZE, grid_module.MAX_CELL_SIZE):
        grid = NavGrid(np.ones((4, 5), dtype=bool), cell_size=cs, min_x=1.7e308, min_z=-1.7e308)
        assert math.isfinite(grid.max_x) and math.isfinite(grid.max_z)
        assert all(math.isfinite(v) for v in grid.cell_center(4, 3))


def test_world_to_cell_far_away_is_a_query_error():
    grid = NavGrid(np.ones((3, 3), dtype=bool), cell_size=0.5, min_x=-1e308)
    with pytest.raises(QueryError, match="far"):
        grid.world_to_cell(1.7e308, 0.0)


# ------------------------------------------------------------------------- helpers
def npy_bytes(shape, descr="|b1", data=b"", version=(1, 0)) -> bytes:
    """A ``.npy`` file declaring ``shape`` and ``descr`` (data as given, maybe none)."""
    header = f"{{'descr': {descr!r}, 'fortran_order': False, 'shape': {shape!r}, }}"
    header = header.ljust(117) + "\n"
    size = struct.pack("<H", len(header)) if version == (1, 0) else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes(version) + size + header.encode("latin1") + data


def npz_with(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def png_bytes(width: int, height: int) -> bytes:
    """A valid 1-bit greyscale PNG of ``width`` x ``height`` black pixels (compresses ~1000:1)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    comp = zlib.compressobj(9)
    row = b"\0" * (1 + (width + 7) // 8)
    idat = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def assert_refused(err: FormatError, path: Path, cells: int, limit: int) -> None:
    """The size refusal names the file, the declared cells, the limit and the way out."""
    text = str(err)
    assert err.path is not None and Path(err.path).name == path.name
    assert f"{cells} cells" in text and str(limit) in text
    assert "max_cells=" in text and "navkit.formats.MAX_CELLS" in text


# ------------------------------------------------------------------------- cell limit
def test_max_cells_default_is_2_to_the_26():
    assert navkit.formats.MAX_CELLS == 2**26


def test_png_bomb_is_refused_from_its_header(tmp_path):
    path = tmp_path / "bomb.png"
    path.write_bytes(png_bytes(13_000, 13_000))
    assert path.stat().st_size < 40_000
    with warnings.catch_warnings(), pytest.raises(FormatError) as ei:
        warnings.simplefilter("error")  # refused by navkit, not just warned about by Pillow
        load_grid(path)
    assert_refused(ei.value, path, 169_000_000, 2**26)


def test_png_beyond_pillows_own_limit_is_a_format_error(tmp_path):
    path = tmp_path / "huge.png"
    small = png_bytes(100_000, 1)
    ihdr = small.index(b"IHDR")
    body = small[ihdr : ihdr + 4 + 13].replace(
        struct.pack(">II", 100_000, 1), struct.pack(">II", 100_000, 100_000)
    )
    fixed = small[:ihdr] + body + struct.pack(">I", zlib.crc32(body)) + small[ihdr + 21 :]
    path.write_bytes(fixed)
    with pytest.raises(FormatError) as ei:
        read_image(path)
    assert "huge.png" in str(ei.value)


def test_npy_declaring_a_trillion_cells_is_refused(tmp_path):
    path = tmp_path / "big.npy"
    path.write_bytes(npy_bytes((10**6, 10**6)))
    assert path.stat().st_size == 128
    with pytest.raises(FormatError) as ei:
        load_grid(path)
    assert_refused(ei.value, path, 10**12, 2**26)


def test_npz_member_declaring_a_trillion_cells_is_refused(tmp_path):
    path = npz_with(tmp_path / "big.npz", {"walkable.npy": npy_bytes((10**6, 10**6))})
    with pytest.raises(FormatError) as ei:
        load_grid(path)
    assert_refused(ei.value, path, 10**12, 2**26)
    heavy = npz_with(
        tmp_path / "heavy.npz",
        {"walkable.npy": npy_bytes((2, 2), data=b"\1" * 4),
         "weights.npy": npy_bytes((10**5, 10**5), "<i4")},
    )
    with pytest.raises(FormatError) as ei:
        read_npy(heavy)
    assert_refused(ei.value, heavy, 10**10, 2**26)


def test_map_and_text_headers_are_checked_before_the_rows(tmp_path):
    with pytest.raises(FormatError) as ei:
        parse_map(b"type octile\nheight 100000\nwidth 100000\nmap\n", path=tmp_path / "a.map")
    assert_refused(ei.value, tmp_path / "a.map", 10**10, 2**26)
    assert ei.value.line is not None
    with pytest.raises(FormatError) as ei:
        parse_text_grid(b"gridWidth 100000\ngridDepth 100000\n", path=tmp_path / "a.txt")
    assert_refused(ei.value, tmp_path / "a.txt", 10**10, 2**26)
    assert ei.value.line == 2


def _small_files(tmp_path: Path) -> list[Path]:
    grid = NavGrid(np.ones((3, 4), dtype=bool))
    paths = []
    for name in ("g.map", "g.txt", "g.png", "g.npz"):
        navkit.formats.save_grid(grid, tmp_path / name)
        paths.append(tmp_path / name)
    np.save(tmp_path / "g.npy", grid.walkable)
    return [*paths, tmp_path / "g.npy"]


def test_max_cells_keyword_lowers_and_raises_the_limit(tmp_path):
    for path in _small_files(tmp_path):
        assert load_grid(path, max_cells=12).shape == (3, 4), path
        with pytest.raises(FormatError) as ei:
            load_grid(path, max_cells=11)
        assert_refused(ei.value, path, 12, 11)
    path = tmp_path / "wide.txt"
    path.write_text("gridWidth 9000\ngridDepth 8000\n")  # 72 M cells: over the default
    with pytest.raises(FormatError, match="72000000 cells"):
        load_grid(path)
    with pytest.raises(FormatError, match="grid rows"):  # past the limit check: rows missing
        load_grid(path, max_cells=2**27)


def test_module_constant_is_read_at_call_time(tmp_path, monkeypatch):
    path = _small_files(tmp_path)[0]
    monkeypatch.setattr(navkit.formats, "MAX_CELLS", 11)
    with pytest.raises(FormatError) as ei:
        load_grid(path)
    assert_refused(ei.value, path, 12, 11)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True, 2**31])
def test_max_cells_keyword_is_validated(tmp_path, bad):
    path = _small_files(tmp_path)[0]
    with pytest.raises(ConfigError) as ei:
        load_grid(path, max_cells=bad)
    assert ei.value.field == "max_cells"


# ------------------------------------------------------------------------- numbers that overflow
BIG = str(2**63)
HUGE = "9" * 5000  # past Python's 4300-digit int-string limit


@pytest.mark.parametrize("value", [BIG, HUGE, "-" + BIG])
@pytest.mark.parametrize("column", [2, 4, 7])
def test_scenario_integers_beyond_int64(value, column):
    fields = ["0", "x.map", "3", "2", "0", "0", "2", "1", "2.4"]
    fields[column] = value
    if column == 4:  # a start inside a map that is as large
        fields[2] = value
    text = "version 1\n" + "\t".join(fields) + "\n"
    with pytest.raises(FormatError) as ei:
        navkit.formats.parse_scenarios(text, path="big.scen")
    assert ei.value.line == 2 and ei.value.path == "big.scen"
    assert len(str(ei.value)) < 300  # a 5000-digit field is not quoted whole


@pytest.mark.parametrize("value", [BIG, HUGE, "-" + BIG, "-" + BIG + "0", "1e999"])
def test_text_grid_weights_beyond_int64(value):
    text = f"weighted 1\ngridWidth 2\ngridDepth 1\n11\nweights\n1 {value}\n"
    with pytest.raises(FormatError, match="weight 2 of the row") as ei:
        parse_text_grid(text, path="w.txt")
    assert ei.value.line == 6 and len(str(ei.value)) < 300


@pytest.mark.parametrize(
    "header, line",
    [
        (f"gridWidth {HUGE}\ngridDepth 1\n", 1),
        (f"gridWidth 2\ngridDepth {BIG}\n", 2),
        ("cellSize 1e999\ngridWidth 2\ngridDepth 1\n", 1),
        ("cellSize 1e-300\ngridWidth 2\ngridDepth 1\n", 1),
        ("cellSize 5e-324\ngridWidth 2\ngridDepth 1\n", 1),
    ],
)
def test_text_grid_header_numbers_out_of_range(header, line):
    with pytest.raises(FormatError) as ei:
        parse_text_grid(header + "11\n", path="h.txt")
    assert ei.value.path == "h.txt" and ei.value.line == line and len(str(ei.value)) < 300


def test_map_header_integers_beyond_int64():
    for text, line in ((f"type octile\nheight {HUGE}\nwidth 2\nmap\n", 2),
                       (f"type octile\nheight 1\nwidth {BIG}\nmap\n", 3)):
        with pytest.raises(FormatError) as ei:
            parse_map(text, path="m.map")
        assert ei.value.line == line and len(str(ei.value)) < 300


# ------------------------------------------------------------------------- corrupt numpy files
def _corrupt_header() -> bytes:
    raw = bytearray(npy_bytes((3, 3), data=b"\1" * 9))
    raw[20:30] = b"(" * 10  # an unclosed bracket: numpy's Python-2 header filter tokenizes it
    return bytes(raw)


def _stored_npz_with_method(method: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("walkable.npy", npy_bytes((2, 2), data=b"\1" * 4))
    raw = bytearray(buf.getvalue())
    raw[8:10] = struct.pack("<H", method)  # local header
    central = raw.find(b"PK\x01\x02")
    raw[central + 10 : central + 12] = struct.pack("<H", method)
    return bytes(raw)


def _broken_deflate() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("walkable.npy", npy_bytes((64, 64), data=b"\1" * 4096))
    raw = bytearray(buf.getvalue())
    start = 30 + len("walkable.npy")
    raw[start + 2 : start + 40] = b"\xff" * 38
    return bytes(raw)


CORRUPT_NUMPY = [
    ("tokenize.npy", _corrupt_header, "corrupt numpy header: EOF in multi-line statement"),
    ("negative.npy", lambda: npy_bytes((-3, 3)), "at least one cell"),
    ("complex.npy", lambda: npy_bytes((2, 2), "<c16", b"\0" * 64), "dtype"),
    ("string.npy", lambda: npy_bytes((1, 1), "<U4", b"\0" * 16), "dtype"),
    ("structured.npy", lambda: npy_bytes((2, 2), [("a", "<i4")], b"\0" * 16), "dtype"),
    ("subarray.npy", lambda: npy_bytes((1, 1), "(1000,1000)<f8"), "dtype"),
    ("short_data.npy", lambda: npy_bytes((100, 100), data=b"\1" * 10), "10000 bytes"),
    ("version3.npy", lambda: npy_bytes((2, 2), data=b"\1" * 4, version=(3, 0)), "version"),
    ("version9.npy", lambda: npy_bytes((2, 2), data=b"\1" * 4, version=(9, 0)), "numpy"),
    ("unknown_method.npz", lambda: _stored_npz_with_method(99), "compression"),
    ("broken_deflate.npz", _broken_deflate, "numpy"),
]


@pytest.mark.parametrize("name, make, fragment", CORRUPT_NUMPY, ids=[c[0] for c in CORRUPT_NUMPY])
def test_corrupt_numpy_files(tmp_path, name, make, fragment):
    path = tmp_path / name
    path.write_bytes(make())
    with pytest.raises(FormatError) as ei:
        load_grid(path)
    assert ei.value.path == str(path) and fragment in str(ei.value)


def test_npz_geometry_scalar_with_a_huge_string_dtype_is_refused(tmp_path):
    header = npy_bytes((), "<U100000000")  # 0-d, 400 MB if it were read
    path = npz_with(tmp_path / "s.npz", {"walkable.npy": npy_bytes((1, 1), data=b"\1"),
                                         "cell_size.npy": header})
    with pytest.raises(FormatError, match="cell_size"):
        read_npy(path)


def test_npz_duplicate_entries_are_refused(tmp_path):
    path = tmp_path / "dup.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        npz_with(path, {"walkable.npy": npy_bytes((1, 1), data=b"\1")})
        with zipfile.ZipFile(path, "a") as zf:
            zf.writestr("walkable.npy", npy_bytes((1, 1), data=b"\0"))
    with pytest.raises(FormatError, match="twice"):
        read_npy(path)


def test_numpy_readers_still_read_what_numpy_writes(tmp_path):
    arr = np.array([[1, 0, 1], [1, 1, 0]], dtype=np.uint8)
    np.save(tmp_path / "f.npy", np.asfortranarray(arr))
    assert np.array_equal(read_npy(tmp_path / "f.npy").walkable, arr != 0)
    np.savez_compressed(
        tmp_path / "c.npz", walkable=arr, weights=arr + 1, cell_size=np.float32(0.5)
    )
    grid = read_npy(tmp_path / "c.npz")
    assert grid.cell_size == 0.5 and np.array_equal(grid.weights, arr + 1)
    empty = tmp_path / "empty.npz"
    zipfile.ZipFile(empty, "w").close()
    with pytest.raises(FormatError, match="walkable"):
        read_npy(empty)

"""The ``navkit`` command line (navkit.cli) and the renderer (navkit.render).

Optimal lengths for the scenario tests come from an independent oracle:
scipy's Dijkstra on the 8-connected, no-corner-cutting graph with costs 1 and
sqrt(2), built here from the walkable array.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import typer
from PIL import Image
from typer.testing import CliRunner

import navkit
from navkit.cli import ALGORITHMS, app
from navkit.errors import ConfigError
from navkit.render import (
    BLOCKED_COLOR,
    PATH_COLORS,
    WALKABLE_COLOR,
    auto_scale,
    render_grid,
    save_png,
)

sparse = pytest.importorskip("scipy.sparse")
csgraph = pytest.importorskip("scipy.sparse.csgraph")

# 12 wide, 9 deep; the 2x2 pocket at x 6-7, z 5-6 is walled in (unreachable).
SMALL_MAP = """type octile
height 9
width 12
map
............
............
..@@@@@@@...
..@.........
..@..@@@@...
..@..@..@...
.....@..@...
.....@@@@...
............
"""
POCKET = (6, 5)


def _runner() -> CliRunner:
    """A runner with stdout and stderr kept apart (older click needs mix_stderr=False)."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def invoke(*args: str):
    return _runner().invoke(app, [str(a) for a in args])


def oracle_lengths(walk: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """Octile shortest lengths from each source cell (x, z) to every cell.

    Shape (k, depth, width).
    """
    d, w = walk.shape
    idx = np.arange(d * w).reshape(d, w)
    rows, cols, vals = [], [], []
    for dz in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == 0 and dz == 0:
                continue
            z0, z1 = max(0, -dz), min(d, d - dz)
            x0, x1 = max(0, -dx), min(w, w - dx)
            ok = walk[z0:z1, x0:x1] & walk[z0 + dz : z1 + dz, x0 + dx : x1 + dx]
            if dx and dz:  # no corner cutting: both side cells free
                ok &= walk[z0 + dz : z1 + dz, x0:x1] & walk[z0:z1, x0 + dx : x1 + dx]
            a = idx[z0:z1, x0:x1][ok]
            b = idx[z0 + dz : z1 + dz, x0 + dx : x1 + dx][ok]
            rows.append(a)
            cols.append(b)
            vals.append(np.full(a.size, math.sqrt(2.0) if dx and dz else 1.0))
    g = sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(d * w, d * w)
    )
    src = sources[:, 1] * w + sources[:, 0]
    dist = csgraph.dijkstra(g, directed=True, indices=src)
    return dist.reshape(len(sources), d, w)


@pytest.fixture()
def small_map(tmp_path: Path) -> Path:
    p = tmp_path / "small.map"
    p.write_text(SMALL_MAP)
    return p


@pytest.fixture()
def random_scen(tmp_path: Path) -> tuple[Path, Path, int]:
    """A random 40x30 map, and a scen file of 60 oracle-checked problems on it.

    Returns (map, scen, line number of the first problem).
    """
    rng = np.random.default_rng(1234)
    walk = rng.random((30, 40)) > 0.28
    walk[0, :] = True  # keep most of the map connected
    walk[:, 0] = True
    map_path = tmp_path / "rand.map"
    navkit.save_grid(navkit.NavGrid(walk), map_path)
    free = np.argwhere(walk)[:, ::-1]  # (x, z)
    starts = free[rng.choice(len(free), 60)]
    dist = oracle_lengths(walk, starts)
    lines = ["version 1"]
    for k, s in enumerate(starts):
        reach = np.argwhere(np.isfinite(dist[k]))[:, ::-1]
        g = reach[rng.integers(len(reach))]
        length = dist[k, g[1], g[0]]
        lines.append(f"{int(length // 4)}\tmaps/test/rand.map\t40\t30\t{s[0]}\t{s[1]}"
                     f"\t{g[0]}\t{g[1]}\t{length:.8f}")
    scen_path = tmp_path / "rand.map.scen"
    scen_path.write_text("\n".join(lines) + "\n")
    return map_path, scen_path, 2


# ------------------------------------------------------------------------ path
def test_path_world_json_matches_oracle(small_map: Path) -> None:
    r = invoke("path", small_map, "--from", "0.5,0.5", "--to", "11.5,8.5", "--costs", "exact",
               "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["status"] == "FOUND" and out["found"] is True
    walk = navkit.load_grid(small_map).walkable
    want = oracle_lengths(walk, np.array([[0, 0]]))[0, 8, 11]
    assert out["cost"] == pytest.approx(want, abs=1e-5)
    assert out["waypoints"][-1] == [11.5, 8.5]
    assert out["startCell"] == [0, 0] and out["endCell"] == [11, 8]
    assert out["numWaypoints"] == len(out["waypoints"]) >= 2
    assert out["expanded"] > 0 and out["timeUs"] > 0


def test_path_cells_human(small_map: Path) -> None:
    r = invoke("path", small_map, "--cells", "--from", "0,0", "--to", "11,8", "--no-smooth")
    assert r.exit_code == 0, r.output
    assert "FOUND" in r.stdout
    assert "waypoints" in r.stdout and "nodes expanded" in r.stdout
    assert "(0.500, 0.500)" in r.stdout  # unsmoothed cell path lists the start cell centre


def test_path_cells_json_no_smooth_lists_every_cell(small_map: Path) -> None:
    r = invoke("path", small_map, "--cells", "--from", "0,3", "--to", "3,3", "--no-smooth",
               "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["mode"] == "cells" and out["cells"][0] == [0, 3] and out["cells"][-1] == [3, 3]
    assert out["numWaypoints"] == out["numCells"]


def test_path_png(small_map: Path, tmp_path: Path) -> None:
    png = tmp_path / "sub" / "p.png"
    r = invoke("path", small_map, "--cells", "--from", "0,0", "--to", "11,8", "--png", png)
    assert r.exit_code == 0, r.output
    with Image.open(png) as img:
        assert img.format == "PNG"
        s = auto_scale(12, 9)
        assert img.size == (12 * s, 9 * s)


def test_path_unreachable_exits_1_and_nearest_exits_0(small_map: Path, tmp_path: Path) -> None:
    to = f"{POCKET[0]},{POCKET[1]}"
    r = invoke("path", small_map, "--cells", "--from", "0,0", "--to", to, "--json")
    assert r.exit_code == 1, r.output
    assert json.loads(r.stdout)["status"] == "UNREACHABLE"
    r = invoke("path", small_map, "--from", "0.5,0.5",
               "--to", f"{POCKET[0] + 0.5},{POCKET[1] + 0.5}")
    assert r.exit_code == 1
    assert "UNREACHABLE" in r.stdout
    # a PNG is still written (start/goal markers only)
    png = tmp_path / "none.png"
    r = invoke("path", small_map, "--cells", "--from", "0,0", "--to", to, "--png", png)
    assert r.exit_code == 1 and png.is_file()
    r = invoke("path", small_map, "--cells", "--from", "0,0", "--to", to, "--nearest", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["status"] == "NEAREST"
    r = invoke("path", small_map, "--from", "0.5,0.5", "--to", "6.5,5.5", "--nearest", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["status"] == "NEAREST"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--from", "1,x", "--to", "2,2"], "--from"),
        (["--from", "1", "--to", "2,2"], "--from"),
        (["--from", "1,2,3", "--to", "2,2"], "--from"),
        (["--from", "nan,1", "--to", "2,2"], "--from"),
        (["--from", "1,1", "--to", ",2"], "--to"),
        (["--cells", "--from", "1.5,2", "--to", "2,2"], "--from"),
        (["--cells", "--from", "1,1", "--to", "2,2.0"], "--to"),
    ],
)
def test_path_bad_pair_exits_2_naming_option(small_map: Path, args: list[str], option: str) -> None:
    r = invoke("path", small_map, *args)
    assert r.exit_code == 2, r.output
    assert option in r.stderr
    assert "Traceback" not in r.output


def test_path_navkit_errors_exit_2_without_traceback(small_map: Path, tmp_path: Path) -> None:
    r = invoke("path", small_map, "--cells", "--from", "0,0", "--to", "99,0")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and "outside" in r.stderr
    assert "Traceback" not in r.output
    r = invoke("path", tmp_path / "missing.map", "--from", "0,0", "--to", "1,1")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and "no such file" in r.stderr
    bad = tmp_path / "bad.map"
    bad.write_text("type octile\nheight 1\nwidth 2\nmap\n.x\n")
    r = invoke("info", bad)
    assert r.exit_code == 2 and "bad.map:5" in r.stderr


def test_path_blocked_start_exits_1(small_map: Path) -> None:
    r = invoke("path", small_map, "--cells", "--from", "2,2", "--to", "0,0", "--json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["status"] == "NO_START" and out["cost"] is None


def test_python_m_navkit_end_to_end(small_map: Path) -> None:
    cmd = [sys.executable, "-m", "navkit", "path", str(small_map), "--cells", "--from", "0,0",
           "--to", "11,8", "--costs", "exact", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "FOUND"
    walk = navkit.load_grid(small_map).walkable
    want = oracle_lengths(walk, np.array([[0, 0]]))[0, 8, 11]
    assert out["cost"] == pytest.approx(want, abs=1e-5)


# ------------------------------------------------------------------------ scen
def test_scen_json_all_match(random_scen: tuple[Path, Path, int]) -> None:
    _, scen, _ = random_scen
    r = invoke("scen", scen, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["total"] == 60 and out["matched"] == 60 and out["mismatched"] == 0
    assert out["maxAbsError"] < 1e-4
    for key in ("medianUs", "meanUs", "p95Us", "medianExpanded"):
        assert out[key] > 0
    assert out["mismatches"] == []
    assert Path(out["map"]).name == "rand.map"


@pytest.mark.parametrize("extra", [["--algorithm", "dijkstra"], ["--batch"]])
def test_scen_json_other_modes(random_scen: tuple[Path, Path, int], extra: list[str]) -> None:
    _, scen, _ = random_scen
    r = invoke("scen", scen, "--json", *extra)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["matched"] == 60 and out["mismatched"] == 0


def test_scen_wrong_length_exits_1(random_scen: tuple[Path, Path, int], tmp_path: Path) -> None:
    map_path, scen, _ = random_scen
    lines = scen.read_text().splitlines()
    fields = lines[5].split("\t")
    expected = float(fields[8]) + 1.0
    fields[8] = f"{expected:.8f}"
    lines[5] = "\t".join(fields)
    bad = tmp_path / "elsewhere" / "bad.scen"
    bad.parent.mkdir()
    bad.write_text("\n".join(lines) + "\n")
    # the map is not next to bad.scen: --map gives the folder, then the file
    for map_opt in (map_path.parent, map_path):
        r = invoke("scen", bad, "--map", map_opt, "--json")
        assert r.exit_code == 1, r.output
        out = json.loads(r.stdout)
        assert out["total"] == 60 and out["mismatched"] == 1 and out["matched"] == 59
        (m,) = out["mismatches"]
        assert m["line"] == 6
        assert m["expected"] == pytest.approx(expected)
        assert m["got"] == pytest.approx(expected - 1.0, abs=1e-5)
        assert m["start"] == [int(fields[4]), int(fields[5])]
        assert m["goal"] == [int(fields[6]), int(fields[7])]
        assert out["maxAbsError"] == pytest.approx(1.0, abs=1e-5)
    r = invoke("scen", bad, "--map", map_path)
    assert r.exit_code == 1
    assert "line 6" in r.stdout and "mismatch" in r.stdout


def test_scen_every_and_limit(random_scen: tuple[Path, Path, int]) -> None:
    _, scen, _ = random_scen
    out = json.loads(invoke("scen", scen, "--json", "--every", "7").stdout)
    assert out["total"] == 9  # lines 0, 7, ..., 56
    out = json.loads(invoke("scen", scen, "--json", "--every", "2", "--limit", "5").stdout)
    assert out["total"] == 5
    assert invoke("scen", scen, "--every", "0").exit_code == 2


def test_scen_bad_inputs_exit_2(random_scen: tuple[Path, Path, int], tmp_path: Path) -> None:
    map_path, scen, _ = random_scen
    r = invoke("scen", scen, "--algorithm", "no-such-algorithm")
    assert r.exit_code == 2 and "--algorithm" in r.stderr
    r = invoke("scen", scen, "--algorithm", "dijkstra", "--batch")
    assert r.exit_code == 2 and "--batch" in r.stderr
    alone = tmp_path / "alone"
    alone.mkdir()
    moved = alone / "rand.map.scen"
    moved.write_text(scen.read_text())
    r = invoke("scen", moved)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "cannot find map" in r.stderr
    r = invoke("scen", moved, "--map", tmp_path / "nope.map")
    assert r.exit_code == 2 and r.stderr.startswith("error: ")
    other = tmp_path / "other.map"
    other.write_text(SMALL_MAP)
    r = invoke("scen", moved, "--map", other)
    assert r.exit_code == 2 and "40x30" in r.stderr
    empty = tmp_path / "empty.scen"
    empty.write_text("version 1\n")
    r = invoke("scen", empty, "--map", map_path)
    assert r.exit_code == 2 and r.stderr.startswith("error: ")


def test_scen_human_summary(random_scen: tuple[Path, Path, int]) -> None:
    _, scen, _ = random_scen
    r = invoke("scen", scen)
    assert r.exit_code == 0, r.output
    for label in ("total", "matched", "mismatched", "max abs error", "median us", "mean us",
                  "p95 us", "median expanded"):
        assert label in r.stdout
    r = invoke("scen", scen, "--batch")
    assert r.exit_code == 0 and "total / n" in r.stdout


def test_algorithms_registry() -> None:
    assert {"astar", "dijkstra"} <= set(ALGORITHMS)
    assert ALGORITHMS["astar"].batch is not None


def test_scen_movingai_arena(movingai: Path) -> None:
    scen = movingai / "arena.map.scen"
    r = invoke("scen", scen, "--map", movingai, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["total"] == 160 and out["matched"] == 160 and out["mismatched"] == 0
    assert out["maxAbsError"] <= 0.005 + 1e-5 * 100


# ------------------------------------------------------------- info / convert
def test_info(small_map: Path) -> None:
    r = invoke("info", small_map, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    walk = navkit.load_grid(small_map).walkable
    assert (out["width"], out["depth"], out["cells"]) == (12, 9, 108)
    assert out["walkable"] == int(walk.sum())
    assert out["walkableFraction"] == pytest.approx(walk.mean())
    assert (out["weightMin"], out["weightMax"], out["weighted"]) == (1, 1, False)
    assert out["cellSize"] == 1.0
    r = invoke("info", small_map)
    assert r.exit_code == 0
    assert "12 x 9" in r.stdout and "uniform" in r.stdout and "cell size" in r.stdout


def test_info_weighted(tmp_path: Path) -> None:
    g = navkit.NavGrid(np.ones((3, 4), bool), weights=np.arange(1, 13).reshape(3, 4),
                       cell_size=0.5, min_x=-2.0)
    p = tmp_path / "w.npz"
    navkit.save_grid(g, p)
    out = json.loads(invoke("info", p, "--json").stdout)
    assert (out["weightMin"], out["weightMax"], out["weighted"]) == (1, 12, True)
    assert (out["cellSize"], out["minX"], out["maxX"]) == (0.5, -2.0, 0.0)
    r = invoke("convert", p, tmp_path / "w.map")
    assert r.exit_code == 0 and "drops" in r.stderr


def test_convert_roundtrip(small_map: Path, tmp_path: Path) -> None:
    for ext in (".txt", ".npz", ".png", ".map"):
        out = tmp_path / f"conv{ext}"
        r = invoke("convert", small_map, out)
        assert r.exit_code == 0, r.output
        assert "wrote" in r.stdout
        assert np.array_equal(navkit.load_grid(out).walkable, navkit.load_grid(small_map).walkable)
    r = invoke("convert", small_map, tmp_path / "x.xyz")
    assert r.exit_code == 2 and r.stderr.startswith("error: ")


def test_version() -> None:
    r = invoke("--version")
    assert r.exit_code == 0
    assert r.stdout.strip() == f"navkit {navkit.__version__}"


# ----------------------------------------------------------------------- bench
def _fake_suite(seen: list[list[str]], rc: int) -> SimpleNamespace:
    """A stand-in benchmark module: its typer ``app`` records its arguments, exits ``rc``."""
    fake = typer.Typer()

    @fake.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
                  add_help_option=False)
    def run(ctx: typer.Context) -> None:
        seen.append(list(ctx.args))
        raise typer.Exit(rc)

    return SimpleNamespace(app=fake)


def test_bench_passes_args_through(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    monkeypatch.setitem(sys.modules, "navkit.bench.peers", _fake_suite(seen, 3))
    r = invoke("bench", "--quick", "--maps", "arena", "-x", "--help")
    assert r.exit_code == 3
    assert seen == [["--quick", "--maps", "arena", "-x", "--help"]]


def test_bench_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "navkit.bench.peers", None)
    r = invoke("bench")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and "navkit.bench.peers" in r.stderr


def test_bench_names_another_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = _fake_suite(seen, 0)
    monkeypatch.setitem(sys.modules, "navkit.bench.jps", fake)
    monkeypatch.setitem(sys.modules, "navkit.bench.level", fake)
    r = invoke("bench", "jps", "--queries", "4", "--help")
    assert r.exit_code == 0
    r = invoke("bench-level", "--repeat", "1")
    assert r.exit_code == 0
    r = invoke("bench", "level", "--repeat", "2")
    assert r.exit_code == 0
    assert seen == [["--queries", "4", "--help"], ["--repeat", "1"], ["--repeat", "2"]]


def test_help_lists_every_command() -> None:
    r = invoke("--help")
    assert r.exit_code == 0
    for name in ("path", "scen", "bench", "info", "convert", "build", "bench-level", "sim",
                 "view", "flow"):
        assert f" {name} " in r.stdout, name


# ---------------------------------------------------------------------- render
def test_render_size_and_colours() -> None:
    walk = np.ones((4, 6), bool)
    walk[3, 5] = False
    grid = navkit.NavGrid(walk)
    cells = np.array([[0, 1], [1, 1], [2, 1], [3, 1], [4, 1], [5, 1]], dtype=np.int32)
    img = render_grid(grid, scale=10, paths=[cells])
    assert img.size == (60, 40) and img.mode == "RGB"
    px = np.asarray(img)
    for x, z in cells[1:-1]:  # end cells carry start / goal markers
        assert tuple(px[z * 10 + 5, x * 10 + 5]) == PATH_COLORS[0]
    assert tuple(px[35, 55]) == BLOCKED_COLOR
    assert tuple(px[35, 5]) == WALKABLE_COLOR
    # grid row z is image row z: nothing drawn on row 3
    assert {tuple(c) for c in px[30:40, :50].reshape(-1, 3)} == {WALKABLE_COLOR}


def test_render_world_points_and_second_colour() -> None:
    grid = navkit.NavGrid(np.ones((5, 8), bool), cell_size=2.0, min_x=-4.0, min_z=10.0)
    world = np.array([[-3.0, 11.0], [11.0, 11.0]])  # centres of cells (0, 0) and (7, 0)
    cells = np.array([[0, 3], [7, 3]])
    img = render_grid(grid, scale=8, paths=[world, cells])
    px = np.asarray(img)
    for x in range(1, 7):
        assert tuple(px[4, x * 8 + 4]) == PATH_COLORS[0]
        assert tuple(px[3 * 8 + 4, x * 8 + 4]) == PATH_COLORS[1]


def test_render_path_result_and_auto_scale() -> None:
    walk = np.ones((30, 50), bool)
    walk[5:25, 20] = False
    grid = navkit.NavGrid(walk)
    res = navkit.Pathfinder(grid, costs="exact").find_path_cells((2, 15), (45, 15), smooth=True)
    img = render_grid(grid, paths=[res])
    s = auto_scale(50, 30)
    assert img.size == (50 * s, 30 * s) and 512 <= max(img.size) <= 1024
    px = np.asarray(img).astype(int)
    # every raw cell centre (minus the end markers) is covered by the path's colour family
    pc = np.array(PATH_COLORS[0])
    shade = np.rint(pc * 0.55)
    for x, z in res.cells[2:-2]:
        c = px[z * s + s // 2, x * s + s // 2]
        assert np.array_equal(c, pc) or np.array_equal(c, shade), (x, z, c)
    # an unsuccessful result draws nothing
    none = navkit.Pathfinder(grid).find_path_cells((2, 15), (20, 10))
    assert not none.has_path
    drawn, plain = render_grid(grid, paths=[none]), render_grid(grid)
    assert np.array_equal(np.asarray(drawn), np.asarray(plain))


def test_render_heat_weights_markers_and_errors(tmp_path: Path) -> None:
    walk = np.ones((10, 10), bool)
    walk[0, 0] = False
    weights = np.ones((10, 10), int)
    weights[5:, :] = 9
    grid = navkit.NavGrid(walk, weights=weights)
    plain = np.asarray(render_grid(grid, scale=4))
    assert tuple(plain[1, 1]) == BLOCKED_COLOR
    assert tuple(plain[4 * 2 + 1, 4 * 2 + 1]) == WALKABLE_COLOR
    assert tuple(plain[4 * 8 + 1, 4 * 8 + 1]) != WALKABLE_COLOR  # weighted tint
    heat = navkit.Pathfinder(grid).distance_field([(9, 9)])
    hot = np.asarray(render_grid(grid, scale=4, heat=heat))
    assert tuple(hot[1, 1]) == BLOCKED_COLOR
    assert tuple(hot[4 * 2 + 1, 4 * 2 + 1]) != WALKABLE_COLOR
    marked = np.asarray(render_grid(grid, scale=4, markers=[(5, 5)]))
    assert not np.array_equal(marked, plain)
    with pytest.raises(ConfigError):
        render_grid(grid, heat=np.zeros((3, 3)))
    with pytest.raises(ConfigError):
        render_grid(grid, scale=0)
    p = save_png(render_grid(grid), tmp_path / "a" / "b.png")
    with Image.open(p) as img:
        assert img.format == "PNG" and img.size == (1020, 1020)


def test_auto_scale_range() -> None:
    for w, d in [(1, 1), (49, 49), (256, 257), (512, 512), (1024, 3), (700, 20)]:
        s = auto_scale(w, d)
        assert 512 <= max(w, d) * s <= 1024
    assert auto_scale(1491, 656) == 1

"""``navkit mesh`` and ``navkit path --mesh`` (navkit.cli.mesh) and the mesh pictures.

The commands run through a small typer app built here with the project's
group class (the lead registers them in ``navkit.cli``). Lengths are checked
against hand geometry and shapely, never against navkit's own output.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import shapely
import typer
from PIL import Image
from typer.testing import CliRunner, Result

from navkit import render_mesh as draw
from navkit.cli import app
from navkit.cli.mesh import MeshMethod, mesh_path

# one 10 x 10 room, a wall from (4, 0) to (6, 8): the path from (1, 1) to (9, 1)
# goes over the wall's top corners (4, 8) and (6, 8)
LEVEL = {
    "agentRadius": 0.0, "objectPadding": 0.0,
    "areas": [{"name": "a", "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]}],
    "obstacles": [{"name": "wall", "polygon": [[4, 0], [6, 0], [6, 8], [4, 8]]}],
}
WALL_PATH = 2 * math.hypot(3, 7) + 2
# two rooms 10 m apart: no path between them
TWO_ROOMS = {
    "agentRadius": 0.0, "objectPadding": 0.0,
    "areas": [{"name": "a", "polygon": [[0, 0], [5, 0], [5, 5], [0, 5]]},
              {"name": "b", "polygon": [[20, 0], [25, 0], [25, 5], [20, 5]]}],
}
# a 6 x 4 Moving AI map with a wall column x = 2, rows 0..2
GRID_MAP = "type octile\nheight 4\nwidth 6\nmap\n..@...\n..@...\n..@...\n......\n"


def _invoke(*args: object) -> Result:
    """The real ``navkit`` command; ``path`` queries go through ``navkit path --mesh``."""
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    argv = [str(a) for a in args]
    if argv and argv[0] == "path":
        argv.insert(1, "--mesh")
    return runner.invoke(app, argv)


def _json(res: Result) -> dict:
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture()
def level(tmp_path: Path) -> Path:
    p = tmp_path / "room.json"
    p.write_text(json.dumps(LEVEL))
    return p


def test_mesh_builds_saves_and_draws(level: Path, tmp_path: Path) -> None:
    out, png = tmp_path / "m" / "room.npz", tmp_path / "room.png"
    res = _invoke("mesh", level, "-o", out, "--png", png, "--json")
    assert res.exit_code == 0, res.output
    info = _json(res)
    assert info["kind"] == "level" and info["output"] == str(out)
    assert info["polygons"] >= 2 and info["vertices"] >= 8 and info["regions"] == 1
    assert info["bounds"] == [0.0, 0.0, 10.0, 10.0]
    assert out.is_file() and png.is_file()
    # the saved polygons tile the free space: shapely's area of room minus wall
    from navkit.mesh.navmesh import NavMesh

    mesh = NavMesh.load(out)
    union = shapely.union_all([shapely.Polygon(p) for p in mesh.arrays.polygons()])
    assert union.area == pytest.approx(100 - 16, abs=1e-9)
    with Image.open(png) as img:
        assert max(img.size) == draw.DEFAULT_SIZE + 16  # 1200 px plus the 8 px margins
    # the table form
    res = _invoke("mesh", level, "-o", tmp_path / "again.npz")
    assert res.exit_code == 0 and "polygons" in res.stdout


def test_mesh_of_a_grid(tmp_path: Path) -> None:
    mp = tmp_path / "tiny.map"
    mp.write_text(GRID_MAP)
    res = _invoke("mesh", "--grid", mp, "-o", tmp_path / "tiny.npz", "--json")
    assert res.exit_code == 0, res.output
    info = _json(res)
    assert info["kind"] == "grid" and info["regions"] == 1
    assert info["bounds"] == [0.0, 0.0, 6.0, 4.0]


def test_mesh_bad_input(level: Path, tmp_path: Path) -> None:
    assert _invoke("mesh", "-o", tmp_path / "x.npz").exit_code == 2  # no source
    assert _invoke("mesh", level).exit_code == 2  # nothing to write
    assert _invoke("mesh", level, "--grid", level, "-o", tmp_path / "x.npz").exit_code == 2
    assert _invoke("mesh", level, "-o", tmp_path / "x.npz", "--chord-error", "-1").exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"areas": [{"name": "a", "polygon": [[0, 0], [1, 0]]}]}')
    res = _invoke("mesh", bad, "-o", tmp_path / "x.npz")
    assert res.exit_code == 2 and "polygon" in res.stderr
    assert _invoke("mesh", tmp_path / "missing.json", "-o", tmp_path / "x.npz").exit_code == 2


@pytest.mark.parametrize("method", ["exact", "funnel"])
def test_path_on_a_level(level: Path, tmp_path: Path, method: str) -> None:
    png = tmp_path / f"{method}.png"
    res = _invoke("path", level, "--from", "1,1", "--to", "9,1", "--method", method,
                  "--json", "--png", png)
    assert res.exit_code == 0, res.output
    out = _json(res)
    assert out["status"] == "FOUND" and out["mode"] == "mesh" and out["method"] == method
    wp = np.asarray(out["waypoints"])
    assert wp[0].tolist() == [1.0, 1.0] and wp[-1].tolist() == [9.0, 1.0]
    # the length is the polyline's, and never below the wall detour (exact: equal)
    assert out["length"] == pytest.approx(float(np.hypot(*np.diff(wp, axis=0).T).sum()))
    if method == "exact":
        assert out["length"] == pytest.approx(WALL_PATH, abs=1e-9)
    else:
        assert out["length"] >= WALL_PATH - 1e-9
    assert out["timeUs"] > 0 and out["firstCallMs"] > 0 and png.is_file()


def test_path_from_a_saved_mesh_and_a_grid(level: Path, tmp_path: Path) -> None:
    npz = tmp_path / "room.npz"
    assert _invoke("mesh", level, "-o", npz).exit_code == 0
    res = _invoke("path", npz, "--from", "1,1", "--to", "9,1", "--json")
    assert res.exit_code == 0, res.output
    out = _json(res)
    assert out["source"] == "mesh" and out["length"] == pytest.approx(WALL_PATH, abs=1e-9)
    mp = tmp_path / "tiny.map"
    mp.write_text(GRID_MAP)
    res = _invoke("path", mp, "--from", "0.5,0.5", "--to", "5.5,0.5", "--json")
    assert res.exit_code == 0, res.output
    out = _json(res)
    # around the wall's foot at (2, 3)..(3, 3): two straight legs over its corners
    want = math.hypot(1.5, 2.5) + 1.0 + math.hypot(2.5, 2.5)
    assert out["source"] == "grid" and out["length"] == pytest.approx(want, abs=1e-9)


def test_path_table_unreachable_and_nearest(tmp_path: Path) -> None:
    p = tmp_path / "two.json"
    p.write_text(json.dumps(TWO_ROOMS))
    png = tmp_path / "none.png"
    res = _invoke("path", p, "--from", "1,1", "--to", "22,2", "--png", png)
    assert res.exit_code == 1 and "UNREACHABLE" in res.stdout and png.is_file()
    res = _invoke("path", p, "--from", "1,1", "--to", "22,2", "--nearest", "--json")
    assert res.exit_code == 0, res.output
    out = _json(res)
    assert out["status"] == "NEAREST"
    # the reachable point nearest (22, 2) is (5, 2) on room a's wall
    assert out["waypoints"][-1] == pytest.approx([5.0, 2.0], abs=1e-9)
    res = _invoke("path", p, "--from", "1,1", "--to", "4,4")
    assert res.exit_code == 0 and "FOUND" in res.stdout and "waypoints" in res.stdout


def test_path_with_an_obstacle(level: Path) -> None:
    free = _json(_invoke("path", level, "--from", "1,9", "--to", "9,9", "--json"))
    assert free["length"] == pytest.approx(8.0, abs=1e-9)
    res = _invoke("path", level, "--from", "1,9", "--to", "9,9", "--obstacle", "5,9,0.5",
                  "--json")
    assert res.exit_code == 0, res.output
    out = _json(res)
    assert out["obstacles"] == 1 and out["length"] > 8.0
    # every waypoint keeps out of the circle (chords may graze it by the chord error)
    wp = np.asarray(out["waypoints"])
    seg = shapely.LineString(wp)
    assert seg.distance(shapely.Point(5, 9)) >= 0.5 - 0.01


def test_path_bad_input(level: Path) -> None:
    for args in (["--from", "1", "--to", "9,1"], ["--from", "1,1", "--to", "x,1"],
                 ["--from", "1,1", "--to", "9,1", "--method", "dijkstra"],
                 ["--from", "1,1", "--to", "9,1", "--obstacle", "1,2"]):
        assert _invoke("path", level, *args).exit_code == 2, args
    with pytest.raises(typer.BadParameter):
        mesh_path(level, "1,1", "9,1", cells=True)
    with pytest.raises(typer.BadParameter):
        mesh_path(level, "1,1", "9,1", method="astar")
    assert mesh_path(level, "1,1", "9,1", method=MeshMethod.funnel, as_json=True) == 0


def test_draw_colours() -> None:
    from navkit.mesh.navmesh import NavMesh

    mesh = NavMesh.from_level(LEVEL)
    img = draw.draw_mesh(mesh, size=100, margin=0)
    assert img.size == (100, 100)
    px = img.load()
    assert px[50, 40] == draw.BLOCKED_COLOR  # inside the wall (x 4..6, z 0..8)
    assert px[20, 90] == draw.POLYGON_COLOR or px[20, 90] == draw.PORTAL_COLOR
    r = mesh.find_path((1, 1), (9, 1))
    img = draw.draw_mesh(mesh, paths=[r], markers=[(5, 9)], size=200, margin=4)
    assert img.size == (208, 208)
    with pytest.raises(Exception, match="size"):
        draw.draw_mesh(mesh, size=3)
    with pytest.raises(Exception, match="NavMesh"):
        draw.draw_mesh("not a mesh")

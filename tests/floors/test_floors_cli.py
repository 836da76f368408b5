"""``navkit path`` on a building: floors and links in the answer, cells FLOOR,X,Z."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from navkit.cli import app
from navkit.floors import FloorMap

TAVERN = Path(__file__).resolve().parents[2] / "navkit" / "examples" / "tavern.json"
runner = CliRunner()


def test_path_json_lists_floors_and_links_and_matches_the_library():
    got = runner.invoke(app, ["path", str(TAVERN), "--from", "1,0,1", "--to", "16.5,3.2,2",
                              "--json"])
    assert got.exit_code == 0, got.output
    out = json.loads(got.output)
    ref = FloorMap(TAVERN).find_path((1, 0, 1), (16.5, 3.2, 2))
    assert out["status"] == "FOUND"
    assert out["floors"] == ["ground", "upstairs"]
    assert [lk["name"] for lk in out["links"]] == ref.link_names == ["stairs"]
    assert out["costInt"] == ref.cost_int and abs(out["length"] - ref.length) < 1e-9
    assert len(out["waypoints"][0]) == 3


def test_path_cells_by_floor_name_and_the_png_per_floor(tmp_path):
    png = tmp_path / "p.png"
    got = runner.invoke(app, ["path", str(TAVERN), "--cells", "--from", "ground,4,4",
                              "--to", "upstairs,70,10", "--png", str(png)])
    assert got.exit_code == 0, got.output
    assert png.is_file() and (tmp_path / "p-ground.png").is_file() and \
        (tmp_path / "p-upstairs.png").is_file()


def test_a_one_way_jump_is_not_climbed_back():
    down = runner.invoke(app, ["path", str(TAVERN), "--from", "19,3.2,4", "--to", "17,0,8",
                               "--json"])
    out = json.loads(down.output)
    assert out["links"][0]["name"] == "window"
    up = json.loads(runner.invoke(app, ["path", str(TAVERN), "--from", "17,0,8",
                                        "--to", "19,3.2,4", "--json"]).output)
    assert "window" not in [lk["name"] for lk in up["links"]]


def test_bad_floor_exits_2():
    got = runner.invoke(app, ["path", str(TAVERN), "--cells", "--from", "attic,1,1",
                              "--to", "0,1,1"])
    assert got.exit_code == 2 and "attic" in got.output

"""``navkit path / scen / info`` on a baked world (typer's CliRunner on navkit.cli.app)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from navkit.cli import app
from navkit.formats import read_map
from navkit.query.pathfinder import Pathfinder
from navkit.world import bake

MAP = """type octile
height 40
width 50
map
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("w")
    rng = np.random.default_rng(4)
    walk = rng.random((40, 50)) > 0.2
    rows = ["".join("." if v else "@" for v in row) for row in walk]
    (d / "m.map").write_text(MAP + "\n".join(rows) + "\n")
    grid = read_map(d / "m.map")
    bake(grid, d / "m.nkw", chunk=16, progress=False)
    pf = Pathfinder(grid, "exact")
    free = np.argwhere(grid.walkable)
    lines = ["version 1"]
    for _ in range(12):
        (sz, sx), (gz, gx) = free[rng.integers(len(free))], free[rng.integers(len(free))]
        r = pf.find_path_cells((int(sx), int(sz)), (int(gx), int(gz)))
        if r.found:
            lines.append(f"0\tm.map\t50\t40\t{sx}\t{sz}\t{gx}\t{gz}\t{r.cost_int / 1e6:.8f}")
    (d / "m.map.scen").write_text("\n".join(lines) + "\n")
    return d, grid


def test_path_on_world_equals_path_on_map(files):
    d, grid = files
    runner = CliRunner()
    free = np.argwhere(grid.walkable)
    (sz, sx), (gz, gx) = free[0], free[-1]
    args = ["--from", f"{sx},{sz}", "--to", f"{gx},{gz}", "--cells", "--json"]
    a = runner.invoke(app, ["path", str(d / "m.map"), *args])
    b = runner.invoke(app, ["path", str(d / "m.nkw"), *args])
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert a.exit_code == b.exit_code
    for k in ("status", "costInt", "numCells"):
        assert ja[k] == jb[k]
    c = runner.invoke(app, ["path", str(d / "m.nkw"), "--from", "5.5,5.5", "--to", "9.5,7.5",
                            "--preset", "bounded", "--json"])
    jc = json.loads(c.stdout)
    e = runner.invoke(app, ["path", str(d / "m.map"), "--from", "5.5,5.5", "--to", "9.5,7.5",
                            "--preset", "bounded", "--json"])
    je = json.loads(e.stdout)
    assert jc["preset"] == "bounded" and jc["status"] == je["status"]
    assert jc["costInt"] == je["costInt"]


def test_scen_on_world(files):
    d, _ = files
    runner = CliRunner()
    a = runner.invoke(app, ["scen", str(d / "m.map.scen"), "--map", str(d / "m.map"), "--json"])
    b = runner.invoke(app, ["scen", str(d / "m.map.scen"), "--map", str(d / "m.nkw"), "--json"])
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert b.exit_code == 0, b.stdout
    assert set(ja) <= set(jb)
    assert ja["matched"] == jb["matched"] == ja["total"]
    assert jb["algorithm"].startswith("world:")
    h = runner.invoke(app, ["scen", str(d / "m.map.scen"), "--map", str(d / "m.nkw"),
                            "--algorithm", "hpa", "--json"])
    jh = json.loads(h.stdout)
    assert h.exit_code == 0 and jh["invalidPaths"] == 0
    assert "hierarchy" in jh["algorithm"] or "local" in jh["algorithm"]


def test_info_on_world(files):
    d, _ = files
    r = CliRunner().invoke(app, ["info", str(d / "m.nkw"), "--json"])
    assert r.exit_code == 0
    j = json.loads(r.stdout)
    assert j["width"] == 50 and j["depth"] == 40 and j["chunk"] == 16

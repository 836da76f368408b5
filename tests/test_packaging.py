"""The install story: a wheel built from this checkout works outside it.

The wheel is built in a temporary folder and installed, **with no extra**,
into a fresh virtual environment; its dependencies come from the package
registry, as a user's would (nothing is borrowed from this environment, so a
dependency missing from ``pyproject.toml`` fails here). Everything then runs
from a folder outside the repository, with ``NUMBA_CACHE_DIR`` set to a
temporary folder that every step shares (each kernel compiles once):

1. ``navkit warmup`` (the kernels of every group, compiled in parallel);
2. every public feature's first call, in one Python process
   (:data:`FEATURES`): grid A*, JPS+, HPA*, flow fields, exact and funnel
   mesh paths, a crowd, the simulation on a grid, a mesh and a world, a building
   (paths across floors on grids and meshes, characters climbing stairs), a
   world baked and queried, LDtk reading (no extra), and Tiled and the
   viewer naming the extra they need;
3. every command on a bundled example, the bundled examples' listing
   (``python -m navkit.examples``), an engine example, the README's example;
   every shell command of README.md and docs/*.md as written (the rules of
   what is run are in ``tests/test_docs_commands.py``), and every ``python``
   block of the README, checked against the output it shows;
4. the extras: the requirements the wheel declares for ``tiled`` and
   ``viewer`` are installed into a folder put on ``PYTHONPATH`` (the venv
   itself keeps no extra, so steps 1-3 see the same install in any test
   order), then Tiled reading and the viewer's HTTP API under a real
   ``navkit view`` server.

The maps are tiny: the time goes to the install and to compiling the kernels
(``navkit warmup``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import venv
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.test_docs_commands import Block, rule_for, runnable_blocks

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

#: Seconds each step took (printed at the end of the module with ``-s``).
TIMES: dict[str, float] = {}


def readme_example() -> str:
    """The README's library example (its first ``python`` block under "Using the
    library"), as the README shows it, followed by checks of what it computed:
    the figures its comment states, and the answers against a second search."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Using the library"):]
    start = section.index("```python\n") + len("```python\n")
    block = section[start:section.index("```", start)]
    return block + stated_figures(block) + CHECKS


#: The README's comment on ``r.status, r.cost, r.expanded``: ``# (Status.FOUND, 347.977754, 87)``.
_STATED = re.compile(r"^r\.status, r\.cost, r\.expanded\s+#\s*\(Status\.(\w+), ([\d.]+), (\d+)\)",
                     re.M)


def stated_figures(block: str) -> str:
    """Asserts that ``r`` is what the README's comment says it is."""
    m = _STATED.search(block)
    assert m, "the README example no longer states r.status, r.cost, r.expanded"
    status, cost, expanded = m.group(1), float(m.group(2)), int(m.group(3))
    return (f"\nassert (r.status.name, round(r.cost, 6), r.expanded) == "
            f"({status!r}, {cost!r}, {expanded!r}), (r.status, r.cost, r.expanded)\n")


#: Run after the README's block, in the same namespace: the answers against
#: Dijkstra's (the oracle), the batch against the single queries.
CHECKS = """
ref = pf.find_path_cells((12, 208), (77, 36), algorithm="dijkstra")
assert r.cost_int == ref.cost_int and w.cost_int == r.cost_int, (r, ref, w)
assert r.status.name == "FOUND" and n.status.name == "NEAREST" and n.has_path, (r, n)
assert list(b.cost_int) == [r.cost_int, pf.find_path_cells((20, 200), (70, 40)).cost_int]
assert d.shape == grid.walkable.shape and abs(d[36, 77] - r.cost) < 1e-9, d[36, 77]
assert "site-packages" in navkit.__file__, navkit.__file__
print("README example OK", navkit.__version__)
"""


def test_the_readme_block_is_found() -> None:
    code = readme_example()
    assert "navkit.examples.path(" in code and "find_path_cells" in code
    compile(code, "README.md", "exec")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 900,
         step: str | None = None) -> str:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout)
    if step is not None:
        TIMES[step] = TIMES.get(step, 0.0) + time.perf_counter() - t0
    assert r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


class Install:
    """The venv with the wheel: its python, its ``navkit`` script, the environment
    every step runs in, a folder outside the repository, and the wheel."""

    def __init__(self, base: Path, wheel: Path, env: dict[str, str]):
        self.base = base
        self.wheel = wheel
        self.env = env
        self.py = base / "venv" / "bin" / "python"
        self.navkit = base / "venv" / "bin" / "navkit"
        self.outside = base / "elsewhere"

    def run(self, *args: str | Path, step: str = "commands", env: dict[str, str] | None = None,
            timeout: float = 900) -> str:
        return _run([str(a) for a in args], self.outside, env or self.env, timeout, step)

    def cli(self, *args: str | Path, step: str = "commands") -> str:
        return self.run(self.navkit, *args, step=step)

    def example(self, name: str) -> str:
        return self.run(self.py, "-m", "navkit.examples", name).strip()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A fresh venv with the wheel installed (no extra), warmed up."""
    base = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "NAVKIT_NUMBA_CACHE", "NAVKIT_TRACEBACK")}
    env["NUMBA_CACHE_DIR"] = str(base / "numba-cache")  # shared by every step below
    env["PYTHONUNBUFFERED"] = "1"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"),
          str(ROOT)], base, env, step="build the wheel")
    wheels = list((base / "dist").glob("navkit-*.whl"))
    assert len(wheels) == 1, wheels
    t0 = time.perf_counter()
    venv.EnvBuilder(with_pip=True).create(base / "venv")
    TIMES["install (venv + wheel + dependencies)"] = time.perf_counter() - t0
    inst = Install(base, wheels[0], env)
    inst.outside.mkdir()
    inst.run(inst.py, "-m", "pip", "install", "-q", str(wheels[0]),
             step="install (venv + wheel + dependencies)", timeout=1800)
    out = inst.cli("warmup", "--json", "--no-progress", step="navkit warmup (every kernel)")
    report = json.loads(out)
    assert report["failed"] == 0 and "numba-cache" in report["cacheDir"], report
    yield inst
    total = sum(TIMES.values())
    groups = ", ".join(f"{g['group']} {g['cpuS']:.0f}" for g in report["groups"])
    print("\nwheel test steps (s): " + ", ".join(f"{k} {v:.1f}" for k, v in TIMES.items())
          + f"; total {total:.1f}; warmup CPU s by group: {groups}")


def test_no_extra_is_installed(installed: Install) -> None:
    out = installed.run(installed.py, "-c",
                        "import importlib.util as u; print([m for m in ('starlette', 'uvicorn', "
                        "'websockets', 'pytiled_parser', 'dask', 'blosc2', 'pygame', 'arcade') "
                        "if u.find_spec(m)])")
    assert out.strip() == "[]", out


def test_the_readme_example_runs_from_the_wheel(installed: Install) -> None:
    out = installed.run(installed.py, "-c", readme_example(), step="README example")
    assert "README example OK" in out


# ------------------------------------------------------------- every feature's first call
#: One function per public feature, each on a tiny map; the script prints one
#: JSON line per feature (its name, "ok" or the error, seconds). ``sys.argv[1]``:
#: a scratch folder; ``sys.argv[2]``: an LDtk file.
FEATURES = r'''
import json, math, sys, time, traceback
from pathlib import Path

import numpy as np

import navkit
from navkit.errors import MissingExtraError

OUT = Path(sys.argv[1])
LDTK = Path(sys.argv[2])
print(json.dumps({"feature": "_navkit_file", "ok": True, "file": navkit.__file__, "seconds": 0}))


def walk():
    w = np.ones((16, 20), dtype=bool)
    w[2:14, 9] = False  # a wall with gaps at both ends
    w[8, 3:8] = False
    return w


GRID = navkit.NavGrid(walk(), cell_size=1.0)
A, B = (2, 10), (17, 10)
PA, PB = (2.5, 10.5), (17.5, 10.5)
REF = {}


def grid_astar():
    pf = navkit.Pathfinder(GRID, "exact")
    r = pf.find_path_cells(A, B, algorithm="astar")
    d = pf.find_path_cells(A, B, algorithm="dijkstra")
    assert r.status.name == "FOUND" and r.cost_int == d.cost_int, (r, d)
    REF["cost"] = r.cost_int
    w = pf.find_path(PA, PB)
    assert w.has_path and len(w.waypoints) >= 2


def grid_jps_plus():
    pf = navkit.Pathfinder(GRID, "exact")
    pf.precompute(goal_bounds=True)
    r = pf.find_path_cells(A, B, algorithm="jps+")
    j = pf.find_path_cells(A, B, algorithm="jps")
    assert r.status.name == "FOUND" and r.cost_int == j.cost_int == REF["cost"], (r, j)


def hpa_star():
    h = navkit.HPAStar(GRID, "exact", cluster_size=8)
    r = h.find_path_cells(A, B)
    assert r.status.name == "FOUND" and r.cost_int >= REF["cost"], r


def flow_field():
    f = navkit.FlowField(GRID, costs="exact").build([B])
    d = f.lookup(np.array([PA]))
    assert np.all(np.isfinite(d)) and np.hypot(*d[0]) > 0.5, d


def mesh_exact_and_funnel():
    m = navkit.NavMesh.from_grid(GRID)
    e = m.find_path(PA, PB, method="exact")
    f = m.find_path(PA, PB, method="funnel")
    assert e.found and f.found, (e, f)
    assert math.dist(PA, PB) <= e.length <= f.length + 1e-9, (e.length, f.length)
    assert e.length <= REF["cost"] / 1_000_000 + 1e-9  # any-angle beats the 8-connected grid
    from navkit.level import parse_level
    level = parse_level({"cellSize": 0.5, "areas": [
        {"name": "a", "polygon": [[0, 0], [6, 0], [6, 4], [0, 4]]},
        {"name": "b", "polygon": [[5, 3], [9, 3], [9, 8], [5, 8]]}]})
    lm = navkit.NavMesh.from_level(level)
    assert lm.find_path((1.0, 1.0), (8.0, 7.0)).found
    m.save(OUT / "grid_mesh.npz")
    assert navkit.NavMesh.load(OUT / "grid_mesh.npz").n_polygons == m.n_polygons


def crowd():
    from navkit.crowd import Crowd, Weights
    pos = np.array([[1.5, 1.5], [2.5, 1.5], [1.5, 2.5], [3.0, 3.0]])
    c = Crowd(pos, grid=GRID, weights=Weights(flow=1.0, separation=1.5, walls=2.0),
              max_speed=1.5, seed=7)
    c.follow_flow(c.add_flow_field(navkit.FlowField(GRID).build([B])))
    c.run(40, 0.05)
    assert np.all(np.isfinite(c.positions)) and not np.allclose(c.positions, pos)


def _characters(loc):
    loc.add_character("a", position=(2.5, 10.5))
    loc.add_character("b", position=(2.5, 4.5))
    loc["a"].set_target((17.5, 10.5))
    loc["b"].set_target((17.5, 4.5))
    start = loc.positions().copy()
    loc.run(60)
    assert not np.allclose(loc.positions(), start)
    return loc


def sim_grid():
    from navkit.sim import Location, load_scene
    _characters(Location(GRID))
    loc = load_scene(navkit.examples.path("scenes/follow.json"))
    loc.run(20)
    loc.save(OUT / "state.json")
    assert load_scene(OUT / "state.json").tick == 20


def sim_mesh():
    from navkit.sim import Location
    _characters(Location(navkit.NavMesh.from_grid(GRID)))


def sim_world():
    from navkit.sim import Location
    from navkit.world.world import World
    _characters(Location(World.from_grid(GRID, chunk=16)))


def world_bake_and_query():
    from navkit.world import bake
    from navkit.world.world import World
    path = OUT / "tiny.nkw"
    bake(GRID, path, chunk=16)
    w = World.open(path)
    r = w.find_path_cells(A, B)
    assert r.status.name == "FOUND" and r.cost_int == navkit.Pathfinder(GRID).find_path_cells(
        A, B).cost_int, r


def floors_grid_mesh_and_sim():
    from navkit.floors import BuildingSim, FloorMesh

    fm = navkit.FloorMap(navkit.examples.path("tavern.json"))
    r = fm.find_path((1.0, 0.0, 1.0), (16.5, 3.2, 2.0))
    assert r.status.name == "FOUND" and r.link_names == ["stairs"], r
    assert r.cost_int == fm.find_path((1.0, 0.0, 1.0), (16.5, 3.2, 2.0),
                                      algorithm="layered").cost_int
    m = FloorMesh(fm.building, weights="ignore").find_path((1.0, 1.0), (16.5, 2.0),
                                                            start_floor=0, goal_floor=1)
    assert m.status.name == "FOUND" and m.length < r.length, (m.length, r.length)
    sim = BuildingSim(fm.building)
    sim.add_character("a", position=(9.0, 0.0, 2.0))
    assert sim.set_target("a", (12.0, 3.2, 5.0))
    sim.run(200)
    assert sim.floor_of("a") == 1, sim.position("a")


def ldtk_reading():
    g = navkit.load_grid(LDTK)
    assert g.walkable.any()


def tiled_names_its_extra():
    try:
        navkit.load_grid(navkit.examples.path("dungeon.tmj"))
    except MissingExtraError as exc:
        assert "navkit[tiled]" in str(exc), exc
    else:
        raise AssertionError("read a Tiled map without pytiled_parser")


def viewer_names_its_extra():
    try:
        import navkit.viewer.server  # noqa: F401
    except MissingExtraError as exc:
        assert "navkit[viewer]" in str(exc), exc
    else:
        raise AssertionError("imported the viewer's server without starlette")


for fn in [grid_astar, grid_jps_plus, hpa_star, flow_field, mesh_exact_and_funnel, crowd,
           sim_grid, sim_mesh, sim_world, world_bake_and_query, floors_grid_mesh_and_sim,
           ldtk_reading, tiled_names_its_extra, viewer_names_its_extra]:
    t0 = time.perf_counter()
    try:
        fn()
        out = {"feature": fn.__name__, "ok": True}
    except BaseException:
        out = {"feature": fn.__name__, "ok": False, "error": traceback.format_exc()}
    out["seconds"] = round(time.perf_counter() - t0, 3)
    print(json.dumps(out), flush=True)
'''

FEATURE_NAMES = ["grid_astar", "grid_jps_plus", "hpa_star", "flow_field", "mesh_exact_and_funnel",
                 "crowd", "sim_grid", "sim_mesh", "sim_world", "world_bake_and_query",
                 "floors_grid_mesh_and_sim", "ldtk_reading", "tiled_names_its_extra",
                 "viewer_names_its_extra"]


@pytest.fixture(scope="module")
def features(installed: Install) -> dict[str, dict[str, Any]]:
    scratch = installed.outside / "features"
    scratch.mkdir()
    ldtk = shutil.copy(ROOT / "tests" / "formats" / "fixtures" / "dungeon.ldtk", scratch)
    script = installed.outside / "features.py"
    script.write_text(FEATURES, encoding="utf-8")
    r = subprocess.run([str(installed.py), str(script), str(scratch), str(ldtk)],
                       cwd=str(installed.outside), env=installed.env, capture_output=True,
                       text=True, timeout=1800)
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    for row in rows:
        TIMES[f"feature {row['feature']}"] = row["seconds"]
    assert r.returncode == 0, r.stderr
    out = {row["feature"]: row for row in rows}
    assert "site-packages" in out["_navkit_file"]["file"], out["_navkit_file"]
    return out


@pytest.mark.parametrize("name", FEATURE_NAMES)
def test_each_feature_works_from_a_clean_install(features: dict[str, dict[str, Any]],
                                                 name: str) -> None:
    assert name in features, f"{name} did not run: {sorted(features)}"
    row = features[name]
    assert row["ok"], row.get("error")


# ------------------------------------------------------------------------ commands
def test_the_examples_are_bundled_and_listed(installed: Install) -> None:
    listing = installed.run(installed.py, "-m", "navkit.examples", "--json")
    rows = {r["name"]: r for r in json.loads(listing)}
    for name in ("den520d.map", "interior.json", "scenes/interior_crowd.json",
                 "scenes/interior_crowd_mesh.json", "crowds/flock.json", "crowds/hall.json",
                 "engines/pygame_chase.py", "engines/arcade_rts.py", "dungeon.tmj"):
        assert name in rows and "site-packages" in rows[name]["path"], name
        assert Path(rows[name]["path"]).is_file() and rows[name]["description"], name
    assert installed.example("interior_crowd.json") == rows["scenes/interior_crowd.json"]["path"]
    text = installed.run(installed.py, "-m", "navkit.examples")
    assert "scenes/follow.json" in text and "site-packages" in text


def test_an_engine_example_runs_from_the_wheel(installed: Install) -> None:
    png = installed.outside / "rts.png"
    out = installed.run(installed.py, "-m", "navkit.examples.engines.arcade_rts", "--headless",
                        "--renderer", "pillow", "--frames", "30", "--png", png)
    assert "blocked=0" in out and png.stat().st_size > 0, out
    r = subprocess.run([str(installed.py), "-m", "navkit.examples.engines.pygame_chase",
                        "--headless", "--frames", "5"], cwd=str(installed.outside),
                       env=installed.env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "pip install 'navkit[pygame]'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_the_command_line_runs_from_the_wheel(installed: Install) -> None:
    nk = installed.cli
    out_dir = installed.outside / "cli"
    out_dir.mkdir()
    assert "path" in nk("--help")
    den = installed.example("den520d.map")
    arena = installed.example("arena.map")
    interior = installed.example("interior.json")

    def js(*args: str | Path) -> dict[str, Any]:
        return json.loads(nk(*args, "--json"))

    assert js("path", den, "--from", "12,208", "--to", "77,36", "--cells")["status"] == "FOUND"
    nk("precompute", arena, "-o", out_dir / "arena.jps.npz")
    r = js("path", arena, "--cells", "--from", "3,3", "--to", "40,40", "--costs", "exact",
           "--algorithm", "jps+", "--tables", out_dir / "arena.jps.npz")
    assert r["status"] == "FOUND"
    r = js("path", interior, "--mesh", "--from", "-2,9", "--to", "24,4")
    assert r["status"] == "FOUND" and r["mode"] == "mesh"
    r = js("path", installed.example("tavern.json"), "--from", "1,0,1", "--to", "16.5,3.2,2")
    assert r["status"] == "FOUND" and r["floors"] == ["ground", "upstairs"], r
    r = js("mesh", interior, "-o", out_dir / "interior_mesh.npz", "--png",
           out_dir / "interior_mesh.png")
    assert r["polygons"] > 0 and (out_dir / "interior_mesh.png").stat().st_size > 0
    r = js("path", out_dir / "interior_mesh.npz", "--mesh", "--algorithm", "funnel",
           "--from", "-2,9", "--to", "24,4")
    assert r["status"] == "FOUND" and r["source"] == "mesh"
    r = js("mesh", "--grid", arena, "-o", out_dir / "arena_mesh.npz")
    assert r["kind"] == "grid" and r["polygons"] > 0
    r = js("sim", installed.example("follow.json"), "--ticks", "40", "--save",
           out_dir / "state.json")
    assert r["endTick"] == 40 and (out_dir / "state.json").is_file()
    r = js("sim", installed.example("interior_crowd_mesh.json"), "--ticks", "5")
    assert r["characters"] == 60
    r = js("sim", installed.example("corridor_pass.json"), "--ticks", "10", "--avoidance", "orca")
    assert r["avoidance"] == "orca"
    r = js("flow", arena, "--goal", "40,40", "--cells")
    assert r["reached"] == r["walkable"] > 0, r
    assert js("info", arena)["width"] == 49
    nk("convert", arena, out_dir / "arena.txt")
    r = js("build", installed.example("bench80.json"), "-o", out_dir / "bench80.txt")
    assert r["width"] == 80
    r = js("scen", installed.example("arena.map.scen"), "--limit", "20")
    assert r["matched"] == r["total"] == 20 and r["mismatched"] == 0, r
    r = js("bake", arena, "-o", out_dir / "arena.nkw", "--chunk", "16")
    js("world", "info", out_dir / "arena.nkw")
    r = js("path", out_dir / "arena.nkw", "--cells", "--from", "3,3", "--to", "40,40")
    assert r["status"] == "FOUND"
    scene = out_dir / "arena_scene.json"  # a scene on a map file: its corpus names the map
    scene.write_text(json.dumps({
        "navigation": arena, "characters": [{"id": "a", "position": [3.5, 3.5]}],
        "commands": [{"tick": 0, "character": "a", "moveTo": [40.5, 40.5]}]}))
    r = js("sim", scene, "--ticks", "20", "--record-queries", out_dir / "q.jsonl")
    assert r["queriesRecorded"] >= 1, r
    r = js("replay", out_dir / "q.jsonl", "--quiet")
    assert r["ok"] and r["replayed"] == r["matches"] >= 1, r
    out = nk("bench-level", "--quick")
    assert "navmap" in out.lower() or "queries" in out.lower()


def test_the_command_line_names_missing_extras(installed: Install) -> None:
    """The viewer and the distributed runner: exit 2 and the extra to install."""
    for args, extra in [(["view", "x.map"], "navkit[viewer]"),
                        (["batch", installed.example("arena.map.scen")], "navkit[distributed]")]:
        r = subprocess.run([str(installed.navkit), *args], cwd=str(installed.outside),
                           env=installed.env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and extra in r.stderr, (args, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr
    r = subprocess.run([str(installed.py), "-c", "import navkit.viewer.server"],
                       cwd=str(installed.outside), env=installed.env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode != 0 and "pip install 'navkit[viewer]'" in r.stderr, r.stderr


# ------------------------------------------------------------ the documentation, as written
DOC_BLOCKS = runnable_blocks()


def _scratch(installed: Install, name: str) -> Path:
    """A fresh folder outside the repository for one documentation block."""
    d = installed.outside / "docs" / re.sub(r"[^\w.-]+", "_", name)
    d.mkdir(parents=True)
    return d


@pytest.mark.parametrize("block", DOC_BLOCKS, ids=[b.where for b in DOC_BLOCKS])
def test_every_documented_command_runs_from_the_wheel(installed: Install, block: Block) -> None:
    """Each command of a shell block of README.md / docs/*.md, in the venv (its
    ``navkit`` and ``python`` first on PATH), in a folder of its own outside the
    repository; the commands of one block share the folder. Skipped commands
    and blocks: tests/test_docs_commands.py."""
    folder = _scratch(installed, block.where)
    path = f"{installed.py.parent}{os.pathsep}{installed.env.get('PATH', '')}"
    env = dict(installed.env, PATH=path)
    for command in block.commands:
        kind, _ = rule_for(command)
        assert kind != "none", (block.where, command, "no rule: see tests/test_docs_commands.py")
        if kind == "skip":
            continue
        t0 = time.perf_counter()
        r = subprocess.run(["bash", "-c", command], cwd=str(folder), env=env, capture_output=True,
                           text=True, timeout=600)
        TIMES["documented commands"] = TIMES.get("documented commands", 0.0) + (
            time.perf_counter() - t0)
        assert r.returncode == 0, (f"{block.where}: `{command}` exited {r.returncode}\n"
                                   f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}")


def readme_python_blocks() -> list[tuple[str, str, str | None]]:
    """Every ``python`` block of the README: (where, code, the output it shows or
    None), the output being a ``text`` block that follows it directly."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    pattern = re.compile(r"^```python\n(.*?)^```\n(?:\s*\n)*(?:```text\n(.*?)^```)?",
                         re.M | re.S)
    return [(f"README.md:{text.count(chr(10), 0, m.start()) + 1}", m.group(1), m.group(2))
            for m in pattern.finditer(text)]


def test_the_readme_python_blocks_are_found() -> None:
    blocks = readme_python_blocks()
    assert len(blocks) >= 3 and sum(out is not None for _, _, out in blocks) >= 2, blocks


@pytest.mark.parametrize("where,code,shown", readme_python_blocks(),
                         ids=[w for w, _, _ in readme_python_blocks()])
def test_the_readme_python_blocks_run_from_the_wheel(installed: Install, where: str, code: str,
                                                     shown: str | None) -> None:
    """Each README ``python`` block runs from the wheel as written, and prints
    exactly the output the README shows after it."""
    folder = _scratch(installed, where)
    r = subprocess.run([str(installed.py), "-c", code], cwd=str(folder), env=installed.env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{where}\n{r.stdout}\n{r.stderr}"
    if shown is not None:
        assert r.stdout.strip().splitlines() == shown.strip().splitlines(), (where, r.stdout)


# -------------------------------------------------------------------------- extras
def extra_requirements(wheel: Path, extras: tuple[str, ...]) -> list[str]:
    """The ``Requires-Dist`` lines of ``wheel`` for ``extras`` (markers dropped)."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    out = []
    for line in text.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req, _, marker = line[len("Requires-Dist:"):].partition(";")
        m = re.search(r"extra\s*==\s*[\"']([\w-]+)[\"']", marker)
        if m and m.group(1) in extras:
            out.append(req.strip())
    return out


@pytest.fixture(scope="module")
def with_extras(installed: Install) -> dict[str, str]:
    """The environment with the ``tiled`` and ``viewer`` extras' requirements on
    PYTHONPATH (installed into a folder of their own, as the wheel declares them)."""
    reqs = extra_requirements(installed.wheel, ("tiled", "viewer"))
    assert any(r.startswith("starlette") for r in reqs) and any(
        r.startswith("pytiled-parser") for r in reqs), reqs
    target = installed.base / "extras"
    installed.run(installed.py, "-m", "pip", "install", "-q", "--target", target, *reqs,
                  step="install the tiled and viewer extras", timeout=1800)
    return dict(installed.env, PYTHONPATH=str(target))


def test_tiled_reads_with_its_extra(installed: Install, with_extras: dict[str, str]) -> None:
    code = ("import navkit; g = navkit.load_grid(navkit.examples.path('dungeon.tmj')); "
            "assert g.walkable.any() and g.meta['doors'], g; print(g.width, g.depth)")
    out = installed.run(installed.py, "-c", code, env=with_extras, step="extras: Tiled")
    assert re.fullmatch(r"\d+ \d+\s*", out), out
    info = json.loads(installed.run(installed.navkit, "info", installed.example("dungeon.tmj"),
                                    "--json", env=with_extras, step="extras: Tiled"))
    assert info["walkable"] > 0


def _http(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        raw = r.read()
        return json.loads(raw) if r.headers.get_content_type() == "application/json" else raw


def test_the_viewer_serves_its_api(installed: Install, with_extras: dict[str, str]) -> None:
    """``navkit view`` on the bundled interior level: the page, the grid path, the
    mesh layer (it needs scipy: HTTP 500 before scipy was a dependency), a mesh path."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(installed.navkit), "view", installed.example("interior.json"),
                             "--no-open", "--port", "0"], cwd=str(installed.outside),
                            env=with_extras, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert m, (line, proc.poll())
        url = m.group(1)
        assert b"<html" in _http(url).lower()
        info = _http(url + "api/info")
        assert info["mesh"]["available"], info
        cells = _http(url + "api/path", {"start": [2, 40], "goal": [100, 20]})
        assert cells["status"] in ("FOUND", "NEAREST") or "error" not in cells, cells
        mesh = _http(url + "api/mesh")
        assert mesh["polygons"], sorted(mesh)
        out = _http(url + "api/mesh/path", {"start": [-2.0, 9.0], "goal": [24.0, 4.0],
                                            "methods": ["exact", "funnel"]})
        exact, funnel = out["paths"]["exact"], out["paths"]["funnel"]
        assert exact["found"] and funnel["found"], out
        assert exact["length"] <= funnel["length"] + 1e-9
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
        TIMES["extras: viewer"] = time.perf_counter() - t0

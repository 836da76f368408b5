"""Make the docs site's pictures with navkit itself: ``docs/images/site_*.png``.

Run from the repository root::

    python docs/make_pictures.py            # writes docs/images/site_*.png
    python docs/make_pictures.py --out DIR --quiet

Every picture comes from a bundled example and fixed inputs (no randomness), so
the files are the same on every run. A rich progress bar goes to stderr when it
is a terminal (``--quiet`` silences it). The first run compiles the kernels it
needs (``navkit warmup grid jps flow sim mesh`` does it ahead of time).

=========================  ========================================================
file                       what
=========================  ========================================================
``site_path.png``          exact A* paths on the Moving AI map ``den520d.map``
``site_heatmap.png``       the distance field of one source on ``den520d.map``
``site_flow.png``          a flow field to two goals on the ``outdoor.json`` level
``site_crowd.png``         the ``interior_crowd.json`` scene: 60 NPC trails
``site_navmesh.png``       the ``interior.json`` navigation mesh and an exact path
``site_floors.png``        the ``tavern.json`` building: a path up the stairs, floor by floor
=========================  ========================================================
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "images"
CROWD_SCENE = ROOT / "navkit" / "examples" / "scenes" / "interior_crowd.json"
#: Ticks of the crowd scene (20 Hz: 60 s of game time).
CROWD_TICKS = 1200

#: den520d queries: (start cell, goal cell), (x, z): the README's query and three of the
#: longest lines of den520d.map.scen (optimal 355.534, 354.421, 353.463).
DEN_QUERIES = [((12, 208), (77, 36)), ((15, 214), (239, 11)), ((138, 4), (18, 213)),
               ((155, 234), (17, 74))]


def picture_path(out: Path) -> Path:
    """Exact A* paths (cells thin, string-pulled waypoints thick) on den520d."""
    import navkit
    from navkit.render import render_grid, save_png

    grid = navkit.load_grid(navkit.examples.path("den520d.map"))
    pf = navkit.Pathfinder(grid, costs="exact")
    paths = []
    for start, goal in DEN_QUERIES:
        paths.append(pf.find_path(grid.cell_center(*start), grid.cell_center(*goal)))
    return save_png(render_grid(grid, paths=paths, scale=3), out / "site_path.png")


def picture_heatmap(out: Path) -> Path:
    """Every cell's exact cost from one source cell on den520d, as a heat map."""
    import navkit
    from navkit.render import render_grid, save_png

    grid = navkit.load_grid(navkit.examples.path("den520d.map"))
    pf = navkit.Pathfinder(grid, costs="exact")
    source = DEN_QUERIES[0][0]
    field = pf.distance_field([source])
    image = render_grid(grid, heat=field, markers=[source], scale=3)
    return save_png(image, out / "site_heatmap.png")


def picture_flow(out: Path) -> Path:
    """A flow field (cost heat map and directions) to two goals on outdoor.json."""
    import navkit
    from navkit.level import load_level
    from navkit.render import render_flow, save_png

    grid = load_level(navkit.examples.path("outdoor.json"))
    goals = [grid.world_to_cell(58.0, 12.0), grid.world_to_cell(2.0, 20.0)]
    goals = [g for g in goals if grid.walkable[g[1], g[0]]] or goals[:1]
    field = navkit.FlowField(grid).build(np.asarray(goals, dtype=np.int64))
    return save_png(render_flow(field), out / "site_flow.png")


def picture_crowd(out: Path, ticks: int = CROWD_TICKS) -> Path:
    """The interior crowd scene after ``ticks`` ticks: each NPC's trail and final circle."""
    from navkit.cli.sim import draw_location
    from navkit.render import save_png
    from navkit.sim import load_scene

    loc = load_scene(CROWD_SCENE)
    trails = [[(float(p[0]), float(p[1]))] for p in loc.positions()]
    for _ in range(ticks):
        loc.step()
        pos = loc.positions()
        if len(pos) == len(trails):
            for tr, p in zip(trails, pos, strict=True):
                tr.append((float(p[0]), float(p[1])))
    return save_png(draw_location(loc, trails), out / "site_crowd.png")


def picture_navmesh(out: Path) -> Path:
    """The interior level's navigation mesh with the exact any-angle path."""
    import navkit
    from navkit.render_mesh import write_png

    mesh = navkit.NavMesh.from_level(navkit.examples.path("interior.json"))
    r = mesh.find_path((-2.0, 9.0), (24.0, 4.0))
    return write_png(mesh, out / "site_navmesh.png", paths=[r], size=1000)


#: name -> function, in the order they are made.
def picture_floors(out: Path) -> Path:
    """The tavern building: from the taproom up the stairs to a room upstairs."""
    from navkit.floors import FloorMap
    from navkit.floors.render import render_building
    from navkit.render import save_png

    fm = FloorMap(ROOT / "navkit" / "examples" / "tavern.json")
    r = fm.find_path((1.0, 0.0, 1.0), (16.5, 3.2, 2.0))
    return save_png(render_building(fm.building, r, scale=6), out / "site_floors.png")


PICTURES: dict[str, Callable[[Path], Path]] = {
    "path": picture_path,
    "heatmap": picture_heatmap,
    "flow": picture_flow,
    "crowd": picture_crowd,
    "navmesh": picture_navmesh,
    "floors": picture_floors,
}


def make_pictures(out: Path = DEFAULT_OUT, *, only: list[str] | None = None,
                  progress: bool = True) -> dict[str, Path]:
    """Make the pictures (all, or those named in ``only``) in ``out``; returns name -> file."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    names = list(PICTURES) if only is None else only
    unknown = [n for n in names if n not in PICTURES]
    if unknown:
        raise SystemExit(f"error: unknown picture(s) {unknown}; known: {list(PICTURES)}")
    out.mkdir(parents=True, exist_ok=True)
    console = Console(file=sys.stderr)
    made: dict[str, Path] = {}
    with Progress(TextColumn("pictures {task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True,
                  disable=not (progress and console.is_terminal)) as bar:
        task = bar.add_task("", total=len(names))
        for name in names:
            bar.update(task, description=name)
            made[name] = PICTURES[name](out)
            bar.advance(task)
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder (docs/images)")
    ap.add_argument("--only", nargs="*", choices=list(PICTURES), help="make only these")
    ap.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    made = make_pictures(args.out, only=args.only, progress=not args.quiet)
    if not args.quiet:
        for path in made.values():
            print(path)
        print(f"{len(made)} pictures in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

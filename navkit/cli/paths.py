"""``navkit path``, ``navkit info`` and ``navkit convert``: one grid file, one query.

::

    navkit path MAP --from X,Z --to X,Z [--cells] [--no-smooth] [--nearest]
                [--costs seed|exact] [--algorithm auto|astar|dijkstra|jps|jps+|hpa]
                [--tables TABLES.npz] [--bounds BOUNDS.npz]
                [--obstacle X,Z,R ...] [--png OUT.png] [--json]
    navkit info MAP [--json]
    navkit convert IN OUT

``path`` exits with 1 when there is no path; every command exits with 2 on
bad input (:mod:`navkit.cli.common`).
"""

from __future__ import annotations

import enum
import math
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray
from rich.markup import escape
from rich.table import Table

from ..formats import load_grid, save_grid
from ..grid import NavGrid
from ..query.pathfinder import Pathfinder
from ..results import PathResult, Status, no_path
from ..world.local import get_preset
from .common import (
    EXIT_NO_PATH,
    EXIT_OK,
    CostsName,
    emit_json,
    grid_summary,
    num,
    parse_obstacles,
    parse_pair,
    stdout,
)
from .mesh import MeshMethod

__all__ = ["path_cmd", "info_cmd", "convert_cmd", "grid_info", "PathAlgorithm"]


class PathAlgorithm(str, enum.Enum):
    """``navkit path --algorithm``: the query's ``algorithm`` (docs/rules.md §3, §15.1),
    ``hpa`` (:class:`~navkit.query.hpa.HPAStar`, approximate), or with ``--mesh`` the
    mesh's ``exact`` / ``funnel`` (``auto`` is ``exact`` there)."""

    auto = "auto"
    astar = "astar"
    dijkstra = "dijkstra"
    jps = "jps"
    jps_plus = "jps+"
    hpa = "hpa"
    exact = "exact"
    funnel = "funnel"


#: The algorithms of a mesh (``--mesh``).
MESH_ALGORITHMS = ("auto", "exact", "funnel")

#: How many waypoints ``path`` lists before truncating (head + tail).
WAYPOINT_HEAD = 12
WAYPOINT_TAIL = 4


def _fmt_point(p: Any) -> str:
    return f"({float(p[0]):.3f}, {float(p[1]):.3f})"


def _waypoint_lines(points: NDArray[np.float64]) -> list[str]:
    n = len(points)
    if n <= WAYPOINT_HEAD + WAYPOINT_TAIL + 1:
        return [f"{i:>4}  {_fmt_point(p)}" for i, p in enumerate(points)]
    head = [f"{i:>4}  {_fmt_point(points[i])}" for i in range(WAYPOINT_HEAD)]
    tail = [f"{i:>4}  {_fmt_point(points[i])}" for i in range(n - WAYPOINT_TAIL, n)]
    return [*head, f"      ... {n - WAYPOINT_HEAD - WAYPOINT_TAIL} more ...", *tail]


# ------------------------------------------------------------------------ path
def path_cmd(
    map_file: Annotated[Path, typer.Argument(
        metavar="MAP", help="Grid file (.map .txt .png .npy .npz .json ...).")],
    from_: Annotated[str, typer.Option(
        "--from", metavar="X,Z", help="Start: world metres, or a cell with --cells.")],
    to: Annotated[str, typer.Option(
        "--to", metavar="X,Z", help="Goal: world metres, or a cell with --cells.")],
    cells: Annotated[bool, typer.Option(
        "--cells", help="--from/--to are integer cells; uses find_path_cells.")] = False,
    smooth: Annotated[bool, typer.Option(
        "--smooth/--no-smooth", help="String-pull the waypoints (both modes).")] = True,
    nearest: Annotated[bool, typer.Option(
        "--nearest",
        help="If the goal is unreachable, go to the reachable cell closest to it.")] = False,
    costs: Annotated[CostsName, typer.Option(
        "--costs",
        help="Step costs: seed (10/14) or exact (sqrt 2, Moving AI lengths).")] = CostsName.seed,
    algorithm: Annotated[PathAlgorithm, typer.Option(
        "--algorithm",
        help="auto (JPS on an unweighted 8-connected grid, else A*: the same cost), astar, "
             "dijkstra, jps, jps+ (JPS on jump tables: the same answers), or hpa (HPA*: "
             "approximate, a few % longer; world points snap to cells first); with --mesh "
             "auto or exact (the shortest path) or funnel (A* over polygons + string "
             "pulling).")
    ] = PathAlgorithm.auto,
    tables: Annotated[Path | None, typer.Option(
        "--tables", metavar="TABLES.npz",
        help="JPS+ tables `navkit precompute` wrote for MAP (auto then picks JPS+ where it "
             "wins).")] = None,
    bounds: Annotated[Path | None, typer.Option(
        "--bounds", metavar="BOUNDS.npz",
        help="Goal bounds `navkit precompute --goal-bounds` wrote for MAP (with "
             "--tables).")] = None,
    obstacle: Annotated[list[str] | None, typer.Option(
        "--obstacle", metavar="X,Z,R",
        help="A dynamic obstacle circle in world metres, blocking the cells whose centres "
             "it covers (repeatable).")] = None,
    png: Annotated[Path | None, typer.Option(
        "--png", metavar="OUT.png", help="Also draw the grid and path to this PNG.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of a table.")] = False,
    mesh: Annotated[bool, typer.Option(
        "--mesh", help="Query the navigation mesh of MAP (level .json, saved mesh .npz or "
                       "grid) instead of the grid: exact any-angle paths.")] = False,
    method: Annotated[MeshMethod | None, typer.Option(
        "--method", hidden=True,
        help="The old name of --algorithm with --mesh (exact or funnel).")] = None,
    preset: Annotated[str | None, typer.Option(
        "--preset", metavar="NAME",
        help="A bounded query preset (bounded: a 38 x 38 window around the midpoint, "
             "1,000 expansions; docs/world-queries.md).")] = None,
) -> None:
    """Find one path on MAP (a grid file, a level or building .json, or a baked
    WORLD.nkw) and print a summary (exit 1 when there is no path). On a building
    (a level with floors) points may be X,Y,Z and cells FLOOR,X,Z."""
    algo = algorithm.value
    from .floors import floors_path, is_building_file

    if is_building_file(map_file):
        raise typer.Exit(floors_path(map_file, from_, to, cells=cells, smooth=smooth,
                                     nearest=nearest, costs=costs.value, algorithm=algo,
                                     obstacle=obstacle, png=png, as_json=as_json, mesh=mesh))
    if mesh:
        from .mesh import mesh_path

        if method is not None:
            from ..casing import notice_once

            notice_once("path --method", "DeprecationWarning: navkit path --method is "
                        "deprecated: use --algorithm (the old name goes in navkit 0.3)")
            algo = method.value
        if algo not in MESH_ALGORITHMS:
            raise typer.BadParameter(f"a mesh takes {', '.join(MESH_ALGORITHMS)}, got {algo!r}",
                                     param_hint="'--algorithm'")
        raise typer.Exit(mesh_path(map_file, from_, to, method="exact" if algo == "auto"
                                   else algo, nearest=nearest, obstacle=obstacle, png=png,
                                   as_json=as_json, cells=cells))
    if method is not None or algo in ("exact", "funnel"):
        raise typer.BadParameter("exact and funnel are a mesh's algorithms: add --mesh",
                                 param_hint="'--algorithm'")
    start = parse_pair(from_, "--from", integer=cells)
    goal = parse_pair(to, "--to", integer=cells)
    circles = parse_obstacles(obstacle)
    hpa: Any = None
    if algo == "hpa" and (map_file.suffix == ".nkw" or preset is not None):
        raise typer.BadParameter("hpa runs on a grid file, without --preset "
                                 "(a baked world picks its own hierarchy with auto)",
                                 param_hint="'--algorithm'")
    world = None
    pf: Any
    if map_file.suffix == ".nkw":  # a baked world: navkit.world.World answers
        from ..world.world import World

        world = pf = World.open(str(map_file), costs=costs.value)
        grid = None
    else:
        grid = load_grid(map_file)
        pf = Pathfinder(grid, costs=costs.value)
        if algo == "hpa":
            from ..query.hpa import HPAStar

            hpa = HPAStar(grid, costs=costs.value)
        else:
            pf.resolve_algorithm(algo)  # (jps on a weighted grid: a clear error, exit 2)
    if tables is not None or bounds is not None:
        if grid is None or algo == "hpa":
            raise typer.BadParameter("--tables / --bounds go with a grid file and a JPS query",
                                     param_hint="'--tables'")
        if tables is None:
            raise typer.BadParameter("--bounds needs --tables (the bounds sit on the tables)",
                                     param_hint="'--bounds'")
        pf.precompute(tables=tables, bounds=bounds)  # FormatError for another map: exit 2
    extra: dict[str, Any] = {} if preset is None else {"preset": preset}
    pre = get_preset(preset)
    if pre is not None and world is None:
        extra = {"budget": pre.budget}

    use_smooth = smooth

    def query(a: Any, b: Any) -> PathResult:
        kw = dict(extra)
        if pre is not None and world is None:  # the preset's window on a plain grid
            sa = a if cells else pf.snap(a, obstacles=circles)
            sb = b if cells else pf.snap(b, obstacles=circles)
            if sa is not None and sb is not None:
                kw["window"] = pre.window_for(tuple(sa), tuple(sb))
        if hpa is not None:
            return _hpa_query(hpa, pf, a, b, cells=cells, smooth=use_smooth, nearest=nearest,
                              circles=circles)
        kw["algorithm"] = algo
        if cells:
            return pf.find_path_cells(a, b, smooth=use_smooth, nearest=nearest, obstacles=circles,
                                      **kw)
        if nearest:
            return pf.find_path_to_nearest(a, b, smooth=use_smooth, obstacles=circles, **kw)
        return pf.find_path(a, b, smooth=use_smooth, obstacles=circles, **kw)

    # the first call loads (or compiles) the numba kernels: warm them with a
    # trivial start -> start query, then time the real one
    t0 = time.perf_counter()
    query(start, start)
    first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = query(start, goal)
    elapsed_s = time.perf_counter() - t0

    if png is not None and grid is None:
        assert world is not None
        grid = world.store.to_grid()  # (small worlds only)
    if png is not None and grid is not None:
        from ..render import render_grid, save_png

        if res.has_path:
            img = render_grid(grid, paths=[res])
        else:
            pts = np.asarray([start, goal], dtype=np.int64 if cells else np.float64)
            img = render_grid(grid, markers=[pts])
        save_png(img, png)

    ok = res.status.has_path
    if as_json:
        emit_json(
            {
                "map": str(map_file),
                "mode": "cells" if cells else "world",
                "from": list(start),
                "to": list(goal),
                "costs": costs.value,
                "algorithm": (world.last_algorithm if world is not None
                              else algo if algo == "hpa" else pf.resolve_algorithm(algo)),
                "smooth": use_smooth,
                "nearest": nearest,
                "status": res.status.name,
                "found": res.found,
                "cost": num(res.cost),
                "cost_int": res.cost_int,
                "num_cells": len(res.cells),
                "num_waypoints": len(res.waypoints),
                "cells": res.cells.tolist(),
                "waypoints": res.waypoints.tolist(),
                "start_cell": None if res.start_cell is None else list(res.start_cell),
                "end_cell": None if res.end_cell is None else list(res.end_cell),
                "expanded": res.expanded,
                "generated": res.generated,
                "time_us": elapsed_s * 1e6,
                "first_call_ms": first_s * 1e3,
                "png": None if png is None else str(png),
                **({} if preset is None else {"preset": preset}),
            }
        )
    else:
        _print_path(res, map_file, start, goal, cells=cells, costs=costs.value, smooth=use_smooth,
                    png=png, elapsed_s=elapsed_s, first_s=first_s)
    raise typer.Exit(EXIT_OK if ok else EXIT_NO_PATH)


def _hpa_query(hpa: Any, pf: Pathfinder, a: Any, b: Any, *, cells: bool, smooth: bool,
               nearest: bool, circles: Any) -> PathResult:
    """``--algorithm hpa``: HPA* between cells; world points snap to cells first
    (as :meth:`Pathfinder.snap`, avoiding the obstacles), and the waypoints are
    the cells' centres."""
    if not cells:
        sa = pf.snap(a, obstacles=circles)
        if sa is None:
            return no_path(Status.NO_START, floor_y=pf.grid.floor_y)
        sb = pf.snap(b, obstacles=circles)
        if sb is None:
            return no_path(Status.NO_GOAL, start_cell=sa, floor_y=pf.grid.floor_y)
        a, b = sa, sb
    return hpa.find_path_cells(a, b, smooth=smooth, nearest=nearest, obstacles=circles)


def _print_path(res: PathResult, map_file: Path, start: Any, goal: Any, *, cells: bool,
                costs: str, smooth: bool, png: Path | None, elapsed_s: float,
                first_s: float) -> None:
    out = stdout()
    table = Table(title=f"navkit path on {escape(str(map_file))}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    status_style = "green" if res.found else ("yellow" if res.status.has_path else "red")
    table.add_row("status", f"[{status_style}]{res.status.name}[/]")
    table.add_row("mode", f"{'cells' if cells else 'world'} (costs={costs}, smooth={smooth})")
    table.add_row("from -> to", escape(f"{tuple(start)} -> {tuple(goal)}"))
    if res.start_cell is not None:
        end = "-" if res.end_cell is None else str(res.end_cell)
        table.add_row("cells (start -> end)", escape(f"{res.start_cell} -> {end}"))
    table.add_row("cost", f"{res.cost:.6f}" if math.isfinite(res.cost) else "inf (no path)")
    table.add_row("cells", str(len(res.cells)))
    table.add_row("waypoints", str(len(res.waypoints)))
    table.add_row("nodes expanded", f"{res.expanded:,}")
    table.add_row("time", f"{elapsed_s * 1e6:,.1f} us (warm; JIT load on a first trivial call: "
                          f"{first_s * 1e3:,.1f} ms)")
    if png is not None:
        table.add_row("png", escape(str(png)))
    out.print(table)
    if len(res.waypoints):
        out.print("[bold]waypoints[/] (world x, z):")
        for line in _waypoint_lines(res.waypoints):
            out.print(escape(line))


# ------------------------------------------------------------------------ info
def grid_info(grid: NavGrid, path: Path) -> dict[str, Any]:
    """What ``navkit info --json`` prints for ``grid`` read from ``path``."""
    walk = grid.walkable
    nwalk = int(walk.sum())
    w = grid.weight_array()[walk] if nwalk else np.ones(1, dtype=np.int32)
    return {
        "file": str(path),
        "name": grid.name,
        **grid_summary(grid),
        "weight_min": int(w.min()),
        "weight_max": int(w.max()),
        "cell_size": grid.cell_size,
        "min_x": grid.min_x,
        "min_z": grid.min_z,
        "max_x": grid.max_x,
        "max_z": grid.max_z,
        "floor_y": grid.floor_y,
        "agent_radius": grid.agent_radius,
    }


def info_cmd(
    map_file: Annotated[Path, typer.Argument(metavar="MAP", help="Grid file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Print a grid's size, walkable fraction, weights and geometry (a baked
    WORLD.nkw: its sizes, chunks, codec and fingerprint, as ``navkit world info``)."""
    if map_file.suffix == ".nkw":
        from .world import info_cmd as world_info_cmd

        world_info_cmd(map_file, as_json)
        return
    grid = load_grid(map_file)
    info = grid_info(grid, map_file)
    if as_json:
        emit_json(info)
        return
    table = Table(title=escape(f"navkit info {map_file}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("size", f"{info['width']} x {info['depth']} cells (width x depth) = "
                          f"{info['cells']:,}")
    table.add_row("walkable", f"{info['walkable']:,} cells ({info['walkable_fraction']:.2%})")
    if info["weighted"]:
        table.add_row("weights", f"{info['weight_min']} .. {info['weight_max']} (walkable cells)")
    else:
        table.add_row("weights", "uniform (1)")
    table.add_row("cell size", f"{info['cell_size']:g} m")
    table.add_row("origin (min x, z)", f"({info['min_x']:g}, {info['min_z']:g}) m")
    table.add_row("extent (max x, z)", f"({info['max_x']:g}, {info['max_z']:g}) m")
    table.add_row("floor y", f"{info['floor_y']:g} m")
    table.add_row("agent radius", f"{info['agent_radius']:g} m")
    stdout().print(table)


# --------------------------------------------------------------------- convert
def convert_cmd(
    src: Annotated[Path, typer.Argument(metavar="IN", help="Grid file to read.")],
    dst: Annotated[Path, typer.Argument(
        metavar="OUT", help="File to write; the extension picks the format.")],
) -> None:
    """Convert a grid file to another format (load_grid then save_grid)."""
    grid = load_grid(src)
    save_grid(grid, dst)
    ext = dst.suffix.lower()
    dropped = []
    if ext == ".map":
        if grid.is_weighted:
            dropped.append("terrain weights")
        geometry = (grid.cell_size, grid.min_x, grid.min_z, grid.floor_y, grid.agent_radius)
        if geometry != (1.0, 0.0, 0.0, 0.0, 0.0):
            dropped.append("geometry")
    if dropped:
        typer.echo(f"warning: {dst.name}: the .map format drops {' and '.join(dropped)}", err=True)
    typer.echo(f"wrote {dst} ({grid.width}x{grid.depth} cells)")


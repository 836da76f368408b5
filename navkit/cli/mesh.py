"""``navkit mesh`` and ``navkit path --mesh``: navigation meshes on the command line.

::

    navkit mesh LEVEL.json -o MESH.npz [--png OUT.png] [--chord-error M] [--json]
    navkit mesh --grid MAP -o MESH.npz [--png OUT.png] [--json]
    navkit path SOURCE --mesh [--algorithm exact|funnel] --from X,Z --to X,Z
                [--nearest] [--obstacle X,Z,R ...] [--png OUT.png] [--json]

``SOURCE`` of a mesh query is a polygon level (``.json`` with ``areas``), a
mesh saved by ``navkit mesh`` (``.npz``) or any grid file (the mesh of its
walkable cells, :meth:`NavMesh.from_grid`). ``path --mesh`` exits with 1
when there is no path; every command exits with 2 on bad input
(:mod:`navkit.cli.common`). The pictures are drawn by :mod:`navkit.render_mesh`.

:func:`mesh_path` is what ``navkit path --mesh`` runs (``navkit.cli.paths``
hands it its options).
"""

from __future__ import annotations

import enum
import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from .common import EXIT_NO_PATH, EXIT_OK, emit_json, parse_obstacles, parse_pair, stdout

if TYPE_CHECKING:
    from ..mesh.navmesh import NavMesh
    from ..results import MeshPathResult

__all__ = ["MeshMethod", "mesh_cmd", "mesh_path", "load_mesh_source",
           "MESH_HELP", "MESH_PATH_HELP"]

#: The commands' help lines.
MESH_HELP = "Build the navigation mesh of a polygon level (or of a grid with --grid) and save it."
MESH_PATH_HELP = "Find one path on a navigation mesh (a level, a saved mesh or a grid)."

#: How many waypoints are listed before truncating (head + tail).
WAYPOINT_HEAD = 12
WAYPOINT_TAIL = 4


class MeshMethod(str, enum.Enum):
    """``--method``: the mesh path methods (``NavMesh.find_path``)."""

    exact = "exact"
    funnel = "funnel"


def _is_level_json(path: Path) -> bool:
    """True when ``path`` is JSON text holding an object with ``areas`` (a level)."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return True  # let read_level report the position of the error
    return isinstance(obj, dict) and "areas" in obj


def load_mesh_source(path: Path, *, grid: bool = False,
                     chord_error: float | None = None) -> tuple[NavMesh, str, float]:
    """``(mesh, kind, seconds)`` for a mesh query's SOURCE file.

    ``kind`` is ``"level"`` (a ``.json`` with ``areas``: :meth:`NavMesh.from_level`),
    ``"mesh"`` (a ``.npz`` written by :meth:`NavMesh.save`) or ``"grid"`` (any
    other grid file: :meth:`NavMesh.from_grid`); ``grid=True`` forces a grid.
    ``seconds`` is the time to build or load it.
    """
    from ..errors import FormatError
    from ..formats import load_grid
    from ..level import read_level
    from ..mesh.navmesh import NavMesh

    suffix = path.suffix.lower()
    t0 = time.perf_counter()
    if not grid and suffix == ".json" and _is_level_json(path):
        cfg = read_level(path)
        if chord_error is None:
            mesh = NavMesh.from_level(cfg)
        else:
            mesh = NavMesh.from_level(cfg, chord_error=chord_error)
        return mesh, "level", time.perf_counter() - t0
    if not grid and suffix == ".npz":
        try:
            mesh = NavMesh.load(path)
            return mesh, "mesh", time.perf_counter() - t0
        except FormatError as exc:
            first = exc
        try:
            g = load_grid(path)
        except FormatError:
            raise first from None
        t0 = time.perf_counter()
        return NavMesh.from_grid(g), "grid", time.perf_counter() - t0
    g = load_grid(path)
    t0 = time.perf_counter()
    return NavMesh.from_grid(g), "grid", time.perf_counter() - t0


def _mesh_summary(mesh: NavMesh) -> dict[str, Any]:
    arr = mesh.arrays
    regions = int(arr.poly_region.max()) + 1 if arr.n_polygons else 0
    return {"polygons": mesh.n_polygons, "vertices": mesh.n_vertices, "regions": regions,
            "bytes": mesh.nbytes(), "bounds": list(mesh.bounds()) if arr.n_polygons else None}


# ------------------------------------------------------------------------ mesh
def mesh_cmd(
    level: Annotated[Path | None, typer.Argument(
        metavar="LEVEL.json", help="Polygon level (JSON, docs/levels.md).")] = None,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", metavar="MESH.npz", help="Write the mesh here (.npz).")] = None,
    grid: Annotated[Path | None, typer.Option(
        "--grid", metavar="MAP",
        help="Build the mesh of a grid file's walkable cells instead of a level.")] = None,
    png: Annotated[Path | None, typer.Option(
        "--png", metavar="OUT.png", help="Also draw the polygons and portals to this PNG.")] = None,
    chord_error: Annotated[float | None, typer.Option(
        "--chord-error", metavar="M",
        help="Largest distance, metres, between a round corner and its polygon arc "
             "(levels only; default 0.005).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Build a navigation mesh of LEVEL.json (or of --grid MAP) and save it with -o."""
    if (level is None) == (grid is None):
        raise typer.BadParameter("give exactly one of LEVEL.json and --grid MAP",
                                 param_hint="'LEVEL.json' / '--grid'")
    if chord_error is not None and grid is not None:
        raise typer.BadParameter("applies to levels only, not to --grid",
                                 param_hint="'--chord-error'")
    if chord_error is not None and not (math.isfinite(chord_error) and chord_error > 0):
        raise typer.BadParameter(f"must be a positive number of metres, got {chord_error!r}",
                                 param_hint="'--chord-error'")
    if output is None and png is None:
        raise typer.BadParameter("nothing to write: give -o MESH.npz and/or --png OUT.png",
                                 param_hint="'-o'")
    source = level if level is not None else grid
    assert source is not None
    if level is not None and level.suffix.lower() != ".json":
        raise typer.BadParameter(f"expected a .json level, got {str(level)!r} (use --grid for "
                                 "grid files)", param_hint="'LEVEL.json'")
    mesh, kind, build_s = load_mesh_source(source, grid=grid is not None,
                                           chord_error=chord_error)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        mesh.save(output)
    if png is not None:
        from ..render_mesh import write_png

        write_png(mesh, png)
    info = {"source": str(source), "kind": kind, "output": None if output is None else str(output),
            **_mesh_summary(mesh), "build_s": build_s, "png": None if png is None else str(png)}
    if as_json:
        emit_json(info)
        return
    table = Table(title=escape(f"navkit mesh {source}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("source", f"{kind} {escape(str(source))}")
    table.add_row("polygons", f"{info['polygons']:,} (convex)")
    table.add_row("vertices", f"{info['vertices']:,}")
    table.add_row("regions", f"{info['regions']:,} (connected pieces)")
    table.add_row("bytes", f"{info['bytes']:,}")
    if info["bounds"] is not None:
        b = info["bounds"]
        table.add_row("bounds", f"({b[0]:g}, {b[1]:g}) .. ({b[2]:g}, {b[3]:g}) m")
    table.add_row("build", f"{build_s:.3f} s")
    if output is not None:
        table.add_row("mesh", escape(str(output)))
    if png is not None:
        table.add_row("png", escape(str(png)))
    stdout().print(table)


# ------------------------------------------------------------------------ path
def _fmt_point(p: Any) -> str:
    return f"({float(p[0]):.3f}, {float(p[1]):.3f})"


def _waypoint_lines(points: Any) -> list[str]:
    n = len(points)
    if n <= WAYPOINT_HEAD + WAYPOINT_TAIL + 1:
        return [f"{i:>4}  {_fmt_point(p)}" for i, p in enumerate(points)]
    head = [f"{i:>4}  {_fmt_point(points[i])}" for i in range(WAYPOINT_HEAD)]
    tail = [f"{i:>4}  {_fmt_point(points[i])}" for i in range(n - WAYPOINT_TAIL, n)]
    return [*head, f"      ... {n - WAYPOINT_HEAD - WAYPOINT_TAIL} more ...", *tail]


def mesh_path(map_file: Path, from_: str, to: str, *, method: MeshMethod | str = "exact",
              nearest: bool = False, obstacle: list[str] | None = None,
              png: Path | None = None, as_json: bool = False, cells: bool = False) -> int:
    """Run ``navkit path MAP --mesh ...``; returns the exit status (0 path, 1 none).

    ``from_`` / ``to`` are the ``X,Z`` option texts (world metres) and
    ``obstacle`` the ``X,Z,R`` texts; bad values raise ``typer.BadParameter``
    naming the option, bad files a :class:`~navkit.errors.NavkitError`.
    """
    if cells:
        raise typer.BadParameter("mesh queries take world points; drop --cells",
                                 param_hint="'--cells'")
    m = method.value if isinstance(method, MeshMethod) else str(method)
    if m not in ("exact", "funnel"):
        raise typer.BadParameter(f"expected exact or funnel, got {m!r}", param_hint="'--method'")
    start = parse_pair(from_, "--from", integer=False)
    goal = parse_pair(to, "--to", integer=False)
    circles = parse_obstacles(obstacle)
    mesh, kind, build_s = load_mesh_source(map_file)

    def query() -> MeshPathResult:
        if nearest:
            return mesh.find_path_to_nearest(start, goal, algorithm=m, obstacles=circles)
        return mesh.find_path(start, goal, algorithm=m, obstacles=circles)

    # the first query loads (or compiles) the kernels and, with obstacles,
    # cuts the mesh (cached): time it, then time the same query again
    t0 = time.perf_counter()
    query()
    first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = query()
    elapsed_s = time.perf_counter() - t0

    if png is not None:
        import numpy as np

        from ..render_mesh import write_png

        if res.has_path:
            write_png(mesh, png, paths=[res])
        else:
            write_png(mesh, png, markers=[np.asarray([start, goal], dtype=np.float64)])
    ok = res.has_path
    if as_json:
        emit_json({
            "map": str(map_file),
            "mode": "mesh",
            "source": kind,
            "method": m,
            "from": list(start),
            "to": list(goal),
            "nearest": nearest,
            "status": res.status.name,
            "found": res.found,
            "length": float(res.length) if ok else None,
            "num_waypoints": len(res.waypoints),
            "waypoints": res.waypoints.tolist(),
            "expanded": res.expanded,
            "generated": res.generated,
            "start_polygon": res.start_polygon,
            "end_polygon": res.end_polygon,
            "floor_y": res.floor_y,
            "obstacles": 0 if circles is None else len(circles),
            "mesh": _mesh_summary(mesh),
            "build_s": build_s,
            "time_us": elapsed_s * 1e6,
            "first_call_ms": first_s * 1e3,
            "png": None if png is None else str(png),
        })
    else:
        out = stdout()
        table = Table(title=f"navkit path --mesh on {escape(str(map_file))}", show_header=False)
        table.add_column("field", style="bold")
        table.add_column("value")
        style = "green" if res.found else ("yellow" if ok else "red")
        table.add_row("status", f"[{style}]{res.status.name}[/]")
        table.add_row("mode", f"mesh of a {kind} (method={m}, {mesh.n_polygons:,} polygons, "
                              f"built or loaded in {build_s:.3f} s)")
        table.add_row("from -> to", escape(f"{tuple(start)} -> {tuple(goal)}"))
        table.add_row("polygons (start -> end)", f"{res.start_polygon} -> {res.end_polygon}")
        table.add_row("length", f"{res.length:.6f} m" if ok else "inf (no path)")
        table.add_row("waypoints", str(len(res.waypoints)))
        table.add_row("nodes expanded", f"{res.expanded:,}")
        table.add_row("time", f"{elapsed_s * 1e6:,.1f} us (warm; the first call, loading or "
                              f"compiling the kernels: {first_s * 1e3:,.1f} ms)")
        if png is not None:
            table.add_row("png", escape(str(png)))
        out.print(table)
        if ok:
            out.print("[bold]waypoints[/] (world x, z):")
            for line in _waypoint_lines(res.waypoints):
                out.print(escape(line))
    return EXIT_OK if ok else EXIT_NO_PATH

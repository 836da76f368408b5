"""``navkit path`` on a building (a level with ``floors``): points with a height,
cells ``FLOOR,X,Z``, floors and links in the answer, one picture per floor.

::

    navkit path BUILDING.json --from X,Y,Z --to X,Y,Z [--cells] [--no-smooth]
                [--nearest] [--costs seed|exact] [--algorithm auto|astar|dijkstra]
                [--obstacle X,Z,R,FLOOR ...] [--png OUT.png] [--json] [--mesh]
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from ..floors import FloorMap
from ..floors.model import is_building
from .common import EXIT_NO_PATH, EXIT_OK, emit_json, num, stdout

__all__ = ["is_building_file", "floors_path", "parse_point3", "parse_floor_cell"]


def is_building_file(path: Path) -> bool:
    """Whether ``path`` is a JSON level that lists floors (read errors: False,
    the grid reader then reports them)."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    from ..level.parse import read_json

    try:
        return is_building(read_json(path))
    except Exception:  # noqa: BLE001 - the normal reader explains a bad file
        return False


def parse_point3(text: str, option: str) -> tuple[float, ...]:
    """``'X,Z'`` or ``'X,Y,Z'`` world metres (BadParameter naming ``option``).

    >>> parse_point3("1, 3.5, 2", "--from"), parse_point3("1,2", "--to")
    ((1.0, 3.5, 2.0), (1.0, 2.0))
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (2, 3):
        raise typer.BadParameter(f"expected X,Z or X,Y,Z (world metres), got {text!r}",
                                 param_hint=f"'{option}'")
    out = []
    for p in parts:
        try:
            v = float(p)
        except ValueError:
            raise typer.BadParameter(f"expected numbers, got {p!r} in {text!r}",
                                     param_hint=f"'{option}'") from None
        if not math.isfinite(v):
            raise typer.BadParameter(f"{p!r} is not finite", param_hint=f"'{option}'")
        out.append(v)
    return tuple(out)


def parse_floor_cell(text: str, option: str, names: tuple[str, ...]) -> tuple[int, int, int]:
    """``'FLOOR,X,Z'`` with FLOOR an index or a floor name.

    >>> parse_floor_cell("upper,3,4", "--from", ("ground", "upper"))
    (1, 3, 4)
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3:
        raise typer.BadParameter(f"expected FLOOR,X,Z (a floor index or name, then integer "
                                 f"cells), got {text!r}", param_hint=f"'{option}'")
    f, x, z = parts
    if f in names:
        fi = names.index(f)
    else:
        try:
            fi = int(f, 10)
        except ValueError:
            raise typer.BadParameter(f"no floor called {f!r} (floors: {', '.join(names)})",
                                     param_hint=f"'{option}'") from None
    try:
        return (fi, int(x, 10), int(z, 10))
    except ValueError:
        raise typer.BadParameter(f"expected integer cells, got {text!r}",
                                 param_hint=f"'{option}'") from None


def _obstacles(values: list[str] | None) -> Any:
    if not values:
        return None
    rows = []
    for v in values:
        parts = v.split(",")
        try:
            row = [float(p) for p in parts]
        except ValueError:
            row = []
        if len(row) != 4:
            raise typer.BadParameter(f"expected X,Z,R,FLOOR (a floor index), got {v!r}",
                                     param_hint="'--obstacle'")
        rows.append(row)
    return np.array(rows, dtype=np.float64)


def floors_path(map_file: Path, from_: str, to: str, *, cells: bool, smooth: bool,
                nearest: bool, costs: str, algorithm: str, obstacle: list[str] | None,
                png: Path | None, as_json: bool, mesh: bool) -> int:
    """Run one query on a building and print it; returns the exit code."""
    fm = FloorMap(map_file, costs)  # type: ignore[arg-type]  # the CLI's choice: seed / exact
    names = fm.floor_names
    if algorithm not in ("auto", "astar", "dijkstra", "exact", "funnel"):
        raise typer.BadParameter(f"a building takes auto, astar or dijkstra (with --mesh: "
                                 f"exact or funnel), got {algorithm!r}",
                                 param_hint="'--algorithm'")
    if mesh:
        return _mesh_path(fm, map_file, from_, to, algorithm, png, as_json)
    if algorithm in ("exact", "funnel"):
        raise typer.BadParameter("exact and funnel are a mesh's algorithms: add --mesh",
                                 param_hint="'--algorithm'")
    circles = _obstacles(obstacle)
    t0 = time.perf_counter()
    if cells:
        a = parse_floor_cell(from_, "--from", names)
        b = parse_floor_cell(to, "--to", names)
        if circles is not None:
            raise typer.BadParameter("--obstacle goes with world points, not --cells",
                                     param_hint="'--obstacle'")
        res = fm.find_path_cells(a, b, algorithm=algorithm)
        start: Any = list(a)
        goal: Any = list(b)
    else:
        pa = parse_point3(from_, "--from")
        pb = parse_point3(to, "--to")
        res = fm.find_path(pa, pb, smooth=smooth, nearest=nearest, algorithm=algorithm,
                           obstacles=circles)
        start, goal = list(pa), list(pb)
    elapsed = time.perf_counter() - t0
    pngs = _write_pngs(fm, res, png)
    floors_used = _floors_visited(names, res.floors)
    if as_json:
        emit_json({
            "map": str(map_file),
            "mode": "cells" if cells else "world",
            "from": start,
            "to": goal,
            "costs": costs,
            "algorithm": algorithm,
            "status": res.status.name,
            "found": res.found,
            "reason": res.reason,
            "cost": num(res.cost),
            "cost_int": res.cost_int,
            "length": num(res.length),
            "floors": floors_used,
            "links": [{"name": s.name, "kind": s.kind, "at": s.at} for s in res.links],
            "waypoints": res.points3d().tolist(),
            "waypoint_floors": [names[int(f)] for f in res.floors],
            "cells": res.cells.tolist(),
            "expanded": res.expanded,
            "time_us": elapsed * 1e6,
            "png": pngs,
        })
    else:
        out = stdout()
        table = _summary(f"navkit path on {escape(str(map_file))} ({len(names)} floors)", res,
                         floors_used, [(s.name, s.kind) for s in res.links], elapsed)
        table.add_row("from -> to", escape(f"{tuple(start)} -> {tuple(goal)}"))
        table.add_row("cost", f"{res.cost:.6f}" if math.isfinite(res.cost) else "inf (no path)")
        table.add_row("nodes expanded", f"{res.expanded:,}")
        for p in pngs:
            table.add_row("png", escape(p))
        out.print(table)
        if len(res.waypoints):
            out.print("[bold]waypoints[/] (floor: world x, y, z):")
            for i, (p, f) in enumerate(zip(res.points3d(), res.floors, strict=True)):
                out.print(escape(f"{i:>4}  {names[int(f)]}: ({p[0]:.3f}, {p[1]:.3f}, "
                                 f"{p[2]:.3f})"))
    return EXIT_OK if res.status.has_path else EXIT_NO_PATH


def _floors_visited(names: tuple[str, ...], floors: Any) -> list[str]:
    """The names of the floors a path's waypoints are on, in floor order."""
    return sorted({names[int(f)] for f in floors}, key=names.index)


def _summary(title: str, res: Any, floors_used: list[str], links: list[tuple[str, str]],
             elapsed: float) -> Table:
    """The answer's table, as both searches print it: status (and why there is no path),
    length, floors, links and time; the caller adds its own rows."""
    table = Table(title=title, show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    style = "green" if res.status.name == "FOUND" else (
        "yellow" if res.status.has_path else "red")
    table.add_row("status", f"[{style}]{res.status.name}[/]")
    if not res.status.has_path:
        table.add_row("reason", escape(res.reason))
    table.add_row("length", f"{res.length:.3f} m" if math.isfinite(res.length) else "-")
    table.add_row("floors", ", ".join(floors_used) or "-")
    table.add_row("links", ", ".join(f"{n} ({k})" for n, k in links) or "-")
    table.add_row("time", f"{elapsed * 1e3:,.2f} ms")
    return table


def _write_pngs(fm: FloorMap, res: Any, png: Path | None) -> list[str]:
    """``OUT.png`` -> ``OUT-<floor>.png`` per floor, plus ``OUT.png`` with all floors."""
    if png is None:
        return []
    from ..floors.render import render_building, render_floors
    from ..render import save_png

    written = [str(save_png(render_building(fm.building, res), png))]
    for name, im in zip(fm.floor_names, render_floors(fm.building, res), strict=True):
        written.append(str(save_png(im, png.with_name(f"{png.stem}-{name}{png.suffix}"))))
    return written


def _mesh_path(fm: FloorMap, map_file: Path, from_: str, to: str, algorithm: str,
               png: Path | None, as_json: bool) -> int:
    """``--mesh``: exact (or funnel) any-angle paths across floors (:class:`FloorMesh`)."""
    from ..floors.mesh import FloorMesh

    if algorithm not in ("auto", "exact", "funnel"):
        raise typer.BadParameter(f"a mesh takes auto, exact or funnel, got {algorithm!r}",
                                 param_hint="'--algorithm'")
    names = fm.floor_names
    pa = parse_point3(from_, "--from")
    pb = parse_point3(to, "--to")
    mesh = FloorMesh(fm.building, weights="ignore")
    t0 = time.perf_counter()
    res = mesh.find_path((pa[0], pa[-1]), (pb[0], pb[-1]), start_floor=fm.floor_of(pa),
                         goal_floor=fm.floor_of(pb),
                         algorithm="exact" if algorithm == "auto" else algorithm)
    elapsed = time.perf_counter() - t0
    links = [fm.building.links[k] for k in res.links]
    floors_used = _floors_visited(names, res.floors)
    drawn = None
    if res.status.has_path:  # the shape render_floors draws: links as (at) steps
        from types import SimpleNamespace

        steps = [SimpleNamespace(at=int(i) - 1) for i in np.flatnonzero(res.entered >= 0)]
        drawn = SimpleNamespace(has_path=True, waypoints=res.waypoints, floors=res.floors,
                                links=steps)
    pngs = _write_pngs(fm, drawn, png)
    if as_json:
        emit_json({
            "map": str(map_file), "mode": "mesh", "from": list(pa), "to": list(pb),
            "algorithm": "exact" if algorithm == "auto" else algorithm,
            "status": res.status.name, "found": res.status.name == "FOUND",
            "length": num(res.length), "floors": floors_used,
            "links": [{"name": lk.name, "kind": lk.kind} for lk in links],
            "waypoints": res.points3d().tolist(),
            "waypoint_floors": [names[int(f)] for f in res.floors],
            "time_us": elapsed * 1e6, "png": pngs,
        })
    else:
        stdout().print(_summary(f"navkit path --mesh on {escape(str(map_file))} "
                                f"({len(names)} floors)", res, floors_used,
                                [(lk.name, lk.kind) for lk in links], elapsed))
    return EXIT_OK if res.status.has_path else EXIT_NO_PATH

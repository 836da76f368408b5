"""The ``navkit`` command line: path queries, Moving AI checks, map info and conversion.

Commands::

    navkit path MAP --from X,Z --to X,Z [--cells] [--no-smooth] [--nearest]
                [--costs seed|exact] [--png OUT.png] [--json]
    navkit scen FILE.scen [--map MAP_OR_DIR] [--algorithm astar|dijkstra]
                [--batch] [--every K] [--limit N] [--json]
    navkit bench [ARGS...]          (runs navkit.benchmark.main(ARGS))
    navkit info MAP [--json]
    navkit convert IN OUT
    navkit --version

Exit status: 0 success; 1 a query found no path (``path``) or a scenario
length did not match (``scen``; for ``--algorithm hpa``, which is approximate,
only a missing or invalid path counts, and the JSON adds
``mean_suboptimality``, ``max_suboptimality`` and ``invalid_paths``); 2 bad input (a bad option value, an
unreadable file, any :class:`~navkit.errors.NavkitError`, printed as
``error: <message>`` without a traceback).
"""

from __future__ import annotations

import enum
import importlib
import json
import math
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from typer.core import TyperGroup

from . import __version__
from .errors import FormatError, NavkitError
from .formats import check_scenarios_fit, find_map_for, load_grid, read_scenarios, save_grid
from .grid import NavGrid
from .query.pathfinder import Pathfinder
from .results import BatchResult, PathResult, Status

__all__ = ["app", "main", "ALGORITHMS", "EXIT_OK", "EXIT_NO_PATH", "EXIT_BAD_INPUT"]

EXIT_OK = 0
#: ``path``: no path was found; ``scen``: at least one length mismatched.
EXIT_NO_PATH = 1
#: Bad input: option values, files, any NavkitError.
EXIT_BAD_INPUT = 2

#: How many waypoints ``path`` lists before truncating (head + tail).
_WAYPOINT_HEAD = 12
_WAYPOINT_TAIL = 4
#: How many mismatches ``scen`` lists (human) and stores (JSON).
_MISMATCH_SHOW = 10
_MISMATCH_JSON = 50


# ------------------------------------------------------------------ algorithms
@dataclass(frozen=True)
class Algorithm:
    """How ``navkit scen`` runs one algorithm.

    ``single(pf, start, goal)`` answers one query; ``batch(pf, starts, goals)``
    answers many at once (``None`` when the algorithm has no batch mode).
    """

    single: Callable[[Pathfinder, tuple[int, int], tuple[int, int]], PathResult]
    batch: Callable[[Pathfinder, NDArray[np.int64], NDArray[np.int64]], BatchResult] | None = None
    #: False for approximate algorithms (HPA*): ``scen`` then re-checks each
    #: path under the Moving AI rules, fails only on a missing or invalid
    #: path, and reports the mean / max suboptimality instead of demanding
    #: optimal lengths.
    optimal: bool = True


_HPA_CACHE: weakref.WeakKeyDictionary[Pathfinder, Any] = weakref.WeakKeyDictionary()


def _hpa_single(pf: Pathfinder, s: tuple[int, int], g: tuple[int, int]) -> PathResult:
    """HPA* (navkit.query.hpa, default clusters) on ``pf``'s grid; built on first use per Pathfinder."""
    hpa = _HPA_CACHE.get(pf)
    if hpa is None:
        from .query.hpa import HPAStar

        hpa = _HPA_CACHE[pf] = HPAStar(pf.grid, costs=pf.costs)
    return hpa.find_path_cells(s, g)


#: Algorithms ``navkit scen --algorithm`` accepts; adding one is one entry here.
ALGORITHMS: dict[str, Algorithm] = {
    "astar": Algorithm(
        single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="astar"),
        batch=lambda pf, s, g: pf.find_paths_batch(s, g),
    ),
    "dijkstra": Algorithm(single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="dijkstra")),
    "jps": Algorithm(single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="jps"), batch=lambda pf, s, g: pf.find_paths_batch(s, g, algorithm="jps")),  # noqa: E501
    "hpa": Algorithm(single=_hpa_single, optimal=False),
}

AlgorithmName = enum.Enum("AlgorithmName", {k: k for k in ALGORITHMS}, type=str)  # type: ignore[misc]
_DEFAULT_ALGORITHM = AlgorithmName["astar"]


class CostsName(str, enum.Enum):
    seed = "seed"
    exact = "exact"


# ---------------------------------------------------------------- app + errors
class _NavkitGroup(TyperGroup):
    """Turns every :class:`NavkitError` into ``error: <message>`` and exit status 2."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except NavkitError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None


app = typer.Typer(
    name="navkit",
    cls=_NavkitGroup,
    help="Exact, deterministic grid navigation: path queries, Moving AI checks, map tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"navkit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the navkit version and exit.", is_eager=True,
                     callback=_version_callback),
    ] = False,
) -> None:
    """Exact, deterministic grid navigation: path queries, Moving AI checks, map tools."""


def _stdout() -> Console:
    # created per call: typer's test runner swaps sys.stdout per invocation
    return Console(file=sys.stdout, highlight=False, soft_wrap=False)


def _stderr() -> Console:
    return Console(file=sys.stderr, highlight=False)


def _emit_json(obj: dict[str, Any]) -> None:
    typer.echo(json.dumps(obj, allow_nan=False))


def _num(value: float) -> float | None:
    """A float for JSON: ``None`` for inf / NaN (strict JSON has neither)."""
    v = float(value)
    return v if math.isfinite(v) else None


# ------------------------------------------------------------------------ path
def _parse_pair(text: str, option: str, *, integer: bool) -> tuple[float, float] | tuple[int, int]:
    """Parse ``'X,Z'`` strictly; a bad value raises BadParameter naming ``option``."""
    kind = "integer cells" if integer else "world coordinates"

    def bad(why: str) -> typer.BadParameter:
        return typer.BadParameter(f"expected X,Z ({kind}), got {text!r}: {why}", param_hint=f"'{option}'")

    parts = text.split(",")
    if len(parts) != 2:
        raise bad(f"need exactly two comma-separated numbers, found {len(parts)} part(s)")
    out: list[Any] = []
    for label, part in zip("XZ", parts, strict=True):
        p = part.strip()
        if not p:
            raise bad(f"{label} is empty")
        if integer:
            try:
                out.append(int(p, 10))
            except ValueError:
                raise bad(f"{label} = {p!r} is not an integer") from None
        else:
            try:
                v = float(p)
            except ValueError:
                raise bad(f"{label} = {p!r} is not a number") from None
            if not math.isfinite(v):
                raise bad(f"{label} = {p!r} is not finite")
            out.append(v)
    return (out[0], out[1])


def _fmt_point(p: Any) -> str:
    return f"({float(p[0]):.3f}, {float(p[1]):.3f})"


def _waypoint_lines(points: NDArray[np.float64]) -> list[str]:
    n = len(points)
    if n <= _WAYPOINT_HEAD + _WAYPOINT_TAIL + 1:
        return [f"{i:>4}  {_fmt_point(p)}" for i, p in enumerate(points)]
    head = [f"{i:>4}  {_fmt_point(points[i])}" for i in range(_WAYPOINT_HEAD)]
    tail = [f"{i:>4}  {_fmt_point(points[i])}" for i in range(n - _WAYPOINT_TAIL, n)]
    return [*head, f"      ... {n - _WAYPOINT_HEAD - _WAYPOINT_TAIL} more ...", *tail]


@app.command("path")
def path_cmd(
    map_file: Annotated[Path, typer.Argument(metavar="MAP", help="Grid file (.map .txt .png .npy .npz .json ...).")],
    from_: Annotated[str, typer.Option("--from", metavar="X,Z", help="Start: world metres, or a cell with --cells.")],
    to: Annotated[str, typer.Option("--to", metavar="X,Z", help="Goal: world metres, or a cell with --cells.")],
    cells: Annotated[bool, typer.Option("--cells", help="--from/--to are integer cells; uses find_path_cells.")] = False,
    smooth: Annotated[bool, typer.Option("--smooth/--no-smooth", help="String-pull the waypoints (both modes).")] = True,
    nearest: Annotated[bool, typer.Option("--nearest", help="If the goal is unreachable, go to the reachable cell closest to it.")] = False,
    costs: Annotated[CostsName, typer.Option("--costs", help="Step costs: seed (10/14) or exact (sqrt 2, Moving AI lengths).")] = CostsName.seed,
    obstacle: Annotated[list[str] | None, typer.Option("--obstacle", metavar="X,Z,R", help="A dynamic obstacle circle in world metres, blocking the cells whose centres it covers (repeatable).")] = None,
    png: Annotated[Path | None, typer.Option("--png", metavar="OUT.png", help="Also draw the grid and path to this PNG.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Find one path on MAP and print a summary (exit 1 when there is no path)."""
    from .cli_level import parse_obstacles

    start = _parse_pair(from_, "--from", integer=cells)
    goal = _parse_pair(to, "--to", integer=cells)
    circles = parse_obstacles(obstacle)
    grid = load_grid(map_file)
    pf = Pathfinder(grid, costs=costs.value)

    use_smooth = smooth

    def query(a: Any, b: Any) -> PathResult:
        if cells:
            return pf.find_path_cells(a, b, smooth=use_smooth, nearest=nearest, obstacles=circles)
        if nearest:
            return pf.find_path_to_nearest(a, b, smooth=use_smooth, obstacles=circles)
        return pf.find_path(a, b, smooth=use_smooth, obstacles=circles)

    # the first call loads (or compiles) the numba kernels: warm them with a
    # trivial start -> start query, then time the real one
    t0 = time.perf_counter()
    query(start, start)
    first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = query(start, goal)
    elapsed_s = time.perf_counter() - t0

    if png is not None:
        from .render import render_grid, save_png

        if res.has_path:
            img = render_grid(grid, paths=[res])
        else:
            pts = np.asarray([start, goal], dtype=np.int64 if cells else np.float64)
            img = render_grid(grid, markers=[pts])
        save_png(img, png)

    ok = res.status.has_path
    if as_json:
        _emit_json(
            {
                "map": str(map_file),
                "mode": "cells" if cells else "world",
                "from": list(start),
                "to": list(goal),
                "costs": costs.value,
                "smooth": use_smooth,
                "nearest": nearest,
                "status": res.status.name,
                "found": res.found,
                "cost": _num(res.cost),
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
            }
        )
    else:
        out = _stdout()
        table = Table(title=f"navkit path on {escape(str(map_file))}", show_header=False)
        table.add_column("field", style="bold")
        table.add_column("value")
        status_style = "green" if res.found else ("yellow" if ok else "red")
        table.add_row("status", f"[{status_style}]{res.status.name}[/]")
        table.add_row("mode", f"{'cells' if cells else 'world'} (costs={costs.value}, smooth={use_smooth})")
        table.add_row("from -> to", escape(f"{tuple(start)} -> {tuple(goal)}"))
        if res.start_cell is not None:
            end = "-" if res.end_cell is None else str(res.end_cell)
            table.add_row("cells (start -> end)", escape(f"{res.start_cell} -> {end}"))
        table.add_row("cost", f"{res.cost:.6f}" if math.isfinite(res.cost) else "inf (no path)")
        table.add_row("cells", str(len(res.cells)))
        table.add_row("waypoints", str(len(res.waypoints)))
        table.add_row("nodes expanded", f"{res.expanded:,}")
        table.add_row("time", f"{elapsed_s * 1e6:,.1f} us (warm; JIT load on a first trivial call: {first_s * 1e3:,.1f} ms)")
        if png is not None:
            table.add_row("png", escape(str(png)))
        out.print(table)
        if len(res.waypoints):
            out.print("[bold]waypoints[/] (world x, z):")
            for line in _waypoint_lines(res.waypoints):
                out.print(escape(line))
    raise typer.Exit(EXIT_OK if ok else EXIT_NO_PATH)


# ------------------------------------------------------------------------ scen
def _resolve_map(scen: Any, map_opt: Path | None) -> Path:
    if map_opt is None:
        return find_map_for(scen)
    if map_opt.is_dir():
        return find_map_for(scen, map_opt)
    if map_opt.is_file():
        return map_opt
    raise FormatError("no such map file or directory", path=map_opt)


def _percentile(values: NDArray[np.float64], q: float) -> float | None:
    return float(np.percentile(values, q)) if len(values) else None


@app.command("scen")
def scen_cmd(
    scen_file: Annotated[Path, typer.Argument(metavar="FILE.scen", help="Moving AI scenario file.")],
    map_opt: Annotated[Path | None, typer.Option("--map", metavar="MAP", help="The .map file, or a folder holding it (default: found from the scenario file).")] = None,
    algorithm: Annotated[AlgorithmName, typer.Option("--algorithm", help="Search algorithm.")] = _DEFAULT_ALGORITHM,
    batch: Annotated[bool, typer.Option("--batch", help="Answer all queries with find_paths_batch (per-query time = total / n).")] = False,
    every: Annotated[int, typer.Option("--every", min=1, metavar="K", help="Run every K-th scenario line.")] = 1,
    limit: Annotated[int | None, typer.Option("--limit", min=0, metavar="N", help="Run at most N scenarios.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
) -> None:
    """Run Moving AI scenarios with exact costs and compare with the optimal lengths (exit 1 on a mismatch)."""
    algo_name = str(algorithm.value)
    algo = ALGORITHMS[algo_name]
    if batch and algo.batch is None:
        with_batch = ", ".join(k for k, a in ALGORITHMS.items() if a.batch is not None)
        raise typer.BadParameter(f"--batch supports only: {with_batch}", param_hint="'--algorithm'")
    scen = read_scenarios(scen_file)
    if len(scen) == 0:
        raise FormatError("no scenario lines to run", path=scen_file)
    map_path = _resolve_map(scen, map_opt)
    grid = load_grid(map_path)
    check_scenarios_fit(scen, grid)

    idx = np.arange(0, len(scen), every, dtype=np.int64)
    if limit is not None:
        idx = idx[:limit]
    run = scen.subset(idx)
    n = len(run)
    pf = Pathfinder(grid, costs="exact")
    starts = run.start
    goals = run.goal
    costs = np.full(n, np.inf)
    expanded = np.zeros(n, dtype=np.int64)
    status = np.zeros(n, dtype=np.uint8)
    times = np.zeros(n, dtype=np.float64)
    valid_len = np.full(n, np.inf)  # approximate algorithms: re-measured length of each valid path

    warm_s = 0.0
    if n:
        s0, g0 = (int(starts[0, 0]), int(starts[0, 1])), (int(goals[0, 0]), int(goals[0, 1]))
        t0 = time.perf_counter()
        if batch:
            assert algo.batch is not None
            algo.batch(pf, starts[:1], goals[:1])
        else:
            algo.single(pf, s0, g0)
        warm_s = time.perf_counter() - t0

    show_progress = not as_json and sys.stderr.isatty()
    if batch:
        assert algo.batch is not None
        t0 = time.perf_counter()
        with _stderr().status(f"running {n} queries in one batch", spinner="dots") if show_progress else _null():
            res = algo.batch(pf, starts, goals)
        total_s = time.perf_counter() - t0
        costs[:] = res.cost
        expanded[:] = res.expanded
        status[:] = res.status
        times[:] = total_s / n if n else 0.0
    else:
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=_stderr(),
            disable=not show_progress,
            transient=True,
        )
        step = max(1, n // 200)
        with progress:
            task = progress.add_task(f"{scen_file.name} ({algo_name})", total=n)
            single = algo.single
            perf = time.perf_counter
            start_list = starts.tolist()
            goal_list = goals.tolist()
            for i in range(n):
                s = (start_list[i][0], start_list[i][1])
                g = (goal_list[i][0], goal_list[i][1])
                t0 = perf()
                r = single(pf, s, g)
                times[i] = perf() - t0
                costs[i] = r.cost
                if not algo.optimal:
                    valid_len[i] = _valid_length(r, grid, s, g)
                expanded[i] = r.expanded
                status[i] = int(r.status)
                if (i + 1) % step == 0 or i + 1 == n:
                    progress.update(task, completed=i + 1)
        total_s = float(times.sum())

    optimal = run.optimal
    err = np.abs(costs - optimal)  # inf where no path
    bad = ~(err <= run.tolerance())
    subopt: dict[str, Any] = {}
    if not algo.optimal:
        # approximate: only a missing or invalid path (or one shorter than optimal) is a failure
        bad = ~(np.isfinite(valid_len) & (valid_len >= optimal - run.tolerance()))
        pos = np.isfinite(valid_len) & (optimal > 0)
        ratio = valid_len[pos] / optimal[pos] - 1.0
        subopt = {
            "mean_suboptimality": float(ratio.mean()) if len(ratio) else None,
            "max_suboptimality": float(ratio.max()) if len(ratio) else None,
            "invalid_paths": int(np.count_nonzero(~np.isfinite(valid_len))),
        }
    mism = np.flatnonzero(bad)
    us = times * 1e6
    summary: dict[str, Any] = {
        "scen": str(scen_file),
        "map": str(map_path),
        "algorithm": algo_name,
        "mode": "batch" if batch else "single",
        "timing": "batch total / n (no per-query distribution)" if batch else "perf_counter around each query",
        "costs": "exact",
        "lines_in_file": len(scen),
        "total": n,
        "matched": int(n - len(mism)),
        "mismatched": int(len(mism)),
        "max_abs_error": _num(err.max()) if n else 0.0,
        "median_us": _percentile(us, 50),
        "mean_us": float(us.mean()) if n else None,
        "p95_us": _percentile(us, 95),
        "total_s": total_s,
        "warmup_ms": warm_s * 1e3,
        "median_expanded": float(np.median(expanded)) if n else None,
        "mismatches": [_mismatch(run, i, costs, status) for i in mism[:_MISMATCH_JSON]],
        **subopt,
    }
    if as_json:
        _emit_json(summary)
    else:
        _print_scen(summary, run, mism, costs, status)
    raise typer.Exit(EXIT_NO_PATH if len(mism) else EXIT_OK)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _valid_length(r: PathResult, grid: NavGrid, s: tuple[int, int], g: tuple[int, int]) -> float:
    """Length of ``r``'s cells under the Moving AI rules; inf when missing or invalid."""
    from .benchmark import path_length

    length, _why = path_length(r.cells, grid.walkable, s, g) if r.has_path else (None, "no path")
    return math.inf if length is None else float(length)


def _mismatch(run: Any, i: int, costs: NDArray[np.float64], status: NDArray[np.uint8]) -> dict[str, Any]:
    return {
        "line": int(run.lines[i]),
        "start": [int(v) for v in run.start[i]],
        "goal": [int(v) for v in run.goal[i]],
        "expected": float(run.optimal[i]),
        "got": _num(costs[i]),
        "status": Status(int(status[i])).name,
    }


def _fmt_opt(v: float | None, fmt: str = ",.1f") -> str:
    return "-" if v is None else format(v, fmt)


def _print_scen(summary: dict[str, Any], run: Any, mism: NDArray[np.int64], costs: NDArray[np.float64],
                status: NDArray[np.uint8]) -> None:
    out = _stdout()
    table = Table(title=escape(f"navkit scen {summary['scen']}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", justify="right")
    table.add_row("map", escape(summary["map"]))
    table.add_row("algorithm", f"{summary['algorithm']} ({summary['mode']}, exact costs)")
    table.add_row("total", f"{summary['total']:,} of {summary['lines_in_file']:,} lines")
    ok_style = "green" if summary["mismatched"] == 0 else "red"
    table.add_row("matched", f"[{ok_style}]{summary['matched']:,}[/]")
    table.add_row("mismatched", f"[{ok_style}]{summary['mismatched']:,}[/]")
    mae = summary["max_abs_error"]
    table.add_row("max abs error", "inf (a query found no path)" if mae is None else f"{mae:.3g}")
    if "mean_suboptimality" in summary:
        table.add_row("mean suboptimality", _fmt_opt(summary["mean_suboptimality"], ".2%"))
        table.add_row("max suboptimality", _fmt_opt(summary["max_suboptimality"], ".2%"))
        table.add_row("invalid / missing paths", f"{summary['invalid_paths']:,}")
    table.add_row("median us / query", _fmt_opt(summary["median_us"]))
    table.add_row("mean us / query", _fmt_opt(summary["mean_us"]))
    table.add_row("p95 us / query", _fmt_opt(summary["p95_us"]))
    table.add_row("median expanded", _fmt_opt(summary["median_expanded"], ",.0f"))
    table.add_row("total search time", f"{summary['total_s'] * 1e3:,.1f} ms")
    table.add_row("first call (JIT load)", f"{summary['warmup_ms']:,.1f} ms (not counted)")
    out.print(table)
    if summary["mode"] == "batch":
        out.print("note: --batch times the whole batch; per-query figures are total / n.")
    if len(mism):
        out.print(f"[red]first {min(len(mism), _MISMATCH_SHOW)} of {len(mism)} mismatches:[/]")
        for i in mism[:_MISMATCH_SHOW]:
            got = f"{costs[i]:.6f}" if math.isfinite(costs[i]) else f"no path ({Status(int(status[i])).name})"
            out.print(escape(
                f"  line {int(run.lines[i])}: ({run.start[i][0]}, {run.start[i][1]}) -> "
                f"({run.goal[i][0]}, {run.goal[i][1]})  expected {run.optimal[i]:g}  got {got}"
            ))


# ----------------------------------------------------------------------- bench
@app.command(
    "bench",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def bench_cmd(ctx: typer.Context) -> None:
    """Run the benchmark suite (navkit.benchmark); all arguments pass through (try: navkit bench --help)."""
    try:
        mod = importlib.import_module("navkit.benchmark")
    except ImportError as exc:
        if getattr(exc, "name", None) not in ("navkit.benchmark", "navkit"):
            raise
        typer.echo(f"error: the benchmark module navkit.benchmark is not available ({exc})", err=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    rc = mod.main(list(ctx.args))
    raise typer.Exit(int(rc) if isinstance(rc, int) else 0)


# ------------------------------------------------------------------------ info
def _grid_info(grid: NavGrid, path: Path) -> dict[str, Any]:
    walk = grid.walkable
    nwalk = int(walk.sum())
    w = grid.weight_array()[walk] if nwalk else np.ones(1, dtype=np.int32)
    return {
        "file": str(path),
        "name": grid.name,
        "width": grid.width,
        "depth": grid.depth,
        "cells": grid.size,
        "walkable": nwalk,
        "walkable_fraction": nwalk / grid.size,
        "weighted": grid.is_weighted,
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


@app.command("info")
def info_cmd(
    map_file: Annotated[Path, typer.Argument(metavar="MAP", help="Grid file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Print a grid's size, walkable fraction, weights and geometry."""
    grid = load_grid(map_file)
    info = _grid_info(grid, map_file)
    if as_json:
        _emit_json(info)
        return
    table = Table(title=escape(f"navkit info {map_file}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("size", f"{info['width']} x {info['depth']} cells (width x depth) = {info['cells']:,}")
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
    _stdout().print(table)


# --------------------------------------------------------------------- convert
@app.command("convert")
def convert_cmd(
    src: Annotated[Path, typer.Argument(metavar="IN", help="Grid file to read.")],
    dst: Annotated[Path, typer.Argument(metavar="OUT", help="File to write; the extension picks the format.")],
) -> None:
    """Convert a grid file to another format (load_grid then save_grid)."""
    grid = load_grid(src)
    save_grid(grid, dst)
    ext = dst.suffix.lower()
    dropped = []
    if ext == ".map":
        if grid.is_weighted:
            dropped.append("terrain weights")
        if (grid.cell_size, grid.min_x, grid.min_z, grid.floor_y, grid.agent_radius) != (1.0, 0.0, 0.0, 0.0, 0.0):
            dropped.append("geometry")
    if dropped:
        typer.echo(f"warning: {dst.name}: the .map format drops {' and '.join(dropped)}", err=True)
    typer.echo(f"wrote {dst} ({grid.width}x{grid.depth} cells)")


from .cli_level import register as _register_level  # noqa: E402

_register_level(app)
from .cli_sim import register as _register_sim; _register_sim(app)  # noqa: E402, E702, I001
from .cli_view import register as _register_view; _register_view(app)  # noqa: E402, E702, I001
from .cli_flow import register as _register_flow; _register_flow(app)  # noqa: E402, E702, I001


def main() -> None:
    """Console-script entry point (``navkit``)."""
    app(prog_name="navkit")


if __name__ == "__main__":  # pragma: no cover
    main()

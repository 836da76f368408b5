"""``navkit scen``: run a Moving AI scenario file and compare with the optimal lengths.

::

    navkit scen FILE.scen [--map MAP_OR_DIR] [--algorithm astar|dijkstra|jps|jps+|auto|hpa]
                [--batch] [--every K] [--limit N] [--json]

Every query runs with exact costs. Exit status 1 when a length does not
match; for ``--algorithm hpa``, which is approximate, only a missing or
invalid path counts, and the JSON adds ``mean_suboptimality``,
``max_suboptimality`` and ``invalid_paths``. :data:`ALGORITHMS` is the
registry of ``--algorithm`` choices.
"""

from __future__ import annotations

import contextlib
import enum
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
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..errors import FormatError
from ..formats import check_scenarios_fit, find_map_for, load_grid, read_scenarios
from ..grid import NavGrid
from ..query.checks import path_length
from ..query.pathfinder import Pathfinder
from ..results import BatchResult, PathResult, Status
from .common import EXIT_NO_PATH, EXIT_OK, emit_json, num, stderr, stdout

__all__ = ["scen_cmd", "HELP", "Algorithm", "ALGORITHMS", "AlgorithmName"]

#: The command's help line.
HELP = ("Run Moving AI scenarios with exact costs and compare with the optimal lengths "
        "(exit 1 on a mismatch).")
#: How many mismatches ``scen`` lists (human) and stores (JSON).
MISMATCH_SHOW = 10
MISMATCH_JSON = 50


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
    """HPA* (default clusters) on ``pf``'s grid; built on first use per Pathfinder."""
    hpa = _HPA_CACHE.get(pf)
    if hpa is None:
        from ..query.hpa import HPAStar

        hpa = _HPA_CACHE[pf] = HPAStar(pf.grid, costs=pf.costs)
    return hpa.find_path_cells(s, g)


#: Algorithms ``navkit scen --algorithm`` accepts; adding one is one entry here.
ALGORITHMS: dict[str, Algorithm] = {
    "astar": Algorithm(
        single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="astar"),
        batch=lambda pf, s, g: pf.find_paths_cells(s, g, algorithm="astar"),
    ),
    "dijkstra": Algorithm(single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="dijkstra")),
    "jps": Algorithm(
        single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="jps"),
        batch=lambda pf, s, g: pf.find_paths_cells(s, g, algorithm="jps"),
    ),
    "jps+": Algorithm(  # JPS on offline jump tables (built on the first query)
        single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="jps+"),
        batch=lambda pf, s, g: pf.find_paths_cells(s, g, algorithm="jps+"),
    ),
    "auto": Algorithm(  # JPS on an unweighted 8-connected map, else A*: the library's default
        single=lambda pf, s, g: pf.find_path_cells(s, g, algorithm="auto"),
        batch=lambda pf, s, g: pf.find_paths_cells(s, g, algorithm="auto"),
    ),
    "hpa": Algorithm(single=_hpa_single, optimal=False),
}

AlgorithmName = enum.Enum(  # type: ignore[misc]
    "AlgorithmName", {k: k for k in ALGORITHMS}, type=str
)
_DEFAULT_ALGORITHM = AlgorithmName["astar"]


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


def scen_cmd(
    scen_file: Annotated[Path, typer.Argument(
        metavar="FILE.scen", help="Moving AI scenario file.")],
    map_opt: Annotated[Path | None, typer.Option(
        "--map", metavar="MAP",
        help="The .map file, or a folder holding it (default: found from the scenario "
             "file).")] = None,
    algorithm: Annotated[AlgorithmName, typer.Option(
        "--algorithm", help="Search algorithm.")] = _DEFAULT_ALGORITHM,
    batch: Annotated[bool, typer.Option(
        "--batch",
        help="Answer all queries with find_paths_cells (per-query time = total / n).")] = False,
    every: Annotated[int, typer.Option(
        "--every", min=1, metavar="K", help="Run every K-th scenario line.")] = 1,
    limit: Annotated[int | None, typer.Option(
        "--limit", min=0, metavar="N", help="Run at most N scenarios.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of tables.")] = False,
) -> None:
    """Run a scenario file (see :data:`HELP`)."""
    algo_name = str(algorithm.value)
    algo = ALGORITHMS[algo_name]
    if batch and algo.batch is None:
        with_batch = ", ".join(k for k, a in ALGORITHMS.items() if a.batch is not None)
        raise typer.BadParameter(f"--batch supports only: {with_batch}", param_hint="'--algorithm'")
    scen = read_scenarios(scen_file)
    if len(scen) == 0:
        raise FormatError("no scenario lines to run", path=scen_file)
    map_path = _resolve_map(scen, map_opt)
    world = None
    pf: Any
    if map_path.suffix == ".nkw":  # a baked world (docs/world-queries.md)
        if batch:
            raise typer.BadParameter("--batch does not apply to a baked world",
                                     param_hint="'--batch'")
        from ..world.world import World

        world = World.open(str(map_path), costs="exact",
                           **({"small_world_cells": 0} if algo_name == "hpa" else {}))
        grid = world.store.to_grid()  # (scenario maps are small: the validity checks read it)
        world_algo = "auto" if algo_name == "hpa" else algo_name
        ran: set[str] = set()

        def _world_single(_pf: Any, s: tuple[int, int], g: tuple[int, int]) -> PathResult:
            assert world is not None
            r = world.find_path_cells(s, g, algorithm=world_algo)
            ran.add(world.last_algorithm)
            return r

        algo = Algorithm(single=_world_single, optimal=algo_name != "hpa")
    else:
        grid = load_grid(map_path)
    check_scenarios_fit(scen, grid)

    idx = np.arange(0, len(scen), every, dtype=np.int64)
    if limit is not None:
        idx = idx[:limit]
    run = scen.subset(idx)
    n = len(run)
    pf = world if world is not None else Pathfinder(grid, costs="exact")
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
        spinner = (stderr().status(f"running {n} queries in one batch", spinner="dots")
                   if show_progress else contextlib.nullcontext())
        with spinner:
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
            console=stderr(),
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
    if world is not None:
        algo_name = f"world:{'+'.join(sorted(ran))}" if ran else "world"
    summary: dict[str, Any] = {
        "scen": str(scen_file),
        "map": str(map_path),
        "algorithm": algo_name,
        "mode": "batch" if batch else "single",
        "timing": ("batch total / n (no per-query distribution)" if batch
                   else "perf_counter around each query"),
        "costs": "exact",
        "lines_in_file": len(scen),
        "total": n,
        "matched": int(n - len(mism)),
        "mismatched": int(len(mism)),
        "max_abs_error": num(err.max()) if n else 0.0,
        "median_us": _percentile(us, 50),
        "mean_us": float(us.mean()) if n else None,
        "p95_us": _percentile(us, 95),
        "total_s": total_s,
        "warmup_ms": warm_s * 1e3,
        "median_expanded": float(np.median(expanded)) if n else None,
        "mismatches": [_mismatch(run, i, costs, status) for i in mism[:MISMATCH_JSON]],
        **subopt,
    }
    if as_json:
        emit_json(summary)
    else:
        _print_scen(summary, run, mism, costs, status)
    raise typer.Exit(EXIT_NO_PATH if len(mism) else EXIT_OK)


def _valid_length(r: PathResult, grid: NavGrid, s: tuple[int, int], g: tuple[int, int]) -> float:
    """Length of ``r``'s cells under the Moving AI rules; inf when missing or invalid."""
    length, _why = path_length(r.cells, grid.walkable, s, g) if r.has_path else (None, "no path")
    return math.inf if length is None else float(length)


def _mismatch(run: Any, i: int, costs: NDArray[np.float64],
              status: NDArray[np.uint8]) -> dict[str, Any]:
    return {
        "line": int(run.lines[i]),
        "start": [int(v) for v in run.start[i]],
        "goal": [int(v) for v in run.goal[i]],
        "expected": float(run.optimal[i]),
        "got": num(costs[i]),
        "status": Status(int(status[i])).name,
    }


def _fmt_opt(v: float | None, fmt: str = ",.1f") -> str:
    return "-" if v is None else format(v, fmt)


def _print_scen(summary: dict[str, Any], run: Any, mism: NDArray[np.int64],
                costs: NDArray[np.float64], status: NDArray[np.uint8]) -> None:
    out = stdout()
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
        out.print(f"[red]first {min(len(mism), MISMATCH_SHOW)} of {len(mism)} mismatches:[/]")
        for i in mism[:MISMATCH_SHOW]:
            got = (f"{costs[i]:.6f}" if math.isfinite(costs[i])
                   else f"no path ({Status(int(status[i])).name})")
            out.print(escape(
                f"  line {int(run.lines[i])}: ({run.start[i][0]}, {run.start[i][1]}) -> "
                f"({run.goal[i][0]}, {run.goal[i][1]})  expected {run.optimal[i]:g}  got {got}"
            ))

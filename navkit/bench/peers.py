"""The peer benchmark (``navkit bench``): navkit's A* against Python grid path-finding libraries.

Run ``navkit bench`` or ``python benchmarks/bench_grid.py`` (``--help`` for
options). This is a measurement script, not a test: it never fails on a
missed target.

Queries: for each Moving AI map, every 10th line of its ``.scen`` file
(lines 1, 11, 21, ...), the last ``--queries`` (100) of those, which are the
longest (:func:`~navkit.bench.common.select_queries`). Every library answers
the same queries; ``time.perf_counter`` brackets each library's Python call
and the figure is the median microseconds per query. Every returned path is
re-measured under the Moving AI rules (8-connected, straight step 1, diagonal
sqrt(2), no corner cutting, no blocked cells; :mod:`navkit.query.checks`)
and counted optimal when its length is within ``0.005 + 1e-5 * L`` of the
scenario's optimal length ``L``.

Peers that are not installed appear as ``not installed`` rows. The slow pure
Python peers run on a few queries spread evenly over the selection; their
ratio is taken against navkit's median on the same queries.

The library calls are in :mod:`navkit.bench.libraries`, the tables in
:mod:`navkit.bench.peer_tables`, the JIT start-up figures in
:mod:`navkit.bench.jit`.
"""

from __future__ import annotations

import gc
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ..query.checks import path_length
from . import SUITES
from . import options as opt
from .common import (
    MapData,
    load_map,
    make_console,
    no_data,
    resolve_data_dir,
    select_queries,
    split_names,
    spread,
    write_json,
)
from .jit import jit_figures
from .libraries import (
    FAST_MAKERS,
    MODULE_OF,
    ROW_NAMES,
    PeerResult,
    installed,
    run_navkit,
    run_navkit_batch,
    run_networkx,
    run_pathfinding,
    time_queries,
)
from .peer_tables import (
    NOTE,
    TARGET_MAPS,
    json_default,
    map_table,
    print_setup,
    print_summary,
    target_rows,
)

# path_length and select_queries stay importable from here for the old
# ``navkit.benchmark`` spelling.
__all__ = ["main", "bench_map", "select_queries", "path_length", "DEFAULT_MAPS",
           "TARGET_MAPS", "ALL_PEERS", "SLOW_PEERS", "QUICK_QUERIES"]

#: Maps run when ``--maps`` is not given.
DEFAULT_MAPS = ("den520d", "AR0011SR", "maze512-1-0", "random512-10-0")
QUICK_QUERIES = 20
SLOW_PEERS = ("pathfinding", "networkx", "skimage")
ALL_PEERS = ("pyastar2d", "tcod", "tcod-pathfinder", "pathfinding", "networkx", "skimage")


def peer_counts(args: opt.Args, n: int) -> dict[str, int]:
    """Queries per selected peer on a map of ``n`` queries (the slow ones run on a few)."""
    counts = {
        "pyastar2d": n,
        "tcod": n,
        "tcod-pathfinder": n,
        "pathfinding": min(n, args.pathfinding_queries),
        "networkx": min(n, args.networkx_queries),
        "skimage": min(n, args.skimage_queries),
    }
    return {k: v for k, v in counts.items() if k in args.peer_list}


def bench_map(md: MapData, args: opt.Args, advance: Callable[[], None],
              status: Callable[[str], None]) -> dict[str, Any]:
    """Every selected peer on one map; the map's figures (rows are :class:`PeerResult`)."""
    n = len(md.starts)
    status(f"{md.name}: navkit A*")
    nav, nav_stats, pf = run_navkit(md, advance)
    nav_times = np.asarray(nav.times_us)
    nav.ratio = 1.0
    rows: list[PeerResult] = [nav]
    status(f"{md.name}: navkit batch")
    try:
        batch = run_navkit_batch(md, pf, args.threads)
        if nav.median_us:
            batch.ratio = (batch.median_us or 0.0) / nav.median_us
        rows.append(batch)
    except Exception as exc:  # noqa: BLE001 - a benchmark reports, never crashes
        rows.append(PeerResult("navkit batch", status=f"error: {type(exc).__name__}: {exc}"))
    advance()
    counts = peer_counts(args, n)
    for key in ALL_PEERS:
        if key not in args.peer_list:
            for row in ROW_NAMES[key]:
                rows.append(PeerResult(row, status="skipped"))
            continue
        if not installed(MODULE_OF[key]):
            for row in ROW_NAMES[key]:
                rows.append(PeerResult(row, status="not installed"))
            continue
        k = counts[key]
        idx = spread(n, k)
        status(f"{md.name}: {ROW_NAMES[key][0]}")
        done_before = [0]

        def adv(done: list[int] = done_before) -> None:
            done[0] += 1
            advance()

        try:
            gc.collect()
            if key in FAST_MAKERS:
                label, maker = FAST_MAKERS[key]
                solve, cells, note = maker(md.walkable)
                res = PeerResult(label, note=note)
                time_queries(res, md, idx, solve, cells, adv)
                new_rows = [res]
            elif key == "pathfinding":
                new_rows = run_pathfinding(md, idx, adv)
            else:
                new_rows = [run_networkx(md, idx, adv)]
        except ImportError as exc:
            new_rows = [PeerResult(row, status=f"not installed ({exc})") for row in ROW_NAMES[key]]
        except Exception as exc:  # noqa: BLE001
            why = f"error: {type(exc).__name__}: {exc}"
            new_rows = [PeerResult(row, status=why) for row in ROW_NAMES[key]]
        for _ in range(k - done_before[0]):
            advance()
        for res in new_rows:
            if res.median_us is not None and res.indices:
                base = float(np.median(nav_times[res.indices]))
                res.ratio = res.median_us / base if base > 0 else None
                res.extra["navkit_median_us_same_queries"] = base
        rows.extend(new_rows)
        gc.collect()
    return {
        "map": md.name,
        "size": [int(md.walkable.shape[1]), int(md.walkable.shape[0])],
        "scenario": md.scen_path,
        "scenario_lines": md.scen_lines,
        "queries": n,
        "query_lines": [int(v) for v in md.lines],
        "navkit": {
            "median_us": nav.median_us,
            "optimal": nav.optimal,
            "run": nav.run,
            **nav_stats,
        },
        "peers": rows,
    }


def plan_units(args: opt.Args, n: int) -> int:
    """Progress-bar units for a map of ``n`` queries."""
    counts = peer_counts(args, n)
    return n + 1 + sum(counts.values())


# ----------------------------------------------------------------------- main

def _peer_list(args: opt.Args, console: Any) -> list[str] | None:
    """The peers to run, in table order; None (after saying why) for an unknown name."""
    if args.peers:
        wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
        unknown = sorted(set(wanted) - set(ALL_PEERS))
        if unknown:
            console.print(f"[red]unknown peer(s) {', '.join(unknown)}; "
                          f"choose from {', '.join(ALL_PEERS)}[/red]")
            return None
        peer_list = [p for p in ALL_PEERS if p in wanted]
    else:
        peer_list = list(ALL_PEERS)
    if args.quick:
        peer_list = [p for p in peer_list if p not in SLOW_PEERS]
    return peer_list


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = make_console(110)  # piped or captured: wide enough for the tables
    data_dir = resolve_data_dir(args.data)
    names = split_names(args.maps, DEFAULT_MAPS)
    queries = args.queries if args.queries is not None else (QUICK_QUERIES if args.quick else 100)
    if queries < 1:
        console.print("[red]--queries must be at least 1[/red]")
        return 2
    peer_list = _peer_list(args, console)
    if peer_list is None:
        return 2
    args.peer_list = peer_list

    if not data_dir.is_dir():
        return no_data(data_dir)
    maps = []
    for name in names:
        try:
            maps.append(load_map(data_dir, name, queries))
        except FileNotFoundError:
            return no_data(data_dir, f"the scenario file of map {name!r}")
        except Exception as exc:  # noqa: BLE001
            print(f"error: cannot load map {name!r} from {data_dir}: {exc}", file=sys.stderr)
            return 2

    results: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=args.no_progress,
    ) as progress:
        total = sum(plan_units(args, len(md.starts)) for md in maps)
        task = progress.add_task("benchmark", total=total)

        def advance() -> None:
            progress.advance(task)

        def status(text: str) -> None:
            progress.update(task, description=text)

        for md in maps:
            res = bench_map(md, args, advance, status)
            results.append(res)
            progress.console.print(map_table(res))
    bench_s = time.perf_counter() - t_start

    print_setup(console)
    console.print(f"[yellow]Note:[/yellow] {NOTE}")
    console.print(
        "peer/navkit = peer median / navkit A* median on the same queries (>1: navkit is faster). "
        "'optimal' = paths whose Moving AI length is within 0.005 + 1e-5*L of the optimal L; "
        "'valid' = paths with no corner cut and no blocked cell (networkx: length only); "
        "'len = opt' = paths whose length matches the optimal, valid or not (a count by length "
        "alone). Slow peers run on a few queries spread over the selection."
    )

    jit = None
    if not args.no_jit:
        with console.status("JIT start-up figures (cold compile in a fresh cache, then warm "
                            "cache)..."):
            jit = jit_figures()
    targets = target_rows(results)
    print_summary(console, targets, jit)
    console.print(f"benchmark time {bench_s:.1f} s (without the JIT figures)")

    if args.json is not None:
        payload = _payload(args, data_dir, names, queries, results, targets, jit, bench_s)
        write_json(args.json, payload, console, default=json_default)
    return 0


def _payload(args: opt.Args, data_dir: Path, names: list[str], queries: int,
             results: list[dict[str, Any]], targets: list[dict[str, Any]],
             jit: dict[str, Any] | None, bench_s: float) -> dict[str, Any]:
    """Everything ``--json`` writes."""
    import numba

    from .._version import __version__

    return {
        "navkit_version": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "numba_version": numba.__version__,
        "numba_threads": numba.get_num_threads(),
        "data_dir": str(data_dir),
        "config": {
            "maps": names,
            "queries": queries,
            "quick": bool(args.quick),
            "peers": args.peer_list,
            "pathfinding_queries": args.pathfinding_queries,
            "networkx_queries": args.networkx_queries,
            "skimage_queries": args.skimage_queries,
            "selection": "every 10th scenario line (0-based positions 0, 10, 20, ...), the last N",
            "timing": "time.perf_counter around each library call; median microseconds per "
                      "query; gc off",
        },
        "note": NOTE,
        "maps": results,
        "targets": targets,
        "jit": jit,
        "benchmark_s": bench_s,
    }


#: The other benchmarks, for the epilog of ``--help``.
_OTHERS = "|".join(k for k in SUITES if k != "peers")

#: ``navkit bench peers``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("peers", cls=opt.greedy_command('--maps'),
             help=("Time navkit's A* against Python grid path-finding libraries on Moving AI "
                   "maps."),
             epilog=f"The other benchmarks: navkit bench {{{_OTHERS}}} [OPTIONS] (--help for "
                    "each).")
def cli(
    maps: Annotated[
        list[str] | None,
        typer.Option('--maps', metavar='MAP',
                     help=f"map names (default: {' '.join(DEFAULT_MAPS)}); commas "
                          "also separate"),
    ] = None,
    queries: Annotated[
        int | None,
        typer.Option('--queries', metavar='N',
                     help="last N of every 10th scenario line per map (default "
                          f"100; {QUICK_QUERIES} with --quick)"),
    ] = None,
    data: Annotated[Path | None, opt.data()] = None,
    quick: Annotated[
        bool,
        opt.quick(f"{QUICK_QUERIES} queries per map, skip the slow peers "
            f"({', '.join(SLOW_PEERS)})"),
    ] = False,
    peers: Annotated[
        str | None,
        typer.Option('--peers', metavar='LIST',
                     help=f"comma-separated peers to run (default: all of {','.join(ALL_PEERS)})"),
    ] = None,
    pathfinding_queries: Annotated[
        int,
        typer.Option('--pathfinding-queries', metavar='K',
                     help="queries for python-pathfinding (default 5)"),
    ] = 5,
    networkx_queries: Annotated[
        int,
        typer.Option('--networkx-queries', metavar='K',
                     help="queries for networkx (default 10)"),
    ] = 10,
    skimage_queries: Annotated[
        int,
        typer.Option('--skimage-queries', metavar='K',
                     help="queries for scikit-image MCP (default 10)"),
    ] = 10,
    threads: Annotated[
        int | None,
        typer.Option('--threads', metavar='THREADS',
                     help="threads for navkit batch (default: numba's)"),
    ] = None,
    json: Annotated[Path | None, opt.json_file("write every figure as JSON", 'OUT.json')] = None,
    no_jit: Annotated[
        bool,
        typer.Option('--no-jit',
                     help="skip the JIT start-up figures (subprocesses)"),
    ] = False,
    no_progress: Annotated[bool, typer.Option('--no-progress', help="no progress bar")] = False,
) -> None:
    """``navkit bench peers`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the peer benchmark with command-line ``argv``; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench peers")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Benchmark navkit's flow-field build against scikit-image's MCP and tcod's dijkstra2d.

Run ``navkit bench flow`` (``--help`` for options). A measurement script,
not a test: it never fails on a missed target.

Two 1024 x 1024 grids: the Moving AI map ``NewYork_0_1024.map`` (from
``--data``; without it only the open grid runs) and an open grid of the same
size. The goal is the walkable cell nearest the centre. Each
library computes the cost field from that goal to every cell; its call is
timed with ``time.perf_counter`` (gc off) after one untimed warm-up call, and
the figure is the median of ``--repeat`` runs. Every library reuses its
objects between runs, as navkit's :class:`~navkit.query.flow.FlowField` does:

* navkit: ``FlowField.build(goal)``: integration field and direction field,
  exact integer costs, no corner cutting, with the "seed" (10/14) and the
  "exact" (1_000_000/1_414_214) cost models;
* scikit-image: ``MCP_Geometric(costs).find_costs([goal])`` (blocked cells
  ``inf``), float costs ``1`` and ``sqrt 2``, the object built once;
* tcod: ``dijkstra2d(dist, cost, 10, 14, out=dist)`` after resetting
  ``dist``; integer costs like navkit's seed model; no direction field.

Both peers cut corners (a diagonal step past a blocked cell is allowed), so on
the city map they answer an easier question than navkit. On the open grid the
corner rule changes nothing and their fields must equal navkit's: the script
checks that (tcod exactly, scikit-image to 1e-6 relative: navkit's exact
diagonal is sqrt 2 rounded to 1.414214).

The target: navkit builds a 1024 x 1024 field in at most 30 ms (``PASS`` /
``MISS`` per cost model); ratios are peer ms / navkit ms (> 1: navkit faster).
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray

from . import options as opt
from .common import (
    fmt,
    make_console,
    median_after_warmup,
    no_data,
    resolve_data_dir,
    write_json,
)

__all__ = ["main", "pick_goal", "TARGET_MS", "DEFAULT_MAP"]

#: The Moving AI map of the benchmark.
DEFAULT_MAP = "NewYork_0_1024"
#: Side of the open grid.
OPEN_SIZE = 1024
#: navkit's target for one 1024 x 1024 field, milliseconds.
TARGET_MS = 30.0
PEERS = ("skimage", "tcod")
#: Relative tolerance for scikit-image's float costs against navkit's exact model
#: (whose diagonal 1.414214 is sqrt(2) rounded to 7 digits).
SQRT2_REL = 1e-6

NOTE = (
    "scikit-image MCP_Geometric and tcod dijkstra2d cut corners (a diagonal step may pass a "
    "blocked cell); navkit never does. On maps with obstacles the peers therefore answer an easier "
    "question; on the open grid the three must agree. tcod computes costs only; navkit also "
    "computes the direction field in the same time (packed with the costs; the int8 direction "
    "array is unpacked on first access, timed separately)."
)


def pick_goal(walk: NDArray[np.bool_]) -> tuple[int, int]:
    """The walkable cell ``(x, z)`` nearest the grid centre (ties: lower linear index).

    >>> import numpy as np
    >>> w = np.ones((5, 5), bool); w[2, 2] = False
    >>> pick_goal(w)
    (2, 1)
    """
    zz, xx = np.nonzero(walk)
    if len(zz) == 0:
        raise ValueError("the grid has no walkable cell")
    cz, cx = (walk.shape[0] - 1) / 2.0, (walk.shape[1] - 1) / 2.0
    d2 = (zz - cz) ** 2 + (xx - cx) ** 2
    i = int(np.lexsort((zz * walk.shape[1] + xx, d2))[0])
    return (int(xx[i]), int(zz[i]))


def bench_grid(label: str, walk: NDArray[np.bool_], repeat: int,
               peers: list[str]) -> dict[str, Any]:
    """Time every library on one grid; returns the figures and the agreement checks."""
    from ..grid import NavGrid
    from ..query.flow import FlowField

    goal = pick_goal(walk)
    gx, gz = goal
    grid = NavGrid(walk)
    res: dict[str, Any] = {
        "grid": label,
        "width": int(walk.shape[1]),
        "depth": int(walk.shape[0]),
        "walkable": int(walk.sum()),
        "open": bool(walk.all()),
        "goal": [gx, gz],
        "navkit": {},
        "peers": {},
    }
    fields = {}
    for costs in ("seed", "exact"):
        ff = FlowField(grid, costs)

        def build(ff: FlowField = ff) -> None:
            ff.build([goal])

        med, times = median_after_warmup(build, repeat)
        fields[costs] = ff

        def build_and_unpack(ff: FlowField = ff) -> None:
            ff.build([goal])
            _ = ff.direction  # the int8 array, unpacked from the field on first access

        med_unpack, _t = median_after_warmup(build_and_unpack, repeat)
        res["navkit"][costs] = {
            "median_ms": med,
            "min_ms": min(times),
            "with_direction_array_ms": med_unpack,
            "reached": ff.reached,
            "queue": ff.queue,
            "result": "PASS" if med <= TARGET_MS else "MISS",
        }
    seed_cost = fields["seed"].cost_int.copy()
    exact_cost = fields["exact"].cost.copy()

    if "skimage" in peers:
        try:
            from skimage.graph import MCP_Geometric
        except ImportError:
            res["peers"]["skimage"] = {"status": "not installed"}
        else:
            mcp = MCP_Geometric(np.where(walk, 1.0, np.inf), fully_connected=True)
            out: dict[str, Any] = {}

            def run_mcp() -> None:
                out["cost"] = mcp.find_costs([(gz, gx)])[0]

            med, times = median_after_warmup(run_mcp, repeat)
            cost = np.where(walk, out["cost"], np.inf)
            both = np.isfinite(cost) & np.isfinite(exact_cost)
            # navkit's exact diagonal is 1.414214, sqrt(2) to 7 digits: 3.1e-7 relative
            rel = np.abs(cost[both] - exact_cost[both]) / np.maximum(exact_cost[both], 1.0)
            res["peers"]["skimage"] = {
                "status": "ok",
                "call": "MCP_Geometric(costs).find_costs([goal])",
                "median_ms": med,
                "min_ms": min(times),
                "ratio": med / res["navkit"]["exact"]["median_ms"],
                "compared_with": "exact",
                "cells_cheaper_than_navkit":
                    int((cost[both] < exact_cost[both] * (1 - SQRT2_REL)).sum()),
                "max_rel_diff": float(rel.max()) if rel.size else 0.0,
                "agrees": bool(np.array_equal(np.isfinite(cost), np.isfinite(exact_cost))
                               and (rel.size == 0 or rel.max() <= SQRT2_REL)),
            }

    if "tcod" in peers:
        try:
            import tcod.path
        except ImportError:
            res["peers"]["tcod"] = {"status": "not installed"}
        else:
            tcost = walk.astype(np.int8)
            dist = np.empty(walk.shape, dtype=np.int32)
            big = np.iinfo(np.int32).max

            def run_tcod() -> None:
                dist.fill(big)
                dist[gz, gx] = 0
                tcod.path.dijkstra2d(dist, tcost, 10, 14, out=dist)

            med, times = median_after_warmup(run_tcod, repeat)
            tc = np.where(walk & (dist < big), dist, -1).astype(np.int64)
            both = (tc >= 0) & (seed_cost >= 0)
            res["peers"]["tcod"] = {
                "status": "ok",
                "call": "dijkstra2d(dist, cost, 10, 14, out=dist)",
                "median_ms": med,
                "min_ms": min(times),
                "ratio": med / res["navkit"]["seed"]["median_ms"],
                "compared_with": "seed",
                "cells_cheaper_than_navkit": int((tc[both] < seed_cost[both]).sum()),
                "agrees": bool(np.array_equal(tc, seed_cost)),
            }
    return res


def _print(console: Any, results: list[dict[str, Any]]) -> None:
    from rich.table import Table

    t = Table(title=f"Flow field, one goal, whole grid (median of runs; target navkit <= "
                    f"{TARGET_MS:g} ms)")
    for col in ("grid", "library", "ms", "peer / navkit", "agrees with navkit", "result"):
        t.add_column(col, justify="left" if col in ("grid", "library") else "right")
    for res in results:
        label = f"{res['grid']} ({res['width']}x{res['depth']}, {res['walkable']:,} walkable)"
        for costs in ("seed", "exact"):
            nk = res["navkit"][costs]
            style = "green" if nk["result"] == "PASS" else "red"
            t.add_row(label, f"navkit {costs}", fmt(nk["median_ms"]), "1.00", "-",
                      f"[{style}]{nk['result']}[/]")
            t.add_row("", "  + .direction array", fmt(nk["with_direction_array_ms"]), "", "", "")
            label = ""
        for name in PEERS:
            pr = res["peers"].get(name)
            if pr is None:
                continue
            if pr["status"] != "ok":
                t.add_row("", name, pr["status"], "-", "-", "")
                continue
            if res["open"]:
                agree = "[green]yes[/]" if pr["agrees"] else "[red]NO[/]"
            else:
                agree = f"{pr['cells_cheaper_than_navkit']:,} cells cheaper (corner cuts)"
            t.add_row("", f"{name} (vs {pr['compared_with']})", fmt(pr["median_ms"]),
                      fmt(pr["ratio"]), agree, "")
    console.print(t)
    console.print(f"[yellow]Note:[/yellow] {NOTE}")


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    from ..formats import load_grid

    console = make_console(120)
    if args.repeat < 1 or args.size < 1:
        console.print("[red]--repeat and --size must be at least 1[/red]")
        return 2
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = sorted(set(peers) - set(PEERS))
    if unknown:
        console.print(f"[red]unknown peer(s) {', '.join(unknown)}; "
                      f"choose from {', '.join(PEERS)}[/red]")
        return 2
    if args.data is not None and not args.data.is_dir():
        return no_data(args.data)
    grids: list[tuple[str, NDArray[np.bool_]]] = []
    data_dir = resolve_data_dir(args.data)
    name = args.map[:-4] if args.map.endswith(".map") else args.map
    map_path = data_dir / f"{name}.map"
    if map_path.is_file():
        grids.append((name, load_grid(map_path).walkable))
    else:
        console.print(f"[yellow]{map_path} not found (use --data DIR or NAVKIT_MOVINGAI_DIR); "
                      f"open grid only[/yellow]")
    grids.append((f"open {args.size}", np.ones((args.size, args.size), dtype=bool)))

    results = []
    with console.status("timing..."):
        for label, walk in grids:
            results.append(bench_grid(label, walk, args.repeat, peers))
    _print(console, results)
    if args.json is not None:
        import numba

        from .._version import __version__

        payload = {
            "navkit_version": __version__,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "numba_version": numba.__version__,
            "repeat": args.repeat,
            "target_ms": TARGET_MS,
            "timing": "time.perf_counter around each call after one warm-up; median ms; gc off",
            "note": NOTE,
            "results": results,
        }
        write_json(args.json, payload, console)
    return 0


#: ``navkit bench flow``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("flow", cls=opt.BenchCommand,
             help="Time navkit's flow-field build against scikit-image MCP and tcod dijkstra2d.")
def cli(
    data: Annotated[Path | None, opt.data()] = None,
    map: Annotated[
        str,
        typer.Option('--map', metavar='NAME',
                     help=f"Moving AI map (default {DEFAULT_MAP})"),
    ] = DEFAULT_MAP,
    size: Annotated[
        int,
        typer.Option('--size', metavar='N',
                     help=f"open grid side (default {OPEN_SIZE})"),
    ] = OPEN_SIZE,
    repeat: Annotated[
        int,
        typer.Option('--repeat', metavar='K',
                     help="timed runs per library (default 9)"),
    ] = 9,
    peers: Annotated[
        str,
        typer.Option('--peers', metavar='LIST',
                     help="comma-separated: skimage,tcod"),
    ] = ",".join(PEERS),
    json: Annotated[
        Path | None, opt.json_file("also write the figures as JSON", 'OUT.json')] = None,
) -> None:
    """``navkit bench flow`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the flow-field benchmark with command-line ``argv``; 0, or 2 on bad input.

    Without the Moving AI map only the open grid runs (a warning says so);
    a ``--data`` folder that does not exist is an error.
    """
    return opt.run(app, argv, "navkit bench flow")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Benchmark the arcade adapter against ``arcade.astar_calculate_path`` on the same map.

Run ``python -m navkit.bench.engines [--quick] [--json] [--size N]``. A
measurement script, not a test: it reports PASS / MISS against the target
(navkit's median query at least 50x faster) and exits 0 (2 on bad input, 3
when arcade is not installed).

Map: a ``--size`` x ``--size`` (default 64) crop of the bundled Moving AI map
``den520d`` (the window, on a 16-cell lattice, whose walkable share is
nearest 60 %), given to both as one barrier list
(:class:`navkit.adapters.arcade.NavkitBarrierList`; arcade's
``astar_calculate_path`` reads only its attributes, so both answer exactly
the same grid). Queries: seeded pairs of walkable grid points in the crop's
largest 8-connected region, kept when arcade finds a path (arcade 3.3 gives
up after 500 expansions, so long routes are missing from its answers: the
count is reported). Every query is timed with ``time.perf_counter`` around
the Python call, the garbage collector paused; navkit runs ``--rounds``
rounds (each query's fastest), arcade one (it takes milliseconds per query).
The figures are medians over queries, from the same run.

Path lengths: navkit's (octile, no corner cutting, optimal) and arcade's
(measured the same way, its diagonals may cut corners; it prices a diagonal
1.42 and its search is not guaranteed optimal) over the same queries.
"""

from __future__ import annotations

import gc
import math
import platform
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Annotated, Any

import numpy as np
import typer

from .. import examples
from ..adapters.arcade import NavkitBarrierList, astar_calculate_path, pathfinder_for
from ..formats import load_grid
from . import options as opt

__all__ = ["main", "crop", "make_queries", "path_length", "TARGET"]

#: navkit's median query must be at least this many times faster than arcade's.
TARGET = 50.0
GRID_SIZE = 32  # pixels per grid point


def crop(size: int) -> np.ndarray:
    """``(size, size)`` walkable crop of den520d: the 16-lattice window nearest 60 % walkable."""
    walk = load_grid(examples.path("den520d.map")).walkable
    best: tuple[float, int, int] | None = None
    for z in range(0, walk.shape[0] - size + 1, 16):
        for x in range(0, walk.shape[1] - size + 1, 16):
            share = float(walk[z:z + size, x:x + size].mean())
            key = (abs(share - 0.6), z, x)
            if best is None or key < best:
                best = key
    assert best is not None
    _, z, x = best
    return np.ascontiguousarray(walk[z:z + size, x:x + size])


def _largest_region(walk: np.ndarray) -> np.ndarray:
    from scipy import ndimage

    labels, n = ndimage.label(walk, structure=np.ones((3, 3), dtype=int))
    if n == 0:
        return np.zeros_like(walk)
    sizes = np.bincount(labels.ravel())[1:]
    return np.asarray(labels == (int(np.argmax(sizes)) + 1))


def path_length(path: Sequence[tuple[float, float]] | None, grid_size: float) -> float:
    """Length of a pixel path in grid steps (straight 1, diagonal sqrt 2); inf for None."""
    if path is None:
        return math.inf
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(path[:-1], path[1:],
                                                                     strict=True)) / grid_size


def make_queries(walk: np.ndarray, n: int, seed: int = 1) -> list[tuple[tuple[float, float],
                                                                       tuple[float, float]]]:
    """``n`` seeded pixel (start, end) pairs inside the largest region, centred on grid points."""
    region = _largest_region(walk)
    zz, xx = np.nonzero(region)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        a, b = rng.choice(len(xx), size=2, replace=False)
        out.append(((xx[a] * GRID_SIZE + GRID_SIZE / 2, zz[a] * GRID_SIZE + GRID_SIZE / 2),
                    (xx[b] * GRID_SIZE + GRID_SIZE / 2, zz[b] * GRID_SIZE + GRID_SIZE / 2)))
    return out


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out
    finally:
        if enabled:
            gc.enable()


def run(size: int, candidates: int, rounds: int, quiet: bool) -> dict[str, Any]:
    import arcade
    from rich.console import Console
    from rich.progress import Progress

    theirs: Callable[..., Any] = arcade.astar_calculate_path
    walk = crop(size)
    bl = NavkitBarrierList(~walk, grid_size=GRID_SIZE)
    t_build, _ = _timed(lambda: pathfinder_for(bl))
    queries = make_queries(walk, candidates)
    # warm: compile the kernels, first call of each
    astar_calculate_path(queries[0][0], queries[0][1], bl)
    rows = []
    err = Console(stderr=True)
    with Progress(console=err, transient=True, disable=quiet or not err.is_terminal) as prog:
        task = prog.add_task("arcade vs navkit", total=len(queries))
        for sp, ep in queries:
            ta, pa = _timed(partial(theirs, sp, ep, bl))
            tn = math.inf
            pn = None
            for _ in range(rounds):
                t, pn = _timed(partial(astar_calculate_path, sp, ep, bl))
                tn = min(tn, t)
            rows.append({"arcade_s": ta, "navkit_s": tn, "arcade_len": path_length(pa, GRID_SIZE),
                         "navkit_len": path_length(pn, GRID_SIZE), "arcade_found": pa is not None,
                         "navkit_found": pn is not None})
            prog.advance(task)
    both = [r for r in rows if r["arcade_found"] and r["navkit_found"]]
    med_a = float(np.median([r["arcade_s"] for r in both])) * 1e6 if both else None
    med_n = float(np.median([r["navkit_s"] for r in both])) * 1e6 if both else None
    ratio = med_a / med_n if med_a and med_n else None
    return {
        "benchmark": "engines",
        "map": f"den520d crop {size}x{size} ({int(walk.sum())} walkable cells)",
        "grid_size_px": GRID_SIZE,
        "queries": len(rows),
        "both_found": len(both),
        "arcade_gave_up": sum(1 for r in rows if r["navkit_found"] and not r["arcade_found"]),
        "navkit_pathfinder_build_ms": t_build * 1e3,
        "arcade_median_us": med_a,
        "navkit_median_us": med_n,
        "navkit_median_us_all": float(np.median([r["navkit_s"] for r in rows])) * 1e6,
        "ratio": ratio,
        "target": TARGET,
        "pass": ratio is not None and ratio >= TARGET,
        "navkit_total_length": sum(r["navkit_len"] for r in both),
        "arcade_total_length": sum(r["arcade_len"] for r in both),
        "arcade_shorter": sum(1 for r in both if r["arcade_len"] < r["navkit_len"] - 1e-9),
        "arcade_longer": sum(1 for r in both if r["arcade_len"] > r["navkit_len"] + 1e-9),
        "python": platform.python_version(),
        "arcade": getattr(arcade, "__version__", "?"),
    }


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    if not 16 <= args.size <= 256 or args.rounds < 1 or (args.queries is not None
                                                          and args.queries < 1):
        print("error: --size must lie in 16..256, --rounds and --queries >= 1", file=sys.stderr)
        return 2
    try:
        import arcade  # noqa: F401
    except ImportError:
        print("error: this benchmark needs arcade: pip install 'navkit[arcade]'", file=sys.stderr)
        return 3
    n = args.queries if args.queries is not None else (15 if args.quick else 60)
    res = run(args.size, n, args.rounds, args.quiet)
    if args.json:
        print(opt.dumps(res, indent=2))
        return 0

    def us(v: float | None) -> str:
        return "-" if v is None else f"{v:,.1f}"

    print(f"map: {res['map']}, {res['queries']} queries, {res['both_found']} answered by both "
          f"(arcade gave up on {res['arcade_gave_up']}: its 500-expansion cap)")
    print(f"arcade.astar_calculate_path   median {us(res['arcade_median_us'])} us/query")
    print(f"navkit adapter                median {us(res['navkit_median_us'])} us/query "
          f"(Pathfinder built once: {res['navkit_pathfinder_build_ms']:.0f} ms, "
          "kernel loading included)")
    ratio = res["ratio"]
    verdict = "PASS" if res["pass"] else "MISS"
    print(f"ratio {'-' if ratio is None else f'{ratio:,.0f}x'} (target >= {TARGET:.0f}x): "
          f"{verdict}")
    print("path length over the shared queries (grid steps): "
          f"navkit {res['navkit_total_length']:.2f}"
          f" (octile-optimal, no corner cutting), arcade {res['arcade_total_length']:.2f} "
          f"({res['arcade_shorter']} shorter by cutting corners, {res['arcade_longer']} longer)")
    return 0


#: ``navkit bench engines``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("engines", cls=opt.BenchCommand,
             help="navkit's arcade adapter vs arcade.astar_calculate_path")
def cli(
    quick: Annotated[bool, opt.quick("fewer queries (under 20 s)")] = False,
    json: Annotated[bool, opt.json_flag()] = False,
    size: Annotated[
        int,
        typer.Option('--size',
                     help="crop edge in cells (16-256, default 64)"),
    ] = 64,
    queries: Annotated[
        int | None,
        typer.Option('--queries',
                     help="candidate queries (default 60, 15 with --quick)"),
    ] = None,
    rounds: Annotated[
        int, typer.Option('--rounds', help="navkit rounds per query (default 5)")] = 5,
    quiet: Annotated[bool, opt.quiet()] = False,
) -> None:
    """``navkit bench engines`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the engines benchmark with command-line ``argv``; 0 (bad options exit 2)."""
    return opt.run(app, argv, "navkit bench engines")


if __name__ == "__main__":
    sys.exit(main())

"""Call overhead of a cell query: the time a query spends outside its search kernel.

Run ``python -m navkit.bench.call_overhead [--quick] [--maps ...] [--json OUT]``
(``--help`` for options). A measurement script, not a test: it reports PASS /
MISS against the call-overhead target (at most 3 us outside the kernel on a uniform
grid) but exits 0 unless its input is bad (2).

Per map (``costs="exact"``, JPS+ tables built with ``Pathfinder.precompute``)
and per query, a cell ``s`` with a free east neighbour, two queries: **same**
(``s -> s``) and **step** (``s -> s + (1, 0)``). For each method, the mean
microseconds per call of

* **call**: the public call, in a loop of ``--calls`` calls:
  ``Pathfinder.find_path_cells(s, g, algorithm=...)`` (``astar``, ``jps``,
  ``jps+``, ``auto``), ``Pathfinder.find_cost(s, g, algorithm=...)``
  (``cost:astar``, ``cost:jps``, ``cost:jps+``) or
  ``Pathfinder.find_path_into(s, g, buf, algorithm=...)`` into one reused
  :class:`~navkit.PathBuffer` (``into:astar``, ``into:jps``, ``into:jps+``);
* **kernel**: the search kernel alone with the arguments that call passes
  (``AStar.kernel_call`` / ``JPS.kernel_call`` / ``JPSPlus.kernel_call``, one
  argument tuple per call built beforehand, each with its own search
  generation), called through its compiled entry point
  (:func:`navkit.query.fastcall.entry_point`): the search without numba's
  type dispatch;
* **outside**: call minus kernel: argument checks, option resolution, the
  lock, buffers, result building (for A* also tracing the path: two more
  kernels that ``find_cost`` skips).

Each figure is the fastest of ``--rounds`` rounds (call and kernel loops
alternate, garbage collector paused) of the calling thread's CPU time
(``time.thread_time_ns``): the queries are single-threaded, and on a shared
machine wall time also counts the time other processes held the core (it
varied 2x between runs here, CPU time by 2 %).
"""

from __future__ import annotations

import gc
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from . import options as opt
from .common import default_data_dir, no_data, split_names

__all__ = ["main", "MAPS", "TARGET_US", "METHODS", "pick_cell", "measure_map"]

#: Maps measured by default (den520d is bundled; the others when the Moving AI folder has them).
MAPS = ("den520d", "AR0011SR", "NewYork_0_1024")
#: The call-overhead target: microseconds outside the kernel per cell query.
TARGET_US = 3.0
#: Method name -> (entry point, algorithm).
METHODS: dict[str, tuple[str, str]] = {
    "astar": ("find_path_cells", "astar"),
    "jps": ("find_path_cells", "jps"),
    "jps+": ("find_path_cells", "jps+"),
    "auto": ("find_path_cells", "auto"),
    "cost:astar": ("find_cost", "astar"),
    "cost:jps": ("find_cost", "jps"),
    "cost:jps+": ("find_cost", "jps+"),
    "into:astar": ("find_path_into", "astar"),
    "into:jps": ("find_path_into", "jps"),
    "into:jps+": ("find_path_into", "jps+"),
}

Cell = tuple[int, int]


def pick_cell(walkable: Any) -> Cell:
    """The free cell ``(x, z)`` with a free east neighbour closest to the grid's
    centre (squared distance, ties to the lower row then column).

    >>> pick_cell(np.array([[1, 1, 0], [0, 1, 1]], dtype=bool))
    (1, 1)
    """
    w = np.asarray(walkable, dtype=bool)
    ok = np.zeros_like(w)
    ok[:, :-1] = w[:, :-1] & w[:, 1:]
    zs, xs = np.nonzero(ok)
    if not len(zs):
        raise ValueError("no free cell with a free east neighbour")
    d, wd = w.shape
    d2 = (2 * zs - (d - 1)) ** 2 + (2 * xs - (wd - 1)) ** 2
    i = int(np.lexsort((xs, zs, d2))[0])
    return int(xs[i]), int(zs[i])


def _kernel_calls(pf: Any, algorithm: str, s: Cell, g: Cell, n: int) -> list[tuple[Any, ...]]:
    """``n`` ready ``(kernel, arguments)`` pairs of the search a query runs,
    each in its own reserved generation."""
    from ..query.fastcall import entry_point

    b = pf.budget
    if algorithm == "astar":
        gen = pf.engine.workspace.next_gens(n)
        hmul = pf.engine.padded.wmin
        calls = [pf.engine.astar.kernel_call(s, g, b, hmul, gen + i) for i in range(n)]
    else:
        gen = pf.engine.jps.next_gen(n)
        q = pf.engine.jps if algorithm == "jps" else pf.engine.cells.jps_plus
        calls = [q.kernel_call(s, g, b, gen + i) for i in range(n)]
    call = entry_point(calls[0][0], calls[0][1])  # the compiled search, no type dispatch
    return [(call, args) for _, args in calls]


def _time_call(fn: Callable[[], Any], n: int) -> float:
    """Mean CPU microseconds of the thread per ``fn()`` over ``n`` calls."""
    t0 = time.thread_time_ns()
    for _ in range(n):
        fn()
    return (time.thread_time_ns() - t0) / n / 1e3


def _time_kernel(calls: list[tuple[Any, ...]]) -> float:
    """Mean CPU microseconds of the thread per ``kernel(*args)`` of ``calls``."""
    t0 = time.thread_time_ns()
    for kernel, args in calls:
        kernel(*args)
    return (time.thread_time_ns() - t0) / len(calls) / 1e3


def _caller(pf: Any, entry: str, s: Cell, g: Cell,
            alg: str) -> tuple[Callable[[], Any], Callable[[Any], int]]:
    """The timed public call ``pf.<entry>(s, g, algorithm=alg)`` (``find_path_into``
    into one PathBuffer, reused) and how to read the integer cost off its answer."""
    from ..results import PathBuffer

    fn = getattr(pf, entry)
    if entry == "find_path_into":
        buf = PathBuffer()
        return (lambda: fn(s, g, buf, algorithm=alg)), (lambda _: buf.cost_int)
    call = lambda: fn(s, g, algorithm=alg)  # noqa: E731
    return call, (int if entry == "find_cost" else (lambda r: r.cost_int))


def measure_map(pf: Any, s: Cell, *, calls: int, rounds: int,
                methods: list[str] | None = None) -> dict[str, Any]:
    """Call, kernel and outside microseconds per method and query (see the module docstring)."""
    g1 = (s[0] + 1, s[1])
    out: dict[str, Any] = {}
    for case, g in (("same", s), ("step", g1)):
        rows: dict[str, Any] = {}
        for name in methods or list(METHODS):
            entry, alg = METHODS[name]
            kalg = pf.resolve_algorithm(alg)
            ref = pf.find_path_cells(s, g, algorithm=alg).cost_int
            call, cost_of = _caller(pf, entry, s, g, alg)
            got = cost_of(call())
            if got != ref:
                raise AssertionError(f"{name}: {got} != {ref}")

            for _ in range(min(calls, 1000)):  # warm up
                call()
            best_call = best_kernel = float("inf")
            gc_on = gc.isenabled()
            try:
                for _ in range(rounds):
                    kc = _kernel_calls(pf, kalg, s, g, calls)
                    gc.disable()
                    best_kernel = min(best_kernel, _time_kernel(kc))
                    best_call = min(best_call, _time_call(call, calls))
                    if gc_on:
                        gc.enable()
                    del kc
            finally:
                if gc_on:
                    gc.enable()
            rows[name] = {"algorithm": kalg, "call_us": best_call, "kernel_us": best_kernel,
                          "outside_us": best_call - best_kernel,
                          "target_met": best_call - best_kernel <= TARGET_US}
        out[case] = rows
    return out



def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    from ..formats import load_grid
    from ..query.pathfinder import Pathfinder

    if args.calls < 1 or args.rounds < 1:
        print("error: --calls and --rounds must be >= 1", file=sys.stderr)
        return 2
    methods = split_names(args.methods, tuple(METHODS))
    bad = [m for m in methods if m not in METHODS]
    if bad:
        print(f"error: unknown method(s) {', '.join(bad)}; choose from {', '.join(METHODS)}",
              file=sys.stderr)
        return 2
    calls, rounds = (500, 10) if args.quick else (args.calls, args.rounds)
    data = args.data if args.data is not None else default_data_dir()
    names = split_names(args.maps, MAPS)
    if args.quick:
        names = names[:1]
    bundled = Path(__file__).resolve().parents[1] / "examples"
    results: dict[str, Any] = {}
    skipped = []
    for name in names:
        path = next((d / f"{name}.map" for d in (data, bundled) if (d / f"{name}.map").is_file()),
                    None)
        if path is None:
            skipped.append(name)
            continue
        pf = Pathfinder(load_grid(path), costs="exact")
        pf.precompute()
        s = pick_cell(pf.grid.walkable)
        results[name] = {"cell": list(s), "width": pf.grid.width, "depth": pf.grid.depth,
                         "cases": measure_map(pf, s, calls=calls, rounds=rounds,
                                              methods=methods)}
    if not results:
        return no_data(data, f"maps {', '.join(names)}")
    print(f"call overhead: mean us per call, fastest of {rounds} rounds of {calls} calls; "
          f"outside = call - kernel (target <= {TARGET_US:g} us)")
    print(f"{'map':16} {'query':5} {'method':11} {'runs':6} {'call':>8} {'kernel':>8} "
          f"{'outside':>8}  target")
    for name, r in results.items():
        for case, rows in r["cases"].items():
            for m, row in rows.items():
                print(f"{name:16} {case:5} {m:11} {row['algorithm']:6} {row['call_us']:8.2f} "
                      f"{row['kernel_us']:8.2f} {row['outside_us']:8.2f}  "
                      f"{'PASS' if row['target_met'] else 'MISS'}")
    for name in skipped:
        print(f"({name}: not found in {data}; skipped)")
    if args.json is not None:
        payload = {"benchmark": "call_overhead", "target_us": TARGET_US, "calls": calls,
                   "rounds": rounds, "python": platform.python_version(),
                   "machine": platform.machine(), "maps": results, "skipped": skipped}
        args.json.write_text(opt.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


#: ``navkit bench call-overhead``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("call-overhead", cls=opt.BenchCommand,
             help=__doc__.split("\n")[0])
def cli(
    data: Annotated[
        Path | None,
        typer.Option('--data', metavar='DIR',
                     help="Moving AI folder holding the .map files (default: "
                          "as the other benchmarks; den520d is bundled)."),
    ] = None,
    maps: Annotated[
        list[str] | None,
        opt.maps(','.join(MAPS), note="; missing ones are skipped with a note"),
    ] = None,
    methods: Annotated[
        list[str] | None,
        typer.Option('--methods',
                     help=f"Comma-separated methods (default: all: {','.join(METHODS)})."),
    ] = None,
    calls: Annotated[int, typer.Option('--calls', help="Calls per timed loop (1000).")] = 1000,
    rounds: Annotated[int, typer.Option('--rounds', help="Rounds, the fastest kept (30).")] = 30,
    quick: Annotated[bool, opt.quick("The first map only, 500 calls, 10 rounds.")] = False,
    json: Annotated[Path | None, opt.json_file("Also write the results here.", 'OUT')] = None,
) -> None:
    """``navkit bench call-overhead`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark with command-line ``argv``; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench call-overhead")


if __name__ == "__main__":
    raise SystemExit(main())

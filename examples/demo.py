"""navkit demo: the longest Moving AI scenarios on den520d, checked and drawn.

Run ``python examples/demo.py`` (or ``make demo``). It loads the bundled map
``den520d.map`` with its scenario file (:mod:`navkit.examples`), runs the longest scenario
queries with the exact cost model, prints the time of
the first call (numba kernels loading or compiling), a table comparing every
cost with the published optimal length, and writes ``<out>/demo_paths.png``.

Exit status 1 if any cost differs from the optimal length.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

import navkit
import navkit.examples
from navkit.formats import read_scenarios
from navkit.render import render_grid, save_png

MAP_NAME = "den520d.map"


def find_data() -> tuple[Path, Path]:
    """The bundled den520d map and its scenario file."""
    return navkit.examples.path(MAP_NAME), navkit.examples.path(MAP_NAME + ".scen")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out"),
                    help="output folder for demo_paths.png (default: out)")
    ap.add_argument("--queries", type=int, default=20,
                    help="how many of the longest scenarios to run (default 20)")
    ap.add_argument("--heat", action="store_true",
                    help="tint the map by the distance from the first start")
    args = ap.parse_args(argv)
    if args.queries < 1:
        ap.error("--queries must be >= 1")

    console = Console(highlight=False, width=None if sys.stdout.isatty() else 100)
    map_path, scen_path = find_data()
    t0 = time.perf_counter()
    grid = navkit.load_grid(map_path)
    scen = read_scenarios(scen_path)
    navkit.formats.check_scenarios_fit(scen, grid)
    load_ms = (time.perf_counter() - t0) * 1e3
    console.print(f"map {map_path} ({grid.width}x{grid.depth}, {grid.walkable.mean():.1%} "
                  f"walkable), {len(scen)} scenarios, loaded in {load_ms:.1f} ms")

    # the longest problems (stable order: by length, then by file line)
    order = np.lexsort((scen.lines, -scen.optimal))[: args.queries]
    run = scen.subset(np.sort(order))
    pf = navkit.Pathfinder(grid, costs="exact")

    starts, goals = run.start.tolist(), run.goal.tolist()
    t0 = time.perf_counter()
    pf.find_path_cells(tuple(starts[0]), tuple(goals[0]), smooth=True)
    first_ms = (time.perf_counter() - t0) * 1e3
    console.print(f"first call (numba kernels load / JIT): {first_ms:.1f} ms")

    table = Table(title=f"navkit on {MAP_NAME}: {len(run)} longest scenarios, exact costs")
    for col, just in (("query", "right"), ("line", "right"), ("start -> goal", "left"),
                      ("optimal", "right"), ("navkit", "right"), ("match", "center"),
                      ("expanded", "right"), ("us", "right")):
        table.add_column(col, justify=just, no_wrap=True)  # type: ignore[arg-type]
    results = []
    tol = run.tolerance()
    times = []
    mismatches = 0
    for i, (s, g) in enumerate(zip(starts, goals, strict=True)):
        t0 = time.perf_counter()
        r = pf.find_path_cells((s[0], s[1]), (g[0], g[1]), smooth=True)
        us = (time.perf_counter() - t0) * 1e6
        times.append(us)
        results.append(r)
        ok = abs(r.cost - run.optimal[i]) <= tol[i]
        mismatches += not ok
        table.add_row(
            str(i + 1), str(int(run.lines[i])), f"{s[0]},{s[1]} -> {g[0]},{g[1]}",
            f"{run.optimal[i]:.3f}", f"{r.cost:.3f}", "[green]yes[/]" if ok else "[red]NO[/]",
            f"{r.expanded:,}", f"{us:,.0f}",
        )
    console.print(table)
    console.print(f"{len(run) - mismatches}/{len(run)} match; median {np.median(times):,.0f} us "
                  f"per query (A* with smoothing, one thread)")

    heat = pf.distance_field([starts[0]]) if args.heat else None
    t0 = time.perf_counter()
    image = render_grid(grid, paths=results, heat=heat)
    out = save_png(image, args.out / "demo_paths.png")
    draw_ms = (time.perf_counter() - t0) * 1e3
    console.print(f"wrote {out} ({image.width}x{image.height} px) in {draw_ms:.0f} ms")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())

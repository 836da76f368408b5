"""Benchmark of the character simulation: tick time at 100, 1,000 and 5,000 walkers.

Run ``navkit bench sim`` (or ``navkit.bench.sim.main(argv)``).

The level is 256 x 256 cells (0.5 m cells, 128 m square) of open ground
with scattered rectangular blocks (deterministic, seed 7). NPCs spawn on a
1 m lattice of walkable cells, each walks to a random walkable cell, and on
arrival picks the next one (in the arrival callback, so the replanning is
inside the timed tick). Every tick is timed, planning included; the JIT
compile and the initial plans (one per character, before the first tick)
are reported apart. The target is a mean tick <= 10 ms at 1,000 characters.

Options: ``--sizes 100,1000,5000``, ``--ticks 200``, ``--warmup 20``,
``--seed 7``, ``--json``.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Annotated, Any

import numpy as np
import typer

from ..grid import NavGrid
from ..sim import Location
from . import options as opt

__all__ = ["main", "make_level", "run_size", "spawn_points", "TARGET_MS", "TARGET_SIZE"]

#: Target mean tick time (ms) at :data:`TARGET_SIZE` characters.
TARGET_MS = 10.0
TARGET_SIZE = 1000
GRID_CELLS = 256
CELL_SIZE = 0.5


def make_level(seed: int = 7, cells: int = GRID_CELLS, cell_size: float = CELL_SIZE) -> NavGrid:
    """An open ``cells x cells`` level with scattered blocks and a border wall."""
    rng = np.random.default_rng(seed)
    walk = np.ones((cells, cells), dtype=bool)
    walk[0, :] = walk[-1, :] = walk[:, 0] = walk[:, -1] = False
    for _ in range(cells * cells // 400):
        w, d = (int(v) for v in rng.integers(2, 9, size=2))
        x, z = (int(v) for v in rng.integers(1, cells - 10, size=2))
        walk[z:z + d, x:x + w] = False
    return NavGrid(walk, cell_size=cell_size, agent_radius=0.45, name=f"bench{cells}")


def spawn_points(grid: NavGrid, n: int, rng: np.random.Generator) -> np.ndarray:
    walk = grid.walkable
    zz, xx = np.nonzero(walk[::2, ::2])
    cells = np.stack([xx * 2, zz * 2], axis=1)
    if len(cells) < n:
        raise SystemExit(f"error: only {len(cells)} spawn cells for {n} characters")
    pick = rng.choice(len(cells), size=n, replace=False)
    return grid.cells_to_world(cells[np.sort(pick)])


def run_size(grid: NavGrid, n: int, ticks: int, warmup: int, seed: int) -> dict[str, Any]:
    """Run ``n`` walkers for ``warmup + ticks`` ticks; times the last ``ticks``."""
    rng = np.random.default_rng(seed + n)
    loc = Location(grid, tick_rate=20.0)
    spawn = spawn_points(grid, n, rng)
    free = np.argwhere(grid.walkable)  # (z, x)
    for i in range(n):
        loc.add_character(i, kind="npc", position=spawn[i], walk_speed=1.4)

    def new_target(ch: Any) -> None:
        z, x = free[int(rng.integers(len(free)))]
        ch.set_target(grid.cell_center(int(x), int(z)), on_arrived=new_target)

    t0 = time.perf_counter()
    for ch in loc.characters:
        new_target(ch)
    setup_s = time.perf_counter() - t0
    times = []
    replans = 0
    arrivals = 0
    for t in range(warmup + ticks):
        t1 = time.perf_counter()
        ev = loc.step()
        dt = time.perf_counter() - t1
        if t >= warmup:
            times.append(dt * 1000.0)
            replans += ev.replans
            arrivals += len(ev.arrived)
    arr = np.array(times)
    return {
        "characters": n,
        "ticks": ticks,
        "mean_ms": float(arr.mean()) if len(arr) else math.nan,
        "p99_ms": float(np.percentile(arr, 99)) if len(arr) else math.nan,
        "max_ms": float(arr.max()) if len(arr) else math.nan,
        "replans_per_tick": replans / max(1, ticks),
        "arrivals": arrivals,
        "blocked_stops": loc.stats.blocked_stops,
        "min_gap_m": loc.stats.min_gap,
        "initial_plans_s": setup_s,
    }


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        opt.usage_error(f"--sizes must be comma-separated integers, got {args.sizes!r}")
    if not sizes or min(sizes) < 1 or args.ticks < 1 or args.warmup < 0:
        opt.usage_error("--sizes must be positive, --ticks >= 1, --warmup >= 0")
    grid = make_level(args.seed)
    t0 = time.perf_counter()
    run_size(grid, 4, 3, 0, args.seed)  # JIT load or compile
    jit_s = time.perf_counter() - t0
    rows = [run_size(grid, n, args.ticks, args.warmup, args.seed) for n in sizes]
    verdict = None
    for r in rows:
        if r["characters"] == TARGET_SIZE:
            verdict = "PASS" if r["mean_ms"] <= TARGET_MS else "MISS"
    if args.json:
        print(opt.dumps({"level": f"{GRID_CELLS}x{GRID_CELLS} cells of {CELL_SIZE} m",
                          "jit_s": jit_s, "rows": rows, "target_ms": TARGET_MS, "verdict": verdict},
                         default=lambda v: None))
        return 0
    print(f"navkit sim benchmark: {GRID_CELLS}x{GRID_CELLS}-cell level ({CELL_SIZE} m cells), "
          f"{args.ticks} timed ticks after {args.warmup} warm-up ticks; first-call (JIT) "
          f"{jit_s:.2f} s")
    print(f"{'chars':>7} {'mean ms':>9} {'p99 ms':>9} {'max ms':>9} {'plans/tick':>11} "
          f"{'arrivals':>9} {'blocked':>8} {'min gap m':>10} {'init plans s':>13}")
    for r in rows:
        print(f"{r['characters']:>7} {r['mean_ms']:>9.3f} {r['p99_ms']:>9.3f} {r['max_ms']:>9.3f} "
              f"{r['replans_per_tick']:>11.2f} {r['arrivals']:>9} {r['blocked_stops']:>8} "
              f"{r['min_gap_m']:>10.4f} {r['initial_plans_s']:>13.2f}")
    if verdict is not None:
        print(f"target mean tick <= {TARGET_MS:g} ms at {TARGET_SIZE} characters: {verdict}")
    return 0


#: ``navkit bench sim``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("sim", cls=opt.BenchCommand,
             help=__doc__.splitlines()[0])
def cli(
    sizes: Annotated[
        str,
        typer.Option('--sizes',
                     help="comma-separated character counts"),
    ] = "100,1000,5000",
    ticks: Annotated[int, typer.Option('--ticks', help="timed ticks per size (default 200)")] = 200,
    warmup: Annotated[int, typer.Option('--warmup', help="untimed ticks first (default 20)")] = 20,
    seed: Annotated[int, opt.seed()] = 7,
    json: Annotated[bool, opt.json_flag("print one JSON object")] = False,
) -> None:
    """``navkit bench sim`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the simulation benchmark with command-line ``argv``; 0 (bad options exit 2)."""
    return opt.run(app, argv, "navkit bench sim")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

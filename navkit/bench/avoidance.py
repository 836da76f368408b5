"""Benchmark of local avoidance (docs/rules.md §9.6): navkit's ORCA step against pyrvo.

Run ``navkit bench avoidance`` (or ``navkit.bench.avoidance.main(argv)``).

Two parts:

* **step**: ``n`` agents (default 1,000 and 5,000) on an open plane, spawned
  on a jittered lattice (seed 7) with goals on the far side, walking at
  1.4 m/s. Per step, navkit's time covers the whole Python side: the
  preferred velocities (numpy), :func:`navkit._kernels.orca.orca_velocities`
  (its hash, neighbours and linear programs) and the position update; pyrvo's
  time covers ``do_step`` alone (its preferred velocities are set before the
  clock starts). Same parameters on both sides: radius 0.36 m, time horizon
  1 s, 10 neighbours, neighbour distance ``2 r + 2 tau v``.
* **sim**: the simulation benchmark of :mod:`navkit.bench.sim` (256 x 256
  cells, random walkers, planning inside the timed tick) with
  ``avoidance="orca"``; the target is a mean tick <= 10 ms at 1,000.

Options: ``--sizes 1000,5000``, ``--steps 50``, ``--sim-sizes 1000``
(empty: skip), ``--ticks 200``, ``--warmup 20``, ``--json``.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Annotated, Any

import numpy as np
import typer

from ..sim import Location
from ..sim.avoidance import OrcaWorkspace
from ..sim.constants import ORCA_RADIUS_MARGIN, ORCA_TIME_HORIZON
from ..sim.state import SimState
from . import options as opt

__all__ = ["main", "navkit_step", "pyrvo_step", "sim_avoidance"]

SPEED = 1.4
CONTACT = 0.32
DT = 0.05


def _agents(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Lattice spawns (1.2 m apart, jittered) and goals mirrored through the centre."""
    rng = np.random.default_rng(seed)
    side = int(math.ceil(math.sqrt(n)))
    k = np.arange(n)
    pos = np.stack([(k % side) * 1.2, (k // side) * 1.2], axis=1).astype(np.float64)
    pos += rng.uniform(-0.2, 0.2, size=pos.shape)
    extent = side * 1.2
    goal = extent - pos + rng.uniform(-0.5, 0.5, size=pos.shape)
    return pos, goal, extent


def _pref(pos: np.ndarray, goal: np.ndarray, out: np.ndarray) -> None:
    d = goal - pos
    L = np.sqrt((d * d).sum(1))
    s = np.minimum(SPEED, L / DT) / np.maximum(L, 1e-12)
    np.multiply(d, s[:, None], out=out)


def navkit_step(n: int, steps: int, seed: int) -> dict[str, Any]:
    """Time navkit's avoidance step (Python side included) for ``n`` agents."""
    from .._kernels.layouts import WalkGridArgs
    from .._kernels.orca import orca_velocities

    pos0, goal, extent = _agents(n, seed)
    st = SimState()
    for i in range(n):
        st.add(i, pos=pos0[i], speed=SPEED, rc=CONTACT)
    ws = OrcaWorkspace(st)
    ws.args(-2.0, -2.0, extent + 4.0, extent + 4.0, DT)  # size the buffers
    solid = np.ones(n, dtype=np.uint8)
    walking = np.ones(n, dtype=np.uint8)
    exclude = np.full(n, -1, dtype=np.int32)
    rad = np.zeros(n, dtype=np.float64)
    grid_t = tuple(WalkGridArgs(cells=np.ones(9, dtype=np.uint8), wpad=3, hpad=3, min_x=0.0,
                                min_z=0.0, cell_size=1.0))
    times = []
    for s in range(steps + 3):
        t0 = time.perf_counter()
        a_t = ws.args(-2.0, -2.0, extent + 4.0, extent + 4.0, DT)
        vpref = a_t[1]
        _pref(st.pos, goal, vpref)
        orca_velocities(st.pos, st.rc, st.speed, solid, walking, exclude, a_t, rad, grid_t)
        vnew = a_t[2]
        st.pos += vnew * DT
        st.vel[:] = vnew
        if s >= 3:
            times.append((time.perf_counter() - t0) * 1000.0)
    p = st.pos
    d = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)) if n <= 6000 else None
    gap = math.nan
    if d is not None:
        np.fill_diagonal(d, np.inf)
        gap = float(d.min() - 2 * CONTACT)
    return {"agents": n, "steps": steps, "mean_ms": float(np.mean(times)),
            "p99_ms": float(np.percentile(times, 99)), "min_gap_m": gap}


def pyrvo_step(n: int, steps: int, seed: int) -> dict[str, Any] | None:
    """Time pyrvo's ``do_step`` alone for ``n`` agents (None when pyrvo is missing)."""
    try:
        import pyrvo
    except ImportError:
        return None
    pos0, goal, _ = _agents(n, seed)
    r = CONTACT + ORCA_RADIUS_MARGIN
    tau = ORCA_TIME_HORIZON
    sim = pyrvo.RVOSimulator(DT, 2 * r + 2 * tau * SPEED, 10, tau, 0.5, r, SPEED)
    for i in range(n):
        sim.add_agent((float(pos0[i, 0]), float(pos0[i, 1])))
    pos = pos0.copy()
    pref = np.zeros_like(pos)
    times = []
    for s in range(steps + 3):
        _pref(pos, goal, pref)
        for i in range(n):
            sim.set_agent_pref_velocity(i, (float(pref[i, 0]), float(pref[i, 1])))
        t0 = time.perf_counter()
        sim.do_step()
        dt = (time.perf_counter() - t0) * 1000.0
        for i in range(n):
            v = sim.get_agent_position(i)
            pos[i, 0] = v.x
            pos[i, 1] = v.y
        if s >= 3:
            times.append(dt)
    return {"agents": n, "steps": steps, "mean_ms": float(np.mean(times)),
            "p99_ms": float(np.percentile(times, 99))}


def sim_avoidance(n: int, ticks: int, warmup: int, seed: int) -> dict[str, Any]:
    """The :mod:`navkit.bench.sim` workload with ``avoidance="orca"``."""
    from .sim import make_level, spawn_points

    grid = make_level(seed)
    rng = np.random.default_rng(seed + n)
    loc = Location(grid, tick_rate=20.0, avoidance="orca")
    spawn = spawn_points(grid, n, rng)
    free = np.argwhere(grid.walkable)
    for i in range(n):
        loc.add_character(i, kind="npc", position=spawn[i], walk_speed=1.4)

    def new_target(ch: Any) -> None:
        z, x = free[int(rng.integers(len(free)))]
        ch.set_target(grid.cell_center(int(x), int(z)), on_arrived=new_target)

    for ch in loc.characters:
        new_target(ch)
    times = []
    replans = 0
    for t in range(warmup + ticks):
        t1 = time.perf_counter()
        ev = loc.step()
        dt = time.perf_counter() - t1
        if t >= warmup:
            times.append(dt * 1000.0)
            replans += ev.replans
    arr = np.array(times)
    return {"characters": n, "ticks": ticks, "mean_ms": float(arr.mean()),
            "p99_ms": float(np.percentile(arr, 99)), "replans_per_tick": replans / ticks,
            "arrivals": loc.stats.arrivals, "blocked_stops": loc.stats.blocked_stops,
            "min_gap_m": loc.stats.min_gap}


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        sim_sizes = [int(s) for s in args.sim_sizes.split(",") if s.strip()]
    except ValueError:
        opt.usage_error("--sizes and --sim-sizes must be comma-separated integers")
    if min(sizes + sim_sizes, default=1) < 1 or args.steps < 1 or args.ticks < 1:
        opt.usage_error("sizes, --steps and --ticks must be positive")
    navkit_step(8, 2, args.seed)  # JIT load or compile
    rows: list[dict[str, Any]] = []
    for n in sizes:
        rows.append({"navkit": navkit_step(n, args.steps, args.seed),
                     "pyrvo": pyrvo_step(n, args.steps, args.seed)})
    sims = [sim_avoidance(n, args.ticks, args.warmup, args.seed) for n in sim_sizes]
    if args.json:
        print(opt.dumps({"step": rows, "sim": sims}, default=lambda v: None))
        return 0
    print("avoidance step (navkit: Python side included; pyrvo: do_step alone)")
    print(f"{'agents':>7} {'navkit ms':>10} {'pyrvo ms':>10} {'ratio':>7} {'navkit min gap':>15}")
    for r in rows:
        nk: dict[str, Any] = r["navkit"]
        pv: dict[str, Any] | None = r["pyrvo"]
        pv_ms = "n/a" if pv is None else f"{pv['mean_ms']:.3f}"
        ratio = "" if pv is None else f"{pv['mean_ms'] / nk['mean_ms']:.2f}x"
        print(f"{nk['agents']:>7} {nk['mean_ms']:>10.3f} {pv_ms:>10} {ratio:>7} "
              f"{nk['min_gap_m']:>15.4f}")
    for s in sims:
        verdict = "PASS" if s["mean_ms"] <= 10.0 else "MISS"
        print(f"sim with orca, {s['characters']} characters: mean {s['mean_ms']:.3f} ms, p99 "
              f"{s['p99_ms']:.3f} ms, {s['replans_per_tick']:.2f} plans/tick, "
              f"{s['blocked_stops']} blocked stops, min gap {s['min_gap_m']:.4f} m "
              f"(target <= 10 ms: {verdict})")
    return 0


#: ``navkit bench avoidance``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("avoidance", cls=opt.BenchCommand,
             help=(__doc__ or "").splitlines()[0])
def cli(
    sizes: Annotated[
        str,
        typer.Option('--sizes',
                     help="agents for the step comparison"),
    ] = "1000,5000",
    steps: Annotated[int, typer.Option('--steps', help="timed steps (default 50)")] = 50,
    sim_sizes: Annotated[
        str,
        typer.Option('--sim-sizes',
                     help="characters for the sim part ('' skips)"),
    ] = "1000",
    ticks: Annotated[int, typer.Option('--ticks')] = 200,
    warmup: Annotated[int, typer.Option('--warmup')] = 20,
    seed: Annotated[int, opt.seed()] = 7,
    json: Annotated[bool, opt.json_flag(None)] = False,
) -> None:
    """``navkit bench avoidance`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the avoidance benchmark with command-line ``argv``; 0 (bad options exit 2)."""
    return opt.run(app, argv, "navkit bench avoidance")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Benchmark navkit's spatial hash and crowd tick against scipy / numpy.

Run ``navkit bench crowd`` (``--help`` for options). A measurement script,
not a test: it never fails on a missed target (``PASS`` / ``MISS`` per line).

* **hash**: 100,000 points uniform in a square of side ``sqrt(n * pi / 10)``
  m (density 10/pi per m^2: about 10 neighbours within 1 m), cell size 1 m.
  A game tick: ``h.rebuild(points)`` (the same agents moved a little, the hash
  object and its buffers reused) plus ``h.query_radius_all(1.0, reuse=True)``
  (CSR, sorted), against ``cKDTree(points)`` plus ``query_ball_point(points,
  1.0)``. Target: <= 15 ms. A fresh ``SpatialHash`` + query is shown beside.
* **flock**: 10,000 agents in a 200 x 200 m square of a 512 x 512 grid (1 m
  cells, 5 % of the cells blocked in 4 x 4 blocks), separation (1 m),
  alignment and cohesion (2.5 m), wander and wall feelers. Target: <= 5 ms per
  tick (mean). The same flocking step without the map (separation,
  alignment, cohesion) in plain numpy + ``cKDTree.query_pairs`` runs beside
  navkit's on the same agents: the ratio is numpy ms / navkit ms.
* **flow**: 100,000 agents on the same map following one flow field to its
  centre, with separation (0.8 m) and walls. Target: <= 50 ms per tick.

Figures: medians (hash) or means (ticks) of ``--repeat`` runs after a warm-up,
``time.perf_counter``, garbage collector off, navkit on its default thread
count (``navkit.query.fanout.max_threads``; ``NUMBA_NUM_THREADS=1`` for one).
"""

from __future__ import annotations

import enum
import gc
import math
import platform
import time
from collections.abc import Callable
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray

from . import options as opt

__all__ = ["main", "numpy_flock_step", "TARGETS_MS"]

#: The targets, milliseconds.
TARGETS_MS = {"hash": 15.0, "flock": 5.0, "flow": 50.0}


def _times(fn: Callable[[], Any], repeat: int) -> list[float]:
    fn()
    out = []
    was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t) * 1e3)
    finally:
        if was:
            gc.enable()
    return out


def _line(name: str, ms: float, target: float | None, extra: str = "") -> None:
    verdict = "" if target is None else ("PASS" if ms <= target else "MISS")
    tgt = "" if target is None else f"(target <= {target:g} ms) {verdict}"
    print(f"  {name:<46} {ms:9.2f} ms  {tgt} {extra}".rstrip())


def numpy_flock_step(pos: NDArray[np.float64], vel: NDArray[np.float64], dt: float,
                     max_speed: float, max_force: float, sep_r: float, nb_r: float,
                     w_sep: float, w_ali: float, w_coh: float) -> None:
    """One separation / alignment / cohesion tick in numpy + cKDTree (in place),
    the same rules as navkit's kernel (steering = (desired - v) / dt, capped)."""
    from scipy.spatial import cKDTree

    n = len(pos)
    pairs = cKDTree(pos).query_pairs(nb_r, output_type="ndarray")
    i = np.concatenate([pairs[:, 0], pairs[:, 1]])
    j = np.concatenate([pairs[:, 1], pairs[:, 0]])
    d = pos[i] - pos[j]
    d2 = (d * d).sum(axis=1)
    inside = d2 < nb_r * nb_r
    i, j, d, d2 = i[inside], j[inside], d[inside], d2[inside]
    near = (d2 < sep_r * sep_r) & (d2 > 0)
    sep = np.zeros((n, 2))
    np.add.at(sep, i[near], d[near] / d2[near, None])
    cnt = np.bincount(i, minlength=n)
    ali = np.stack([np.bincount(i, vel[j, 0], n), np.bincount(i, vel[j, 1], n)], axis=1)
    coh = np.stack([np.bincount(i, pos[j, 0], n), np.bincount(i, pos[j, 1], n)], axis=1)
    has = cnt > 0
    coh[has] = coh[has] / cnt[has, None] - pos[has]

    def steer(desired_dir: NDArray[Any], mask: NDArray[np.bool_]) -> NDArray[Any]:
        ln = np.hypot(desired_dir[:, 0], desired_dir[:, 1])
        ok = mask & (ln > 0)
        des = np.zeros_like(desired_dir)
        des[ok] = desired_dir[ok] / ln[ok, None] * max_speed
        f = (des - vel) / dt
        f[~ok] = 0.0
        m = np.hypot(f[:, 0], f[:, 1])
        big = m > max_force
        f[big] *= (max_force / m[big])[:, None]
        return f

    acc: NDArray[Any] = (w_sep * steer(sep, np.bincount(i[near], minlength=n) > 0)
           + w_ali * steer(ali, has) + w_coh * steer(coh, has))
    m = np.hypot(acc[:, 0], acc[:, 1])
    big = m > max_force
    acc[big] *= (max_force / m[big])[:, None]
    vel += acc * dt
    s = np.hypot(vel[:, 0], vel[:, 1])
    fast = s > max_speed
    vel[fast] *= (max_speed / s[fast])[:, None]
    pos += vel * dt


def _map(size: int, seed: int) -> Any:
    from ..grid import NavGrid

    rng = np.random.default_rng(seed)
    walk = np.ones((size, size), dtype=bool)
    nb = int(0.05 * size * size / 16)
    xs = rng.integers(0, size - 4, nb)
    zs = rng.integers(0, size - 4, nb)
    for x, z in zip(xs, zs, strict=True):
        walk[z:z + 4, x:x + 4] = False
    c = size // 2
    walk[c - 3:c + 4, c - 3:c + 4] = True
    return NavGrid(walk)


def _free_points(grid: Any, rng: np.random.Generator, n: int, lo: float,
                 hi: float) -> NDArray[np.float64]:
    out = np.empty((0, 2))
    while len(out) < n:
        p = lo + rng.random((2 * n, 2)) * (hi - lo)
        ok = grid.walkable[p[:, 1].astype(np.int64), p[:, 0].astype(np.int64)]
        out = np.concatenate([out, p[ok]])
    return np.ascontiguousarray(out[:n])


def bench_hash(n: int, repeat: int) -> None:
    from scipy.spatial import cKDTree

    from ..crowd import SpatialHash

    rng = np.random.default_rng(1)
    side = math.sqrt(n * math.pi / 10.0)
    pts = rng.random((n, 2)) * side
    print(f"hash: {n} points uniform in {side:.1f} m square, r = 1 m, cell 1 m")
    h = SpatialHash(pts, 1.0)
    off, idx = h.query_radius_all(1.0)
    print(f"  neighbours per point: {len(idx) / n:.2f}")

    # a game tick: the same agents moved a little, the same hash rebuilt, buffers reused
    moved = [pts, pts + rng.normal(scale=0.01, size=pts.shape)]
    tick = [0]

    def ours() -> None:
        tick[0] += 1
        h.rebuild(moved[tick[0] % 2])
        h.query_radius_all(1.0, reuse=True)

    build = float(np.median(_times(lambda: h.rebuild(moved[0]), repeat)))
    allq = float(np.median(_times(lambda: h.query_radius_all(1.0, reuse=True), repeat)))
    both = float(np.median(_times(ours, repeat)))
    fresh = float(np.median(_times(lambda: SpatialHash(pts, 1.0).query_radius_all(1.0), repeat)))
    ref = float(np.median(_times(lambda: cKDTree(pts).query_ball_point(pts, 1.0,
                                                                       return_sorted=True),
                                 max(1, repeat // 4))))
    _line("rebuild", build, None)
    _line("query_radius_all(1.0, reuse=True)", allq, None)
    _line("rebuild + query_radius_all (a tick)", both, TARGETS_MS["hash"])
    _line("new SpatialHash + query_radius_all", fresh, None)
    _line("scipy cKDTree build + query_ball_point", ref, None, f"ratio {ref / both:.1f}x")


def bench_flock(n: int, ticks: int) -> None:
    from ..crowd import Crowd, SteeringParams, Weights

    grid = _map(512, 3)
    rng = np.random.default_rng(4)
    pos = _free_points(grid, rng, n, 156.0, 356.0)
    vel = rng.normal(size=(n, 2)) * 0.5
    params = SteeringParams(separation_radius=1.0, alignment_radius=2.5, cohesion_radius=2.5)
    w = Weights(separation=1.5, alignment=1.0, cohesion=1.0, wander=0.3, walls=2.0)
    print(f"flock: {n} agents on a 512 x 512 grid, separation 1 m, alignment / cohesion 2.5 m")
    c = Crowd(pos, grid=grid, params=params, weights=w, velocities=vel, max_speed=1.5,
              max_force=4.0)
    t = _times(lambda: c.step(0.05), ticks)
    _line("navkit tick (flocking + wander + walls)", float(np.mean(t)), TARGETS_MS["flock"])
    # the same flocking step, no map, against numpy + cKDTree
    wf = Weights(separation=1.5, alignment=1.0, cohesion=1.0)
    c2 = Crowd(pos, params=params, weights=wf, velocities=vel, max_speed=1.5, max_force=4.0)
    t2 = float(np.mean(_times(lambda: c2.step(0.05), ticks)))
    p3 = pos.copy()
    v3 = vel.copy()
    t3 = float(np.mean(_times(lambda: numpy_flock_step(p3, v3, 0.05, 1.5, 4.0, 1.0, 2.5,
                                                       1.5, 1.0, 1.0), max(3, ticks // 5))))
    _line("navkit tick (flocking only, no map)", t2, None)
    _line("numpy + cKDTree flocking tick", t3, None, f"ratio {t3 / t2:.1f}x")
    # one tick from the same state: the two implementations agree
    a = Crowd(pos, params=params, weights=wf, velocities=vel, max_speed=1.5, max_force=4.0)
    a.step(0.05)
    p4 = pos.copy()
    v4 = vel.copy()
    numpy_flock_step(p4, v4, 0.05, 1.5, 4.0, 1.0, 2.5, 1.5, 1.0, 1.0)
    print(f"  max |navkit - numpy| position after one tick: "
          f"{float(np.abs(a.positions - p4).max()):.2e} m")


def bench_flow(n: int, ticks: int) -> None:
    from ..crowd import Crowd, SteeringParams, Weights

    grid = _map(512, 3)
    rng = np.random.default_rng(5)
    pos = _free_points(grid, rng, n, 0.0, 512.0)
    from ..query.flow import FlowField

    ff = FlowField(grid).build([(256, 256)])
    params = SteeringParams(separation_radius=0.8)
    c = Crowd(pos, grid=grid, params=params, weights=Weights(flow=1.0, separation=1.0, walls=1.0),
              max_speed=1.5, max_force=4.0)
    c.follow_flow(c.add_flow_field(ff))
    print(f"flow: {n} agents on a 512 x 512 grid following one flow field, separation 0.8 m")
    t = _times(lambda: c.step(0.05), ticks)
    _line("navkit tick", float(np.mean(t)), TARGETS_MS["flow"])
    print(f"  unreachable agents: {len(c.unreachable())}")


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    repeat = 5 if args.quick else 15
    ticks = 20 if args.quick else 50
    from ..query.fanout import max_threads

    print(f"navkit bench crowd ({platform.machine()}, numpy {np.__version__}, "
          f"{max_threads()} threads)")
    if args.only in (None, "hash"):
        bench_hash(100_000, repeat)
    if args.only in (None, "flock"):
        bench_flock(10_000, ticks)
    if args.only in (None, "flow"):
        bench_flow(100_000, max(5, ticks // 2))
    return 0


class _Only(str, enum.Enum):
    """``--only``: one part of the benchmark."""

    hash = "hash"
    flock = "flock"
    flow = "flow"


#: ``navkit bench crowd``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("crowd", cls=opt.BenchCommand,
             help=__doc__.split("\n")[0])
def cli(
    quick: Annotated[bool, opt.quick("fewer repeats")] = False,
    only: Annotated[_Only | None, typer.Option('--only')] = None,
) -> None:
    """``navkit bench crowd`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the crowd benchmark with command-line ``argv``; 0 (bad options exit 2)."""
    return opt.run(app, argv, "navkit bench crowd")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

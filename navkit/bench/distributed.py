"""Benchmark: every scenario line of Moving AI maps, locally and on a 2-worker LocalCluster.

::

    python -m navkit.bench.distributed [--quick] [--maps a,b] [--workers 2]
                                       [--no-threads] [--no-cold] [--json FILE]

Reports, for the same shuffled batches: the serial local run; a
``LocalCluster`` of worker processes and one of worker threads (wall time,
speed-up, answers equal to the local run bit for bit); the per-task
overhead (no-op tasks); scattering the maps against workers reading them
by path; batch sizes below and above the 20 ms rule; and the first batch
on a fresh worker with a warm and with an empty numba cache. A measurement
script, never a test: it fails only on bad input (exit 2) and says when
the answers differ (exit 1).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from ..distributed.batches import plan_batches
from ..distributed.cluster import close_client, local_client
from ..distributed.queries import (
    MapQueries,
    QueryRun,
    clear_cache,
    run_queries,
    warm_workers,
)
from ..distributed.runner import DaskRunner, LocalRunner
from ..formats import load_grid
from . import options as opt
from .common import (
    no_data,
    present_maps,
    resolve_data_dir,
    split_names,
    write_json,
)

__all__ = ["MAPS", "QUICK_MAPS", "main", "run", "noop_batch", "task_overhead", "load_maps"]

#: The maps of a full run (6,517 scenario lines together).
MAPS = ("den520d", "brc202d", "AR0011SR", "Berlin_0_256")
#: ``--quick``: smaller maps, every 2nd line.
QUICK_MAPS = ("arena", "den520d", "Berlin_0_256")


def noop_batch(spec: Any, batch: Any) -> list[Any]:
    """A task that does nothing (for the per-task overhead)."""
    return [batch]


def load_maps(paths: list[str]) -> float:
    """Seconds to read the map files ``paths`` here (what ``publish="path"`` costs a worker)."""
    t0 = time.perf_counter()
    for p in paths:
        load_grid(p)
    return time.perf_counter() - t0


def task_overhead(runner: Any, n_tasks: int = 200) -> float:
    """Seconds per no-op task through ``runner.map_batches`` (wall / tasks)."""
    list(runner.map_batches(noop_batch, None, [[0]]))  # (the function reaches the workers)
    t0 = time.perf_counter()
    list(runner.map_batches(noop_batch, None, [[i] for i in range(n_tasks)]))
    return (time.perf_counter() - t0) / n_tasks


def _best(runs: list[QueryRun]) -> QueryRun:
    """The run with the smallest wall time (other processes slow some rounds down)."""
    return min(runs, key=lambda r: r.stats["wall_s"])


def _figures(run: QueryRun, local: QueryRun | None) -> dict[str, Any]:
    s = run.stats
    out = {"wall_s": s["wall_s"], "queries_per_s": s["queries_per_s"],
           "task_cpu_s": s.get("task_cpu_s"), "task_wall_s": s.get("task_wall_s"),
           "batch_items": int(s["batch_items"]), "batches": int(s["batches"])}
    if local is not None:
        out.update(speedup=local.stats["wall_s"] / s["wall_s"], equal=run.same_as(local))
    return out


def _clusters(jobs: list[MapQueries], workers: int, threads: bool, rounds: int
              ) -> dict[str, Any]:
    """Local, process and thread clusters, ``rounds`` rounds in turn; the best of each."""
    out: dict[str, Any] = {}
    clients: dict[str, Any] = {}
    try:
        for mode in ("processes", "threads") if threads else ("processes",):
            t0 = time.perf_counter()
            clients[mode] = local_client(workers, processes=mode == "processes")
            start = time.perf_counter() - t0
            t0 = time.perf_counter()
            warm_workers(DaskRunner(clients[mode], progress=False))
            out[mode] = {"start_s": start, "warm_up_wall_s": time.perf_counter() - t0}
        calib = run_queries(jobs, runner=LocalRunner(progress=False), progress=False)
        size = plan_batches(int(calib.stats["items"]), calib.stats["per_item_s"],
                            n_workers=workers)
        out["per_item_us"] = calib.stats["per_item_s"] * 1e6
        runs: dict[str, list[QueryRun]] = {"local": []}
        for _ in range(rounds):
            runs["local"].append(run_queries(jobs, runner=LocalRunner(progress=False),
                                             progress=False, batch_items=size))
            for mode, client in clients.items():
                runs.setdefault(mode, []).append(run_queries(
                    jobs, runner=DaskRunner(client, progress=False), progress=False,
                    batch_items=size))
        local = _best(runs["local"])
        out["local"] = _figures(local, None)
        out["local"]["mismatched"] = sum(len(a.mismatched) for a in local.answers)
        for mode in clients:
            out[mode].update(_figures(_best(runs[mode]), local))
            out[mode]["equal"] = all(r.same_as(local) for r in runs[mode])
        client = clients["processes"]
        runner = DaskRunner(client, progress=False)
        out["task_overhead_ms"] = task_overhead(runner) * 1e3
        client.run(clear_cache)
        by_path = run_queries(jobs, runner=runner, progress=False, batch_items=size,
                              publish="path")
        grids = [j.grid for j in jobs]
        t0 = time.perf_counter()
        fut = client.scatter([grids], broadcast=True, hash=False)[0]
        scatter_s = time.perf_counter() - t0
        fut.release()
        load_s = client.run(load_maps, [j.path for j in jobs])
        out["publish"] = {"scatter_all_maps_s": scatter_s,
                          "read_all_maps_per_worker_s": sorted(load_s.values()),
                          "map_bytes": sum(g.walkable.nbytes for g in grids),
                          "path_run_wall_s": by_path.stats["wall_s"],
                          "equal": by_path.same_as(local)}
        per = calib.stats["per_item_s"]
        sizes = {"~1 ms": max(1, round(0.001 / per)), "~20 ms": max(1, round(0.02 / per)),
                 "~100 ms": max(1, round(0.1 / per))}
        by_size: dict[str, list[QueryRun]] = {k: [] for k in sizes}
        again: list[QueryRun] = []  # local runs in the same minutes (the load drifts)
        for rnd in range(rounds):
            again.append(run_queries(jobs, runner=LocalRunner(progress=False),
                                     progress=False, batch_items=size))
            for label, items in sizes.items():
                if rnd and label == "~1 ms":  # (one round of the slow one is enough)
                    continue
                by_size[label].append(run_queries(jobs, runner=runner, progress=False,
                                                  batch_items=items))
        out["batch_sizes"] = {k: _figures(_best(v), _best(again)) for k, v in by_size.items()}
        out["batch_sizes_local_s"] = _best(again).stats["wall_s"]
    finally:
        for c in clients.values():
            close_client(c)
    return out


def _first_batch(workers: int, cold: bool) -> dict[str, Any]:
    """The first batch query on fresh worker processes, numba cache warm or empty."""
    env: dict[str, str] = {}
    tmp = None
    if cold:
        tmp = tempfile.TemporaryDirectory(prefix="navkit-cold-cache-")
        env["NUMBA_CACHE_DIR"] = tmp.name
    try:
        client = local_client(workers, env=env)
        try:
            t0 = time.perf_counter()
            per = warm_workers(DaskRunner(client, progress=False))
            return {"per_worker_s": sorted(per.values()), "wall_s": time.perf_counter() - t0}
        finally:
            close_client(client)
    finally:
        if tmp is not None:
            tmp.cleanup()


def run(jobs: list[MapQueries], *, workers: int = 2, threads: bool = True,
        cold: bool = True, rounds: int = 2) -> dict[str, Any]:
    """All figures for ``jobs`` (see the module docstring) as one dict."""
    n = sum(len(j) for j in jobs)
    out: dict[str, Any] = {"maps": [j.name for j in jobs], "queries": n, "workers": workers,
                           "cpus": os.cpu_count(), "rounds": rounds,
                           "load_before": os.getloadavg()[0]}
    out.update(_clusters(jobs, workers, threads, rounds))
    out["first_batch_warm_cache"] = _first_batch(workers, cold=False)
    if cold:
        out["first_batch_cold_cache"] = _first_batch(workers, cold=True)
    out["load_after"] = os.getloadavg()[0]
    return out


def _print(r: dict[str, Any]) -> None:
    p = print
    p(f"maps: {', '.join(r['maps'])}; {r['queries']:,} queries (A*, exact costs); "
      f"{r['workers']} workers; {r['cpus']} CPUs; load average {r['load_before']:.1f} before, "
      f"{r['load_after']:.1f} after (other processes compete for the CPUs); best of "
      f"{r['rounds']} rounds")
    lo = r["local"]
    p(f"batches: {lo['batches']} of {lo['batch_items']} queries ({r['per_item_us']:.0f} us per "
      f"query calibrated); {lo['mismatched']} mismatches vs the optimal lengths")
    rows = [("local serial", lo)] + [(f"LocalCluster {k}", r[k]) for k in ("processes",
                                                                         "threads") if k in r]
    for label, c in rows:
        extra = ""
        if "speedup" in c:
            extra = (f"  speed-up {c['speedup']:.2f}x  equal={c['equal']}  (start "
                     f"{c['start_s']:.1f} s, kernels {c['warm_up_wall_s']:.2f} s)")
        p(f"{label:24s} {c['wall_s']:7.2f} s {c['queries_per_s']:8,.0f} q/s{extra}")
        p(f"{'':24s} in tasks: CPU {c['task_cpu_s']:.2f} s, wall {c['task_wall_s']:.2f} s "
          f"(wall / CPU {c['task_wall_s'] / max(c['task_cpu_s'], 1e-9):.2f}; > 1: waiting "
          f"for a CPU)")
    p(f"per-task overhead (no-op tasks, {r['workers']} workers): {r['task_overhead_ms']:.2f} ms")
    pub = r["publish"]
    p(f"publish maps ({pub['map_bytes'] / 1e6:.1f} MB of cells): scatter to every worker "
      f"{pub['scatter_all_maps_s'] * 1e3:.0f} ms; each worker reading the files "
      f"{', '.join(f'{v * 1e3:.0f}' for v in pub['read_all_maps_per_worker_s'])} ms; run by "
      f"path {pub['path_run_wall_s']:.2f} s, equal={pub['equal']}")
    p(f"batch sizes (with a local run of {r['batch_sizes_local_s']:.2f} s in the same minutes):")
    for label, s in r["batch_sizes"].items():
        p(f"processes, batches {label:>7s}: {s['batches']:5d} x {s['batch_items']:4d}  "
          f"{s['wall_s']:6.2f} s  speed-up {s['speedup']:.2f}x  equal={s['equal']}")
    for key, label in (("first_batch_warm_cache", "warm"), ("first_batch_cold_cache", "cold")):
        if key in r:
            f = r[key]
            p(f"first batch on a fresh worker, {label} numba cache: "
              f"{', '.join(f'{v:.2f}' for v in f['per_worker_s'])} s per worker")


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    if args.workers < 1 or any(v is not None and v < 1 for v in (args.every, args.rounds)):
        print("error: --workers, --every and --rounds must be at least 1", file=sys.stderr)
        return 2
    data = resolve_data_dir(args.data)
    names = split_names(args.maps, QUICK_MAPS if args.quick else MAPS)
    present, missing = present_maps(data, names)
    if not present:
        return no_data(data, f"maps {', '.join(names)} (.map and .map.scen)")
    if missing:
        print(f"maps not found (skipped): {', '.join(missing)}")
    every = args.every or (2 if args.quick else 1)
    jobs = [MapQueries.from_scenario(data / f"{n}.map.scen", every=every) for n in present]
    t0 = time.perf_counter()
    r = run(jobs, workers=args.workers, threads=not args.no_threads,
            cold=not (args.no_cold or args.quick), rounds=args.rounds or (1 if args.quick else 2))
    r["every"] = every
    r["bench_s"] = time.perf_counter() - t0
    _print(r)
    if args.json is not None:
        from rich.console import Console

        write_json(args.json, r, Console())
    equal = (r["processes"]["equal"] and r.get("threads", {}).get("equal", True)
             and r["publish"]["equal"] and all(v["equal"] for v in r["batch_sizes"].values()))
    return 0 if equal else 1


#: ``navkit bench distributed``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("distributed", cls=opt.BenchCommand,
             help=__doc__)
def cli(
    data: Annotated[Path | None, opt.data()] = None,
    quick: Annotated[
        bool,
        opt.quick(f"maps {', '.join(QUICK_MAPS)}, every 2nd line, no "
            "cold cache run"),
    ] = False,
    maps: Annotated[
        list[str] | None,
        typer.Option('--maps', metavar='A,B',
                     help="map names"),
    ] = None,
    workers: Annotated[int, typer.Option('--workers', metavar='N')] = 2,
    every: Annotated[
        int | None,
        typer.Option('--every', metavar='K',
                     help="every K-th scenario line (default 1; 2 with --quick)"),
    ] = None,
    no_threads: Annotated[
        bool,
        typer.Option('--no-threads',
                     help="skip the threaded cluster"),
    ] = False,
    no_cold: Annotated[bool, typer.Option('--no-cold', help="skip the empty-cache start")] = False,
    rounds: Annotated[
        int | None,
        typer.Option('--rounds', metavar='R',
                     help="rounds of each run, best kept (default 2; 1 with "
                          "--quick)"),
    ] = None,
    json: Annotated[Path | None, opt.json_file("also write the figures to FILE", 'FILE')] = None,
) -> None:
    """``navkit bench distributed`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark with command-line ``argv``; 0, 1 when answers differ, 2 on bad input."""
    return opt.run(app, argv, "navkit bench distributed")


if __name__ == "__main__":
    sys.exit(main())

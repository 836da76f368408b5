"""``navkit batch``: every scenario line of several maps on a Dask cluster.

::

    navkit batch MAP_OR_SCEN... [--scheduler ADDRESS] [--workers 2] [--threads]
                 [--connect-timeout SECONDS] [--algorithm astar|jps|dijkstra]
                 [--every K] [--limit N] [--publish scatter|path] [--no-local] [--json]

Each argument is a ``.scen`` file (its map found as ``navkit scen`` finds it)
or a ``.map`` file with its ``MAP.map.scen`` beside it. The queries run with
exact costs on an embedded ``LocalCluster`` (``--workers`` processes, one
thread each; ``--threads`` for threads) or on the scheduler at
``--scheduler``; then, unless ``--no-local``, once more serially here, to
report the speed-up and check the answers are equal. Exit status 1 when a
length misses the optimal one or the cluster's answers differ from the
local ones. The workers load their kernels first (reported, not timed).
:data:`SchedulerOpt`, :data:`OptionalWorkersOpt`, :data:`ThreadsOpt`,
:data:`ConnectTimeoutOpt` and :func:`make_runner` are the options and the
runner other commands (bakes, replays) share.
"""

from __future__ import annotations

import enum
import math
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..distributed.cluster import DEFAULT_TIMEOUT_S
from ..distributed.queries import ALGORITHMS, QueryRun, run_queries, scenario_jobs, warm_workers
from ..distributed.runner import DaskRunner, LocalRunner
from ..errors import ConfigError
from .common import EXIT_NO_PATH, EXIT_OK, emit_json, num, stdout
from .scen import MISMATCH_JSON, MISMATCH_SHOW

__all__ = ["batch_cmd", "HELP", "SchedulerOpt", "WorkersOpt", "OptionalWorkersOpt", "ThreadsOpt",
           "ConnectTimeoutOpt", "make_runner"]

#: The command's help line.
HELP = ("Run every scenario line of several maps on a Dask cluster; compare with the optimal "
        "lengths and a local run (exit 1 on a mismatch).")

#: ``--scheduler ADDRESS``: use an existing Dask cluster.
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS",
    help="Address of a running Dask scheduler (tcp://host:8786); default: an embedded "
         "LocalCluster.")]
#: ``--workers N``: workers of the embedded LocalCluster.
WorkersOpt = Annotated[int, typer.Option(
    "--workers", min=1, metavar="N",
    help="Workers of the embedded LocalCluster (one thread each).")]
#: ``--workers N`` for commands that run serially here unless asked (bake, replay):
#: None (the default) means no cluster unless ``--scheduler`` is given.
OptionalWorkersOpt = Annotated[int | None, typer.Option(
    "--workers", min=1, metavar="N",
    help="Run the batches on an embedded Dask LocalCluster of N workers (default: here, "
         "serially, unless --scheduler is given).")]
#: ``--threads``: the embedded cluster's workers are threads, not processes.
ThreadsOpt = Annotated[bool, typer.Option(
    "--threads", help="Embedded cluster: worker threads in this process instead of "
                      "processes.")]

#: ``--connect-timeout SECONDS``: how long ``--scheduler`` may take to answer.
ConnectTimeoutOpt = Annotated[float, typer.Option(
    "--connect-timeout", min=0.1, metavar="SECONDS",
    help="Give up on --scheduler after this many seconds.")]

AlgorithmName = enum.Enum(  # type: ignore[misc]
    "AlgorithmName", {k: k for k in ALGORITHMS}, type=str
)


class PublishName(str, enum.Enum):
    """``--publish``: how maps reach the workers."""

    scatter = "scatter"
    path = "path"


def make_runner(scheduler: str | None, workers: int | None, *, threads: bool = False,
                progress: bool = True, timeout: float = DEFAULT_TIMEOUT_S) -> Any:
    """The runner for a command's ``--scheduler`` / ``--workers`` options: a
    :class:`~navkit.distributed.runner.DaskRunner` on the scheduler or on an embedded
    cluster of ``workers``, or a serial ``LocalRunner`` when both are None.
    Close it when done (``with make_runner(...) as runner:``)."""
    if scheduler is None and workers is None:
        return LocalRunner(progress=progress)
    if scheduler is not None and threads:
        raise ConfigError("--threads applies only to the embedded cluster", field="threads")
    return DaskRunner(scheduler=scheduler, n_workers=workers or 2, processes=not threads,
                      progress=progress, timeout=timeout)


def batch_cmd(
    targets: Annotated[list[Path], typer.Argument(
        metavar="MAP_OR_SCEN...", help=".scen files, or .map files with MAP.map.scen beside "
                                       "them.")],
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = 2,
    threads: ThreadsOpt = False,
    connect_timeout: ConnectTimeoutOpt = DEFAULT_TIMEOUT_S,
    algorithm: Annotated[AlgorithmName, typer.Option(
        "--algorithm", help="Search algorithm.")] = AlgorithmName["astar"],
    every: Annotated[int, typer.Option(
        "--every", min=1, metavar="K", help="Run every K-th scenario line.")] = 1,
    limit: Annotated[int | None, typer.Option(
        "--limit", min=0, metavar="N", help="Run at most N lines per file.")] = None,
    publish: Annotated[PublishName, typer.Option(
        "--publish", help="Send the grids to the workers (scatter) or only their paths "
                          "(path: the workers read the files; needs a shared disk).")
    ] = PublishName.scatter,
    no_local: Annotated[bool, typer.Option(
        "--no-local", help="Skip the local run (no speed-up, no equality check).")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of tables.")] = False,
) -> None:
    """Run scenario files on a cluster (see :data:`HELP`)."""
    jobs = scenario_jobs(targets, every=every, limit=limit)
    algo = str(algorithm.value)
    show = not as_json and sys.stderr.isatty()
    t0 = time.perf_counter()
    with make_runner(scheduler, workers, threads=threads, progress=show,
                     timeout=connect_timeout) as runner:
        start_s = time.perf_counter() - t0
        n_workers = runner.n_workers
        warm = warm_workers(runner, algo)  # kernels loaded before the timed run
        dist = run_queries(jobs, runner=runner, algorithm=algo, publish=publish.value,
                           progress=show)
    local: QueryRun | None = None
    if not no_local:
        local = run_queries(jobs, runner=LocalRunner(progress=show), algorithm=algo,
                            batch_items=int(dist.stats["batch_items"]), progress=show)
    summary = _summary(jobs, dist, local, algo, scheduler, n_workers, threads, start_s,
                       max(warm.values(), default=0.0))
    if as_json:
        emit_json(summary)
    else:
        _print(summary)
    bad = summary["mismatched"] > 0 or summary["equal_to_local"] is False
    raise typer.Exit(EXIT_NO_PATH if bad else EXIT_OK)


def _summary(jobs: list[Any], dist: QueryRun, local: QueryRun | None, algo: str,
             scheduler: str | None, n_workers: int, threads: bool,
             start_s: float, warm_s: float) -> dict[str, Any]:
    maps = []
    for a in dist.answers:
        j = a.job
        assert j.lines is not None and j.optimal is not None  # (scenario jobs have both)
        maps.append({
            "map": j.path, "scen": j.scen, "name": a.name, "queries": len(j),
            "matched": len(j) - len(a.mismatched), "mismatched": len(a.mismatched),
            "mismatches": [
                {"line": int(j.lines[i]), "start": j.starts[i].tolist(),
                 "goal": j.goals[i].tolist(), "expected": float(j.optimal[i]),
                 "got": num(a.cost[i])}
                for i in a.mismatched[:MISMATCH_JSON].tolist()],
        })
    s = dist.stats
    local_s = local.stats["wall_s"] if local is not None else None
    return {
        "algorithm": algo, "costs": "exact",
        "cluster": scheduler or ("embedded LocalCluster, "
                                 + ("threads" if threads else "processes")),
        "workers": n_workers,
        "cluster_start_s": start_s,
        "workers_warm_up_s": warm_s,
        "queries": int(s["items"]),
        "matched": sum(m["matched"] for m in maps),
        "mismatched": sum(m["mismatched"] for m in maps),
        "batches": int(s["batches"]), "batch_items": int(s["batch_items"]),
        "estimated_ms_per_batch": s["per_item_s"] * s["batch_items"] * 1e3,
        "calibrate_s": s["calibrate_s"],
        "cluster_s": s["wall_s"],
        "cluster_queries_per_s": s["queries_per_s"],
        "local_s": local_s,
        "local_queries_per_s": local.stats["queries_per_s"] if local is not None else None,
        "speedup": (local_s / s["wall_s"] if local_s is not None and s["wall_s"] > 0
                    else None),
        "equal_to_local": dist.same_as(local) if local is not None else None,
        "maps": maps,
    }


def _print(summary: dict[str, Any]) -> None:
    out = stdout()
    table = Table(title="navkit batch", show_header=True)
    for col in ("map", "queries", "matched", "mismatched"):
        table.add_column(col, justify="left" if col == "map" else "right")
    for m in summary["maps"]:
        style = "green" if m["mismatched"] == 0 else "red"
        table.add_row(escape(m["name"]), f"{m['queries']:,}", f"[{style}]{m['matched']:,}[/]",
                      f"[{style}]{m['mismatched']:,}[/]")
    out.print(table)
    out.print(escape(f"cluster: {summary['cluster']}, {summary['workers']} worker threads "
                     f"(started in {summary['cluster_start_s']:.1f} s, kernels loaded in "
                     f"{summary['workers_warm_up_s']:.1f} s)"))
    out.print(f"batches: {summary['batches']} of {summary['batch_items']} queries "
              f"(~{summary['estimated_ms_per_batch']:.0f} ms each, estimated)")
    out.print(f"cluster: {summary['cluster_s']:.2f} s, "
              f"{summary['cluster_queries_per_s']:,.0f} queries/s")
    if summary["local_s"] is not None:
        same = "equal" if summary["equal_to_local"] else "[red]DIFFERENT[/]"
        out.print(f"local:   {summary['local_s']:.2f} s, "
                  f"{summary['local_queries_per_s']:,.0f} queries/s; speed-up "
                  f"{summary['speedup']:.2f}x; answers {same}")
    for m in summary["maps"]:
        for x in m["mismatches"][:MISMATCH_SHOW]:
            v = x["got"]
            got = "no path" if v is None or not math.isfinite(v) else f"{v:.6f}"
            out.print(escape(f"  {m['name']} line {x['line']}: {x['start']} -> {x['goal']} "
                             f"expected {x['expected']:g} got {got}"))

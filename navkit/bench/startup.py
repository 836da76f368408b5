"""Start-up benchmark: the first use of navkit in a new process, cold and warm.

Run ``navkit bench startup`` (or ``navkit.bench.startup.main(argv)``).

Each case runs in a fresh Python process, twice: *cold* with an empty numba
cache (``NUMBA_CACHE_DIR`` a new folder: the kernels compile) and *warm* on
the cache the cold run left (they load). Reported per run: wall seconds and
CPU seconds of the whole process (import included, and the processes it
started: ``navkit warmup`` compiles its groups in worker processes) and its peak
resident memory (the largest of those processes); for the cases, also the
time of the first call alone.

=============  ===============================================================
case           what the process does after ``import navkit``
=============  ===============================================================
import         nothing (``import navkit`` alone)
cells          ``find_path_cells`` on the bundled den520d map (A*)
world          ``find_path`` on it (world points: JPS in one kernel call)
obstacles      ``find_path_cells`` with an obstacle circle
level          a JSON level (``NavMap.load``) and a find-path-to-nearest with obstacles
tick           a ``navkit.sim.Location`` tick
flow           a ``FlowField`` build and update
readme         the README's library example end to end
warmup         ``navkit warmup`` (every kernel group, as many at once as it runs)
background     ``warm_up(["flow", "crowd"], background=True)`` while this thread
               runs a pure-Python loop until it is done; also reports the main
               thread's share of the process's CPU meanwhile (the GIL it got)
=============  ===============================================================

``--prebuilt DIR`` runs every process with the portable kernels that
:func:`navkit._prebuilt_cache.build` left in ``DIR`` (``enable(DIR)``, timed
with the import): *cold* then means an empty cache on this machine but the
prebuilt kernels at hand.

Targets (this project's 2-core machine): first ``cells`` and ``world`` <= 10 s
CPU each, ``readme`` <= 30 s, ``warmup`` <= 90 s and <= 800 MB; warm import
<= 0.5 s and warm first query <= 0.05 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from . import options as opt
from .common import make_console, write_json

__all__ = ["main", "CASES", "run_case", "TARGETS"]

#: What each case runs after ``import navkit`` (``t`` times the first call).
_DEN = ("pf = navkit.Pathfinder(navkit.load_grid(navkit.examples.path('den520d.map')),"
        " costs='exact')\n")

CASES: dict[str, str] = {
    "import": "",
    "cells": _DEN + "with t: pf.find_path_cells((12, 208), (77, 36))\n",
    "world": _DEN + "with t: pf.find_path((12.5, 208.5), (77.2, 36.9))\n",
    "obstacles": _DEN + ("with t: pf.find_path_cells((12, 208), (77, 36),"
                         " obstacles=[(40.0, 100.0, 2.0)])\n"),
    "level": (
        "nav = navkit.NavMap.load(navkit.examples.path('interior.json'))\n"
        "with t: nav.find_path_to_nearest((-2, 9), (24, 4), obstacles=[(5.0, 9.5, 0.95)])\n"),
    "tick": (
        "from navkit.sim import Location\n"
        "loc = Location(navkit.NavGrid(np.ones((16, 16), bool), cell_size=0.5))\n"
        "a = loc.add_character('a', position=(0.75, 0.75))\n"
        "with t: a.set_target((6.25, 6.25)); loc.step()\n"),
    "flow": (
        "ff = navkit.FlowField(navkit.NavGrid(np.ones((32, 32), bool)))\n"
        "with t: ff.build([(3, 3)]); ff.update((0, 0, 5, 5), obstacles=[(2.0, 2.0, 1.0)])\n"),
    "readme": (
        "with t:\n"
        "    grid = navkit.load_grid(navkit.examples.path('den520d.map'))\n"
        "    pf = navkit.Pathfinder(grid, costs='exact')\n"
        "    pf.find_path_cells((12, 208), (77, 36))\n"
        "    pf.find_path((12.5, 208.5), (77.2, 36.9))\n"
        "    pf.find_path_to_nearest((12.5, 208.5), (0.5, 0.5))\n"
        "    s, g = np.array([[12, 208], [20, 200]]), np.array([[77, 36], [70, 40]])\n"
        "    pf.find_paths_cells(s, g)\n"
        "    pf.distance_field([(12, 208)])\n"),
    "warmup": (
        "from navkit.warmup import default_jobs, warm_up\n"
        "with t: failed = [r for r in warm_up(jobs=default_jobs()) if r.error]\n"
        "assert not failed, failed\n"),
    "background": (
        "from navkit.warmup import warm_up\n"
        "def spin():\n"
        "    s = 0\n"
        "    for i in range(100_000):\n"
        "        s += i % 7\n"
        "c0, p0 = time.thread_time(), time.process_time()\n"
        "with t:\n"
        "    job = warm_up(['flow', 'crowd'], background=True)\n"
        "    while not job.done():\n"
        "        spin()\n"
        "    job.wait()\n"
        "main_s, all_s = time.thread_time() - c0, time.process_time() - p0\n"
        "extra['main_thread_cpu_share'] = main_s / all_s\n"),
}

#: Case -> (cold CPU seconds, cold peak MB) targets (None: no target).
TARGETS: dict[str, tuple[float | None, float | None]] = {
    "cells": (10.0, None), "world": (10.0, None), "readme": (30.0, None),
    "warmup": (90.0, 800.0),
}

_PRELUDE = """
import json, resource, sys, time
t0 = time.perf_counter()
import numpy as np
import navkit
import_s = time.perf_counter() - t0
class _T:
    s = None
    def __enter__(self): self.t = time.perf_counter()
    def __exit__(self, *a): _T.s = time.perf_counter() - self.t
t = _T()
extra = {}
"""

_REPORT = """
ru = resource.getrusage(resource.RUSAGE_SELF)
rc = resource.getrusage(resource.RUSAGE_CHILDREN)  # navkit warmup's worker processes
print("NAVKIT_STARTUP " + json.dumps({"import_s": import_s, "first_s": _T.s,
      "cpu_s": ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime,
      "peak_mb": max(ru.ru_maxrss, rc.ru_maxrss) / 1024, "extra": extra}))
"""


_PREBUILT = """
from navkit._prebuilt_cache import enable
enable({dir!r})
"""


def run_case(case: str, cache: Path, timeout: float = 1800,
             prebuilt: Path | None = None) -> dict[str, Any]:
    """Run ``case`` in a new process with the numba cache in ``cache`` (and the
    portable kernels in ``prebuilt``, when given); its figures."""
    import time

    env = {k: v for k, v in os.environ.items() if k not in ("NAVKIT_QUIET_COMPILE",)}
    env.update(NUMBA_CACHE_DIR=str(cache), NAVKIT_QUIET_COMPILE="1")
    prelude = _PRELUDE
    if prebuilt is not None:  # timed with the import
        enable = _PREBUILT.format(dir=str(prebuilt))
        prelude = prelude.replace("import_s = ", enable + "import_s = ")
    code = prelude + CASES[case] + _REPORT
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    for line in proc.stdout.splitlines():
        if line.startswith("NAVKIT_STARTUP "):
            out: dict[str, Any] = json.loads(line.split(" ", 1)[1])
            out["wall_s"] = wall
            return out
    return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}


def _fmt(v: Any, spec: str = ".2f") -> str:
    return "-" if v is None else format(v, spec)


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    console = make_console(140)
    bad = [c for c in cases if c not in CASES]
    if bad:
        console.print(f"[red]error: unknown case(s) {', '.join(bad)}; "
                      f"expected {', '.join(CASES)}[/red]")
        return 2
    from rich.table import Table

    rows: dict[str, dict[str, Any]] = {}
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="navkit-startup-") as cache:
            console.print(f"{case}: cold ...")
            cold = run_case(case, Path(cache), prebuilt=args.prebuilt)
            warm = run_case(case, Path(cache), prebuilt=args.prebuilt)
        rows[case] = {"cold": cold, "warm": warm, "targets": TARGETS.get(case)}
    table = Table(title="navkit start-up (a new process each; cold: empty numba cache)")
    for col in ("case", "cold CPU s", "cold wall s", "cold peak MB", "cold first call s",
                "warm import s", "warm first call s", "warm wall s", "target"):
        table.add_column(col, justify="left" if col in ("case", "target") else "right")
    for case, r in rows.items():
        c, w = r["cold"], r["warm"]
        tgt = TARGETS.get(case)
        parts = [] if tgt is None else [f"<= {tgt[0]:g} s CPU" if tgt[0] else "",
                                        f"<= {tgt[1]:g} MB" if tgt[1] else ""]
        note = " / ".join(x for x in parts if x)
        if "error" in c or "error" in w:
            err = c.get("error", "") or w.get("error", "")
            table.add_row(case, err, "", "", "", "", "", "", note)
            continue
        table.add_row(case, _fmt(c["cpu_s"], ".1f"), _fmt(c["wall_s"], ".1f"),
                      _fmt(c["peak_mb"], ".0f"), _fmt(c["first_s"]), _fmt(w["import_s"]),
                      _fmt(w["first_s"], ".3f"), _fmt(w["wall_s"]), note)
    console.print(table)
    for case, r in rows.items():
        for run in ("cold", "warm"):
            for key, value in r[run].get("extra", {}).items():
                console.print(f"{case} ({run}): {key} = {value:.2f}")
    if args.json is not None:
        write_json(args.json, rows, console)
    return 0


#: ``navkit bench startup``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("startup", cls=opt.BenchCommand,
             help=__doc__.split("\n\n")[0])
def cli(
    cases: Annotated[
        str,
        typer.Option('--cases',
                     help=f"comma-separated, of {', '.join(CASES)}"),
    ] = ",".join(CASES),
    json: Annotated[Path | None, opt.json_file("also write the figures here", 'OUT')] = None,
    prebuilt: Annotated[Path | None, typer.Option(
        '--prebuilt', metavar='DIR',
        help="enable the portable kernels built into DIR (navkit._prebuilt_cache.build) "
             "in every process")] = None,
) -> None:
    """``navkit bench startup`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the start-up cases (``--cases a,b``, default all) and print the table (2: bad input)."""
    return opt.run(app, argv, "navkit bench startup")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

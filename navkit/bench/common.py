"""What the benchmarks share: the Moving AI data, the query selection, timing loops, formatting.

* **data**: :func:`default_data_dir` is where the third-party Moving AI maps
  are looked for (``$NAVKIT_MOVINGAI_DIR``, else a ``shared/maps/movingai``
  folder beside the repository, else the maps bundled in :mod:`navkit.examples`);
  every benchmark that reads them takes ``--data DIR`` (:func:`navkit.bench.options.data`)
  and reports a missing folder with :func:`no_data`;
* **selection**: :func:`select_queries` (every 10th scenario line, the last
  N: the longest), :func:`spread` and :func:`load_map`;
* **timing**: the loops, each with the garbage collector paused while the
  clock runs: :func:`timed` (one call), :func:`fastest_of_rounds` (every
  query in turn, several rounds, each query's fastest; a :class:`PreparedSolver`
  has its arguments built before the clock starts), :func:`median_after_warmup`
  (one call repeated) and :func:`race` (several calls in turn);
* **output**: :func:`median`, :func:`fmt`, :func:`fmt_us`, :func:`fmt_ratio`,
  :func:`make_console`.
"""

from __future__ import annotations

import gc
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import examples

__all__ = [
    "DATA_ENV",
    "default_data_dir",
    "resolve_data_dir",
    "no_data",
    "split_names",
    "present_maps",
    "find_scenario",
    "select_queries",
    "spread",
    "MapData",
    "load_map",
    "median",
    "timed",
    "fastest_of_rounds",
    "PreparedSolver",
    "median_after_warmup",
    "race",
    "fmt",
    "fmt_us",
    "fmt_ratio",
    "make_console",
]

#: The environment variable naming the Moving AI folder.
DATA_ENV = "NAVKIT_MOVINGAI_DIR"
_REPO = Path(__file__).resolve().parents[2]
#: Where the third-party Moving AI data sits when it is not bundled: beside the repository.
_SHARED_DATA = _REPO.parent / "shared" / "maps" / "movingai"


# ---------------------------------------------------------------------- data
def default_data_dir() -> Path:
    """``$NAVKIT_MOVINGAI_DIR``, else ``<repo>/../shared/maps/movingai``, else the
    maps bundled in the package (:mod:`navkit.examples`: den520d and arena).

    The first folder that exists wins; the bundled folder always does.
    """
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    if _SHARED_DATA.is_dir():
        return _SHARED_DATA
    return examples.path("den520d.map").parent


def resolve_data_dir(option: Path | None) -> Path:
    """The ``--data`` value, else :func:`default_data_dir`."""
    return option if option is not None else default_data_dir()


def no_data(folder: Path, what: str = "Moving AI data") -> int:
    """Print ``error: ...`` (naming ``folder`` and how to point at the data) to stderr; return 2."""
    print(f"error: {what} not found in {folder}: pass --data DIR or set {DATA_ENV}=DIR "
          f"(DIR holding the Moving AI .map and .map.scen files)", file=sys.stderr)
    return 2


def split_names(values: Sequence[str] | None, default: Sequence[str]) -> list[str]:
    """Map names from repeated and comma-separated options (``default`` when none).

    >>> split_names(["a,b", "c"], ("x",)), split_names(None, ("x", "y"))
    (['a', 'b', 'c'], ['x', 'y'])
    """
    return [m for item in (values or default) for m in item.split(",") if m]


def present_maps(folder: Path, names: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(present, missing)``: the names with ``NAME.map`` and ``NAME.map.scen`` in ``folder``."""
    present = [n for n in names
               if (folder / f"{n}.map").is_file() and (folder / f"{n}.map.scen").is_file()]
    return present, sorted(set(names) - set(present))


def find_scenario(data_dir: Path, name: str) -> Path:
    """The ``.scen`` file for map ``name`` (``den520d``, ``den520d.map`` or a path)."""
    p = Path(name)
    if p.suffix == ".scen" and p.is_file():
        return p
    stem = p.name[:-4] if p.name.endswith(".map") else p.name
    for cand in (data_dir / f"{stem}.map.scen", data_dir / f"{stem}.scen"):
        if cand.is_file():
            return cand
    others = sorted(data_dir.glob(f"{stem}*.scen"))
    if others:
        return others[0]
    raise FileNotFoundError(f"no scenario file for map {name!r} in {data_dir}")


# ----------------------------------------------------------------- selection
def select_queries(n_lines: int, queries: int) -> NDArray[np.int64]:
    """Positions of the benchmark queries: every 10th line, the last ``queries`` of those.

    >>> select_queries(888, 100)[:3].tolist(), len(select_queries(888, 100))
    ([0, 10, 20], 89)
    >>> select_queries(2180, 100)[[0, -1]].tolist()
    [1180, 2170]
    """
    every = np.arange(0, n_lines, 10, dtype=np.int64)
    return every[-queries:] if queries > 0 else every[:0]


def spread(n: int, k: int) -> NDArray[np.int64]:
    """``k`` positions spread evenly over ``range(n)`` (all of them when ``k >= n``).

    >>> spread(10, 3).tolist(), spread(3, 5).tolist()
    ([0, 4, 9], [0, 1, 2])
    """
    if k >= n:
        return np.arange(n, dtype=np.int64)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.round(np.linspace(0, n - 1, k)).astype(np.int64))


@dataclass
class MapData:
    """One map's benchmark queries (:func:`select_queries` of its scenario file)."""

    name: str
    walkable: NDArray[np.bool_]
    starts: NDArray[np.int64]  # (n, 2) as (x, y)
    goals: NDArray[np.int64]
    optimal: NDArray[np.float64]
    lines: NDArray[np.int64]
    scen_lines: int
    scen_path: str


def load_map(data_dir: Path, name: str, queries: int) -> MapData:
    """Map ``name`` from ``data_dir`` with its ``queries`` benchmark queries."""
    from ..formats import find_map_for, load_grid, read_scenarios

    scen_path = find_scenario(data_dir, name)
    scen = read_scenarios(scen_path)
    grid = load_grid(find_map_for(scen, data_dir))
    sel = scen.subset(select_queries(len(scen), queries))
    return MapData(
        name=Path(scen.map_basename).stem,
        walkable=np.ascontiguousarray(grid.walkable),
        starts=np.asarray(sel.start, dtype=np.int64),
        goals=np.asarray(sel.goal, dtype=np.int64),
        optimal=np.asarray(sel.optimal, dtype=np.float64),
        lines=np.asarray(sel.lines, dtype=np.int64),
        scen_lines=len(scen),
        scen_path=str(scen_path),
    )


# -------------------------------------------------------------------- timing
def median(values: Sequence[float]) -> float | None:
    """The median, or None for no values.

    >>> median([3.0, 1.0, 2.0]), median([])
    (2.0, None)
    """
    return float(np.median(values)) if len(values) else None


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``(fn(), seconds)``: one call bracketed by ``time.perf_counter``, gc paused."""
    gc_on = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
    finally:
        if gc_on:
            gc.enable()
    return out, dt


@dataclass(frozen=True)
class PreparedSolver:
    """A solver whose calls :func:`fastest_of_rounds` builds before it starts
    the clock: ``prepare(queries)`` gives one ``(fn, args)`` per query (a
    kernel and its ready arguments: node ids, a reserved search generation),
    and only ``fn(*args)`` is timed. ``solve(s, g)`` is one call as usual.

    >>> p = PreparedSolver(lambda s, g: s[0] + g[0],
    ...                    lambda qs: [(max, (s[0], g[0])) for s, g in qs])
    >>> p((1, 0), (2, 0)), fastest_of_rounds({"p": p}, [((1, 0), (2, 0))], 1)["p"].shape
    (3, (1,))
    """

    solve: Callable[[tuple[int, int], tuple[int, int]], Any]
    prepare: Callable[[Sequence[tuple[tuple[int, int], tuple[int, int]]]],
                      list[tuple[Callable[..., Any], tuple[Any, ...]]]]

    def __call__(self, s: tuple[int, int], g: tuple[int, int]) -> Any:
        return self.solve(s, g)


def fastest_of_rounds(
    solvers: dict[str, Callable[[tuple[int, int], tuple[int, int]], Any]],
    queries: list[tuple[tuple[int, int], tuple[int, int]]],
    rounds: int,
) -> dict[str, NDArray[np.float64]]:
    """Per method and query, the fastest of ``rounds`` timed calls (microseconds).

    The methods run in turn over all queries, ``rounds`` times, gc paused
    throughout: on a shared machine other processes only ever add time.
    """
    best = {name: np.full(len(queries), np.inf) for name in solvers}
    gc_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for name, solve in solvers.items():
                times = best[name]
                if isinstance(solve, PreparedSolver):  # the clock around fn(*args) alone
                    for i, (fn, args) in enumerate(solve.prepare(queries)):
                        t0 = time.perf_counter()
                        fn(*args)
                        dt = (time.perf_counter() - t0) * 1e6
                        if dt < times[i]:
                            times[i] = dt
                    continue
                for i, (s, g) in enumerate(queries):
                    t0 = time.perf_counter()
                    solve(s, g)
                    dt = (time.perf_counter() - t0) * 1e6
                    if dt < times[i]:
                        times[i] = dt
    finally:
        if gc_on:
            gc.enable()
    return best


def median_after_warmup(fn: Callable[[], Any], repeat: int) -> tuple[float, list[float]]:
    """Median milliseconds of ``repeat`` calls after one warm-up call (gc paused), and all times."""
    fn()
    times = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    finally:
        if enabled:
            gc.enable()
    return statistics.median(times), times


def race(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, tuple[float, float]]:
    """(best, median) wall seconds of each ``fn()`` over ``repeat`` rounds, GC off.

    Every function runs once to warm up, then the rounds run them in turn, so
    that a change in machine load affects every figure alike (the machines
    this runs on are shared).
    """
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    gc_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(max(1, repeat)):
            for name, fn in fns.items():
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    finally:
        if gc_on:
            gc.enable()
    return {name: (min(t), statistics.median(t)) for name, t in times.items()}


# -------------------------------------------------------------------- output
def fmt(v: float | None, spec: str = ".2f") -> str:
    """``format(v, spec)``, or ``-`` for None and non-finite values.

    >>> fmt(1.234), fmt(None), fmt(float("nan"), ".0f")
    ('1.23', '-', '-')
    """
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return format(v, spec)


def fmt_us(v: float | None) -> str:
    """Microseconds for a table: no decimals from 100 up, one below.

    >>> fmt_us(1234.5), fmt_us(12.34), fmt_us(None)
    ('1,234', '12.3', '-')
    """
    if v is None:
        return "-"
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def fmt_ratio(v: float | None) -> str:
    """``2.50x``, or ``-``."""
    return "-" if v is None else f"{v:.2f}x"


def write_json(path: Path, payload: Any, console: Any,
               default: Callable[[Any], Any] | None = None) -> None:
    """Write a benchmark's figures to ``path`` (folders made, UTF-8, indented, camelCase
    keys: :func:`navkit.bench.options.dumps`) and say so."""
    from .options import dumps

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(payload, indent=2, default=default) + "\n", encoding="utf-8")
    console.print(f"wrote {path}")


def make_console(width: int) -> Any:
    """A rich console; ``width`` columns when not on a terminal (piped or captured)."""
    from rich.console import Console

    con = Console()
    if not con.is_terminal:
        con = Console(width=width)
    return con

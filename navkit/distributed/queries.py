"""Batch path queries over many maps (Moving AI scenario files) on a runner.

>>> import numpy as np
>>> from navkit.grid import NavGrid
>>> job = MapQueries.from_grid(NavGrid(np.ones((4, 4), bool), name="open"),
...                            starts=[[0, 0], [3, 0]], goals=[[3, 3], [0, 3]])
>>> run = run_queries([job], progress=False, batch_items=1)
>>> [round(c, 6) for c in run.answers[0].cost.tolist()]
[4.242642, 4.242642]

Every query runs with exact costs (docs/rules.md §3: 1_000_000 / 1_414_214),
as ``navkit scen`` does. The items of all maps are shuffled with a fixed
seed, cut into batches of >= ``min_batch_s`` of estimated work
(:mod:`~navkit.distributed.batches`), run through ``runner.map_batches``
(:mod:`~navkit.distributed.runner`) and put back in input order, so the
answers do not depend on the runner, the seed or the batch size.

Maps reach the workers once per run, inside the ``spec``: ``publish="scatter"``
sends the grids themselves (broadcast to every worker); ``publish="path"``
sends only the file path and a fingerprint, and each worker reads the file
itself (a shared file system is needed) and checks the fingerprint. Either
way a worker builds one :class:`~navkit.query.pathfinder.Pathfinder` per map
and thread and keeps it (:func:`cached_pathfinder`).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..costs import cost_model
from ..errors import ConfigError, FormatError, QueryError
from ..formats import check_scenarios_fit, find_map_for, load_grid, read_scenarios
from ..grid import NavGrid
from ..query.pathfinder import Pathfinder
from .batches import MIN_BATCH_S, SEED, calibrate, plan_batches, shuffle_order, split
from .runner import as_runner

__all__ = ["MapQueries", "MapAnswers", "QueryRun", "QuerySpec", "MapRef", "fingerprint",
           "scenario_jobs", "run_queries", "query_batch", "cached_pathfinder", "clear_cache",
           "warm_up", "warm_workers", "ALGORITHMS", "Publish"]

#: ``algorithm=`` choices (those with a batch mode).
ALGORITHMS = ("astar", "jps", "dijkstra")
Publish = Literal["scatter", "path"]
#: Pathfinders a worker thread keeps (least recently used dropped first).
CACHE_MAPS = 8
#: Columns of a batch row: map index, start x, start z, goal x, goal z.
ROW = 5


def fingerprint(grid: NavGrid) -> str:
    """SHA-256 (hex) of a grid's shape, walkable cells and weights: equal grids, equal prints.

    >>> fingerprint(NavGrid(np.ones((2, 3), bool)))[:12]
    '882866116bb8'
    """
    h = hashlib.sha256()
    h.update(np.asarray(grid.walkable.shape, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(grid.walkable, dtype=np.bool_).tobytes())
    if grid.weights is not None:
        h.update(np.ascontiguousarray(grid.weights, dtype=np.int32).tobytes())
    return h.hexdigest()


def _cells(value: ArrayLike, name: str) -> NDArray[np.int64]:
    arr = np.asarray(value)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise QueryError(f"{name}: expected integer cells of shape (n, 2), got "
                         f"{arr.dtype} {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class MapQueries:
    """The queries of one map: ``starts[i] -> goals[i]``, cells ``(x, z)``, shape (n, 2).

    ``optimal`` (float64, (n,)) and ``tolerance`` are the expected lengths in
    cells (scenario files), ``lines`` their 1-based line numbers; ``path`` is
    the map file when there is one (needed for ``publish="path"``).
    """

    name: str
    grid: NavGrid
    starts: NDArray[np.int64]
    goals: NDArray[np.int64]
    optimal: NDArray[np.float64] | None = None
    tolerance: NDArray[np.float64] | None = None
    lines: NDArray[np.int64] | None = None
    path: str | None = None
    scen: str | None = None
    print_: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.grid, NavGrid):
            raise QueryError(f"expected a NavGrid, got {type(self.grid).__name__}")
        s, g = _cells(self.starts, "starts"), _cells(self.goals, "goals")
        if len(s) != len(g):
            raise QueryError(f"starts and goals must have the same length, got {len(s)} "
                             f"and {len(g)}")
        for name, c in (("starts", s), ("goals", g)):
            if len(c) and (c.min() < 0 or c[:, 0].max() >= self.grid.width
                           or c[:, 1].max() >= self.grid.depth):
                raise QueryError(f"{name}: a cell lies outside {self.name} "
                                 f"({self.grid.width}x{self.grid.depth})")
        object.__setattr__(self, "starts", s)
        object.__setattr__(self, "goals", g)
        object.__setattr__(self, "print_", fingerprint(self.grid))

    def __len__(self) -> int:
        return len(self.starts)

    @classmethod
    def from_grid(cls, grid: NavGrid, starts: ArrayLike, goals: ArrayLike, *,
                  name: str | None = None, path: str | None = None) -> MapQueries:
        """Queries on an in-memory grid."""
        return cls(name=name or grid.name or "grid", grid=grid, starts=np.asarray(starts),
                   goals=np.asarray(goals), path=path)

    @classmethod
    def from_scenario(cls, target: str | Path, *, map_dir: str | Path | None = None,
                      every: int = 1, limit: int | None = None) -> MapQueries:
        """Every ``every``-th line (at most ``limit``) of a ``.scen`` file, or of the
        ``MAP.map.scen`` beside a ``.map`` file, with its optimal lengths."""
        p = Path(target)
        if p.suffix == ".map":
            scen_path = p.with_name(p.name + ".scen")
            if not scen_path.is_file():
                raise FormatError(f"no scenario file {scen_path.name} beside the map", path=p)
            map_path: Path | None = p
        else:
            scen_path, map_path = p, None
        scen = read_scenarios(scen_path)
        if len(scen) == 0:
            raise FormatError("no scenario lines to run", path=scen_path)
        if map_path is None:
            map_path = find_map_for(scen, map_dir)
        grid = load_grid(map_path)
        check_scenarios_fit(scen, grid)
        idx = np.arange(0, len(scen), max(1, int(every)), dtype=np.int64)
        if limit is not None:
            idx = idx[:limit]
        run = scen.subset(idx)
        return cls(name=map_path.name, grid=grid, starts=run.start, goals=run.goal,
                   optimal=run.optimal, tolerance=run.tolerance(), lines=run.lines,
                   path=str(map_path.resolve()), scen=str(scen_path))


def scenario_jobs(targets: Sequence[str | Path], *, every: int = 1,
                  limit: int | None = None) -> list[MapQueries]:
    """:meth:`MapQueries.from_scenario` for each ``.scen`` or ``.map`` file."""
    return [MapQueries.from_scenario(t, every=every, limit=limit) for t in targets]


@dataclass(frozen=True)
class MapRef:
    """One map as the workers get it: the grid itself, or a path to read plus its print."""

    print_: str
    grid: NavGrid | None
    path: str | None


@dataclass(frozen=True)
class QuerySpec:
    """What every worker receives once per run: the maps and the algorithm."""

    maps: tuple[MapRef, ...]
    algorithm: str = "astar"


_LOCAL = threading.local()
_GENERATION = [0]


def clear_cache() -> None:
    """Drop every thread's cached Pathfinders in this process (for ``client.run``
    before a measurement: the next batch then reads or receives its map anew)."""
    _GENERATION[0] += 1


def cached_pathfinder(ref: MapRef) -> Pathfinder:
    """The calling thread's exact-cost Pathfinder for ``ref`` (built on first use, kept
    for the :data:`CACHE_MAPS` most recent maps). One per thread: a Pathfinder serializes
    its queries, so threads sharing one would take turns."""
    cache: OrderedDict[str, Pathfinder] | None = getattr(_LOCAL, "cache", None)
    if cache is None or getattr(_LOCAL, "generation", -1) != _GENERATION[0]:
        cache = _LOCAL.cache = OrderedDict()
        _LOCAL.generation = _GENERATION[0]
    pf = cache.get(ref.print_)
    if pf is not None:
        cache.move_to_end(ref.print_)
        return pf
    grid = ref.grid
    if grid is None:
        if ref.path is None:
            raise ConfigError("a map reference needs a grid or a path", field="maps")
        grid = load_grid(ref.path)
        if fingerprint(grid) != ref.print_:
            raise FormatError("this worker reads a different map than the client did "
                              "(fingerprints differ)", path=ref.path)
    pf = cache[ref.print_] = Pathfinder(grid, costs="exact")
    while len(cache) > CACHE_MAPS:
        cache.popitem(last=False)
    return pf


def query_batch(spec: QuerySpec, rows: NDArray[np.int64]) -> list[tuple[int, int, int]]:
    """Answer a batch: ``rows`` (int64, (k, 5)) = map index, start x, z, goal x, z.

    Returns one ``(cost_int, status, expanded)`` per row, in row order
    (``cost_int`` in exact units, -1 without a path). Top-level so Dask can
    pickle it.
    """
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, ROW)
    cost = np.empty(len(rows), dtype=np.int64)
    status = np.empty(len(rows), dtype=np.int64)
    expanded = np.empty(len(rows), dtype=np.int64)
    for m in np.unique(rows[:, 0]).tolist():
        sel = np.flatnonzero(rows[:, 0] == m)
        pf = cached_pathfinder(spec.maps[m])
        res = pf.find_paths_cells(rows[sel, 1:3], rows[sel, 3:5],
                                  algorithm=spec.algorithm,  # type: ignore[arg-type]
                                  threads=1)
        cost[sel] = res.cost_int
        status[sel] = res.status
        expanded[sel] = res.expanded
    return list(zip(cost.tolist(), status.tolist(), expanded.tolist(), strict=True))


def warm_up(algorithm: str = "astar") -> float:
    """Load (or compile) the kernels a batch query needs, in this process; seconds taken.

    Run it on every worker with ``client.run(warm_up)`` so the first real
    batch does not pay for it (docs/distributed.md gives cold and warm costs).
    """
    t0 = time.perf_counter()
    walk = np.ones((8, 8), dtype=bool)
    walk[2:6, 4] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    pf.find_paths_cells(np.array([[0, 0], [1, 1]]), np.array([[7, 7], [7, 0]]),
                        algorithm=algorithm, threads=1)  # type: ignore[arg-type]
    return time.perf_counter() - t0


def warm_workers(runner: Any, algorithm: str = "astar") -> dict[str, float]:
    """:func:`warm_up` on every worker of ``runner`` (a DaskRunner, or here for a local
    one): ``{worker address: seconds}``."""
    client = getattr(runner, "client", None)
    if client is None:
        return {"local": warm_up(algorithm)}
    return dict(client.run(warm_up, algorithm))


@dataclass(frozen=True, eq=False)
class MapAnswers:
    """The answers for one map, in input order: ``cost`` (float64, cells, inf without
    a path), ``cost_int`` (int64, exact units), ``status`` (uint8), ``expanded`` (int64);
    ``mismatched``: positions whose cost misses the scenario's optimal length."""

    name: str
    cost: NDArray[np.float64]
    cost_int: NDArray[np.int64]
    status: NDArray[np.uint8]
    expanded: NDArray[np.int64]
    mismatched: NDArray[np.int64]
    job: MapQueries = field(repr=False)

    def same_as(self, other: MapAnswers) -> bool:
        """True when every answer equals ``other``'s, bit for bit."""
        return (np.array_equal(self.cost_int, other.cost_int)
                and np.array_equal(self.status, other.status)
                and np.array_equal(self.expanded, other.expanded))


@dataclass(frozen=True, eq=False)
class QueryRun:
    """A :func:`run_queries` result: per-map answers and the run's figures
    (``stats``: items, batch size, batches, estimated seconds per item,
    calibration and wall seconds; from the runner, the summed thread CPU and
    wall seconds inside the tasks)."""

    answers: list[MapAnswers]
    stats: dict[str, float]

    def same_as(self, other: QueryRun) -> bool:
        """True when every map's answers equal ``other``'s."""
        return len(self.answers) == len(other.answers) and all(
            a.same_as(b) for a, b in zip(self.answers, other.answers, strict=True))


def run_queries(
    jobs: Sequence[MapQueries],
    *,
    runner: Any = None,
    algorithm: str = "astar",
    seed: int = SEED,
    min_batch_s: float = MIN_BATCH_S,
    batch_items: int | None = None,
    publish: Publish = "scatter",
    progress: bool = True,
) -> QueryRun:
    """Answer every query of ``jobs`` through ``runner`` (a :class:`DaskRunner`, a
    ``distributed.Client``, or None: :class:`LocalRunner`).

    ``batch_items`` fixes the batch size; otherwise a calibration here (about
    50 ms on the shuffled items, results discarded) estimates the seconds per
    item and batches get >= ``min_batch_s`` of work
    (:func:`~navkit.distributed.batches.plan_batches`).
    """
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"expected one of {', '.join(ALGORITHMS)}, got {algorithm!r}",
                          field="algorithm")
    if publish not in ("scatter", "path"):
        raise ConfigError(f"expected 'scatter' or 'path', got {publish!r}", field="publish")
    if batch_items is not None and (isinstance(batch_items, bool) or batch_items < 1):
        raise ConfigError(f"expected an int >= 1, got {batch_items!r}", field="batch_items")
    jobs = list(jobs)
    for j in jobs:
        if not isinstance(j, MapQueries):
            raise ConfigError(f"expected MapQueries, got {type(j).__name__}", field="jobs")
        if publish == "path" and j.path is None:
            raise ConfigError(f"publish='path' needs a map file, {j.name} has none",
                              field="publish")
    refs = tuple(MapRef(j.print_, None if publish == "path" else j.grid,
                        j.path) for j in jobs)
    spec = QuerySpec(refs, algorithm)
    rows = np.concatenate(
        [np.column_stack([np.full(len(j), m, dtype=np.int64), j.starts, j.goals])
         for m, j in enumerate(jobs)] or [np.zeros((0, ROW), dtype=np.int64)]
    ).astype(np.int64)
    n = len(rows)
    order = shuffle_order(n, seed)
    shuffled = np.ascontiguousarray(rows[order])
    run, owned = as_runner(runner, progress=progress)
    try:
        t0 = time.perf_counter()
        per_item = 0.0
        if batch_items is None:
            local_spec = QuerySpec(tuple(MapRef(j.print_, j.grid, j.path) for j in jobs),
                                   algorithm)
            for m in range(len(jobs)):  # build the Pathfinders and their batch
                first = np.flatnonzero(shuffled[:, 0] == m)[:1]  # buffers: not per-query work
                query_batch(local_spec, shuffled[first])
            per_item, _k, _ = calibrate(query_batch, local_spec, shuffled)
            size = plan_batches(n, per_item, min_batch_s=min_batch_s, n_workers=run.n_workers)
        else:
            size = int(batch_items)
        t1 = time.perf_counter()
        batches = split(shuffled, size)
        flat: list[tuple[int, int, int]] = []
        for part in run.map_batches(query_batch, spec, batches):
            flat.extend(part)
        wall = time.perf_counter() - t1
    finally:
        if owned:
            run.close()
    got = np.array(flat, dtype=np.int64).reshape(-1, 3)
    if len(got) != n:
        raise ConfigError(f"the runner returned {len(got)} answers for {n} queries",
                          field="runner")
    back = np.empty_like(got)
    back[order] = got
    answers: list[MapAnswers] = []
    lo = 0
    for j in jobs:
        part = back[lo:lo + len(j)]
        lo += len(j)
        card = cost_model("exact").card
        cost = np.where(part[:, 0] >= 0, part[:, 0] / card, np.inf)
        if j.optimal is not None and j.tolerance is not None:
            mism = np.flatnonzero(~(np.abs(cost - j.optimal) <= j.tolerance))
        else:
            mism = np.zeros(0, dtype=np.int64)
        answers.append(MapAnswers(j.name, cost, part[:, 0].copy(), part[:, 1].astype(np.uint8),
                                  part[:, 2].copy(), mism.astype(np.int64), j))
    stats = {"items": float(n), "batch_items": float(size),
             "batches": float(len(batches)), "per_item_s": per_item,
             "calibrate_s": t1 - t0, "wall_s": wall,
             "queries_per_s": n / wall if wall > 0 else 0.0}
    rstats = getattr(run, "stats", None)
    if isinstance(rstats, dict):
        stats.update({k: float(v) for k, v in rstats.items()
                      if k in ("task_cpu_s", "task_wall_s", "scatter_s")})
    return QueryRun(answers, stats)




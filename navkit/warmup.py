"""Compile navkit's kernels ahead of time: ``navkit warmup [GROUP ...]``.

numba compiles a kernel the first time it runs with a given argument layout
and keeps the result in its disk cache (see :mod:`navkit._numba_config` for
where). A server in a container or a CI runner starts with an empty cache,
so its first path query would compile; running :func:`warm_up` once (in the
image build, say) moves that time out of the first request.

A program can also warm up while it loads: ``warm_up(groups,
background=True)`` returns a :class:`Warmup` handle at once (``progress``,
``done()``, ``wait(timeout)``) and compiles on a daemon thread.

Each group runs the public API on tiny inputs, so exactly the kernel
variants real queries use get compiled (or loaded from the cache):

========  =====================================================================
group     what it compiles
========  =====================================================================
grid      A* and Dijkstra (uniform and weighted, with obstacles and windows),
          batches, distance fields, smoothing, snapping, polygon levels, cell
          edits and ``ignore=`` snapshots
jps       Jump Point Search and the one-call world query (plain, with
          obstacles, find-path-to-nearest), JPS batches
hpa       HPA*: building clusters, queries, updates
flow      flow fields: builds (buckets and heap) and updates
mesh      navigation meshes: exact (Polyanya) and funnel paths, point location,
          raycasts, batches
crowd     the spatial hash and the steering / flocking crowd tick
sim       the character simulation's tick
floors    buildings: searches and fields across floors and links
world     worlds: the procedural generator and the world queries' kernels
viewer    the searches the browser viewer runs (every algorithm)
========  =====================================================================

>>> sorted(GROUPS)
['crowd', 'floors', 'flow', 'grid', 'hpa', 'jps', 'mesh', 'sim', 'viewer', 'world']
"""

from __future__ import annotations

import os
import resource
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np

from .errors import NavkitError

__all__ = ["AFTER", "GROUPS", "GroupResult", "RECYCLE_MB", "Warmup", "WarmupError",
           "check_groups", "default_jobs", "ready_groups", "warm_up"]


def _walk() -> np.ndarray:
    walk = np.ones((24, 24), dtype=bool)
    walk[4:20, 12] = False
    walk[12, 2:10] = False
    return walk


def _grid() -> None:
    from .grid import NavGrid
    from .level import parse_level
    from .level.raster import rasterize
    from .query.navmap import NavMap
    from .query.pathfinder import Pathfinder
    from .results import PathBuffer

    walk = _walk()
    weights = np.ones(walk.shape, dtype=np.int32)
    weights[:, 16:] = 3
    obstacles = np.array([[6.5, 6.5, 1.0]])
    for grid in (NavGrid(walk), NavGrid(walk, weights=weights)):
        for conn in (8, 4):
            pf = Pathfinder(grid, costs="exact", connectivity=conn)
            for algorithm in ("astar", "dijkstra"):
                pf.find_path_cells((1, 1), (22, 22), algorithm=algorithm, smooth=True)
                pf.find_path_cells((1, 1), (22, 22), algorithm=algorithm, obstacles=obstacles)
                pf.find_path_cells((1, 1), (22, 22), algorithm=algorithm, window=(0, 0, 23, 23))
            pf.find_path((1.5, 1.5), (22.5, 22.5), algorithm="astar")
            pf.find_path_into((1, 1), (22, 22), PathBuffer(), algorithm="astar")
            pf.find_path_to_nearest((1.5, 1.5), (40.0, 40.0), algorithm="astar")
            starts = np.array([[1, 1], [2, 2]])
            goals = np.array([[22, 22], [20, 3]])
            pf.find_paths_cells(starts, goals, return_paths=True, algorithm="astar")
            pf.find_paths_cells(starts, goals, obstacles=obstacles, algorithm="astar")
            pf.find_paths_cells(starts, goals)
            pf.distance_field([(1, 1)])
            pf.line_of_sight((1, 1), (5, 5))
            handle = pf.add_occupant(10.0, 10.0, 1.0)
            pf.remove_occupant(handle)
    level = parse_level({
        "cellSize": 0.5,
        "areas": [{"name": "a", "polygon": [[0, 0], [8, 0], [8, 8], [0, 8]]}],
        "obstacles": [{"name": "o", "polygon": [[3, 3], [4, 3], [4, 4]]}],
    })
    rasterize(level)
    NavMap(level).find_path((1.0, 1.0), (7.0, 7.0))
    _edits()
    _options()


def _edits() -> None:
    """Compile the kernels cell edits and ``ignore=`` use (for ``navkit warmup``)."""
    from .grid import NavGrid
    from .query.pathfinder import Pathfinder

    walk = np.ones((12, 12), dtype=bool)
    walk[3:9, 6] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    pf.find_path((0.5, 0.5), (11.5, 11.5))
    pf.set_walkable([[6, 4]], True)
    pf.set_walkable(walk, True)
    snap = pf.snapshot([[3.5, 3.5, 0.5], [8.5, 8.5, 0.5]])
    pf.find_path_to_nearest((3.5, 3.5), (11.5, 11.5), obstacles=snap, ignore=0)
    pf.find_path_cells((0, 0), (11, 11), blocked_cells=[[5, 5]])
    pf.set_weights((0, 0, 2, 2), 3)


def _options() -> None:
    """The heap variants the search options run on (heuristics, greedy weights, both
    connectivities), single and batch."""
    from .query.pathfinder import Pathfinder

    walk = np.ones((8, 8), dtype=bool)
    for conn in (8, 4):
        pf = Pathfinder(walk, connectivity=conn, heuristic="euclidean", weight=1.5)
        pf.find_path_cells((0, 0), (7, 7), algorithm="astar")
        pf.find_paths_cells([(0, 0)], [(7, 7)], threads=1)


def _jps_plus() -> None:
    """Compile (or load) the JPS+ kernels on a tiny grid: table build, query,
    goal-bounds build and a goal-bounded query (for ``navkit warmup jps``)."""
    from .grid import NavGrid
    from .query.goal_bounds import GoalBounds
    from .query.jps_plus import JPSPlus, JumpTables
    from .query.pathfinder import Pathfinder
    from .results import PathBuffer

    walk = np.ones((24, 24), dtype=bool)
    walk[4:20, 12] = False
    walk[12, 2:10] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    tables = JumpTables.build(pf)
    JPSPlus(pf, tables).cell_query((1, 1), (22, 22), smooth=True, nearest=True, budget=1 << 40)
    gb = GoalBounds.build(pf, tables)
    JPSPlus(pf, tables, gb).cell_query((1, 1), (22, 22), smooth=False, nearest=False,
                                       budget=1 << 40)
    pf.precompute()
    pf.set_walkable([[5, 5]], False)  # the tables' update (on the read-only static cells)
    pf.find_path_into((1, 1), (22, 22), PathBuffer(), algorithm="jps+")
    pf.find_cost((1, 1), (22, 22), algorithm="jps+")  # the search alone
    pf.find_path((1.5, 1.5), (22.5, 22.5), algorithm="jps+")  # the one-call world query
    pf.find_paths_cells([(1, 1)], [(22, 22)], algorithm="jps+", threads=1)


def _jps() -> None:
    from .grid import NavGrid
    from .query.pathfinder import Pathfinder

    pf = Pathfinder(NavGrid(_walk()), costs="exact")
    obstacles = np.array([[6.5, 6.5, 1.0], [18.0, 4.0, 1.5]])
    pf.find_path_cells((1, 1), (22, 22), algorithm="jps")
    pf.find_cost((1, 1), (22, 22), algorithm="jps")  # the search alone
    pf.find_path_cells((1, 1), (22, 22), algorithm="jps", obstacles=obstacles, smooth=True)
    pf.find_path((1.5, 1.5), (22.5, 22.5))
    pf.find_path((1.5, 1.5), (22.5, 22.5), obstacles=obstacles)
    pf.find_path_to_nearest((1.5, 1.5), (13.5, 5.5), obstacles=obstacles)
    pf.find_path_to_nearest((1.5, 1.5), (13.5, 5.5), budget=5)
    starts = np.array([[1, 1], [2, 2]])
    goals = np.array([[22, 22], [20, 3]])
    pf.find_paths_cells(starts, goals, algorithm="jps", return_paths=True)
    pf.find_paths_cells(starts, goals, algorithm="jps")
    _jps_plus()


def _hpa() -> None:
    from .grid import NavGrid
    from .query.hpa import HPAStar

    walk = _walk()
    for weights in (None, np.where(walk, 2, 1).astype(np.int32)):
        hpa = HPAStar(NavGrid(walk, weights=weights), cluster_size=8)
        hpa.find_path_cells((1, 1), (22, 22), smooth=True)
        changed = walk.copy()
        changed[2, 2] = False
        hpa.update(NavGrid(changed, weights=weights))


def _flow() -> None:
    from .grid import NavGrid
    from .query.flow import FlowField

    walk = _walk()
    for grid in (NavGrid(walk), NavGrid(walk, weights=np.where(walk, 3, 1).astype(np.int32))):
        for queue in ("buckets", "heap"):
            ff = FlowField(grid, queue=queue).build([(22, 22)])
            ff.update((0, 0, 10, 10), obstacles=[(5.0, 5.0, 1.5)])
            ff.update((0, 0, 10, 10), obstacles=None)
            ff.follow((1, 1))
            _ = ff.direction


def _mesh() -> None:
    from .level import parse_level
    from .mesh.navmesh import NavMesh

    mesh = NavMesh.from_level(parse_level({
        "agentRadius": 0.2, "objectPadding": 0.0,
        "areas": [{"name": "a", "polygon": [[0, 0], [12, 0], [12, 8], [0, 8]]},
                  {"name": "b", "polygon": [[20, 0], [24, 0], [24, 4], [20, 4]]}],
        "obstacles": [{"name": "o", "polygon": [[5, 0], [7, 0], [7, 6], [5, 6]]}]}))
    for method in ("exact", "funnel"):
        mesh.find_path((1.0, 1.0), (11.0, 1.0), algorithm=method)
        mesh.find_path_to_nearest((1.0, 1.0), (22.0, 2.0), algorithm=method)
        mesh.find_paths(np.array([[1.0, 1.0], [2.0, 7.0]]), np.array([[11.0, 7.0], [10.0, 1.0]]),
                        algorithm=method)
    mesh.find_path((1.0, 1.0), (11.0, 1.0), obstacles=np.array([[9.0, 3.0, 0.5]]))
    mesh.raycast((1.0, 1.0), (11.0, 1.0))
    mesh.nearest_point((6.0, 3.0))


def _crowd() -> None:
    from .crowd.crowd import Crowd
    from .crowd.spatial_hash import SpatialHash
    from .grid import NavGrid
    from .query.flow import FlowField

    pts = np.array([[1.0, 1.0], [1.5, 1.2], [3.0, 2.0], [2.2, 2.8]])
    sh = SpatialHash(pts, 1.0)
    sh.query_radius_all(1.0)
    sh.query_radius((1.0, 1.0), 1.0)
    sh.knn_all(2)
    sh.knn((1.0, 1.0), 2)
    sh.update(np.array([0]), np.array([[1.1, 1.1]]))
    grid = NavGrid(_walk())
    crowd = Crowd(np.array([[2.5, 2.5], [3.5, 2.5], [2.5, 3.5]]), grid=grid)
    crowd.set_targets(np.array([[20.5, 20.5]] * 3))
    crowd.step(0.05)
    crowd.set_path(0, np.array([[2.5, 2.5], [10.5, 2.5]]))
    crowd.follow_flow(crowd.add_flow_field(FlowField(grid).build([(20, 20)])), [1, 2])
    crowd.step(0.05)
    crowd.run(2, 0.05)


def _sim() -> None:
    from .sim import warm_up as sim_warm_up

    sim_warm_up()


def _floors() -> None:
    from .floors import warm_up as floors_warm_up

    floors_warm_up()


def _world() -> None:
    from .world.procedural import warm_up as world_warm_up
    from .world.world import warm_up_world

    world_warm_up()
    warm_up_world()


def _viewer() -> None:
    from .grid import NavGrid
    from .query.pathfinder import Pathfinder
    from .viewer.search import Searcher

    pf = Pathfinder(NavGrid(_walk()), costs="exact")
    searcher = Searcher()
    for algorithm in searcher.names(pf):
        searcher.run(pf, (1, 1), (22, 22), algorithm)


#: Group name -> what it runs.
GROUPS: dict[str, Callable[[], None]] = {
    "grid": _grid,
    "jps": _jps,
    "hpa": _hpa,
    "flow": _flow,
    "mesh": _mesh,
    "crowd": _crowd,
    "sim": _sim,
    "floors": _floors,
    "world": _world,
    "viewer": _viewer,
}


#: Group -> the groups whose kernels it also runs (a shared search, snapping,
#: string pulling, flow builds): with several groups at once it starts after
#: them, so it loads their kernels from the cache instead of compiling them a
#: second time beside them.
AFTER: dict[str, tuple[str, ...]] = {
    "jps": ("grid",),
    "hpa": ("grid",),
    "crowd": ("flow",),
    "sim": ("jps",),
    "floors": ("grid",),
    "world": ("grid",),
    "viewer": ("grid", "jps", "hpa", "flow"),
}


@dataclass(frozen=True)
class GroupResult:
    """One group's warm-up: seconds of CPU and wall time, and the error if it failed."""

    group: str
    cpu_s: float
    wall_s: float
    error: str | None = None
    #: Peak memory in MB of the worker process that ran the group, up to its end
    #: (None when run in this process).
    peak_mb: float | None = None


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def check_groups(names: Iterable[str]) -> None:
    """Raise :class:`~navkit.errors.ConfigError` (field ``groups``) naming any of
    ``names`` that is not a group of :data:`GROUPS`.

    >>> check_groups(["grid", "jps"])
    """
    unknown = [g for g in names if g not in GROUPS]
    if unknown:
        from .errors import ConfigError

        raise ConfigError(f"unknown warm-up group(s) {', '.join(map(repr, unknown))}; "
                          f"expected some of {', '.join(GROUPS)}", field="groups")


def _in_process(name: str) -> GroupResult:
    """Run one group here; the notice that a first call compiles stays quiet (it asked)."""
    return _run_group(name, _cpu)[0]


def _run_group(name: str, clock: Callable[[], float]) -> tuple[GroupResult, Exception | None]:
    """Run group ``name`` in this process, its CPU seconds by ``clock``; the result and
    the exception it raised (None when it succeeded)."""
    quiet = os.environ.get("NAVKIT_QUIET_COMPILE")
    os.environ["NAVKIT_QUIET_COMPILE"] = "1"
    c0, t0 = clock(), time.perf_counter()
    error: Exception | None = None
    try:
        GROUPS[name]()
    except Exception as exc:  # noqa: BLE001 - reported per group, the exit status says it
        error = exc
    finally:
        if quiet is None:
            os.environ.pop("NAVKIT_QUIET_COMPILE", None)
        else:
            os.environ["NAVKIT_QUIET_COMPILE"] = quiet
    text = None if error is None else f"{type(error).__name__}: {error}"
    return GroupResult(name, clock() - c0, time.perf_counter() - t0, text), error


#: The line a worker process prints each result on (:func:`_worker`).
_MARK = "NAVKIT_WARMUP "
#: A worker process whose peak memory reached this many MB after a group is
#: closed and the next group gets a new process (:func:`warm_up`): the largest
#: group adds about 240 MB to a process, so no process passes about 800 MB.
RECYCLE_MB = 540.0


def _worker() -> None:
    """Entry point of a warm-up worker process: run each group named on a line of
    stdin, print its result as one JSON line, until stdin closes. A group's CPU
    is the process's since the previous group (the first one's includes the
    interpreter and the import); peak memory is the whole process's so far.
    When stdin closes the process ends at once, without the interpreter's
    teardown.
    Groups that follow in the same process find the kernels they share with
    earlier ones compiled already (neither compiled nor loaded again)."""
    import json
    import sys

    before = 0.0
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        error = _in_process(name).error  # an unknown name: its KeyError
        cpu = _cpu()
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(_MARK + json.dumps({"cpu_s": cpu - before, "error": error, "peak_mb": peak_mb}),
              flush=True)
        before = cpu
    # numba wrote every cache file as it compiled: skip the interpreter's teardown
    # of hundreds of MB of compiled code (about 0.4 s of CPU per worker)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


class _Process:
    """One worker process (:func:`_worker`) and the groups it has run."""

    def __init__(self) -> None:
        import subprocess
        import sys
        import tempfile

        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from navkit.warmup import _worker; _worker()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True,
            env={**os.environ, "NAVKIT_QUIET_COMPILE": "1"})
        self.peak_mb = 0.0

    def run(self, name: str) -> GroupResult:
        """Run group ``name`` in this process; a process that dies reports its last
        stderr line as the group's error (and is closed)."""
        import json

        t0 = time.perf_counter()
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(name + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                if line.startswith(_MARK):
                    got = json.loads(line[len(_MARK):])
                    self.peak_mb = float(got["peak_mb"])
                    return GroupResult(name, got["cpu_s"], time.perf_counter() - t0,
                                       got["error"], got["peak_mb"])
        except (OSError, ValueError):  # a broken pipe: the process is gone
            pass
        self._end()
        self.stderr.seek(0)
        tail = (self.stderr.read().strip().splitlines()
                or [f"exit status {proc.returncode}"])[-1]
        self.stderr.close()
        return GroupResult(name, 0.0, time.perf_counter() - t0,
                           f"the warm-up process failed: {tail}")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def _end(self) -> None:
        """Close the process's stdin (it ends) and stdout, and wait for it."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def close(self) -> None:
        """Let the process end and wait for it; drop its stderr."""
        self._end()
        self.stderr.close()


def default_jobs() -> int:
    """How many groups ``navkit warmup`` compiles at once: the cores, at most 2 (a
    third process mostly waits on the same cache and memory).

    >>> 1 <= default_jobs() <= 2
    True
    """
    return min(2, os.cpu_count() or 1)


class WarmupError(NavkitError, RuntimeError):
    """Raised by :meth:`Warmup.wait` when warm-up groups failed: ``results`` holds
    every group's :class:`GroupResult`; the first failure in this process is the
    ``__cause__``."""

    def __init__(self, results: list[GroupResult]) -> None:
        self.results = results
        bad = [r for r in results if r.error is not None]
        what = "; ".join(f"{r.group}: {r.error}" for r in bad)
        super().__init__(f"{len(bad)} of {len(results)} warm-up group(s) failed ({what})")


class Warmup:
    """A warm-up running on a daemon thread: ``warm_up(groups, background=True)``.

    The kernels compile (``jobs=0``: in this process, on the thread) or load
    while the program goes on; a kernel the program calls before the thread
    reached it compiles on its first call as usual (numba compiles one kernel
    at a time, so that call may wait for the kernel compiling now).

    numba's compiler is mostly Python and holds the GIL much of the time: with
    ``jobs=0`` other Python threads get about half of the GIL until the
    warm-up ends (measured in ``docs/startup.md``); compiled kernels release
    the GIL and run beside it at full speed. With ``jobs >= 1`` the groups
    compile in worker processes and this thread only waits, so this process
    keeps its speed; its kernels are then in the disk cache, and each loads
    on its first call here (milliseconds) instead of compiling.

    >>> w = warm_up(["flow"], background=True)
    >>> [r.error for r in w.wait(timeout=600)], w.done(), w.progress
    ([None], True, (1, 1))
    """

    def __init__(self, groups: Iterable[str], *, jobs: int = 0,
                 done: Callable[[GroupResult], None] | None = None) -> None:
        self.groups: tuple[str, ...] = tuple(groups)
        self.jobs = jobs
        self._callback = done
        self._results: list[GroupResult] = []
        self._errors: dict[str, Exception] = {}
        self._crash: BaseException | None = None
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._thread = threading.Thread(target=self._run, name="navkit-warmup", daemon=True)
        self._thread.start()

    def _record(self, r: GroupResult) -> None:
        with self._lock:
            self._results.append(r)
        if self._callback is not None:
            self._callback(r)

    def _failed(self, name: str, exc: Exception) -> None:
        with self._lock:
            self._errors.setdefault(name, exc)

    def _run(self) -> None:
        try:
            ordered = _warm_up(list(self.groups), self.jobs, self._record, self._failed,
                               time.thread_time)
            with self._lock:
                self._results = ordered
        except BaseException as exc:  # noqa: BLE001 - a failing callback: wait() raises it
            self._crash = exc
        finally:
            self._finished.set()

    @property
    def progress(self) -> tuple[int, int]:
        """(groups finished, groups in all)."""
        with self._lock:
            return len(self._results), len(self.groups)

    @property
    def results(self) -> list[GroupResult]:
        """The groups finished so far (in the order of ``groups`` once all are)."""
        with self._lock:
            return list(self._results)

    def done(self) -> bool:
        """True when every group has finished (or failed)."""
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> list[GroupResult]:
        """Block until the warm-up ends, at most ``timeout`` seconds (None: no
        limit); its results, in the order of ``groups``.

        Raises :class:`TimeoutError` when it is still running after ``timeout``
        and :class:`WarmupError` when a group failed (the others still ran)."""
        if not self._finished.wait(timeout):
            done, total = self.progress
            raise TimeoutError(f"the warm-up is still running after {timeout} s "
                               f"({done} of {total} groups finished)")
        if self._crash is not None:
            raise self._crash
        results = self.results
        if any(r.error is not None for r in results):
            cause = next((self._errors[r.group] for r in results if r.group in self._errors),
                         None)
            raise WarmupError(results) from cause
        return results

    def __repr__(self) -> str:
        done, total = self.progress
        state = "done" if self.done() else "running"
        return f"<navkit Warmup {state}: {done}/{total} groups ({', '.join(self.groups)})>"


@overload
def warm_up(groups: Iterable[str] | None = None, *, jobs: int = 0,
            done: Callable[[GroupResult], None] | None = None,
            background: Literal[False] = False) -> list[GroupResult]: ...


@overload
def warm_up(groups: Iterable[str] | None = None, *, jobs: int = 0,
            done: Callable[[GroupResult], None] | None = None,
            background: Literal[True]) -> Warmup: ...


def warm_up(groups: Iterable[str] | None = None, *, jobs: int = 0,
            done: Callable[[GroupResult], None] | None = None,
            background: bool = False) -> list[GroupResult] | Warmup:
    """Compile (or load) the kernels of ``groups`` (default: all, in the order of
    :data:`GROUPS`). A group that fails is reported with its error; the others
    still run.

    ``jobs=0`` (the default) runs the groups in this process, one after the
    other. ``jobs >= 1`` runs the groups in worker processes, ``jobs`` at a
    time (what ``navkit warmup`` does): two cores compile two groups at once,
    and a worker runs further groups until its peak memory reaches
    :data:`RECYCLE_MB`, then a new process takes over, so no process holds
    every group's compiled code (all of it in one process passes 800 MB)
    while groups that follow in a worker reuse what it compiled (no process
    start-up, no reload from the cache). The kernel cache is shared on disk:
    a group starts only after the groups of :data:`AFTER` it shares kernels
    with (when they are asked for too), so it loads those kernels instead of
    compiling them beside them. ``done`` is called with each result as it
    arrives. Results come back in the order of ``groups``.

    ``background=True`` returns at once with a :class:`Warmup` handle while a
    daemon thread does the same work (see :class:`Warmup` for what the
    calling thread can do meanwhile); its ``wait()`` returns the results or
    raises :class:`WarmupError` for a failed group.

    >>> [r.error for r in warm_up(["flow"])]
    [None]
    """
    names = list(GROUPS) if groups is None else list(groups)
    check_groups(names)
    if jobs < 0:
        from .errors import ConfigError

        raise ConfigError(f"jobs must be >= 0, got {jobs}", field="jobs")
    if background:
        return Warmup(names, jobs=jobs, done=done)
    return _warm_up(names, jobs, done)


def _warm_up(names: list[str], jobs: int, done: Callable[[GroupResult], None] | None,
             failed: Callable[[str, Exception], None] | None = None,
             clock: Callable[[], float] = _cpu) -> list[GroupResult]:
    """:func:`warm_up` on checked arguments; ``failed`` gets the exception of a group
    that failed in this process, ``clock`` times the groups run here."""
    results: dict[str, GroupResult] = {}

    def finish(r: GroupResult) -> None:
        results[r.group] = r
        if done is not None:
            done(r)

    if jobs == 0:
        for name in names:
            r, exc = _run_group(name, clock)
            if exc is not None and failed is not None:
                failed(name, exc)
            finish(r)
    else:
        from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

        waiting = list(names)
        running: dict[Future[GroupResult], tuple[str, _Process]] = {}
        idle: list[_Process] = []
        # threads only wait on the worker processes; each compiles on its own core
        try:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                while waiting or running:
                    busy = {n for n, _ in running.values()}
                    for name in ready_groups(waiting, busy, jobs - len(running)):
                        waiting.remove(name)
                        proc = idle.pop() if idle else _Process()
                        running[pool.submit(proc.run, name)] = (name, proc)
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        _, proc = running.pop(fut)
                        if proc.alive and proc.peak_mb < RECYCLE_MB:
                            idle.append(proc)
                        elif proc.alive:
                            proc.close()
                        finish(fut.result())
        finally:
            for proc in idle:
                proc.close()
    return [results[n] for n in names]


def ready_groups(waiting: list[str], running: set[str], free: int) -> list[str]:
    """Up to ``free`` groups of ``waiting`` (in its order) that may start now:
    none of their :data:`AFTER` groups is waiting or running.

    >>> ready_groups(["grid", "jps", "mesh", "sim"], set(), 2)
    ['grid', 'mesh']
    >>> ready_groups(["jps", "sim"], {"mesh"}, 1)
    ['jps']
    >>> ready_groups(["sim"], {"jps"}, 1)
    []
    """
    pending = set(waiting) | running
    out = [n for n in waiting if not pending.intersection(AFTER.get(n, ()))]
    if not out and not running and waiting:  # cannot happen with AFTER acyclic; never stall
        out = waiting[:1]
    return out[:max(free, 0)]

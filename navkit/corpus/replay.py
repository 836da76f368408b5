"""Replaying a query corpus, and budget sweeps over it (docs/corpora.md).

:func:`replay` reads a corpus (:mod:`navkit.corpus.record`), loads its map,
checks the map's fingerprint, replays every line with its recorded options
and compares the answers (status, ``cost_int``, number of cells, end cell)
and, separately, the search effort (``expanded``, ``generated``) with the
recorded ones. With ``budgets=`` every query also runs at each budget, and
the report gets a sweep table: success rate (FOUND), median and p99 time and
expansions per budget.

The work is cut into batches of at least ~20 ms (by the recorded times) and
handed to ``map_batches(fn, spec, batches)``: by default
:func:`serial_map_batches`, in this process; a distributed runner may run
``fn = replay_batch`` anywhere (``spec`` and the batches pickle), in any
order: answers are the same whoever computes them, and each query's time is
measured inside its batch.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..costs import CostModel
from ..errors import FormatError, NavkitError, shown
from ..grid import NavGrid
from ..recording.fingerprint import grid_fingerprint
from ..recording.recorder import CORPUS_VERSION, KINDS, SNAKE_CORPUS_VERSION
from ..results import PathResult, Status
from .casing import camel_keys, snake_notice, to_camel, to_snake

__all__ = ["replay", "replay_batch", "serial_map_batches", "read_corpus", "ReplayReport",
           "ReplaySpec", "CorpusQuery", "Task", "Outcome", "Mismatch", "SweepRow",
           "RECORDED", "UNLIMITED", "BATCH_SECONDS", "register_store", "world_fingerprint",
           "upgrade_corpus"]

#: ``Task.budget`` for "the recorded options"; :data:`UNLIMITED` for no budget.
RECORDED = -1
UNLIMITED = 0
#: Smallest batch, in recorded seconds of work (tasks x recorded time).
BATCH_SECONDS = 0.02
_BATCH_MAX = 4096
_STATUS = {s.name: s for s in Status}
_ALGORITHMS = ("astar", "dijkstra", "jps", "auto")
#: The keys of a query line, its ``options`` and its ``outcome`` (Python names).
_LINE_KEYS = frozenset(("kind", "fingerprint", "start", "goal", "options", "obstacles",
                        "outcome", "expanded", "generated", "time"))
_OPTION_KEYS = frozenset(("algorithm", "smooth", "nearest", "budget", "window", "costs",
                          "connectivity", "snap_radius", "occupants"))
_OUTCOME_KEYS = frozenset(("status", "cost_int", "cost", "cells", "end_cell"))
#: Multi-word keys, named in messages as the corpus spells them.
_NAMED = re.compile(r"\b(cost_int|end_cell|snap_radius|navkit_corpus|created_by)\b")


# ====================================================================== data
@dataclass(frozen=True)
class CorpusQuery:
    """One corpus line, validated (``line``: 1-based line number in the file)."""

    line: int
    kind: str
    fingerprint: str | None
    start: tuple[Any, Any]
    goal: tuple[Any, Any]
    algorithm: str
    smooth: bool
    nearest: bool
    budget: int | None
    window: tuple[int, int, int, int] | None
    costs: tuple[int, int]
    connectivity: int
    snap_radius: float
    occupants: tuple[tuple[float, float, float], ...]
    obstacles: tuple[tuple[float, float, float], ...] | None
    status: str
    cost_int: int
    cells: int
    end_cell: tuple[int, int] | None
    expanded: int
    generated: int
    time: float


@dataclass(frozen=True)
class Task:
    """One query run: ``budget`` is :data:`RECORDED`, :data:`UNLIMITED` or a budget."""

    query: CorpusQuery
    budget: int = RECORDED


@dataclass(frozen=True)
class Outcome:
    """What a replayed query answered (``seconds``: wall time of the call)."""

    line: int
    budget: int
    status: str
    cost_int: int
    cells: int
    end_cell: tuple[int, int] | None
    expanded: int
    generated: int
    seconds: float


@dataclass(frozen=True)
class ReplaySpec:
    """What a worker needs to rebuild the map: the grid's arrays and geometry, or a
    map file (``map_path``, read as ``map_kind`` "grid" or "level") whose
    fingerprint must be ``fingerprint``. ``corpus`` names the corpus in messages."""

    corpus: str
    fingerprint: str
    walkable: NDArray[np.bool_] | None = None
    weights: NDArray[np.int32] | None = None
    geometry: tuple[float, float, float, float, float] = (1.0, 0.0, 0.0, 0.0, 0.0)
    map_path: str | None = None
    map_kind: str = "grid"
    #: World corpora (``map_kind == "world"``): the baked ``.nkw`` file a worker
    #: opens itself, else the store's picklable source spec (a grid's cells, a
    #: generator); ``world_options``: the header's ``source.world`` settings;
    #: ``world_token``: a store registered in this process (:func:`register_store`).
    world_path: str | None = None
    world_source: Any = None
    world_options: tuple[tuple[str, int], ...] = ()
    world_token: int | None = None

    @classmethod
    def of_grid(cls, corpus: str, grid: NavGrid) -> ReplaySpec:
        """A spec carrying ``grid`` itself (arrays and geometry)."""
        return cls(corpus=corpus, fingerprint=grid_fingerprint(grid), walkable=grid.walkable,
                   weights=grid.weights,
                   geometry=(grid.cell_size, grid.min_x, grid.min_z, grid.floor_y,
                             grid.agent_radius))

    def grid(self) -> NavGrid:
        """The map (read from ``map_path`` when the spec carries no arrays)."""
        if self.walkable is not None:
            cs, mx, mz, fy, ar = self.geometry
            return NavGrid(self.walkable, weights=self.weights, cell_size=cs, min_x=mx,
                           min_z=mz, floor_y=fy, agent_radius=ar)
        if self.map_path is None:
            raise FormatError("the replay spec names no map", path=self.corpus)
        grid = _load_map(self.map_path, self.map_kind)
        if grid_fingerprint(grid) != self.fingerprint:
            raise FormatError(f"map {self.map_path} changed: its fingerprint is not "
                              f"{self.fingerprint[:12]}...", path=self.corpus)
        return grid


@dataclass(frozen=True)
class Mismatch:
    """A replayed line whose answer (or effort) differs: ``fields`` maps each
    differing field to ``(recorded, replayed)``."""

    line: int
    kind: str
    fields: dict[str, tuple[Any, Any]]

    def to_json_dict(self) -> dict[str, Any]:
        """snake_case JSON: line, kind, and per field ``{"recorded", "replayed"}``."""
        return {"line": self.line, "kind": self.kind,
                "fields": {k: {"recorded": _js(a), "replayed": _js(b)}
                           for k, (a, b) in self.fields.items()}}


@dataclass(frozen=True)
class SweepRow:
    """One budget of a sweep (``budget`` None: unlimited); times in microseconds."""

    budget: int | None
    queries: int
    found: int
    success_rate: float
    median_us: float
    p99_us: float
    median_expanded: float
    p99_expanded: float
    max_expanded: int

    def to_json_dict(self) -> dict[str, Any]:
        """The row as a snake_case dict."""
        return dict(self.__dict__)


@dataclass
class ReplayReport:
    """The result of :func:`replay`.

    ``lines``: query lines in the corpus; ``replayed``: those replayed (the
    rest, ``skipped``, were recorded on another map version, e.g. after a
    door opened); ``matches``: replayed lines whose answer matched;
    ``answer_mismatches`` / ``expansion_mismatches``: line by line;
    ``recorded_found`` / ``replayed_found``: FOUND answers; ``median_us`` /
    ``p99_us``: replay times at the recorded options; ``sweep``: one row per budget.
    """

    corpus: str
    source: dict[str, Any] | None
    map: str
    fingerprint: str
    lines: int = 0
    replayed: int = 0
    matches: int = 0
    answer_mismatches: list[Mismatch] = field(default_factory=list)
    expansion_mismatches: list[Mismatch] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    recorded_found: int = 0
    replayed_found: int = 0
    median_us: float = 0.0
    p99_us: float = 0.0
    recorded_median_us: float = 0.0
    seconds: float = 0.0
    sweep: list[SweepRow] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every replayed answer matched."""
        return not self.answer_mismatches

    def to_json_dict(self) -> dict[str, Any]:
        """The report as one snake_case JSON-ready dict."""
        return {
            "corpus": self.corpus, "source": self.source, "map": self.map,
            "fingerprint": self.fingerprint, "lines": self.lines, "replayed": self.replayed,
            "matches": self.matches, "ok": self.ok,
            "answer_mismatches": [m.to_json_dict() for m in self.answer_mismatches],
            "expansion_mismatches": [m.to_json_dict() for m in self.expansion_mismatches],
            "skipped": self.skipped, "recorded_found": self.recorded_found,
            "replayed_found": self.replayed_found, "median_us": self.median_us,
            "p99_us": self.p99_us, "recorded_median_us": self.recorded_median_us,
            "seconds": self.seconds, "sweep": [r.to_json_dict() for r in self.sweep],
        }


def _js(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


# =================================================================== parsing
class _Line:
    """Field checks for one line; every failure is a FormatError naming file and line
    (and its fields as the corpus spells them: camelCase unless ``snake``)."""

    def __init__(self, path: str, line: int, snake: bool = False):
        self.path, self.line, self.snake = path, line, snake

    def bad(self, msg: str) -> FormatError:
        if not self.snake:
            msg = _NAMED.sub(lambda m: to_camel(m.group(1)), msg)
        return FormatError(msg, path=self.path, line=self.line)

    def keys(self, obj: Any, where: str = "") -> Any:
        """``obj`` with its dict keys (nested dicts too) in the Python names, after
        checking they are in the corpus's casing: a key of the other casing is a
        FormatError (a mixed corpus)."""
        if not isinstance(obj, dict):
            return obj
        out = {}
        for k, v in obj.items():
            if isinstance(k, str):
                if self.snake and to_snake(k) != k:
                    raise FormatError(f"camelCase key {where + k!r} in a snake_case corpus "
                                      f"(navkit_corpus {SNAKE_CORPUS_VERSION}): expected "
                                      f"{to_snake(k)!r}", path=self.path, line=self.line)
                if not self.snake and "_" in k:
                    raise FormatError(f"snake_case key {where + k!r} in a camelCase corpus "
                                      f"(navkitCorpus {CORPUS_VERSION}): expected "
                                      f"{to_camel(k)!r}", path=self.path, line=self.line)
                out[to_snake(k)] = self.keys(v, f"{where}{k}.")
            else:
                out[k] = v
        return out

    def known(self, obj: dict[str, Any], keys: frozenset[str], where: str = "") -> None:
        for k in obj:
            if k not in keys:
                name = k if self.snake or not isinstance(k, str) else to_camel(k)
                raise FormatError(f"unknown field {where + str(name)!r}", path=self.path,
                                  line=self.line)

    def get(self, obj: dict[str, Any], key: str, where: str = "") -> Any:
        if key not in obj:
            raise self.bad(f"missing field {where + key!r}")
        return obj[key]

    def int_(self, v: Any, name: str, lo: int | None = None) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.bad(f"{name}: expected an integer, got {shown(v)}")
        if lo is not None and v < lo:
            raise self.bad(f"{name}: expected an integer >= {lo}, got {v}")
        return v

    def num(self, v: Any, name: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.bad(f"{name}: expected a finite number, got {shown(v)}")
        try:
            f = float(v)  # (an integer of hundreds of digits does not fit a float)
        except OverflowError:
            f = math.inf
        if not math.isfinite(f):
            raise self.bad(f"{name}: expected a finite number, got {shown(v)}")
        return f

    def bool_(self, v: Any, name: str) -> bool:
        if not isinstance(v, bool):
            raise self.bad(f"{name}: expected true or false, got {shown(v)}")
        return v

    def list_(self, v: Any, name: str, n: int | None = None) -> list[Any]:
        if not isinstance(v, list) or (n is not None and len(v) != n):
            want = "a list" if n is None else f"a list of {n}"
            raise self.bad(f"{name}: expected {want}, got {shown(v)}")
        return v

    def circles(self, v: Any, name: str) -> tuple[tuple[float, float, float], ...]:
        out = []
        for i, row in enumerate(self.list_(v, name)):
            x, z, r = (self.num(c, f"{name}[{i}]") for c in self.list_(row, f"{name}[{i}]", 3))
            out.append((x, z, r))
        return tuple(out)


def parse_query(obj: Any, path: str, line: int, *, snake: bool = False) -> CorpusQuery:
    """Validate one decoded corpus line (a FormatError names ``path`` and ``line``):
    camelCase keys, or snake_case ones with ``snake`` (a version-1 corpus). A key
    of the other casing, or one a line does not have, is a FormatError."""
    c = _Line(path, line, snake)
    if not isinstance(obj, dict):
        raise c.bad(f"expected a JSON object, got {shown(obj)}")
    try:
        obj = c.keys(obj)
    except RecursionError:
        raise c.bad("objects nested too deeply") from None
    c.known(obj, _LINE_KEYS)
    kind = c.get(obj, "kind")
    if kind not in KINDS:
        raise c.bad(f"unknown query kind {shown(kind)} (known: {', '.join(KINDS)})")
    fp = c.get(obj, "fingerprint")
    if fp is not None and not isinstance(fp, str):
        raise c.bad(f"fingerprint: expected a hex string or null, got {shown(fp)}")
    cells = kind == "find_path_cells"
    pts = []
    for name in ("start", "goal"):
        xs = c.list_(c.get(obj, name), name, 2)
        pts.append(tuple(c.int_(v, name) if cells else c.num(v, name) for v in xs))
    opts = c.get(obj, "options")
    if not isinstance(opts, dict):
        raise c.bad(f"options: expected an object, got {shown(opts)}")
    c.known(opts, _OPTION_KEYS, "options.")
    algorithm = c.get(opts, "algorithm", "options.")
    if algorithm not in _ALGORITHMS:
        raise c.bad(f"options.algorithm: expected one of {', '.join(_ALGORITHMS)}, "
                    f"got {shown(algorithm)}")
    budget = c.get(opts, "budget", "options.")
    if budget is not None:
        budget = c.int_(budget, "options.budget", 1)
    window = c.get(opts, "window", "options.")
    if window is not None:
        window = tuple(c.int_(v, "options.window") for v in c.list_(window, "options.window", 4))
    costs = tuple(c.int_(v, "options.costs", 1)
                  for v in c.list_(c.get(opts, "costs", "options."), "options.costs", 2))
    try:
        CostModel(costs[0], costs[1])
    except NavkitError as exc:
        raise c.bad(f"options.costs: {exc}") from None
    conn = c.int_(c.get(opts, "connectivity", "options."), "options.connectivity")
    if conn not in (4, 8):
        raise c.bad(f"options.connectivity: expected 4 or 8, got {conn}")
    snap = c.num(opts.get("snap_radius", 8.0), "options.snap_radius")
    if snap < 0:
        raise c.bad(f"options.snap_radius: expected a number >= 0, got {snap}")
    occupants = c.circles(opts.get("occupants", []), "options.occupants")
    obs_raw = c.get(obj, "obstacles")
    obstacles = None if obs_raw is None else c.circles(obs_raw, "obstacles")
    out = c.get(obj, "outcome")
    if not isinstance(out, dict):
        raise c.bad(f"outcome: expected an object, got {shown(out)}")
    c.known(out, _OUTCOME_KEYS, "outcome.")
    status = c.get(out, "status", "outcome.")
    if not isinstance(status, str) or status not in _STATUS:
        raise c.bad(f"outcome.status: unknown status {shown(status)}")
    end = c.get(out, "end_cell", "outcome.")
    if end is not None:
        end = tuple(c.int_(v, "outcome.end_cell") for v in c.list_(end, "outcome.end_cell", 2))
    return CorpusQuery(
        line=line, kind=kind, fingerprint=fp, start=(pts[0][0], pts[0][1]),
        goal=(pts[1][0], pts[1][1]), algorithm=algorithm,
        smooth=c.bool_(c.get(opts, "smooth", "options."), "options.smooth"),
        nearest=c.bool_(c.get(opts, "nearest", "options."), "options.nearest"),
        budget=budget, window=window,
        costs=(costs[0], costs[1]), connectivity=conn, snap_radius=snap, occupants=occupants,
        obstacles=obstacles, status=status,
        cost_int=c.int_(c.get(out, "cost_int", "outcome."), "outcome.cost_int", -1),
        cells=c.int_(c.get(out, "cells", "outcome."), "outcome.cells", 0),
        end_cell=end,
        expanded=c.int_(c.get(obj, "expanded"), "expanded", 0),
        generated=c.int_(c.get(obj, "generated"), "generated", 0),
        time=c.num(c.get(obj, "time"), "time"),
    )


def parse_header(obj: Any, path: str) -> dict[str, Any]:
    """Validate the header object (line 1): ``navkitCorpus`` 2 (camelCase keys) or
    the deprecated ``navkit_corpus`` 1 (snake_case). Returns it with the Python
    (snake_case) names, whichever the file's: ``navkit_corpus``, ``created_by``,
    ``source.world.small_world_cells``..."""
    c = _Line(path, 1)
    if not isinstance(obj, dict) or not ("navkitCorpus" in obj or "navkit_corpus" in obj):
        raise c.bad("not a navkit query corpus: line 1 must be a header object with "
                    "'navkitCorpus'")
    if "navkitCorpus" in obj and "navkit_corpus" in obj:
        raise c.bad("both 'navkitCorpus' and 'navkit_corpus' in the header")
    snake = "navkit_corpus" in obj
    version = obj["navkit_corpus" if snake else "navkitCorpus"]
    want = SNAKE_CORPUS_VERSION if snake else CORPUS_VERSION
    if type(version) is not int or version != want:
        reads = (f"navkitCorpus {CORPUS_VERSION} (camelCase keys) and, until navkit 0.2, "
                 f"navkit_corpus {SNAKE_CORPUS_VERSION} (snake_case)")
        raise FormatError(f"unsupported corpus version {shown(version)} "
                          f"(this navkit reads {reads})", path=path, line=1)
    c.snake = snake
    try:
        obj = c.keys(obj)
    except RecursionError:
        raise c.bad("objects nested too deeply") from None
    src = obj.get("source")
    if src is not None:
        if not isinstance(src, dict):
            raise c.bad(f"source: expected an object or null, got {shown(src)}")
        kind = c.get(src, "kind", "source.")
        if kind not in ("grid", "level", "world"):
            raise c.bad(f"source.kind: expected grid, level or world, got {shown(kind)}")
        if src.get("path") is not None and not isinstance(src["path"], str):
            raise c.bad(f"source.path: expected a string or null, got {shown(src['path'])}")
        if not isinstance(c.get(src, "fingerprint", "source."), str):
            raise c.bad(f"source.fingerprint: expected a hex string, "
                        f"got {shown(src['fingerprint'])}")
    return obj


def read_corpus(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[CorpusQuery]]:
    """The header and the validated lines of a corpus file (blank lines skipped)."""
    name = str(path)
    try:
        with open(path, encoding="utf-8") as fh:
            raw = fh.read()
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text ({exc.reason})", path=name) from None
    except OSError as exc:
        raise FormatError(f"cannot read the corpus: {exc.strerror or exc}", path=name) from None
    header: dict[str, Any] | None = None
    queries: list[CorpusQuery] = []
    snake = False
    for i, text in enumerate(raw.splitlines(), start=1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FormatError(f"malformed JSON: {exc.msg}", path=name, line=i) from None
        except RecursionError:
            raise FormatError("malformed JSON: nested too deeply", path=name, line=i) from None
        except ValueError as exc:  # an integer of more digits than Python converts
            raise FormatError(f"malformed JSON: {shown(str(exc))}", path=name,
                              line=i) from None
        if header is None:
            if i != 1:
                raise FormatError("the header must be line 1", path=name, line=i)
            header = parse_header(obj, name)
            snake = header["navkit_corpus"] == SNAKE_CORPUS_VERSION
            if snake:
                snake_notice(name)
        else:
            queries.append(parse_query(obj, name, i, snake=snake))
    if header is None:
        raise FormatError("empty corpus: no header line", path=name, line=1)
    return header, queries


def upgrade_corpus(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> int:
    """Write corpus ``src`` to ``dst`` in the current format (camelCase keys,
    ``navkitCorpus`` 2), every line validated first (a FormatError names ``src``
    and its line); a current corpus is copied as it is. Returns the query lines
    written. The lines keep their order, values and recorded times."""
    name = str(src)
    header, queries = read_corpus(src)  # validates (and notices a snake_case corpus)
    with open(src, encoding="utf-8") as fh:
        rows = [t for t in fh.read().splitlines() if t.strip()]
    out = []
    for i, text in enumerate(rows):
        obj = json.loads(text)
        obj = camel_keys(obj)
        if i == 0:
            obj["navkitCorpus"] = CORPUS_VERSION
        out.append(json.dumps(obj, allow_nan=False))
    if len(out) != len(queries) + 1:  # (read_corpus skipped no line but blank ones)
        raise FormatError("the corpus changed while it was read", path=name)
    with open(dst, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")
    return len(queries)


# ================================================================== the work
_PF_LOCK = threading.Lock()
_PF_CACHE: dict[tuple[Any, ...], Any] = {}
_GRIDS: dict[tuple[str, str], NavGrid] = {}


def _pathfinder(spec: ReplaySpec, q: CorpusQuery) -> tuple[Any, bool]:
    """The (process-wide, cached) Pathfinder for ``spec`` and ``q``'s options,
    and whether it is new."""
    from ..query.pathfinder import Pathfinder

    key = (spec.fingerprint, spec.map_path, q.costs, q.connectivity, q.snap_radius)
    with _PF_LOCK:
        pf = _PF_CACHE.get(key)
        new = pf is None
        if pf is None:
            gkey = (spec.fingerprint, str(spec.map_path))
            grid = _GRIDS.get(gkey)
            if grid is None:
                grid = spec.grid()
                if len(_GRIDS) >= 2:
                    _GRIDS.clear()
                _GRIDS[gkey] = grid
            pf = Pathfinder(grid, q.costs, connectivity=q.connectivity,
                            snap_radius=q.snap_radius)
            if len(_PF_CACHE) >= 4:
                _PF_CACHE.clear()
            _PF_CACHE[key] = pf
    return pf, new


_STORES: dict[int, Any] = {}
_WORLD_LOCAL = threading.local()


def register_store(store: Any) -> int:
    """Make ``store`` (a ``ChunkStore``, thread-safe) findable by replay workers of this
    process (threads of a local Dask cluster, the serial runner); returns its token."""
    with _PF_LOCK:
        token = id(store)
        _STORES.pop(token, None)
        while len(_STORES) >= 8:  # the oldest registration goes first
            _STORES.pop(next(iter(_STORES)))
        _STORES[token] = store
    return token


def world_fingerprint(store: Any) -> str:
    """A world's fingerprint as replay compares it: ``store.fingerprint``, with
    ``@vN`` appended once the store has been edited (``store.version`` N)."""
    v = int(getattr(store, "version", 0))
    return str(store.fingerprint) if not v else f"{store.fingerprint}@v{v}"


def _world_store(spec: ReplaySpec) -> Any:
    """The spec's chunk store in this process: the registered one, else opened
    from the ``.nkw`` path or made from the source spec (fingerprint checked)."""
    from ..world.store import ChunkStore

    store = _STORES.get(spec.world_token) if spec.world_token is not None else None
    if store is not None and world_fingerprint(store) == spec.fingerprint:
        return store
    if spec.world_path is not None:
        store = ChunkStore.open(spec.world_path)
    elif spec.world_source is not None:
        store = ChunkStore.from_spec(spec.world_source)
    else:
        raise FormatError("the replay spec names no world this process can open",
                          path=spec.corpus)
    if world_fingerprint(store) != spec.fingerprint:
        where = spec.world_path or "the world source"
        raise FormatError(f"{where} changed: its fingerprint is not "
                          f"{spec.fingerprint[:12]}...", path=spec.corpus)
    return store


def _world(spec: ReplaySpec, q: CorpusQuery) -> tuple[Any, bool]:
    """This thread's World for ``spec`` and ``q``'s options (a World serializes
    nothing, so each thread has its own; stores are shared), and whether it is new."""
    from ..world.world import World

    cache: dict[tuple[Any, ...], Any] | None = getattr(_WORLD_LOCAL, "cache", None)
    if cache is None:
        cache = _WORLD_LOCAL.cache = {}
        _WORLD_LOCAL.stores = {}
    key = (spec.fingerprint, spec.world_path, spec.world_token, spec.world_options, q.costs,
           q.connectivity, q.snap_radius)
    w = cache.get(key)
    if w is not None:
        return w, False
    skey = (spec.fingerprint, spec.world_path, spec.world_token)
    stores: dict[tuple[Any, ...], Any] = _WORLD_LOCAL.stores
    store = stores.get(skey)
    if store is None:
        if len(stores) >= 2:
            stores.clear()
            cache.clear()
        store = stores[skey] = _world_store(spec)
    w = World(store, q.costs, connectivity=q.connectivity, snap_radius=q.snap_radius)
    options = dict(spec.world_options)
    if options and "attempt_expansions" not in options:
        # recorded before the abstract search ran in weighted attempts: plain A*
        w.hierarchy.weights = (1.0,)
    w.configure(options)
    if len(cache) >= 4:
        cache.clear()
    cache[key] = w
    return w, True


def _run(pf: Any, q: CorpusQuery, budget: int | None) -> tuple[PathResult, float]:
    obstacles = None if q.obstacles is None else np.array(q.obstacles, np.float64).reshape(-1, 3)
    window = None if q.window is None else list(q.window)
    if q.kind == "find_path_cells":
        t0 = time.perf_counter()
        res = pf.find_path_cells(q.start, q.goal, smooth=q.smooth, nearest=q.nearest,
                                 budget=budget, window=window, algorithm=q.algorithm,
                                 obstacles=obstacles)
    elif q.kind == "find_path":
        t0 = time.perf_counter()
        res = pf.find_path(q.start, q.goal, smooth=q.smooth, nearest=q.nearest, budget=budget,
                           window=window, obstacles=obstacles, algorithm=q.algorithm)
    else:
        t0 = time.perf_counter()
        res = pf.find_path_to_nearest(q.start, q.goal, smooth=q.smooth, budget=budget,
                                      window=window, obstacles=obstacles, algorithm=q.algorithm)
    return res, time.perf_counter() - t0


def replay_batch(spec: ReplaySpec, tasks: Sequence[Task]) -> list[Outcome]:
    """Run ``tasks`` on the map of ``spec``; one :class:`Outcome` per task, in order.

    Top-level and picklable: a distributed runner calls it in any process.
    Raises FormatError naming the corpus and line when a query is invalid on
    this map (a start outside the grid, JPS on a weighted grid).
    """
    out: list[Outcome] = []
    for task in tasks:
        q = task.query
        budget = q.budget if task.budget == RECORDED else (
            None if task.budget == UNLIMITED else task.budget)
        if spec.map_kind == "world":
            res, dt = _world_task(spec, q, budget)
            out.append(_outcome(q, task, res, dt))
            continue
        pf, new = _pathfinder(spec, q)
        try:
            with pf.lock:
                handles = [pf.add_occupant(*c) for c in q.occupants]
                try:
                    if new:  # load the kernels before the clock runs
                        _run(pf, q, budget)
                    res, dt = _run(pf, q, budget)
                finally:
                    for h in handles:
                        pf.remove_occupant(h)
        except NavkitError as exc:
            raise FormatError(f"cannot replay this {q.kind} query: {exc}", path=spec.corpus,
                              line=q.line) from None
        out.append(_outcome(q, task, res, dt))
    return out


def _outcome(q: CorpusQuery, task: Task, res: PathResult, dt: float) -> Outcome:
    end = res.end_cell
    return Outcome(line=q.line, budget=task.budget, status=res.status.name,
                   cost_int=int(res.cost_int), cells=len(res.cells),
                   end_cell=None if end is None else (int(end[0]), int(end[1])),
                   expanded=int(res.expanded), generated=int(res.generated), seconds=dt)


def _world_task(spec: ReplaySpec, q: CorpusQuery, budget: int | None
                ) -> tuple[PathResult, float]:
    """One world line through this thread's World (docs/corpora.md, world corpora)."""
    if q.occupants:
        raise FormatError("a world query has no occupants (options.occupants)",
                          path=spec.corpus, line=q.line)
    try:
        w, new = _world(spec, q)
        if new:  # load the kernels before the clock runs
            _run(w, q, budget)
        return _run(w, q, budget)
    except FormatError:
        raise
    except NavkitError as exc:
        raise FormatError(f"cannot replay this {q.kind} query: {exc}", path=spec.corpus,
                          line=q.line) from None


MapBatches = Callable[[Callable[[ReplaySpec, Sequence[Task]], list[Outcome]], ReplaySpec,
                       Iterable[Sequence[Task]]], Iterator[list[Outcome]]]


def serial_map_batches(fn: Callable[[ReplaySpec, Sequence[Task]], list[Outcome]],
                       spec: ReplaySpec, batches: Iterable[Sequence[Task]]
                       ) -> Iterator[list[Outcome]]:
    """The default ``map_batches``: ``fn(spec, batch)`` for each batch, here, in order."""
    for batch in batches:
        yield fn(spec, batch)


def make_batches(queries: Sequence[CorpusQuery], budgets: Sequence[int],
                 min_seconds: float = BATCH_SECONDS) -> list[list[Task]]:
    """Tasks (each query at its recorded options, then at each budget) cut into
    batches of at least ``min_seconds`` of recorded work (at most 4096 tasks).
    A query's tasks stay in one batch."""
    batches: list[list[Task]] = []
    cur: list[Task] = []
    work = 0.0
    for q in queries:
        cur.append(Task(q, RECORDED))
        cur.extend(Task(q, b) for b in budgets)
        work += q.time * (1 + len(budgets))
        if work >= min_seconds or len(cur) >= _BATCH_MAX:
            batches.append(cur)
            cur, work = [], 0.0
    if cur:
        batches.append(cur)
    return batches


# ==================================================================== replay
def _resolve(path: str, corpus: str) -> str:
    p = Path(path)
    if p.is_absolute() or p.exists():
        return str(p)
    beside = Path(corpus).parent / p
    return str(beside) if beside.exists() else str(p)


def _load_map(path: str, kind: str = "grid") -> NavGrid:
    from ..formats import load_grid
    from ..level import NavLevel

    if Path(path).suffix.lower() == ".json":  # as NavMap.load: a level, else a grid file
        return NavLevel.from_file(path).grid
    return load_grid(path)


def _progress(enabled: bool, total: int) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("replay"), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=Console(file=sys.stderr), transient=True,
                    disable=not (enabled and sys.stderr.isatty() and total > 0))


def _budget_arg(b: Any) -> int:
    if b is None or b == 0:
        return UNLIMITED
    if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 1:
        from ..errors import ConfigError

        raise ConfigError(f"expected positive ints or None (unlimited), got {shown(b)}",
                          field="budgets")
    return int(b)


def _grid_arg(corpus: str, source: dict[str, Any] | None, grid: Any,
              map_kind: str) -> tuple[NavGrid, str]:
    """The map of a grid or level corpus, and how messages name it."""
    if isinstance(grid, NavGrid):
        return grid, "the grid given"
    if grid is not None:
        return _load_map(str(grid), map_kind), f"map {grid}"
    if source is None or source.get("path") is None:
        raise FormatError("the header names no map file: give the map (--map, grid=)",
                          path=corpus, line=1)
    map_path = _resolve(source["path"], corpus)
    return _load_map(map_path, map_kind), f"map {map_path}"


def _world_spec(corpus: str, source: dict[str, Any] | None,
                world: Any) -> tuple[ReplaySpec, str, str]:
    """``(spec, name, fingerprint)`` of the world a world corpus replays on."""
    from ..world.store import ChunkStore

    src = source or {}
    if src.get("kind", "world") != "world":
        raise FormatError(f"a {src['kind']} corpus replays on a map, not on a world "
                          "(give grid=)", path=corpus, line=1)
    chunk = src.get("chunk", 64)
    try:
        if world is not None and hasattr(world, "store") and hasattr(world, "find_path"):
            store, where = world.store, "the world given"
        elif world is not None and hasattr(world, "chunk") and hasattr(world, "get"):
            store, where = world, "the world store given"
        elif isinstance(world, NavGrid):
            store, where = ChunkStore.from_grid(world, chunk=chunk), "the grid given"
        elif world is not None:
            store, where = _open_world(str(world), src, chunk), f"world {world}"
        elif src.get("path") is not None:
            path = _resolve(src["path"], corpus)
            store, where = _open_world(path, src, chunk), f"world {path}"
        elif isinstance(src.get("procedural"), str):
            proc = src["procedural"]
            store, where = ChunkStore.from_source(proc, chunk=chunk), f"world {proc}"
        else:
            raise FormatError(f"the header names no world file (the world was built from a "
                              f"{src.get('origin', 'grid')} in memory): give the world "
                              "(--map WORLD.nkw or a map file, world=)", path=corpus, line=1)
    except FormatError:
        raise
    except (NavkitError, OSError) as exc:
        raise FormatError(f"cannot open the world: {exc}", path=corpus, line=1) from None
    opts = src.get("world") or {}
    if not isinstance(opts, dict) or not all(
            isinstance(k, str) and type(v) is int for k, v in opts.items()):
        raise FormatError(f"source.world: expected an object of integers, got {shown(opts)}",
                          path=corpus, line=1)
    fp = world_fingerprint(store)
    file = getattr(store, "path", None)
    spec = ReplaySpec(corpus=corpus, fingerprint=fp, map_kind="world",
                      world_path=None if file is None else str(Path(file).resolve()),
                      world_source=None if file is not None or store.version else store.spec,
                      world_options=tuple(sorted(opts.items())),
                      world_token=register_store(store))
    return spec, where, fp


def _open_world(path: str, src: dict[str, Any], chunk: Any) -> Any:
    """A ``.nkw`` file opened, or a map file as a world: cut into ``chunk`` cells and
    fingerprinted as the corpus's world was (``origin`` "grid": the grid's cells,
    else the file's bytes, as ``navkit bake`` does)."""
    from ..world.store import ChunkStore

    if Path(path).suffix.lower() == ".nkw":
        return ChunkStore.open(path)
    if src.get("origin") == "grid":
        return ChunkStore.from_grid(_load_map(path), chunk=chunk)
    return ChunkStore.from_source(path, chunk=chunk)


def _answer(q: CorpusQuery) -> dict[str, Any]:
    return {"status": q.status, "cost_int": q.cost_int, "cells": q.cells,
            "end_cell": q.end_cell}


def replay(corpus_path: str | os.PathLike[str], *,
           grid: NavGrid | str | os.PathLike[str] | None = None,
           budgets: Sequence[int | None] | None = None,
           map_batches: MapBatches | None = None, progress: bool = True,
           check_fingerprint: bool = True, world: Any = None) -> ReplayReport:
    """Replay a corpus and compare every answer with the recorded one.

    ``grid``: the map (a NavGrid or a map file); default: the header's path,
    read relative to the working directory or else to the corpus. Its
    fingerprint must be the header's (``check_fingerprint=False`` skips the
    check: to see what a map edit changes). ``world``: for a world corpus
    (``source.kind == "world"``), the world: a ``World``, a ``ChunkStore``, a
    ``.nkw`` file or a map file (``grid=`` takes the same there); default: the
    header's ``.nkw`` path or ``procedural:`` source. ``budgets``: run every query at
    each budget too (None or 0: unlimited) and fill :attr:`ReplayReport.sweep`.
    ``map_batches``: see the module docs. ``progress``: a bar on stderr when
    it is a terminal. Raises FormatError (corpus, line) for a bad corpus.
    """
    t_start = time.perf_counter()
    corpus = str(corpus_path)
    header, queries = read_corpus(corpus)
    source = header.get("source")
    want = None if source is None else source["fingerprint"]
    map_kind = "grid" if source is None else source["kind"]
    if world is not None or map_kind == "world":
        spec, where, fp = _world_spec(corpus, source, world if world is not None else grid)
    else:
        g, where = _grid_arg(corpus, source, grid, map_kind)
        fp = grid_fingerprint(g)
        spec = ReplaySpec.of_grid(corpus, g)
    if check_fingerprint and want is not None and fp != want:
        what = "world" if spec.map_kind == "world" else "map"
        raise FormatError(f"{where} is not the {what} this corpus was recorded on (fingerprint "
                          f"{fp[:12]}..., recorded {want[:12]}...)", path=corpus, line=1)
    report = ReplayReport(corpus=corpus, source=source,
                          map=where.removeprefix("map ").removeprefix("world "),
                          fingerprint=fp,
                          lines=len(queries))
    ref = want if want is not None else fp
    todo = [q for q in queries if q.fingerprint is None or q.fingerprint == ref]
    report.skipped = [q.line for q in queries if not (q.fingerprint is None
                                                      or q.fingerprint == ref)]
    sweep = [_budget_arg(b) for b in (budgets or ())]
    batches = make_batches(todo, sweep)
    runner = map_batches if map_batches is not None else serial_map_batches
    results: dict[tuple[int, int], Outcome] = {}
    total = sum(len(b) for b in batches)
    try:
        with _progress(progress, total) as bar:
            task_id = bar.add_task("queries", total=total)
            for outs in runner(replay_batch, spec, batches):
                for o in outs:
                    results[(o.line, o.budget)] = o
                bar.advance(task_id, len(outs))
    finally:
        if spec.world_token is not None:
            with _PF_LOCK:
                _STORES.pop(spec.world_token, None)
    _compare(report, todo, results)
    report.sweep = [_sweep_row(b, [results[(q.line, b)] for q in todo]) for b in sweep]
    report.seconds = time.perf_counter() - t_start
    return report


def _compare(report: ReplayReport, todo: list[CorpusQuery],
             results: dict[tuple[int, int], Outcome]) -> None:
    times = []
    for q in todo:
        o = results[(q.line, RECORDED)]
        times.append(o.seconds)
        got = {"status": o.status, "cost_int": o.cost_int, "cells": o.cells,
               "end_cell": o.end_cell}
        diff = {k: (v, got[k]) for k, v in _answer(q).items() if got[k] != v}
        if diff:
            report.answer_mismatches.append(Mismatch(q.line, q.kind, diff))
        else:
            report.matches += 1
        effort = {k: (v, w) for k, v, w in (("expanded", q.expanded, o.expanded),
                                            ("generated", q.generated, o.generated)) if v != w}
        if effort:
            report.expansion_mismatches.append(Mismatch(q.line, q.kind, effort))
        report.recorded_found += q.status == "FOUND"
        report.replayed_found += o.status == "FOUND"
    report.replayed = len(todo)
    if times:
        us = np.array(times) * 1e6
        report.median_us = float(np.median(us))
        report.p99_us = float(np.percentile(us, 99))
        report.recorded_median_us = float(np.median([q.time for q in todo]) * 1e6)


def _sweep_row(budget: int, outs: list[Outcome]) -> SweepRow:
    n = len(outs)
    found = sum(o.status == "FOUND" for o in outs)
    if not n:
        return SweepRow(None if budget == UNLIMITED else budget, 0, 0, 0.0, 0.0, 0.0, 0.0,
                        0.0, 0)
    us = np.array([o.seconds for o in outs]) * 1e6
    ex = np.array([o.expanded for o in outs], dtype=np.float64)
    return SweepRow(budget=None if budget == UNLIMITED else budget, queries=n, found=found,
                    success_rate=found / n, median_us=float(np.median(us)),
                    p99_us=float(np.percentile(us, 99)), median_expanded=float(np.median(ex)),
                    p99_expanded=float(np.percentile(ex, 99)), max_expanded=int(ex.max()))

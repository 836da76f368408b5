"""Recording path queries as a JSONL corpus (docs/corpora.md).

This is the writer every backend's ``record=`` uses; it depends on the base
modules only, so the query objects import it without importing the corpus
tools (:mod:`navkit.corpus`: replay, budget sweeps), which import them.

A :class:`QueryRecorder` writes one header line, then one line per query::

    {"navkitCorpus": 2, "source": {"kind": "grid", "path": "arena.map",
     "fingerprint": "ab12..."}, "costs": {"card": 10, "diag": 14, "name": "seed"},
     "connectivity": 8, "createdBy": "navkit 0.x"}
    {"kind": "find_path_cells", "fingerprint": "ab12...", "start": [1, 2], "goal": [30, 4],
     "options": {...}, "obstacles": [], "outcome": {"status": "FOUND", "costInt": 38, ...},
     "expanded": 112, "generated": 140, "time": 4.1e-05}

Keys are camelCase (format version 2; version 1 was snake_case, still read
until navkit 0.2: :mod:`navkit.corpus.casing`). Everything but ``time`` is
deterministic. Writes are buffered and
serialised by a lock, so threads may share a recorder.

>>> import io, numpy as np, navkit
>>> buf = io.StringIO()
>>> pf = navkit.Pathfinder(navkit.NavGrid(np.ones((3, 4), bool)), record=buf)
>>> _ = pf.find_path_cells((0, 0), (3, 2))
>>> pf.record.flush()
>>> [line[:24] for line in buf.getvalue().splitlines()]
['{"navkitCorpus": 2, "sou', '{"kind": "find_path_cell']
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import IO, Any

import numpy as np

from .._version import __version__
from ..casing import camel_keys as _camel_keys
from ..casing import to_camel
from ..costs import CostModel, cost_model
from ..errors import ConfigError, shown
from ..grid import NavGrid
from ..results import PathResult
from .fingerprint import grid_fingerprint

__all__ = ["QueryRecorder", "as_recorder", "CORPUS_VERSION", "SNAKE_CORPUS_VERSION", "KINDS",
           "circles_list", "options_dict", "grid_source", "world_source", "recorded"]

#: The ``navkitCorpus`` value of the header this version writes (camelCase keys).
CORPUS_VERSION = 2
#: The ``navkit_corpus`` value of the old snake_case corpora, read until navkit 0.2.
SNAKE_CORPUS_VERSION = 1
#: Query kinds a corpus line may name (and :func:`~navkit.corpus.replay.replay` replays).
KINDS = ("find_path_cells", "find_path", "find_path_to_nearest")
_SOURCE_KINDS = ("grid", "level", "world")
_BUFFER_LINES = 256


def circles_list(obstacles: Any) -> list[list[float]] | None:
    """An obstacle snapshot as a JSON list of ``[x, z, radius]`` (None stays None:
    a query without obstacles may run another code path than one with none)."""
    if obstacles is None:
        return None
    arr = np.asarray(obstacles, dtype=np.float64).reshape(-1, 3)
    return arr.tolist()


def options_dict(costs: CostModel, connectivity: int, *, algorithm: str, smooth: bool,
                 nearest: bool, budget: int | None, window: Any,
                 snap_radius: float | None = None,
                 occupants: list[list[float]] | None = None) -> dict[str, Any]:
    """The ``options`` object of a corpus line, with the Python names
    (``snap_radius``; :meth:`QueryRecorder.log` writes them camelCase), ``budget``
    None: unlimited; ``window``: ``[x0, z0, x1, z1]`` or None."""
    out: dict[str, Any] = {
        "algorithm": algorithm, "smooth": bool(smooth), "nearest": bool(nearest),
        "budget": None if budget is None or budget >= 2**62 else int(budget),
        "window": None if window is None else [int(v) for v in window],
        "costs": [costs.card, costs.diag], "connectivity": int(connectivity),
    }
    if snap_radius is not None:
        out["snap_radius"] = float(snap_radius)
    if occupants:
        out["occupants"] = occupants
    return out


def _point(p: Any, integer: bool) -> list[Any]:
    arr = np.asarray(p).ravel()
    if integer:
        return [int(v) for v in arr[:2]]
    if arr.shape[0] == 3:  # (x, y, z): the query drops y
        arr = arr[[0, 2]]
    return [float(v) for v in arr[:2]]


_CAMEL: dict[str, str] = {}


def _camel(key: str) -> str:
    """:func:`~navkit.casing.to_camel`, memoized (an options object's few keys)."""
    out = _CAMEL.get(key)
    if out is None:
        out = to_camel(key)
        if len(_CAMEL) < 256:
            _CAMEL[key] = out
    return out


def camel_keys(obj: Any) -> Any:
    """A copy of ``obj`` with every dict key (nested dicts too) in camelCase."""
    return _camel_keys(obj, lists=False)


def _num(v: float) -> float | None:
    return None if not np.isfinite(v) else float(v)


class QueryRecorder:
    """Writes a query corpus: a header, then one JSON line per :meth:`log`.

    Parameters
    ----------
    path_or_textfile : str, PathLike or text file
        A path is opened (truncated) and owned: :meth:`close` closes it. An
        open text file is written to and only flushed.
    source : dict, optional
        ``{"kind": "grid" | "level" | "world", "path": str | None,
        "fingerprint": str}``; may be filled in later by :meth:`describe`
        (the objects that take ``record=`` do so) until the header is written.
    costs, connectivity : optional
        The header's defaults (each line carries its own too).

    The header is written on the first :meth:`log` (or :meth:`flush`).
    """

    def __init__(self, path_or_textfile: str | os.PathLike[str] | IO[str], *,
                 source: dict[str, Any] | None = None,
                 costs: str | CostModel | tuple[int, int] | None = None,
                 connectivity: int | None = None):
        self.lock = threading.Lock()
        self._fh: IO[str]
        if isinstance(path_or_textfile, (str, os.PathLike)):
            self.path: str | None = str(path_or_textfile)
            self._fh = open(path_or_textfile, "w", encoding="utf-8")  # noqa: SIM115
            self._owns = True
        elif hasattr(path_or_textfile, "write"):
            self.path = getattr(path_or_textfile, "name", None)
            self._fh = path_or_textfile
            self._owns = False
        else:
            raise ConfigError(f"expected a path or a text file, got {shown(path_or_textfile)}",
                              field="record")
        self.source: dict[str, Any] | None = None
        self.costs: CostModel | None = None
        self.connectivity: int | None = None
        self._header_written = False
        self._buf: list[str] = []
        self._closed = False
        #: Lines logged so far (the header not counted).
        self.count = 0
        self.describe(source=source, costs=costs, connectivity=connectivity)

    # ------------------------------------------------------------ creation
    @classmethod
    def for_grid(cls, path: str | os.PathLike[str] | IO[str], grid: NavGrid, *,
                 map_path: str | os.PathLike[str] | None = None,
                 costs: str | CostModel | tuple[int, int] = "seed",
                 connectivity: int = 8, kind: str = "grid") -> QueryRecorder:
        """A recorder whose header names ``grid`` (its :func:`grid_fingerprint`)
        and the file it came from (``map_path``, or None)."""
        return cls(path, source=grid_source(grid, map_path, kind), costs=costs,
                   connectivity=connectivity)

    def describe(self, *, source: dict[str, Any] | None = None,
                 costs: str | CostModel | tuple[int, int] | None = None,
                 connectivity: int | None = None) -> None:
        """Fill in header fields not set yet (no effect once the header is written)."""
        with self.lock:
            if self._header_written:
                return
            if source is not None and self.source is None:
                self.source = _check_source(source)
            if costs is not None and self.costs is None:
                self.costs = cost_model(costs)
            if connectivity is not None and self.connectivity is None:
                if connectivity not in (4, 8) or isinstance(connectivity, bool):
                    raise ConfigError(f"expected 4 or 8, got {shown(connectivity)}",
                                      field="connectivity")
                self.connectivity = int(connectivity)

    @property
    def fingerprint(self) -> str | None:
        """The header's map fingerprint (None when no source is known)."""
        return None if self.source is None else self.source.get("fingerprint")

    # ------------------------------------------------------------- writing
    def header(self) -> dict[str, Any]:
        """The header object (line 1), camelCase keys."""
        c = self.costs
        return {"navkitCorpus": CORPUS_VERSION, "source": camel_keys(self.source),
                "costs": None if c is None else {"card": c.card, "diag": c.diag, "name": c.name},
                "connectivity": self.connectivity, "createdBy": f"navkit {__version__}"}

    def log(self, kind: str, *, start: Any, goal: Any, options: dict[str, Any], obstacles: Any,
            result: PathResult, seconds: float, fingerprint: str | None = None) -> None:
        """Append one query: ``kind`` (one of :data:`KINDS`), its endpoints (cells
        ``(x, z)`` for ``find_path_cells``, world metres otherwise), ``options``
        (see :func:`options_dict`; written with camelCase keys), the obstacle
        circles ``(k, 3)`` or None, its
        ``result`` and the wall time ``seconds``. ``fingerprint``: the map's, when
        it differs from the header's (a door opened since)."""
        cells = kind == "find_path_cells"
        end = result.end_cell
        line = {
            "kind": kind,
            "fingerprint": fingerprint if fingerprint is not None else self.fingerprint,
            "start": _point(start, cells), "goal": _point(goal, cells),
            "options": {_camel(k): v for k, v in options.items()},
            "obstacles": circles_list(obstacles),
            "outcome": {"status": result.status.name, "costInt": int(result.cost_int),
                        "cost": _num(result.cost), "cells": int(len(result.cells)),
                        "endCell": None if end is None else [int(end[0]), int(end[1])]},
            "expanded": int(result.expanded), "generated": int(result.generated),
            "time": float(seconds),
        }
        text = json.dumps(line, allow_nan=False)
        with self.lock:
            if self._closed:
                raise ConfigError("the recorder is closed", field="record")
            self._buf.append(text)
            self.count += 1
            if len(self._buf) >= _BUFFER_LINES:
                self._drain()

    def _drain(self) -> None:  # (lock held)
        if not self._header_written:
            self._fh.write(json.dumps(self.header(), allow_nan=False) + "\n")
            self._header_written = True
        if self._buf:
            self._fh.write("\n".join(self._buf) + "\n")
            self._buf.clear()

    def flush(self) -> None:
        """Write the header (if not yet) and buffered lines, and flush the file."""
        with self.lock:
            if self._closed:
                return
            self._drain()
            self._fh.flush()

    def close(self) -> None:
        """Flush; close the file when this recorder opened it. Idempotent."""
        with self.lock:
            if self._closed:
                return
            self._drain()
            self._fh.flush()
            if self._owns:
                self._fh.close()
            self._closed = True

    def __enter__(self) -> QueryRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # an owned file still gets its lines
        try:
            if not self._closed and self._owns:
                self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass

    def __repr__(self) -> str:
        return f"QueryRecorder({self.path or 'stream'}, lines={self.count})"


def grid_source(grid: NavGrid, map_path: str | os.PathLike[str] | None = None,
                kind: str = "grid") -> dict[str, Any]:
    """The header ``source`` object for ``grid``."""
    return {"kind": kind, "path": None if map_path is None else str(map_path),
            "fingerprint": grid_fingerprint(grid)}


def _check_source(source: Any) -> dict[str, Any]:
    if not isinstance(source, dict):
        raise ConfigError(f"expected a dict, got {shown(source)}", field="source")
    kind = source.get("kind")
    if kind not in _SOURCE_KINDS:
        raise ConfigError(f"expected one of {list(_SOURCE_KINDS)}, got {shown(kind)}",
                          field="source.kind")
    path = source.get("path")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise ConfigError(f"expected a str or None, got {shown(path)}", field="source.path")
    fp = source.get("fingerprint")
    if not isinstance(fp, str):
        raise ConfigError(f"expected a hex string, got {shown(fp)}", field="source.fingerprint")
    out = dict(source)
    out["path"] = None if path is None else str(Path(path))
    return out


def world_source(store: Any, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The header ``source`` object for a world's chunk store (docs/corpora.md).

    ``kind`` ``"world"``; ``path``: the baked ``.nkw`` file (``store.path``), or
    None for a world built from a grid or a generator (replay then needs the
    world: ``--map`` / ``world=``); ``fingerprint``: ``store.fingerprint``;
    ``origin``: ``"file"``, ``"grid"`` or ``"generator"``; ``procedural``: the
    ``procedural:NAME?...`` string a generator world was made from, when known;
    ``chunk``, ``width``, ``depth``; ``world``: ``options``
    (:meth:`World.world_options <navkit.world.world.World.world_options>`).
    """
    path = getattr(store, "path", None)
    spec = getattr(store, "spec", None)
    origin = "file" if path is not None else (
        "grid" if type(spec).__name__ == "GridSpec" else "generator")
    out: dict[str, Any] = {"kind": "world", "path": None if path is None else str(path),
                           "fingerprint": str(store.fingerprint), "origin": origin,
                           "chunk": int(store.chunk), "width": int(store.width),
                           "depth": int(store.depth)}
    meta = getattr(store, "meta", None) or {}
    proc = meta.get("source") if isinstance(meta, dict) else None
    if origin == "generator" and isinstance(proc, str) and proc.startswith("procedural:"):
        out["procedural"] = proc
    if options is not None:
        out["world"] = dict(options)
    return out


def as_recorder(record: Any, grid: NavGrid | None, *, costs: CostModel, connectivity: int,
                kind: str = "grid", map_path: str | os.PathLike[str] | None = None
                ) -> QueryRecorder | None:
    """The ``record=`` argument of the query objects: None, a :class:`QueryRecorder`
    (filled in with this grid when it has no source yet) or a path / text file
    (a new recorder, owned by the caller's object). ``grid`` None (a world):
    the source is left for the caller to fill in (:meth:`QueryRecorder.describe`)."""
    if record is None:
        return None
    source = None if grid is None else grid_source(grid, map_path, kind)
    if isinstance(record, QueryRecorder):
        record.describe(source=source, costs=costs, connectivity=connectivity)
        return record
    if isinstance(record, (str, os.PathLike)) or hasattr(record, "write"):
        return QueryRecorder(record, source=source, costs=costs, connectivity=connectivity)
    raise ConfigError(f"expected a QueryRecorder, a path or a text file, got {shown(record)}",
                      field="record")


def recorded(record: Any, kind: str, run: Any, *, start: Any, goal: Any, options: Any,
             obstacles: Any = None, fingerprint: Any = None, lock: Any = None) -> Any:
    """The one recording wrapper of every backend: run the query ``run()``
    (timed; under ``lock`` when given), then log it to ``record`` as ``kind``.

    ``options`` is the corpus line's options object, or a callable returning it
    (evaluated after the query, under the lock: live occupants, the map's
    version); ``fingerprint`` likewise (None: the header's). Returns the answer.
    """
    with lock if lock is not None else contextlib.nullcontext():
        t0 = time.perf_counter()
        res = run()
        dt = time.perf_counter() - t0
        opts = options() if callable(options) else options
        fp = fingerprint() if callable(fingerprint) else fingerprint
    record.log(kind, start=start, goal=goal, options=opts, obstacles=obstacles, result=res,
               seconds=dt, fingerprint=fp)
    return res

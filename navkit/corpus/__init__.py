"""Query corpora: record every path query as a JSONL line, replay, sweep budgets.

* :class:`QueryRecorder` (:mod:`navkit.recording`): what ``record=`` on
  :class:`~navkit.query.pathfinder.Pathfinder`, :class:`~navkit.query.navmap.NavMap`,
  :class:`~navkit.world.world.World` and :class:`~navkit.sim.location.Location`
  writes to;
* :func:`grid_fingerprint` (:mod:`navkit.recording.fingerprint`): the map's SHA-256;
* :func:`replay` (:mod:`navkit.corpus.replay`): replay and compare, budget
  sweeps, batches for a distributed ``map_batches``.

The line format: docs/corpora.md.
"""

from __future__ import annotations

from ..recording import (
    CORPUS_VERSION,
    KINDS,
    SNAKE_CORPUS_VERSION,
    QueryRecorder,
    as_recorder,
    grid_fingerprint,
    grid_source,
    options_dict,
    world_source,
)
from .replay import (
    RECORDED,
    UNLIMITED,
    CorpusQuery,
    Mismatch,
    Outcome,
    ReplayReport,
    ReplaySpec,
    SweepRow,
    Task,
    make_batches,
    read_corpus,
    replay,
    replay_batch,
    serial_map_batches,
    upgrade_corpus,
)

__all__ = [
    "QueryRecorder", "as_recorder", "grid_source", "world_source", "options_dict",
    "grid_fingerprint",
    "CORPUS_VERSION", "SNAKE_CORPUS_VERSION", "KINDS", "upgrade_corpus",
    "replay", "replay_batch", "serial_map_batches",
    "make_batches", "read_corpus", "ReplayReport", "ReplaySpec", "CorpusQuery", "Task",
    "Outcome", "Mismatch", "SweepRow", "RECORDED", "UNLIMITED",
]

"""Writing query corpora: what every backend's ``record=`` writes to (docs/corpora.md).

* :class:`QueryRecorder` (:mod:`navkit.recording.recorder`): a header, then one
  JSON line per query; :func:`recorded`, the one wrapper that times a query
  and logs it (``Pathfinder``, ``NavMap``, ``World`` and the simulation use it);
* :func:`grid_fingerprint` (:mod:`navkit.recording.fingerprint`): a map's SHA-256.

Reading, replaying and sweeping corpora is :mod:`navkit.corpus`, above the
query objects; this package sits below them, so recording needs no import circle.
"""

from __future__ import annotations

from .fingerprint import grid_fingerprint
from .recorder import (
    CORPUS_VERSION,
    KINDS,
    SNAKE_CORPUS_VERSION,
    QueryRecorder,
    as_recorder,
    circles_list,
    grid_source,
    options_dict,
    recorded,
    world_source,
)

__all__ = ["QueryRecorder", "as_recorder", "recorded", "grid_source", "world_source",
           "options_dict", "circles_list", "grid_fingerprint", "CORPUS_VERSION",
           "SNAKE_CORPUS_VERSION", "KINDS"]

"""The corpus writer, kept at this path for imports: :mod:`navkit.recording.recorder`.

>>> from navkit.corpus.record import QueryRecorder
>>> QueryRecorder.__module__
'navkit.recording.recorder'
"""

from __future__ import annotations

from ..recording.recorder import (
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

__all__ = ["QueryRecorder", "as_recorder", "CORPUS_VERSION", "SNAKE_CORPUS_VERSION", "KINDS",
           "circles_list", "options_dict", "grid_source", "world_source", "recorded"]

"""One JSON casing for navkit: camelCase.

Every JSON document that leaves or enters navkit uses camelCase keys
(docs/architecture.md, "JSON casing"): level and scene files (``cellSize``,
``agentRadius``), saved simulation states, the viewer's ``/api/...`` answers
and the command line's ``--json`` output (``costInt``,
``startCell``, ``timeUs``) and the benchmarks' ``--json`` figures. The files
and the viewer were camelCase already and are read by game engines and
JavaScript, whose convention it is. Python attributes stay snake_case
(``PathResult.cost_int``); the mapping is mechanical (:func:`to_camel`,
:func:`to_snake`).

Deprecation period: ``NAVKIT_JSON_CASE=snake`` still gives the old snake_case
``--json`` keys in this release and prints a one-line notice on stderr, once
per process; it goes in navkit :data:`SNAKE_REMOVED_IN`.

The functions live in :mod:`navkit.casing` (below the command line and the
benchmarks, which both print ``--json``); this module is the command line's
name for them.

>>> to_camel("cost_int"), to_camel("time_us"), to_camel("found"), to_camel("_private")
('costInt', 'timeUs', 'found', '_private')
>>> camel_keys({"start_cell": [1, 2], "stats": [{"max_abs_error": 0.0}]})
{'startCell': [1, 2], 'stats': [{'maxAbsError': 0.0}]}
>>> to_snake("agentRadius"), to_snake("cost_int")
('agent_radius', 'cost_int')
"""

from __future__ import annotations

from ..casing import (
    ENV,
    SNAKE_NOTICE,
    SNAKE_REMOVED_IN,
    JsonCase,
    apply_case,
    camel_keys,
    json_case,
    snake_keys,
    to_camel,
    to_snake,
)

__all__ = ["ENV", "JsonCase", "SNAKE_REMOVED_IN", "SNAKE_NOTICE", "json_case", "to_camel",
           "to_snake", "camel_keys", "snake_keys", "apply_case"]

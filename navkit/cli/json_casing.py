"""One JSON casing for navkit: camelCase (issue #18: "one JSON casing").

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

>>> to_camel("cost_int"), to_camel("time_us"), to_camel("found"), to_camel("_private")
('costInt', 'timeUs', 'found', '_private')
>>> camel_keys({"start_cell": [1, 2], "stats": [{"max_abs_error": 0.0}]})
{'startCell': [1, 2], 'stats': [{'maxAbsError': 0.0}]}
>>> to_snake("agentRadius"), to_snake("cost_int")
('agent_radius', 'cost_int')
"""

from __future__ import annotations

import os
from typing import Any, Literal

from ..casing import SNAKE_REMOVED_IN, camel_keys, notice_once, snake_keys, to_camel, to_snake
from ..errors import ConfigError

__all__ = ["ENV", "JsonCase", "SNAKE_REMOVED_IN", "SNAKE_NOTICE", "json_case", "to_camel",
           "to_snake", "camel_keys", "snake_keys", "apply_case"]

#: The environment variable that picks the ``--json`` casing (deprecated).
ENV = "NAVKIT_JSON_CASE"
#: The casings: ``"camel"`` (default) or ``"snake"`` (deprecated).
JsonCase = Literal["snake", "camel"]
#: The one-line notice ``NAVKIT_JSON_CASE=snake`` prints on stderr (once per process).
SNAKE_NOTICE = (f"DeprecationWarning: {ENV}=snake (snake_case --json keys) is deprecated and "
                f"will be removed in navkit {SNAKE_REMOVED_IN}; read the camelCase keys "
                "(costInt for cost_int) instead")



def json_case() -> JsonCase:
    """The casing ``NAVKIT_JSON_CASE`` asks for (unset or empty: ``"camel"``).

    Raises ConfigError (field ``NAVKIT_JSON_CASE``) for a value other than
    ``camel`` or ``snake``."""
    value = os.environ.get(ENV, "").strip().lower()
    if value in ("", "camel"):
        return "camel"
    if value == "snake":
        return "snake"
    raise ConfigError(f"expected 'camel' (the default) or 'snake' (deprecated, removed in "
                      f"navkit {SNAKE_REMOVED_IN}), got {value!r}", field=ENV)


def apply_case(obj: Any, case: JsonCase | None = None) -> Any:
    """``obj`` (a JSON value built with snake_case keys, the Python names) in the
    casing ``case`` (default: :func:`json_case`): :func:`camel_keys` for
    ``"camel"``; unchanged for the deprecated ``"snake"``, which prints
    :data:`SNAKE_NOTICE` on stderr the first time in a process."""
    if case is None:
        case = json_case()
        if case == "snake":
            notice_once("NAVKIT_JSON_CASE", SNAKE_NOTICE)
    return obj if case == "snake" else camel_keys(obj)

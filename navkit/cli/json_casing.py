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
import re
import sys
from typing import Any, Literal

from ..errors import ConfigError

__all__ = ["ENV", "JsonCase", "SNAKE_REMOVED_IN", "SNAKE_NOTICE", "json_case", "to_camel",
           "to_snake", "camel_keys", "snake_keys", "apply_case"]

#: The environment variable that picks the ``--json`` casing (deprecated).
ENV = "NAVKIT_JSON_CASE"
#: The casings: ``"camel"`` (default) or ``"snake"`` (deprecated).
JsonCase = Literal["snake", "camel"]
#: The release that drops ``NAVKIT_JSON_CASE=snake``.
SNAKE_REMOVED_IN = "0.2"
#: The one-line notice ``NAVKIT_JSON_CASE=snake`` prints on stderr (once per process).
SNAKE_NOTICE = (f"DeprecationWarning: {ENV}=snake (snake_case --json keys) is deprecated and "
                f"will be removed in navkit {SNAKE_REMOVED_IN}; read the camelCase keys "
                "(costInt for cost_int) instead")

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")
_noticed = False


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


def to_camel(key: str) -> str:
    """``snake_case`` -> ``camelCase``; any other key (one word, a leading
    underscore, a file name, digits first) is returned unchanged."""
    if not _SNAKE.match(key):
        return key
    head, *rest = key.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def to_snake(key: str) -> str:
    """``camelCase`` -> ``snake_case``; any other key is returned unchanged."""
    if not _CAMEL.match(key):
        return key
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def _convert(obj: Any, fn: Any) -> Any:
    if isinstance(obj, dict):
        return {(fn(k) if isinstance(k, str) else k): _convert(v, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_convert(v, fn) for v in obj]
    return obj


def camel_keys(obj: Any) -> Any:
    """A copy of a JSON value with every snake_case dict key in camelCase (values untouched)."""
    return _convert(obj, to_camel)


def snake_keys(obj: Any) -> Any:
    """A copy of a JSON value with every camelCase dict key in snake_case (values untouched)."""
    return _convert(obj, to_snake)


def _notice() -> None:
    global _noticed
    if not _noticed:
        _noticed = True
        print(SNAKE_NOTICE, file=sys.stderr)


def apply_case(obj: Any, case: JsonCase | None = None) -> Any:
    """``obj`` (a JSON value built with snake_case keys, the Python names) in the
    casing ``case`` (default: :func:`json_case`): :func:`camel_keys` for
    ``"camel"``; unchanged for the deprecated ``"snake"``, which prints
    :data:`SNAKE_NOTICE` on stderr the first time in a process."""
    if case is None:
        case = json_case()
        if case == "snake":
            _notice()
    return obj if case == "snake" else camel_keys(obj)

"""One JSON casing policy for the command line (issue #18: "one JSON casing").

The split, precisely (docs/architecture.md, "JSON casing"):

* **files and the viewer's HTTP API are camelCase**: level and scene files
  (``cellSize``, ``agentRadius``), saved simulation states, the viewer's
  ``/api/...`` answers. They are read by game engines and JavaScript, whose
  convention that is, and their readers accept only camelCase.
* **command-line JSON is snake_case** by default (``--json`` output of
  ``path``, ``scen``, ``info``, ... : ``cost_int``, ``start_cell``): the same
  names as the Python attributes (``PathResult.cost_int``), so a script can
  move between the two without a mapping.

Scripts that want one casing everywhere set ``NAVKIT_JSON_CASE=camel``: every
command's ``--json`` line then uses camelCase keys (:func:`camel_keys`). The
default stays snake_case; should it ever change, ``NAVKIT_JSON_CASE=snake``
keeps today's keys, and the change is announced a release ahead in the
changelog (deprecation period).

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
from typing import Any, Literal

from ..errors import ConfigError

__all__ = ["ENV", "JsonCase", "json_case", "to_camel", "to_snake", "camel_keys", "snake_keys",
           "apply_case"]

#: The environment variable that picks the command line's JSON casing.
ENV = "NAVKIT_JSON_CASE"
#: The casings: ``"snake"`` (default) or ``"camel"``.
JsonCase = Literal["snake", "camel"]

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")


def json_case() -> JsonCase:
    """The casing ``NAVKIT_JSON_CASE`` asks for (unset or empty: ``"snake"``).

    Raises ConfigError (field ``NAVKIT_JSON_CASE``) for any other value."""
    value = os.environ.get(ENV, "").strip().lower()
    if value in ("", "snake"):
        return "snake"
    if value == "camel":
        return "camel"
    raise ConfigError(f"expected 'snake' or 'camel', got {value!r}", field=ENV)


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


def apply_case(obj: Any, case: JsonCase | None = None) -> Any:
    """``obj`` in the casing ``case`` (default: :func:`json_case`): unchanged for
    ``"snake"`` (the command line's keys already are), :func:`camel_keys` for ``"camel"``."""
    case = json_case() if case is None else case
    return camel_keys(obj) if case == "camel" else obj

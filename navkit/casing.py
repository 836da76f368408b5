"""JSON key casing: navkit writes and reads camelCase JSON (docs/architecture.md, "JSON casing").

The one mapping between Python names (``cost_int``) and JSON keys (``costInt``),
used by the command line's ``--json`` output (:mod:`navkit.cli.json_casing`),
the benchmarks' ``--json`` figures (:func:`navkit.bench.options.dumps`) and
query corpora (:mod:`navkit.corpus.casing`); snake_case input is read for one
more release (until :data:`SNAKE_REMOVED_IN`) with a notice. The casing of
the ``--json`` output (``NAVKIT_JSON_CASE``, :func:`json_case`,
:func:`apply_case`) lives here too, below the command line and the
benchmarks that both print it.

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

from .errors import ConfigError

__all__ = ["SNAKE_REMOVED_IN", "to_camel", "to_snake", "camel_keys", "snake_keys",
           "notice_once", "ENV", "JsonCase", "SNAKE_NOTICE", "json_case", "apply_case"]

#: The release that stops writing or reading snake_case JSON.
SNAKE_REMOVED_IN = "0.2"
#: The environment variable that picks the ``--json`` casing (deprecated).
ENV = "NAVKIT_JSON_CASE"
#: The casings: ``"camel"`` (default) or ``"snake"`` (deprecated).
JsonCase = Literal["snake", "camel"]
#: The one-line notice ``NAVKIT_JSON_CASE=snake`` prints on stderr (once per process).
SNAKE_NOTICE = (f"DeprecationWarning: {ENV}=snake (snake_case --json keys) is deprecated and "
                f"will be removed in navkit {SNAKE_REMOVED_IN}; read the camelCase keys "
                "(costInt for cost_int) instead")

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")
_noticed: set[str] = set()


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


def _convert(obj: Any, fn: Any, lists: bool) -> Any:
    if isinstance(obj, dict):
        return {(fn(k) if isinstance(k, str) else k): _convert(v, fn, lists)
                for k, v in obj.items()}
    if lists and isinstance(obj, (list, tuple)):
        return [_convert(v, fn, lists) for v in obj]
    return obj


def camel_keys(obj: Any, *, lists: bool = True) -> Any:
    """A copy of a JSON value with every snake_case dict key in camelCase (values
    untouched); with ``lists=False`` lists are kept as they are (not entered)."""
    return _convert(obj, to_camel, lists)


def snake_keys(obj: Any, *, lists: bool = True) -> Any:
    """A copy of a JSON value with every camelCase dict key in snake_case (values untouched)."""
    return _convert(obj, to_snake, lists)


def notice_once(topic: str, text: str) -> bool:
    """Print ``text`` on stderr the first time ``topic`` is noticed in this process;
    returns whether it printed."""
    if topic in _noticed:
        return False
    _noticed.add(topic)
    print(text, file=sys.stderr)
    return True


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

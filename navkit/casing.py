"""JSON key casing: navkit writes and reads camelCase JSON (docs/architecture.md, "JSON casing").

The one mapping between Python names (``cost_int``) and JSON keys (``costInt``),
used by the command line's ``--json`` output (:mod:`navkit.cli.json_casing`)
and by query corpora (:mod:`navkit.corpus.casing`); snake_case input is read
for one more release (until :data:`SNAKE_REMOVED_IN`) with a notice.

>>> to_camel("cost_int"), to_camel("time_us"), to_camel("found"), to_camel("_private")
('costInt', 'timeUs', 'found', '_private')
>>> camel_keys({"start_cell": [1, 2], "stats": [{"max_abs_error": 0.0}]})
{'startCell': [1, 2], 'stats': [{'maxAbsError': 0.0}]}
>>> to_snake("agentRadius"), to_snake("cost_int")
('agent_radius', 'cost_int')
"""

from __future__ import annotations

import re
import sys
from typing import Any

__all__ = ["SNAKE_REMOVED_IN", "to_camel", "to_snake", "camel_keys", "snake_keys",
           "notice_once"]

#: The release that stops writing or reading snake_case JSON.
SNAKE_REMOVED_IN = "0.2"

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

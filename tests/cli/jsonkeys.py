"""Helpers for the JSON casing tests: every key of a JSON value, and the camelCase check."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

#: A camelCase key, one lowercase word, or a key that is data rather than a field
#: name (a map or peer name such as ``maze512-1-0`` or ``networkx A*``, a count
#: such as ``"100"``): anything without an underscore between two lowercase words.
_SNAKE_FIELD = re.compile(r"[a-z0-9]_[a-z0-9]")


def all_keys(obj: Any) -> Iterator[str]:
    """Every dict key in a JSON value, nested ones included."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from all_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from all_keys(v)


def snake_keys_in(obj: Any) -> list[str]:
    """The keys of ``obj`` that are snake_case field names (``cost_int``)."""
    return sorted({k for k in all_keys(obj) if _SNAKE_FIELD.search(k)})

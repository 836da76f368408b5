"""The navkit error hierarchy.

Every error navkit raises on bad input derives from :class:`NavkitError`, so
callers can catch one type. Messages say what was expected and what arrived;
file errors name the file and line, config errors name the field.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "NavkitError",
    "FormatError",
    "ConfigError",
    "QueryError",
    "MissingExtraError",
    "require_extra",
    "unknown_name_message",
    "shown",
]


class NavkitError(Exception):
    """Base class of every error navkit raises on purpose."""


class FormatError(NavkitError, ValueError):
    """A file could not be read: names the file and, where known, the line.

    >>> str(FormatError("bad header", path="a.map", line=3))
    'a.map:3: bad header'
    """

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.reason = message
        where = ""
        if self.path is not None:
            where = self.path if line is None else f"{self.path}:{line}"
            where += ": "
        super().__init__(where + message)


class ConfigError(NavkitError, ValueError):
    """A configuration value is invalid: names the field.

    >>> str(ConfigError("must be > 0, got -1", field="cellSize"))
    'cellSize: must be > 0, got -1'
    """

    def __init__(self, message: str, *, field: str | None = None, path: str | Path | None = None):
        self.field = field
        self.path = None if path is None else str(path)
        self.reason = message
        prefix = ""
        if self.path is not None:
            prefix += self.path + ": "
        if field is not None:
            prefix += field + ": "
        super().__init__(prefix + message)


class QueryError(NavkitError, ValueError):
    """A query argument is invalid (out of bounds, NaN, wrong shape or dtype)."""


class MissingExtraError(NavkitError, ImportError):
    """A feature needs an optional dependency that is not installed; names the extra.

    >>> str(MissingExtraError("the viewer", "viewer", "starlette"))
    "the viewer needs starlette, which is not installed: pip install 'navkit[viewer]'"
    """

    def __init__(self, feature: str, extra: str, module: str):
        self.extra = extra
        self.module = module
        super().__init__(f"{feature} needs {module}, which is not installed: "
                         f"pip install 'navkit[{extra}]'")


def require_extra(modules: Sequence[str], feature: str, extra: str) -> None:
    """Raise :class:`MissingExtraError` unless every one of ``modules`` can be imported."""
    import importlib.util

    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise MissingExtraError(feature, extra, module)


def unknown_name_message(kind: str, name: Any, names: Sequence[str]) -> str:
    """The message for a name that is not among ``names``, with a close match when there is one.

    >>> unknown_name_message("area", "dor", ["door", "hall"])
    "no area called 'dor' (known: 'door', 'hall'); did you mean 'door'?"
    """
    hint = difflib.get_close_matches(shown(name), list(names), n=1)
    extra = f"; did you mean {hint[0]!r}?" if hint else ""
    known = ", ".join(repr(n) for n in names[:20]) + (", ..." if len(names) > 20 else "")
    return f"no {kind} called {shown(name)} (known: {known or 'none'}){extra}"


_SHOWN = 40  # characters of a bad value quoted in messages


def shown(value: object) -> str:
    """``repr`` of a bad value for a message, cut to a readable length; never raises
    (integers past Python's int-string limit, structures too deep to ``repr``).

    >>> shown("9" * 100)
    "'999999999999999999999999999999999999999... (102 characters)"
    >>> shown(10**5000)
    'an integer of 16610 bits'
    >>> shown([10**5000])
    'a list (not printable)'
    """
    if isinstance(value, int) and value.bit_length() > 1000:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except (ValueError, RecursionError, OverflowError):
        return f"a {type(value).__name__} (not printable)"
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text)} characters)"

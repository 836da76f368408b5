"""JSON key casing of query corpora (docs/corpora.md).

Corpora are camelCase from format version 2 (``navkitCorpus``, ``costInt``,
``endCell``, ``snapRadius``); version 1 (snake_case) is still read, with a
deprecation notice, until navkit :data:`SNAKE_REMOVED_IN`. The key mapping is
:mod:`navkit.casing`'s (shared with the command line's ``--json`` output).

>>> to_camel("cost_int"), to_snake("endCell"), to_camel("kind")
('costInt', 'end_cell', 'kind')
"""

from __future__ import annotations

import warnings
from typing import Any

from ..casing import SNAKE_REMOVED_IN, notice_once, to_camel, to_snake
from ..casing import camel_keys as _camel_keys

__all__ = ["SNAKE_REMOVED_IN", "to_camel", "to_snake", "camel_keys", "snake_notice"]


def snake_notice(path: str) -> None:
    """Warn, once per process, that ``path`` is a deprecated snake_case corpus:
    a ``DeprecationWarning`` and the same line on stderr (shown even where Python
    hides deprecation warnings, as ``NAVKIT_JSON_CASE=snake`` does)."""
    msg = (f"{path}: snake_case query corpora (navkit_corpus 1) are deprecated and will not "
           f"be read from navkit {SNAKE_REMOVED_IN}; record the corpus again, or convert it "
           "with navkit.corpus.upgrade_corpus (camelCase keys, navkitCorpus 2)")
    if notice_once("snake_case corpora", f"DeprecationWarning: {msg}"):
        warnings.warn(msg, DeprecationWarning, stacklevel=3)


def camel_keys(obj: Any) -> Any:
    """A copy of ``obj`` with every dict key (in nested dicts too) in camelCase;
    other values, lists included, are kept as they are (not copied)."""
    return _camel_keys(obj, lists=False)

"""Per-character retry cooldown sequences (docs/rules.md §10.3), shuffled from the stable ID.

The algorithm, exactly (all arithmetic modulo 2**64):

1. ``key`` = the stable ID as text (``str(id)``), encoded as UTF-8.
2. ``seed`` = 64-bit FNV-1a of ``key``: start at ``0xcbf29ce484222325``; for
   every byte ``b``: ``h = (h XOR b) * 0x100000001b3``.
3. A splitmix64 generator with state ``seed``: each draw adds
   ``0x9E3779B97F4A7C15`` to the state, then mixes
   ``z = (z XOR z >> 30) * 0xBF58476D1CE4E5B9``,
   ``z = (z XOR z >> 27) * 0x94D049BB133111EB``, ``z XOR z >> 31``.
4. Fisher-Yates from the back: for ``i = len - 1 .. 1``: ``j = draw() mod (i + 1)``,
   swap items ``i`` and ``j``.

The configured values are first converted to ticks (``Ms`` values:
``floor(ms * tickRate / 1000 + 0.5)``) and clamped to at least one tick (and
at most 2**31 - 1, the int32 timers). The
order does not depend on anything but the ID and the values, so every server
and every replay shuffles alike.

>>> fnv1a64(b"")
14695981039346656037
>>> retry_sequence("npc_1") != retry_sequence("npc_2")
True
>>> sorted(retry_sequence("npc_1"))
[2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import ConfigError
from .constants import DEFAULT_RETRY_COOLDOWN_TICKS
from .schema import CHARACTER, MAX_INT32, check_field

__all__ = [
    "fnv1a64", "splitmix64", "shuffle_for_id", "retry_sequence", "ms_to_ticks", "clamp_ticks",
    "configured_sequence",
]

_MASK = (1 << 64) - 1
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


def fnv1a64(data: bytes) -> int:
    """64-bit FNV-1a hash of ``data``."""
    h = _FNV_OFFSET
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & _MASK
    return h


def splitmix64(seed: int) -> Iterator[int]:
    """The splitmix64 stream from ``seed`` (infinite iterator of 64-bit ints)."""
    state = seed & _MASK
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        yield z ^ (z >> 31)


def shuffle_for_id(values: Sequence[int], stable_id: object) -> list[int]:
    """``values`` in the order the module docstring defines for ``stable_id``."""
    out = list(values)
    rng = splitmix64(fnv1a64(str(stable_id).encode("utf-8")))
    for i in range(len(out) - 1, 0, -1):
        j = next(rng) % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def clamp_ticks(values: Sequence[float]) -> list[int]:
    """Cooldowns in ticks rounded half up and clamped to 1 .. 2**31 - 1 (the int32 timers)."""
    return [min(MAX_INT32, max(1, int(math.floor(float(v) + 0.5)))) for v in values]


def ms_to_ticks(values_ms: Sequence[float], tick_rate: float) -> list[int]:
    """Cooldowns in milliseconds -> ticks at ``tick_rate`` Hz, clamped like :func:`clamp_ticks`."""
    return clamp_ticks([float(v) * tick_rate / 1000.0 for v in values_ms])


def retry_sequence(stable_id: object, ticks: Sequence[float] | None = None) -> list[int]:
    """The shuffled cooldown sequence of a character (default values 2-11 ticks)."""
    base = clamp_ticks(DEFAULT_RETRY_COOLDOWN_TICKS if ticks is None else ticks)
    return shuffle_for_id(base, stable_id)


def configured_sequence(stable_id: object, *, ticks: Any = None, ms: Any = None,
                        explicit: Any = None, tick_rate: float) -> list[int]:
    """A character's cooldown sequence from its configuration (at most one source).

    ``ticks`` (``navigationRetryCooldownTicks``) and ``ms``
    (``navigationRetryCooldownMs``) are ten numbers, converted, clamped and
    shuffled from the ID; ``explicit`` (``retryCooldownSequence``, a saved
    state) is the already-shuffled sequence in ticks. None of them: the
    default 2-11 ticks. Raises ConfigError naming the offending key.
    """
    given = [n for n, v in (("navigationRetryCooldownTicks", ticks),
                            ("navigationRetryCooldownMs", ms),
                            ("retryCooldownSequence", explicit)) if v is not None]
    if len(given) > 1:
        raise ConfigError(f"give at most one of {', '.join(given)}", field=given[1])
    if not given:
        return shuffle_for_id(clamp_ticks(DEFAULT_RETRY_COOLDOWN_TICKS), stable_id)
    name = given[0]
    raw = ticks if ticks is not None else ms if ms is not None else explicit
    if isinstance(raw, np.ndarray):
        raw = raw.tolist()
    vals = check_field(CHARACTER, name, raw)  # numbers (ticks, ms) or integers >= 1 (a sequence)
    if explicit is not None:
        return list(vals)
    base = ms_to_ticks(vals, tick_rate) if ms is not None else clamp_ticks(vals)
    return shuffle_for_id(base, stable_id)

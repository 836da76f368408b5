"""What the viewer's server and page agree on: request limits, frame pacing, value encodings,
and how JSON from a client is read (:func:`loads`, :func:`is_number`, :func:`is_int`).

Shared by the state modules (:mod:`.map_state`, :mod:`.playback`, :mod:`.replay`)
and the endpoints (:mod:`.api`); nothing here holds state.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeGuard

import numpy as np

from ..query.overlay import MAX_COORD

__all__ = [
    "LIMITS",
    "MAX_COORD",
    "MAX_INT",
    "LongInt",
    "loads",
    "is_number",
    "is_int",
    "show",
    "MAX_FRAME_RATE",
    "EVENT_KEEP",
    "STATE_CODES",
    "round4",
    "round_vel",
    "finite_or_none",
    "json_default",
]

#: Limits on what a client may ask for (also sent to the page in ``/api/info``).
LIMITS: dict[str, Any] = {
    "bodyBytes": 1 << 20,  # JSON requests
    "replayBytes": 64 << 20,  # replay uploads
    "headBytes": 16 << 10,  # a request's line and headers
    "headSeconds": 5.0,  # to send a request head (from connecting, or since the last answer)
    "bodySeconds": 30.0,  # to send a request body
    "connections": 512,  # open at once (one more closes the longest idle)
    "polygonPoints": 64,
    "viewerObstacles": 1000,
    "stepTicks": 1000,
    "minSpeed": 0.05,
    "maxSpeed": 64.0,
    "nameLength": 128,
    "wsClients": 32,
    "wsMessageBytes": 64 << 10,
    "jsonDepth": 32,  # nesting of arrays and objects in a JSON body or replay line
    "intDigits": 20,  # a longer JSON integer is refused by the field it is in
}

#: The largest integer (tick, character ID) the page's numbers hold exactly: 2**53.
MAX_INT = 1 << 53

#: Frames sent to the page at most this often while the simulation plays.
MAX_FRAME_RATE = 60.0

#: Events of each kind (arrivals, retries, ...) kept per frame.
EVENT_KEEP = 200

#: One letter per character state, in the frame's ``state`` string.
STATE_CODES = {
    "walking": "w",
    "blocked": "b",
    "waiting": "r",
    "idle": "i",
    "off": "x",
}


def round4(v: float) -> float:
    """A coordinate as the page gets it: rounded to 4 decimals (0.1 mm)."""
    return round(float(v), 4)


def round_vel(vel: np.ndarray) -> list[float]:
    """Velocities (n, 2), m/s, as the page gets them: flat ``[vx0, vz0, vx1, ...]``,
    rounded to 3 decimals (1 mm/s), non-finite values as 0."""
    flat = np.round(np.nan_to_num(np.asarray(vel, dtype=np.float64).ravel(),
                                  nan=0.0, posinf=0.0, neginf=0.0), 3) + 0.0  # no -0.0
    out: list[float] = flat.tolist()
    return out


def finite_or_none(v: float) -> float | None:
    """``v`` as a float, or None (JSON ``null``) when it is not finite."""
    return float(v) if math.isfinite(v) else None


def json_default(v: Any) -> Any:
    """``json.dumps`` fallback: numpy scalars and arrays as plain values, a
    non-finite float as None, anything else as its ``str``."""
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return str(v)


# ------------------------------------------------------------ client JSON
class LongInt:
    """A JSON integer of more than ``LIMITS["intDigits"]`` digits, which no field takes.

    :func:`loads` returns it in place of a Python int (which could overflow a
    float, or take long to parse), so that the check of the field it is in
    refuses it by name.
    """

    __slots__ = ("digits",)

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"<a {self.digits}-digit integer>"


def _parse_int(text: str) -> int | LongInt:
    return int(text) if len(text.lstrip("-")) <= LIMITS["intDigits"] else LongInt(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON: {name} is not allowed")


_ESCAPE = re.compile(r"\\.", re.S)
_STRING = re.compile(r'"[^"]*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")


def nests_deeper(text: str, limit: int) -> bool:
    """Whether JSON ``text`` nests arrays and objects more than ``limit`` deep (brackets
    inside strings do not count). Linear in the text, no recursion."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", _ESCAPE.sub("", text)))
    for _ in range(limit):  # each pass removes the innermost level
        brackets, n = _EMPTY_PAIR.subn("", brackets)
        if not brackets or n == 0:  # done, or unbalanced (json.loads will say so)
            return False
    return bool(brackets)


def loads(text: str) -> Any:
    """Parse JSON from a client. Raises ValueError, with a message for the client, when
    it is not JSON, nests deeper than ``LIMITS["jsonDepth"]`` or holds ``NaN`` or
    ``Infinity``; an integer of more than ``LIMITS["intDigits"]`` digits comes back as
    a :class:`LongInt`. Floats past the float range come back infinite (see
    :func:`is_number`)."""
    depth = LIMITS["jsonDepth"]
    if nests_deeper(text, depth):
        raise ValueError(f"JSON nested deeper than {depth} levels")
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ValueError(f"invalid JSON: {e.msg} (column {e.colno})") from None
    except RecursionError:  # not reached below the depth limit; kept as a guard
        raise ValueError("JSON nested too deeply") from None


def is_number(v: Any, limit: float = math.inf) -> TypeGuard[int | float]:
    """A finite JSON number (not a boolean, not a :class:`LongInt`) of magnitude at most
    ``limit``."""
    return (not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
            and abs(v) <= limit)


def is_int(v: Any, lo: int, hi: int) -> TypeGuard[int]:
    """A JSON integer (not a boolean) in ``[lo, hi]``."""
    return not isinstance(v, bool) and isinstance(v, int) and lo <= v <= hi


def show(v: Any) -> str:
    """``repr(v)`` cut to 80 characters, for error messages."""
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."

"""What the viewer's server and page agree on: request limits, frame pacing, value encodings.

Shared by the state modules (:mod:`.mapview`, :mod:`.playback`, :mod:`.replay`)
and the endpoints (:mod:`.api`); nothing here holds state.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "LIMITS",
    "MAX_FRAME_RATE",
    "EVENT_KEEP",
    "STATE_CODES",
    "round4",
    "finite_or_none",
    "json_default",
]

#: Limits on what a client may ask for (also sent to the page in ``/api/info``).
LIMITS: dict[str, Any] = {
    "bodyBytes": 1 << 20,  # JSON requests
    "replayBytes": 64 << 20,  # replay uploads
    "polygonPoints": 64,
    "viewerObstacles": 1000,
    "stepTicks": 1000,
    "minSpeed": 0.05,
    "maxSpeed": 64.0,
    "nameLength": 128,
    "wsClients": 32,
    "wsMessageBytes": 64 << 10,
}

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

"""Replay recording: one JSON line per tick (``navkit sim --record REPLAY.jsonl``).

The first line is a header::

    {"type": "header", "format": "navkit-replay/1", "tickRate": 20.0, "startTick": 0,
     "ids": [...], "kinds": [...], "movementContactRadius": [...]}

then one line per tick, after the tick ran::

    {"type": "tick", "tick": 17, "positions": [[x, z], ...], "animation": "0110...",
     "events": {...}}

``positions`` are exact (shortest round-trip floats) in the header's ``ids``
order (stable-ID order), so two replays of a deterministic run compare equal
line by line; ``animation`` has one digit per character (0 STAND, 1 WALK);
``events`` is :meth:`TickEvents.to_json_dict`. A character added mid-run
starts a new header line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from .events import TickEvents
from .location import Location
from .snapshot import file_path, parse_json, read_error

__all__ = ["ReplayWriter", "read_replay", "REPLAY_FORMAT"]

REPLAY_FORMAT = "navkit-replay/1"


class ReplayWriter:
    """Append a location's ticks to a JSON-lines file (use as a context manager)."""

    def __init__(self, path: str | Path, location: Location):
        self.path = Path(path)
        if not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._loc = location
        self._fh: IO[str] | None = self.path.open("w", encoding="utf-8")
        self._ids: list[Any] = []
        self._header()

    def _header(self) -> None:
        loc = self._loc
        self._ids = loc.ids
        self._write({
            "type": "header", "format": REPLAY_FORMAT, "tickRate": loc.tick_rate,
            "startTick": loc.tick,
            "ids": self._ids, "kinds": [c.kind.value for c in loc.characters],
            "movementContactRadius": [float(r) for r in loc.contact_radii()],
        })

    def _write(self, obj: dict[str, Any]) -> None:
        if self._fh is None:
            raise ValueError("replay file is closed")
        self._fh.write(json.dumps(obj, allow_nan=False, separators=(",", ":")) + "\n")

    def record(self, events: TickEvents) -> None:
        """Write the state after the tick ``events`` describes."""
        loc = self._loc
        if loc.ids != self._ids:
            self._header()
        self._write({
            "type": "tick", "tick": events.tick,
            "positions": [[float(x), float(z)] for x, z in loc.positions()],
            "animation": "".join(str(int(v)) for v in loc.animations()),
            "events": events.to_json_dict(),
        })

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def read_replay(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a replay file, in order (headers and ticks); FormatError
    naming the file (and the line) when it cannot be read or a line is not JSON."""
    p = file_path(path)
    try:
        with p.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                line = line.strip()
                if line:
                    yield parse_json(line, p, n)
    except (OSError, UnicodeDecodeError) as e:
        raise read_error(e, p) from None

"""Replays: validate a ``navkit sim --record`` file (JSON lines) into what the page plays back.

>>> header = '{"type": "header", "format": "navkit-replay/1", "ids": ["a"]}'
>>> rep = parse_replay(header + '\\n{"type": "tick", "tick": 0, "positions": [[1.0, 2.5]]}')
>>> rep["frames"][0]["pos"], replay_summary(rep)["characters"]
([1.0, 2.5], 1)
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..errors import FormatError
from .protocol import EVENT_KEEP, round4

__all__ = ["parse_replay", "read_replay", "replay_summary"]


def _replay_error(line: int, message: str) -> FormatError:
    return FormatError(f"replay line {line}: {message}")


_KINDS = ("player", "bot", "npc")
_EVENT_KINDS = ("arrived", "blockedStops", "retries", "gaveUp", "interactions")


def _is_number(v: Any) -> bool:
    """A finite JSON number (not a boolean)."""
    return not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)


def _replay_ids(raw: Any, line: int) -> list[Any]:
    if not isinstance(raw, list):
        raise _replay_error(line, "'ids' must be a list")
    out = []
    for v in raw:
        string_id = isinstance(v, str) and v and len(v) <= 256
        if isinstance(v, bool) or not (string_id or isinstance(v, int) and v >= 0):
            raise _replay_error(
                line, f"a character ID must be a non-empty string or an integer >= 0, got {v!r}"
            )
        out.append(v)
    if len(set(map(repr, out))) != len(out):
        raise _replay_error(line, "'ids' repeats an ID")
    return out


def _replay_numbers(
    raw: Any, n: int, line: int, key: str, *, positive: bool = False
) -> list[float]:
    if not isinstance(raw, list) or len(raw) != n:
        raise _replay_error(line, f"'{key}' must be a list of {n} numbers")
    out = []
    for v in raw:
        if not _is_number(v) or (positive and v <= 0):
            expected = f"a finite number{' > 0' if positive else ''}"
            raise _replay_error(line, f"'{key}' holds {v!r}, expected {expected}")
        out.append(float(v))
    return out


def _header(rec: dict[str, Any], line: int) -> dict[str, Any]:
    """A header record as a segment: ids, kinds, contact radii, tick rate, start tick."""
    fmt = rec.get("format")
    if not isinstance(fmt, str) or not fmt.startswith("navkit-replay/"):
        raise _replay_error(line, f"unknown format {fmt!r}, expected 'navkit-replay/1'")
    ids = _replay_ids(rec.get("ids"), line)
    n = len(ids)
    kinds = rec.get("kinds", ["npc"] * n)
    if not isinstance(kinds, list) or len(kinds) != n or not all(k in _KINDS for k in kinds):
        raise _replay_error(line, f"'kinds' must list player, bot or npc for each of the {n} IDs")
    radii = _replay_numbers(rec.get("movementContactRadius", [0.32] * n), n, line,
                            "movementContactRadius", positive=True)
    rate = rec.get("tickRate", 20.0)
    if not _is_number(rate) or rate <= 0:
        raise _replay_error(line, f"'tickRate' must be a number > 0, got {rate!r}")
    start = rec.get("startTick", 0) if isinstance(rec.get("startTick"), int) else 0
    return {"ids": ids, "kinds": kinds, "radii": radii, "tickRate": float(rate),
            "startTick": start}


def _positions(raw: Any, n: int, line: int) -> list[float]:
    """``n`` points ``[x, z]`` as one flat list of rounded coordinates."""
    if not isinstance(raw, list) or len(raw) != n:
        raise _replay_error(line, f"'positions' must hold {n} points [x, z]")
    flat: list[float] = []
    for p in raw:
        if not isinstance(p, list) or len(p) != 2:
            raise _replay_error(line, f"a position must be [x, z], got {p!r}")
        for v in p:
            if not _is_number(v):
                raise _replay_error(line, f"a coordinate must be a finite number, got {v!r}")
            flat.append(round4(v))
    return flat


def _tick(rec: dict[str, Any], seg: dict[str, Any], last_tick: int, line: int) -> dict[str, Any]:
    """A tick record as a frame (its ``segment`` left for the caller)."""
    n = len(seg["ids"])
    tick = rec.get("tick")
    if isinstance(tick, bool) or not isinstance(tick, int) or tick < 0:
        raise _replay_error(line, f"'tick' must be an integer >= 0, got {tick!r}")
    if tick <= last_tick:
        raise _replay_error(line, f"tick {tick} does not follow tick {last_tick}")
    flat = _positions(rec.get("positions"), n, line)
    anim = rec.get("animation", "0" * n)
    if not isinstance(anim, str) or len(anim) != n or any(c not in "01" for c in anim):
        raise _replay_error(line, f"'animation' must be {n} digits 0/1")
    raw_ev = rec.get("events")
    ev: dict[str, Any] = raw_ev if isinstance(raw_ev, dict) else {}
    events = {k: ev[k][:EVENT_KEEP] for k in _EVENT_KINDS if isinstance(ev.get(k), list) and ev[k]}
    return {"tick": tick, "pos": flat, "anim": anim, "events": events}


def parse_replay(text: str, *, max_frames: int = 1_000_000) -> dict[str, Any]:
    """Validate a ``navkit sim --record`` replay (JSON lines) into the page's
    form: ``segments`` (one per header: ids, kinds, contact radii) and
    ``frames`` (tick, segment, flat positions ``[x0, z0, x1, z1, ...]``,
    animation digits, events). Raises :class:`~navkit.errors.FormatError`
    naming the line."""
    segments: list[dict[str, Any]] = []
    frames: list[dict[str, Any]] = []
    last_tick = -1
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise _replay_error(lineno, f"invalid JSON: {e.msg} (column {e.colno})") from None
        if not isinstance(rec, dict):
            raise _replay_error(lineno, f"expected a JSON object, got {type(rec).__name__}")
        kind = rec.get("type")
        if kind == "header":
            segments.append(_header(rec, lineno))
        elif kind == "tick":
            if not segments:
                raise _replay_error(lineno, "a tick line before the first header")
            f = _tick(rec, segments[-1], last_tick, lineno)
            last_tick = f["tick"]
            frames.append({"tick": f["tick"], "segment": len(segments) - 1, "pos": f["pos"],
                           "anim": f["anim"], "events": f["events"]})
            if len(frames) > max_frames:
                raise _replay_error(lineno, f"more than {max_frames} ticks")
        else:
            raise _replay_error(
                lineno, f"unknown record type {kind!r}, expected 'header' or 'tick'"
            )
    if not segments:
        raise FormatError("replay: no header line (is this a `navkit sim --record` file?)")
    return {
        "format": "navkit-replay/1",
        "segments": segments,
        "frames": frames,
        "firstTick": frames[0]["tick"] if frames else None,
        "lastTick": frames[-1]["tick"] if frames else None,
    }


def read_replay(path: str | Path) -> dict[str, Any]:
    """:func:`parse_replay` of a file; a FormatError names the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError(f"cannot read replay: {e}", path=p) from None
    try:
        return parse_replay(text)
    except FormatError as e:
        raise FormatError(str(e), path=p) from None


def replay_summary(replay: dict[str, Any] | None) -> dict[str, Any] | None:
    """What ``/api/info`` says about a parsed replay (None when none is loaded)."""
    if replay is None:
        return None
    return {
        "frames": len(replay["frames"]),
        "firstTick": replay["firstTick"],
        "lastTick": replay["lastTick"],
        "characters": max((len(s["ids"]) for s in replay["segments"]), default=0),
    }

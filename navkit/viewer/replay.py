"""Replays: validate a ``navkit sim --record`` file (JSON lines) into what the page plays back.

>>> header = '{"type": "header", "format": "navkit-replay/1", "ids": ["a"]}'
>>> rep = parse_replay(header + '\\n{"type": "tick", "tick": 0, "positions": [[1.0, 2.5]]}')
>>> rep["frames"][0]["pos"], replay_summary(rep)["characters"]
([1.0, 2.5], 1)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import FormatError
from .protocol import EVENT_KEEP, MAX_COORD, MAX_INT, is_int, is_number, loads, round4, show

__all__ = ["ReplayError", "parse_replay", "read_replay", "replay_summary"]


class ReplayError(FormatError):
    """A bad replay line: the message names the line, :attr:`field` the record's key."""

    def __init__(self, line: int, message: str, field: str | None = None):
        super().__init__(f"replay line {line}: {message}")
        self.line = line
        self.field = field


_KINDS = ("player", "bot", "npc")
_EVENT_KINDS = ("arrived", "blockedStops", "retries", "gaveUp", "interactions")
#: Replays faster than this many ticks a second are refused.
_MAX_TICK_RATE = 1e6



def _is_id(v: Any) -> bool:
    """A character ID: a non-empty string of at most 256 characters or an integer in
    ``[0, 2**53]``."""
    return isinstance(v, str) and 0 < len(v) <= 256 or is_int(v, 0, MAX_INT)


def _replay_ids(raw: Any, line: int) -> list[Any]:
    if not isinstance(raw, list):
        raise ReplayError(line, "'ids' must be a list", "ids")
    for v in raw:
        if not _is_id(v):
            raise ReplayError(
                line, f"a character ID must be a non-empty string or an integer in "
                      f"[0, {MAX_INT}], got {show(v)}", "ids")
    if len(set(map(repr, raw))) != len(raw):
        raise ReplayError(line, "'ids' repeats an ID", "ids")
    return list(raw)


def _replay_numbers(
    raw: Any, n: int, line: int, key: str, *, positive: bool = False
) -> list[float]:
    if not isinstance(raw, list) or len(raw) != n:
        raise ReplayError(line, f"'{key}' must be a list of {n} numbers", key)
    out = []
    for v in raw:
        if not is_number(v, MAX_COORD) or (positive and v <= 0):
            expected = f"a number{' > 0' if positive else ''} within +-{MAX_COORD:g}"
            raise ReplayError(line, f"'{key}' holds {show(v)}, expected {expected}", key)
        out.append(float(v))
    return out


def _header(rec: dict[str, Any], line: int) -> dict[str, Any]:
    """A header record as a segment: ids, kinds, contact radii, tick rate, start tick."""
    fmt = rec.get("format")
    if not isinstance(fmt, str) or not fmt.startswith("navkit-replay/"):
        raise ReplayError(line, f"unknown format {show(fmt)}, expected 'navkit-replay/1'",
                            "format")
    ids = _replay_ids(rec.get("ids"), line)
    n = len(ids)
    kinds = rec.get("kinds", ["npc"] * n)
    if not isinstance(kinds, list) or len(kinds) != n or not all(k in _KINDS for k in kinds):
        raise ReplayError(line, f"'kinds' must list player, bot or npc for each of the {n} IDs",
                            "kinds")
    radii = _replay_numbers(rec.get("movementContactRadius", [0.32] * n), n, line,
                            "movementContactRadius", positive=True)
    rate = rec.get("tickRate", 20.0)
    if not is_number(rate, _MAX_TICK_RATE) or rate <= 0:
        raise ReplayError(line, f"'tickRate' must be a number in (0, {_MAX_TICK_RATE:g}], "
                                  f"got {show(rate)}", "tickRate")
    start = rec.get("startTick", 0)
    if not is_int(start, 0, MAX_INT):
        raise ReplayError(line, f"'startTick' must be an integer in [0, {MAX_INT}], "
                                  f"got {show(start)}", "startTick")
    return {"ids": ids, "kinds": kinds, "radii": radii, "tickRate": float(rate),
            "startTick": start}


def _positions(raw: Any, n: int, line: int) -> list[float]:
    """``n`` points ``[x, z]`` as one flat list of rounded coordinates."""
    if not isinstance(raw, list) or len(raw) != n:
        raise ReplayError(line, f"'positions' must hold {n} points [x, z]", "positions")
    flat: list[float] = []
    for p in raw:
        if not isinstance(p, list) or len(p) != 2:
            raise ReplayError(line, f"a position must be [x, z], got {show(p)}", "positions")
        for v in p:
            if not is_number(v, MAX_COORD):
                raise ReplayError(line, f"a coordinate must be a number within "
                                          f"+-{MAX_COORD:g} m, got {show(v)}", "positions")
            flat.append(round4(v))
    return flat


def _events(raw: Any, line: int) -> dict[str, list[Any]]:
    """The kept events of a tick: lists of character IDs (``interactions``: of ID pairs)."""
    ev: dict[str, Any] = raw if isinstance(raw, dict) else {}
    out: dict[str, list[Any]] = {}
    for k in _EVENT_KINDS:
        items = ev.get(k)
        if not isinstance(items, list) or not items:
            continue
        items = items[:EVENT_KEEP]
        pair = k == "interactions"
        for v in items:
            ok = isinstance(v, list) and len(v) == 2 and all(map(_is_id, v)) if pair else _is_id(v)
            if not ok:
                what = "a pair of character IDs" if pair else "a character ID"
                raise ReplayError(line, f"'events.{k}' holds {show(v)}, expected {what}",
                                    "events")
        out[k] = items
    return out


def _tick(rec: dict[str, Any], seg: dict[str, Any], last_tick: int, line: int) -> dict[str, Any]:
    """A tick record as a frame (its ``segment`` left for the caller)."""
    n = len(seg["ids"])
    tick = rec.get("tick")
    if not is_int(tick, 0, MAX_INT):
        raise ReplayError(line, f"'tick' must be an integer in [0, {MAX_INT}], got {show(tick)}",
                            "tick")
    if tick <= last_tick:
        raise ReplayError(line, f"tick {tick} does not follow tick {last_tick}", "tick")
    flat = _positions(rec.get("positions"), n, line)
    anim = rec.get("animation", "0" * n)
    if not isinstance(anim, str) or len(anim) != n or any(c not in "01" for c in anim):
        raise ReplayError(line, f"'animation' must be {n} digits 0/1", "animation")
    return {"tick": tick, "pos": flat, "anim": anim, "events": _events(rec.get("events"), line)}


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
            rec = loads(line)
        except ValueError as e:
            raise ReplayError(lineno, str(e)) from None
        if not isinstance(rec, dict):
            raise ReplayError(lineno, f"expected a JSON object, got {type(rec).__name__}")
        kind = rec.get("type")
        if kind == "header":
            segments.append(_header(rec, lineno))
        elif kind == "tick":
            if not segments:
                raise ReplayError(lineno, "a tick line before the first header")
            f = _tick(rec, segments[-1], last_tick, lineno)
            last_tick = f["tick"]
            frames.append({"tick": f["tick"], "segment": len(segments) - 1, "pos": f["pos"],
                           "anim": f["anim"], "events": f["events"]})
            if len(frames) > max_frames:
                raise ReplayError(lineno, f"more than {max_frames} ticks")
        else:
            raise ReplayError(
                lineno, f"unknown record type {show(kind)}, expected 'header' or 'tick'", "type"
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

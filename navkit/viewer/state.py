"""What the viewer server holds: the map (or scene), the simulation loop, a loaded replay.

:class:`ViewerState` is the only place that changes anything. Every method
here expects validated arguments (see :mod:`navkit.viewer.api`) and is called
with :attr:`ViewerState.lock` held; the slow ones (searches, ticks) run on a
worker thread while the lock keeps everything else out.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, FormatError, NavkitError, QueryError
from ..query.navmap import NavMap
from ..results import Status
from .search import Searcher

__all__ = ["ViewerState", "load_target", "parse_replay", "LIMITS"]

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
_EVENT_KEEP = 200  # per list, per frame

# one letter per character state, in the frame's ``state`` string
STATE_CODES = {
    "walking": "w",
    "blocked": "b",
    "waiting": "r",
    "idle": "i",
    "off": "x",
}


def _finite_or_none(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _r4(v: float) -> float:
    return round(float(v), 4)


# ------------------------------------------------------------------ targets
def load_target(path: str | Path) -> tuple[str, NavMap, Any]:
    """Read what ``navkit view`` was given: ``("scene", nav, location)`` for a
    scene (a JSON object with ``navigation``), else ``("map", nav, None)``
    for any map :func:`navkit.load_grid` reads (a ``.json`` level keeps its
    areas and obstacles)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{str(p)!r} is not a file", field="target")
    if p.suffix.lower() == ".json":
        try:
            obj = json.loads(p.read_text(encoding="utf-8-sig"))
        except UnicodeDecodeError as e:
            raise FormatError(f"not UTF-8 text: {e.reason}", path=p) from None
        except json.JSONDecodeError as e:
            raise FormatError(f"invalid JSON: {e.msg} (column {e.colno})", path=p, line=e.lineno) from None
        if isinstance(obj, dict) and "navigation" in obj:
            from ..sim import load_scene

            loc = load_scene(p)
            return "scene", loc.map.nav, loc
    return "map", NavMap.load(p), None


# ------------------------------------------------------------------ replays
def _replay_error(line: int, message: str) -> FormatError:
    return FormatError(f"replay line {line}: {message}")


def _replay_ids(raw: Any, line: int) -> list[Any]:
    if not isinstance(raw, list):
        raise _replay_error(line, "'ids' must be a list")
    out = []
    for v in raw:
        if isinstance(v, bool) or not (isinstance(v, str) and v and len(v) <= 256 or isinstance(v, int) and v >= 0):
            raise _replay_error(line, f"a character ID must be a non-empty string or an integer >= 0, got {v!r}")
        out.append(v)
    if len(set(map(repr, out))) != len(out):
        raise _replay_error(line, "'ids' repeats an ID")
    return out


def _replay_numbers(raw: Any, n: int, line: int, key: str, *, positive: bool = False) -> list[float]:
    if not isinstance(raw, list) or len(raw) != n:
        raise _replay_error(line, f"'{key}' must be a list of {n} numbers")
    out = []
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or (positive and v <= 0):
            raise _replay_error(line, f"'{key}' holds {v!r}, expected a finite number{' > 0' if positive else ''}")
        out.append(float(v))
    return out


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
            fmt = rec.get("format")
            if not isinstance(fmt, str) or not fmt.startswith("navkit-replay/"):
                raise _replay_error(lineno, f"unknown format {fmt!r}, expected 'navkit-replay/1'")
            ids = _replay_ids(rec.get("ids"), lineno)
            n = len(ids)
            kinds = rec.get("kinds", ["npc"] * n)
            if not isinstance(kinds, list) or len(kinds) != n or not all(k in ("player", "bot", "npc") for k in kinds):
                raise _replay_error(lineno, f"'kinds' must list player, bot or npc for each of the {n} IDs")
            radii = _replay_numbers(rec.get("movementContactRadius", [0.32] * n), n, lineno,
                                    "movementContactRadius", positive=True)
            rate = rec.get("tickRate", 20.0)
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) or rate <= 0:
                raise _replay_error(lineno, f"'tickRate' must be a number > 0, got {rate!r}")
            segments.append({"ids": ids, "kinds": kinds, "radii": radii, "tickRate": float(rate),
                             "startTick": rec.get("startTick", 0) if isinstance(rec.get("startTick"), int) else 0})
        elif kind == "tick":
            if not segments:
                raise _replay_error(lineno, "a tick line before the first header")
            seg = segments[-1]
            n = len(seg["ids"])
            tick = rec.get("tick")
            if isinstance(tick, bool) or not isinstance(tick, int) or tick < 0:
                raise _replay_error(lineno, f"'tick' must be an integer >= 0, got {tick!r}")
            if tick <= last_tick:
                raise _replay_error(lineno, f"tick {tick} does not follow tick {last_tick}")
            last_tick = tick
            pos = rec.get("positions")
            if not isinstance(pos, list) or len(pos) != n:
                raise _replay_error(lineno, f"'positions' must hold {n} points [x, z]")
            flat: list[float] = []
            for p in pos:
                if not isinstance(p, list) or len(p) != 2:
                    raise _replay_error(lineno, f"a position must be [x, z], got {p!r}")
                for v in p:
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                        raise _replay_error(lineno, f"a coordinate must be a finite number, got {v!r}")
                    flat.append(_r4(v))
            anim = rec.get("animation", "0" * n)
            if not isinstance(anim, str) or len(anim) != n or any(c not in "01" for c in anim):
                raise _replay_error(lineno, f"'animation' must be {n} digits 0/1")
            raw_ev = rec.get("events")
            ev: dict[str, Any] = raw_ev if isinstance(raw_ev, dict) else {}
            events = {k: ev[k][:_EVENT_KEEP] for k in ("arrived", "blockedStops", "retries", "gaveUp", "interactions")
                      if isinstance(ev.get(k), list) and ev[k]}
            frames.append({"tick": tick, "segment": len(segments) - 1, "pos": flat, "anim": anim, "events": events})
            if len(frames) > max_frames:
                raise _replay_error(lineno, f"more than {max_frames} ticks")
        else:
            raise _replay_error(lineno, f"unknown record type {kind!r}, expected 'header' or 'tick'")
    if not segments:
        raise FormatError("replay: no header line (is this a `navkit sim --record` file?)")
    return {
        "format": "navkit-replay/1",
        "segments": segments,
        "frames": frames,
        "firstTick": frames[0]["tick"] if frames else None,
        "lastTick": frames[-1]["tick"] if frames else None,
    }


# ------------------------------------------------------------------- state
class ViewerState:
    """The map or scene a viewer shows, and everything clients may change."""

    def __init__(self, target: str | Path, *, replay: str | Path | None = None):
        self.target = Path(target)
        self.kind, self.nav, self.loc = load_target(self.target)
        self.name = self.target.name
        self.searcher = Searcher()
        self.lock = asyncio.Lock()
        self._grid_obstacles: dict[str, list[list[float]]] = {}  # added to a plain grid
        self._added: set[str] = set()
        self._next_obstacle = 1
        self._grid_cache: tuple[int, bytes, list[int]] | None = None
        # simulation
        self.playing = False
        self.speed = 1.0
        self.wake = asyncio.Event()
        self.clients: set[Any] = set()
        self._sent_paths: dict[Any, bytes] = {}
        self._sent_ids: list[Any] | None = None
        self._sim_task: asyncio.Task[None] | None = None
        self._pending_events: dict[str, list[Any]] = {}
        self.replay: dict[str, Any] | None = None
        if replay is not None:
            p = Path(replay)
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise FormatError(f"cannot read replay: {e}", path=p) from None
            try:
                self.replay = parse_replay(text)
            except FormatError as e:
                raise FormatError(str(e), path=p) from None

    # ------------------------------------------------------------ the map
    @property
    def version(self) -> int:
        return int(self.nav.version)

    def area_list(self) -> list[dict[str, Any]]:
        level = self.nav.level
        if level is None:
            return []
        return [
            {
                "name": a.name,
                "available": a.available,
                "weight": a.weight,
                "polygon": [list(p) for p in a.polygon],
                "holes": [[list(p) for p in h] for h in a.holes],
            }
            for a in level.config.areas
        ]

    def obstacle_list(self) -> list[dict[str, Any]]:
        level = self.nav.level
        if level is not None:
            return [{"name": o.name, "polygon": [list(p) for p in o.polygon], "added": o.name in self._added}
                    for o in level.config.obstacles]
        return [{"name": n, "polygon": poly, "added": True} for n, poly in self._grid_obstacles.items()]

    def grid_meta(self) -> dict[str, Any]:
        g = self.nav.grid
        return {
            "width": g.width,
            "depth": g.depth,
            "cellSize": g.cell_size,
            "minX": g.min_x,
            "minZ": g.min_z,
            "floorY": g.floor_y,
            "agentRadius": g.agent_radius,
            "weighted": g.is_weighted,
            "walkable": int(g.walkable.sum()),
        }

    def info(self) -> dict[str, Any]:
        pf = self.nav.pathfinder
        algos = self.searcher.algorithms(pf)
        default = next((a.name for a in algos if a.name == "astar" and a.available), algos[0].name)
        return {
            "kind": self.kind,
            "name": self.name,
            "version": self.version,
            "grid": self.grid_meta(),
            "costs": {"name": pf.costs.name, "card": pf.costs.card, "diag": pf.costs.diag},
            "algorithms": [a.to_json() for a in algos],
            "defaultAlgorithm": default,
            "areas": self.area_list(),
            "obstacles": self.obstacle_list(),
            "scene": self.sim_summary() if self.loc is not None else None,
            "replay": self.replay_summary(),
            "limits": LIMITS,
        }

    def grid_bytes(self) -> tuple[int, bytes, list[int]]:
        """``(version, codes, legend)``: one byte per cell in ``[z, x]`` order,
        0 blocked, ``k >= 1`` walkable with terrain weight ``legend[k - 1]``."""
        v = self.version
        if self._grid_cache is not None and self._grid_cache[0] == v:
            return self._grid_cache
        g = self.nav.grid
        walk = g.walkable
        codes = np.zeros(g.shape, dtype=np.uint8)
        if g.weights is None:
            codes[walk] = 1
            legend = [1]
        else:
            w = g.weights
            uniq = np.unique(w[walk]) if walk.any() else np.array([1], dtype=np.int32)
            if len(uniq) > 255:  # more weights than codes: 255 logarithmic bins
                edges = np.unique(np.geomspace(uniq[0], uniq[-1], 256).astype(np.int64))
                idx = np.clip(np.searchsorted(edges, w, side="right"), 1, len(edges)) - 1
                legend = [int(e) for e in edges[: int(idx.max()) + 1]]
            else:
                idx = np.searchsorted(uniq, w)
                legend = [int(u) for u in uniq]
            codes[walk] = (idx[walk] + 1).astype(np.uint8)
        self._grid_cache = (v, codes.tobytes(), legend)
        return self._grid_cache

    # ------------------------------------------------------------- queries
    def find_path(self, start: tuple[int, int], goal: tuple[int, int], algorithm: str) -> dict[str, Any]:
        pf = self.nav.pathfinder
        out = self.searcher.run(pf, start, goal, algorithm)
        res = out.result
        heat = _encode_heat(out.costs, pf.costs.card)
        return {
            "status": res.status.name,
            "found": res.found,
            "hasPath": res.has_path,
            "nearest": res.status == Status.NEAREST,
            "start": list(start),
            "goal": list(goal),
            "endCell": None if res.end_cell is None else list(res.end_cell),
            "cells": np.asarray(res.cells).tolist(),
            "smoothed": out.smoothed.tolist(),
            "waypoints": [[_r4(x), _r4(z)] for x, z in np.asarray(res.waypoints)],
            "cost": _finite_or_none(res.cost),
            "costInt": int(res.cost_int),
            "expanded": int(res.expanded),
            "generated": int(res.generated),
            "timeMs": out.time_ms,
            "algorithm": out.algorithm,
            "resolvedAlgorithm": out.resolved,
            "heat": heat,
            "version": self.version,
            "extra": out.extra or {},
        }

    # ---------------------------------------------------------------- edits
    def set_area(self, name: str, available: bool) -> dict[str, Any]:
        changed = bool(self.nav.set_area_available(name, available))
        return {"name": name, "available": available, "changed": changed, "version": self.version}

    def new_obstacle_name(self) -> str:
        names = set(self.nav.obstacle_names)
        while f"viewer_{self._next_obstacle}" in names:
            self._next_obstacle += 1
        name = f"viewer_{self._next_obstacle}"
        self._next_obstacle += 1
        return name

    def add_obstacle(self, name: str, polygon: list[list[float]]) -> dict[str, Any]:
        if len(self._added) >= LIMITS["viewerObstacles"]:
            raise QueryError(f"at most {LIMITS['viewerObstacles']} obstacles may be added from the viewer")
        self.nav.add_obstacle(name, polygon)
        self._added.add(name)
        if self.nav.level is None:
            self._grid_obstacles[name] = [list(p) for p in polygon]
        return {"name": name, "version": self.version, "obstacles": self.obstacle_list()}

    def remove_obstacle(self, name: str) -> dict[str, Any]:
        self.nav.remove_obstacle(name)
        self._added.discard(name)
        self._grid_obstacles.pop(name, None)
        return {"name": name, "version": self.version, "obstacles": self.obstacle_list()}

    # ------------------------------------------------------------ simulation
    def sim_summary(self) -> dict[str, Any]:
        loc = self.loc
        assert loc is not None
        return {
            "tick": loc.tick,
            "tickRate": loc.tick_rate,
            "characters": len(loc),
            "playing": self.playing,
            "speed": self.speed,
            "stats": loc.stats.to_json_dict(),
        }

    @staticmethod
    def character_state(c: Any) -> str:
        if not (c.alive and c.enabled):
            return "off"
        if c.retry_ticks_left > 0:
            return "waiting"
        if c.movement_blocked_ticks > 0:
            return "blocked"
        if c.is_moving():
            return "walking"
        return "idle"

    def find_character(self, raw: str) -> Any:
        """The character whose ID prints as ``raw`` (string IDs first, then integers)."""
        loc = self.loc
        assert loc is not None
        if raw in loc:
            return loc.character(raw)
        if raw.isdigit() and len(raw) < 19 and int(raw) in loc:
            return loc.character(int(raw))
        raise QueryError(f"no character with ID {raw!r}")

    def frame(self, *, full: bool = False) -> dict[str, Any]:
        """The page's view of the simulation now. Paths are sent only when
        they changed since the last frame (all of them when ``full``)."""
        loc = self.loc
        assert loc is not None
        chars = loc.characters
        ids = loc.ids
        out: dict[str, Any] = {
            "type": "frame",
            "tick": loc.tick,
            "playing": self.playing,
            "speed": self.speed,
            "version": self.version,
            "stats": loc.stats.to_json_dict(),
        }
        if full or ids != self._sent_ids:
            full = True
            self._sent_ids = list(ids)
            self._sent_paths = {}
            out["ids"] = ids
            out["kinds"] = [c.kind.value for c in chars]
            out["radii"] = [float(r) for r in loc.contact_radii()]
        pos = loc.positions()
        out["pos"] = [_r4(v) for v in pos.ravel()]
        out["facing"] = [round(c.facing, 3) for c in chars]
        out["state"] = "".join(STATE_CODES[self.character_state(c)] for c in chars)
        out["wp"] = [c.current_waypoint_index for c in chars]
        paths: dict[str, list[list[float]]] = {}
        for i, c in enumerate(chars):
            wp = c.path_waypoints
            sig = wp.tobytes()
            if self._sent_paths.get(c.id) != sig:
                self._sent_paths[c.id] = sig
                paths[str(i)] = [[_r4(x), _r4(z)] for x, z in wp]
        out["paths"] = paths
        out["full"] = full
        out["events"] = self._pending_events
        self._pending_events = {}
        return out

    def _collect(self, ev: Any) -> None:
        pe = self._pending_events
        for key, vals in (("arrived", ev.arrived), ("blockedStops", ev.blocked_stops), ("retries", ev.retries),
                          ("gaveUp", ev.gave_up), ("interactions", [list(p) for p in ev.interactions])):
            if vals:
                lst = pe.setdefault(key, [])
                room = _EVENT_KEEP - len(lst)
                if room > 0:
                    lst.extend(vals[:room])

    def step(self, ticks: int) -> None:
        """Run ``ticks`` ticks (blocking; call on a worker thread)."""
        loc = self.loc
        assert loc is not None
        for _ in range(ticks):
            self._collect(loc.step())

    def reset(self) -> None:
        """Reload the scene file: tick 0, as the file says."""
        _, nav, loc = load_target(self.target)
        if loc is None:
            raise ConfigError("the target file is no longer a scene", field="target")
        self.nav, self.loc = nav, loc
        self._grid_cache = None
        self._added.clear()
        self._grid_obstacles.clear()
        self._sent_ids = None
        self._sent_paths = {}
        self._pending_events = {}
        self.playing = False
        self.searcher = Searcher()

    def character_detail(self, c: Any) -> dict[str, Any]:
        """Everything about one character: its public properties, and the full
        saved-state entry (seed 000 §7-§9 fields) when the scene can be saved."""
        d: dict[str, Any] = {
            "id": c.id,
            "kind": c.kind.value,
            "state": self.character_state(c),
            "position": list(c.position),
            "facing": c.facing,
            "walkSpeed": c.walk_speed,
            "rotationSpeed": c.rotation_speed,
            "navigationAvoidanceRadius": c.collision_radius,
            "movementContactRadius": c.contact_radius,
            "alive": c.alive,
            "enabled": c.enabled,
            "navigating": c.is_moving(),
            "following": c.follow_target,
            "pathWaypoints": c.path_waypoints.tolist(),
            "currentWaypointIndex": c.current_waypoint_index,
            "walkTarget": list(c.walk_target),
            "requestedWalkTarget": list(c.requested_walk_target),
            "movedLastTick": c.moved_last_tick,
            "movementBlockedTicks": c.movement_blocked_ticks,
            "animation": c.animation.name,
            "retryCooldownSequence": list(c.retry_cooldowns),
            "retryCooldownCursor": c.retry_cursor,
            "retryTicksLeft": c.retry_ticks_left,
        }
        try:
            from ..sim.scene import location_to_scene

            scene = location_to_scene(self.loc)
            for entry in scene.get("characters", []):
                if entry.get("id") == c.id:
                    for k, v in entry.items():
                        d.setdefault(k, v)
                    break
        except NavkitError:
            pass  # the map cannot be saved (e.g. a plain grid with added obstacles): properties only
        d["tick"] = self.loc.tick if self.loc is not None else None
        return json.loads(json.dumps(d, allow_nan=False, default=_json_default))

    def set_target(self, c: Any, point: tuple[float, float]) -> dict[str, Any]:
        accepted = bool(c.set_target(point))
        return {"id": c.id, "target": list(point), "accepted": accepted}

    # ------------------------------------------------------------- replays
    def replay_summary(self) -> dict[str, Any] | None:
        r = self.replay
        if r is None:
            return None
        return {"frames": len(r["frames"]), "firstTick": r["firstTick"], "lastTick": r["lastTick"],
                "characters": max((len(s["ids"]) for s in r["segments"]), default=0)}

    # ------------------------------------------------------------- the loop
    async def broadcast(self, message: dict[str, Any]) -> None:
        if not self.clients:
            return
        text = json.dumps(message, allow_nan=False, separators=(",", ":"))
        dead = []
        for ws in list(self.clients):
            try:
                await asyncio.wait_for(ws.send_text(text), timeout=2.0)
            except Exception:  # noqa: BLE001 - a gone client must not stop the loop
                dead.append(ws)
        for ws in dead:
            self.clients.discard(ws)

    async def run_loop(self, to_thread: Callable[..., Any] = asyncio.to_thread) -> None:
        """Advance the location while :attr:`playing`, at ``tick_rate * speed``
        ticks per second, sending one frame per batch of ticks (at most
        :data:`MAX_FRAME_RATE` frames a second)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        while True:
            if not self.playing:
                self.wake.clear()
                await self.wake.wait()
                deadline = loop.time()
                continue
            async with self.lock:
                if not self.playing or self.loc is None:
                    continue
                rate = self.loc.tick_rate * self.speed
                batch = max(1, int(math.ceil(rate / MAX_FRAME_RATE)))
                try:
                    await to_thread(self.step, batch)
                except Exception as e:  # noqa: BLE001 - a failing tick pauses, it does not kill the loop
                    self.playing = False
                    frame = {"type": "error", "message": f"tick {self.loc.tick} failed: {type(e).__name__}: {e}"}
                else:
                    frame = self.frame()
            await self.broadcast(frame)
            deadline += batch / rate
            now = loop.time()
            if deadline < now - 0.25:  # fell behind: do not try to catch up in a burst
                deadline = now
            await asyncio.sleep(max(0.0, deadline - now))

    def start(self) -> None:
        """Bind the lock to the running event loop and start the simulation loop (scenes)."""
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        if self.loc is not None and self._sim_task is None:
            self._sim_task = asyncio.get_running_loop().create_task(self.run_loop())

    async def stop(self) -> None:
        task, self._sim_task = self._sim_task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass

    def warm_up(self) -> None:
        """Load the search (and simulation) kernels before the first click."""
        pf = self.nav.pathfinder
        walk = np.argwhere(self.nav.grid.walkable)
        if len(walk):
            z, x = (int(v) for v in walk[0])
            pf.find_path_cells((x, z), (x, z))
        if self.loc is not None:
            try:
                from ..sim import warm_up
            except ImportError:
                return
            warm_up()


def _json_default(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return str(v)


def _encode_heat(costs: NDArray[np.int64] | None, card: int) -> dict[str, Any] | None:
    """Expanded cells as a compact heat map: the bounding box of the cells
    with a cost, one byte each (0: not expanded, 1..255: cost scaled to the
    largest), base64."""
    if costs is None:
        return None
    mask = costs >= 0
    if not mask.any():
        return {"x0": 0, "z0": 0, "w": 0, "h": 0, "count": 0, "maxCost": 0.0, "data": ""}
    zs = np.flatnonzero(mask.any(axis=1))
    xs = np.flatnonzero(mask.any(axis=0))
    z0, z1, x0, x1 = int(zs[0]), int(zs[-1]) + 1, int(xs[0]), int(xs[-1]) + 1
    box = costs[z0:z1, x0:x1]
    m = box >= 0
    top = int(box[m].max())
    out = np.zeros(box.shape, dtype=np.uint8)
    if top > 0:
        out[m] = 1 + np.floor(box[m] / top * 254.0).astype(np.uint8)
    else:
        out[m] = 1
    return {
        "x0": x0, "z0": z0, "w": x1 - x0, "h": z1 - z0, "count": int(m.sum()),
        "maxCost": top / card, "data": base64.b64encode(out.tobytes()).decode("ascii"),
    }

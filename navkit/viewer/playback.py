"""A scene's live simulation as the viewer plays it: play and pause, speed,
stepping, the frames sent to the page, and the characters it inspects and steers.

Called by :class:`~navkit.viewer.state.ViewerState` (which runs the loop that
advances it) with its lock held; arguments are validated first (see
:mod:`navkit.viewer.api`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..errors import NavkitError, QueryError
from .protocol import EVENT_KEEP, STATE_CODES, json_default, round4, round_vel

__all__ = ["Playback", "avoidance_mode"]


def avoidance_mode(loc: Any) -> str:
    """``loc``'s local avoidance mode; ``"none"`` for a simulation without one."""
    mode = getattr(loc, "avoidance", "none")
    return mode if isinstance(mode, str) else "none"


def _rows(a: np.ndarray, ids_a: list[Any], ids: list[Any], missing: np.ndarray) -> np.ndarray:
    """``a`` (n_a, 2), rows in ``ids_a`` order, re-ordered to ``ids``: a character
    not in ``ids_a`` gets its row of ``missing`` (len(ids), 2)."""
    if ids == ids_a:
        return a
    row = {cid: i for i, cid in enumerate(ids_a)}
    out = np.array(missing, dtype=np.float64)
    for i, cid in enumerate(ids):
        j = row.get(cid)
        if j is not None:
            out[i] = a[j]
    return out


class Playback:
    """The simulation of one scene (a :class:`navkit.sim.Location`) for the page.

    :attr:`playing` and :attr:`speed` say whether and how fast the server's
    loop advances it (ticks per second = tick rate x speed). Frames carry a
    character's path only when it changed since the last frame, and every
    character's velocity over the last tick (``vel``, m/s: its position change
    over that tick times the tick rate; before the first tick played here, the
    saved ``velocity`` of a scene with avoidance on, else 0).
    """

    def __init__(self, loc: Any) -> None:
        self.speed = 1.0
        self.load(loc)

    def load(self, loc: Any) -> None:
        """Play ``loc`` instead (paused; the speed stays): the next frame is a full one."""
        self.loc = loc
        self.playing = False
        self._sent_paths: dict[Any, bytes] = {}
        self._sent_ids: list[Any] | None = None
        self._pending_events: dict[str, list[Any]] = {}
        self._vel = self._initial_velocities(loc)
        self._vel_ids: list[Any] = list(loc.ids)

    @staticmethod
    def _initial_velocities(loc: Any) -> np.ndarray:
        """Velocities (n, 2), m/s, before any tick: the state's with avoidance on
        (it keeps them, saved scenes included), else zeros."""
        n = len(loc)
        if avoidance_mode(loc) != "none":
            vel = getattr(getattr(loc, "state", None), "vel", None)
            if isinstance(vel, np.ndarray) and vel.shape == (n, 2):
                return np.array(vel, dtype=np.float64)
        return np.zeros((n, 2))

    @property
    def avoidance(self) -> str:
        """The scene's local avoidance mode (``"none"`` or ``"orca"``; ``"none"`` when
        this navkit's simulation has no avoidance)."""
        return avoidance_mode(self.loc)

    @property
    def version(self) -> int:
        """The version of the map the scene runs on."""
        return int(self.loc.map.nav.version)

    def summary(self) -> dict[str, Any]:
        loc = self.loc
        return {
            "tick": loc.tick,
            "tickRate": loc.tick_rate,
            "characters": len(loc),
            "playing": self.playing,
            "speed": self.speed,
            "stats": loc.stats.to_json_dict(),
        }

    def scene_info(self) -> dict[str, Any]:
        """The scene in ``GET /api/info``: :meth:`summary` and the avoidance mode."""
        return {**self.summary(), "avoidance": self.avoidance}

    # ------------------------------------------------------------ stepping
    def step(self, ticks: int) -> None:
        """Run ``ticks`` ticks (blocking; call on a worker thread). The velocities
        become those over the last of them."""
        if ticks <= 0:
            return
        loc = self.loc
        for _ in range(ticks - 1):
            self._collect(loc.step())
        ids0, pos0 = list(loc.ids), loc.positions()
        self._collect(loc.step())
        self._vel = self._velocities(ids0, pos0)
        self._vel_ids = list(loc.ids)

    def _velocities(self, ids0: list[Any], pos0: np.ndarray) -> np.ndarray:
        """(n, 2) m/s: each character's position change since ``pos0`` (taken one
        tick ago, rows in ``ids0`` order) times the tick rate; 0 for a character
        that was not there."""
        loc = self.loc
        ids, pos = loc.ids, loc.positions()
        return (pos - _rows(pos0, ids0, ids, pos)) * float(loc.tick_rate)

    def velocities(self) -> np.ndarray:
        """Copy of every character's velocity over the last tick, shape (n, 2), m/s,
        slot order (as :meth:`navkit.sim.Location.positions`)."""
        ids = self.loc.ids
        if ids != self._vel_ids:  # characters added outside a tick: they stand
            self._vel = _rows(self._vel, self._vel_ids, ids, np.zeros((len(ids), 2)))
            self._vel_ids = list(ids)
        return self._vel.copy()

    def _collect(self, ev: Any) -> None:
        pe = self._pending_events
        for key, vals in (
            ("arrived", ev.arrived),
            ("blockedStops", ev.blocked_stops),
            ("retries", ev.retries),
            ("gaveUp", ev.gave_up),
            ("interactions", [list(p) for p in ev.interactions]),
        ):
            if vals:
                lst = pe.setdefault(key, [])
                room = EVENT_KEEP - len(lst)
                if room > 0:
                    lst.extend(vals[:room])

    def frame(self, *, full: bool = False) -> dict[str, Any]:
        """The page's view of the simulation now. Paths are sent only when
        they changed since the last frame (all of them when ``full``)."""
        loc = self.loc
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
            out["avoidRadii"] = [float(c.collision_radius) for c in chars]
            out["avoidance"] = self.avoidance
        pos = loc.positions()
        out["pos"] = [round4(v) for v in pos.ravel()]
        out["vel"] = round_vel(self.velocities())
        out["facing"] = [round(c.facing, 3) for c in chars]
        out["state"] = "".join(STATE_CODES[self.character_state(c)] for c in chars)
        out["wp"] = [c.current_waypoint_index for c in chars]
        paths: dict[str, list[list[float]]] = {}
        for i, c in enumerate(chars):
            wp = c.path_waypoints
            sig = wp.tobytes()
            if self._sent_paths.get(c.id) != sig:
                self._sent_paths[c.id] = sig
                paths[str(i)] = [[round4(x), round4(z)] for x, z in wp]
        out["paths"] = paths
        out["full"] = full
        out["events"] = self._pending_events
        self._pending_events = {}
        return out

    # ----------------------------------------------------------- characters
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
        if raw in loc:
            return loc.character(raw)
        if raw.isdigit() and len(raw) < 19 and int(raw) in loc:
            return loc.character(int(raw))
        raise QueryError(f"no character with ID {raw!r}")

    def character_detail(self, c: Any) -> dict[str, Any]:
        """Everything about one character: its public properties, and the full
        saved-state entry (docs/rules.md §12.5) when the scene can be saved."""
        d: dict[str, Any] = {
            "id": c.id,
            "kind": c.kind.value,
            "state": self.character_state(c),
            "position": list(c.position),
            "facing": c.facing,
            **self._motion(c),
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
            pass  # the map cannot be saved (a plain grid with added obstacles): properties only
        d["tick"] = self.loc.tick
        return json.loads(json.dumps(d, allow_nan=False, default=json_default))

    def _motion(self, c: Any) -> dict[str, Any]:
        """``velocity`` (m/s, over the last tick) and ``speed`` (its length) of ``c``."""
        i = self.loc.ids.index(c.id)
        vx, vz = (float(v) for v in self.velocities()[i])
        return {"velocity": [vx, vz], "speed": float(np.hypot(vx, vz))}

    def set_target(self, c: Any, point: tuple[float, float]) -> dict[str, Any]:
        accepted = bool(c.set_target(point))
        return {"id": c.id, "target": list(point), "accepted": accepted}

    @staticmethod
    def warm_up() -> None:
        """Load the simulation kernels before the first tick."""
        try:
            from ..sim import warm_up
        except ImportError:
            return
        warm_up()

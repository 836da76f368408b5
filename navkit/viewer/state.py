"""What the viewer server holds: the map (or scene), the simulation loop, a loaded replay.

:class:`ViewerState` owns the parts and the only lock: :attr:`~ViewerState.map`
(:class:`~navkit.viewer.map_state.MapState`: the grid, areas, obstacles, path
queries and edits; a building's floor shown), :attr:`~ViewerState.building`
(:class:`~navkit.viewer.floors.BuildingState`: floors, links, routes across
floors; buildings only), :attr:`~ViewerState.sim` (:class:`~navkit.viewer.playback.Playback`,
scenes only), :attr:`~ViewerState.crowd` (:class:`~navkit.viewer.crowdplay.CrowdPlayback`,
with ``--crowd``) and :attr:`~ViewerState.replay` (see :mod:`navkit.viewer.replay`).
Every method of the parts expects validated arguments (see
:mod:`navkit.viewer.api`) and is called with :attr:`ViewerState.lock` held;
the slow ones (searches, ticks) run on a worker thread while the lock keeps
everything else out.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..query.navmap import NavMap
from .crowdplay import CrowdPlayback, read_crowd
from .floors import BuildingState
from .map_state import MapState
from .playback import Playback
from .protocol import LIMITS, MAX_FRAME_RATE
from .replay import parse_replay, read_replay, replay_summary

__all__ = ["ViewerState", "load_target", "parse_replay", "LIMITS"]


# ------------------------------------------------------------------ targets
def load_target(path: str | Path) -> tuple[str, NavMap, Any]:
    """Read what ``navkit view`` was given: ``("scene", nav, location)`` for a
    scene (a JSON object with ``navigation``), ``("building", nav, floormap)`` for
    a building (a level with ``floors``: ``nav`` is its first floor, ``floormap``
    its :class:`~navkit.floors.FloorMap`), else ``("map", nav, None)`` for any map
    :func:`navkit.load_grid` reads (a ``.json`` level keeps its areas and obstacles)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{str(p)!r} is not a file", field="target")
    if p.suffix.lower() == ".json":
        from ..sim.snapshot import read_json  # deep nesting, huge integers: FormatError

        obj = read_json(p)
        if isinstance(obj, dict) and "navigation" in obj:
            from ..sim import load_scene

            loc = load_scene(p)
            return "scene", loc.map.backend, loc
        from ..floors.model import is_building

        if is_building(obj):
            from ..floors import FloorMap
            from ..floors.building import building_from_object

            fm = FloorMap(building_from_object(obj, source=str(p)), warm=False)
            return "building", NavMap(fm.building.levels[0]), fm
    if p.suffix.lower() in (".tmx", ".tmj"):
        return "map", _tiled_map(p), None
    return "map", NavMap.load(p), None


#: Prefix of the areas :func:`navkit.formats.tiled.read_tiled_level` makes of a Tiled
#: map's tiles (``tiles:<i>``, ``tiles:bounds``): machinery, not doors.
TILED_GENERATED_PREFIX = "tiles:"


def _tiled_map(p: Path) -> NavMap:
    """A Tiled map: a plain grid when it has no doors, else the door-aware level of
    :func:`~navkit.formats.tiled.read_tiled_level`, whose doors are areas that open and
    close like a JSON level's (its grid has a margin of 2 blocked cells)."""
    from ..formats import load_grid

    grid = load_grid(p)
    if not grid.meta.get("doors"):
        return NavMap(grid)
    from ..formats.tiled import read_tiled_level

    return NavMap(read_tiled_level(p))


def generated_areas(target: Path, nav: NavMap) -> frozenset[str]:
    """The areas of ``nav`` its reader made rather than the author: a Tiled map's tile
    rectangles (empty for anything else)."""
    level = nav.level
    if level is None or target.suffix.lower() not in (".tmx", ".tmj"):
        return frozenset()
    return frozenset(a.name for a in level.config.areas
                     if a.name.startswith(TILED_GENERATED_PREFIX))


# ------------------------------------------------------------------- state
class ViewerState:
    """The map or scene a viewer shows, and everything clients may change."""

    def __init__(self, target: str | Path, *, replay: str | Path | None = None,
                 crowd: str | Path | None = None):
        self.target = Path(target)
        self.kind, nav, loc = load_target(self.target)
        self.name = self.target.name
        #: The building (its floors, links, paths across floors), None for a map or scene.
        self.building: BuildingState | None = None
        self._map: MapState | None = None
        if self.kind == "building":
            self.building = BuildingState(loc)
            loc = None
        else:
            self._map = MapState(nav, generated=generated_areas(self.target, nav))
        self.sim: Playback | None = None if loc is None else Playback(loc)
        #: The free steering crowd of a crowd file, on the map's static grid (or None).
        self.crowd: CrowdPlayback | None = (None if crowd is None
                                            else CrowdPlayback(read_crowd(crowd), nav.grid))
        self.crowd_wake = asyncio.Event()  # set when the crowd starts playing
        self.replay: dict[str, Any] | None = None if replay is None else read_replay(replay)
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()  # set when the simulation starts playing
        self.clients: set[Any] = set()  # the connected WebSockets
        self._sim_task: asyncio.Task[None] | None = None
        self._crowd_task: asyncio.Task[None] | None = None

    @property
    def map(self) -> MapState:
        """The map shown (a building's: the floor shown)."""
        if self.building is not None:
            return self.building.map
        assert self._map is not None
        return self._map

    @property
    def nav(self) -> NavMap:
        """The map shown."""
        return self.map.nav

    @property
    def loc(self) -> Any:
        """The scene's location (a :class:`navkit.sim.Location`), None for a plain map."""
        return None if self.sim is None else self.sim.loc

    @property
    def version(self) -> int:
        return self.map.version

    def info(self) -> dict[str, Any]:
        """``GET /api/info``: what is shown, the map, the scene, the replay, the limits."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            **self.map.info(),
            "building": None if self.building is None else self.building.summary(),
            "scene": None if self.sim is None else self.sim.scene_info(),
            "crowd": None if self.crowd is None else self.crowd.summary(),
            "replay": replay_summary(self.replay),
            "limits": LIMITS,
        }
        if self.building is not None:
            out["edits"] = self.building.edits()
        return out

    def reset(self) -> None:
        """Reload the scene file: tick 0, as the file says (paused)."""
        _, nav, loc = load_target(self.target)
        if loc is None or self.sim is None:
            raise ConfigError("the target file is no longer a scene", field="target")
        self.map.load(nav)
        self.map.mark_clean()
        self.sim.load(loc)

    def reset_edits(self) -> dict[str, Any]:
        """Drop every edit clients made (doors, obstacles, circles, build parameters):
        read the target file again. For a scene this is :meth:`reset` (the simulation
        starts again at tick 0: its characters stand on the edited map)."""
        if self.sim is not None:
            self.reset()
            return {"version": self.version, "edits": self.map.edits(), "scene": True}
        kind, nav, fm = load_target(self.target)
        if self.building is not None:
            if kind != "building":
                raise ConfigError("the target file is no longer a building", field="target")
            self.building.load(fm)
            return {"version": self.version, "edits": self.building.edits(), "scene": False}
        self.map.generated = generated_areas(self.target, nav)
        return {**self.map.reset(nav), "scene": False}

    def warm_up(self) -> None:
        """Load the search (and simulation) kernels before the first click."""
        self.map.warm_up()
        if self.building is not None:
            self.building.warm_up()
        if self.sim is not None:
            self.sim.warm_up()
        if self.crowd is not None:  # the steering kernel, on a throwaway copy
            self.crowd.spec.build(self.crowd.grid).step(1.0 / self.crowd.tick_rate)

    # ------------------------------------------------------------- the loop
    async def broadcast(self, message: dict[str, Any]) -> None:
        """Send ``message`` to every connected page; drop the ones that are gone."""
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
        """Advance the location while the simulation plays, at ``tick_rate * speed``
        ticks per second, sending one frame per batch of ticks (at most
        :data:`~navkit.viewer.protocol.MAX_FRAME_RATE` frames a second)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        while True:
            sim = self.sim
            if sim is None or not sim.playing:
                self.wake.clear()
                await self.wake.wait()
                deadline = loop.time()
                continue
            async with self.lock:
                if not sim.playing:
                    continue
                rate = sim.loc.tick_rate * sim.speed
                batch = max(1, int(math.ceil(rate / MAX_FRAME_RATE)))
                try:
                    await to_thread(sim.step, batch)
                except Exception as e:  # noqa: BLE001 - a failing tick pauses, it does not kill the loop
                    sim.playing = False
                    message = f"tick {sim.loc.tick} failed: {type(e).__name__}: {e}"
                    frame = {"type": "error", "message": message}
                else:
                    frame = sim.frame()
            await self.broadcast(frame)
            deadline += batch / rate
            now = loop.time()
            if deadline < now - 0.25:  # fell behind: do not try to catch up in a burst
                deadline = now
            await asyncio.sleep(max(0.0, deadline - now))

    async def run_crowd_loop(self, to_thread: Callable[..., Any] = asyncio.to_thread) -> None:
        """Advance the crowd while it plays, as :meth:`run_loop` does the simulation
        (``{"type": "crowd"}`` frames)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        while True:
            crowd = self.crowd
            if crowd is None or not crowd.playing:
                self.crowd_wake.clear()
                await self.crowd_wake.wait()
                deadline = loop.time()
                continue
            async with self.lock:
                if not crowd.playing:
                    continue
                rate = crowd.tick_rate * crowd.speed
                batch = max(1, int(math.ceil(rate / MAX_FRAME_RATE)))
                try:
                    await to_thread(crowd.step, batch)
                except Exception as e:  # noqa: BLE001 - a failing tick pauses the crowd
                    crowd.playing = False
                    frame = {"type": "error", "message": f"crowd tick failed: {e}"}
                else:
                    frame = crowd.frame()
            await self.broadcast(frame)
            deadline += batch / rate
            now = loop.time()
            if deadline < now - 0.25:
                deadline = now
            await asyncio.sleep(max(0.0, deadline - now))

    def start(self) -> None:
        """Bind the lock to the running event loop and start the simulation loop
        (scenes) and the crowd loop (with a crowd)."""
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.crowd_wake = asyncio.Event()
        if self.sim is not None and self._sim_task is None:
            self._sim_task = asyncio.get_running_loop().create_task(self.run_loop())
        if self.crowd is not None and self._crowd_task is None:
            self._crowd_task = asyncio.get_running_loop().create_task(self.run_crowd_loop())

    async def stop(self) -> None:
        """Stop the simulation and crowd loops."""
        for name in ("_sim_task", "_crowd_task"):
            task = getattr(self, name)
            setattr(self, name, None)
            if task is not None:
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):  # noqa: BLE001
                    pass

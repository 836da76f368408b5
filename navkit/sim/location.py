"""A :class:`Location`: one navigation map, its characters, fixed ticks.

Every tick runs, in this order:

1. **Commands** scheduled for this tick (file order), then a map-change check:
   a new map version forces the replan of every affected character.
2. **Planning** (Python, centralized, stable-ID order): retry timers count
   down; each character whose retry is due, whose replan was forced, or
   whose follow order asked for a plan gets one
   :meth:`~navkit.sim.simmap.SimMap.find_path` query with its filtered
   obstacle snapshot (docs/rules.md §7.3).
3. **Movement** (one numba kernel, :func:`navkit._kernels.sim.tick`): path
   following, approach steps, the movement guard against stable-ID-ordered
   reservations, blocked-tick counting, stops and retry scheduling.
4. **Events** (Python, stable-ID order): arrivals, blocked stops,
   interactions; then the callbacks fire, in stable-ID order.

The state lives in structure-of-arrays numpy arrays indexed by slot
(:class:`~navkit.sim.state.SimState`); slots are ordered by stable ID
(integers first, numerically, then strings by code point), so every loop over
slots is a loop in stable-ID order.

:class:`Location` is the facade over the parts that do the work: the state
(:mod:`navkit.sim.state`), plans and map-change replans
(:class:`~navkit.sim.planner.Planner`), orders and event outcomes
(:class:`~navkit.sim.orders.Orders`), the movement kernel
(:class:`~navkit.sim.tick.MovementPhase`), timed commands
(:class:`~navkit.sim.commands.CommandQueue`) and the scene format
(:mod:`navkit.sim.snapshot`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..crowd.policy import check_policy
from ..errors import ConfigError, QueryError, shown
from . import snapshot, warming
from .avoidance import check_avoidance
from .character import Character
from .commands import Command, CommandQueue, parse_command
from .constants import (
    DEFAULT_COLLISION_RADIUS,
    DEFAULT_MOVEMENT_CONTACT_RADIUS,
    DEFAULT_ROTATION_SPEED,
    DEFAULT_TICK_RATE,
    DEFAULT_WALK_SPEED,
    REPATH_DELAY_S,
)
from .cooldowns import configured_sequence
from .events import SimStats, TickEvents
from .kinds import CharacterKind
from .orders import Orders
from .planner import Planner
from .schema import CHARACTER, SCENE, check_field, check_id
from .simmap import SimMap
from .state import SimState, as_point, id_sort_key
from .tick import MovementPhase
from .views import as_map_view

__all__ = ["Location", "id_sort_key"]


class Location:
    """A navigation map with characters that advance in fixed ticks.

    Parameters
    ----------
    navigation
        A :class:`~navkit.level.NavLevel`, a level config (dict or
        :class:`~navkit.level.LevelConfig`), a static
        :class:`~navkit.grid.NavGrid`, a ``NavMap``, a
        :class:`~navkit.mesh.navmesh.NavMesh`, a :class:`~navkit.world.world.World`
        or a :class:`~navkit.sim.simmap.SimMap`.
    tick_rate
        Ticks per second (default 20 Hz).
    map_path
        The file a static grid came from (lets :meth:`save` reference it).
    navigation_mode
        ``"grid"`` (default) plans on the level's grid; ``"mesh"`` builds a
        navigation mesh of it and plans there (:mod:`navkit.sim.mesh_view`;
        scene key ``navigationMode``). A NavMesh is always planned on as a mesh.
    avoidance
        ``"none"`` (default: characters wait and retry when they meet) or
        ``"orca"``: reciprocal velocity avoidance before the movement guard
        (docs/rules.md §9.6, :mod:`navkit.sim.avoidance`; scene key ``avoidance``).
    record
        A :class:`~navkit.corpus.QueryRecorder`, path or text file: log every
        plan to a query corpus (:meth:`record_queries`, docs/corpora.md).
    policy
        A :class:`~navkit.crowd.SteeringPolicy` every character added gets
        (``Character.set_policy`` changes one; scene key ``policy``;
        docs/simulation.md "Steering policies").
    warm
        True (default): load the kernels ticks will use now, while the
        location is built (with an empty numba cache they compile here, once
        per process: :mod:`navkit.sim.warming`), so no tick compiles. False
        leaves them to the first tick.

    >>> import numpy as np, navkit
    >>> grid = navkit.NavGrid(np.ones((10, 20), bool), cell_size=0.5, agent_radius=0.3)
    >>> loc = Location(grid)
    >>> a = loc.add_character("a", kind="npc", position=(1.25, 2.25), walk_speed=2.0)
    >>> a.set_target((8.25, 2.25))
    True
    >>> _ = loc.run(80)
    >>> [round(v, 3) for v in a.position], a.is_moving(), loc.stats.arrivals
    ([8.25, 2.25], False, 1)
    """

    def __init__(self, navigation: Any, *, tick_rate: float = DEFAULT_TICK_RATE,
                 map_path: str | Path | None = None, navigation_mode: str = "grid",
                 avoidance: str = "none", record: Any = None, policy: Any = None,
                 warm: bool = True):
        view = as_map_view(navigation, path=map_path, mode=navigation_mode)
        #: Whether this location loads its kernels before they are needed
        #: (:mod:`navkit.sim.warming`): at construction, on :meth:`set_map` and
        #: when a character gets a steering policy; never during a tick.
        self.warm = bool(warm)
        self._record: Any = None
        #: ``"none"`` or ``"orca"`` (docs/rules.md §9.6).
        self.avoidance: str = check_avoidance(avoidance)
        self.tick_rate: float = check_field(SCENE, "tickRate", tick_rate)
        self.dt = 1.0 / self.tick_rate
        #: Ticks a follow order waits between plans for a moving target (docs/rules.md §10.5: 2 s).
        self.repath_ticks = max(1, int(math.floor(REPATH_DELAY_S * self.tick_rate + 0.5)))
        self.tick = 0
        #: Called as ``on_interaction(actor, npc)`` for every interaction event.
        self.on_interaction: Callable[[Character, Character], Any] | None = None
        self._state = SimState()
        self._state.default_policy = check_policy(policy)
        self._planner = Planner(self._state, view, SimStats())
        self._orders = Orders(self._planner)
        self._movement = MovementPhase(self._state, self.avoidance)
        self._commands = CommandQueue()
        if record is not None:
            self.record_queries(record)
        self._warm_for(view)

    # ================================================================ parts
    @property
    def state(self) -> SimState:
        """The per-character arrays (slot order); see :class:`~navkit.sim.state.SimState`."""
        return self._state

    @property
    def orders(self) -> Orders:
        """The slot-level orders behind :class:`Character`'s commands."""
        return self._orders

    @property
    def map(self) -> SimMap:
        """The navigation map (assigning one is :meth:`set_map`)."""
        return self._planner.map

    @map.setter
    def map(self, navigation: Any) -> None:
        self.set_map(navigation)

    @property
    def stats(self) -> SimStats:
        """Counters over the location's life (saved with its state)."""
        return self._planner.stats

    @stats.setter
    def stats(self, value: SimStats) -> None:
        self._planner.stats = value

    # ============================================================ characters
    def __len__(self) -> int:
        return self._state.n

    def __contains__(self, stable_id: object) -> bool:
        return stable_id in self._state

    def __getitem__(self, stable_id: Any) -> Character:
        return self.character(stable_id)

    def __iter__(self) -> Iterator[Character]:
        return iter(self.characters)

    @property
    def ids(self) -> list[Any]:
        """Stable IDs in slot order."""
        return self._state.ids

    @property
    def characters(self) -> list[Character]:
        """Views of every character in stable-ID order."""
        return [Character(self, i) for i in self._state.ids]

    def character(self, stable_id: Any) -> Character:
        """The view of character ``stable_id`` (QueryError when unknown)."""
        self._state.slot_of(stable_id)
        return Character(self, stable_id)

    def add_character(
        self,
        stable_id: Any,
        *,
        kind: str | CharacterKind = CharacterKind.NPC,
        position: Any,
        walk_speed: float = DEFAULT_WALK_SPEED,
        rotation_speed: float = DEFAULT_ROTATION_SPEED,
        collision_radius: float = DEFAULT_COLLISION_RADIUS,
        contact_radius: float = DEFAULT_MOVEMENT_CONTACT_RADIUS,
        retry_cooldown_ticks: Any = None,
        retry_cooldown_ms: Any = None,
        retry_sequence: Any = None,
        facing: float = 0.0,
        alive: bool = True,
        enabled: bool = True,
    ) -> Character:
        """Add a character; it starts standing, with targets at its position.

        ``retry_cooldown_ticks`` / ``retry_cooldown_ms`` (ten values, at most
        one of them) replace the default 2-11 ticks; they are clamped to
        positive tick counts and shuffled from the ID. ``retry_sequence`` sets
        the already-shuffled sequence (restoring a state).
        """
        sid = check_id(stable_id, "id")
        if sid in self._state:
            raise ConfigError(f"a character with ID {sid!r} already exists", field="id")
        try:
            k = CharacterKind(kind)
        except ValueError:
            raise ConfigError(f"expected player, bot or npc, got {shown(kind)}",
                              field="kind") from None
        p = as_point(position, "position")
        v = {key: check_field(CHARACTER, key, value) for key, value in (
            ("walkSpeed", walk_speed), ("rotationSpeed", rotation_speed),
            ("navigationAvoidanceRadius", collision_radius),
            ("movementContactRadius", contact_radius), ("facing", facing), ("alive", alive),
            ("enabled", enabled))}
        seq = configured_sequence(sid, ticks=retry_cooldown_ticks, ms=retry_cooldown_ms,
                                  explicit=retry_sequence, tick_rate=self.tick_rate)
        ra = v["navigationAvoidanceRadius"]
        self._state.add(sid, pos=p, walk_target=p, requested=p, facing=v["facing"],
                        speed=v["walkSpeed"], rot=v["rotationSpeed"], ra=ra,
                        rc=v["movementContactRadius"], inflate=float(self.map.obstacle_radius(ra)),
                        kind=k.code, alive=v["alive"], enabled=v["enabled"], seq=seq)
        self._orders.check_standing(self._state.slot_of(sid))
        return Character(self, sid)

    # ============================================================== commands
    def schedule(self, command: Command | dict[str, Any]) -> None:
        """Add a timed command (a :class:`Command` or its JSON object).

        A command whose tick has passed runs at the start of the next tick.
        """
        if not isinstance(command, Command):
            a = self._state
            npcs = {a.id_of(s) for s in np.flatnonzero(a.kind == CharacterKind.NPC.code).tolist()}
            command = parse_command(command, f"commands[{len(self._commands)}]", set(a.ids), npcs)
        self._commands.add(command)

    @property
    def pending_commands(self) -> list[Command]:
        """Commands that have not run yet, in execution order."""
        return self._commands.pending

    def execute(self, cmd: Command) -> None:
        """Run one command now."""
        try:
            act = cmd.action
            if act == "moveTo":
                self.character(cmd.character).set_target(cmd.args["point"])
            elif act in ("follow", "talkTo"):
                talk = act == "talkTo"
                rng = None if talk else cmd.args["range"]
                self._orders.follow(self._state.slot_of(cmd.character), cmd.args["target"], rng,
                                    talk=talk, on_interact=None)
            elif act == "stop":
                self._orders.stop_in_place(self._state.slot_of(cmd.character))
            elif act == "setAreaAvailable":
                self.set_area_available(cmd.args["name"], cmd.args["available"])
            elif act == "addObstacle":
                self.add_obstacle(cmd.args["name"], cmd.args["polygon"])
            elif act == "removeObstacle":
                self.remove_obstacle(cmd.args["name"])
            else:  # pragma: no cover - parse_command rejects others
                raise ConfigError(f"unknown action {act!r}", field=cmd.field)
        except ConfigError as e:
            if e.field is not None and e.field.startswith("commands["):
                raise
            fld = cmd.field + "." + cmd.action + ("" if e.field is None else "." + e.field)
            raise ConfigError(e.reason, field=fld) from None
        except QueryError as e:
            raise ConfigError(str(e), field=f"{cmd.field}.{cmd.action}") from None

    # =================================================================== map
    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close a navigation area (a door); affected characters replan."""
        changed = self.map.set_area_available(name, available)
        self._planner.sync_map()
        return changed

    def add_obstacle(self, name: str, polygon: Any) -> None:
        """Add an obstacle polygon; affected characters replan."""
        self.map.add_obstacle(name, polygon)
        self._planner.sync_map()

    def remove_obstacle(self, name: str) -> None:
        """Remove an obstacle polygon; affected characters replan."""
        self.map.remove_obstacle(name)
        self._planner.sync_map()

    def set_map(self, navigation: Any, *, map_path: str | Path | None = None,
                navigation_mode: str = "grid") -> None:
        """Switch to another navigation map; every navigating character replans."""
        view = as_map_view(navigation, path=map_path, mode=navigation_mode)
        self._warm_for(view)
        if self._record is not None:
            self._attach_record(view)
        self._planner.switch_map(view)

    def _warm_for(self, view: SimMap) -> None:
        """Load the kernels a tick on ``view`` uses (when :attr:`warm`): with
        ORCA, and with steering when a character has a policy or gets one."""
        steer = self._state.default_policy is not None or self._state.steered()
        if self.warm:
            self.warm_up("tick", *(("steer",) if steer else ()),
                         *(("orca",) if self.avoidance == "orca" else ()), mode=view.mode)

    def prepare(self, *parts: str) -> None:
        """Load the kernels of ``parts`` (``"tick"``, ``"orca"``, ``"steer"``)
        for this location's map now, unless it was built with ``warm=False``
        (:mod:`navkit.sim.warming`)."""
        if self.warm:
            self.warm_up(*parts, mode=self.map.mode)

    @staticmethod
    def warm_up(*parts: str, mode: str = "grid") -> None:
        """Load (with an empty numba cache: compile) the kernels of ``parts``
        (``"tick"``, ``"orca"``, ``"steer"``) on a ``mode`` map (``"grid"``,
        ``"mesh"``, ``"world"``) now, once per process
        (:mod:`navkit.sim.warming`; a location does it itself unless built
        with ``warm=False``)."""
        warming.ensure(Location, mode, *parts)

    def record_queries(self, record: Any) -> Any:
        """Log every plan (one ``find_path_to_nearest`` query each) to a corpus;
        returns the :class:`~navkit.corpus.QueryRecorder` (close it when done:
        a path given here is owned by it). Grid navigation only."""
        self._record = record
        self._record = self._attach_record(self._planner.map)
        return self._record

    def _attach_record(self, view: SimMap) -> Any:
        from ..recording import as_recorder

        if view.mode != "grid":
            raise ConfigError("query corpora record grid navigation only, not "
                              f"navigationMode {view.mode!r}", field="record")
        pf = view.pathfinder
        rec = as_recorder(self._record, view.grid, costs=pf.costs, connectivity=pf.connectivity,
                          kind="grid" if view.level is None else "level", map_path=view.path)
        view.record = rec
        return rec

    def set_avoidance(self, avoidance: str) -> None:
        """Switch local avoidance (``"none"`` or ``"orca"``, docs/rules.md §9.6)
        from the next tick on; the velocities start from the saved ones."""
        mode = check_avoidance(avoidance)
        if mode == "orca":
            self.prepare("orca")
        if mode != self.avoidance:
            self.avoidance = mode
            self._movement = MovementPhase(self._state, mode)

    @property
    def navigation_mode(self) -> str:
        """``"mesh"`` when plans run on a navigation mesh, else ``"grid"``."""
        return str(self.map.mode)

    def sync_map(self) -> None:
        """Mark the replans of map edits made directly on :attr:`map` (``map.nav``);
        :meth:`step` and the edit methods here do it themselves."""
        self._planner.sync_map()

    # ================================================================= ticks
    def step(self) -> TickEvents:
        """Advance one tick; returns what happened."""
        t = self.tick
        ev = TickEvents(tick=t, in_wall=self._orders.take_in_wall())
        planner = self._planner
        planner.events = ev
        try:
            while (cmd := self._commands.pop_due(t)) is not None:
                self.execute(cmd)
            planner.sync_map()
            planner.planning_phase(ev, t)
            bits = self._movement.run(planner.map, dt=self.dt, tick=t,
                                      repath_ticks=self.repath_ticks, ev=ev)
            calls = self._orders.apply_events(bits, ev, self.on_interaction)
            for fn, ids in calls:
                fn(*[Character(self, cid) for cid in ids])
        finally:
            planner.events = None
        self.tick = t + 1
        self.stats.add(ev)
        return ev

    def run(self, ticks: int, *,
            on_tick: Callable[[TickEvents], Any] | None = None) -> list[TickEvents]:
        """Advance ``ticks`` ticks; returns every tick's events."""
        if isinstance(ticks, bool) or not isinstance(ticks, (int, np.integer)) or ticks < 0:
            raise QueryError(f"ticks must be an integer >= 0, got {ticks!r}")
        out = []
        for _ in range(int(ticks)):
            ev = self.step()
            out.append(ev)
            if on_tick is not None:
                on_tick(ev)
        return out

    # ============================================================ inspection
    def positions(self) -> NDArray[np.float64]:
        """Copy of every centre, shape (n, 2), slot order."""
        return self._state.pos.copy()

    def contact_radii(self) -> NDArray[np.float64]:
        return self._state.rc.copy()

    def animations(self) -> NDArray[np.uint8]:
        """``AnimationState`` codes, slot order."""
        return self._state.anim.copy()

    def min_contact_gap(self) -> float:
        """Smallest ``|p_i - p_j| - r_i - r_j`` over all solid pairs (brute force; for tests)."""
        return self._state.min_contact_gap()

    # ================================================================ state
    def state_dict(self, *, base: str | Path | None = None,
                   sidecar: str | Path | None = None) -> dict[str, Any]:
        """The full state as a scene object (see :mod:`navkit.sim.scene`)."""
        obj = snapshot.location_dict(self, base=None if base is None else Path(base),
                                     sidecar=None if sidecar is None else Path(sidecar))
        if self.navigation_mode == "grid" and self.avoidance == "none":
            return obj
        out: dict[str, Any] = {}
        for key, value in obj.items():
            out[key] = value
            if key == "navigation":
                if self.navigation_mode != "grid":
                    out["navigationMode"] = self.navigation_mode
                if self.avoidance != "none":
                    out["avoidance"] = self.avoidance
        return out

    def save(self, path: str | Path) -> Path:
        """Write the state as a scene JSON file; returns the path."""
        if self.navigation_mode == "grid" and self.avoidance == "none":
            return snapshot.save_location(self, path)
        p = snapshot.file_path(path)
        if not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
        obj = self.state_dict(base=p.parent, sidecar=p.parent / (p.stem + ".grid.npz"))
        p.write_text(json.dumps(obj, allow_nan=False, indent=1) + "\n", encoding="utf-8")
        return p

    @classmethod
    def load(cls, path: str | Path) -> Location:
        """Read a scene or saved state (FormatError naming the file when it
        cannot be read, ConfigError naming the file and the field)."""
        obj = snapshot.read_json(path)
        p = Path(path)
        try:
            return cls.from_scene(obj, base=p.parent)
        except ConfigError as e:
            if e.path is None:
                raise ConfigError(e.reason, field=e.field, path=p) from None
            raise

    @classmethod
    def from_scene(cls, obj: Any, *, base: str | Path | None = None) -> Location:
        """Build a location from a decoded scene or saved-state object (the
        format of :mod:`navkit.sim.scene`); ``base`` is the folder relative
        map paths start from."""
        scene = snapshot.read_scene(obj, None if base is None else Path(base))
        loc = cls(scene.navigation, tick_rate=scene.tick_rate, map_path=scene.map_path,
                  navigation_mode=scene.values.get("navigationMode", "grid"),
                  avoidance=scene.values.get("avoidance", "none"))
        loc.tick, stats = snapshot.populate(scene, loc.state, loc.add_character, loc.schedule)
        if stats is not None:
            loc.stats = stats
        return loc

    def __repr__(self) -> str:
        extra = "" if self.avoidance == "none" else f", avoidance {self.avoidance}"
        return (f"Location({len(self)} characters, tick {self.tick}, {self.tick_rate:g} Hz, "
                f"map {self.map.grid!r}{extra})")

"""The navigation contract: one vocabulary every backend keeps (docs/architecture.md).

Five objects answer path queries on a level: :class:`~navkit.query.pathfinder.Pathfinder`
(a grid), :class:`~navkit.query.navmap.NavMap` (a level or grid with doors,
obstacles, occupants and a path cache), :class:`~navkit.world.world.World`
(chunked worlds larger than memory), :class:`~navkit.mesh.navmesh.NavMesh`
(exact any-angle paths on a navigation mesh) and :class:`~navkit.query.hpa.HPAStar`
(hierarchical, near-optimal). They keep one contract, :class:`Navigator`, with one
word per concept:

==================  =========================================================
concept             the word
==================  =========================================================
endpoints           ``start``, ``goal``: world points ``(x, z)`` or ``(x, y, z)``, metres
search limit        ``budget``: nodes the search may expand (None: the backend's default)
search choice       ``algorithm``: ``"auto"`` (every backend's default) or one of its names
one query, many     :meth:`~Navigator.find_path`, :meth:`~Navigator.find_paths`
the agent           ``agent=``: an :class:`Agent` (or its radius in metres)
snap a point        :meth:`~Navigator.place` -> :class:`Place` or None
test a point        :meth:`~Navigator.is_walkable`
a straight line     :meth:`~Navigator.raycast` -> :class:`RaycastHit`
nearest point       :meth:`~Navigator.nearest_point`
edits               :attr:`~Navigator.version` (bumped by every edit that changed the space)
what was searched   :meth:`~Navigator.last_search`
==================  =========================================================

Every answer is a :class:`~navkit.results.NavResult` (``PathResult`` on grids and
worlds, ``MeshPathResult`` on meshes): ``status``, ``waypoints``, ``cost``,
``length``, ``expanded``. Cell-level extras keep their ``_cells`` names
(``find_path_cells``, ``find_paths_cells``).

The same code runs on a grid and on a mesh:

>>> import navkit
>>> from navkit.level import parse_level
>>> level = parse_level({"cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
...     "areas": [{"name": "a", "polygon": [[0, 0], [10, 0], [10, 6], [0, 6]]}]})
>>> for nav in (navkit.NavMap(level), navkit.NavMesh.from_level(level)):
...     r = nav.find_path((1.0, 1.0), (9.0, 5.0))
...     print(type(nav).__name__, r.status, round(r.length, 3), nav.is_walkable((20.0, 1.0)))
NavMap FOUND 8.944 False
NavMesh FOUND 8.944 False
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError, QueryError, shown

__all__ = ["Navigator", "SimulationSpace", "ExactSpace", "LegPlanner", "Agent", "Place",
           "RaycastHit", "world_point", "world_point_y", "world_points", "world_pairs",
           "check_radius", "as_agent", "check_agent",
           "renamed_keywords", "deprecated_name", "goal_of", "AGENT_RADIUS_TOL"]

#: Metres within which an agent's radius counts as the level's (docs/rules.md §15.3).
AGENT_RADIUS_TOL = 1e-9

_PLAIN = (int, float)  # bool is not: type(True) is bool
_EXACT = 2**53  # plain ints and floats inside this convert exactly (and are finite)


# ------------------------------------------------------------------ points
def world_point(value: Any, name: str) -> tuple[float, float]:
    """A finite world point ``(x, z)`` in metres; ``(x, y, z)`` drops ``y``
    (use :func:`world_point_y` to keep it).

    >>> world_point((1, 2.5), "start"), world_point([1.0, 9.0, 2.0], "goal")
    ((1.0, 2.5), (1.0, 2.0))
    """
    if type(value) is tuple and len(value) == 2:  # the common cases, without numpy
        x, z = value
        if type(x) is float and type(z) is float:
            if math.isfinite(x) and math.isfinite(z):
                return value
        elif (type(x) in _PLAIN and type(z) in _PLAIN
              and -_EXACT < x < _EXACT and -_EXACT < z < _EXACT):
            return (float(x), float(z))
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise QueryError(f"{name} must be a world point (x, z) or (x, y, z) of finite "
                         f"floats, got {shown(value)}") from None
    if arr.shape == (3,):
        arr = arr[[0, 2]]
    if arr.shape != (2,):
        raise QueryError(f"{name} must be a world point (x, z) or (x, y, z), got {shown(value)}")
    if not np.all(np.isfinite(arr)):
        raise QueryError(f"{name} must be finite, got {shown(value)}")
    return (float(arr[0]), float(arr[1]))


def world_point_y(value: Any, name: str, default_y: float = 0.0) -> tuple[float, float, float]:
    """A finite world point as ``(x, y, z)``: ``(x, y, z)`` as given, ``(x, z)``
    with ``y = default_y`` (a level's floor height).

    >>> world_point_y((1, 2), "p", 0.5), world_point_y((1, 3, 2), "p")
    ((1.0, 0.5, 2.0), (1.0, 3.0, 2.0))
    """
    x, z = world_point(value, name)
    y = default_y
    if not (type(value) is tuple and len(value) == 2):
        arr = np.asarray(value, dtype=np.float64)
        if arr.shape == (3,):
            y = float(arr[1])
            if not math.isfinite(y):
                raise QueryError(f"{name} must be finite, got {shown(value)}")
    return (x, float(y), z)


def world_points(values: Any, name: str) -> NDArray[np.float64]:
    """Finite world points as a float64 ``(n, 2)`` array of ``(x, z)`` metres
    (``(n, 3)`` ``(x, y, z)`` drops ``y``); QueryError naming the first bad row.

    >>> world_points([[1, 2], [3, 4]], "starts").tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise QueryError(f"{name} must be an (n, 2) array of world points") from None
    if arr.ndim == 2 and arr.shape[1] == 3:
        arr = arr[:, [0, 2]]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise QueryError(f"{name} must have shape (n, 2) or (n, 3), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise QueryError(f"{name}[{i}] = {arr[i].tolist()} is not finite")
    return np.ascontiguousarray(arr)


def world_pairs(starts: Any, goals: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``starts`` and ``goals`` as :func:`world_points` of one length (QueryError otherwise)."""
    s = world_points(starts, "starts")
    g = world_points(goals, "goals")
    if s.shape != g.shape:
        raise QueryError(f"starts and goals must have the same shape, got {s.shape} and "
                         f"{g.shape}")
    return s, g


def check_radius(radius: Any, name: str = "radius") -> float:
    """A finite distance ``>= 0`` in metres as a float (QueryError otherwise).

    >>> check_radius(2)
    2.0
    """
    if isinstance(radius, bool) or not isinstance(radius, (int, float, np.floating,
                                                           np.integer)):
        raise QueryError(f"{name} must be a number of metres, got {shown(radius)}")
    try:
        r = float(radius)
    except OverflowError:
        r = math.inf
    if not math.isfinite(r) or r < 0:
        raise QueryError(f"{name} must be finite and >= 0, got {shown(radius)}")
    return r


# ------------------------------------------------------------------- agents
@dataclass(frozen=True)
class Agent:
    """Who a query is for (Detour's query filter, docs/rules.md §15.3).

    ``radius``: the agent's radius, metres (None: the level's own). Every backend
    accepts ``agent=`` on its queries; a backend answers for the radius its level
    was built with, and refuses another with a :class:`~navkit.errors.ConfigError`
    (field ``agent``) rather than answering for the wrong size.

    >>> Agent(0.45), Agent()
    (Agent(radius=0.45), Agent(radius=None))
    """

    radius: float | None = None

    def __post_init__(self) -> None:
        r = self.radius
        if r is None:
            return
        if isinstance(r, bool) or not isinstance(r, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(r)) or float(r) < 0:
            raise ConfigError(f"expected a finite radius >= 0 in metres, got {shown(r)}",
                              field="agent.radius")
        object.__setattr__(self, "radius", float(r))


def as_agent(agent: Any) -> Agent | None:
    """``agent=`` as an :class:`Agent`: None, an Agent, or a radius in metres.

    >>> as_agent(0.3), as_agent(None)
    (Agent(radius=0.3), None)
    """
    if agent is None or type(agent) is Agent:
        return agent
    if isinstance(agent, Agent):
        return agent
    if isinstance(agent, (int, float, np.integer, np.floating)) and not isinstance(agent, bool):
        return Agent(float(agent))
    raise ConfigError(f"expected a navkit.Agent, a radius in metres or None, got {shown(agent)}",
                      field="agent")


def check_agent(agent: Any, level_radius: float, owner: str) -> None:
    """Refuse ``agent`` when its radius is not ``level_radius`` (the radius ``owner``,
    e.g. ``"this NavMesh"``, was built for); None and ``Agent()`` always pass.

    >>> check_agent(Agent(0.5), 0.5, "this grid")
    >>> check_agent(0.25, 0.5, "this grid")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    navkit.errors.ConfigError: agent: this grid was built for agents of radius 0.5 m, got 0.25 m ...
    """
    if agent is None:
        return
    a = as_agent(agent)
    if a is None or a.radius is None:
        return
    if abs(a.radius - float(level_radius)) > AGENT_RADIUS_TOL:
        raise ConfigError(f"{owner} was built for agents of radius {float(level_radius):g} m, "
                          f"got {a.radius:g} m (one level serves one radius here)",
                          field="agent")


# ------------------------------------------------------------- places, rays
@dataclass(frozen=True)
class Place:
    """Where a world point lands on the navigable space (:meth:`Navigator.place`).

    ``point``: world ``(x, z)`` metres the query starts from: the point itself
    when it is navigable, else where it snaps (a grid: the centre of the
    nearest walkable cell within the snap radius, docs/rules.md §4.1; a mesh: the
    nearest point of the mesh). ``y``: its height, metres. ``region``: the
    connected region of the static space it lies in (two places with the same
    region >= 0 are connected; -1 where the backend cannot tell). ``cell``: the
    grid cell ``(x, z)`` (grids and worlds, else None); ``polygon``: the mesh
    polygon (meshes, else -1).

    >>> Place((1.5, 2.5), region=0, cell=(1, 2)).cell
    (1, 2)
    """

    point: tuple[float, float]
    region: int = -1
    cell: tuple[int, int] | None = None
    polygon: int = -1
    y: float = 0.0


class RaycastHit(NamedTuple):
    """What :meth:`Navigator.raycast` found.

    ``hit``: whether a wall stops the segment; ``fraction``: the share of the
    segment travelled before it (1.0 without a hit); ``point``: where it
    stopped, world ``(x, z)`` metres; ``polygon``: the mesh polygon it ended in
    (-1 on grids); ``cell``: the grid cell it ended in (None on meshes).
    """

    hit: bool
    fraction: float
    point: tuple[float, float]
    polygon: int
    cell: tuple[int, int] | None = None


# -------------------------------------------------------------- the contract
@runtime_checkable
class Navigator(Protocol):
    """What every navigation backend answers (see the module docstring).

    :class:`~navkit.query.pathfinder.Pathfinder`, :class:`~navkit.query.navmap.NavMap`,
    :class:`~navkit.world.world.World`, :class:`~navkit.mesh.navmesh.NavMesh` and
    :class:`~navkit.query.hpa.HPAStar` implement it; ``isinstance(x, Navigator)``
    tells a backend from anything else. Backends take more keywords than these
    (``smooth``, ``window``, ``preset``, ...); these mean the same everywhere.
    """

    @property
    def version(self) -> int:
        """Edits that changed the navigable space so far (caches key on it)."""
        ...

    @property
    def cell_size(self) -> float:
        """The level's cell size, metres (the grid's; a mesh's level's or 0.25)."""
        ...

    @property
    def agent_radius(self) -> float:
        """The agent radius, metres, the navigable space was built for."""
        ...

    def find_path(self, start: ArrayLike, goal: ArrayLike, *, nearest: bool = False,
                  budget: int | None = None, algorithm: str = "auto",
                  obstacles: Any = None, ignore: Any = None, agent: Any = None) -> Any:
        """The path between world points ``start`` and ``goal``: a
        :class:`~navkit.results.NavResult` (``nearest=True``: to the reachable
        point closest to an unreachable goal, status ``NEAREST``; ``obstacles``:
        circles ``(k, 3)`` ``(x, z, radius)`` for this query; ``ignore``: ids of
        those it skips)."""
        ...

    def find_path_to_nearest(self, start: ArrayLike, goal: ArrayLike, *,
                             budget: int | None = None, algorithm: str = "auto",
                             obstacles: Any = None, ignore: Any = None,
                             agent: Any = None) -> Any:
        """:meth:`find_path` with ``nearest=True``."""
        ...

    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *, nearest: bool = False,
                   budget: int | None = None, algorithm: str = "auto",
                   obstacles: Any = None, agent: Any = None) -> list[Any]:
        """``find_path(starts[i], goals[i])`` for ``(n, 2)`` / ``(n, 3)`` arrays, in order."""
        ...

    def place(self, point: ArrayLike, *, obstacles: Any = None, agent: Any = None
              ) -> Place | None:
        """Where a query from ``point`` starts (:class:`Place`), or None when no
        navigable place lies within the snap radius."""
        ...

    def is_walkable(self, point: ArrayLike, *, agent: Any = None) -> bool:
        """True when world point ``point`` lies on the navigable space."""
        ...

    def raycast(self, a: ArrayLike, b: ArrayLike, *, agent: Any = None) -> RaycastHit:
        """Walk the segment ``a -> b``: the first wall it meets (QueryError when
        ``a`` is not navigable)."""
        ...

    def nearest_point(self, point: ArrayLike, radius: float | None = None, *,
                      agent: Any = None) -> tuple[float, float] | None:
        """The navigable point nearest to ``point`` within ``radius`` metres
        (default: the snap radius), or None."""
        ...

    def last_search(self) -> Any:
        """What the last search explored (None before any): a backend's trace."""
        ...


@runtime_checkable
class SimulationSpace(Navigator, Protocol):
    """A :class:`Navigator` a simulation runs on (:class:`navkit.sim.Location`):
    ``NavMap``, ``NavMesh`` and ``World``. Beyond the path queries the simulation
    reads the space as a walkable grid (the movement guard's walls), asks how it
    changed after an edit, edits it, and saves it in a scene.
    """

    #: ``"grid"``, ``"mesh"`` or ``"world"``: the scene's ``navigationMode``.
    navigation_mode: str

    def raster(self, cell_size: float | None = None,
               region: tuple[int, int, int, int] | None = None) -> Any:
        """The navigable space as a walkable :class:`~navkit.grid.NavGrid` (without
        occupants): a grid's own cells, a mesh's outer raster at ``cell_size``
        (docs/rules.md §15.6), a world's cells in the inclusive box ``region``."""
        ...

    def scene_source(self) -> tuple[str, Any]:
        """What a saved scene stores for this space: ``("level", dict)`` (a level
        inline), ``("grid", NavGrid)`` (a grid file may be referenced) or
        ``("edited-grid", NavGrid)`` (written beside the scene); ConfigError when
        the space cannot be saved (a world)."""
        ...

    def set_area_available(self, name: str, available: bool) -> bool:
        """Open or close a named area; ConfigError where the space has none."""
        ...

    def add_obstacle(self, name: str, polygon: Any) -> None:
        """Add an obstacle polygon (world metres); ConfigError where not supported."""
        ...

    def remove_obstacle(self, name: str) -> None:
        """Remove an obstacle polygon added before."""
        ...


@runtime_checkable
class ExactSpace(Protocol):
    """A space finer than any raster of it (a mesh): a simulation compares
    :meth:`space_token` values to tell which edits closed or opened it."""

    def space_token(self) -> Any:
        """An immutable description of the navigable space now."""
        ...

    def space_changes(self, old: Any, new: Any) -> tuple[bool, bool]:
        """``(closed, opened)`` between two :meth:`space_token` values."""
        ...


@runtime_checkable
class LegPlanner(Protocol):
    """A space whose queries may be bounded (a world's presets, docs/rules.md §14.5):
    a plan aims at a nearer goal and continues in legs."""

    def leg_goal(self, start: tuple[float, float], goal: tuple[float, float],
                 preset: Any) -> tuple[float, float]:
        """The point a bounded plan from ``start`` aims at on its way to ``goal``."""
        ...

    def is_leg(self, start: tuple[float, float], goal: tuple[float, float], res: Any,
               preset: Any) -> bool:
        """Whether partial plan ``res`` is one leg of a longer walk to ``goal``."""
        ...


# ----------------------------------------------------------- deprecations
def deprecated_name(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once per call site that ``old`` is now ``new`` (removed in navkit 0.3)."""
    warnings.warn(f"{old} is deprecated: use {new} (the old name goes in navkit 0.3)",
                  DeprecationWarning, stacklevel=stacklevel)


def renamed_keywords(old: dict[str, Any], names: dict[str, str], owner: str,
                     given: dict[str, Any] | None = None, *, stacklevel: int = 4
                     ) -> dict[str, Any]:
    """The new keywords for the old ones in ``old`` (``names``: old -> new), each
    with a ``DeprecationWarning`` naming the new one; ``given``: the new keywords'
    current values (None: not given). An unknown keyword is a TypeError, as Python's
    own; an old and a new name for one value is a QueryError. ``stacklevel``: the
    warning's, counted from this function (4: the caller's caller).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     renamed_keywords({"end": (1, 2)}, {"end": "goal"}, "find_path", {"goal": None})
    ...     print(w[0].message)
    {'goal': (1, 2)}
    find_path(end=...) is deprecated: use find_path(goal=...) (the old name goes in navkit 0.3)
    """
    out: dict[str, Any] = {}
    for key, value in old.items():
        new = names.get(key)
        if new is None:
            raise TypeError(f"{owner}() got an unexpected keyword argument {key!r}")
        if (given is not None and given.get(new) is not None) or new in out:
            raise QueryError(f"{owner}: pass {new}= only ({key}= is its old name)")
        deprecated_name(f"{owner}({key}=...)", f"{owner}({new}=...)", stacklevel=stacklevel)
        out[new] = value
    return out


def goal_of(goal: Any, old: dict[str, Any], owner: str, *, stacklevel: int = 5) -> Any:
    """A query's ``goal``, or its old keyword ``end=`` from ``old`` (the query's other
    keywords, with a DeprecationWarning naming ``goal``); QueryError when neither is
    given. ``stacklevel``: the warning's, counted from :func:`deprecated_name` (5: the
    caller of the method that calls this).

    >>> goal_of((1, 2), {}, "find_path")
    (1, 2)
    """
    if old:
        new = renamed_keywords(old, {"end": "goal"}, owner, {"goal": goal},
                               stacklevel=stacklevel)
        goal = new.get("goal", goal)
    if goal is None:
        raise QueryError(f"{owner}: missing the goal (a world point (x, z))")
    return goal

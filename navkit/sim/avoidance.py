"""Local avoidance between characters: the Python side of :mod:`navkit._kernels.orca`.

docs/rules.md §9.6. With ``Location(avoidance="orca")`` (scene key
``"avoidance": "orca"``) every walking character's step is the ORCA velocity
nearest to its path-following velocity, chosen against its nearest
neighbours (:data:`~navkit.sim.constants.ORCA_MAX_NEIGHBORS`) for a time
horizon of :data:`~navkit.sim.constants.ORCA_TIME_HORIZON` seconds, with the
contact radius plus :data:`~navkit.sim.constants.ORCA_RADIUS_MARGIN`. The
movement guard (§9.1-§9.5) still checks every step. ``"none"`` (the default)
is the simulation without it, bit for bit.

:class:`OrcaWorkspace` owns every buffer the kernel writes (sized to the
character count and, for the neighbour index
(:func:`navkit.agents.index.map_index`), to the map, the largest radius and
the fastest walker) and builds the kernel's argument tuple.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels.orca import OrcaArgs
from ..agents.index import map_index
from ..errors import ConfigError
from .constants import (
    AVOIDANCE_MODES,
    ORCA_CORNER_RADIUS,
    ORCA_MAX_NEIGHBORS,
    ORCA_MAX_WALL_CELLS,
    ORCA_RADIUS_MARGIN,
    ORCA_STALL_FRACTION,
    ORCA_TIME_HORIZON,
    ORCA_WALL_TIME_HORIZON,
)
from .state import SimState

__all__ = ["OrcaWorkspace", "check_avoidance"]


def check_avoidance(value: Any, field: str = "avoidance") -> str:
    """``value`` as an avoidance mode (``"none"`` or ``"orca"``); ConfigError naming ``field``."""
    if not isinstance(value, str) or value not in AVOIDANCE_MODES:
        raise ConfigError(f"expected one of {', '.join(AVOIDANCE_MODES)}, got {value!r}",
                          field=field)
    return value


class OrcaWorkspace:
    """The buffers of :func:`navkit._kernels.orca.orca_velocities` and of
    :func:`navkit._kernels.sim.tick_orca` for one :class:`SimState`."""

    def __init__(self, state: SimState, *, tau: float = ORCA_TIME_HORIZON,
                 max_neighbors: int = ORCA_MAX_NEIGHBORS,
                 margin: float = ORCA_RADIUS_MARGIN,
                 stall_fraction: float = ORCA_STALL_FRACTION,
                 max_wall_cells: int = ORCA_MAX_WALL_CELLS,
                 tau_wall: float = ORCA_WALL_TIME_HORIZON,
                 corner_radius: float = ORCA_CORNER_RADIUS) -> None:
        self.state = state
        #: An accepted step shorter than this fraction of the preferred one counts as blocked.
        self.stall_fraction = float(stall_fraction)
        self.tau = float(tau)
        self.margin = float(margin)
        k = int(max_neighbors)
        kw = int(max_wall_cells)
        self.tau_wall = float(tau_wall)
        #: m: an intermediate waypoint this close counts as reached when the next is in sight.
        self.corner_radius = float(corner_radius)
        self._lines = np.zeros((k + kw, 4), dtype=np.float64)
        self._proj = np.zeros((k + kw, 4), dtype=np.float64)
        self._wall_d = np.zeros(kw, dtype=np.float64)
        self._wall_c = np.zeros(kw, dtype=np.int64)
        self._nb_d = np.zeros(k, dtype=np.float64)
        self._nb_j = np.zeros(k, dtype=np.int64)
        self._vec = np.zeros(4, dtype=np.float64)
        self._n = -1
        self._key: tuple[Any, ...] | None = None
        self._index: tuple[Any, ...] = ()

    def _size(self, n: int) -> None:
        if n == self._n:
            return
        self._n = n
        self._vpref = np.zeros((n, 2), dtype=np.float64)
        self._vnew = np.zeros((n, 2), dtype=np.float64)
        self._changed = np.zeros(n, dtype=np.uint8)
        self._nearest = np.zeros(n, dtype=np.int32)
        self._sreach = np.zeros(n, dtype=np.float64)
        #: uint8 (n,), int32 (n,), uint8 (n,), float64 (n,): tick_orca's work arrays.
        self.walking = np.zeros(n, dtype=np.uint8)
        self.exclude = np.zeros(n, dtype=np.int32)
        self.override = np.zeros(n, dtype=np.uint8)
        self.rad = np.zeros(n, dtype=np.float64)
        self._key = None

    def args(self, min_x: float, min_z: float, ex: float, ez: float,
             dt: float) -> tuple[Any, ...]:
        """The kernel's :class:`~navkit._kernels.orca.OrcaArgs` tuple for a map
        whose lower corner is ``(min_x, min_z)`` and extent ``ex x ez`` metres."""
        a = self.state
        self._size(a.n)
        rmax = float(a.rc.max()) + self.margin if a.n else 0.0
        vmax = float(a.speed.max()) if a.n else 0.0
        key = (rmax, vmax, min_x, min_z, ex, ez, a.n, dt)
        if key != self._key:
            # a neighbour that can matter lies within r_i + r_j + tau (v_i + v_j),
            # two cells (the kernel scans 5 x 5)
            self._key = key
            self._index = map_index(rmax + self.tau * vmax, min_x, min_z, ex, ez, a.n)
        return tuple(OrcaArgs(
            vel=a.vel, vpref=self._vpref, vnew=self._vnew, changed=self._changed,
            lines=self._lines, proj=self._proj, nb_d=self._nb_d, nb_j=self._nb_j,
            index=self._index, tau=self.tau, margin=self.margin, dt=float(dt), vec=self._vec,
            nearest=self._nearest, wall_d=self._wall_d, wall_c=self._wall_c,
            tau_wall=self.tau_wall, sreach=self._sreach,
        ))

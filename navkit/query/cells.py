"""Which search answers a cell query: the ``algorithm`` argument (docs/rules.md §3).

``"astar"``, ``"dijkstra"`` (A*'s answer without the heuristic), ``"jps"``
(Jump Point Search: A*'s cost, uniform-cost 8-connected grids only) and
``"jps+"`` (JPS on offline jump tables, :mod:`navkit.query.jps_plus`: the
same answers as ``"jps"``; the tables are built on first use unless
:meth:`CellQueries.set_jps_plus` installed them) and ``"auto"`` (JPS+ where
tables were installed and preferred, else JPS where it applies, else A*). A
windowed query always runs A*.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ..errors import QueryError
from ..results import PathResult
from .astar import AStar
from .jps import JPS
from .jps_plus import JPSPlus, tables_usable
from .padded import PaddedGrid

__all__ = ["ALGORITHMS", "Algorithm", "CellQueries"]

#: Values of the ``algorithm`` argument of the cell and world queries.
ALGORITHMS = ("astar", "dijkstra", "jps", "jps+", "auto")
Algorithm = Literal["astar", "dijkstra", "jps", "jps+", "auto"]


class CellQueries:
    """Dispatch of cell queries between A* / Dijkstra, JPS and JPS+."""

    def __init__(self, pg: PaddedGrid, astar: AStar, jps: JPS):
        self.pg = pg
        self.astar = astar
        self.jps = jps
        #: The JPS+ query object once tables exist (:meth:`set_jps_plus` or a first ``"jps+"``).
        self.jps_plus: JPSPlus | None = None
        #: Whether ``"auto"`` picks JPS+ (set with the tables: see :meth:`set_jps_plus`).
        self.auto_jps_plus = False

    def set_jps_plus(self, jps_plus: JPSPlus | None, *, auto: bool = True) -> None:
        """Install (or, with ``None``, drop) the JPS+ query object; ``auto``:
        whether ``"auto"`` then picks JPS+ (the caller decides, e.g. with
        :func:`navkit.query.jps_plus.prefer_jps_plus`)."""
        self.jps_plus = jps_plus
        self.auto_jps_plus = jps_plus is not None and auto

    def grid_edited(self, xs: NDArray[np.int64], zs: NDArray[np.int64]) -> None:
        """Follow a cell edit (a :meth:`navkit.Pathfinder.on_edit` listener): the JPS+
        tables are updated (:meth:`JPSPlus.grid_edited`), or dropped where the
        edit made JPS inapplicable (terrain weights)."""
        jp = self.jps_plus
        if jp is None:
            return
        if not self.jps.usable or self.pg.weighted:
            self.set_jps_plus(None)
            return
        jp.grid_edited(xs, zs)

    def jps_plus_engine(self) -> JPSPlus:
        """The installed JPS+ query object, built (with its tables) when there is none."""
        jp = self.jps_plus
        if jp is None:
            jp = self.jps_plus = JPSPlus(self.jps)
        return jp

    def resolve(self, algorithm: str) -> str:
        """The algorithm a query with ``algorithm`` runs: ``"auto"`` becomes
        ``"jps+"`` where JPS+ tables are installed for ``"auto"``, else
        ``"jps"`` where JPS applies and ``"astar"`` otherwise.

        Raises QueryError for an unknown name, and for ``"jps"`` / ``"jps+"``
        on a weighted or 4-connected grid (JPS never ignores weights silently).
        """
        if algorithm == "astar" or algorithm == "dijkstra":
            return algorithm
        if algorithm == "auto":
            if not self.jps.usable:
                return "astar"
            return "jps+" if self.auto_jps_plus else "jps"
        if algorithm == "jps" or algorithm == "jps+":
            o = self.astar.options
            if not (o.corner_rule and o.plain):
                raise QueryError(
                    "JPS needs diagonal='only_if_no_obstacles', heuristic='octile' and "
                    f"weight=1, but this Pathfinder has diagonal={o.diagonal!r}, "
                    f"heuristic={o.heuristic!r}, weight={o.weight:g}; use algorithm='astar' "
                    "(or 'auto', which picks A* here)")
            if self.pg.weighted:
                raise QueryError(
                    "JPS needs a uniform-cost grid, but this grid has terrain weights; "
                    "use algorithm='astar' (or 'auto', which picks A* here)"
                )
            if not self.astar.eight:
                raise QueryError(
                    "JPS needs an 8-connected grid, but this Pathfinder is 4-connected; "
                    "use algorithm='astar' (or 'auto', which picks A* here)"
                )
            if not self.jps.fits:
                raise QueryError(
                    "JPS's 64-bit queue keys cannot hold the heuristic values of a "
                    f"{self.pg.width}x{self.pg.depth} grid with these step costs; use smaller "
                    "costs (e.g. costs='seed') or algorithm='astar'"
                )
            if algorithm == "jps+":
                why = tables_usable(self.jps)
                if why is not None:
                    raise QueryError(why)
            return algorithm
        raise QueryError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, "
                         f"got {algorithm!r}")

    def query(self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool, nearest: bool,
              budget: int, window: Sequence[int] | None, algorithm: str) -> PathResult:
        """The path between validated cells ``s`` and ``g`` (``budget`` resolved)."""
        algorithm = self.resolve(algorithm)
        if algorithm == "jps" and window is None:
            return self.jps.cell_query(s, g, smooth=smooth, nearest=nearest, budget=budget)
        if algorithm == "jps+" and window is None:
            return self.jps_plus_engine().cell_query(s, g, smooth=smooth, nearest=nearest,
                                               budget=budget)
        hmul = 0 if algorithm == "dijkstra" else self.pg.wmin
        return self.astar.cell_query(s, g, smooth=smooth, nearest=nearest,
                                     budget=budget, window=window, hmul=hmul)

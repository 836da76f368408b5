"""Which search answers a cell query: the ``algorithm`` argument (docs/rules.md §3).

``"astar"``, ``"dijkstra"`` (A*'s answer without the heuristic), ``"jps"``
(Jump Point Search: A*'s cost, uniform-cost 8-connected grids only) and
``"auto"`` (JPS where it applies, else A*). A windowed query always runs A*.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..errors import QueryError
from ..results import PathResult
from .astar import AStar
from .jps import JPS
from .padded import PaddedGrid

__all__ = ["ALGORITHMS", "Algorithm", "CellQueries"]

#: Values of the ``algorithm`` argument of the cell and world queries.
ALGORITHMS = ("astar", "dijkstra", "jps", "auto")
Algorithm = Literal["astar", "dijkstra", "jps", "auto"]


class CellQueries:
    """Dispatch of cell queries between A* / Dijkstra and JPS."""

    def __init__(self, pg: PaddedGrid, astar: AStar, jps: JPS):
        self.pg = pg
        self.astar = astar
        self.jps = jps

    def resolve(self, algorithm: str) -> str:
        """The algorithm a query with ``algorithm`` runs: ``"auto"`` becomes
        ``"jps"`` where JPS applies and ``"astar"`` otherwise.

        Raises QueryError for an unknown name, and for ``"jps"`` on a weighted
        or 4-connected grid (JPS never ignores weights silently).
        """
        if algorithm == "astar" or algorithm == "dijkstra":
            return algorithm
        if algorithm == "auto":
            return "jps" if self.jps.usable else "astar"
        if algorithm == "jps":
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
            return algorithm
        raise QueryError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, "
                         f"got {algorithm!r}")

    def query(self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool, nearest: bool,
              budget: int, window: Sequence[int] | None, algorithm: str) -> PathResult:
        """The path between validated cells ``s`` and ``g`` (``budget`` resolved)."""
        algorithm = self.resolve(algorithm)
        if algorithm == "jps" and window is None:
            return self.jps.cell_query(s, g, smooth=smooth, nearest=nearest, budget=budget)
        hmul = 0 if algorithm == "dijkstra" else self.pg.wmin
        return self.astar.cell_query(s, g, smooth=smooth, nearest=nearest,
                                     budget=budget, window=window, hmul=hmul)

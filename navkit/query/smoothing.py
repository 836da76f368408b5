"""Line of sight and string pulling on the effective cells (docs/rules.md §5).

Line of sight is an integer supercover traversal between two cell centres
that obeys A*'s corner rule; string pulling keeps, from each anchor, the
furthest path cell in sight. On weighted terrain a shortcut must also cost
no more than the steps it replaces (its exact mean weight times the cost
model's charge for the displacement), so a path along a road stays on it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._kernels import geometry as _geo
from ..costs import CostModel
from .overlay import Occupancy, Overlay
from .padded import PaddedGrid

__all__ = ["StringPull"]


class StringPull:
    """String pulling and line of sight on one padded grid, its occupants and its overlay."""

    def __init__(self, pg: PaddedGrid, costs: CostModel, occ: Occupancy, overlay: Overlay,
                 buffer: NDArray[np.int32]):
        self.pg = pg
        self.costs = costs
        self.occ = occ
        self.overlay = overlay
        self._cum: NDArray[np.int64] | None = None  # running path costs for weighted smoothing
        #: The default output buffer (int32, one entry per node: the workspace's ``smooth``).
        self.buffer = buffer

    def line_of_sight(self, a: int, b: int) -> bool:
        """True when the segment between the centres of padded nodes ``a`` and ``b`` is clear."""
        return bool(_geo.line_of_sight(self.occ.cells, self.overlay.args(), np.int64(self.pg.wp),
                                       np.int64(a), np.int64(b)))

    def pull(self, nodes: NDArray[np.int32],
             out: NDArray[np.int32] | None = None) -> NDArray[np.int32]:
        """String-pull padded ``nodes`` (a chain of neighbours) into ``out``
        (default: :attr:`buffer`); returns the kept nodes, a view of it."""
        buf = self.buffer if out is None else out
        pg = self.pg
        if not pg.weighted:
            m = _geo.string_pull(self.occ.cells, self.overlay.args(),
                                 np.int64(pg.wp), nodes, len(nodes), buf)
        else:
            if self._cum is None or len(self._cum) < len(nodes):
                self._cum = np.zeros(max(len(nodes), pg.n), dtype=np.int64)
            m = _geo.string_pull_weighted(self.occ.cells, self.overlay.args(), np.int64(pg.wp),
                                          pg.weights, np.int64(self.costs.card),
                                          np.int64(self.costs.diag), nodes, len(nodes), buf,
                                          self._cum)
        return buf[:m]

"""navkit: exact, deterministic navigation for Python games and simulations.

>>> import numpy as np, navkit
>>> grid = navkit.NavGrid(np.ones((4, 4), dtype=bool))
>>> navkit.Pathfinder(grid, costs="exact").find_path_cells((0, 0), (3, 3)).cost
4.242642
"""

from __future__ import annotations

from . import _compat
from .costs import EXACT, SEED, CostModel
from .errors import ConfigError, FormatError, NavkitError, QueryError
from .formats import load_grid, read_scenarios, save_grid
from .grid import NavGrid
from .query import (
    FlowField,
    FlowFieldCache,
    HPAStar,
    NavMap,
    PathCache,
    Pathfinder,
    obstacle_radius,
)
from .results import BatchResult, PathResult, Status
from .sim import Character, CharacterKind, Location

_compat.install()

__version__ = "0.1.0"

__all__ = [
    "NavGrid",
    "Pathfinder",
    "HPAStar",
    "NavMap",
    "PathCache",
    "FlowField",
    "FlowFieldCache",
    "obstacle_radius",
    "PathResult",
    "BatchResult",
    "Status",
    "CostModel",
    "SEED",
    "EXACT",
    "load_grid",
    "save_grid",
    "read_scenarios",
    "NavkitError",
    "FormatError",
    "ConfigError",
    "QueryError",
    "Location",
    "Character",
    "CharacterKind",
    "__version__",
]

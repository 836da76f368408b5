"""navkit: exact, deterministic navigation for Python games and simulations."""

from __future__ import annotations

from .errors import ConfigError, FormatError, NavkitError, QueryError
from .grid import NavGrid

__version__ = "0.1.0"

__all__ = [
    "NavGrid",
    "NavkitError",
    "FormatError",
    "ConfigError",
    "QueryError",
    "__version__",
]

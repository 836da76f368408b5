"""Old import paths, kept for one release with a :class:`DeprecationWarning`.

navkit's modules moved into one folder per layer (``docs/architecture.md``):
``navkit.pathfinder`` is now ``navkit.query.pathfinder``, and so on. Code
that still imports an old path gets the new module itself (the very same
object, so classes compare equal) and a warning naming the new path. The
names navkit re-exports at the top level (``navkit.Pathfinder``, ...) are
the stable spelling and never warn.

>>> import warnings, importlib
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = importlib.import_module("navkit.cache")
>>> old.__name__, caught[0].category.__name__
('navkit.query.cache', 'DeprecationWarning')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

__all__ = ["MOVED", "install"]

#: Old module path -> new module path.
MOVED: dict[str, str] = {
    "navkit.pathfinder": "navkit.query.pathfinder",
    "navkit.hpa": "navkit.query.hpa",
    "navkit.flow": "navkit.query.flow",
    "navkit.navmap": "navkit.query.navmap",
    "navkit.cache": "navkit.query.cache",
    "navkit.benchmark": "navkit.bench.peers",
    "navkit.bench_jps": "navkit.bench.jps",
    "navkit.bench_hpa": "navkit.bench.hpa",
    "navkit.bench_flow": "navkit.bench.flow",
    "navkit.bench_level": "navkit.bench.level",
    "navkit.bench_sim": "navkit.bench.sim",
    "navkit.level.bench": "navkit.bench.raster",
    "navkit.cli_flow": "navkit.cli.flow",
    "navkit.cli_level": "navkit.cli.level",
    "navkit.cli_sim": "navkit.cli.sim",
    "navkit.cli_view": "navkit.cli.view",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names and loads them as the new modules."""

    def find_spec(self, fullname: str, path: object,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; import it from there (or from navkit itself)",
                      DeprecationWarning, stacklevel=3)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the new module is already imported."""


_FINDER = _Alias()


def install() -> None:
    """Put the alias finder first on ``sys.meta_path`` (once): it answers only the old names."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)

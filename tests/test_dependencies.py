"""Every third-party module navkit imports is declared in ``pyproject.toml``.

The package's source is scanned (every ``import``, at module level or inside
a function): a module that the core uses must come from a distribution in
``[project] dependencies``; any other must belong to an extra. Outside the
benchmarks (whose peers are optional by design and skipped when absent), an
optional module must also be one the command line knows
(:data:`navkit.cli.common.EXTRA_OF_MODULE`), so a missing one is reported as
``pip install 'navkit[EXTRA]'``. The wheel test (``tests/test_packaging.py``)
then runs every core feature from an install with no extra.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

from navkit.cli.common import EXTRA_OF_MODULE

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "navkit"

#: Modules whose distribution is not installed here, or not named like them.
KNOWN_DISTRIBUTIONS = {
    "PIL": "pillow",
    "skimage": "scikit-image",
    "pathfinder": "pynavmesh",
    "pyrvo": "pyrvo",
    "nano_astar": "nano-astar",
    "w9_pathfinding": "w9-pathfinding",
    "extremitypathfinder": "extremitypathfinder",
    "pygame": "pygame-ce",
    "pytiled_parser": "pytiled-parser",
}
#: Distributions a requirement's own extra brings (``dask[distributed]``).
BROUGHT_BY = {"distributed": "dask"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(reqs: list[str]) -> set[str]:
    return {_norm(re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0]) for r in reqs}


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CORE = _requirement_names(PYPROJECT["dependencies"])
EXTRAS = {name: _requirement_names(reqs)
          for name, reqs in PYPROJECT["optional-dependencies"].items()}


def _distribution(module: str) -> str:
    if module in KNOWN_DISTRIBUTIONS:
        return _norm(KNOWN_DISTRIBUTIONS[module])
    found = importlib.metadata.packages_distributions().get(module)
    assert found, f"no installed distribution provides {module!r}: add it to KNOWN_DISTRIBUTIONS"
    return _norm(found[0])


def _third_party_imports() -> list[tuple[str, str, int]]:
    """``(navkit file, top-level module, line)`` for every third-party import."""
    out = []
    std = set(sys.stdlib_module_names)
    for path in sorted(PKG.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in std and top not in ("navkit", "__future__"):
                    out.append((str(path.relative_to(ROOT)), top, node.lineno))
    return out


IMPORTS = _third_party_imports()


def test_the_scan_sees_the_known_imports() -> None:
    tops = {m for _f, m, _l in IMPORTS}
    assert {"numpy", "numba", "scipy", "shapely", "starlette", "pytiled_parser"} <= tops


def test_scipy_is_a_core_dependency() -> None:
    """navkit.mesh needs it (region labelling): a mesh on a clean install."""
    assert "scipy" in CORE


@pytest.mark.parametrize("module", sorted({m for _f, m, _l in IMPORTS}))
def test_every_imported_module_is_declared(module: str) -> None:
    dist = _distribution(module)
    dist = BROUGHT_BY.get(dist, dist)
    sites = [f"{f}:{line}" for f, m, line in IMPORTS if m == module]
    if dist in CORE:
        return
    extras = sorted(e for e, names in EXTRAS.items() if dist in names)
    assert extras, f"{module} ({dist}) is imported at {sites} but declared nowhere"
    outside_bench = [s for s in sites if not s.startswith("navkit/bench/")]
    if outside_bench:
        assert module in EXTRA_OF_MODULE, (
            f"{module} (extra {extras}) is imported at {outside_bench}: add it to "
            "navkit.cli.common.EXTRA_OF_MODULE so a missing one names its extra")
        assert EXTRA_OF_MODULE[module] in extras, (module, EXTRA_OF_MODULE[module], extras)

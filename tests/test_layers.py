"""The house rules of the package (docs/architecture.md), checked on its source.

* Data flows down the layers (base -> formats and levels -> queries ->
  simulation -> interfaces): no module imports one of a higher layer, at
  module level or inside a function, and the import graph has no circle.
* No module imports another module's private (underscore) name.
* Every module imports on its own in a fresh interpreter, and ``import
  navkit`` followed by a path query loads neither the simulation nor the
  viewer's web server nor the command line.
* Kernel status codes and :class:`navkit.Status` agree.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from navkit import Status
from navkit._kernels import hpa as _hpa
from navkit._kernels import jps as _jps
from navkit._kernels import query as _query
from navkit._kernels import search as _search

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "navkit"

#: Layer of each module, by the longest matching prefix (higher imports lower only).
LAYERS = {
    "navkit._numba_config": 0,
    "navkit._kernels": 0,
    "navkit._compat": 0,
    "navkit._version": 0,
    "navkit.errors": 1,
    "navkit.costs": 1,
    "navkit.grid": 1,
    "navkit.results": 1,
    "navkit.examples": 1,
    "navkit.spline": 1,
    "navkit.casing": 1,
    "navkit.formats": 2,
    "navkit.level": 2,
    "navkit.query": 3,
    "navkit.mesh": 3,
    "navkit.crowd": 3,
    "navkit.agents": 3,
    "navkit.corpus": 3,
    "navkit.world": 3,
    "navkit.sim": 4,
    "navkit.render": 5,
    "navkit.render_mesh": 5,
    "navkit.distributed": 5,
    "navkit.adapters": 5,
    "navkit.warmup": 6,
    "navkit.viewer": 6,
    "navkit.cli": 6,
    "navkit.bench": 6,
    "navkit.__main__": 7,
    "navkit": 7,
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len)
    return LAYERS[best]


def _imports(module: str, path: Path) -> list[tuple[str, list[str], int]]:
    """``(imported module, names, line)`` for every import outside ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [a.name for a in node.names]
            subs = [f"{base}.{n}" for n in names if f"{base}.{n}" in MODULES]
            plain = [n for n in names if f"{base}.{n}" not in MODULES]
            if plain or not subs:
                found.append((base, plain, node.lineno))
            found += [(s, [], node.lineno) for s in subs]
    return [f for f in found if f[0] == "navkit" or f[0].startswith("navkit.")]


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    assert all(_layer(m) >= 0 for m in MODULES)


def test_imports_only_go_down() -> None:
    bad = []
    for mod, imports in GRAPH.items():
        for target, _names, line in imports:
            if target == "navkit" and mod.startswith("navkit.") and mod != "navkit._compat":
                bad.append(f"{mod}:{line} imports the package root")
            elif _layer(target) > _layer(mod):
                bad.append(f"{mod}:{line} (layer {_layer(mod)}) imports {target} "
                           f"(layer {_layer(target)})")
    assert not bad, "\n".join(bad)


def test_kernels_import_only_kernels() -> None:
    for mod, imports in GRAPH.items():
        if mod.startswith("navkit._kernels"):
            for target, _names, line in imports:
                ok = target.startswith(("navkit._kernels", "navkit._numba_config"))
                assert ok, f"{mod}:{line} -> {target}"


def test_no_import_circle() -> None:
    edges = {m: sorted({t for t, _n, _l in imps if t in MODULES and t != m})
             for m, imps in GRAPH.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in edges[m]:
            if state.get(t) == 1:
                cycle = stack[stack.index(t):] + [t]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in edges:
        if m not in state:
            visit(m)


def test_no_private_name_imported_from_another_module() -> None:
    bad = []
    for mod, imports in GRAPH.items():
        for target, names, line in imports:
            last = target.split(".")[-1]
            if target == mod or (last.startswith("_") and last != "_kernels"):
                continue
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    bad.append(f"{mod}:{line} imports {target}.{n}")
    assert not bad, "\n".join(bad)


def _run(code: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(ROOT))


#: One interpreter loads the third-party libraries, then forks a child per
#: module: each child imports one navkit module into an interpreter that has
#: no navkit module loaded (a fresh interpreter as far as navkit goes, at a
#: fraction of the cost of starting Python, numpy and numba 90 times).
_ISOLATED = """
import importlib, os, sys, traceback
import numpy, numba, numba.core.registry  # noqa: F401  (third-party start-up, shared)
assert not any(m == "navkit" or m.startswith("navkit.") for m in sys.modules)
failed = []
for name in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failed.append(name)
print(" ".join(failed))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_every_module_imports_on_its_own() -> None:
    """Each module alone: a circle that the usual import order hides fails here."""
    mods = [m for m in MODULES if m not in ("navkit.__main__",)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", _ISOLATED, *mods], capture_output=True, text=True,
                       timeout=600, env=env, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    failed = r.stdout.strip()
    assert failed == "", f"these modules fail to import on their own: {failed}\n{r.stderr}"


def test_a_path_query_loads_no_interface() -> None:
    code = (
        "import sys, numpy as np, navkit\n"
        "pf = navkit.Pathfinder(navkit.NavGrid(np.ones((4, 4), bool)))\n"
        "pf.find_path((0.5, 0.5), (3.5, 3.5))\n"
        "heavy = [m for m in ('navkit.sim', 'navkit.viewer', 'navkit.cli', 'navkit.bench',\n"
        "                     'starlette', 'uvicorn', 'websockets', 'typer', 'rich')\n"
        "         if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    r = _run(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"a path query imported {r.stdout.strip()}"


@pytest.mark.parametrize("name", [s.name for s in Status])
def test_kernel_status_codes_match_the_enum(name: str) -> None:
    code = int(Status[name])
    if name in ("FOUND", "UNREACHABLE", "BUDGET_EXHAUSTED", "WINDOW_EXHAUSTED", "NEAREST",
                "NO_START", "NO_GOAL"):
        assert getattr(_search, name) == code
    if name in ("NO_START", "NO_GOAL"):
        assert getattr(_jps, name) == code
    if name in ("FOUND", "UNREACHABLE"):
        assert getattr(_hpa, name) == code


def test_internal_kernel_codes_are_not_statuses() -> None:
    internal = [_search.RETRY, _query.FALLBACK, _query.BAD_CIRCLE, _query.NEED_ROOM]
    assert min(internal) >= len(Status)
    # the world query's own codes differ from each other
    assert len({_query.FALLBACK, _query.BAD_CIRCLE, _query.NEED_ROOM}) == 3

"""The house rules of the package (docs/architecture.md), checked on its source.

Layers
------
Every package of navkit and every top-level module is one *unit*, and the
units stand in one total order, :data:`ORDER` (lowest first). A module may
import modules of its own unit or of a lower one, never of a higher one: not
at module level, not inside a function, not through
``importlib.import_module("navkit....")`` with a literal name. The order is
the one the import graph already has; where two units do not import each
other the order between them is a choice, written down so that a new arrow
between them is a decision too. Why each unit stands where it does:

* ``_version``, ``_numba_config`` import nothing of navkit; ``_kernels``
  (numba code) imports only ``_numba_config``.
* The base modules: ``errors`` imports nothing, ``casing`` (JSON key casing
  and the ``--json`` casing) and ``costs``, ``spline``, ``grid``,
  ``contract`` (the navigation contract's types: ``Navigator``, ``Agent``,
  ``Place``, world points), ``examples`` import ``errors``; ``results``
  imports ``spline``; ``_reading`` (a file's bytes, the readers' size limit)
  imports ``grid``; ``recording`` (the query recorder and the grid
  fingerprint that every backend's ``record=`` uses) imports ``results``,
  ``grid``, ``costs`` and ``casing``.
* ``level`` (JSON polygon levels) reads files through ``_reading`` and
  rasterizes with the kernels.
* ``formats`` reads ``.json`` levels (``load_grid``) and Tiled levels
  (``read_tiled_level``) through ``level``, so it stands above it; it hands
  its ``MAX_CELLS`` down to ``_reading`` instead of being asked for it.
* ``query`` builds on grids, the contract, recording, levels (``NavMap``
  holds a ``NavLevel``) and formats (JPS+ tables are saved through
  ``formats.arrays``).
* ``mesh`` (navigation meshes from levels) and ``crowd`` use query's cache
  and thread fan-out; ``world`` (chunked worlds) uses query's padded grid
  and overlay and formats' readers.
* ``corpus`` replays recorded queries of query and world maps, levels and
  formats, and sweeps budgets; the backends record through ``recording``,
  below them, so nothing imports corpus back.
* ``distributed`` runs query batches on a cluster; ``sim`` plans on query,
  mesh and world maps.
* ``render`` draws grids, paths and flow fields, ``render_mesh`` meshes;
  ``adapters`` (arcade, pygame) wrap query.
* The interfaces: ``examples.engines`` are example games (arcade, pygame)
  on query, render and the adapters (the rest of ``examples``, the bundled
  maps, is base); ``viewer`` shows sim, crowd and query; ``warmup`` compiles
  the kernels of every group, the viewer's search included; ``bench``
  measures everything below it; ``cli`` has a command for each, ``navkit
  bench`` included; ``__main__`` starts it.
* ``_compat`` aliases old module paths to modules of every layer, and the
  package root (``navkit``) loads the public names of every layer on first
  use: both stand on top, and no module imports the root.

Other rules
-----------
* No circle: no two packages import each other (anywhere in their modules),
  and the module graph has no circle.
* Private things stay private: no module imports another module's private
  (underscore) name; a private module (``_foo.py``) is imported only from its
  own package (``navkit._kernels`` and ``navkit._reading`` belong to the
  package ``navkit``, so to every module); no expression ``x._name`` reads or
  writes a private attribute defined in another module (see
  :func:`test_no_private_attribute_of_another_module`).
* The padded-index formula ``(z + 1) * wp + x + 1`` is written in
  :class:`navkit.query.padded.PaddedGrid` and in one kernel helper only.
* Every module imports on its own in a fresh interpreter, and ``import
  navkit`` followed by a path query loads neither the simulation nor the
  viewer's web server nor the command line.
* Kernel status codes and :class:`navkit.Status` agree.

Violations that are other engineers' to remove are listed exactly, with
their owner and a reason, in the ``KNOWN_*`` allow-lists: a listed violation
that no longer occurs fails too, so the lists only shrink.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from navkit import Status
from navkit._kernels import hpa as _hpa
from navkit._kernels import jps as _jps
from navkit._kernels import query as _query
from navkit._kernels import search as _search

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "navkit"

#: The units, lowest first (see the module docstring for why each stands where it does).
ORDER = (
    "navkit._version",
    "navkit._numba_config",
    "navkit._kernels",
    "navkit.errors",
    "navkit.casing",
    "navkit.costs",
    "navkit.spline",
    "navkit.results",
    "navkit.grid",
    "navkit.contract",
    "navkit.examples",
    "navkit._reading",
    "navkit.recording",
    "navkit.level",
    "navkit.formats",
    "navkit.agents",
    "navkit.query",
    "navkit.mesh",
    "navkit.crowd",
    "navkit.world",
    "navkit.corpus",
    "navkit.distributed",
    "navkit.sim",
    "navkit.render",
    "navkit.render_mesh",
    "navkit.adapters",
    "navkit.floors",
    "navkit.examples.engines",
    "navkit.viewer",
    "navkit.warmup",
    "navkit.bench",
    "navkit.cli",
    "navkit.__main__",
    "navkit._compat",
    "navkit",
)
RANK = {u: i for i, u in enumerate(ORDER)}

#: Upward imports ``(importer, imported module)`` that their owners remove (none left).
KNOWN_UPWARD: dict[tuple[str, str], str] = {}

#: Package circles ``{A, B}`` (A imports B and B imports A) that their owners remove
#: (none left: the recording wrappers' query / world <-> corpus circle went with
#: ``navkit.recording``).
KNOWN_CIRCLES: dict[frozenset[str], str] = {}

#: Module circles ``{a, b}`` inside one package that their owners remove (none left).
KNOWN_MODULE_CIRCLES: dict[frozenset[str], str] = {}

#: Private attributes read across modules ``(module, expression)`` that their owners remove.
KNOWN_PRIVATE_ACCESS: dict[tuple[str, str], str] = {
    # owner: world (store.py): ChunkStore has no public view of its chunk file
    ("navkit.bench.world_store", "store._backing"):
        "the cold-read benchmark picks mixed chunks from the chunk file's index",
    # owner: base (_numba_config.py): numba has no public way to name a dispatcher
    ("navkit._numba_config", "obj._set_uuid"):
        "numba's private hook gives kernels stable cache identities (best effort)",
}

#: Underscore names that are public API of the standard library: named tuples'
#: methods and fields (``layout._replace(...)``, ``Layout._fields``) and ``os._exit``.
PUBLIC_UNDERSCORE = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}
PUBLIC_UNDERSCORE_OF = {("os", "_exit")}


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
TREES = {m: ast.parse(p.read_text(), filename=str(p)) for m, p in MODULES.items()}


def _unit(module: str) -> str:
    """The unit of ``module``: the longest entry of :data:`ORDER` it lies in."""
    return max((u for u in ORDER if module == u or module.startswith(u + ".")), key=len)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _where(module: str, line: int) -> str:
    return f"{MODULES[module].relative_to(ROOT)}:{line}"


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` assignments."""
    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value.value
    return out


def _imports(module: str) -> list[tuple[str, list[str], int]]:
    """``(imported module, names, line)`` for every import of a navkit module outside
    ``if TYPE_CHECKING:`` (module level or inside a function), and every
    ``importlib.import_module(name)`` whose name is a literal or a module constant."""
    tree = TREES[module]
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    consts = _string_constants(tree)
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
        elif isinstance(node, ast.Call) and node.args:
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            arg = node.args[0]
            target = (arg.value if isinstance(arg, ast.Constant) else
                      consts.get(arg.id) if isinstance(arg, ast.Name) else None)
            if name == "import_module" and isinstance(target, str):
                found.append((target, [], node.lineno))
    return [f for f in found if f[0] == "navkit" or f[0].startswith("navkit.")]


GRAPH = {m: _imports(m) for m in MODULES}


def _edges() -> Iterator[tuple[str, str, int]]:
    """``(importer, imported module, line)`` for every import between navkit modules."""
    for mod, imports in GRAPH.items():
        for target, _names, line in imports:
            yield mod, target, line


# ------------------------------------------------------------------ layers
def test_every_module_has_a_unit_and_every_unit_a_module() -> None:
    units = {_unit(m) for m in MODULES}
    assert units == set(ORDER), f"units without modules: {sorted(set(ORDER) - units)}"


def test_imports_only_go_down() -> None:
    """No import of a higher unit, anywhere in a module (:data:`ORDER`)."""
    bad, seen = [], set()
    for mod, target, line in _edges():
        if RANK[_unit(target)] <= RANK[_unit(mod)]:
            continue
        if (mod, target) in KNOWN_UPWARD:
            seen.add((mod, target))
            continue
        bad.append(f"{_where(mod, line)}: {mod} ({_unit(mod)}) imports {target}, which is "
                   f"higher ({_unit(target)}); move the shared piece down or invert the arrow")
    assert not bad, "imports that go up a layer:\n" + "\n".join(bad)
    stale = sorted(set(KNOWN_UPWARD) - seen)
    assert not stale, f"KNOWN_UPWARD lists imports that no longer go up (remove them): {stale}"


def test_no_module_imports_the_package_root() -> None:
    bad = [f"{_where(mod, line)}: {mod} imports the package root"
           for mod, target, line in _edges()
           if target == "navkit" and mod not in ("navkit", "navkit._compat")]
    assert not bad, "\n".join(bad)


def test_kernels_import_only_kernels() -> None:
    for mod, target, line in _edges():
        if mod.startswith("navkit._kernels"):
            ok = target.startswith(("navkit._kernels", "navkit._numba_config"))
            assert ok, f"{_where(mod, line)}: kernel module {mod} imports {target}"


# ----------------------------------------------------------------- circles
def _unit_edges() -> dict[tuple[str, str], list[str]]:
    """``(unit A, unit B)`` -> the imports by which A imports B (``file:line: a -> b``)."""
    out: dict[tuple[str, str], list[str]] = {}
    for mod, target, line in _edges():
        a, b = _unit(mod), _unit(target)
        if a != b:
            out.setdefault((a, b), []).append(f"{_where(mod, line)}: {mod} -> {target}")
    return out


def test_no_package_circle() -> None:
    """No two units import each other, anywhere in their modules; and no longer circle."""
    edges = _unit_edges()
    bad, seen = [], set()
    for (a, b), chain in sorted(edges.items()):
        if a < b and (b, a) in edges:
            pair = frozenset({a, b})
            if pair in KNOWN_CIRCLES:
                seen.add(pair)
                continue
            bad.append(f"{a} <-> {b}:\n  {a} imports {b}: " + "; ".join(chain)
                       + f"\n  {b} imports {a}: " + "; ".join(edges[(b, a)]))
    assert not bad, "package circles:\n" + "\n".join(bad)
    stale = [sorted(p) for p in set(KNOWN_CIRCLES) - seen]
    assert not stale, f"KNOWN_CIRCLES lists circles that are gone (remove them): {stale}"
    # longer circles, the known pairs' arrows left out
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        if frozenset({a, b}) not in KNOWN_CIRCLES:
            succ.setdefault(a, set()).add(b)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(u: str) -> None:
        state[u] = 1
        stack.append(u)
        for v in sorted(succ.get(u, ())):
            if state.get(v) == 1:
                cycle = [*stack[stack.index(v):], v]
                steps = [f"  {x} -> {y}: {edges[(x, y)][0]}"
                         for x, y in zip(cycle, cycle[1:], strict=False)]
                raise AssertionError("package circle " + " -> ".join(cycle) + "\n"
                                     + "\n".join(steps))
            if v not in state:
                visit(v)
        stack.pop()
        state[u] = 2

    for u in sorted(succ):
        if u not in state:
            visit(u)


def test_no_module_import_circle() -> None:
    """No circle of modules (imports anywhere in a module), the known pairs aside."""
    full = {m: {t for t, _n, _l in imps if t in MODULES and t != m} for m, imps in GRAPH.items()}
    stale = [sorted(p) for p in KNOWN_MODULE_CIRCLES
             if not all(b in full[a] for a, b in (sorted(p), sorted(p)[::-1]))]
    assert not stale, f"KNOWN_MODULE_CIRCLES lists circles that are gone (remove them): {stale}"
    edges = {m: sorted(t for t in ts if frozenset({m, t}) not in KNOWN_MODULE_CIRCLES)
             for m, ts in full.items()}
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


# ------------------------------------------------------------ private names
def test_no_private_name_imported_from_another_module() -> None:
    """``from X import _name`` only inside X itself, whether X is private or not."""
    bad = []
    for mod, imports in GRAPH.items():
        for target, names, line in imports:
            if target == mod:
                continue
            bad += [f"{_where(mod, line)}: {mod} imports {target}.{n}"
                    for n in names if _private(n)]
    assert not bad, "private names imported from another module:\n" + "\n".join(bad)


def _private_module_owner(module: str) -> str | None:
    """The package a private module (or a module inside a private package) belongs
    to: the parent of its first private component; None for a public module."""
    parts = module.split(".")
    for i, p in enumerate(parts):
        if _private(p):
            return ".".join(parts[:i])
    return None


def test_private_modules_are_imported_only_in_their_package() -> None:
    """``navkit.formats._common`` is for ``navkit.formats.*`` only; ``navkit._kernels``
    and the other private top-level modules belong to ``navkit``, so to every module."""
    bad = []
    for mod, target, line in _edges():
        owner = _private_module_owner(target)
        if owner is not None and not (mod == owner or mod.startswith(owner + ".")):
            bad.append(f"{_where(mod, line)}: {mod} imports {target}, private to {owner}")
    assert not bad, "private modules imported from outside their package:\n" + "\n".join(bad)


def _defined_private(tree: ast.Module) -> set[str]:
    """Private names a module defines: functions and classes (anywhere), module and
    class attributes (assigned in the module or a class body), and the attributes
    its methods assign on ``self`` / ``cls``."""
    out: set[str] = set()

    def targets(node: ast.AST) -> Iterator[ast.AST]:
        if isinstance(node, ast.Assign):
            yield from node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            yield node.target

    def names(t: ast.AST) -> Iterator[str]:
        if isinstance(t, ast.Name):
            yield t.id
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                yield from names(e)

    bodies = [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for body in bodies:
        for stmt in body:
            for t in targets(stmt):
                out.update(names(t))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del))
              and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            out.add(node.attr)
    return {n for n in out if _private(n)}


def _private_accesses(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """``(line, expression, name)`` of every ``<expr>._name`` that is not ``self._name``,
    ``cls._name`` or ``super()._name``, nor a public underscore name of the
    standard library."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        base = node.value
        if isinstance(base, ast.Name) and base.id in ("self", "cls"):
            continue
        if (isinstance(base, ast.Call) and isinstance(base.func, ast.Name)
                and base.func.id == "super"):
            continue
        if node.attr in PUBLIC_UNDERSCORE or (ast.unparse(base), node.attr) in PUBLIC_UNDERSCORE_OF:
            continue
        yield node.lineno, ast.unparse(node), node.attr


def test_no_private_attribute_of_another_module() -> None:
    """No ``x._name`` (read, written or called) in module M unless M defines ``_name``.

    The rule is syntactic, so it is sound without knowing types: an object's
    own private attributes are reached as ``self._name`` / ``cls._name``, and
    a module may reach the private attributes of the other objects it defines
    (``other._circles`` in the class that assigns ``self._circles``); any
    other ``x._name`` belongs to another module's object (or module:
    ``_search._offer``) and needs a public method there instead. Named-tuple
    API (``_replace``, ``_fields``, ...) and ``os._exit`` are public. The
    kernels are held to it too: they open their argument groups as named
    tuples with public fields (``grid_.cells``).
    """
    bad, seen = [], set()
    for mod, tree in TREES.items():
        own = _defined_private(tree)
        for line, expr, name in _private_accesses(tree):
            if name in own:
                continue
            if (mod, expr) in KNOWN_PRIVATE_ACCESS:
                seen.add((mod, expr))
                continue
            bad.append(f"{_where(mod, line)}: {expr} ({name} is not defined in {mod}: "
                       "give its owner a public method)")
    assert not bad, "private attributes of other modules:\n" + "\n".join(bad)
    stale = sorted(set(KNOWN_PRIVATE_ACCESS) - seen)
    assert not stale, f"KNOWN_PRIVATE_ACCESS lists accesses that are gone (remove them): {stale}"


# ------------------------------------------------------- the padded index
#: Where ``(z + 1) * wp + x + 1`` may be written: the Python side, the kernel helper.
FORMULA_HOMES = {("navkit/query/padded.py", "PaddedGrid"), ("navkit/_kernels/padded.py", None)}


def _add_terms(node: ast.AST) -> list[ast.AST]:
    """The terms of a sum ``a + b + (c + d)`` (nested sums flattened)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _add_terms(node.left) + _add_terms(node.right)
    return [node]


def _one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1


def _is_wp(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and len(node.args) == 1:  # np.int64(wp), int(pg.wp)
        node = node.args[0]
    return ((isinstance(node, ast.Name) and node.id == "wp")
            or (isinstance(node, ast.Attribute) and node.attr == "wp"))


def _is_padded_index(node: ast.AST) -> bool:
    """``(z + 1) * wp + x + 1`` in any spelling: a sum with a term ``1`` and a
    term ``(... + 1) * wp`` (either factor order, ``wp`` a name or attribute)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
        return False
    terms = _add_terms(node)
    if not any(_one(t) for t in terms):
        return False
    for t in terms:
        if isinstance(t, ast.BinOp) and isinstance(t.op, ast.Mult):
            for row, wp in ((t.left, t.right), (t.right, t.left)):
                if _is_wp(wp) and any(_one(u) for u in _add_terms(row)[1:]):
                    return True
    return False


def _formula_sites(tree: ast.Module) -> Iterator[tuple[int, str | None]]:
    """``(line, enclosing top-level class)`` of every padded-index formula."""
    seen: set[int] = set()
    for top in tree.body:
        cls = top.name if isinstance(top, ast.ClassDef) else None
        for node in ast.walk(top):
            if id(node) not in seen and _is_padded_index(node):
                seen.update(id(n) for n in ast.walk(node))
                yield node.lineno, cls


def test_formula_matcher_sees_the_spellings() -> None:
    def hit(src: str) -> bool:
        return any(_is_padded_index(n) for n in ast.walk(ast.parse(src)))

    for src in ("(z + 1) * wp + x + 1", "(s[1] + 1) * pg.wp + s[0] + 1", "wp * (z + 1) + (x + 1)",
                "((zs.astype(np.int64) + 1) * self.wp + xs + 1)", "1 + x + (z + 1) * wp"):
        assert hit(src), src
    for src in ("(t + 1) * wp + fixed", "p - (z + 1) * wp - 1", "z * wp + x",
                "(z + 1) * w + x + 1"):
        assert not hit(src), src


def test_padded_index_formula_is_written_once() -> None:
    """Only :class:`PaddedGrid` (the Python side) and ``navkit._kernels.padded.cell_node``
    (kernels) write ``(z + 1) * wp + x + 1``; everything else asks them."""
    bad, homes = [], set()
    for mod, tree in TREES.items():
        rel = MODULES[mod].relative_to(ROOT).as_posix()
        for line, cls in _formula_sites(tree):
            if (rel, cls) in FORMULA_HOMES:
                homes.add((rel, cls))
            else:
                bad.append(f"{rel}:{line}: the padded index written out; call "
                           "PaddedGrid.node / nodes_xz / cell_pair, or cell_node in a kernel")
    assert not bad, "\n".join(bad)
    assert homes == FORMULA_HOMES, f"no formula left in {sorted(FORMULA_HOMES - homes)}"


# --------------------------------------------------------------- the docs
def _doc_units() -> list[str]:
    """The units named in docs/architecture.md's layer picture (``[query]`` is
    ``navkit.query``), rows bottom to top, each row left to right."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    m = re.search(r"<!-- layers: begin -->\n```\n(.*?)```\n<!-- layers: end -->", text, re.S)
    assert m, "docs/architecture.md has no layer picture between the layers markers"
    rows = [re.findall(r"\[([\w.]+)\]", line) for line in m.group(1).splitlines()]
    return [u if u == "navkit" else f"navkit.{u}" for row in reversed(rows) for u in row]


def test_architecture_doc_draws_the_checked_order() -> None:
    assert _doc_units() == list(ORDER)


# ------------------------------------------------------------ imports run
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


# ------------------------------------------------------------ status codes
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

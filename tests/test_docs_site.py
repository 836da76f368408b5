"""The docs site: ``mkdocs build --strict`` passes and the pages hold what they should.

The build runs once per module in a subprocess (about 20 s on a 2-core machine,
hence ``slow``); the expected names come from the code (``navkit.__all__``, the
public methods of the classes, the ``docs/*.md`` files), not from the site.
"""

from __future__ import annotations

import html
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "mkdocs.yml"

pytest.importorskip("mkdocs")
pytest.importorskip("material")
pytest.importorskip("mkdocstrings")
pytest.importorskip("mkdocstrings_handlers.python")
griffe = pytest.importorskip("griffe")


def _load_extension() -> Any:  # docs/ is not a package: load the griffe extension by path
    path = ROOT / "docs" / "griffe_navkit.py"
    spec = importlib.util.spec_from_file_location("griffe_navkit", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(CONFIG), "-d", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log[-6000:]}"
    return out, log


def _text(path: Path) -> str:
    """A built page's visible text (tags dropped, entities decoded)."""
    raw = path.read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def _page(out: Path, name: str) -> Path:
    page = out / name / "index.html" if name else out / "index.html"
    assert page.is_file(), f"missing page {page.relative_to(out)}"
    return page


@pytest.mark.slow
def test_build_is_warning_free(site: tuple[Path, str]) -> None:
    _, log = site
    warnings = [line for line in log.splitlines() if re.match(r"^(WARNING|ERROR)\b", line)]
    assert not warnings, "\n".join(warnings)


@pytest.mark.slow
def test_every_docs_page_is_built(site: tuple[Path, str]) -> None:
    out, _ = site
    for md in sorted((ROOT / "docs").glob("*.md")):
        name = "" if md.stem == "index" else md.stem
        page = _page(out, name)
        heading = next((ln[2:].strip() for ln in md.read_text(encoding="utf-8").splitlines()
                        if ln.startswith("# ")), None)
        if heading:  # the page's title made it in (markdown stripped of backticks)
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z*]{3,}", heading)][:3]
            text = _text(page)
            assert all(w in text for w in words), (md.name, words)


@pytest.mark.slow
def test_landing_page_and_pictures(site: tuple[Path, str]) -> None:
    out, _ = site
    text = _text(_page(out, ""))
    for needle in ("navkit", "pip install", "find_path_cells", "make docs", "API reference"):
        assert needle in text, needle
    index_html = _page(out, "").read_text(encoding="utf-8")
    for img in re.findall(r'src="(images/[^"]+)"', index_html):
        assert (out / img).is_file(), img
    shown = set(re.findall(r"images/(site_\w+\.png)", index_html))
    assert shown == {"site_path.png", "site_heatmap.png", "site_flow.png", "site_crowd.png",
                     "site_navmesh.png", "site_floors.png"}


@pytest.mark.slow
def test_plain_reference_is_built(site: tuple[Path, str]) -> None:
    """docs/reference/*.md (the API reference as plain Markdown) are pages of the site too,
    reached from the API index."""
    out, _ = site
    pages = sorted((ROOT / "docs" / "reference").glob("*.md"))
    assert len(pages) == len(list((ROOT / "docs" / "api").glob("*.md")))
    for md in pages:
        page = _page(out, "reference" if md.stem == "index" else f"reference/{md.stem}")
        heading = md.read_text(encoding="utf-8").splitlines()[0][2:]
        assert heading in _text(page), md.name
    assert 'href="../reference/"' in _page(out, "api").read_text(encoding="utf-8")


# (API page, module, class or None): every public member of the class has an anchor.
API = [
    ("api/grid", "navkit.grid", "NavGrid"),
    ("api/pathfinder", "navkit.query.pathfinder", "Pathfinder"),
    ("api/results", "navkit.results", "PathResult"),
    ("api/levels", "navkit.level.runtime", "NavLevel"),
    ("api/navmap", "navkit.query.navmap", "NavMap"),
    ("api/hpa", "navkit.query.hpa", "HPAStar"),
    ("api/flow", "navkit.query.flow", "FlowField"),
    ("api/mesh", "navkit.mesh.navmesh", "NavMesh"),
    ("api/crowds", "navkit.crowd.crowd", "Crowd"),
    ("api/crowds", "navkit.crowd.spatial_hash", "SpatialHash"),
    ("api/simulation", "navkit.sim.location", "Location"),
    ("api/render", "navkit.render", None),
    ("api/world", "navkit.world.store", "ChunkStore"),
    ("api/world", "navkit.world.bake", None),
    ("api/world", "navkit.world.procedural", None),
    ("api/corpus", "navkit.recording.recorder", "QueryRecorder"),
    ("api/corpus", "navkit.corpus.replay", None),
    ("api/distributed", "navkit.distributed.runner", None),
    ("api/grid", "navkit.formats.tiled", None),
    ("api/engines", "navkit.spline", None),
]


@pytest.mark.slow
@pytest.mark.parametrize(("page", "module", "cls"), API)
def test_api_reference(site: tuple[Path, str], page: str, module: str, cls: str | None) -> None:
    out, _ = site
    raw = _page(out, page).read_text(encoding="utf-8")
    assert f'id="{module}"' in raw, f"{module} not rendered on {page}"
    if cls is None:
        return
    mod = __import__(module, fromlist=[cls])
    obj = getattr(mod, cls)
    assert f'id="{module}.{cls}"' in raw
    for name, member in vars(obj).items():
        if name.startswith("_") or not (inspect.isfunction(member)
                                        or isinstance(member, (property, classmethod,
                                                               staticmethod))):
            continue
        func = member.fget if isinstance(member, property) else getattr(member, "__func__",
                                                                       member)
        if not getattr(func, "__doc__", None):
            continue  # mkdocstrings shows documented members only
        assert f'id="{module}.{cls}.{name}"' in raw, f"{cls}.{name} missing on {page}"


@pytest.mark.slow
def test_top_level_names_are_documented(site: tuple[Path, str]) -> None:
    import navkit

    out, _ = site
    anchors = set()
    for page in (out / "api").rglob("index.html"):
        anchors |= set(re.findall(r'id="(navkit\.[\w.]+)"', page.read_text(encoding="utf-8")))
    missing = []
    for name in navkit.__all__:
        if name == "__version__":
            continue
        obj = getattr(navkit, name)
        where = getattr(obj, "__module__", None)
        if where is None or not hasattr(obj, "__qualname__"):
            continue  # a constant (SEED, EXACT): its module is checked above
        if f"{where}.{obj.__qualname__}" not in anchors:
            missing.append(f"navkit.{name} ({where}.{obj.__qualname__})")
    assert not missing, missing


# ---------------------------------------------------------------- the griffe extension


def _parse(text: str, **kw: Any) -> tuple[str, Any]:
    ext = _load_extension()
    mod = griffe.Module("m")
    fn = griffe.Function("f", parent=mod, docstring=griffe.Docstring(text))
    fn.parameters = griffe.Parameters(*(griffe.Parameter(n) for n in kw.get("params", ())))
    mod.set_member("f", fn)
    ext.NavkitDocstrings().on_object(obj=fn)
    assert fn.docstring is not None
    return fn.docstring.value, fn.docstring.parse("numpy")


def test_extension_keeps_trailing_paragraphs() -> None:
    text = ("Summary.\n\nParameters\n----------\ngrid : NavGrid\n    The map.\nsize\n"
            "    Cells.\n\nThread safety: share it\nunder its lock.\n")
    value, sections = _parse(text, params=("grid", "size"))
    params = [s for s in sections if s.kind.value == "parameters"][0].value
    assert [p.name for p in params] == ["grid", "size"]
    rendered = [s for s in sections if s.kind.value == "admonition"]
    assert rendered and "Thread safety" in rendered[0].value.description


def test_extension_fences_bare_doctests() -> None:
    text = "Summary.\n\n>>> [1, 2]\n[1, 2]\n\nMore text.\n"
    value, _ = _parse(text)
    assert "```pycon\n>>> [1, 2]\n[1, 2]\n```" in value
    assert value.rstrip().endswith("More text.")
    # inside an Examples section griffe reads them itself: left alone
    text2 = "Summary.\n\nExamples\n--------\n>>> 1 + 1\n2\n"
    value2, sections2 = _parse(text2)
    assert "```" not in value2 and any(s.kind.value == "examples" for s in sections2)


def test_extension_turns_roles_into_optional_refs() -> None:
    value, _ = _parse("See :class:`~navkit.grid.NavGrid`, :meth:`x <navkit.a.B.c>` and "
                      ":func:`.helper`.")
    assert '<autoref identifier="navkit.grid.NavGrid" optional><code>NavGrid</code></autoref>' \
        in value
    assert '<autoref identifier="navkit.a.B.c" optional><code>x</code></autoref>' in value
    assert "identifier=\"m.helper\"" in value and ":func:" not in value


def test_extension_converts_rest_tables_and_literal_blocks() -> None:
    border = "========  ============\n"
    text = ("Summary.\n\n" + border + "ext       reader\n" + border + "``.map``  Moving AI\n"
            "``.txt``  text | grid\n" + border + "\nOne line per query::\n\n    {\"a\": 1}\n")
    value, _ = _parse(text)
    assert ("| ext | reader |\n|---|---|\n| ``.map`` | Moving AI |\n"
            "| ``.txt`` | text \\| grid |") in value
    assert "One line per query:\n\n    {\"a\": 1}" in value and "::" not in value

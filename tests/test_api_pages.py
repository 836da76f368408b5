"""The plain-Markdown API reference (docs/reference/*.md) is current and complete.

``docs/make_api_pages.py`` writes it from the API pages of the site (docs/api/*.md) and
the docstrings; here it runs in memory and its output is compared with the committed
pages. The expected names come from the code (``navkit.__all__``, each module's
``__all__``, ``inspect``), not from the generator.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
HINT = "run `python docs/make_api_pages.py` and commit docs/reference/"


@pytest.fixture(scope="module")
def gen() -> Any:  # docs/ is not a package: load the script by path
    spec = importlib.util.spec_from_file_location("make_api_pages",
                                                  ROOT / "docs" / "make_api_pages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages(gen: Any) -> dict[str, str]:
    return gen.generate()


def _directives() -> list[tuple[str, str]]:
    """``(page stem, module)`` for every ``::: module`` line of docs/api/*.md."""
    out = []
    for md in sorted((ROOT / "docs" / "api").glob("*.md")):
        out += [(md.stem, m) for m in re.findall(r"^::: (\S+)", md.read_text("utf-8"), re.M)]
    return out


def test_committed_pages_are_current(pages: dict[str, str]) -> None:
    committed = {p.name: p.read_text(encoding="utf-8") for p in REFERENCE.glob("*.md")}
    stale = sorted(n for n in pages if committed.get(n) != pages[n])
    extra = sorted(set(committed) - set(pages))
    assert not stale and not extra, (
        f"docs/reference is stale (pages {stale}, no longer generated {extra}): {HINT}")


def test_output_is_deterministic(gen: Any, pages: dict[str, str]) -> None:
    assert gen.generate() == pages
    for name, text in pages.items():
        assert not re.search(r" at 0x[0-9a-fA-F]+", text), name  # no object addresses
        assert str(ROOT) not in text, name  # no absolute paths


def test_a_changed_docstring_makes_the_pages_stale(gen: Any, pages: dict[str, str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from navkit.query.hpa import HPAStar

    monkeypatch.setattr(HPAStar, "__doc__", "A changed summary line.\n")
    changed = gen.generate()
    assert changed["hpa.md"] != pages["hpa.md"]
    assert "A changed summary line." in changed["hpa.md"]


def test_every_top_level_name_has_an_entry(pages: dict[str, str]) -> None:
    import navkit

    headings = set()
    for text in pages.values():
        headings |= set(re.findall(r"^### (\w+)$", text, re.M))
    missing = [n for n in navkit.__all__ if n != "__version__" and n not in headings]
    assert not missing, f"top-level names without an entry: {missing}"
    index = pages["index.md"]
    for name in navkit.__all__:
        if name == "__version__":
            continue
        row = re.search(rf"^\| `navkit\.{name}` \| (.*) \|$", index, re.M)
        assert row, f"navkit.{name} not in the index"
        link = re.search(r"\]\((\w+)\.md(?:#([\w-]+))?\)", row.group(1))
        assert link, f"navkit.{name}: {row.group(1)}"
        target = pages[f"{link.group(1)}.md"]
        assert f"### {name}\n" in target, f"navkit.{name} not on {link.group(1)}.md"
        if link.group(2):  # the anchor is the heading's (GitHub's and mkdocs' slug)
            assert link.group(2) == name.lower()


@pytest.mark.parametrize(("stem", "module"), _directives())
def test_every_module_name_is_on_its_page(pages: dict[str, str], stem: str,
                                          module: str) -> None:
    text = pages[f"{stem}.md"]
    assert f"## {module}\n" in text
    section = text.split(f"## {module}\n", 1)[1].split("\n## ", 1)[0]
    api = (ROOT / "docs" / "api" / f"{stem}.md").read_text(encoding="utf-8")
    block = api.split(f"::: {module}\n", 1)[1].split(":::", 1)[0]
    listed = re.findall(r"^\s+- (\w+)$", block, re.M)  # an `options: members:` list
    mod = importlib.import_module(module)
    names = listed or list(getattr(mod, "__all__", []))
    assert names, module
    found = re.findall(r"^### (\w+)$", section, re.M)
    assert found == names, f"{module}: {found} != {names}"


@pytest.mark.parametrize("cls_path", ["navkit.grid.NavGrid",
                                      "navkit.query.pathfinder.Pathfinder",
                                      "navkit.mesh.navmesh.NavMesh",
                                      "navkit.sim.location.Location"])
def test_class_members_with_signatures(pages: dict[str, str], cls_path: str) -> None:
    module, _, name = cls_path.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    text = "\n".join(pages.values())
    entry = text.split(f"### {name}\n", 1)[1].split("\n### ", 1)[0]
    for attr, member in vars(cls).items():
        if attr.startswith("_"):
            continue
        if isinstance(member, property):
            assert f"- `{attr}` (property" in entry, f"{name}.{attr}"
        elif inspect.isfunction(getattr(member, "__func__", member)):
            func = getattr(member, "__func__", member)
            params = list(inspect.signature(func).parameters)
            if not isinstance(member, staticmethod):
                params = params[1:]  # self / cls
            line = next((ln for ln in entry.splitlines() if re.match(
                rf"- (classmethod |staticmethod )?`{attr}\(", ln)), None)
            assert line is not None, f"{name}.{attr} missing"
            for p in params:  # every parameter is in the shown signature
                assert re.search(rf"[(, ]\**{p}[:,)= ]", line), f"{name}.{attr}: {p}"
            doc = inspect.getdoc(func)
            if doc:  # the summary starts with the docstring's first word
                first = re.findall(r"\w+", re.sub(r":\w+:`~?([^`]+)`", r"\1", doc))[0]
                assert first in line.split("`: ", 1)[-1], f"{name}.{attr}: {first!r}"

def test_api_pages_link_their_plain_page() -> None:
    for md in sorted((ROOT / "docs" / "api").glob("*.md")):
        if md.stem == "index":
            target = "../reference/index.md"
        else:
            target = f"../reference/{md.stem}.md"
        assert f"]({target})" in md.read_text(encoding="utf-8"), f"{md.name} lacks {target}"
        assert (REFERENCE / Path(target).name).is_file(), HINT


def test_no_internal_issue_numbers(pages: dict[str, str]) -> None:
    for name, text in pages.items():
        assert not re.search(r"(?i)\bissue #?\d+|#\d{2,}\b", text), name

"""A griffe extension for the docs site: navkit's docstrings, as written, rendered faithfully.

navkit's docstrings are numpy style with three habits that griffe's numpy parser
does not read as meant. This extension rewrites the docstring *text* before
griffe parses it (the modules are not touched):

* a paragraph after a ``Parameters`` (``Returns``, ``Attributes``, ...) block,
  at column 0 after a blank line, is a note, not an item: griffe would drop it
  (``Could not parse line``) or read its first word as a parameter name. It goes
  under a ``Notes`` heading.
* ``>>>`` doctest blocks outside an ``Examples`` section are fenced as
  ``pycon`` code (Markdown would read them as nested block quotes and their
  output lists as reference links).
* reST simple tables (``====  ====`` borders) become Markdown tables, and a
  paragraph ending in ``::`` (a reST literal block) ends in ``:``.
* Sphinx roles (``:class:`~navkit.grid.NavGrid```, ``:meth:`build```) become
  optional cross-references: linked when the target is on the site, plain code
  otherwise (never a warning).

Loaded by ``mkdocs.yml`` (``plugins.mkdocstrings.handlers.python.options.extensions``).
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ITEM_SECTIONS = {"parameters", "other parameters", "returns", "yields", "receives",
                  "raises", "warns", "attributes"}
_KNOWN_SECTIONS = _ITEM_SECTIONS | {"examples", "notes", "see also", "references",
                                    "warnings", "deprecated", "methods", "functions",
                                    "classes", "modules", "type parameters", "type aliases"}
_NAME = r"\*{0,2}[A-Za-z_][\w.]*"
_ITEM = re.compile(rf"^{_NAME}(, {_NAME})*( ?: ?.*)?$")
_TYPE_ONLY = re.compile(r"^[\w.\[\], |()\"'-]+$")
_ROLE = re.compile(r":(?:py:)?(class|func|meth|attr|mod|data|exc|obj|const):`(~?)([^`]+)`")


def _is_dash(line: str) -> bool:
    s = line.strip()
    return len(s) >= 3 and set(s) == {"-"}


def _looks_like_item(line: str, nxt: str | None, section: str) -> bool:
    """Whether a column-0 line in an item section starts an item (not a paragraph)."""
    if line.startswith(">>>"):
        return False
    if nxt is not None and nxt.strip() and not nxt.startswith(" "):
        return False  # two unindented lines in a row: a paragraph
    head = line.split(" : ", 1)[0] if " : " in line else line
    if section in ("returns", "yields", "receives", "raises", "warns") and " : " not in line:
        return bool(_TYPE_ONLY.match(line)) and (nxt is None or nxt.startswith(" "))
    if not _ITEM.match(line):
        return False
    return " " not in head.replace(", ", ",")


def _add_notes(lines: list[str]) -> list[str]:
    """Put trailing paragraphs of item sections under a ``Notes`` heading."""
    out: list[str] = []
    section = ""
    fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and nxt is not None and line.strip() and _is_dash(nxt) \
                and not line.startswith(" "):
            section = line.strip().lower()
            out += [line, nxt]
            i += 2
            continue
        if (not fence and section in _ITEM_SECTIONS and line.strip()
                and not line.startswith(" ") and out and not out[-1].strip()
                and not _looks_like_item(line, nxt, section)):
            out += ["Notes", "-----"]
            section = "notes"
        out.append(line)
        i += 1
    return out


def _fence_doctests(lines: list[str]) -> list[str]:
    """Fence ``>>>`` blocks that are not inside an ``Examples`` section."""
    out: list[str] = []
    section = ""
    fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and nxt is not None and line.strip() and _is_dash(nxt):
            section = line.strip().lower()
        if not fence and section != "examples" and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            if out and out[-1].strip():
                out.append("")
            out += [f"{indent}```pycon", *block, f"{indent}```"]
            continue
        out.append(line)
        i += 1
    return out


_BORDER = re.compile(r"^(\s*)(=+)((?: +=+)+)\s*$")


def _columns(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _cells(line: str, cols: list[tuple[int, int]]) -> list[str]:
    out = []
    for k, (a, _) in enumerate(cols):
        b = cols[k + 1][0] if k + 1 < len(cols) else len(line)
        out.append(line[a:b].strip().replace("|", "\\|"))
    return out


def _rst_tables(lines: list[str]) -> list[str]:
    """reST simple tables (border, header, border, rows, border) as Markdown tables."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _BORDER.match(lines[i])
        ends = [j for j in range(i + 1, len(lines)) if lines[j] == lines[i]]
        if m and len(ends) >= 2 and ends[0] == i + 2:
            cols = _columns(lines[i])
            indent = m.group(1)
            last = ends[1]
            header = _cells(lines[i + 1], cols)
            rows = [_cells(ln, cols) for ln in lines[i + 3:last] if ln.strip()]
            if out and out[-1].strip():
                out.append("")
            out.append(indent + "| " + " | ".join(header) + " |")
            out.append(indent + "|" + "---|" * len(cols))
            out += [indent + "| " + " | ".join(r) + " |" for r in rows]
            i = last + 1
            continue
        line = lines[i]
        if line.rstrip().endswith("::") and not line.lstrip().startswith((">>>", "...")):
            line = line.rstrip()[:-1]  # "text::" -> "text:"; the indented block is code
            if line.endswith(" :") or line.strip() == ":":
                line = line[:-1].rstrip()
        out.append(line)
        i += 1
    return out


def _roles(text: str, obj: griffe.Object) -> str:
    module = obj.module.path if not isinstance(obj, griffe.Module) else obj.path
    cls = obj if isinstance(obj, griffe.Class) else (
        obj.parent if obj.parent is not None and isinstance(obj.parent, griffe.Class) else None)

    def replace(match: re.Match[str]) -> str:
        kind, tilde, target = match.groups()
        target = target.strip()
        explicit = re.match(r"^(.*?)\s*<([^<>]+)>$", target)
        if explicit:  # :meth:`title <target>`
            shown, target = explicit.group(1), explicit.group(2).strip()
        else:
            shown = target.rsplit(".", 1)[-1] if tilde else target.lstrip(".")
            if kind in ("func", "meth"):
                shown += "()"
        if not re.fullmatch(r"\.*[\w.]+", target):
            return f"<code>{html.escape(shown)}</code>"
        shown = html.escape(shown)
        if target.startswith("navkit"):
            ident = target
        elif target.startswith("."):
            base = module.rsplit(".", max(0, len(target) - len(target.lstrip(".")) - 1))[0]
            ident = f"{base}.{target.lstrip('.')}"
        elif cls is not None and kind in ("meth", "attr"):
            ident = f"{cls.path}.{target}"
        else:
            ident = f"{module}.{target}"
        return f'<autoref identifier="{ident}" optional><code>{shown}</code></autoref>'

    return _ROLE.sub(replace, text)


class NavkitDocstrings(griffe.Extension):
    """Rewrite every docstring's text before it is parsed (see the module docstring)."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.is_alias or obj.docstring is None:
            return
        lines = obj.docstring.value.split("\n")
        lines = _rst_tables(_fence_doctests(_add_notes(lines)))
        obj.docstring.value = _roles("\n".join(lines), obj)

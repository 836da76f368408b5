"""JSON levels: parse_level, read_level / load_level / load_grid(.json), rasterize, NavLevel edits.

Configs are the bundled levels or small random ones, mutated structurally
(a random field replaced by an extreme number, a wrong type, a deep or long
list; keys dropped, names duplicated, polygons bent) or as text (truncation,
byte flips, deep nesting, 300- and 4,400-digit integers, NaN literals). A
level that loads is edited at runtime with valid edits, and its grid must then
equal a fresh rasterization of the edited config (docs/rules.md §2.4).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np

from .core import BIG300, BIG4400, NUMBERS, Case, Context, Gen, check, extreme_like, show
from .gen_readers import EXAMPLES, mutate

_EXAMPLE_LEVELS = ("interior.json", "outdoor.json", "bench80.json")
_BIG_TEXT = "7" + "0" * 4398 + "1"


def _int_text(v: int) -> str:
    """Decimal digits of any int (``str`` refuses more than 4,300 of them)."""
    if abs(v) < 10**4000:
        return str(v)
    chunks, n = [], abs(v)
    while n:
        n, r = divmod(n, 10**1000)
        chunks.append(r)
    text = str(chunks[-1]) + "".join(str(c).zfill(1000) for c in reversed(chunks[:-1]))
    return ("-" if v < 0 else "") + text


def json_text(obj: Any) -> str:
    """JSON text of any value here: NaN / Infinity literals, integers of any length, lists
    nested deeper than the recursion limit; other types as strings."""
    out: list[str] = []
    stack: list[Any] = [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, _Lit):
            out.append(v.text)
        elif isinstance(v, dict):
            items: list[Any] = [_Lit("{")]
            for i, (k, x) in enumerate(v.items()):
                items += [_Lit((", " if i else "") + json.dumps(str(k)) + ": "), x]
            stack += reversed([*items, _Lit("}")])
        elif isinstance(v, (list, tuple)):
            items = [_Lit("[")]
            for i, x in enumerate(v):
                items += [_Lit(", "), x] if i else [x]
            stack += reversed([*items, _Lit("]")])
        elif isinstance(v, bool) or v is None or isinstance(v, (str, float)):
            out.append(json.dumps(v))
        elif isinstance(v, int):
            out.append(_int_text(v))
        else:
            out.append(json.dumps(str(v)))
    return "".join(out)


class _Lit:
    """Literal JSON text on :func:`json_text`'s stack."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def random_level(g: Gen) -> dict[str, Any]:
    """A small level: a few rectangles (some overlapping, some weighted, one a closed door)
    and a few obstacles."""
    areas = []
    for i in range(g.randint(1, 4)):
        x, z = g.uniform(-5, 5), g.uniform(-5, 5)
        w, d = g.uniform(0.5, 6), g.uniform(0.5, 6)
        area: dict[str, Any] = {"name": f"a{i}",
                                "polygon": [[x, z], [x + w, z], [x + w, z + d], [x, z + d]]}
        if g.chance(0.3):
            area["weight"] = g.randint(1, 9)
        if g.chance(0.2):
            area["available"] = False
        if g.chance(0.15):
            cx, cz = x + w / 2, z + d / 2
            area["holes"] = [[[cx - 0.2, cz - 0.2], [cx + 0.2, cz - 0.2], [cx, cz + 0.2]]]
        areas.append(area)
    obstacles = []
    for i in range(g.randint(0, 3)):
        x, z = g.uniform(-5, 8), g.uniform(-5, 8)
        obstacles.append({"name": f"o{i}", "polygon": [[x, z], [x + 0.5, z], [x + 0.2, z + 0.6]]})
    level: dict[str, Any] = {"areas": areas, "obstacles": obstacles,
                             "cellSize": g.choice([0.25, 0.4, 0.5, 1.0])}
    for key, vals in (("agentRadius", [0.0, 0.3, 0.45]), ("objectPadding", [0.0, 0.1]),
                      ("boundaryPadding", [0.0, 0.2])):
        if g.chance(0.5):
            level[key] = g.choice(vals)
    return level


def base_level(g: Gen) -> tuple[dict[str, Any], str]:
    if g.chance(0.35):
        name = g.choice(_EXAMPLE_LEVELS)
        return json.loads((EXAMPLES / name).read_text()), name
    return random_level(g), "random level"


def _paths(obj: Any) -> list[tuple[Any, ...]]:
    """Key paths into a JSON tree (at most 12 deep, 50 items per list), root first."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), obj)]
    while stack:
        prefix, node = stack.pop()
        out.append(prefix)
        if len(prefix) >= 12:
            continue
        if isinstance(node, dict):
            stack += [((*prefix, k), v) for k, v in reversed(list(node.items()))]
        elif isinstance(node, list):
            stack += [((*prefix, i), v) for i, v in reversed(list(enumerate(node[:50])))]
    return out


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def hostile_value(g: Gen) -> Any:
    kind = g.choice(["number"] * 5 + ["deep", "long", "string", "object", "point", "ragged"])
    if kind == "number":
        return g.choice(NUMBERS + (BIG300, BIG4400, -0.0, 1e-9, 1e9))
    if kind == "deep":
        v: Any = 1
        for _ in range(g.choice([50, 500, 5000])):
            v = [v]
        return v
    if kind == "long":
        return [[g.uniform(-3, 3), g.uniform(-3, 3)] for _ in range(g.choice([3, 200, 5000]))]
    if kind == "string":
        return g.choice(["", "x", "door", "\u0000", "a" * 10_000, "NaN", "1e308"])
    if kind == "object":
        return g.choice([{}, {"name": "x"}, {"polygon": []}, {"a": {"b": {"c": []}}}])
    if kind == "point":
        return [g.choice(NUMBERS), g.choice(NUMBERS)]
    return [[0, 0], [1], [1, 1, 1], "p"]


def mutate_level(g: Gen, level: dict[str, Any]) -> tuple[dict[str, Any], str]:
    level = copy.deepcopy(level)
    done = []
    for _ in range(g.choice([1, 1, 2, 3])):
        op = g.choice(["replace"] * 6 + ["delete", "unknown-key", "duplicate-name", "no-areas",
                                          "bowtie", "degenerate", "many-points", "param"])
        paths = [p for p in _paths(level) if p]
        if op == "replace" and paths:
            p = g.choice(paths)
            parent = _get(level, p[:-1])
            v = extreme_like(g, parent[p[-1]]) if g.chance(0.5) else hostile_value(g)
            parent[p[-1]] = v
            done.append(f"{'.'.join(map(str, p))}={show(v, 24)}")
        elif op == "delete" and paths:
            p = g.choice(paths)
            parent = _get(level, p[:-1])
            del parent[p[-1]]
            done.append(f"del {'.'.join(map(str, p))}")
        elif op == "unknown-key":
            level[g.choice(["colour", "areas ", "Areas", "__proto__"])] = 1
            done.append("unknown key")
        elif op == "duplicate-name" and isinstance(level.get("areas"), list) and level["areas"]:
            first = level["areas"][0]  # (shallow: the area may hold a list deeper than recursion)
            level["areas"].append(dict(first) if isinstance(first, dict) else first)
            done.append("duplicate area")
        elif op == "no-areas":
            level["areas"] = g.choice([[], None, {}, "areas"])
            done.append(f"areas={show(level['areas'])}")
        elif op in ("bowtie", "degenerate", "many-points"):
            poly = {"bowtie": [[0, 0], [2, 2], [2, 0], [0, 2]],
                    "degenerate": g.choice([[[0, 0], [1, 1], [2, 2]], [[1, 1]] * 4,
                                            [[0, 0], [1, 0]], [[0, 0], [1, 0], [0, 0], [1, 0]]]),
                    "many-points": [[np.cos(t) * 3, np.sin(t) * 3]
                                    for t in np.linspace(0, 6.28, g.choice([100, 5000]))]}[op]
            key = g.choice(["areas", "obstacles"])
            level.setdefault(key, [])
            if isinstance(level[key], list):
                level[key].append({"name": f"{op}{len(level[key])}", "polygon": poly})
            done.append(op)
        elif op == "param":
            key = g.choice(["cellSize", "agentRadius", "objectPadding", "boundaryPadding",
                            "floorY", "maxCells"])
            level[key] = g.choice([0, -0.4, 1e-300, 1e-9, 1e308, float("nan"), float("inf"),
                                   "0.4", True, None, [0.4], 0.05, 2**63, BIG300, 1.5, 1, 5e-324,
                                   2**30, 2**30 + 1])
            done.append(f"{key}={show(level[key])}")
    return level, "; ".join(done) or "nothing"


def _check_level_grid(ctx: Context, grid: Any) -> None:
    from navkit import NavGrid

    check(isinstance(grid, NavGrid), "level gave no NavGrid")
    check(grid.walkable.ndim == 2 and grid.size >= 1, "level grid is empty")
    check(np.isfinite([grid.cell_size, grid.min_x, grid.min_z, grid.floor_y]).all(),
          "level grid geometry not finite")


def gen_parse(g: Gen) -> Case:
    level, base = base_level(g)
    level, how = mutate_level(g, level) if g.chance(0.9) else (level, "unmutated")

    def run(ctx: Context) -> None:
        from navkit.level import NavLevel, parse_level, rasterize

        ctx.at("parse_level")
        cfg = parse_level(level)
        ctx.at("rasterize")
        grid = rasterize(cfg)
        _check_level_grid(ctx, grid)
        ctx.at("NavLevel")
        nav = NavLevel(cfg)
        check(nav.grid.equals(grid), "NavLevel grid differs from rasterize")

    return Case("levels", "parse_level", f"{base}: {how}", run)


def gen_text(g: Gen) -> Case:
    level, base = base_level(g)
    if g.chance(0.5):
        level, how = mutate_level(g, level)
    else:
        how = ""
    text = json_text(level).encode()
    special = g.choice(["mutate"] * 5 + ["deep", "big", "nan", "bom", "utf16", "empty", "none"])
    if special == "mutate":
        text, extra = mutate(g, text, text=True)
    elif special == "deep":
        n = g.choice([1000, 100_000, 1_000_000])
        text = text.replace(b'"areas": [', b'"areas": [' + b"[" * n + b"]" * n + b",", 1)
        extra = f"{n}-deep nesting"
    elif special == "big":
        text = text.replace(b"0.", _BIG_TEXT.encode() + b".", 1) if g.chance(0.5) else \
            text.replace(b"[", b"[" + (b"9" * 300) + b",", 1)
        extra = "huge integer literal"
    elif special == "nan":
        text = text.replace(b"0.", b"NaN, 0.", 1).replace(b": 0", b": Infinity", 1)
        extra = "NaN/Infinity literals"
    elif special == "bom":
        text, extra = b"\xef\xbb\xbf" + text, "BOM"
    elif special == "utf16":
        text, extra = text.decode().encode("utf-16"), "UTF-16"
    elif special == "empty":
        text, extra = g.choice([b"", b"null", b"[]", b"0", b'"x"', b"{}"]), "no object"
    else:
        extra = "text as dumped"
    via = g.choice(["read_level", "load_level", "load_grid", "NavMap.load", "NavLevel.from_file"])
    options: dict[str, Any] = {}
    if via in ("load_level", "load_grid") and g.chance(0.3):
        options[g.choice(["cell_size", "agent_radius", "max_cells", "name", "bogus",
                          "floor_y"])] = g.number()

    def run(ctx: Context) -> None:
        from navkit import NavMap, load_grid
        from navkit.level import NavLevel, load_level, rasterize, read_level

        p = ctx.tmp / "level.json"
        p.write_bytes(text)
        ctx.at(via)
        if via == "read_level":
            _check_level_grid(ctx, rasterize(read_level(p)))
        elif via == "load_level":
            _check_level_grid(ctx, load_level(p, **options))
        elif via == "load_grid":
            _check_level_grid(ctx, load_grid(p, **options))
        elif via == "NavMap.load":
            m = NavMap.load(p)
            _check_level_grid(ctx, m.grid)
        else:
            _check_level_grid(ctx, NavLevel.from_file(p).grid)

    return Case("levels", via, f"{base}: {how} {extra}; {len(text)} bytes, options "
                f"{show(options)}", run)


def gen_edits(g: Gen) -> Case:
    """Runtime edits: valid ones (the grid must equal a fresh rasterization) or hostile."""
    level, base = base_level(g)
    hostile = g.chance(0.5)
    n = g.randint(1, 5)

    def run(ctx: Context) -> None:
        from navkit import NavMap
        from navkit.level import NavLevel, parse_level, rasterize

        nav = NavLevel(parse_level(level))
        _ = nav.grid
        names = list(nav.area_names)
        done = []
        target: Any = nav
        if g.chance(0.3):
            target = NavMap(nav)
        for k in range(n):
            op = g.choice(["toggle", "toggle", "add", "remove", "areas_at"])
            geo = nav.config.grid_geometry()
            if op == "toggle":
                name = g.choice(names) if not hostile or g.chance(0.5) else g.choice(
                    ["", "nope", 5, None, names[0].upper()])
                value = g.chance(0.5) if not hostile or g.chance(0.5) else g.number()
                done.append(f"set_area_available({show(name, 16)}, {show(value, 16)})")
                ctx.at("set_area_available")
                target.set_area_available(name, value)
            elif op == "add":
                x = geo.min_x + g.uniform(0, geo.width * geo.cell_size)
                z = geo.min_z + g.uniform(0, geo.depth * geo.cell_size)
                s = g.uniform(0.05, 3)
                poly: Any = [[x, z], [x + s, z], [x + s / 2, z + s]]
                name: Any = f"new{k}"
                if hostile:
                    if g.chance(0.5):
                        poly = hostile_value(g)
                    else:
                        name = g.choice(["", None, 7, names[0], "o0", "x" * 5000])
                done.append(f"add_obstacle({show(name, 16)}, {show(poly, 40)})")
                ctx.at("add_obstacle")
                target.add_obstacle(name, poly)
            elif op == "remove":
                known = list(nav.obstacle_names)
                name = g.choice(known) if known and (not hostile or g.chance(0.5)) else \
                    g.choice(["nope", "", None, 3])
                done.append(f"remove_obstacle({show(name, 16)})")
                ctx.at("remove_obstacle")
                target.remove_obstacle(name)
            else:
                x = g.uniform(geo.min_x, geo.min_x + geo.width * geo.cell_size)
                z = g.uniform(geo.min_z, geo.min_z + geo.depth * geo.cell_size)
                if hostile:
                    x = g.choice([x, g.number()])
                ctx.at("NavLevel.areas_at")
                nav.areas_at(x, z)
                continue
            ctx.at("NavLevel.grid after edits")
            fresh = rasterize(nav.config)
            check(nav.grid.equals(fresh), "edited level differs from a fresh rasterization",
                  "; ".join(done))

    return Case("levels", "NavLevel edits", f"{base}, {n} {'hostile' if hostile else 'valid'} "
                "edits", run)


GENERATORS = [(5, gen_parse), (5, gen_text), (3, gen_edits)]

"""The simulation: saved states and scenes (mutated), and the Location / Character API.

A base scene (the bundled examples, or a small random level with a few
characters and commands) runs some ticks; its saved state is then mutated
(any field: extreme, NaN, huge or negative numbers, wrong types, unknown or
duplicate IDs, long lists, out-of-range indices) and loaded, or the scene file
is mutated as text. A location that loads must run, and save what it runs.
Unmutated states are the control: loading a state saved at tick k and running
on must equal the run that never stopped (docs/rules.md §12.5), and contact
circles that did not overlap must never come to overlap (§9.2).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .core import BIG300, BIG4400, NUMBERS, Case, Context, Gen, check, extreme_like, show
from .gen_levels import _get, _paths, hostile_value, json_text, random_level
from .gen_readers import EXAMPLES, REPO_ROOT, mutate

SCENES = REPO_ROOT / "navkit" / "examples" / "scenes"
_SCENE_FILES = ("corridor_head_on.json", "follow.json", "interior_crowd.json")


def random_scene(g: Gen) -> dict[str, Any]:
    """A small scene: a random level (or the arena map), a few characters, a few commands."""
    if g.chance(0.2):
        nav: Any = str(EXAMPLES / "arena.map")
        lo, hi = 1.5, 47.5
    else:
        nav = random_level(g)
        xs = [p[0] for a in nav["areas"] for p in a["polygon"]]
        zs = [p[1] for a in nav["areas"] for p in a["polygon"]]
        lo, hi = min(min(xs), min(zs)), max(max(xs), max(zs))
    n = g.randint(1, 6)
    chars = []
    for i in range(n):
        c: dict[str, Any] = {"id": g.choice([f"c{i}", i, f"npc_{i}"]),
                             "kind": g.choice(["npc", "npc", "player", "bot"]),
                             "position": [g.uniform(lo, hi), g.uniform(lo, hi)]}
        if g.chance(0.3):
            c["walkSpeed"] = g.uniform(0.5, 3)
        if g.chance(0.2):
            c["navigationRetryCooldownMs"] = [g.randint(50, 900) for _ in range(10)]
        chars.append(c)
    cmds = []
    for _ in range(g.randint(0, 5)):
        who = g.choice(chars)["id"]
        act = g.choice(["moveTo", "moveTo", "follow", "stop", "talkTo"])
        cmd: dict[str, Any] = {"tick": g.randint(0, 20), "character": who}
        if act == "moveTo":
            cmd["moveTo"] = [g.uniform(lo, hi), g.uniform(lo, hi)]
        elif act == "follow":
            cmd["follow"], cmd["range"] = g.choice(chars)["id"], g.uniform(0.5, 3)
        elif act == "stop":
            cmd["stop"] = True
        else:
            npcs = [c["id"] for c in chars if c["kind"] == "npc" and c["id"] != who]
            if not npcs:
                continue
            cmd["talkTo"] = g.choice(npcs)
        cmds.append(cmd)
    return {"navigation": nav, "tickRate": g.choice([20, 20, 10, 30, 60]), "characters": chars,
            "commands": cmds}


def base_scene(g: Gen) -> tuple[dict[str, Any], str]:
    if g.chance(0.4):
        name = g.choice(_SCENE_FILES)
        return json.loads((SCENES / name).read_text()), name
    return random_scene(g), "random scene"


_SIM_VALUES: tuple[Any, ...] = NUMBERS + (
    "npc", "player", "WALK", "STAND", "nobody", -5, 10**6, [0.0, 0.0], [1e308, 1e308],
    [math.nan, 0.0], [[0, 0]] * 3, [[0.0, 0.0]] * 5000, list(range(10)), [0] * 10, [-1] * 10,
    [10**9] * 10, [BIG300] * 10, [1e308] * 10, [1] * 9, [2] * 11, {"target": "nobody"},
    {"target": None}, {"range": 1}, BIG4400,
)


def mutate_state(g: Gen, obj: dict[str, Any]) -> tuple[dict[str, Any], str]:
    obj = copy.deepcopy(obj)
    done = []
    for _ in range(g.choice([1, 1, 1, 2, 3])):
        raw = obj.get("characters")
        chars = [c for c in raw if isinstance(c, dict)] if isinstance(raw, list) else []
        ids = [c["id"] for c in chars if "id" in c] or ["nobody"]
        op = g.choice(["char-field"] * 6 + ["any", "any", "delete", "id", "top", "command",
                                           "follow"])
        if op == "char-field" and chars:
            i = g.randint(0, len(chars) - 1)
            key = g.choice(list(chars[i]) + ["follow", "retryBlocker", "bogus"])
            old = chars[i].get(key)
            v = (extreme_like(g, old) if old is not None and g.chance(0.5) else
                 g.choice(_SIM_VALUES) if g.chance(0.8) else hostile_value(g))
            if key == "retryBlocker" and g.chance(0.5):
                v = g.choice([*ids, "nobody", None])
            chars[i][key] = v
            done.append(f"characters[{i}].{key}={show(v, 30)}")
        elif op == "follow" and chars:
            i = g.randint(0, len(chars) - 1)
            f = {"target": g.choice(ids), "range": g.uniform(0, 3)}
            for key in g.sample(["range", "talk", "bestDistance", "stallTicks", "lastPlanTick",
                                 "goal", "onPath"], g.randint(1, 3)):
                f[key] = g.choice(_SIM_VALUES)
            chars[i]["follow"] = f
            done.append(f"characters[{i}].follow={show(f, 60)}")
        elif op == "id" and chars:
            i = g.randint(0, len(chars) - 1)
            v = g.choice(["", -1, True, 1.5, None, ids[0], BIG300, "x" * 5000, [1], 2**63])
            chars[i]["id"] = v
            done.append(f"characters[{i}].id={show(v, 20)}")
        elif op in ("any", "delete"):
            paths = [p for p in _paths(obj) if p and p[0] != "navigation"] or [("tick",)]
            p = g.choice(paths)
            try:
                parent = _get(obj, p[:-1])
                if op == "delete":
                    del parent[p[-1]]
                    done.append(f"del {'.'.join(map(str, p))}")
                else:
                    v = (extreme_like(g, parent[p[-1]]) if g.chance(0.5)
                         else g.choice(_SIM_VALUES))
                    parent[p[-1]] = v
                    done.append(f"{'.'.join(map(str, p))}={show(v, 30)}")
            except (KeyError, IndexError, TypeError):
                pass
        elif op == "top":
            key = g.choice(["tick", "tickRate", "format", "stats", "commands", "characters",
                            "navigation"])
            v = g.choice(_SIM_VALUES + ("", "/nonexistent.map", str(EXAMPLES), "x.json"))
            if key == "tickRate" and g.chance(0.5):
                v = g.choice([1e-300, 1e308, 5e-324, 1e-9, 1e9, BIG300])
            obj[key] = v
            done.append(f"{key}={show(v, 30)}")
        elif op == "command":
            cmds = obj.setdefault("commands", [])
            if not isinstance(cmds, list):
                continue
            who = ids[0]
            cmd = g.choice([
                {"tick": g.choice(_SIM_VALUES), "character": who, "moveTo": [1.0, 1.0]},
                {"tick": 0, "character": who, "moveTo": g.choice(_SIM_VALUES)},
                {"tick": 0, "character": who, "follow": who, "range": g.choice(_SIM_VALUES)},
                {"tick": 0, "character": g.choice(_SIM_VALUES), "stop": True},
                {"tick": 0, "setAreaAvailable": {"name": g.choice(["door", "a0", 5]),
                                                 "available": g.choice(_SIM_VALUES)}},
                {"tick": 0, "addObstacle": {"name": "box", "polygon": hostile_value(g)}},
                {"tick": 0, "removeObstacle": {"name": g.choice(["o0", "nope", None])}},
                {"tick": 0, "character": who, "moveTo": [1, 1], "stop": True},
                {"tick": 2**63, "character": who, "talkTo": who},
            ])
            cmds.append(cmd)
            done.append(f"command {show(cmd, 60)}")
    return obj, "; ".join(done) or "nothing"


def _check_running(loc: Any, ticks: int, ctx: Context, *, guard: bool) -> None:
    gap0 = loc.min_contact_gap() if guard and len(loc.ids) > 1 else None
    for _ in range(ticks):
        ctx.at("Location.step")
        loc.step()
        pos = loc.positions()
        check(np.all(np.isfinite(pos)), "a position became non-finite", show(pos))
        if gap0 is not None and gap0 >= 0:
            gap = loc.min_contact_gap()
            check(gap >= -1e-9, "contact circles came to overlap (§9.2)", f"gap {gap}")


def _state_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def gen_state(g: Gen) -> Case:
    scene, base = base_scene(g)
    k = g.choice([0, 1, 5, 20, 60])
    n = g.randint(1, 25)
    control = g.chance(0.2)

    def run(ctx: Context) -> None:
        from navkit.sim import Location

        ctx.at("Location.from_scene (base scene)")
        loc = Location.from_scene(copy.deepcopy(scene), base=SCENES)
        loc.run(k)
        ctx.at("Location.state_dict")
        state = json.loads(json.dumps(loc.state_dict(), allow_nan=False))
        if control:
            ctx.at("Location.from_scene (saved state)")
            again = Location.from_scene(copy.deepcopy(state), base=SCENES)
            check(_state_equal(again.state_dict(), state), "a loaded state saves differently")
            _check_running(loc, n, ctx, guard=True)
            ctx.at("Location.run (loaded state)")
            again.run(n)
            check(_state_equal(again.state_dict(), loc.state_dict()),
                  f"state saved at tick {k} and run {n} ticks differs from the run that "
                  "never stopped (§12.5)")
            return
        bad, how = mutate_state(g, state)
        ctx.note(how)
        ctx.at("Location.from_scene (mutated state)")
        loc2 = Location.from_scene(bad, base=SCENES)
        _check_running(loc2, n, ctx, guard=False)
        ctx.at("Location.save")
        p = loc2.save(ctx.tmp / "state.json")
        ctx.at("load_scene (of Location.save)")
        from navkit.sim import load_scene

        load_scene(p)

    return Case("sim", "Location.from_scene (mutated state)",
                f"{base} after {k} ticks, {'control' if control else 'mutated'}, then {n} ticks",
                run)


def gen_scene_text(g: Gen) -> Case:
    scene, base = base_scene(g)
    if g.chance(0.4):
        scene, how = mutate_state(g, scene)
    else:
        how = ""
    text = json_text(scene).encode()
    special = g.choice(["mutate"] * 4 + ["deep", "big", "nan", "empty"])
    if special == "mutate":
        text, extra = mutate(g, text, text=True)
    elif special == "deep":
        n = g.choice([1000, 100_000])
        text = text.replace(b'"characters": [', b'"characters": [' + b"[" * n + b"]" * n + b",",
                            1)
        extra = f"{n}-deep nesting"
    elif special == "big":
        text = text.replace(b'"tickRate": ', b'"tickRate": ' + b"7" * 4400 + b"", 1)
        extra = "4400-digit tickRate"
    elif special == "nan":
        text = text.replace(b'"position": [', b'"position": [NaN, ', 1)
        extra = "NaN literal"
    else:
        text, extra = g.choice([b"", b"[]", b"null", b"{}"]), "no scene"
    n = g.randint(0, 10)

    def run(ctx: Context) -> None:
        from navkit.sim import load_scene

        p = ctx.tmp / "scene.json"
        p.write_bytes(text)
        ctx.at("load_scene")
        loc = load_scene(p)
        _check_running(loc, n, ctx, guard=False)

    return Case("sim", "load_scene", f"{base}: {how} {extra}; {len(text)} bytes", run)


def gen_api(g: Gen) -> Case:
    scene, base = base_scene(g)
    ops = []
    for _ in range(g.randint(1, 6)):
        ops.append(g.choice(["set_target", "follow", "walk_to", "stop", "position", "walk_speed",
                             "rotation_speed", "alive", "enabled", "add_character", "schedule",
                             "run", "map", "distance_to", "character"]))
    hostile = g.chance(0.7)

    def value(ok: Any) -> Any:
        return g.choice(_SIM_VALUES) if hostile and g.chance(0.5) else ok

    def run(ctx: Context) -> None:
        from navkit.sim import Location

        loc = Location.from_scene(copy.deepcopy(scene), base=SCENES)
        ids = list(loc.ids)
        grid = loc.map.grid
        for op in ops:
            c = loc.character(g.choice(ids))
            pt = [grid.min_x + g.random() * grid.width * grid.cell_size,
                  grid.min_z + g.random() * grid.depth * grid.cell_size]
            ctx.at(f"Character.{op}" if op not in ("add_character", "schedule", "run", "map",
                                                  "character") else f"Location.{op}")
            if op == "set_target":
                c.set_target(value(pt))
            elif op == "follow":
                c.follow(value(g.choice(ids)), value(g.uniform(0.5, 3)))
            elif op == "walk_to":
                c.walk_to(value(g.choice(ids)))
            elif op == "stop":
                c.stop_in_place()
            elif op == "position":
                c.position = value(pt)
            elif op in ("walk_speed", "rotation_speed"):
                setattr(c, op, value(g.uniform(0.1, 5)))
            elif op in ("alive", "enabled"):
                setattr(c, op, value(g.chance(0.5)))
            elif op == "add_character":
                kw = {"position": value(pt), "kind": value("npc")}
                for key in g.sample(["walk_speed", "rotation_speed", "collision_radius",
                                     "contact_radius", "retry_cooldown_ticks",
                                     "retry_cooldown_ms", "retry_sequence", "facing"],
                                    g.randint(0, 2)):
                    kw[key] = value(g.choice([1.0, 0.5, 2.0])) if key not in (
                        "retry_cooldown_ticks", "retry_cooldown_ms", "retry_sequence") else value(
                        [g.randint(1, 12) for _ in range(10)])
                loc.add_character(value(f"new{len(ids)}"), **kw)
                ids = list(loc.ids)
            elif op == "schedule":
                loc.schedule(g.choice([{"tick": value(loc.tick), "character": c.id,
                                        "moveTo": value(pt)}, value({}), {"tick": 0}]))
            elif op == "run":  # (no huge tick counts: those run, for ever)
                loc.run(g.choice([g.randint(0, 10), -1, 1.5, "3", None, True, math.nan,
                                  np.int64(2), np.uint8(3), -BIG300]) if hostile else 3)
            elif op == "map":
                edit = g.choice(["area", "add", "remove"])
                if edit == "area":
                    loc.set_area_available(value("a0"), value(True))
                elif edit == "add":
                    loc.add_obstacle(value("box"),
                                     value([pt, [pt[0] + 1, pt[1]], [pt[0], pt[1] + 1]]))
                else:
                    loc.remove_obstacle(value("o0"))
            elif op == "distance_to":
                d = c.distance_to(loc.character(g.choice(ids)))
                check(math.isfinite(d) and d >= 0, "distance_to not finite", show(d))
            else:
                loc.character(value(g.choice(ids)))
        _check_running(loc, g.randint(1, 10), ctx, guard=not hostile)
        ctx.at("Location.save")
        loc.save(ctx.tmp / "s.json")

    return Case("sim", "Location API", f"{base}: {'hostile' if hostile else 'valid'} {ops}", run)


GENERATORS: list[tuple[int, Callable[[Gen], Case]]] = [
    (6, gen_state), (3, gen_scene_text), (4, gen_api),
]

"""Hostile input to the simulation: every field of a saved state, a scene and
its commands, mutated to values no field accepts (wrong types, out of range,
beyond the kernels' integer types, beyond MAX_COORD, dangling references),
must raise a ConfigError naming that field; unreadable files a FormatError
naming the file. A valid state still round-trips identically."""

from __future__ import annotations

import copy
import json
import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from navkit import ConfigError, FormatError, NavGrid, NavkitError, QueryError
from navkit._kernels.geometry import MAX_COORD
from navkit.level import NavLevel
from navkit.sim import Location, load_scene, parse_scene


def rect(x0, z0, x1, z1):
    return [[x0, z0], [x1, z0], [x1, z1], [x0, z1]]


LEVEL = {
    "cellSize": 0.25, "agentRadius": 0.3, "objectPadding": 0.1,
    "areas": [
        {"name": "west", "polygon": rect(0, 0, 8, 8)},
        {"name": "east", "polygon": rect(9, 0, 17, 8)},
        {"name": "door", "polygon": rect(7.9, 3, 9.1, 5)},
    ],
}


def _base_location() -> Location:
    """A location with every kind of state: a path, a follow order, a pending
    retry with a blocker, waypoints, a partial NPC plan."""
    loc = Location(NavLevel(LEVEL))
    p = loc.add_character("p", kind="player", position=(1.0, 4.0), walk_speed=1.5)
    loc.add_character("b", kind="bot", position=(1.0, 1.0), walk_speed=1.2)
    loc.add_character("n", kind="npc", position=(12.0, 4.0), walk_speed=1.0)
    loc.add_character(7, kind="npc", position=(14.0, 6.0))
    p.set_target((15.0, 4.0))
    loc.character("b").follow("p", 1.0)
    loc.character(7).set_target((12.0, 4.0))  # occupied by n: a partial plan
    loc.run(6)
    s = loc.state.slot_of("n")
    loc.orders.planner.schedule_retry(s, loc.state.slot_of(7))  # a retry with a blocker
    return loc


def base_state() -> dict[str, Any]:
    """A saved state with pending commands of every action."""
    st = _base_location().state_dict()
    t = st["tick"] + 3
    st["commands"] = [
        {"tick": t, "character": "n", "moveTo": [3.0, 2.0]},
        {"tick": t, "character": 7, "follow": "p", "range": 1.5},
        {"tick": t, "character": "p", "talkTo": "n"},
        {"tick": t, "setAreaAvailable": {"name": "door", "available": False}},
        {"tick": t, "addObstacle": {"name": "crate", "polygon": rect(2, 6, 3, 7)}},
        {"tick": t + 1, "character": "b", "stop": True},
        {"tick": t + 1, "removeObstacle": {"name": "crate"}},
    ]  # in execution order, as a saved state lists them
    return st


@pytest.fixture(scope="module")
def state() -> dict[str, Any]:
    return base_state()


def text(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, allow_nan=False)


# ------------------------------------------------------- generated bad values
NAN, INF = math.nan, math.inf
BIG = 10 ** 400  # beyond every integer type and every float
#: Values no field of the given JSON type accepts (nullable fields aside).
BAD_NUMBER = [NAN, INF, -INF, 1e308, -1e308, BIG, -BIG, "1", [1.0], {}, True]
BAD_INTEGER = [-2, 2 ** 64, -(2 ** 63), 2 ** 70, 0.5, 1e308, NAN, INF, "3", [0], {}, True, BIG]
BAD_BOOL = [0, 1, "true", [], {}, 2.0]
BAD_POINT = [[1e308, 0.0], [0.0, -1e308], [MAX_COORD * 2, 0.0], [NAN, 0.0], [0.0, INF],
             [1.0], [1.0, 2.0, 3.0], "ab", [None, 0.0], [True, 0.0], {}, 5, [BIG, 0.0]]
BAD_ID = ["", -1, 5.5, 2 ** 64, [], {}, True, BIG]
BAD_OBJECT = [5, "x", [], True]
BAD_LIST = [5, "x", {}, True]
#: Fields where null (None) is a valid value.
NULLABLE = {"retryBlocker", "bestDistance", "follow", "minGap"}
#: Fields where any finite value in range is valid (a route length has no tighter bound).
ANY_FINITE = {"bestDistance"}


def bad_values(key: str, good: Any) -> list[Any]:
    """Generic bad values for a field holding ``good``."""
    out: list[Any]
    if isinstance(good, bool):
        out = list(BAD_BOOL)
    elif isinstance(good, int):
        out = list(BAD_INTEGER)
    elif isinstance(good, float):
        out = list(BAD_NUMBER)
    elif isinstance(good, str):
        out = [5, [], {}, True]
    elif isinstance(good, list) and len(good) == 2 and all(isinstance(v, float) for v in good):
        out = list(BAD_POINT)
    elif isinstance(good, list):
        out = list(BAD_LIST)
    elif isinstance(good, dict):
        out = list(BAD_OBJECT)
    else:  # null: a reference, an order or a distance not set
        out = ["x", [], {}, True]
    if key == "id":
        out = list(BAD_ID)  # another valid ID would only move the error to its references
    if key in ANY_FINITE:
        out = [v for v in out if not (isinstance(v, float) and math.isfinite(v))]
    if key not in NULLABLE:
        out.append(None)
    return out


def mutations(st: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(field path, mutate)`` over every field of ``st`` (and of its
    characters, follow orders, stats and commands), generic bad values first,
    then the field-specific ones."""

    def put(path_items: tuple[Any, ...], value: Any):
        def mutate(s: dict[str, Any]) -> None:
            obj = s
            for k in path_items[:-1]:
                obj = obj[k]
            obj[path_items[-1]] = value
        return mutate

    def name(path_items: tuple[Any, ...]) -> str:
        out = ""
        for k in path_items:
            out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else k)
        return out

    def walk(obj: dict[str, Any], pre: tuple[Any, ...]) -> Iterator[tuple[str, Any]]:
        for key, good in obj.items():
            items = (*pre, key)
            for v in bad_values(key, good):
                yield name(items), put(items, v)
            if key == "characters" or key == "commands":
                for i, sub in enumerate(good):
                    yield f"{key}[{i}]", put((*items, i), 5)
                    yield from walk(sub, (*items, i))
            elif isinstance(good, dict) and key != "navigation":  # the level checks its own
                yield from walk(good, items)

    yield from walk(st, ())
    ci = {c["id"]: i for i, c in enumerate(st["characters"])}
    b = f"characters[{ci['b']}]"
    n = ci["n"]
    specific: list[tuple[str, tuple[Any, ...], Any]] = [
        ("format", ("format",), "navkit-scene/999"),
        ("tick", ("tick",), 2 ** 63),
        ("tickRate", ("tickRate",), 1e308),
        ("tickRate", ("tickRate",), 5e-324),
        ("tickRate", ("tickRate",), 0),
        ("tickRate", ("tickRate",), -20),
        ("stats.arrivals", ("stats", "arrivals"), "x"),
        ("stats.replans", ("stats", "replans"), -1),
        (f"{b}.movementBlockedTicks", ("characters", ci["b"], "movementBlockedTicks"), 2 ** 31),
        (f"{b}.movementBlockedTicks", ("characters", ci["b"], "movementBlockedTicks"), 3),
        (f"{b}.retryTicksLeft", ("characters", ci["b"], "retryTicksLeft"), 2 ** 31),
        (f"{b}.retryCooldownCursor", ("characters", ci["b"], "retryCooldownCursor"), 10),
        (f"{b}.retryCooldownSequence", ("characters", ci["b"], "retryCooldownSequence"),
         [2 ** 31] * 10),
        (f"{b}.retryCooldownSequence", ("characters", ci["b"], "retryCooldownSequence"), [0] * 10),
        (f"{b}.retryCooldownSequence", ("characters", ci["b"], "retryCooldownSequence"), [2] * 9),
        (f"{b}.replanPending", ("characters", ci["b"], "replanPending"), 256),
        (f"{b}.replanPending", ("characters", ci["b"], "replanPending"), 4),
        (f"{b}.replanPending", ("characters", ci["b"], "replanPending"), 255),
        (f"{b}.retryBlocker", ("characters", ci["b"], "retryBlocker"), ["p"]),
        (f"{b}.retryBlocker", ("characters", ci["b"], "retryBlocker"), "b"),
        (f"{b}.retryBlocker", ("characters", ci["b"], "retryBlocker"), "nobody"),
        (f"{b}.follow.target", ("characters", ci["b"], "follow", "target"), ["p"]),
        (f"{b}.follow.target", ("characters", ci["b"], "follow", "target"), "b"),
        (f"{b}.follow.target", ("characters", ci["b"], "follow", "target"), "nobody"),
        (f"{b}.follow.target", ("characters", ci["b"], "follow", "target"), None),
        (f"{b}.follow.stallTicks", ("characters", ci["b"], "follow", "stallTicks"), 2 ** 31),
        (f"{b}.follow.stallTicks", ("characters", ci["b"], "follow", "stallTicks"), 40),
        (f"{b}.follow.range", ("characters", ci["b"], "follow", "range"), -1.0),
        (f"{b}.follow.bestDistance", ("characters", ci["b"], "follow", "bestDistance"), -0.5),
        (f"{b}.follow.lastPlanTick", ("characters", ci["b"], "follow", "lastPlanTick"),
         st["tick"]),
        (f"{b}.follow.lastPlanTick", ("characters", ci["b"], "follow", "lastPlanTick"), 2 ** 63),
        (f"{b}.follow", ("characters", ci["b"], "follow"), {}),
        (f"{b}.currentWaypointIndex", ("characters", ci["b"], "currentWaypointIndex"), 10 ** 6),
        (f"{b}.position", ("characters", ci["b"], "position"), [1e308, 1e308]),
        (f"{b}.pathWaypoints[0]", ("characters", ci["b"], "pathWaypoints"), [[1e308, 1e308]]),
        (f"{b}.walkSpeed", ("characters", ci["b"], "walkSpeed"), 0.0),
        (f"{b}.walkSpeed", ("characters", ci["b"], "walkSpeed"), 1e300),
        (f"{b}.movementContactRadius", ("characters", ci["b"], "movementContactRadius"), 0.0),
        (f"{b}.navigationAvoidanceRadius", ("characters", ci["b"], "navigationAvoidanceRadius"),
         -0.1),
        (f"{b}.facing", ("characters", ci["b"], "facing"), 1e6),
        (f"{b}.kind", ("characters", ci["b"], "kind"), "dragon"),
        (f"{b}.animation", ("characters", ci["b"], "animation"), "RUN"),
        (f"characters[{ci['p']}].id", ("characters", ci["p"], "id"), "b"),  # a duplicate
        # a second cooldown source beside the saved sequence
        (f"characters[{n}].retryCooldownSequence",
         ("characters", n, "navigationRetryCooldownTicks"), [3] * 10),
    ]
    for path, items, value in specific:
        yield path, put(items, value)
    t = st["tick"]
    cmds: list[tuple[str, dict[str, Any]]] = [
        ("commands[7].moveTo", {"tick": t, "character": "p", "moveTo": [1e308, 1e308]}),
        ("commands[7].moveTo", {"tick": t, "character": "p", "moveTo": [0.0, -2 * MAX_COORD]}),
        ("commands[7].tick", {"tick": 2 ** 63, "character": "p", "stop": True}),
        ("commands[7].tick", {"tick": -1, "character": "p", "stop": True}),
        ("commands[7].character", {"tick": t, "character": "zz", "stop": True}),
        ("commands[7].character", {"tick": t, "stop": True}),
        ("commands[7].follow", {"tick": t, "character": "p", "follow": "p", "range": 1.0}),
        ("commands[7].follow", {"tick": t, "character": "p", "follow": ["n"], "range": 1.0}),
        ("commands[7].range", {"tick": t, "character": "p", "follow": "n", "range": -1.0}),
        ("commands[7].range", {"tick": t, "character": "p", "follow": "n", "range": 1e300}),
        ("commands[7].range", {"tick": t, "character": "p", "follow": "n"}),
        ("commands[7].talkTo", {"tick": t, "character": "n", "talkTo": "p"}),  # not an NPC
        ("commands[7].stop", {"tick": t, "character": "p", "stop": False}),
        ("commands[7].setAreaAvailable.name",
         {"tick": t, "setAreaAvailable": {"name": "dor", "available": False}}),
        ("commands[7].setAreaAvailable.available",
         {"tick": t, "setAreaAvailable": {"name": "door", "available": 0}}),
        ("commands[7].setAreaAvailable.extra",
         {"tick": t, "setAreaAvailable": {"name": "door", "available": True, "extra": 1}}),
        ("commands[7].addObstacle.polygon",
         {"tick": t, "addObstacle": {"name": "x", "polygon": rect(0, 0, 1, 1)[:2]}}),
        ("commands[7].addObstacle.polygon[1]",
         {"tick": t, "addObstacle": {"name": "x", "polygon": [[0, 0], [1e308, 0], [0, 1]]}}),
        ("commands[7].removeObstacle.name", {"tick": t, "removeObstacle": {"name": ""}}),
        ("commands[7]", {"tick": t, "character": "p", "stop": True, "moveTo": [1.0, 1.0]}),
        ("commands[7]", {"tick": t, "character": "p"}),
        ("commands[7].colour", {"tick": t, "character": "p", "stop": True, "colour": 1}),
    ]
    for path, c in cmds:
        yield path, (lambda s, c=c: s["commands"].append(c))


def _load(st: dict[str, Any]) -> Location:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loc = parse_scene(st)
    loc.run(5)  # a value that got through must not blow up later either
    return loc


def test_every_mutated_field_is_a_config_error_naming_it(state):
    cases = list(mutations(state))
    assert len(cases) > 500
    failures = []
    for path, mutate in cases:
        st = copy.deepcopy(state)
        mutate(st)
        try:
            _load(st)
        except ConfigError as e:
            f = e.field or ""
            if not (f == path or f.startswith((path + ".", path + "["))):
                failures.append(f"{path}: names {f!r} ({e})")
        except Exception as e:  # noqa: BLE001 - the point of the test
            failures.append(f"{path}: {type(e).__name__}: {e}")
        else:
            failures.append(f"{path}: accepted")
    assert not failures, f"{len(failures)} of {len(cases)}:\n" + "\n".join(failures[:60])


def test_valid_state_round_trips_identically(state, tmp_path):
    loc = parse_scene(copy.deepcopy(state))
    assert text(loc.state_dict()) == text(state)
    p = loc.save(tmp_path / "s.json")
    again = load_scene(p)
    assert text(again.state_dict()) == text(state)
    loc.run(40)
    again.run(40)
    assert text(again.state_dict()) == text(loc.state_dict())


def test_replan_pending_with_both_bits_round_trips():
    """A follow plan asked for by the kernel and a map change between ticks:
    ``replanPending`` 3 is a real state, saved and restored."""
    loc = Location(NavLevel(LEVEL))
    loc.add_character("t", position=(12.0, 7.5))
    f = loc.add_character("f", position=(2.0, 7.5))
    f.follow("t", 1.0)
    loc.step()  # no line of sight through the wall: the kernel asks for a plan
    loc.set_area_available("door", False)
    st = loc.state_dict()
    assert [c["replanPending"] for c in st["characters"] if c["id"] == "f"] == [3]
    assert text(parse_scene(st).state_dict()) == text(st)


# ------------------------------------------------------------------- files
def _scene_file(tmp_path, body: str, name: str = "s.json"):
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


def test_unreadable_files_are_format_errors_naming_the_file(tmp_path):
    good = json.dumps({"navigation": LEVEL, "characters": [{"id": 1, "position": [1, 1]}]})
    cases = {
        "missing": tmp_path / "nope.json",
        "folder": tmp_path,
        "huge_int": _scene_file(tmp_path, good.replace('"id": 1', '"id": ' + "9" * 5000), "h.json"),
        "deep": _scene_file(tmp_path, "[" * 200_000 + "]" * 200_000, "d.json"),
        "deep_object": _scene_file(tmp_path, '{"a":' * 100_000 + "1" + "}" * 100_000, "o.json"),
        "not_json": _scene_file(tmp_path, "{ nope", "n.json"),
        "not_utf8": tmp_path / "b.json",
    }
    cases["not_utf8"].write_bytes(b'{"navigation": "\xff"}')
    for what, p in cases.items():
        with pytest.raises(FormatError) as info:
            load_scene(p)
        assert info.value.path == str(p), what


def test_referenced_map_files_that_cannot_be_read_name_the_file(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    (tmp_path / "huge.json").write_text('{"cellSize": ' + "9" * 5000 + "}")
    (tmp_path / "dir.json").mkdir()
    for name in ("deep.json", "huge.json", "dir.json"):
        p = _scene_file(tmp_path, json.dumps({"navigation": name}))
        with pytest.raises(NavkitError) as info:
            load_scene(p)
        assert name in str(info.value)


def test_scene_path_of_the_wrong_type():
    for bad in (None, 5, ["a.json"]):
        with pytest.raises(NavkitError):
            load_scene(bad)  # type: ignore[arg-type]


def test_scene_level_cooldown_lists(state):
    c0 = {"id": "a", "position": [1.0, 1.0]}
    for key, value, fld in [
        ("navigationRetryCooldownTicks", [1e300] * 10, "navigationRetryCooldownTicks[0]"),
        ("navigationRetryCooldownTicks", [NAN] * 10, "navigationRetryCooldownTicks[0]"),
        ("navigationRetryCooldownTicks", [1] * 9, "navigationRetryCooldownTicks"),
        ("navigationRetryCooldownMs", "x" * 10, "navigationRetryCooldownMs"),
        ("navigationRetryCooldownMs", [BIG] * 10, "navigationRetryCooldownMs[0]"),
        ("navigationRetryCooldownMs", [2 ** 31] * 10, "navigationRetryCooldownMs[0]"),
    ]:
        sc = {"navigation": LEVEL, "characters": [dict(c0, **{key: value})]}
        with pytest.raises(ConfigError) as info:
            parse_scene(sc)
        assert info.value.field == f"characters[0].{fld}", (key, value)
    # the largest ms value at the highest tick rate still fits the int32 timers
    sc = {"navigation": LEVEL, "tickRate": 1e6,
          "characters": [dict(c0, navigationRetryCooldownMs=[2 ** 31 - 1] * 10)]}
    loc = parse_scene(sc)
    assert max(loc["a"].retry_cooldowns) == 2 ** 31 - 1


# --------------------------------------------------------------------- API
def test_api_rejects_what_the_files_reject():
    grid = NavGrid(np.ones((8, 8), bool), cell_size=0.5)
    for rate in (1e308, 5e-324, 0, -1, NAN, "20", True):
        with pytest.raises(ConfigError, match="tickRate"):
            Location(grid, tick_rate=rate)  # type: ignore[arg-type]
    loc = Location(grid)
    with pytest.raises(QueryError):
        loc.add_character("a", position=(1e308, 1.0))
    for kw, fld in [({"walk_speed": 1e300}, "walkSpeed"),
                    ({"rotation_speed": INF}, "rotationSpeed"),
                    ({"facing": "x"}, "facing"), ({"facing": 1e9}, "facing"),
                    ({"contact_radius": 0}, "movementContactRadius"),
                    ({"collision_radius": 1e300}, "navigationAvoidanceRadius"),
                    ({"alive": "yes"}, "alive"), ({"retry_cooldown_ticks": [1e300] * 10},
                                                  "navigationRetryCooldownTicks[0]"),
                    ({"retry_sequence": [0] * 10}, "retryCooldownSequence[0]")]:
        with pytest.raises(ConfigError) as info:
            loc.add_character("a", position=(1.0, 1.0), **kw)
        assert info.value.field == fld, kw
    with pytest.raises(ConfigError, match="id"):
        loc.add_character(2 ** 64, position=(1.0, 1.0))
    a = loc.add_character("a", position=(1.0, 1.0))
    loc.add_character("b", position=(3.0, 1.0))
    with pytest.raises(QueryError):
        a.set_target((1e308, 1e308))
    with pytest.raises(QueryError):
        a.position = (0.0, -1e300)
    with pytest.raises(ConfigError, match="walkSpeed"):
        a.walk_speed = 1e300
    with pytest.raises(ConfigError, match="range"):
        a.follow("b", 1e300)
    for cmd, fld in [({"tick": 2 ** 63, "character": "a", "stop": True}, "tick"),
                     ({"tick": 0, "character": "a", "moveTo": [1e308, 1e308]}, "moveTo"),
                     ({"tick": 0, "character": "a", "follow": "a", "range": 1}, "follow")]:
        with pytest.raises(ConfigError) as info:
            loc.schedule(cmd)
        assert info.value.field is not None and fld in info.value.field
    loc.run(3)


def test_unreadable_replays_are_format_errors_naming_the_file(tmp_path):
    from navkit.sim import read_replay

    bad = tmp_path / "r.jsonl"
    bad.write_text('{"type": "header"}\n{ nope\n')
    deep = tmp_path / "d.jsonl"
    deep.write_text("[" * 200_000 + "]" * 200_000 + "\n")
    for p, line in ((bad, 2), (deep, 1), (tmp_path / "missing.jsonl", None), (tmp_path, None)):
        with pytest.raises(FormatError) as info:
            list(read_replay(p))
        assert info.value.path == str(p) and info.value.line == line

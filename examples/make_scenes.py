"""Regenerate the simulation scenes bundled in the package (deterministic).

``python examples/make_scenes.py`` writes, into ``navkit/examples/scenes/``
(shipped in the wheel: ``navkit examples`` lists them):

* ``interior_crowd.json`` - an interior level (inline: a central hall and
  eight rooms with doors) and 60 NPCs crossing between rooms: each gets a
  destination in another room at a staggered tick and a second one 700
  ticks later. At tick 300 the hall door of room ``north_1`` closes (the
  room stays reachable through its neighbours), at tick 500 a cart
  (``addObstacle``) is put in the hall, at tick 900 the door opens again.
* ``interior_crowd_mesh.json`` - the same crowd planning on the navigation
  mesh (``"navigationMode": "mesh"``: exact any-angle paths, docs/navmesh.md).
* ``corridor_head_on.json`` - two NPCs meeting head-on in a one-wide
  corridor (they stop, retry with different cooldowns, and wait).
* ``corridor_pass.json`` - two NPCs meeting head-on in a corridor two
  characters wide, with ``"avoidance": "orca"`` (docs/rules.md §9.6): they
  pass each other without stopping.
* ``follow.json`` - a player walking a loop in an open yard, a bot following
  it at 1.5 m, and an NPC the player walks up to and talks to.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1] / "navkit" / "examples" / "scenes"


def _write(name: str, obj: dict) -> None:
    (HERE / name).write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {HERE / name}")


def _rect(x0: float, z0: float, x1: float, z1: float) -> list[list[float]]:
    return [[x0, z0], [x1, z0], [x1, z1], [x0, z1]]


def interior_level() -> tuple[dict, list[str]]:
    """A 48 x 24 m floor: a 3.6 m central hall, four rooms on each side with
    2.4 m doors to the hall and to their neighbours, a table in every room."""
    areas = [{"name": "hall", "polygon": _rect(0.2, 10.2, 47.8, 13.8)}]
    rooms = []
    for k in range(4):
        x0 = 0.2 + 12 * k
        rooms.append((f"south_{k}", _rect(x0, 0.2, x0 + 11.6, 9.8)))
        rooms.append((f"north_{k}", _rect(x0, 14.2, x0 + 11.6, 23.8)))
    areas += [{"name": name, "polygon": poly} for name, poly in rooms]
    for k in range(4):
        cx = 6 + 12 * k
        areas.append({"name": f"door_south_{k}", "polygon": _rect(cx - 1.2, 9.6, cx + 1.2, 10.4)})
        areas.append({"name": f"door_north_{k}", "polygon": _rect(cx - 1.2, 13.6, cx + 1.2, 14.4)})
    for k in range(3):
        xb = 12 * (k + 1)
        areas.append({"name": f"door_south_{k}{k + 1}",
                      "polygon": _rect(xb - 0.4, 3.8, xb + 0.4, 6.2)})
        areas.append({"name": f"door_north_{k}{k + 1}",
                      "polygon": _rect(xb - 0.4, 17.8, xb + 0.4, 20.2)})
    obstacles = []
    for k in range(4):
        cx = 6 + 12 * k
        obstacles.append({"name": f"table_south_{k}",
                          "polygon": _rect(cx - 1.5, 3.5, cx + 1.5, 5.5)})
        obstacles.append({"name": f"table_north_{k}",
                          "polygon": _rect(cx - 1.5, 18.5, cx + 1.5, 20.5)})
    level = {"cellSize": 0.25, "agentRadius": 0.3, "objectPadding": 0.1, "boundaryPadding": 0.3,
             "areas": areas, "obstacles": obstacles}
    return level, [r[0] for r in rooms]


def interior_crowd(n: int = 60, seed: int = 3) -> dict:
    """60 NPCs crossing between rooms; a hall door closes at tick 300 (its room
    stays reachable through the neighbouring rooms) and opens again at tick
    900; a cart is put in the hall at tick 500."""
    from navkit.level import NavLevel

    level_cfg, rooms = interior_level()
    level = NavLevel(level_cfg)
    grid = level.grid
    rng = np.random.default_rng(seed)
    zs, xs = np.nonzero(grid.walkable)
    pts = grid.cells_to_world(np.stack([xs, zs], axis=1))
    room_of = np.array([next((a for a in level.areas_at(float(x), float(z)) if a in rooms), "")
                        for x, z in pts])
    chars, commands, taken = [], [], []
    for i in range(n):
        room = rooms[i % len(rooms)]
        cand = np.flatnonzero(room_of == room)
        for _ in range(500):
            x, z = pts[cand[int(rng.integers(len(cand)))]]
            if all((x - a) ** 2 + (z - b) ** 2 >= 1.0 for a, b in taken):
                break
        taken.append((float(x), float(z)))
        cid = f"npc_{i:02d}"
        npc = {"id": cid, "kind": "npc", "position": [float(x), float(z)],
               "walkSpeed": round(float(rng.uniform(1.1, 1.6)), 2), "rotationSpeed": 6.0}
        if i % 10 == 3:
            npc["navigationRetryCooldownMs"] = [200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100]
        chars.append(npc)
        here = room
        t = int(rng.integers(0, 400))
        for _leg in range(2):
            other = [r for r in rooms if r != here]
            here = other[int(rng.integers(len(other)))]
            cand = np.flatnonzero(room_of == here)
            x, z = pts[cand[int(rng.integers(len(cand)))]]
            commands.append({"tick": t, "character": cid, "moveTo": [float(x), float(z)]})
            t += 700
    commands.append({"tick": 300, "setAreaAvailable": {"name": "door_north_1", "available": False}})
    cart = {"name": "cart", "polygon": _rect(23.4, 13.2, 24.6, 13.8)}
    commands.append({"tick": 500, "addObstacle": cart})
    commands.append({"tick": 900, "setAreaAvailable": {"name": "door_north_1", "available": True}})
    commands.sort(key=lambda c: c["tick"])
    return {"navigation": level_cfg, "tickRate": 20, "characters": chars, "commands": commands}


def corridor_head_on() -> dict:
    return {
        "navigation": {
            "cellSize": 0.4, "agentRadius": 0.45, "objectPadding": 0.25,
            "areas": [
                {"name": "west_room", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]},
                {"name": "corridor",
                 "polygon": [[3.5, 1.55], [14.5, 1.55], [14.5, 2.45], [3.5, 2.45]]},
                {"name": "east_room", "polygon": [[14, 0], [18, 0], [18, 4], [14, 4]]},
            ],
        },
        "tickRate": 20,
        "characters": [
            {"id": "npc_east", "kind": "npc", "position": [16.5, 2.0], "walkSpeed": 1.4,
             "rotationSpeed": 6.0},
            {"id": "npc_west", "kind": "npc", "position": [1.5, 2.0], "walkSpeed": 1.4,
             "rotationSpeed": 6.0},
        ],
        "commands": [
            {"tick": 0, "character": "npc_west", "moveTo": [16.5, 1.0]},
            {"tick": 1, "character": "npc_east", "moveTo": [1.5, 3.0]},
        ],
    }


def corridor_pass() -> dict:
    """A 2 m corridor (1.2 m of walkable centres: room for two contact circles
    side by side) between two rooms, two NPCs crossing head-on, avoidance on."""
    return {
        "navigation": {
            "cellSize": 0.25, "agentRadius": 0.3, "objectPadding": 0.1,
            "areas": [
                {"name": "west_room", "polygon": _rect(0, 0, 4, 4)},
                {"name": "corridor", "polygon": _rect(3.5, 1.0, 14.5, 3.0)},
                {"name": "east_room", "polygon": _rect(14, 0, 18, 4)},
            ],
        },
        "avoidance": "orca",
        "tickRate": 20,
        "characters": [
            {"id": "npc_east", "kind": "npc", "position": [15.5, 2.0], "walkSpeed": 1.4,
             "rotationSpeed": 6.0},
            {"id": "npc_west", "kind": "npc", "position": [2.5, 2.0], "walkSpeed": 1.4,
             "rotationSpeed": 6.0},
        ],
        "commands": [
            {"tick": 0, "character": "npc_west", "moveTo": [17.0, 2.0]},
            {"tick": 0, "character": "npc_east", "moveTo": [1.0, 2.0]},
        ],
    }


def follow_scene() -> dict:
    loop = [[4.0, 4.0], [16.0, 4.0], [16.0, 12.0], [4.0, 12.0]]
    commands = [{"tick": 0, "character": "leader", "moveTo": loop[1]},
                {"tick": 0, "character": "dog", "follow": "leader", "range": 1.5}]
    t = 0
    for k in range(2, 5):
        t += 180
        commands.append({"tick": t, "character": "leader", "moveTo": loop[k % 4]})
    commands.append({"tick": t + 180, "character": "leader", "talkTo": "shopkeeper"})
    return {
        "navigation": {
            "cellSize": 0.4, "agentRadius": 0.45, "objectPadding": 0.25,
            "areas": [{"name": "yard", "polygon": [[0, 0], [20, 0], [20, 16], [0, 16]]}],
            "obstacles": [{"name": "well", "polygon": [[9, 7], [11, 7], [11, 9], [9, 9]]}],
        },
        "tickRate": 20,
        "characters": [
            {"id": "leader", "kind": "player", "position": [4.0, 4.0], "walkSpeed": 1.6,
             "rotationSpeed": 8.0},
            {"id": "dog", "kind": "bot", "position": [2.0, 2.0], "walkSpeed": 2.0,
             "rotationSpeed": 10.0},
            {"id": "shopkeeper", "kind": "npc", "position": [10.0, 13.5], "walkSpeed": 1.0,
             "rotationSpeed": 4.0},
        ],
        "commands": commands,
    }


def main() -> None:
    _write("interior_crowd.json", interior_crowd())
    mesh_scene = interior_crowd()
    mesh_scene = {"navigation": mesh_scene.pop("navigation"), "navigationMode": "mesh",
                  **mesh_scene}
    _write("interior_crowd_mesh.json", mesh_scene)
    _write("corridor_head_on.json", corridor_head_on())
    _write("corridor_pass.json", corridor_pass())
    _write("follow.json", follow_scene())


if __name__ == "__main__":
    main()

"""The simulation on a navigation mesh (navkit.sim.mesh_view): arrivals, doors,
the wall guard's bound, the contact guard, determinism, save/restore, scenes.

Oracles: shapely (free space, distances, boxes), networkx (visibility-graph
shortest paths), brute-force pair distances.
"""

from __future__ import annotations

import itertools
import json
import math

import networkx as nx
import numpy as np
import pytest
import shapely

from navkit import ConfigError
from navkit.level import parse_level
from navkit.sim import Location, parse_scene
from navkit.sim import constants as C

mesh_view = pytest.importorskip("navkit.sim.mesh_view")
MeshView = mesh_view.MeshView
outer_raster = mesh_view.outer_raster

CS = 0.25
SLACK = CS * math.sqrt(2.0) + 1e-9


def rect(x0, z0, x1, z1):
    return [[x0, z0], [x1, z0], [x1, z1], [x0, z1]]


def pillars() -> dict:
    """A 20 x 12 m hall with two walls to walk around."""
    return {"cellSize": CS, "agentRadius": 0.3, "objectPadding": 0.1, "boundaryPadding": 0.0,
            "areas": [{"name": "hall", "polygon": rect(0, 0, 20, 12)}],
            "obstacles": [{"name": "w1", "polygon": rect(5, 0, 6, 8)},
                          {"name": "w2", "polygon": rect(12, 4, 13, 12)}]}


def two_ways() -> dict:
    """West and east rooms joined by a door (short way) and a north corridor (long way)."""
    return {"cellSize": CS, "agentRadius": 0.3, "objectPadding": 0.1, "boundaryPadding": 0.2,
            "areas": [{"name": "west", "polygon": rect(0, 0, 8, 6)},
                      {"name": "east", "polygon": rect(9, 0, 17, 6)},
                      {"name": "door", "polygon": rect(7.9, 2, 9.1, 4)},
                      {"name": "north", "polygon": rect(0, 5.9, 17, 8)}]}


def state_text(loc: Location) -> str:
    return json.dumps(loc.state_dict(), sort_keys=True)


def shortest_length(space, a, b) -> float:
    """Euclidean shortest path in ``space`` (visibility graph over its vertices, networkx)."""
    pts = [tuple(a), tuple(b)]
    for poly in getattr(space, "geoms", [space]):
        for ring in [poly.exterior, *poly.interiors]:
            pts.extend(tuple(map(float, p)) for p in np.asarray(ring.coords)[:-1])
    grown = space.buffer(1e-7)
    g = nx.Graph()
    for i, j in itertools.combinations(range(len(pts)), 2):
        seg = shapely.LineString([pts[i], pts[j]])
        if grown.covers(seg):
            g.add_edge(i, j, weight=math.dist(pts[i], pts[j]))
    return float(nx.dijkstra_path_length(g, 0, 1))


class Track:
    """Per-tick checks: positions near the free space, no new contact overlaps, distance walked."""

    def __init__(self, loc: Location):
        self.loc = loc
        self.walked = np.zeros(len(loc))
        self.prev = loc.positions()
        self.worst_wall = 0.0
        self.worst_gap = math.inf
        self.trail: list[np.ndarray] = [self.prev.copy()]

    def __call__(self, ev) -> None:
        p = self.loc.positions()
        self.walked += np.hypot(*(p - self.prev).T)
        self.prev = p
        self.trail.append(p.copy())
        d = shapely.distance(self.loc.map.space, shapely.points(p))
        self.worst_wall = max(self.worst_wall, float(d.max()))
        self.worst_gap = min(self.worst_gap, self.loc.min_contact_gap())


# ------------------------------------------------------------------ the wall raster
def test_outer_raster_is_every_cell_touching_the_space():
    space = shapely.Polygon(rect(0.3, 0.3, 4.1, 2.6)).difference(shapely.box(1.0, 1.0, 2.0, 2.0))
    space = space.union(shapely.box(4.1, 1.0, 4.5, 1.25))  # a sliver ending on a cell edge
    got = outer_raster(space, 0.0, 0.0, 20, 12, 0.25)
    want = np.zeros_like(got)
    for z in range(12):
        for x in range(20):
            box = shapely.box(x * 0.25, z * 0.25, (x + 1) * 0.25, (z + 1) * 0.25)
            want[z, x] = shapely.distance(box, space) <= 1e-9
    assert np.array_equal(got, want)
    part = got.copy()
    part[3:7, 5:9] = False
    outer_raster(space, 0.0, 0.0, 20, 12, 0.25, out=part, window=(5, 9, 3, 7))
    assert np.array_equal(part, want)


def test_mesh_view_grid_covers_the_free_space_and_no_more():
    view = MeshView(parse_level(pillars()))
    g = view.grid
    assert g.cell_size == CS
    free = np.argwhere(g.walkable)
    centres = np.column_stack([g.min_x + (free[:, 1] + 0.5) * CS,
                               g.min_z + (free[:, 0] + 0.5) * CS])
    # a free cell's centre is within half a diagonal of the free space ...
    assert shapely.distance(view.space, shapely.points(centres)).max() <= CS * math.sqrt(0.5) + 1e-9
    # ... and every cell whose centre lies in the free space is free
    zz, xx = np.mgrid[0:g.depth, 0:g.width]
    cx = g.min_x + (xx + 0.5) * CS
    cz = g.min_z + (zz + 0.5) * CS
    inside = shapely.contains_xy(view.space, cx, cz)
    assert np.all(g.walkable[inside])
    assert view.padded_cells.size == (g.width + 2) * (g.depth + 2)


# ------------------------------------------------------------------ arrivals
def test_characters_walk_shortest_mesh_paths_around_obstacles():
    level = parse_level(pillars())
    walks = [((1.0, 1.0), (19.0, 1.0)), ((19.0, 11.0), (1.0, 1.5)), ((1.0, 11.0), (18.5, 6.0))]
    for start, goal in walks:
        loc = Location(level, navigation_mode="mesh")
        assert loc.navigation_mode == "mesh" and isinstance(loc.map, MeshView)
        a = loc.add_character("a", kind="player", position=start, walk_speed=3.0)
        arrived: list = []
        assert a.set_target(goal, on_arrived=lambda c, log=arrived: log.append(c.position))
        track = Track(loc)
        loc.run(400, on_tick=track)
        assert len(arrived) == 1
        assert math.dist(a.position, goal) <= C.kWalkThreshold
        # the distance walked is the Euclidean optimum (up to the last step's threshold)
        want = shortest_length(loc.map.space, start, goal)
        assert want > math.dist(start, goal) + 1.0  # it had to go around
        assert abs(track.walked[0] - want) <= C.kWalkThreshold + 1e-6
        assert track.worst_wall <= SLACK


def test_location_accepts_a_navmesh_and_a_view():
    from navkit.mesh.navmesh import NavMesh

    mesh = NavMesh.from_level(pillars())
    loc = Location(mesh)
    assert loc.navigation_mode == "mesh" and loc.map.mesh is mesh
    view = MeshView(mesh, method="funnel")
    loc2 = Location(view)
    assert loc2.map is view
    for L in (loc, loc2):
        a = L.add_character("a", position=(1.0, 1.0), walk_speed=3.0)
        a.set_target((19.0, 1.0))
        L.run(300)
        assert math.dist(a.position, (19.0, 1.0)) <= C.kWalkThreshold
    with pytest.raises(ConfigError, match="navigationMode"):
        Location(parse_level(pillars()), navigation_mode="hexes")
    with pytest.raises(ConfigError, match="method"):
        MeshView(mesh, method="dijkstra")


# ------------------------------------------------------------------ doors
def test_door_closing_forces_a_replan_around():
    loc = Location(parse_level(two_ways()), navigation_mode="mesh")
    a = loc.add_character("a", kind="npc", position=(1.0, 1.0), walk_speed=2.0)
    assert a.set_target((16.0, 1.0))
    track = Track(loc)
    loc.run(5, on_tick=track)
    assert max(p[0][1] for p in track.trail) < 5.0  # heading for the door
    v = loc.map.version
    replans = loc.stats.forced_replans
    assert loc.set_area_available("door", False)
    assert loc.map.version > v
    loc.run(400, on_tick=track)
    assert loc.stats.forced_replans == replans + 1
    assert math.dist(a.position, (16.0, 1.0)) <= C.kWalkThreshold
    zs = np.array([p[0][1] for p in track.trail])
    assert zs.max() > 6.0  # went round by the north corridor
    xs = np.array([p[0][0] for p in track.trail])
    assert not np.any((xs > 8.0) & (xs < 9.0) & (zs < 5.5))  # never through the wall
    assert track.worst_wall <= SLACK
    # reopening it: the free space grows, the wall grid follows
    free_before = int(loc.map.grid.walkable.sum())
    loc.set_area_available("door", True)
    assert int(loc.map.grid.walkable.sum()) > free_before
    fresh = MeshView(parse_level(two_ways()))
    assert np.array_equal(loc.map.grid.walkable, fresh.grid.walkable)


def test_added_obstacle_forces_a_replan():
    loc = Location(parse_level(pillars()), navigation_mode="mesh")
    a = loc.add_character("a", kind="player", position=(7.0, 2.0), walk_speed=2.0)
    a.set_target((11.0, 2.0))
    loc.run(2)
    loc.add_obstacle("block", rect(8.5, 0.0, 9.5, 9.0))
    track = Track(loc)
    loc.run(400, on_tick=track)
    assert loc.stats.forced_replans == 1
    assert math.dist(a.position, (11.0, 2.0)) <= C.kWalkThreshold
    assert max(p[0][1] for p in track.trail) > 9.0
    assert track.worst_wall <= SLACK


# ------------------------------------------------------------------ the contact guard
def test_crossing_characters_never_overlap():
    loc = Location(parse_level(pillars()), navigation_mode="mesh")
    pairs = [((7.0, 9.0), (11.0, 9.0)), ((11.0, 9.0), (7.0, 9.0)),
             ((9.0, 6.0), (9.0, 11.5)), ((9.0, 11.5), (9.0, 6.0))]
    for i, (s, _) in enumerate(pairs):
        loc.add_character(i, kind="npc", position=s, walk_speed=1.5)
    for i, (_, g) in enumerate(pairs):
        loc[i].set_target(g)
    track = Track(loc)
    loc.run(600, on_tick=track)
    assert track.worst_gap >= -1e-9
    assert track.worst_wall <= SLACK
    done = sum(math.dist(loc[i].position, g) <= 0.5 for i, (_, g) in enumerate(pairs))
    assert done >= 3


# ------------------------------------------------------------------ determinism, scenes
def scene_dict() -> dict:
    chars = [{"id": f"n{i}", "kind": "npc", "position": [1.0 + 1.5 * (i % 3), 1.0 + 2.0 * (i // 3)],
              "walkSpeed": 1.4} for i in range(6)]
    chars.append({"id": "p", "kind": "player", "position": [15.0, 7.0], "walkSpeed": 1.2})
    cmds = [{"tick": 25 * i, "character": f"n{i}",
             "moveTo": [16.0 - 1.5 * (i % 3), 1.0 + 2.0 * (i // 3)]} for i in range(6)]
    cmds.append({"tick": 5, "character": "p", "moveTo": [1.0, 7.0]})
    cmds.append({"tick": 40, "setAreaAvailable": {"name": "door", "available": False}})
    cmds.append({"tick": 160, "setAreaAvailable": {"name": "door", "available": True}})
    return {"navigation": two_ways(), "navigationMode": "mesh", "tickRate": 20,
            "characters": chars, "commands": cmds}


def test_scene_is_deterministic_and_survives_save(tmp_path):
    full = parse_scene(scene_dict())
    again = parse_scene(scene_dict())
    part = parse_scene(scene_dict())
    assert full.navigation_mode == "mesh"
    track = Track(full)
    full.run(500, on_tick=track)
    again.run(500)
    assert state_text(full) == state_text(again)
    assert track.worst_wall <= SLACK and track.worst_gap >= -1e-9
    assert full.stats.arrivals >= 6
    part.run(60)  # the door is closed
    saved = part.state_dict()
    assert saved["navigationMode"] == "mesh"
    assert list(saved)[:2] == ["format", "navigation"] and list(saved)[2] == "navigationMode"
    restored = parse_scene(json.loads(json.dumps(saved)))
    assert restored.navigation_mode == "mesh"
    assert state_text(restored) == state_text(part)
    path = part.save(tmp_path / "out" / "state.json")
    from_file = Location.load(path)
    assert json.loads(path.read_text())["navigationMode"] == "mesh"
    restored.run(440)
    from_file.run(440)
    assert state_text(restored) == state_text(full)
    assert state_text(from_file) == state_text(full)


def test_scene_mode_is_checked_and_grid_is_the_default():
    sc = scene_dict()
    sc["navigationMode"] = "navmesh"
    with pytest.raises(ConfigError, match="navigationMode"):
        parse_scene(sc)
    del sc["navigationMode"]
    loc = parse_scene(sc)
    assert loc.navigation_mode == "grid" and "navigationMode" not in loc.state_dict()

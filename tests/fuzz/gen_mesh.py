"""Navigation meshes: NavMesh.from_level / from_grid / load, every query, door and obstacle edits.

Three kinds of case:

* **builds**: hostile levels for ``NavMesh.from_level`` (random, overlapping,
  touching, degenerate and self-intersecting polygons, holes, tiny and huge
  coordinates, zero and huge radii and paddings, weights, closed areas, no
  free space) and hostile grids for ``from_grid``. A valid mesh or a
  ``ConfigError``; a mesh that builds must tile its free space.
* **queries** on valid meshes: hostile points (NaN, inf, huge, odd types,
  numpy scalars, wrong shapes), methods, budgets, obstacle circles and batch
  shapes. A result or a ``QueryError``; every answer is checked against
  shapely (the mesh's ``space``): paths start and end at the (snapped)
  endpoints, every segment lies in the free space, lengths add up, funnel
  paths are no shorter than exact ones, paths clear obstacle circles, batches
  equal single queries, ``is_walkable`` / ``locate`` / ``nearest_point`` /
  ``raycast`` agree with the geometry, and an edited mesh tiles the free space
  of a fresh build.
* **files**: hostile ``.npz`` files for ``NavMesh.load`` (random bytes,
  truncated zips, wrong members, dtypes and shapes, indices out of range,
  clockwise, non-convex or overlapping polygons, NaN vertices, pickles). A
  ``FormatError`` naming the file, or a mesh whose invariants hold.
"""

from __future__ import annotations

import io
import json
import math
import pickle
import zipfile
from fractions import Fraction
from typing import Any

import numpy as np

from .core import BIG300, BIG4400, NUMBERS, Case, Context, Gen, check, show
from .gen_readers import EXAMPLES

# ------------------------------------------------------------------ polygons
_SCALES = (1.0, 1.0, 1.0, 1.0, 1e-6, 1e-3, 0.05, 1e3, 1e6, 1e12)
_OFFSETS = (0.0, 0.0, 0.0, 0.0, -7.5, 1e5, 1e9, 1e14, 2e15)


def _rect(x: float, z: float, w: float, d: float) -> list[list[float]]:
    return [[x, z], [x + w, z], [x + w, z + d], [x, z + d]]


def _star(g: Gen, cx: float, cz: float, r: float) -> list[list[float]]:
    n = g.randint(3, 12)
    ts = sorted(g.uniform(0, 2 * math.pi) for _ in range(n))
    return [[cx + r * g.uniform(0.3, 1) * math.cos(t), cz + r * g.uniform(0.3, 1) * math.sin(t)]
            for t in ts]


def random_polygon(g: Gen) -> tuple[list[list[float]], str]:
    """A polygon in about [-6, 6]^2: mostly fine, sometimes hostile."""
    x, z = g.uniform(-5, 4), g.uniform(-5, 4)
    kind = g.weighted([(5, "rect"), (4, "star"), (2, "random"), (1, "bowtie"), (1, "collinear"),
                       (1, "repeated"), (1, "short"), (1, "sliver"), (1, "circle"),
                       (1, "spike"), (1, "tiny")])
    if kind == "rect":
        return _rect(x, z, g.uniform(0.3, 6), g.uniform(0.3, 6)), kind
    if kind == "star":
        return _star(g, x, z, g.uniform(0.5, 4)), kind
    if kind == "random":
        return [[g.uniform(-5, 5), g.uniform(-5, 5)] for _ in range(g.randint(3, 8))], kind
    if kind == "bowtie":
        return [[x, z], [x + 2, z + 2], [x + 2, z], [x, z + 2]], kind
    if kind == "collinear":
        return [[x, z], [x + 1, z + 1], [x + 2, z + 2]], kind
    if kind == "repeated":
        return g.choice([[[x, z]] * 4, [[x, z], [x + 1, z], [x, z], [x + 1, z]]]), kind
    if kind == "short":
        return g.choice([[], [[x, z]], [[x, z], [x + 1, z]]]), kind
    if kind == "sliver":
        return _rect(x, z, g.uniform(1, 6), g.choice([1e-9, 1e-6, 1e-3])), kind
    if kind == "circle":
        n = g.choice([16, 64, 200])
        r = g.uniform(0.5, 4)
        return [[x + r * math.cos(2 * math.pi * i / n), z + r * math.sin(2 * math.pi * i / n)]
                for i in range(n)], kind
    if kind == "spike":
        return [[x, z], [x + 4, z], [x + 4, z + 3], [x + 2, z + 1e-7], [x, z + 3]], kind
    return _rect(x, z, 1e-12, 1e-12), kind


def _transform(poly: Any, s: float, o: float) -> Any:
    if not isinstance(poly, list):
        return poly
    out = []
    for p in poly:
        if isinstance(p, list) and len(p) == 2 and all(isinstance(v, float | int) for v in p):
            out.append([p[0] * s + o, p[1] * s + o])
        else:
            out.append(p)
    return out


def hostile_level(g: Gen) -> tuple[dict[str, Any], str]:
    """A level dict for ``NavMesh.from_level`` and what it holds."""
    what: list[str] = []
    s, o = (g.choice(_SCALES), g.choice(_OFFSETS)) if g.chance(0.35) else (1.0, 0.0)
    if s != 1.0 or o:
        what.append(f"scale {s:g} offset {o:g}")
    areas: list[dict[str, Any]] = []
    n_areas = g.choice([0, 1, 1, 2, 2, 3, 4, 6])
    for i in range(n_areas):
        poly, kind = random_polygon(g) if g.chance(0.6) else (
            _rect(-5, -5, g.uniform(4, 10), g.uniform(4, 10)), "floor")
        area: dict[str, Any] = {"name": f"a{i}", "polygon": _transform(poly, s, o)}
        if g.chance(0.15):
            area["weight"] = g.choice([1, 2, 5, 0, -1, 1.5, math.nan, 65535, 2**31])
        if g.chance(0.15):
            area["available"] = g.choice([False, False, True, 0, "no"])
        if g.chance(0.2) and kind in ("rect", "floor"):
            (x0, z0), (x1, z1) = poly[0], poly[2]
            cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
            hole = g.choice([_rect(cx - 0.3, cz - 0.3, 0.6, 0.6), _rect(x0, z0, x1 - x0, z1 - z0),
                             _rect(x0 - 1, z0 - 1, x1 - x0 + 2, 0.5),
                             [[cx, cz], [cx + 0.5, cz + 0.5], [cx + 0.5, cz], [cx, cz + 0.5]]])
            area["holes"] = [_transform(hole, s, o)]
            what.append("hole")
        areas.append(area)
        what.append(kind)
    if n_areas >= 2 and g.chance(0.25):  # touching: a copy shifted by its own width
        a = areas[0]["polygon"]
        if isinstance(a, list) and len(a) == 4:
            w = (a[1][0] - a[0][0]) if isinstance(a[1], list) else 0
            areas.append({"name": "touch", "polygon": [[p[0] + w, p[1]] for p in a]})
            what.append("touching")
    if areas and g.chance(0.1):
        areas.append(dict(areas[0]))
        what.append("duplicate area")
    obstacles = []
    for i in range(g.choice([0, 0, 1, 2, 3, 5, 12])):
        poly, kind = random_polygon(g)
        if g.chance(0.1):
            poly, kind = _rect(-50, -50, 100, 100), "everything"
        obstacles.append({"name": f"o{i}", "polygon": _transform(poly, s, o)})
        what.append(f"obstacle {kind}")
    level: dict[str, Any] = {"areas": areas, "obstacles": obstacles}
    for key in ("agentRadius", "objectPadding", "boundaryPadding", "cellSize", "floorY"):
        if g.chance(0.35):
            level[key] = g.choice([0.0, 0.0, 0.1, 0.45, 1.0, 1e-9, 1e-300, 5.0, 1e3, 1e6, 1e300,
                                   -0.5, math.nan, math.inf, "0.4", None, True, BIG300])
            what.append(f"{key}={show(level[key], 12)}")
    return level, ", ".join(what) or "nothing"


def _scale(mesh: Any) -> float:
    b = mesh.bounds()
    return max(1.0, *(abs(float(v)) for v in b))


def _tol(mesh: Any) -> float:
    return 1e-7 + 1e-12 * _scale(mesh)


def check_tiling(mesh: Any, label: str = "mesh does not tile its free space") -> None:
    """The polygons are convex CCW and their union is ``mesh.space`` (areas and covers)."""
    import shapely

    arr = mesh.arrays
    v = arr.vertices
    check(v.ndim == 2 and v.shape[1] == 2 and np.isfinite(v).all(), "mesh vertices not finite")
    ps, pv = arr.poly_start, arr.poly_verts
    check(ps[0] == 0 and ps[-1] == len(pv) and np.all(np.diff(ps) >= 3), "mesh CSR broken")
    check(pv.min() >= 0 and pv.max() < len(v), "mesh vertex index out of range")
    if mesh.n_polygons > 3000:
        return
    polys = [shapely.Polygon(p) for p in arr.polygons()]
    for i, p in enumerate(arr.polygons()):
        a = p - p[0]
        nxt = np.roll(a, -1, axis=0)
        area2 = float((a[:, 0] * nxt[:, 1] - nxt[:, 0] * a[:, 1]).sum())
        check(area2 > 0, "mesh polygon not counter-clockwise", f"polygon {i}: {p.tolist()}")
        d1 = np.roll(p, -1, axis=0) - p
        d2 = np.roll(d1, -1, axis=0)
        cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
        sc = float(np.abs(d1).max()) ** 2
        check(np.all(cross >= -1e-9 * sc), "mesh polygon not convex", f"polygon {i}")
    space = mesh.space
    total = sum(p.area for p in polys)
    tol = 1e-6 * space.area + 1e-300
    check(abs(total - space.area) <= tol, label,
          f"sum of polygon areas {total!r} vs free space {space.area!r}")
    union = shapely.union_all(polys)
    diff = shapely.symmetric_difference(union, space).area
    check(diff <= tol, label, f"union differs from the free space by area {diff!r}")


# ------------------------------------------------------------------ builds
def gen_build(g: Gen) -> Case:
    level, what = hostile_level(g)
    weights = g.choice(["raise", "raise", "ignore", "ignore", "x", None, 1])
    opts: dict[str, Any] = {}
    if g.chance(0.15):
        opts["chord_error"] = g.choice([1e-6, 0.05, 1.0, 0.0, -1, math.nan, 2.0, "0.1", 1e-7])
    if g.chance(0.1):
        opts["merge"] = g.choice([False, True])
    if g.chance(0.1):
        opts["snap_radius"] = g.choice([0.0, 1e300, -1, math.nan, None, 3])
    as_what = g.choice(["dict"] * 6 + ["config", "file", "bad"])

    def run(ctx: Context) -> None:
        from navkit import NavMesh
        from navkit.level import parse_level

        target: Any = level
        if as_what == "config":
            ctx.at("parse_level")
            target = parse_level(level)
        elif as_what == "file":
            from .gen_levels import json_text

            target = ctx.tmp / "level.json"
            target.write_text(json_text(level))
        elif as_what == "bad":
            target = g.choice([None, 5, [level], ctx.tmp / "missing.json", b"{}", "{}"])
        ctx.at("NavMesh.from_level")
        mesh = NavMesh.from_level(target, weights=weights, **opts)
        check(mesh.n_polygons >= 1, "a mesh without polygons")
        ctx.at("NavMesh check")
        check_tiling(mesh)
        if mesh.n_polygons <= 400:
            _probe(ctx, g, mesh, 2)

    return Case("mesh", "NavMesh.from_level", f"{as_what} level: {what}; weights="
                f"{weights!r} {show(opts)}", run)


def gen_grid(g: Gen) -> Case:
    d, w = g.randint(1, 14), g.randint(1, 14)
    walk = g.np.random((d, w)) < g.choice([0.0, 0.3, 0.6, 0.9, 1.0])
    cs = g.choice([1.0, 1.0, 0.25, 1e-9, 1e-4, 1e4, 1e9])
    origin = g.choice([(0.0, 0.0), (0.0, 0.0), (-7.5, 3.0), (1e9, 0.0), (1e14, -1e14)])
    snap = g.choice([None, None, 0.0, 1.0, 1e300, -1, math.nan])

    def run(ctx: Context) -> None:
        from navkit import NavGrid, NavMesh

        ctx.at("NavGrid")
        grid = NavGrid(walk, cell_size=cs, min_x=origin[0], min_z=origin[1])
        ctx.at("NavMesh.from_grid")
        mesh = NavMesh.from_grid(grid, snap_radius=snap)
        ctx.at("NavMesh check")
        check_tiling(mesh)
        _probe(ctx, g, mesh, 2)

    return Case("mesh", "NavMesh.from_grid", f"{w}x{d} grid, {int(walk.sum())} walkable, "
                f"cell {cs:g}, origin {origin}, snap {snap}", run)


# ------------------------------------------------------------------ query meshes
def _small_level(g: Gen) -> dict[str, Any]:
    from .gen_levels import random_level

    return random_level(g)


def base_mesh(g: Gen) -> tuple[str, Any]:
    """How to build a valid mesh (a recipe, cheap to describe), and its description."""
    kind = g.weighted([(4, "random"), (3, "rooms"), (1, "interior"), (2, "grid"), (1, "loaded")])
    if kind == "random":
        return kind, _small_level(g)
    if kind == "rooms":
        from navkit.mesh.build import random_level

        return kind, random_level(g.choice([10, 20, 30]), g.choice([8, 15]), g.randint(0, 25),
                                  seed=g.randint(0, 10**6), doors=g.choice([0, 0, 1, 2]))
    if kind == "grid":
        d, w = g.randint(2, 12), g.randint(2, 12)
        walk = g.np.random((d, w)) < g.choice([0.5, 0.8, 1.0])
        walk[0, 0] = True
        return kind, (walk, g.choice([1.0, 0.5, 2.0]), g.choice([(0.0, 0.0), (-3.0, 100.0)]))
    return kind, None


def build_base(ctx: Context, kind: str, recipe: Any) -> Any:
    from navkit import NavGrid, NavMesh

    if kind in ("random", "rooms"):
        return NavMesh.from_level(recipe, weights="ignore")
    if kind == "interior":
        return NavMesh.from_level(EXAMPLES / "interior.json")
    if kind == "grid":
        walk, cs, (x0, z0) = recipe
        return NavMesh.from_grid(NavGrid(walk, cell_size=cs, min_x=x0, min_z=z0))
    from navkit.mesh.build import random_level

    m = NavMesh.from_level(random_level(15, 10, 8, seed=3))
    p = ctx.tmp / "mesh.npz"
    m.save(p)
    return NavMesh.load(p)


def valid_point(g: Gen, mesh: Any) -> tuple[float, float]:
    """A point on, near or off the mesh: random, a vertex, an edge midpoint, a centre."""
    arr = mesh.arrays
    kind = g.choice(["box", "box", "vertex", "mid", "centre", "far"])
    if kind == "vertex":
        v = arr.vertices[g.randint(0, arr.n_vertices - 1)]
        return float(v[0]), float(v[1])
    if kind in ("mid", "centre"):
        p = arr.polygon(g.randint(0, arr.n_polygons - 1))
        if kind == "centre":
            c = p.mean(axis=0)
            return float(c[0]), float(c[1])
        i = g.randint(0, len(p) - 1)
        q = (p[i] + p[(i + 1) % len(p)]) / 2
        return float(q[0]), float(q[1])
    x0, z0, x1, z1 = mesh.bounds()
    m = 0.1 * max(x1 - x0, z1 - z0) + (20 if kind == "far" else 0)
    return g.uniform(x0 - m, x1 + m), g.uniform(z0 - m, z1 + m)


def hostile_point(g: Gen, mesh: Any) -> Any:
    x, z = valid_point(g, mesh)
    return g.choice([
        (x, z), (math.nan, z), (x, math.inf), (-math.inf, 0.0), (1e308, 1e308), (1e15, z),
        (1e15 + 1e3, z), (-1e16, 0.0), (5e-324, -5e-324), (np.float64(x), np.float32(z)),
        (np.int64(round(x)), np.int8(3)), (np.uint64(2**64 - 1), 0), np.array([x, z]),
        np.array([x, 0.0, z]), np.array([[x, z]]), np.array([x, z, 0.0, 1.0])[::2],
        np.array([x, z], dtype=np.float16), np.array([x, z], dtype=object), (x, 0.0, z),
        (x,), (), [[x], [z]], "xz", "1,2", None, {}, {"x": x}, (True, False), (BIG300, 0),
        (BIG4400, 1), (2**63, 2**63), (complex(x, 1), z), (Fraction(1, 3), 0.5),
        (np.longdouble(x), z), (None, z), b"xz", np.float64(x), np.array(x), [x, z],
        (np.nan, np.nan), (x, "z"), (float(np.float32(x)), -0.0),
    ])


def hostile_circles(g: Gen, mesh: Any) -> Any:
    x0, z0, x1, z1 = mesh.bounds()
    span = max(x1 - x0, z1 - z0, 1e-9)

    def circle() -> list[float]:
        x, z = valid_point(g, mesh)
        return [x, z, span * g.choice([0.0, 0.01, 0.05, 0.1, 0.2, g.random() * 0.3])]

    k = g.randint(0, 6)
    ok = np.array([circle() for _ in range(k)], dtype=np.float64).reshape(k, 3)
    kind = g.weighted([(1, "none"), (6, "valid"), (2, "value"), (1, "shape"), (1, "type"),
                       (1, "many"), (1, "cover"), (1, "layout"), (1, "triple")])
    if kind == "none":
        return None
    if kind == "valid":
        return ok
    if kind == "value":
        bad = ok.copy() if k else np.array([circle()])
        bad[g.randint(0, len(bad) - 1), g.randint(0, 2)] = g.choice(
            [-1.0, -1e-300, math.nan, math.inf, -math.inf, 1e15, 1e16, 1e308, 5e-324, -0.0])
        return bad
    if kind == "shape":
        return g.choice([np.zeros((3, 2)), np.zeros((2, 4)), np.zeros(3), np.zeros((0,)),
                         np.zeros((1, 1, 3)), [[1, 2, 3], [4, 5]], [], np.zeros((0, 3)),
                         [(1.0, 2.0, BIG4400)], [[BIG300, 0, 1]], np.zeros((2, 3, 0))])
    if kind == "type":
        return g.choice(["circles", {"x": 1}, 5, [["a", "b", "c"]], np.array([[1, 2, 3]],
                        dtype=object), np.array([[1 + 1j, 2, 3]]), [[None, 1, 1]],
                         np.array([[1, 2, 3]], dtype=np.int8), [[True, True, True]]])
    if kind == "many":
        n = g.choice([50, 300])
        xs = x0 + g.np.random(n) * (x1 - x0)
        zs = z0 + g.np.random(n) * (z1 - z0)
        return np.stack([xs, zs, g.np.random(n) * span * 0.05], axis=1)
    if kind == "cover":
        return np.array([[(x0 + x1) / 2, (z0 + z1) / 2, span * g.choice([1.0, 10.0, 1e6])]])
    if kind == "layout":
        base = np.zeros((max(k, 1), 6))
        base[:, ::2] = ok if k else np.array([circle()])
        ro = ok.copy()
        ro.setflags(write=False)
        return g.choice([base[:, ::2], np.asfortranarray(base[:, ::2]), ro,
                         ok.astype(np.float32), ok[::-1]])
    return circle()


BUDGETS: tuple[Any, ...] = (None, None, None, 0, 1, 2, 5, 2**30, 2**30 + 1, 2**63, -1, BIG300,
                            1.5, True, np.int64(5), np.uint64(2**64 - 1), "5", math.nan,
                            np.int8(3), np.int64(-1), 10**9, 1.0)
METHODS: tuple[Any, ...] = ("exact", "exact", "funnel", "funnel", "Exact", "", None, 0,
                            "polyanya", ["exact"], np.str_("exact"), b"exact", "exact ",
                            np.array(["exact", "funnel"]), np.array("funnel"))


# ------------------------------------------------------------------ answer checks
def _valid_point(p: Any) -> tuple[float, float] | None:
    """``p`` as the facade would read it, or None when it is refused."""
    from navkit.errors import QueryError
    from navkit.query.padded import world_point

    try:
        x, z = world_point(p, "p")
    except QueryError:
        return None
    if abs(x) > 1e15 or abs(z) > 1e15:
        return None
    return x, z


def _circles(obstacles: Any) -> np.ndarray | None:
    from navkit.errors import QueryError
    from navkit.query.overlay import as_circles

    if obstacles is None:
        return np.zeros((0, 3))
    try:
        return as_circles(obstacles)
    except QueryError:
        return None


def _seg_dist(pts: np.ndarray, c: np.ndarray) -> float:
    """Distance from point ``c`` (2,) to the polyline ``pts`` (m, 2)."""
    if len(pts) == 1:
        return float(np.hypot(*(pts[0] - c)))
    a, b = pts[:-1], pts[1:]
    ab = b - a
    ll = (ab ** 2).sum(axis=1)
    t = np.clip(((c - a) * ab).sum(axis=1) / np.where(ll > 0, ll, 1.0), 0.0, 1.0)
    near = a + t[:, None] * ab
    return float(np.sqrt(((near - c) ** 2).sum(axis=1)).min())


class Oracle:
    """shapely's view of one mesh, for checking its answers."""

    def __init__(self, mesh: Any):
        import shapely

        self.mesh = mesh
        self.space = mesh.space
        self.tol = _tol(mesh)
        self.boundary = self.space.boundary
        shapely.prepare(self.space)

    def covers_path(self, pts: np.ndarray) -> bool:
        """Whether the polyline stays within ``tol`` of the free space. (No ``buffer``:
        GEOS can return an empty buffer of a valid polygon for a tiny distance.)"""
        import shapely

        if len(pts) == 1:
            return self.distance((float(pts[0, 0]), float(pts[0, 1]))) <= self.tol
        segs = shapely.linestrings(np.stack([pts[:-1], pts[1:]], axis=1))
        inside = shapely.covers(self.space, segs)
        for seg in segs[~inside]:
            out = shapely.difference(seg, self.space)
            for part in getattr(out, "geoms", [out]):
                c = shapely.get_coordinates(part)
                if len(c) < 2:
                    continue
                t = np.linspace(0.0, 1.0, 9)[:, None]
                for a, b in zip(c[:-1], c[1:], strict=True):
                    probe = shapely.points(a + t * (b - a))
                    if float(shapely.distance(self.space, probe).max()) > self.tol:
                        return False
        return True

    def distance(self, p: tuple[float, float]) -> float:
        import shapely

        return float(self.space.distance(shapely.Point(p)))

    def inside(self, p: tuple[float, float]) -> bool | None:
        """Whether ``p`` is in the free space; None within 1e-6 of its boundary."""
        import shapely

        pt = shapely.Point(p)
        if self.boundary.distance(pt) <= 1e-6 + self.tol:
            return None
        return bool(self.space.covers(pt))

    def path(self, res: Any, start: tuple[float, float], end: tuple[float, float],
             circles: np.ndarray, nearest: bool) -> None:
        from navkit import MeshPathResult, Status

        m = self.mesh
        check(isinstance(res, MeshPathResult), "query returned no MeshPathResult",
              type(res).__name__)
        check(isinstance(res.status, Status), "status is no Status", show(res.status))
        wps = np.asarray(res.waypoints)
        check(wps.ndim == 2 and wps.shape[1] == 2, "waypoints not (m, 2)", str(wps.shape))
        allowed = {Status.FOUND, Status.UNREACHABLE, Status.BUDGET_EXHAUSTED, Status.NO_START,
                   Status.NO_GOAL} | ({Status.NEAREST} if nearest else set())
        check(res.status in allowed, "unexpected status", res.status.name)
        if res.status not in (Status.FOUND, Status.NEAREST):
            check(len(wps) == 0 and math.isinf(res.length), "a path without FOUND",
                  f"{res.status.name} {len(wps)} waypoints, length {res.length}")
            if res.status == Status.NO_START and not len(circles):
                d = self.distance(start)
                check(d >= m.snap_radius - self.tol, "NO_START near the mesh",
                      f"start {start} is {d} m from the free space (snap {m.snap_radius})")
            return
        if res.status == Status.NEAREST and len(wps) == 0:
            return
        check(len(wps) >= 1 and np.isfinite(wps).all(), "path waypoints not finite",
              show(wps))
        seg = np.sqrt((np.diff(wps, axis=0) ** 2).sum(axis=1)).sum() if len(wps) > 1 else 0.0
        check(abs(res.length - seg) <= 1e-9 * max(1.0, seg), "path length is not the "
              "polyline length", f"{res.length!r} vs {seg!r}")
        check(self.covers_path(wps), "path leaves the free space",
              lambda: f"waypoints {wps.tolist()[:12]}")
        w0 = (float(wps[0, 0]), float(wps[0, 1]))
        d0 = math.dist(w0, start)
        check(d0 <= m.snap_radius + self.tol, "path starts beyond the snap radius",
              f"{w0} vs start {start}")
        if not len(circles):
            if m.locate(start) >= 0:
                check(d0 <= 1e-9 * _scale(m), "path does not start at its start",
                      f"{w0} vs {start}")
            else:
                check(abs(d0 - self.distance(start)) <= 1e-6 + self.tol,
                      "start snapped to a point that is not the nearest",
                      f"{w0} is {d0} from {start}; the free space is {self.distance(start)}")
        if res.status == Status.FOUND:
            we = (float(wps[-1, 0]), float(wps[-1, 1]))
            de = math.dist(we, end)
            check(de <= m.snap_radius + self.tol, "path ends beyond the snap radius",
                  f"{we} vs end {end}")
            if not len(circles):
                if m.locate(end) >= 0:
                    check(de <= 1e-9 * _scale(m), "path does not end at its end",
                          f"{we} vs {end}")
                else:
                    check(abs(de - self.distance(end)) <= 1e-6 + self.tol,
                          "end snapped to a point that is not the nearest",
                          f"{we} is {de} from {end}; the free space is {self.distance(end)}")
        straight = math.dist(w0, (float(wps[-1, 0]), float(wps[-1, 1])))
        check(res.length >= straight - 1e-9 * max(1.0, straight), "path shorter than the "
              "straight line", f"{res.length!r} < {straight!r}")
        for c in circles:
            dist = _seg_dist(wps, c[:2])
            check(dist >= c[2] - 1e-6 - self.tol, "path enters an obstacle circle",
                  f"circle {c.tolist()}: distance {dist!r}")


def _probe(ctx: Context, g: Gen, mesh: Any, n: int) -> None:
    """A few valid queries on a freshly built mesh, checked by the oracle."""
    orc = Oracle(mesh)
    for _ in range(n):
        a, b = valid_point(g, mesh), valid_point(g, mesh)
        ctx.at("NavMesh.find_path")
        res = mesh.find_path(a, b)
        orc.path(res, a, b, np.zeros((0, 3)), False)
        ctx.at("NavMesh.is_walkable")
        inside = orc.inside(a)
        if inside is not None:
            check(mesh.is_walkable(a) == inside, "is_walkable disagrees with the free space",
                  f"{a}: shapely says {inside}")


def _call(g: Gen, ctx: Context, mesh: Any, orc: Oracle, hostile: bool, done: list[str]) -> None:
    from navkit import Status

    op = g.weighted([(5, "find_path"), (2, "nearest"), (2, "find_paths"), (2, "raycast"),
                     (1, "locate"), (2, "is_walkable"), (2, "nearest_point"), (1, "compare")])

    def pt() -> Any:
        return hostile_point(g, mesh) if hostile and g.chance(0.4) else valid_point(g, mesh)

    if op in ("find_path", "nearest", "compare"):
        a, b = pt(), pt()
        method = g.choice(METHODS) if hostile and g.chance(0.3) else g.choice(["exact", "funnel"])
        obstacles = hostile_circles(g, mesh) if g.chance(0.4) else None
        budget = g.choice(BUDGETS) if hostile and g.chance(0.3) else (
            g.choice([None, None, 1, 3, 20]) if g.chance(0.3) else None)
        if op == "compare":
            method, budget = "exact", None
        done.append(f"{op}({show(a, 30)}, {show(b, 30)}, method={show(method, 12)}, "
                    f"obstacles={show(obstacles, 30)}, max_nodes={show(budget, 12)})")
        ctx.note(done[-1])
        ctx.at("NavMesh.find_path_to_nearest" if op == "nearest" else "NavMesh.find_path")
        fn = mesh.find_path_to_nearest if op == "nearest" else mesh.find_path
        res = fn(a, b, method=method, obstacles=obstacles, max_nodes=budget)
        sa, sb, circ = _valid_point(a), _valid_point(b), _circles(obstacles)
        check(sa is not None and sb is not None and circ is not None,
              "a refused argument was answered", done[-1])
        assert sa is not None and sb is not None and circ is not None
        orc.path(res, sa, sb, circ, op == "nearest")
        if op == "compare":
            ctx.at("NavMesh.find_path")
            fun = mesh.find_path(a, b, method="funnel", obstacles=obstacles)
            orc.path(fun, sa, sb, circ, False)
            if res.status == Status.FOUND:
                check(fun.status == Status.FOUND, "funnel finds no path where exact does",
                      fun.status.name)
                check(fun.length >= res.length - 1e-9 * max(1.0, res.length),
                      "funnel path shorter than the exact one",
                      f"funnel {fun.length!r} < exact {res.length!r}")
            if fun.status == Status.FOUND:
                check(res.status == Status.FOUND, "exact finds no path where funnel does",
                      res.status.name)
    elif op == "find_paths":
        n = g.choice([0, 1, 2, 5])
        starts: Any = np.array([valid_point(g, mesh) for _ in range(n)]).reshape(n, 2)
        ends: Any = np.array([valid_point(g, mesh) for _ in range(n)]).reshape(n, 2)
        if hostile and g.chance(0.5):
            which = g.choice(["starts", "ends", "both"])
            bad = g.choice([starts[:-1] if n else np.zeros((1, 2)), starts.T, starts.ravel(),
                            np.full((n, 2), np.nan), [[1, 2], [3]], "ab", None,
                            starts.astype(np.float32), starts.astype(object), starts[:, :1],
                            np.zeros((n, 3)), starts * 1e16, [[BIG300, 0]], starts[::-1].T.T,
                            np.zeros((0, 2)), 5])
            if which in ("starts", "both"):
                starts = bad
            if which in ("ends", "both"):
                ends = bad
        method = g.choice(METHODS) if hostile and g.chance(0.3) else g.choice(["exact", "funnel"])
        obstacles = hostile_circles(g, mesh) if g.chance(0.3) else None
        nearest = g.chance(0.3)
        threads = g.choice([None, None, 1, 2, 0, -1, 64]) if hostile else None
        done.append(f"find_paths({show(starts, 24)}, {show(ends, 24)}, method={show(method)}, "
                    f"obstacles={show(obstacles, 24)}, nearest={nearest}, threads={threads})")
        ctx.note(done[-1])
        ctx.at("NavMesh.find_paths")
        out = mesh.find_paths(starts, ends, method=method, obstacles=obstacles,
                              nearest=nearest, threads=threads)
        s = np.asarray(starts, dtype=np.float64)
        e = np.asarray(ends, dtype=np.float64)
        check(isinstance(out, list) and len(out) == len(s), "find_paths answered a wrong count",
              f"{len(out)} for {len(s)}")
        circ = _circles(obstacles)
        check(circ is not None, "find_paths answered refused obstacles", done[-1])
        assert circ is not None
        for i, r in enumerate(out):
            si, ei = (float(s[i, 0]), float(s[i, 1])), (float(e[i, 0]), float(e[i, 1]))
            orc.path(r, si, ei, circ, nearest)
            if not len(circ):
                ctx.at("NavMesh.find_path")
                one = (mesh.find_path_to_nearest if nearest else mesh.find_path)(
                    si, ei, method=method)
                check(one.status == r.status and np.array_equal(one.waypoints, r.waypoints),
                      "find_paths differs from find_path",
                      f"#{i}: {r.status.name} {r.length!r} vs {one.status.name} {one.length!r}")
    elif op == "raycast":
        a, b = pt(), pt()
        done.append(f"raycast({show(a, 30)}, {show(b, 30)})")
        ctx.note(done[-1])
        ctx.at("NavMesh.raycast")
        hit = mesh.raycast(a, b)
        sa, sb = _valid_point(a), _valid_point(b)
        check(sa is not None and sb is not None, "raycast answered a refused point", done[-1])
        assert sa is not None and sb is not None
        check(0.0 <= hit.fraction <= 1.0, "raycast fraction outside [0, 1]", str(hit))
        check(hit.hit or hit.fraction == 1.0, "raycast without a hit stopped early", str(hit))
        px, pz = hit.point
        ex = sa[0] + (sb[0] - sa[0]) * hit.fraction, sa[1] + (sb[1] - sa[1]) * hit.fraction
        check(math.dist((px, pz), ex) <= orc.tol + 1e-9 * math.dist(sa, sb),
              "raycast point is not at its fraction", f"{hit} vs {ex}")
        if math.dist(sa, (px, pz)) > 0:
            check(orc.covers_path(np.array([sa, (px, pz)])), "raycast passes outside the mesh",
                  str(hit))
        if hit.hit:
            import shapely

            d = orc.boundary.distance(shapely.Point(px, pz))
            check(d <= 1e-6 + orc.tol, "raycast stopped away from a wall", f"{hit}: {d} m")
        check(0 <= hit.polygon < mesh.n_polygons, "raycast polygon out of range", str(hit))
    elif op in ("locate", "is_walkable"):
        p = pt()
        done.append(f"{op}({show(p, 30)})")
        ctx.note(done[-1])
        ctx.at(f"NavMesh.{op}")
        got = mesh.locate(p) if op == "locate" else mesh.is_walkable(p)
        sp = _valid_point(p)
        check(sp is not None, f"{op} answered a refused point", done[-1])
        assert sp is not None
        walk = got >= 0 if op == "locate" else got
        if op == "locate" and got >= 0:
            import shapely

            check(got < mesh.n_polygons, "locate polygon out of range", str(got))
            poly = shapely.Polygon(mesh.arrays.polygon(int(got)))
            check(poly.distance(shapely.Point(sp)) <= orc.tol,
                  "locate names a polygon that does not hold the point", f"{sp}: {got}")
        inside = orc.inside(sp)
        if inside is not None:
            check(bool(walk) == inside, "is_walkable disagrees with the free space",
                  f"{sp}: mesh says {got}, shapely says {inside}")
    else:
        p = pt()
        radius = g.choice([None, 0.0, 0.5, 3.0, 100.0, 1e300, -1.0, math.nan, math.inf, "1",
                           True, np.float32(2.0), np.int64(4), BIG300]) if hostile else \
            g.choice([None, 0.5, 3.0, 100.0])
        done.append(f"nearest_point({show(p, 30)}, {show(radius, 12)})")
        ctx.note(done[-1])
        ctx.at("NavMesh.nearest_point")
        q = mesh.nearest_point(p, radius)
        sp = _valid_point(p)
        check(sp is not None, "nearest_point answered a refused point", done[-1])
        assert sp is not None
        r = mesh.snap_radius if radius is None else float(radius)
        dtrue = orc.distance(sp)
        if q is None:
            check(dtrue >= r - 1e-6 - orc.tol, "nearest_point found nothing within its radius",
                  f"{sp} is {dtrue} m from the free space, radius {r}")
        else:
            import shapely

            dq = math.dist(q, sp)
            check(dq <= r + orc.tol, "nearest_point beyond its radius", f"{q}: {dq} > {r}")
            # float64 resolves distances to about 2e-16 of the coordinates' size
            scale = max(abs(sp[0]), abs(sp[1]), 1.0)
            check(abs(dq - dtrue) <= 1e-6 + orc.tol + 4e-16 * scale,
                  "nearest_point is not the nearest",
                  f"{q} is {dq} m from {sp}; the free space is {dtrue}")
            check(orc.distance(q) <= orc.tol, "nearest_point off the mesh", str(q))


def _edit(g: Gen, ctx: Context, mesh: Any, hostile: bool, done: list[str]) -> bool:
    """One door or obstacle edit; True when it was applied (the mesh must then equal a
    fresh build of the edited config)."""
    cfg = mesh.config
    if cfg is None:
        return False
    op = g.choice(["toggle", "toggle", "add", "remove"])
    if op == "toggle":
        names = [a.name for a in cfg.areas]
        name = g.choice(names) if not hostile or g.chance(0.6) else g.choice(
            ["", "nope", 5, None, names[0].upper()])
        value: Any = g.chance(0.5) if not hostile or g.chance(0.6) else g.choice(NUMBERS)
        done.append(f"set_area_available({show(name, 16)}, {show(value, 16)})")
        ctx.note(done[-1])
        ctx.at("NavMesh.set_area_available")
        mesh.set_area_available(name, value)
    elif op == "add":
        x, z = valid_point(g, mesh)
        s = g.uniform(0.05, 3)
        poly: Any = g.choice([[[x, z], [x + s, z], [x + s / 2, z + s]], _rect(x, z, s, s / 2),
                              _star(g, x, z, s)])
        name: Any = f"new{len(done)}"
        if hostile and g.chance(0.6):
            if g.chance(0.5):
                poly = g.choice([[], [[x, z]], [[x, z], [x, z], [x, z]], [[math.nan, 0]] * 3,
                                 [[x, z], [x + 2, z + 2], [x + 2, z], [x, z + 2]], "poly", None,
                                 [[1e300, 0], [0, 1e300], [0, 0]], _rect(-1e6, -1e6, 2e6, 2e6)])
            else:
                name = g.choice(["", None, 7, "x" * 5000, *(o.name for o in cfg.obstacles[:1])])
        done.append(f"add_obstacle({show(name, 16)}, {show(poly, 40)})")
        ctx.note(done[-1])
        ctx.at("NavMesh.add_obstacle")
        mesh.add_obstacle(name, poly)
    else:
        known = [o.name for o in cfg.obstacles]
        name = g.choice(known) if known and (not hostile or g.chance(0.6)) else g.choice(
            ["nope", "", None, 3])
        done.append(f"remove_obstacle({show(name, 16)})")
        ctx.note(done[-1])
        ctx.at("NavMesh.remove_obstacle")
        mesh.remove_obstacle(name)
    return True


def gen_query(g: Gen) -> Case:
    kind, recipe = base_mesh(g)
    hostile = g.chance(0.6)
    n = g.randint(1, 5)

    def run(ctx: Context) -> None:
        from navkit import NavMesh

        ctx.at("NavMesh build")
        mesh = build_base(ctx, kind, recipe)
        orc = Oracle(mesh)
        done: list[str] = []
        for _ in range(n):
            if mesh.config is not None and g.chance(0.15):
                if _edit(g, ctx, mesh, hostile, done):
                    ctx.at("NavMesh check after edits")
                    check_tiling(mesh, "edited mesh does not tile its free space")
                    fresh = NavMesh.from_level(mesh.config, weights="ignore")
                    diff = mesh.space.symmetric_difference(fresh.space).area
                    check(diff <= 1e-6 * max(fresh.space.area, 1e-9),
                          "edited mesh differs from a fresh build", f"{'; '.join(done)}: {diff}")
                    orc = Oracle(mesh)
                continue
            _call(g, ctx, mesh, orc, hostile, done)

    return Case("mesh", "NavMesh queries", f"{kind} mesh, {n} {'hostile' if hostile else 'valid'}"
                " calls", run)


# ------------------------------------------------------------------ files
def _npz(members: dict[str, Any], compress: bool = True) -> bytes:
    buf = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(buf, **members)
    return buf.getvalue()


def _header(obj: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(obj).encode(), np.uint8)


def hostile_file(g: Gen, ctx: Context, mesh: Any) -> tuple[bytes, str]:
    """The bytes of a damaged mesh file, and what was done to it."""
    arr = mesh.arrays
    good = {"header": _header({"format": "navkit-mesh", "version": 1,
                               "meta": {"floorY": 0.0, "snapRadius": 8.0, "name": "m"}}),
            "vertices": arr.vertices.copy(), "poly_start": arr.poly_start.copy(),
            "poly_verts": arr.poly_verts.copy()}
    p = ctx.tmp / "good.npz"
    mesh.save(p)
    raw = p.read_bytes()
    kind = g.weighted([(2, "bytes"), (2, "truncate"), (2, "flip"), (3, "member"), (3, "header"),
                       (4, "dtype"), (4, "index"), (3, "geometry"), (1, "pickle"), (2, "meta"),
                       (1, "valid")])
    if kind == "bytes":
        return g.choice([b"", b"PK\x03\x04", b"\x93NUMPY", g.bytes(g.choice([1, 100, 5000]))]), kind
    if kind == "truncate":
        n = g.randint(0, len(raw) - 1)
        return raw[:n], f"truncated to {n} of {len(raw)} bytes"
    if kind == "flip":
        b = bytearray(raw)
        for _ in range(g.randint(1, 8)):
            b[g.randint(0, len(b) - 1)] = g.randint(0, 255)
        return bytes(b), "bytes flipped"
    m = dict(good)
    what = kind
    if kind == "member":
        op = g.choice(["drop", "rename", "extra", "empty"])
        key = g.choice(list(m))
        if op == "drop":
            del m[key]
        elif op == "rename":
            m[key.upper()] = m.pop(key)
        elif op == "extra":
            m["poly_adj"] = arr.poly_adj
        else:
            m = {}
        what = f"{op} {key}"
    elif kind == "header":
        h = g.choice([b"not json", b"\xff\xfe", b"[]", b"null", b'{"format": "navkit-mesh"}',
                      json.dumps({"format": "navkit-mesh", "version": 2}).encode(),
                      json.dumps({"format": "navkit-mesh", "version": "1"}).encode(),
                      json.dumps({"format": "navkit-mesh", "version": True}).encode(),
                      json.dumps({"format": "navkit-mesh", "version": 1.0}).encode(),
                      json.dumps({"format": "other", "version": 1}).encode(),
                      b'{"format": "navkit-mesh", "version": 1, "version": 1}',
                      b"[" * 100_000 + b"]" * 100_000])
        m["header"] = np.frombuffer(h, np.uint8) if h else np.zeros(0, np.uint8)
        if g.chance(0.3):
            m["header"] = g.choice([m["header"].astype(np.float64), m["header"].reshape(1, -1),
                                    np.array(5), np.array(["x"]), m["header"].astype(np.int64)
                                    * 1000])
        what = f"header {show(h, 30)}"
    elif kind == "dtype":
        key = g.choice(["vertices", "poly_start", "poly_verts"])
        v = m[key]
        m[key] = g.choice([v.astype(np.float32), v.astype(np.int64), v.astype(np.uint8),
                           v.astype(np.complex128), v.astype(np.float16), v.astype(np.bool_),
                           v.astype("<U8"), v.reshape(1, -1), v.ravel(), v[:0], np.array(3),
                           v.astype(">f8") if v.dtype.kind == "f" else v.astype(">i4"),
                           v.astype(np.uint64), v[..., None], v.reshape(-1)[:-1],
                           np.concatenate([v, v])])
        what = f"{key} as {show(m[key])}"
    elif kind == "index":
        ps, pv = m["poly_start"].astype(np.int64), m["poly_verts"].astype(np.int64)
        op = g.choice(["out", "negative", "huge", "start-neg", "start-order", "start-last",
                       "start-first", "dup-vertex", "short", "many"])
        if op == "out":
            pv[g.randint(0, len(pv) - 1)] = len(m["vertices"])
        elif op == "negative":
            pv[g.randint(0, len(pv) - 1)] = -1
        elif op == "huge":
            pv[g.randint(0, len(pv) - 1)] = g.choice([2**31 - 1, 2**40, 2**63 - 1, -(2**63)])
        elif op == "start-neg":
            ps[g.randint(1, len(ps) - 1)] = -5
        elif op == "start-order" and len(ps) > 2:
            ps[1], ps[2] = ps[2], ps[1]
        elif op == "start-last":
            ps[-1] += g.choice([-1, 1, 2**40])
        elif op == "start-first":
            ps[0] = g.choice([1, -1])
        elif op == "dup-vertex":
            pv[1] = pv[0]
        elif op == "short":
            ps, pv = np.array([0, 2]), pv[:2]
        else:
            n = g.choice([1000, 100_000])
            ps = np.arange(n + 1) * 3
            pv = np.tile(pv[:3], n)
        dt = g.choice([np.int64, np.int64, np.int32, np.uint32])
        with np.errstate(all="ignore"):
            m["poly_start"], m["poly_verts"] = ps.astype(dt), pv.astype(dt)
        what = f"index {op} ({np.dtype(dt).name})"
    elif kind == "geometry":
        v = m["vertices"].astype(np.float64)
        ps, pv = m["poly_start"], m["poly_verts"]
        op = g.choice(["nan", "inf", "huge", "clockwise", "clockwise-all", "concave", "overlap",
                       "duplicate-poly", "collapse", "far", "tiny"])
        if op in ("nan", "inf", "huge"):
            v[g.randint(0, len(v) - 1), g.randint(0, 1)] = {"nan": math.nan, "inf": -math.inf,
                                                           "huge": 1e300}[op]
        elif op in ("clockwise", "clockwise-all"):
            pv = pv.copy()
            for i in range(len(ps) - 1) if op == "clockwise-all" else [0]:
                pv[ps[i]:ps[i + 1]] = pv[ps[i]:ps[i + 1]][::-1]
        elif op == "concave":
            i = int(np.argmax(np.diff(ps)))
            ids = pv[ps[i]:ps[i + 1]]
            c = v[ids].mean(axis=0)
            v[ids[0]] = c + (v[ids[0]] - c) * g.choice([0.1, -0.5, 0.0])
        elif op == "overlap":
            ids = pv[ps[0]:ps[1]]
            shift = (v[ids].max(axis=0) - v[ids].min(axis=0)) * 0.3
            nv = len(v)
            v = np.concatenate([v, v[ids] + shift])
            pv = np.concatenate([pv, np.arange(nv, nv + len(ids))]).astype(pv.dtype)
            ps = np.append(ps, ps[-1] + len(ids)).astype(ps.dtype)
        elif op == "duplicate-poly":
            ids = pv[ps[0]:ps[1]]
            pv = np.concatenate([pv, ids]).astype(pv.dtype)
            ps = np.append(ps, ps[-1] + len(ids)).astype(ps.dtype)
        elif op == "collapse":
            v[:] = v[0]
        elif op == "far":
            v += g.choice([1e15, 1e16, 1e9])
        else:
            v *= 1e-300
        m["vertices"], m["poly_start"], m["poly_verts"] = v, ps, pv
        what = f"geometry {op}"
    elif kind == "pickle":
        op = g.choice(["object-member", "pickle-file", "npy"])
        if op == "pickle-file":
            return pickle.dumps({"vertices": good["vertices"], "evil": [1, 2]}), "a pickle"
        if op == "npy":
            buf = io.BytesIO()
            np.save(buf, good["vertices"])
            return buf.getvalue(), "a .npy file"
        m["vertices"] = np.array([[0.0, 0.0], "x", None], dtype=object)
        buf = io.BytesIO()
        np.savez(buf, allow_pickle=True, **m)
        return buf.getvalue(), "object (pickled) member"
    elif kind == "meta":
        meta = g.choice([{"floorY": math.nan}, {"snapRadius": -1}, {"snapRadius": math.inf},
                         {"floorY": "0"}, {"name": ["x"]}, {"name": 5}, [], "meta", None,
                         {"floorY": 1e308, "snapRadius": 1e308}, {"snapRadius": True},
                         {"floorY": BIG300}])
        h = json.dumps({"format": "navkit-mesh", "version": 1, "meta": meta},
                       default=str).replace('"1000', "1000")
        m["header"] = np.frombuffer(h.encode(), np.uint8)
        what = f"meta {show(meta)}"
    data = _npz(m, compress=g.chance(0.7))
    if g.chance(0.1):  # a zip whose members are not .npy
        zb = io.BytesIO()
        with zipfile.ZipFile(zb, "w") as zf:
            for k in m:
                zf.writestr(k + ".npy", g.bytes(40))
        data, what = zb.getvalue(), what + ", members not .npy"
    return data, what


def gen_load(g: Gen) -> Case:
    seed = g.randint(0, 10**6)
    n_obst = g.choice([0, 2, 6])

    def run(ctx: Context) -> None:
        import shapely

        from navkit import NavMesh
        from navkit.errors import FormatError, NavkitError
        from navkit.mesh.build import random_level

        ctx.at("NavMesh build")
        mesh = NavMesh.from_level(random_level(8, 6, n_obst, seed=seed))
        data, what = hostile_file(g, ctx, mesh)
        ctx.note(what)
        p = ctx.tmp / g.choice(["bad.npz", "bad.mesh", "bad"])
        p.write_bytes(data)
        ctx.at("NavMesh.load")
        try:
            loaded = NavMesh.load(p)
        except NavkitError as e:
            check(isinstance(e, FormatError), "load raised no FormatError",
                  f"{type(e).__name__}: {e}")
            check(getattr(e, "path", None) == str(p) and str(p) in str(e),
                  "load's FormatError does not name the file", str(e))
            raise
        ctx.at("NavMesh check after load")
        check(math.isfinite(loaded.floor_y) and math.isfinite(loaded.snap_radius)
              and loaded.snap_radius >= 0, "loaded meta not finite",
              f"{loaded.floor_y} {loaded.snap_radius}")
        check_tiling(loaded)
        polys = [shapely.Polygon(q) for q in loaded.arrays.polygons()]
        if len(polys) <= 3000:
            union = shapely.union_all(polys).area
            total = sum(q.area for q in polys)
            check(abs(union - total) <= 1e-9 * max(total, 1e-300),
                  "load accepted overlapping polygons", f"{what}: union {union} sum {total}")
        _probe(ctx, g, loaded, 2)

    return Case("mesh", "NavMesh.load", f"mesh of random_level(8, 6, {n_obst}, seed={seed}), "
                "damaged", run)


GENERATORS = [(4, gen_build), (1, gen_grid), (6, gen_query), (3, gen_load)]

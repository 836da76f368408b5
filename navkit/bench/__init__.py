"""navkit's benchmarks, one module each, reachable as ``navkit bench [NAME] [OPTIONS]``.

=========  =====================================================================
``peers``  :mod:`navkit.bench.peers`: navkit's A* against pyastar2d, tcod,
           python-pathfinding, networkx and scikit-image on Moving AI maps
           (``navkit bench`` with no name runs it)
``jps``    :mod:`navkit.bench.jps`: Jump Point Search against A* and pyastar2d
``hpa``    :mod:`navkit.bench.hpa`: HPA* build, update, queries, suboptimality
``flow``   :mod:`navkit.bench.flow`: a 1024 x 1024 flow field against
           scikit-image and tcod
``level``  :mod:`navkit.bench.level`: the reference benchmark (docs/rules.md
           §11.2: find path to nearest among 20 characters) and the rasterizer
           (:mod:`navkit.bench.raster`); also ``navkit bench-level``
``sim``    :mod:`navkit.bench.sim`: simulation tick time at 100 to 5,000 walkers
``startup`` :mod:`navkit.bench.startup`: first use in a new process, cold and
           warm numba cache (CPU, wall, peak memory)
``mesh``   :mod:`navkit.bench.mesh`: navigation meshes against
           extremitypathfinder, pyvisgraph, pynavmesh and navkit's grid
``crowd``  :mod:`navkit.bench.crowd`: the spatial hash against cKDTree, flocking
           and flow following against numpy / scipy
``avoidance`` :mod:`navkit.bench.avoidance`: ORCA avoidance against pyrvo (RVO2)
``distributed`` :mod:`navkit.bench.distributed`: every scenario line of several
           maps locally and on a 2-worker Dask LocalCluster (speed-up, overhead)
``jps-plus`` :mod:`navkit.bench.jps_plus`: offline jump tables (JPS+) and goal
           bounding against JPS and A*, nano-astar, w9-pathfinding, warthog (``--warthog``)
``edits``  :mod:`navkit.bench.edits`: one-cell edits + the next query against a
           rebuild; per-query ``ignore=`` against a shared snapshot
``engines`` :mod:`navkit.bench.engines`: the arcade adapter against
           ``arcade.astar_calculate_path`` on the same barrier list
``world``  :mod:`navkit.bench.world_query`: queries on worlds (bounded local and
           long) against Pathfinder, JPS and HPAStar; a 10^10-cell procedural world
``world-store`` :mod:`navkit.bench.world_store`: the chunk store (.nkw) against zarr
           and blosc2: file size, open time, random chunk reads, cold misses
=========  =====================================================================

Each module has ``main(argv) -> int`` (0, or 2 on bad input); they are
measurement scripts, not tests, and never fail on a missed target. What they
share (the Moving AI data folder, the query selection, the timing loops) is
:mod:`navkit.bench.common`. ``python -m navkit.bench [NAME] [OPTIONS]`` is
the same as ``navkit bench``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

__all__ = ["SUITES", "DEFAULT_SUITE", "split_suite", "main"]

#: Benchmark name -> module (imported only when run).
SUITES: dict[str, str] = {
    "peers": "navkit.bench.peers",
    "jps": "navkit.bench.jps",
    "hpa": "navkit.bench.hpa",
    "flow": "navkit.bench.flow",
    "level": "navkit.bench.level",
    "sim": "navkit.bench.sim",
    "startup": "navkit.bench.startup",
    "mesh": "navkit.bench.mesh",
    "crowd": "navkit.bench.crowd",
    "avoidance": "navkit.bench.avoidance",
    "world-store": "navkit.bench.world_store",
    "world": "navkit.bench.world_query",
    "engines": "navkit.bench.engines",
    "distributed": "navkit.bench.distributed",
    "edits": "navkit.bench.edits",
    "jps-plus": "navkit.bench.jps_plus",
}
#: What ``navkit bench`` runs when the first argument names no benchmark.
DEFAULT_SUITE = "peers"


def split_suite(argv: Sequence[str]) -> tuple[str, list[str]]:
    """``(name, rest)``: the benchmark the arguments name first, else :data:`DEFAULT_SUITE`.

    >>> split_suite(["jps", "--queries", "4"]), split_suite(["--quick"])
    (('jps', ['--queries', '4']), ('peers', ['--quick']))
    """
    args = list(argv)
    if args and args[0] in SUITES:
        return args[0], args[1:]
    return DEFAULT_SUITE, args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark that ``argv`` names (see :func:`split_suite`) with the rest."""
    import sys

    name, rest = split_suite(sys.argv[1:] if argv is None else argv)
    rc = importlib.import_module(SUITES[name]).main(rest)
    return int(rc) if isinstance(rc, int) else 0

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
``call-overhead`` :mod:`navkit.bench.call_overhead`: the time a cell query spends
           outside its search kernel
``floors`` :mod:`navkit.bench.floors`: grid queries across the floors of a
           generated building against queries on one floor
=========  =====================================================================

Each module has a typer ``app`` (one command; its options declared with the
shared pieces of :mod:`navkit.bench.options`) and ``main(argv) -> int`` (0, or
2 on bad input); ``navkit bench NAME`` loads a module only when that benchmark
runs or its ``--help`` is asked (:class:`navkit.cli.bench.BenchGroup`); they are
measurement scripts, not tests, and never fail on a missed target. What they
share (the Moving AI data folder, the query selection, the timing loops) is
:mod:`navkit.bench.common`. ``python -m navkit.bench [NAME] [OPTIONS]`` is
the same as ``navkit bench``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

__all__ = ["SUITES", "SUITE_HELP", "DEFAULT_SUITE", "split_suite", "main"]

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
    "call-overhead": "navkit.bench.call_overhead",
    "floors": "navkit.bench.floors",
}
#: Benchmark name -> its one-line help (``navkit bench --help`` lists them without
#: importing a module; each equals the first line of the command's own help).
SUITE_HELP: dict[str, str] = {
    "peers": "Time navkit's A* against Python grid path-finding libraries on Moving AI maps.",
    "jps": "Benchmark navkit's Jump Point Search against navkit's A* and pyastar2d.",
    "hpa": ("Benchmark HPA* (navkit.query.hpa) against navkit's A* and "
            "JPS on Moving AI game and city maps."),
    "flow": "Time navkit's flow-field build against scikit-image MCP and tcod dijkstra2d.",
    "level": "The reference benchmark (docs/rules.md §11.2), measured on navkit.",
    "sim": "Benchmark of the character simulation: tick time at 100, 1,000 and 5,000 walkers.",
    "startup": "Start-up benchmark: the first use of navkit in a new process, cold and warm.",
    "mesh": "Benchmark navkit's navigation meshes (``navkit bench mesh``, ``--help`` for options).",
    "crowd": "Benchmark navkit's spatial hash and crowd tick against scipy / numpy.",
    "avoidance": ("Benchmark of local avoidance (docs/rules.md §9.6): navkit's "
                  "ORCA step against pyrvo."),
    "world-store": ("Chunk storage: codecs, chunk sizes, and navkit's ``.nkw`` "
                    "against zarr v3 and blosc2."),
    "world": ("World query benchmark: ``python -m navkit.bench.world_query "
              "[--quick] [--json] [--size N]``."),
    "engines": "navkit's arcade adapter vs arcade.astar_calculate_path",
    "distributed": ("Benchmark: every scenario line of Moving AI maps, locally "
                    "and on a 2-worker LocalCluster."),
    "edits": ("Cell-edit and self-exclusion benchmark: ``python -m "
              "navkit.bench.edits [--quick] [--json]``."),
    "jps-plus": ("Benchmark JPS+ (offline jump tables) against navkit's JPS "
                 "and A*, Python peers and warthog."),
    "call-overhead": ("Call overhead of a cell query: the time a query spends outside "
                      "its search kernel."),
    "floors": "Buildings benchmark: ``navkit bench floors [--quick] [--json] [--floors N] "
              "[--size N]``.",
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

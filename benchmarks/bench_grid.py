"""The peer benchmark as a script: ``python benchmarks/bench_grid.py [OPTIONS]``.

The same as ``navkit bench [OPTIONS]`` (:mod:`navkit.bench.peers`).
"""

from navkit.bench.peers import main

raise SystemExit(main())

"""A Location loads its tick's kernels when built, never in a tick (navkit.sim.warming).

Each check runs in a fresh process (the usual numba cache) and lists the navkit
kernels that gained a compiled variant during the ticks: compiled there, or
loaded from the disk cache, either of which is a stall in play.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent("""
    import json, sys
    import numpy as np
    from numba.core.registry import CPUDispatcher
    import navkit
    from navkit.crowd import SteeringPolicy, Weights
    from navkit.sim import Location

    def variants():
        out = {}
        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("navkit"):
                for name, obj in list(vars(mod).items()):
                    if isinstance(obj, CPUDispatcher):
                        out[f"{mod.__name__}.{name}"] = len(obj.overloads)
        return out

    warm = sys.argv[1] == "warm"
    walk = np.ones((20, 30), bool)
    walk[5:15, 12] = False
    loc = Location(navkit.NavGrid(walk, cell_size=0.5), avoidance="orca", warm=warm)
    for i in range(4):
        c = loc.add_character(i, position=(1.25, 1.25 + 2 * i))
        c.set_target((13.0, 8.0 - i))
    loc.character(0).set_policy(SteeringPolicy(Weights(seek=1.0)))
    before = variants()
    loc.run(40)
    after = variants()
    print("NAVKIT_TICKS " + json.dumps(sorted(k for k, n in after.items()
                                               if n > before.get(k, 0))))
""")


def _compiled_in_ticks(mode: str, tmp_path: Path) -> list[str]:
    env = {**os.environ, "NAVKIT_QUIET_COMPILE": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", PROGRAM, mode], env=env, capture_output=True,
                          text=True, timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("NAVKIT_TICKS ")][0]
    return list(json.loads(line.split(" ", 1)[1]))


def test_no_kernel_compiles_during_a_tick(tmp_path: Path) -> None:
    assert _compiled_in_ticks("warm", tmp_path) == []


def test_without_warm_the_first_tick_compiles(tmp_path: Path) -> None:
    """The check above can fail: with ``warm=False`` the ticks compile."""
    assert "navkit._kernels.sim.tick_steer" in _compiled_in_ticks("cold", tmp_path)


def test_a_location_loads_the_parts_of_its_own_kind_of_map(tmp_path: Path) -> None:
    """A mesh location runs the mesh tick only; ORCA and a policy add their parts on it."""
    code = textwrap.dedent("""
        import numpy as np
        import navkit
        from navkit.crowd import SteeringPolicy, Weights
        from navkit.sim import Location, warming
        loc = Location(navkit.NavGrid(np.ones((8, 8), bool), cell_size=0.5),
                       navigation_mode="mesh")
        print(sorted(warming.warmed()))
        loc.set_avoidance("orca")
        loc.add_character(0, position=(1.0, 1.0)).set_policy(SteeringPolicy(Weights(seek=1.0)))
        print(sorted(warming.warmed()))
    """)
    env = {**os.environ, "NAVKIT_QUIET_COMPILE": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, then = proc.stdout.splitlines()[-2:]
    assert first == "[('mesh', 'tick')]"
    assert then == "[('mesh', 'orca'), ('mesh', 'steer'), ('mesh', 'tick')]"


def test_switching_a_steered_location_to_a_mesh_loads_the_mesh_steer_part(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import numpy as np
        import navkit
        from navkit.crowd import SteeringPolicy, Weights
        from navkit.sim import Location, warming
        grid = navkit.NavGrid(np.ones((8, 8), bool), cell_size=0.5)
        loc = Location(grid)
        loc.add_character(0, position=(1.0, 1.0)).set_policy(SteeringPolicy(Weights(seek=1.0)))
        loc.set_map(grid, navigation_mode="mesh")
        print(sorted(warming.warmed()))
    """)
    env = {**os.environ, "NAVKIT_QUIET_COMPILE": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1] == (
        "[('grid', 'steer'), ('grid', 'tick'), ('mesh', 'steer'), ('mesh', 'tick')]")

"""The demo's tavern crowd (examples/tavern_crowd.py): everyone arrives, floors apart."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "tavern_crowd.py"


def _module():
    spec = importlib.util.spec_from_file_location("tavern_crowd", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def test_the_tavern_crowd_climbs_descends_and_arrives():
    mod = _module()
    sim, trails, log, riding = mod.run(900)
    arrived = {line.split()[2] for line in log if line.endswith("arrived")}
    assert arrived == set(sim.ids)
    # everyone ends on the floor of its goal
    for sid, (_, goal) in zip([f"up{i}" for i in range(6)], mod.UP, strict=True):
        assert sim.floor_of(sid) == 1 and abs(sim.position(sid)[1] - goal[1]) < 1e-9
    for sid in [f"down{i}" for i in range(5)] + ["jumper"]:
        assert sim.floor_of(sid) == 0
    assert any("jumper entered window" in line for line in log)
    # characters on one floor never overlap (contact circles), at any sampled tick
    pos = np.stack([t[0] for t in trails], axis=1)  # (ticks, n, 3)
    fl = np.stack([t[1] for t in trails], axis=1)
    # riders are in no location (they block no one); the others keep their contact
    # circles apart on their own floor (the movement guard, docs/rules.md §9)
    rc = float(sim.locations[0].contact_radii()[0])
    assert riding.any()
    for t in range(0, pos.shape[0], 5):
        for f in (0, 1):
            on = np.flatnonzero((fl[t] == f) & ~riding[t])
            p = pos[t, on][:, [0, 2]]
            d = np.hypot(*(p[:, None, :] - p[None, :, :]).transpose(2, 0, 1))
            d[np.diag_indices(len(p))] = np.inf
            assert len(p) < 2 or d.min() >= 2 * rc - 1e-6, (t, f, d.min())


def test_the_tavern_crowd_is_deterministic():
    mod = _module()
    a = mod.run(300)[0].positions()
    b = mod.run(300)[0].positions()
    assert np.array_equal(a, b)

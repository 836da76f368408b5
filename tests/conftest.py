"""Shared fixtures and helpers of the test suite.

The helpers are plain functions and constants that test modules import
(``from tests.conftest import fixed``): deterministic hypothesis settings,
the named cost models, and where the third-party Moving AI benchmark data
lives. Slow reference implementations (the oracles) are in
:mod:`tests.reference`; the JIT on/off comparison is :mod:`tests.jitcheck`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent

#: The two named cost models as ``(card, diag)`` pairs (``navkit.costs``).
NAMED_COSTS = {"seed": (10, 14), "exact": (1_000_000, 1_414_214)}


def fixed(max_examples: int) -> settings:
    """Deterministic hypothesis settings: the same examples every run, no database."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def movingai_dir() -> Path:
    """``$NAVKIT_MOVINGAI_DIR`` or ``<repo>/../shared/maps/movingai``."""
    env = os.environ.get("NAVKIT_MOVINGAI_DIR")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "maps" / "movingai"


@pytest.fixture(scope="session")
def movingai() -> Path:
    """Directory holding the Moving AI maps and scenario files."""
    d = movingai_dir()
    if not d.is_dir():
        pytest.skip(f"Moving AI benchmark data not found at {d} (set NAVKIT_MOVINGAI_DIR)")
    return d

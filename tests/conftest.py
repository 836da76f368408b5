"""Shared fixtures: where the third-party Moving AI benchmark data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


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

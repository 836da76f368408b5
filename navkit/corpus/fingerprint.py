"""Map fingerprints, kept at this path for imports: :mod:`navkit.recording.fingerprint`."""

from __future__ import annotations

from ..recording.fingerprint import grid_fingerprint

__all__ = ["grid_fingerprint"]

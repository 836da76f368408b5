"""Small buildings for examples, doctests and tests.

>>> two_floors()["links"][0]["kind"]
'stairs'
"""

from __future__ import annotations

from typing import Any

__all__ = ["two_floors"]


def two_floors() -> dict[str, Any]:
    """A 20 x 10 m ground floor and a 12 x 10 m upper floor above its east
    half (y 3.5 m), joined by stairs from (10, 4) up to (14, 4) (cost from
    their 3-D distance). Metres, cellSize 0.5, no agent radius."""
    return {
        "cellSize": 0.5, "agentRadius": 0.0, "objectPadding": 0.0,
        "floors": [
            {"name": "ground", "floorY": 0.0,
             "areas": [{"name": "hall", "polygon": [[0, 0], [20, 0], [20, 10], [0, 10]]}],
             "obstacles": [{"name": "wall", "polygon": [[12, 2], [13, 2], [13, 10], [12, 10]]}]},
            {"name": "upper", "floorY": 3.5,
             "areas": [{"name": "gallery", "polygon": [[8, 0], [20, 0], [20, 10], [8, 10]]}]},
        ],
        "links": [
            {"name": "stairs", "kind": "stairs",
             "from": {"floor": "ground", "point": [10.0, 4.0]},
             "to": {"floor": "upper", "point": [14.0, 4.0]}},
        ],
    }

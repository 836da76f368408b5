"""The navkit visual debugger: ``navkit view MAP_OR_SCENE`` in the browser.

:func:`create_app` builds the web application (Starlette) for a map file
(any format :func:`navkit.load_grid` reads) or a scene JSON file;
:func:`serve` runs it with uvicorn on ``127.0.0.1``. The page (plain HTML,
ES modules and a canvas, served from ``static/``) draws the grid, runs path
queries with every algorithm navkit has and shows what they expanded,
toggles doors, drops obstacles, plays scenes live and scrubs recorded
replays. See ``docs/viewer.md``.

:func:`expanded_mask` / :func:`expanded_costs` give the cells the last
:class:`~navkit.query.pathfinder.Pathfinder` search expanded.

The web server (Starlette, uvicorn, websockets) is the ``navkit[viewer]``
extra; the names load on first use, so ``navkit.viewer.search`` works
without it.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["create_app", "serve", "expanded_mask", "expanded_costs", "search_generation"]

_EXPORTS = {
    "create_app": "navkit.viewer.server",
    "serve": "navkit.viewer.server",
    "expanded_mask": "navkit.viewer.search",
    "expanded_costs": "navkit.viewer.search",
    "search_generation": "navkit.viewer.search",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'navkit.viewer' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

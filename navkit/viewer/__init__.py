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
"""

from __future__ import annotations

from .search import expanded_costs, expanded_mask, search_generation
from .server import create_app, serve

__all__ = ["create_app", "serve", "expanded_mask", "expanded_costs", "search_generation"]

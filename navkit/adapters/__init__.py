"""Adapters between navkit and game engines (docs/engines.md).

* :mod:`navkit.adapters.arcade`: a drop-in for ``arcade.astar_calculate_path``
  (octile-optimal, no corner cutting) and barrier-list helpers;
* :mod:`navkit.adapters.pygame`: grid cells <-> screen pixels and ``pygame.Rect``.

Each engine is imported only when a function needs it; a missing one raises
:class:`~navkit.errors.MissingExtraError` naming the extra
(``pip install 'navkit[arcade]'``, ``'navkit[pygame]'``).
"""

from __future__ import annotations

__all__: list[str] = []

"""Game-engine examples, shipped with the package: small games driven by navkit.

=========================  ===================================================
module                     what it shows
=========================  ===================================================
``pygame_chase``           pygame-ce: a monster replanning toward the player
                           around obstacles that come and go
                           (``Pathfinder.find_path(..., obstacles=...)``)
``arcade_rts``             arcade: RTS units walking to a rally point along one
                           ``FlowField`` (Pillow draws it headless without arcade)
=========================  ===================================================

Run one with ``python -m navkit.examples.engines.pygame_chase`` (a window) or
``... --headless --frames 300 --png out.png``; ``python -m navkit.examples``
prints the files' paths, to copy one as the start of a game (docs/engines.md).
"""

"""A fuzz suite for navkit: hostile inputs for every reader, query, the simulation and the viewer.

A *case* is named by a seed and an index; its generator is deterministic given
both, so ``python -m tests.fuzz --seed S --case I`` reruns one case alone.
Cases run in worker subprocesses (many per process, one per process when a
worker dies or hangs, to name the culprit), and each ends in one outcome:

=================  ==========================================================
navkit error       the library refused the input with a ``navkit.NavkitError``
                   (for the viewer: a 4xx answer with an error body)
valid answer       it answered, and every check on the answer held
other exception    any other exception escaped (a viewer 500 included)
crash              the worker process died (a segfault, an abort)
hang               the case ran past its timeout
wrong answer       the answer broke a rule: a cost differs from scipy's
                   Dijkstra, a path makes an illegal step, a round trip loses data
=================  ==========================================================

Modules: :mod:`.core` (cases, checks, outcomes), one generator module per area
(:mod:`.gen_readers`, :mod:`.gen_levels`, :mod:`.gen_queries`, :mod:`.gen_oracle`,
:mod:`.gen_sim`, :mod:`.gen_viewer`), :mod:`.worker` (the subprocess) and
:mod:`.runner` (groups, timeouts, culprits, the outcome table).
"""

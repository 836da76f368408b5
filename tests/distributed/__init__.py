"""Tests of navkit.distributed (Dask runners, batching, batch queries, bakes, replays)."""

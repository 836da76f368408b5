"""DaskRunner against LocalRunner: same results, same order; batching rules; bad addresses."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("distributed")

from navkit.distributed.batches import (  # noqa: E402
    batch_size,
    calibrate,
    plan_batches,
    shuffle_order,
    split,
    unshuffle,
)
from navkit.distributed.cluster import connect, local_client  # noqa: E402
from navkit.distributed.runner import DaskRunner, LocalRunner, as_runner  # noqa: E402
from navkit.errors import ConfigError, NavkitError, QueryError  # noqa: E402


def square_later(spec: float, batch: list[int]) -> list[int]:
    """Squares, after a delay that makes later batches finish first on a cluster."""
    time.sleep(spec / (1 + batch[0]))
    return [b * b for b in batch]


def fail_on_three(spec: object, batch: list[int]) -> list[int]:
    if 3 in batch:
        raise QueryError(f"batch {batch} holds 3")
    return list(batch)


@pytest.fixture(scope="module")
def client():
    c = local_client(2)
    yield c
    from navkit.distributed.cluster import close_client

    close_client(c)


def test_dask_equals_local_in_order(client) -> None:
    batches = [[i, i + 100] for i in range(12)]
    expected = [[b * b for b in batch] for batch in batches]  # the oracle: plain Python
    local = list(LocalRunner(progress=False).map_batches(square_later, 0.0, batches))
    runner = DaskRunner(client, progress=False)
    got = list(runner.map_batches(square_later, 0.05, batches))
    assert local == expected
    assert got == expected
    assert runner.stats["tasks"] == len(batches)
    runner.close()  # not owned: the client stays open
    assert client.status == "running"


def test_a_failing_batch_raises_its_error(client) -> None:
    runner = DaskRunner(client, progress=False)
    with pytest.raises(QueryError, match="holds 3"):
        list(runner.map_batches(fail_on_three, None, [[1], [2], [3], [4]]))
    # the cluster is still usable afterwards
    assert list(runner.map_batches(fail_on_three, None, [[5]])) == [[5]]


def test_empty_batches(client) -> None:
    assert list(DaskRunner(client, progress=False).map_batches(square_later, 0.0, [])) == []


def test_as_runner(client) -> None:
    r, owned = as_runner(None)
    assert isinstance(r, LocalRunner) and owned
    r2, owned2 = as_runner(client, progress=False)
    assert isinstance(r2, DaskRunner) and owned2 and r2.client is client
    assert r2.n_workers == 2
    with pytest.raises(ConfigError, match="runner"):
        as_runner(42)


def test_bad_scheduler_address_is_a_navkit_error_not_a_hang() -> None:
    t0 = time.perf_counter()
    with pytest.raises(NavkitError, match="127.0.0.1:9") as info:
        connect("tcp://127.0.0.1:9", timeout=2)
    assert time.perf_counter() - t0 < 20
    assert getattr(info.value, "field", None) == "scheduler"
    with pytest.raises(ConfigError, match="scheduler"):
        DaskRunner(scheduler="tcp://127.0.0.1:9", timeout=1)
    with pytest.raises(ConfigError):
        connect("", timeout=1)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 300), seed=st.integers(0, 2**32 - 1))
def test_shuffle_is_a_seeded_permutation_and_unshuffle_restores(n: int, seed: int) -> None:
    order = shuffle_order(n, seed)
    assert sorted(order.tolist()) == list(range(n))
    assert np.array_equal(order, shuffle_order(n, seed))
    values = np.arange(n) * 7 + 3
    assert np.array_equal(unshuffle(order, values[order]), values)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 500), size=st.integers(1, 60))
def test_split_keeps_every_item_once_and_every_batch_full(n: int, size: int) -> None:
    parts = split(np.arange(n), size)
    assert np.array_equal(np.concatenate(parts) if parts else np.zeros(0), np.arange(n))
    if n >= size:
        assert all(len(p) >= size for p in parts)
    else:
        assert len(parts) == (1 if n else 0)


@settings(max_examples=40, deadline=None)
@given(per_item=st.floats(1e-6, 0.05), n=st.integers(1, 100_000), workers=st.integers(1, 16))
def test_planned_batches_hold_at_least_the_minimum_work(per_item: float, n: int,
                                                        workers: int) -> None:
    size = plan_batches(n, per_item, min_batch_s=0.02, n_workers=workers)
    assert 1 <= size <= n
    # a batch holds >= 20 ms of estimated work, unless all items together hold less
    assert size * per_item >= 0.02 * (1 - 1e-9) or size == n
    assert batch_size(per_item, min_batch_s=0.02) * per_item >= 0.02 * (1 - 1e-9)


def test_calibrate_measures_and_keeps_results() -> None:
    items = np.arange(40)

    def slow(spec: float, batch: np.ndarray) -> list[int]:  # CPU work, spec s per item
        t0 = time.thread_time()
        while time.thread_time() - t0 < spec * len(batch):
            pass
        return [int(b) + 1 for b in batch]

    per_item, k, out = calibrate(slow, 0.002, items, budget_s=0.03)
    assert out == list(range(1, k + 1))
    assert 0.0015 < per_item < 0.02


def test_bad_sizes() -> None:
    with pytest.raises(ConfigError, match="size"):
        split(np.arange(3), 0)
    with pytest.raises(ConfigError, match="cost_per_item_s"):
        batch_size(float("nan"))
    with pytest.raises(ConfigError, match="n_workers"):
        local_client(0)

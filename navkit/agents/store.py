"""Agents as a structure of arrays: one row per agent, in stable-ID (slot) order.

An :class:`AgentStore` holds one numpy array per column (declared once, with
its dtype, the shape of one row and the value of a new row) and the stable
IDs of its rows. Rows are kept in stable-ID order (:func:`id_sort_key`:
integers first, numerically, then strings by code point), so every loop over
slots is a loop in stable-ID order, the order every kernel visits agents in.

Every store has the :data:`AGENT_COLUMNS` (position, velocity, speed limit),
the columns a free :class:`~navkit.crowd.Crowd` and the simulation's
characters (:class:`~navkit.sim.state.SimState`) share; each adds its own.

>>> import numpy as np
>>> s = AgentStore({**AGENT_COLUMNS, "radius": (np.float64, (), 0.3)})
>>> s.add("b", pos=(2.0, 0.0)), s.add("a", pos=(1.0, 0.0)), s.add(7, speed=2.0)
(0, 0, 0)
>>> s.ids, s.pos.tolist(), s.speed.tolist()
([7, 'a', 'b'], [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], [2.0, 0.0, 0.0])

Columns are views ``buffer[:n]`` of buffers with spare capacity: adding an
agent is amortized O(1) at the end and moves only the rows after it
elsewhere. The views are replaced when rows are added or a column widens
(:attr:`AgentStore.generation` counts that): read them from the store each
time rather than keeping them.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import QueryError, shown

__all__ = ["AgentStore", "AGENT_COLUMNS", "Column", "id_sort_key", "agent_columns"]

#: A column: (dtype, shape of one row, value of a new row).
Column = tuple[Any, tuple[int, ...], float]

#: The columns every store has, in every store's units: ``pos`` float64 (n, 2)
#: m, world ``(x, z)``; ``vel`` float64 (n, 2) m/s; ``speed`` float64 (n,) m/s,
#: the speed limit (a crowd's ``max_speed``, a character's ``walkSpeed``).
AGENT_COLUMNS: dict[str, Column] = {
    "pos": (np.float64, (2,), 0.0),
    "vel": (np.float64, (2,), 0.0),
    "speed": (np.float64, (), 0.0),
}


def agent_columns(*, speed: float = 0.0) -> dict[str, Column]:
    """:data:`AGENT_COLUMNS` with another default speed limit (m/s)."""
    return {**AGENT_COLUMNS, "speed": (np.float64, (), float(speed))}


def id_sort_key(stable_id: Any) -> tuple[int, Any]:
    """Stable-ID order: integers first (numerically), then strings (by code point)."""
    if isinstance(stable_id, str):
        return (1, stable_id)
    return (0, int(stable_id))


class AgentStore:
    """Columns of per-agent values, one row per agent in stable-ID order.

    Parameters
    ----------
    columns
        Column name -> :data:`Column`; must include :data:`AGENT_COLUMNS`'s
        names. Each column is an attribute (``store.pos``), a view of ``n`` rows.
    slot_columns
        Columns whose values are slots (-1: none): renumbered when an insert
        moves rows, so they keep naming the same agents.
    """

    #: Number of rows (agents).
    n: int
    #: Counts every replacement of the column views (added rows, a widened column).
    generation: int

    def __init__(self, columns: Mapping[str, Column], *, slot_columns: Sequence[str] = ()):
        missing = [c for c in AGENT_COLUMNS if c not in columns]
        if missing:
            raise ValueError(f"an agent store needs the columns {missing}")
        self.columns: dict[str, Column] = dict(columns)
        self.slot_columns = tuple(slot_columns)
        self.n = 0
        self.generation = 0
        self._cap = 0
        # stable IDs: None while they are 0 .. n-1 (a crowd's agents), else lists
        self._ids: list[Any] | None = None
        self._keys: list[tuple[int, Any]] = []
        self._index: dict[Any, int] = {}
        self._bufs: dict[str, NDArray[Any]] = {}
        for name, (dt, shape, default) in self.columns.items():
            self._bufs[name] = np.full((0, *shape), default, dtype=dt)
        self._views()

    # ------------------------------------------------------------- slots
    def __len__(self) -> int:
        return self.n

    def __contains__(self, stable_id: object) -> bool:
        if self._ids is None:
            return self._implicit_slot(stable_id) is not None
        try:
            return stable_id in self._index
        except TypeError:  # unhashable: no ID
            return False

    def _implicit_slot(self, stable_id: object) -> int | None:
        """The slot of ``stable_id`` while the IDs are 0 .. n-1 (the lookup a
        dict of them would make: 1.0 finds 1), or None."""
        if isinstance(stable_id, (int, np.integer)):
            v = int(stable_id)
        elif isinstance(stable_id, (float, np.floating)) and float(stable_id).is_integer():
            v = int(stable_id)
        else:
            return None
        return v if 0 <= v < self.n else None

    @property
    def ids(self) -> list[Any]:
        """Stable IDs in slot order (a copy)."""
        return list(range(self.n)) if self._ids is None else list(self._ids)

    def id_of(self, slot: int) -> Any:
        """The stable ID in ``slot``."""
        if self._ids is None:
            if not 0 <= slot < self.n:
                raise IndexError(slot)
            return int(slot)
        return self._ids[slot]

    def slot_of(self, stable_id: Any) -> int:
        """The slot of ``stable_id`` (QueryError when unknown)."""
        if self._ids is None:
            slot = self._implicit_slot(stable_id)
            if slot is not None:
                return slot
        else:
            try:
                return self._index[stable_id]
            except (KeyError, TypeError):
                pass
        raise QueryError(f"no agent with ID {shown(stable_id)}")

    def add(self, stable_id: Any, **values: Any) -> int:
        """Insert the row of a new ID (column defaults, then ``values``:
        column name -> the row's value); returns its slot."""
        if (self._ids is None and not isinstance(stable_id, bool)
                and isinstance(stable_id, (int, np.integer)) and int(stable_id) == self.n):
            slot = self.n  # still 0 .. n-1: the ID is the slot
        else:
            self._explicit_ids()
            assert self._ids is not None
            key = id_sort_key(stable_id)
            slot = bisect.bisect_left(self._keys, key)
            self._keys.insert(slot, key)
            self._ids.insert(slot, stable_id)
            if slot == len(self._ids) - 1:
                self._index[stable_id] = slot
            else:
                self._index = {cid: i for i, cid in enumerate(self._ids)}
        self._insert_row(slot)
        for name, value in values.items():
            getattr(self, name)[slot] = value
        return slot

    def append_many(self, count: int, **columns: Any) -> None:
        """Append ``count`` rows with the IDs ``n .. n + count - 1`` (a store
        whose IDs are its slots), ``columns``: name -> array of ``count`` rows."""
        if self._ids is not None:
            raise ValueError("append_many needs a store whose IDs are 0 .. n-1")
        n = self.n
        if n + count > self._cap:
            self._grow(max(n + count, 2 * self._cap if n else n + count))
        self.n = n + count
        self._views()
        for name, value in columns.items():
            getattr(self, name)[n:] = value

    def _explicit_ids(self) -> None:
        if self._ids is None:
            self._ids = list(range(self.n))
            self._keys = [(0, i) for i in range(self.n)]
            self._index = {i: i for i in range(self.n)}

    # ------------------------------------------------------------ storage
    def widen(self, name: str, row_shape: tuple[int, ...]) -> None:
        """Give column ``name`` the larger row shape ``row_shape`` (the old values
        keep their places; new entries get the column's default)."""
        buf = self._bufs[name]
        dt, _, default = self.columns[name]
        new = np.full((buf.shape[0], *row_shape), default, dtype=dt)
        new[(slice(None),) + tuple(slice(0, s) for s in buf.shape[1:])] = buf
        self._bufs[name] = new
        self.columns[name] = (dt, tuple(row_shape), default)
        setattr(self, name, new[: self.n])
        self.generation += 1

    def _views(self) -> None:
        n = self.n
        for name, buf in self._bufs.items():
            setattr(self, name, buf[:n])
        self.generation += 1

    def _grow(self, cap: int) -> None:
        for name, buf in self._bufs.items():
            dt, shape, default = self.columns[name]
            new = np.full((cap, *shape), default, dtype=dt)
            new[: self.n] = buf[: self.n]
            self._bufs[name] = new
        self._cap = cap

    def _insert_row(self, slot: int) -> None:
        n = self.n
        if n + 1 > self._cap:
            self._grow(max(16, 2 * self._cap))
        for name, buf in self._bufs.items():
            if slot < n:
                buf[slot + 1 : n + 1] = buf[slot:n].copy()
            buf[slot] = self.columns[name][2]
            if name in self.slot_columns:
                rows = buf[: n + 1]
                rows[(rows >= slot) & (np.arange(n + 1) != slot)] += 1
                buf[slot] = -1
        self.n = n + 1
        self._views()

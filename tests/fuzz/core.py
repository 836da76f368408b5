"""Cases, their deterministic generation, the checks on answers and the outcome of one case.

A case is ``(seed, index)``. :func:`area_of` picks its area from a stream of
its own (cheap: the runner uses it to filter without importing navkit);
:func:`make_case` builds it with that area's generator, drawing everything
from a :class:`Gen` seeded by the pair. Running it (:func:`execute`) gives one
outcome of :data:`KINDS`.
"""

from __future__ import annotations

import importlib.util
import math
import os
import random
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "KINDS", "BAD_KINDS", "NAVKIT_ERROR", "VALID", "OTHER", "CRASH", "HANG", "WRONG", "MEMORY",
    "AREAS", "ServerError", "WrongAnswer", "check", "Gen", "Case", "Context", "show", "area_of",
    "make_case", "execute", "extreme_like", "NUMBERS", "NUMBER_TOKENS", "BIG300", "BIG4400",
]

NAVKIT_ERROR = "navkit error"
VALID = "valid answer"
OTHER = "other exception"
CRASH = "crash"
HANG = "hang"
WRONG = "wrong answer"
MEMORY = "over memory"
#: Every outcome, in table order.
KINDS = (NAVKIT_ERROR, VALID, OTHER, CRASH, HANG, WRONG, MEMORY)
#: The outcomes that fail the suite.
BAD_KINDS = (OTHER, CRASH, HANG, WRONG, MEMORY)

#: Areas and their share of the cases (the viewer's needs starlette). ``assets``: JPS+
#: tables, goal bounds and baked worlds, honest and altered; ``files``: the files maps
#: name (containment, bombs), hostile numbers and polygons.
AREAS: dict[str, int] = {
    "readers": 22, "levels": 12, "queries": 24, "oracle": 20, "sim": 12, "mesh": 14,
    "viewer": 10 if importlib.util.find_spec("starlette") is not None else 0,
    "assets": 10, "files": 10, "floors": 8,
}
#: The areas added later: they take :data:`LATER_SHARE` of the cases, drawn from a
#: stream of their own, so every other case is the very case it was before they
#: existed (the fixed sample of ``make test`` keeps its cases, less those taken).
LATER_AREAS = ("assets", "files", "floors")
LATER_SHARE = 0.12
#: Peak resident memory a case of the ``assets`` and ``files`` areas may reach
#: (``FUZZ_RSS_MB``; the worker's own included): their inputs are all under 10 MB.
RSS_LIMIT_MB = float(os.environ.get("FUZZ_RSS_MB", "1024"))

#: A 300-digit and a 4,400-digit integer (past Python's 4,300-digit str() limit).
BIG300 = 10**299 + 7
BIG4400 = 7 * 10**4399 + 1


class ServerError(Exception):  # noqa: N818 - an outcome, not an error of the harness
    """A server answered 500: an exception escaped inside it (``sig`` says which, where)."""

    def __init__(self, sig: str, message: str = ""):
        super().__init__(message or sig)
        self.sig = sig


class WrongAnswer(Exception):  # noqa: N818 - an outcome, not an error of the harness
    """An answer broke a rule; ``label`` names the check (it is the signature)."""

    def __init__(self, label: str, detail: str = ""):
        super().__init__(f"{label}: {detail}" if detail else label)
        self.label = label


def check(cond: Any, label: str, detail: str | Callable[[], str] = "") -> None:
    """Raise :class:`WrongAnswer` ``label`` unless ``cond``."""
    if not cond:
        raise WrongAnswer(label, detail() if callable(detail) else detail)


def show(v: Any, limit: int = 60, _depth: int = 0) -> str:
    """A short, always printable description of any value (huge ints, arrays, deep lists too)."""
    if _depth > 6:
        return "..."
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int) and abs(v) >= 10**30:
        digits = len(str(abs(v))) if abs(v) < 10**4000 else int(math.log10(abs(v))) + 1
        return f"{'-' if v < 0 else ''}<{digits}-digit int>"
    if isinstance(v, np.ndarray):
        return f"ndarray{v.shape}:{v.dtype}" + ("" if v.flags.writeable else ":ro")
    if isinstance(v, (bytes, bytearray)) and len(v) > limit:
        return f"<{len(v)} bytes>"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(show(x, 20, _depth + 1) for x in v[:4]) + (
            ", ..." if len(v) > 4 else "")
        text = f"[{inner}]" if isinstance(v, list) else f"({inner})"
    elif isinstance(v, dict):
        text = "{" + ", ".join(f"{show(k, 15, _depth + 1)}: {show(x, 20, _depth + 1)}"
                               for k, x in list(v.items())[:4])
        text += ", ...}" if len(v) > 4 else "}"
    else:
        try:
            text = repr(v)
        except Exception:  # a value whose repr fails is hostile in itself
            text = f"<{type(v).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- hostile values
#: Python values for numeric arguments and JSON fields: extremes, non-numbers, wrong types.
NUMBERS: tuple[Any, ...] = (
    0, -0.0, 1, -1, 2, 0.5, 1.5, -1.5, 3.0, 1e308, -1e308, 1.7976931348623157e308, 5e-324,
    1e-300, math.nan, math.inf, -math.inf, 2**31, 2**31 - 1, 2**32, 2**53 + 1, 2**63 - 1, 2**63,
    -(2**63), -(2**63) - 1, 2**64, BIG300, -BIG300, BIG4400, True, False, None, "1", "", "nan",
    [], [1], {}, np.int64(-1), np.uint64(2**64 - 1), np.float32("nan"), np.float16(65504),
    complex(1, 2), 1e15, 1e16,
)

#: Number tokens for text formats.
NUMBER_TOKENS: tuple[str, ...] = (
    "0", "-0", "1", "-1", "2", "1e308", "1e309", "-1e309", "nan", "NaN", "inf", "-inf",
    "Infinity", "1e-320", "9" * 300, "-" + "9" * 300, "7" * 4400, "0x10", "1_0", "+1", "1.0",
    "1.5", "\u0663", "", "1e", "--1", "\x00", "2147483648", "9223372036854775808",
    "18446744073709551616", "-9223372036854775809", "1" * 20, "0.0000001", "65536", "65535",
)


#: Same-type extremes: values a validator may accept that stress what comes after it.
FLOAT_EXTREMES = (1e308, -1e308, 1.7976931348623157e308, 1e-300, 5e-324, -5e-324, 0.0, -0.0,
                  1e15, -1e15, 1e16, 1e9, -1e9, 2.0**53, 0.1, 1e-9)
INT_EXTREMES = (0, 1, -1, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**62, 2**63 - 1, 10**6, 10**9)


def extreme_like(g: Gen, v: Any, _depth: int = 0) -> Any:
    """A value of ``v``'s own JSON type, but extreme: floats and ints at the edges of their
    range, a bool flipped, a point or list with one extreme entry, a string odd."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, float):
        return g.choice(FLOAT_EXTREMES)
    if isinstance(v, int):
        return g.choice(INT_EXTREMES)
    if isinstance(v, str):
        return g.choice(["", " ", v + v, v.upper(), "\u00e9" + v, "x" * 300, "0"])
    if isinstance(v, list) and v and _depth < 20:
        out = list(v)
        i = g.randint(0, len(out) - 1)
        out[i] = extreme_like(g, out[i], _depth + 1)
        return out
    return v


class Gen:
    """The random draws of one case: :mod:`random` for choices, numpy for arrays.

    >>> a, b = Gen(1, 2), Gen(1, 2)
    >>> [a.randint(0, 99) for _ in range(3)] == [b.randint(0, 99) for _ in range(3)]
    True
    """

    def __init__(self, seed: int, index: int, stream: str = "case"):
        self.r = random.Random(f"{seed}:{index}:{stream}")
        self._np: np.random.Generator | None = None

    @property
    def np(self) -> np.random.Generator:
        if self._np is None:
            self._np = np.random.default_rng(self.r.getrandbits(64))
        return self._np

    def random(self) -> float:
        return self.r.random()

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def randint(self, lo: int, hi: int) -> int:
        return self.r.randint(lo, hi)

    def uniform(self, lo: float, hi: float) -> float:
        return self.r.uniform(lo, hi)

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.r.randrange(len(seq))]

    def weighted(self, items: Sequence[tuple[int, Any]]) -> Any:
        total = sum(w for w, _ in items)
        x = self.r.randrange(total)
        for w, item in items:
            if x < w:
                return item
            x -= w
        raise AssertionError("unreachable")

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        return self.r.sample(list(seq), min(k, len(seq)))

    def bytes(self, n: int) -> bytes:
        return bytes(self.r.getrandbits(8) for _ in range(n))

    def number(self) -> Any:
        return self.choice(NUMBERS)

    def token(self) -> str:
        return self.choice(NUMBER_TOKENS)


# ------------------------------------------------------------------------ cases
class Context:
    """What a running case sees: a scratch folder, and a way to say where it is.

    :meth:`at` names the entry point about to be called: an exception is
    charged to it, and a worker that dies mid-call names it.
    """

    def __init__(self, tmp: Path, emit: Callable[[dict[str, Any]], None] | None = None):
        self.tmp = tmp
        self._emit = emit
        self.entry: str | None = None
        #: Signature and traceback of an exception a server caught and answered with a 500.
        self.server_sig: str | None = None
        self.server_trace: str | None = None
        #: What the case drew while running (appended to its summary).
        self.notes: list[str] = []

    def at(self, entry: str) -> None:
        self.entry = entry
        if self._emit is not None:
            self._emit({"ev": "at", "entry": entry})

    def note(self, text: str) -> None:
        """Add to the case's summary (what it drew while running)."""
        self.notes.append(text)
        if self._emit is not None:
            self._emit({"ev": "note", "text": text[:400]})


@dataclass
class Case:
    """One generated case: ``run(ctx)`` returns on a valid answer and raises otherwise.

    ``max_rss_mb``: the most resident memory (MB) the worker may reach while the
    case runs (None: not checked); more is the outcome :data:`MEMORY`."""

    area: str
    entry: str
    summary: str
    run: Callable[[Context], None] = field(repr=False)
    max_rss_mb: float | None = None


def area_of(seed: int, index: int) -> str:
    """The area of case ``(seed, index)`` (a stream of its own, so filters stay cheap)."""
    later = Gen(seed, index, "later-area")
    if later.random() < LATER_SHARE:
        return later.weighted([(AREAS[a], a) for a in LATER_AREAS if AREAS[a]])
    return Gen(seed, index, "area").weighted(
        [(w, a) for a, w in AREAS.items() if w and a not in LATER_AREAS])


def make_case(seed: int, index: int) -> Case:
    """Case ``index`` of ``seed``: the same case on every run."""
    from . import (
        gen_assets,
        gen_files,
        gen_floors,
        gen_levels,
        gen_mesh,
        gen_oracle,
        gen_queries,
        gen_readers,
        gen_sim,
        gen_viewer,
    )

    planted = _planted(index)
    if planted is not None:
        return planted

    modules = {"readers": gen_readers, "levels": gen_levels, "queries": gen_queries,
               "oracle": gen_oracle, "sim": gen_sim, "viewer": gen_viewer, "mesh": gen_mesh,
               "assets": gen_assets, "files": gen_files, "floors": gen_floors}
    area = area_of(seed, index)
    g = Gen(seed, index)
    make = g.weighted(modules[area].GENERATORS)
    case: Case = make(g)
    case.area = area
    if area in ("assets", "files") and case.max_rss_mb is None:
        case.max_rss_mb = RSS_LIMIT_MB
    return case


def _planted(index: int) -> Case | None:
    """The harness's own check: ``FUZZ_SELFTEST="crash:3,hang:7"`` makes case 3 segfault and
    case 7 hang, so a test can see the runner name them."""
    for item in os.environ.get("FUZZ_SELFTEST", "").split(","):
        kind, _, at = item.partition(":")
        if at and int(at) == index:
            def run(ctx: Context, kind: str = kind) -> None:
                if kind == "crash":
                    import ctypes

                    ctypes.string_at(0)  # SIGSEGV
                elif kind == "hang":
                    import time

                    time.sleep(3600)
                else:
                    raise ValueError(f"planted {kind}")
            return Case("selftest", f"planted {kind}", f"case {index}", run)
    return None


# ---------------------------------------------------------------------- outcome
def _navkit_frame(tb: list[traceback.FrameSummary]) -> str | None:
    """``path:function`` of the innermost frame in navkit's own code."""
    for fr in reversed(tb):
        p = fr.filename.replace("\\", "/")
        if "/navkit/" in p and "/tests/" not in p:
            return p[p.rindex("/navkit/") + 1:] + ":" + fr.name
    return None


def exception_signature(exc: BaseException) -> tuple[str, str]:
    """``(signature, traceback text)`` of an exception that escaped the code under test."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = _navkit_frame(tb)
    if where is None:  # raised outside navkit: the harness (or what it called) failed
        inner = tb[-1] if tb else None
        where = "HARNESS " + (f"{Path(inner.filename).name}:{inner.name}" if inner else "?")
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"{type(exc).__name__} at {where}", text[-4000:]


def execute(case: Case, ctx: Context) -> dict[str, Any]:
    """Run one case; returns ``{"kind", "entry", "sig", "message", "trace"}``."""
    from navkit.errors import NavkitError

    ctx.entry = case.entry
    out: dict[str, Any] = {"kind": VALID, "sig": "", "message": "", "trace": ""}
    reset_peak_rss()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.seterr(all="ignore")
            case.run(ctx)
    except WrongAnswer as e:
        out.update(kind=WRONG, sig=e.label, message=str(e)[:2000],
                   trace="".join(traceback.format_exception(type(e), e, e.__traceback__))[-4000:])
    except ServerError as e:
        out.update(kind=OTHER, sig=e.sig, message=_message(e), trace=ctx.server_trace or "")
    except NavkitError as e:
        out.update(kind=NAVKIT_ERROR, sig=type(e).__name__, message=_message(e))
    except BaseException as e:  # noqa: B036 - SystemExit and friends are findings too
        if isinstance(e, KeyboardInterrupt):
            raise
        sig, text = exception_signature(e)
        out.update(kind=OTHER, sig=sig, message=_message(e), trace=text)
    out["entry"] = ctx.entry or case.entry
    peak = peak_rss_mb()
    out["peak_mb"] = peak
    if (case.max_rss_mb is not None and peak is not None and peak > case.max_rss_mb
            and out["kind"] not in (OTHER, WRONG)):
        out.update(kind=MEMORY, sig=f"peak {peak:.0f} MB > {case.max_rss_mb:.0f} MB",
                   message=f"the process reached {peak:.0f} MB resident "
                           f"({out['kind']}: {out['sig'] or 'answered'})")
    return out


def reset_peak_rss() -> None:
    """Start a new peak of resident memory (Linux: VmHWM back to the current RSS)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def peak_rss_mb() -> float | None:
    """The peak resident memory since :func:`reset_peak_rss`, MB (None off Linux)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _message(e: BaseException) -> str:
    try:
        text = str(e)
    except Exception:
        text = f"<{type(e).__name__}: unprintable>"
    return text[:300]

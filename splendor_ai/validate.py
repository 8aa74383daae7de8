"""The checks of integers and numbers that arrive from outside (records, positions, requests,
keyword arguments): one owner for "an integer, not a bool" and for range checks with a short
message.

Budgets and player parameters have their own table (`players.bounds`, pydantic models); request
bodies of the web API are pydantic models too. What is left are single values checked where
they are read, against bounds that depend on the input (a seat of this game, a turn of this
record), each raising the caller's own error class so that messages, error types and `field`
stay those of the entry point:

    check_int(seed, "seed", 0, 2 ** 64 - 1, RecordError, expect="an integer in [0, 2**64)")
    -> RecordError("seed: expected an integer in [0, 2**64), got -1")

`error` is an exception class, or any callable taking the message (e.g.
`functools.partial(ApiError, 422)`). When the exception it makes has a `field` attribute
(RequestError, ApiError, BoundsError), that is set to `field` (default: the name checked).

A bool is an `int` in Python but never a count, a seat or a seed here: every helper refuses it.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from .errors import short

#: an exception class or a factory taking the message
ErrorMaker = Callable[[str], Exception]


def is_int(v: Any) -> bool:
    """An integer, not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def int_in(v: Any, lo: int | None = None, hi: int | None = None) -> bool:
    """An integer (not a bool) in [lo, hi] (a bound that is None is open)."""
    return is_int(v) and (lo is None or v >= lo) and (hi is None or v <= hi)


def ints_in(values: Any, lo: int | None = None, hi: int | None = None) -> bool:
    """A list whose every item is an integer (not a bool) in [lo, hi]."""
    return isinstance(values, list) and all(int_in(v, lo, hi) for v in values)


def is_number(v: Any) -> bool:
    """A finite number: an int (not a bool) or a float that is not nan or infinite."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    return isinstance(v, int) or math.isfinite(v)   # (an int is finite, and may be too big for a float)


def number_in(v: Any, lo: float | None = None, hi: float | None = None, *, lo_open: bool = False) -> bool:
    """A finite number in [lo, hi] (or (lo, hi] with `lo_open`; a bound that is None is open)."""
    if not is_number(v):
        return False
    if lo is not None and (v <= lo if lo_open else v < lo):
        return False
    return hi is None or v <= hi


def refuse(error: ErrorMaker, name: str, expect: str, value: Any, *, field: str | None = None,
           show: Callable[[Any], str] = short, must: bool = False) -> Exception:
    """The error for `value` given as `name` where `expect` was expected: "name: expected
    <expect>, got <value>" (or "name must be <expect>, got <value>" with `must`), the value
    shortened by `show` (errors.short: a huge input is never echoed). Returned, for the caller
    to raise."""
    joint = " must be" if must else ": expected"
    exc = error(f"{name}{joint} {expect}, got {show(value)}")
    if hasattr(exc, "field"):
        exc.field = name if field is None else field
    return exc


def _expect_int(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"an integer in {lo}-{hi}"
    if lo is not None:
        return f"an integer >= {lo}"
    return f"an integer <= {hi}" if hi is not None else "an integer"


def _expect_number(lo: float | None, hi: float | None, lo_open: bool) -> str:
    if lo is not None and hi is not None:
        return f"a number in {'(' if lo_open else '['}{lo:g}, {hi:g}]"
    if lo is not None:
        return f"a number {'>' if lo_open else '>='} {lo:g}"
    return f"a number <= {hi:g}" if hi is not None else "a finite number"


def check_int(value: Any, name: str, lo: int | None, hi: int | None, error: ErrorMaker, *,
              expect: str | None = None, field: str | None = None, show: Callable[[Any], str] = short,
              must: bool = False) -> int:
    """`value` if it is an integer (not a bool) in [lo, hi] (a bound that is None is open), else
    raise `error` naming `name`, what was expected (`expect`, default "an integer in lo-hi") and
    the value, shortened."""
    if not int_in(value, lo, hi):
        raise refuse(error, name, expect or _expect_int(lo, hi), value, field=field, show=show, must=must)
    return value


def check_number(value: Any, name: str, lo: float | None, hi: float | None, error: ErrorMaker, *,
                 lo_open: bool = False, expect: str | None = None, field: str | None = None,
                 show: Callable[[Any], str] = short, must: bool = False) -> float:
    """`value` if it is a finite number (not a bool) in [lo, hi] (or (lo, hi] with `lo_open`),
    else raise `error` as `check_int` does (default expectation: "a number in [lo, hi]")."""
    if not number_in(value, lo, hi, lo_open=lo_open):
        raise refuse(error, name, expect or _expect_number(lo, hi, lo_open), value, field=field, show=show,
                     must=must)
    return value

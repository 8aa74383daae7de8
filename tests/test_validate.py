"""splendor_ai.validate: the checks of integers and numbers every entry point shares."""
import functools
import json
import math

import pytest

from splendor_ai import validate as v
from splendor_ai.errors import ConfigError, PositionError, RecordError
from splendor_ai.interfaces.protocol import RequestError
from splendor_ai.interfaces.web.games import ApiError

HUGE = 10 ** 5000          # its repr raises (more than 4300 digits)
LONG = list(range(10_000))


@pytest.mark.parametrize("value, ok", [
    (0, True), (-3, True), (2 ** 70, True), pytest.param(HUGE, True, id="huge"),
    (True, False), (False, False), (1.0, False), ("1", False), (None, False), ([1], False),
])
def test_is_int(value, ok):
    assert v.is_int(value) is ok


@pytest.mark.parametrize("value, lo, hi, ok", [
    (0, 0, 3, True), (3, 0, 3, True), (-1, 0, 3, False), (4, 0, 3, False),
    (True, 0, 3, False), (False, 0, 3, False), (2.0, 0, 3, False),
    (10 ** 30, 0, None, True), (-10 ** 30, None, 0, True), (5, None, None, True), (1, 2, None, False),
])
def test_int_in(value, lo, hi, ok):
    assert v.int_in(value, lo, hi) is ok


@pytest.mark.parametrize("values, ok", [
    ([], True), ([0, 1, 2], True), ([0, 3], False), ([0, True], False), ([0, 1.0], False),
    ((0, 1), False), ("012", False), (None, False), ({0: 1}, False),
])
def test_ints_in(values, ok):
    assert v.ints_in(values, 0, 2) is ok


@pytest.mark.parametrize("value, ok", [
    (0, True), (-2.5, True), (1e308, True), pytest.param(HUGE, True, id="huge"),
    (math.nan, False), (math.inf, False), (-math.inf, False), (True, False), (False, False),
    ("1", False), (None, False),
])
def test_is_number(value, ok):
    assert v.is_number(value) is ok


@pytest.mark.parametrize("value, lo, hi, lo_open, ok", [
    (0.05, 0.05, 10, False, True), (10, 0.05, 10, False, True), (0.04, 0.05, 10, False, False),
    (10.5, 0.05, 10, False, False), (0, 0, None, True, False), (1e-9, 0, None, True, True),
    (0, 0, None, False, True), (math.inf, 0, None, True, False), (True, 0, None, True, False),
    (math.nan, None, None, False, False),
])
def test_number_in(value, lo, hi, lo_open, ok):
    assert v.number_in(value, lo, hi, lo_open=lo_open) is ok


def test_check_int_returns_the_value_and_refuses_with_the_callers_class():
    assert v.check_int(3, "seat", 0, 3, RecordError) == 3
    with pytest.raises(RecordError) as e:
        v.check_int(4, "seat", 0, 3, RecordError)
    assert str(e.value) == "seat: expected an integer in 0-3, got 4"
    with pytest.raises(PositionError, match=r"^seat must be 0-1, got True$"):
        v.check_int(True, "seat", 0, 1, PositionError, expect="0-1", must=True)


@pytest.mark.parametrize("lo, hi, expect", [
    (1, 50, "an integer in 1-50"), (1, None, "an integer >= 1"), (None, 9, "an integer <= 9"),
    (None, None, "an integer"),
])
def test_check_int_default_expectations(lo, hi, expect):
    with pytest.raises(ConfigError) as e:
        v.check_int("x", "n", lo, hi, ConfigError)
    assert str(e.value) == f"n: expected {expect}, got 'x'"


@pytest.mark.parametrize("value", [True, False, 1.0, "2", None, 0, 51, pytest.param(HUGE, id="huge"),
                                   pytest.param(-HUGE, id="-huge")])
def test_check_int_refuses(value):
    with pytest.raises(ConfigError, match=r"^top_k: expected an integer in 1-50, got "):
        v.check_int(value, "top_k", 1, 50, ConfigError)


def test_check_number():
    assert v.check_number(0.05, "reportEvery", 0.05, 3600, ConfigError) == 0.05
    assert v.check_number(7, "x", 0, None, ConfigError, lo_open=True) == 7
    for bad, expect in [(0, "a number > 0"), (math.inf, "a number > 0"), (True, "a number > 0")]:
        with pytest.raises(ConfigError) as e:
            v.check_number(bad, "x", 0, None, ConfigError, lo_open=True)
        assert str(e.value) == f"x: expected {expect}, got {bad!r}"
    with pytest.raises(ConfigError, match=r"^x: expected a number in \[0.05, 3600\], got nan$"):
        v.check_number(math.nan, "x", 0.05, 3600, ConfigError)
    with pytest.raises(ConfigError, match=r"^x: expected a number in \(0, 1\], got 2$"):
        v.check_number(2, "x", 0, 1, ConfigError, lo_open=True)
    with pytest.raises(ConfigError, match=r"^x: expected a finite number, got '1'$"):
        v.check_number("1", "x", None, None, ConfigError)


@pytest.mark.parametrize("bad", [HUGE, "x" * 100_000, LONG, {"k": LONG}], ids=["int", "str", "list", "dict"])
def test_messages_are_short_with_a_huge_value(bad):
    for check in (v.check_int, v.check_number):
        with pytest.raises(RecordError) as e:
            check(bad, "seed", 0, 10, RecordError)
        assert len(str(e.value)) < 150, str(e.value)
        assert str(e.value).startswith("seed: expected ")


def test_field_is_set_on_errors_that_have_one():
    with pytest.raises(RequestError) as e:
        v.check_int(0, "topK", 1, 50, RequestError)
    assert e.value.field == "topK"
    with pytest.raises(RequestError) as e:
        v.check_int(True, "topK", 1, 50, RequestError, field="request.topK")
    assert e.value.field == "request.topK"
    with pytest.raises(ApiError) as e:
        v.check_int(9, "game", 1, 2, functools.partial(ApiError, 422), expect="1-2")
    assert (e.value.status, e.value.field, e.value.message) == (422, "game", "game: expected 1-2, got 9")
    with pytest.raises(RecordError) as e:
        v.check_int(9, "seed", 1, 2, RecordError)
    assert not hasattr(e.value, "field")


def test_show_renders_the_value():
    with pytest.raises(RequestError, match=r"^seat: expected an integer seat, got true$"):
        v.check_int(True, "seat", None, None, RequestError, expect="an integer seat", show=json.dumps)


def test_entry_points_refuse_a_bool_for_an_integer():
    from splendor_ai.analysis import analyse
    from splendor_ai.state import Config, State, View
    from splendor_ai.tournament.errors import ExperimentError
    from splendor_ai.tournament.games import deals
    with pytest.raises(ConfigError, match=r"^players must be 2, 3 or 4, got True$"):
        Config(players=True)
    with pytest.raises(ConfigError, match=r"^first_player must be a seat 0-1, got True$"):
        State.new(2, seed=1, first_player=True)
    with pytest.raises(ConfigError, match=r"^seed must be an integer in \[0, 2\*\*64\), got True$"):
        State.new(2, seed=True)
    with pytest.raises(ConfigError, match=r"^seed must be an integer in \[0, 2\*\*64\), got <int>$"):
        State.new(2, seed=HUGE)
    with pytest.raises(PositionError, match=r"^seat must be 0-1, got True$"):
        View.from_position(State.new(2, seed=1).position(), True)
    with pytest.raises(ConfigError, match=r"^report_every must be a positive number of seconds, got inf$"):
        analyse(State.new(2, seed=1), {"iterations": 10}, report_every=math.inf)
    with pytest.raises(ExperimentError, match=r"^deals must be a positive integer, got True$"):
        deals(True)

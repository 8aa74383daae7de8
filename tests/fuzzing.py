"""Hypothesis strategies and settings for the fuzz tests (tests/test_fuzz.py).

Inputs are grammar-aware: valid values of each format (moves, positions, JSON forms, records,
specs, requests), taken from real games of every player count and module, then mutated the
way bad input goes wrong: a field changed, cut, duplicated or swapped, a number made huge,
negative or non-ASCII, a character of another script, a JSON value of the wrong type (NaN, a
bool, a deep list), a key dropped or added; plus some random text.

Every run is seeded (`derandomize`): the same examples each time. Each property runs twice:
in the default run with few examples (profile "fuzz"), and marked `slow` with many more
(profile "fuzz-slow", `python -m pytest -m slow tests/test_fuzz.py`).
"""
from __future__ import annotations

import copy
import datetime
import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splendor_ai import State
from splendor_ai.state import Config

FAST, SLOW = 40, 1500
# a deadline far above any example's time (milliseconds; a search of the web test, 0.1 s) even on
# a loaded machine: an example that takes longer hangs
_SETTINGS = dict(derandomize=True, deadline=datetime.timedelta(seconds=20), database=None, print_blob=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.filter_too_much, HealthCheck.large_base_example])
settings.register_profile("fuzz", max_examples=FAST, **_SETTINGS)
settings.register_profile("fuzz-slow", max_examples=SLOW, **_SETTINGS)

#: an error message longer than this echoes too much of its input
MAX_MESSAGE = 600


def run(profile: str, strategy, prop, scale: float = 1.0) -> None:
    """Check `prop` on examples of `strategy` under the named profile (`scale` x its examples)."""
    base = settings.get_profile(profile)

    def check(example):
        prop(example)
    check.__name__ = prop.__name__
    given(strategy)(settings(base, max_examples=max(1, int(base.max_examples * scale)))(check))()


def short(message: str) -> bool:
    return len(message) <= MAX_MESSAGE


# -- sample games ---------------------------------------------------------------------------------------

MODULES = (None, "cities", "orient", "posts", "strongholds")


def sample_games() -> list[State]:
    """Games of every module and player count at several stages (with their move stacks): random
    legal play from fixed seeds."""
    out = []
    for k, module in enumerate(MODULES):
        for players, plies in ((2, 0), (2, 17), (3, 9), (4, 31), (2, 60)):
            rng = random.Random(1000 * k + plies)
            state = State.new(players, seed=rng.randrange(2 ** 32),
                              config=Config(players=players, modules=(module,) if module else ()))
            for _ in range(plies):
                if state.is_over():
                    break
                moves = list(state.legal_moves)
                # prefer purchases and blind reserves, so that games reach the module decisions
                rich = [m for m in moves if str(m).startswith(("b", "rL", "rO")) or "/" in str(m)]
                state.push(rng.choice(rich if rich and rng.random() < 0.7 else moves))
            out.append(state)
    return out


GAMES = sample_games()
MOVES = sorted({str(m) for g in GAMES if not g.is_over() for m in g.legal_moves}
               | {str(m) for g in GAMES for m in g.move_stack})
TRUE_POSITIONS = [g.position() for g in GAMES]
VIEW_POSITIONS = [g.view(s).position() for g in GAMES for s in range(g.players)]
SPECS = ["random", "greedy", "mcts", "mcts(iterations=40)", "mcts(iterations=30, c=1.2)",
         "mcts(seconds=0.05)", "mcts(iterations=30, mode='pimc', dets=4)", "mcts(iterations=20, workers=2)",
         "mcts(iterations=50, puct=True, reuse=False)", "expectimax(depth=1)", "expectimax(depth=1, dets=2)",
         "mcts(iterations=30, weights=[1.0, 2.0, 0.5])", " mcts ( iterations = 30 ) ", "human"]

# -- text mutations -----------------------------------------------------------------------------------

#: characters that break parsers: separators, digits of other scripts, invisible and control ones
ODD = list("/:,.-?*=x+ \t\n\r\x00\\\"'()[]{}") + ["\u0663", "\uff11", "\u00b2", "\U0001d7d9", "\u200b",
                                                     "\u00e9", "\ufeff", "\u2028", "\ud7ff", "\U0001f600"]
HUGE = ["9" * 12, "1" + "0" * 30, "9" * 400, "9" * 4400, "0" * 50 + "1", "-1", "-0", "1e9", "3.5",
        "\u0663\u0663", "NaN", "Infinity", "4294967296", "18446744073709551616", "65536"]
NUMBER = re.compile(r"[0-9]+")


@st.composite
def mutated_text(draw, base, max_ops: int = 3, seps: str = "/:, .") -> str:
    """A string of `base`, with 0 to `max_ops` mutations."""
    s = draw(base)
    for _ in range(draw(st.integers(0, max_ops))):
        op = draw(st.sampled_from(["delete", "insert", "dup", "number", "number", "truncate", "swap", "case",
                                            "repeat"]))
        n = len(s)
        i = draw(st.integers(0, n))
        if op == "delete" and n:
            j = draw(st.integers(i, min(n, i + 8)))
            s = s[:i] + s[j:]
        elif op == "insert":
            chunk = draw(st.one_of(st.sampled_from(ODD), st.text(max_size=4),
                                   st.text(alphabet=st.sampled_from(ODD), max_size=3)))
            s = s[:i] + chunk + s[i:]
        elif op == "dup" and n:
            j = draw(st.integers(i, min(n, i + 12)))
            s = s[:j] + s[i:j] + s[j:]
        elif op == "number":
            runs = list(NUMBER.finditer(s))
            if runs:
                m = draw(st.sampled_from(runs))
                new = draw(st.one_of(st.sampled_from(HUGE), st.sampled_from(HUGE), st.integers(0, 130).map(str)))
                s = s[:m.start()] + new + s[m.end():]
        elif op == "truncate":
            s = s[:i]
        elif op == "swap":
            sep = draw(st.sampled_from(seps))
            parts = s.split(sep)
            if len(parts) > 1:
                a, b = draw(st.integers(0, len(parts) - 1)), draw(st.integers(0, len(parts) - 1))
                parts[a], parts[b] = parts[b], parts[a]
                s = sep.join(parts)
        elif op == "case":
            s = s.swapcase()
        elif op == "repeat":
            sep = draw(st.sampled_from(seps))
            s = sep.join([s] * draw(st.integers(2, 40)))
    return s


def text_inputs(pool: list[str], alphabet: str | None = None, **kw):
    """Valid strings of `pool`, mutated, and some random text."""
    noise = st.text(alphabet=alphabet, max_size=40) if alphabet else st.text(max_size=40)
    mutated = mutated_text(st.sampled_from(pool), **kw)
    return st.one_of(mutated, mutated, mutated, noise)


# -- JSON mutations ------------------------------------------------------------------------------------

ODD_VALUES = [None, True, False, 0, -1, 1.5, -0.0, float("nan"), float("inf"), -float("inf"), 2 ** 31, 2 ** 63,
              2 ** 64, 10 ** 30, -(10 ** 30), "", "0", "x" * 300, "\u0663", "SPN1", [], {}, [[[[[]]]]], [None],
              {"": None}, [0] * 50]


def odd_value():
    # (copies: a mutation of a list or an object drawn must not change the next examples' values)
    return st.one_of(st.sampled_from(ODD_VALUES).map(copy.deepcopy), st.integers(-(2 ** 70), 2 ** 70), st.floats(),
                     st.text(max_size=12), st.lists(st.integers(-3, 130), max_size=6))


def _paths(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, path + (i,))


def _get(obj, path):
    for p in path:
        obj = obj[p]
    return obj


@st.composite
def mutated_json(draw, base, max_ops: int = 3):
    """A JSON value of `base` (deep-copied), with 0 to `max_ops` mutations anywhere in its tree:
    a value replaced by an odd one or by another value of the tree, a key dropped or added, a list
    item duplicated or dropped, a number or a string mutated."""
    obj = copy.deepcopy(draw(base))
    for _ in range(draw(st.integers(0, max_ops))):
        paths = list(_paths(obj))
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "other", "drop", "add", "dup", "pop", "text"]))
        if not path:
            if op == "replace":
                obj = draw(odd_value())
            continue
        parent, key = _get(obj, path[:-1]), path[-1]
        value = parent[key]
        if op == "replace":
            parent[key] = draw(odd_value())
        elif op == "other":
            parent[key] = copy.deepcopy(_get(obj, draw(st.sampled_from(paths))))
        elif op == "drop":
            del parent[key]
        elif op == "add" and isinstance(value, dict):
            value[draw(st.sampled_from(["x", "", "format", "card", "seed", "id", "\u0663"]))] = draw(odd_value())
        elif op == "dup" and isinstance(value, list) and value:
            value.insert(draw(st.integers(0, len(value))), copy.deepcopy(draw(st.sampled_from(value))))
        elif op == "pop" and isinstance(value, list) and value:
            value.pop(draw(st.integers(0, len(value) - 1)))
        elif op == "text" and isinstance(value, str):
            parent[key] = draw(mutated_text(st.just(value), max_ops=2))
        elif op == "text" and isinstance(value, int) and not isinstance(value, bool):
            parent[key] = draw(st.sampled_from([value + 1, value - 1, -value, value * 2 ** 40, str(value)]))
    return obj


def json_text(obj) -> str:
    return json.dumps(obj, allow_nan=True)


@st.composite
def mutated_json_text(draw, base):
    """The text of a (mutated) JSON value, itself sometimes mutated as text."""
    text = json_text(draw(mutated_json(base)))
    if draw(st.booleans()):
        text = draw(mutated_text(st.just(text), max_ops=2, seps=",:"))
    return text

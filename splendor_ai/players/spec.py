"""Player spec strings: `name` or `name(key=value, ...)`, e.g. `mcts(iterations=20000,c=1.2)`.

`parse_spec` splits a spec into a name and literal keyword arguments; `check_spec` also checks
them against the table of bounds (players/bounds.py) without building a player; `make_player`
builds the player (its constructor checks the same table). Every error is a ConfigError naming
the spec (shortened: a huge spec is never echoed) and the parameter at fault.
"""
from __future__ import annotations

import ast
import re
from typing import Mapping

from ..errors import ConfigError, SplendorError, short
from .base import Player

#: the longest spec accepted (the longest in use, three weight vectors of 16 numbers, is under 1000)
MAX_SPEC_CHARS = 4000


def parse_spec(spec: str) -> tuple[str, dict]:
    """Split a spec into its name and keyword arguments (literal values only). Nothing is
    checked against the bounds here (see check_spec)."""
    if not isinstance(spec, str):
        raise ConfigError(f"a player spec must be a string, got {short(spec)}")
    if len(spec) > MAX_SPEC_CHARS:
        raise ConfigError(f"player spec {short(spec, 30)}: longer than {MAX_SPEC_CHARS} characters")
    m = re.fullmatch(r"\s*([a-z_][a-z0-9_]*)\s*(?:\((.*)\))?\s*", spec, re.DOTALL)
    if not m:
        raise ConfigError(f"player spec {short(spec)}: expected name or name(key=value, ...)")
    name, args = m[1], m[2]
    kwargs: dict = {}
    if args and args.strip():
        try:
            call = ast.parse(f"f({args})", mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            raise ConfigError(f"player spec {short(spec)}: cannot parse the arguments {short(args, 40)}") from None
        if not isinstance(call, ast.Call) or call.args or any(kw.arg is None for kw in call.keywords):
            raise ConfigError(f"player spec {short(spec)}: arguments must be key=value")
        for kw in call.keywords:
            try:
                kwargs[kw.arg] = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise ConfigError(f"player spec {short(spec)}: {kw.arg} must be a literal value") from None
    return name, kwargs


def _registry() -> dict:
    from .expectimax import ExpectimaxPlayer
    from .greedy import GreedyPlayer
    from .mcts import MCTSPlayer
    from .random_player import RandomPlayer
    return {"random": RandomPlayer, "greedy": GreedyPlayer, "mcts": MCTSPlayer, "expectimax": ExpectimaxPlayer}


PLAYERS = ("random", "greedy", "mcts", "expectimax")
#: the AI opponent of a game when none is named (terminal and browser)
DEFAULT_AI = "mcts(seconds=1)"


def check_spec(spec: str, caps: Mapping[str, float] | None = None) -> tuple[str, dict]:
    """Parse `spec` and check its parameters against the table of bounds (and a front end's
    tighter `caps`, field -> highest value), without building the player. Returns (name,
    kwargs). Raises ConfigError; a BoundsError's `field` names the parameter."""
    from .bounds import BoundsError, check
    name, kwargs = parse_spec(spec)
    if name not in PLAYERS:
        raise ConfigError(f"unknown player {name!r}; known players: {', '.join(sorted(PLAYERS))}")
    try:
        check(name, kwargs, caps)
    except BoundsError as e:
        raise BoundsError(f"player spec {short(spec.strip())}: {e}", e.field) from None
    return name, kwargs


def make_player(spec: str, seed: int = 0, caps: Mapping[str, float] | None = None) -> Player:
    """Build a player from its spec; `seed` seeds every random choice it makes. The parameters are
    checked against the table of bounds (players/bounds.py) and `caps` first."""
    name, kwargs = check_spec(spec, caps)
    try:
        player = _registry()[name](seed=seed, **kwargs)
    except SplendorError as e:
        raise type(e)(f"player spec {short(spec.strip())}: {e}") from None
    except (TypeError, ValueError) as e:   # a wrong keyword, or a value of the wrong kind
        raise ConfigError(f"player spec {short(spec.strip())}: {e}") from None
    player.spec = spec.strip()
    return player

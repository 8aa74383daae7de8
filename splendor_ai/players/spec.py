"""Player spec strings: `name` or `name(key=value, ...)`, e.g. `mcts(iterations=20000,c=1.2)`."""
from __future__ import annotations

import ast
import re

from ..errors import ConfigError, SplendorError
from .base import Player


def parse_spec(spec: str) -> tuple[str, dict]:
    """Split a spec into its name and keyword arguments (literal values only)."""
    if not isinstance(spec, str):
        raise ConfigError(f"a player spec must be a string, got {spec!r}")
    m = re.fullmatch(r"\s*([a-z_][a-z0-9_]*)\s*(?:\((.*)\))?\s*", spec)
    if not m:
        raise ConfigError(f"player spec {spec!r}: expected name or name(key=value, ...)")
    name, args = m[1], m[2]
    kwargs: dict = {}
    if args and args.strip():
        try:
            call = ast.parse(f"f({args})", mode="eval").body
        except SyntaxError:
            raise ConfigError(f"player spec {spec!r}: cannot parse the arguments {args!r}") from None
        if call.args:
            raise ConfigError(f"player spec {spec!r}: arguments must be key=value")
        for kw in call.keywords:
            try:
                kwargs[kw.arg] = ast.literal_eval(kw.value)
            except ValueError:
                raise ConfigError(f"player spec {spec!r}: {kw.arg} must be a literal value") from None
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


def make_player(spec: str, seed: int = 0) -> Player:
    """Build a player from its spec; `seed` seeds every random choice it makes."""
    name, kwargs = parse_spec(spec)
    reg = _registry()
    if name not in reg:
        raise ConfigError(f"unknown player {name!r}; known players: {', '.join(sorted(reg))}")
    try:
        player = reg[name](seed=seed, **kwargs)
    except SplendorError:
        raise
    except (TypeError, ValueError) as e:   # a wrong keyword, or a value of the wrong kind
        raise ConfigError(f"player spec {spec!r}: {e}") from None
    player.spec = spec.strip()
    return player

"""Player spec strings as experiments handle them: checking, changing one parameter, and
splitting comma-separated lists that may contain specs with commas of their own."""
from __future__ import annotations

import ast

from ..errors import ConfigError
from ..players import make_player, parse_spec
from .errors import ExperimentError


def check_specs(specs) -> None:
    """Build every spec once, so a typo fails before any game starts (ExperimentError)."""
    for spec in specs:
        try:
            player = make_player(spec, seed=0)
        except ConfigError as e:
            msg = str(e)
            raise ExperimentError(msg if "player spec" in msg or "unknown player" in msg
                                  else f"player spec {spec!r}: {msg}") from None
        player.close()


def format_value(v) -> str:
    """A literal as it is written in a spec (strings quoted, floats shortest)."""
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, (list, tuple)):
        inner = ",".join(format_value(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    return repr(v)


def format_spec(name: str, kwargs: dict) -> str:
    if not kwargs:
        return name
    return f"{name}(" + ",".join(f"{k}={format_value(v)}" for k, v in kwargs.items()) + ")"


def with_param(spec: str, param: str, value, drop: tuple[str, ...] = ()) -> str:
    """`spec` with `param=value` set (added at the end or replaced in place), and the
    parameters in `drop` removed: with_param("mcts(iterations=300)", "c", 0.5) ->
    "mcts(iterations=300,c=0.5)"."""
    try:
        name, kwargs = parse_spec(spec)
    except ConfigError as e:
        raise ExperimentError(str(e)) from None
    if not param.isidentifier():
        raise ExperimentError(f"parameter name {param!r} is not an identifier")
    kwargs = {k: v for k, v in kwargs.items() if k not in drop}
    kwargs[param] = value
    return format_spec(name, kwargs)


def parse_value(text: str):
    """A command-line value: a Python literal (1, 0.5, True, 'x', [1, 2]) or else a bare string."""
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def split_list(text: str) -> list[str]:
    """Split on the commas that are outside brackets and quotes:
    "mcts(c=1,iterations=9),greedy" -> ["mcts(c=1,iterations=9)", "greedy"]."""
    items: list[str] = []
    cur: list[str] = []
    depth = 0
    quote: str | None = None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if quote or depth:
        raise ExperimentError(f"unbalanced brackets or quotes in the list {text!r}")
    items.append("".join(cur).strip())
    if any(not i for i in items):
        raise ExperimentError(f"empty item in the comma-separated list {text!r}")
    return items

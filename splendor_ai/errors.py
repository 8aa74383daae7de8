"""Exceptions: every bad input gets a specific one, with a message naming what was wrong."""


class SplendorError(ValueError):
    """Base class of the toolkit's input errors."""


class NotationError(SplendorError):
    """A move string that does not follow docs/NOTATION.md."""


class IllegalMoveError(SplendorError):
    """A well-formed move that is not legal in the position it was played in."""


class PositionError(SplendorError):
    """A position string or JSON position that is malformed or inconsistent."""


class RecordError(SplendorError):
    """A game record that is malformed or does not replay."""


class ConfigError(SplendorError):
    """Unknown or invalid game options."""


class CLIError(Exception):
    """A command-line usage error: printed as 'splendor <command>: error: <message>', exit status 2."""


def short(value, limit: int = 60) -> str:
    """`repr(value)`, cut to about `limit` characters (with the full length said), so that an error
    never echoes a huge input."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[:limit - 1]}… ({len(text)} characters)"


def loads(text, error: type[SplendorError], prefix: str = "broken JSON: "):
    """JSON text from outside, as standard JSON only (no NaN or Infinity, which JSON does not
    have and which would not write back), or `error` (`prefix` + the problem): broken JSON,
    nesting too deep for the parser, a number too long to convert."""
    import json

    def constant(name):
        raise error(f"{prefix}{name} is not a JSON number")
    try:
        return json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as e:
        raise error(f"{prefix}{e}") from None
    except RecursionError:
        raise error(f"{prefix}nested too deeply") from None
    except ValueError as e:   # an integer of more than 4300 digits
        if isinstance(e, SplendorError):
            raise
        raise error(f"{prefix}{short(str(e), 100)}") from None

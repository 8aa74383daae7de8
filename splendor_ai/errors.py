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

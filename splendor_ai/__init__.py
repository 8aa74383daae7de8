"""splendor_ai: a game-tree search AI toolkit for Splendor, on a compiled (Cython) engine."""
from .cards import CARDS, COLOURS, LETTERS, NOBLES
from .errors import (ConfigError, IllegalMoveError, NotationError, PositionError, RecordError,
                     SplendorError)
from .move import Move
from .state import Config, LegalMoves, Result, Seat, State, View

__version__ = "0.5.0"
__all__ = ["CARDS", "COLOURS", "LETTERS", "NOBLES", "Config", "ConfigError", "IllegalMoveError",
           "LegalMoves", "Move", "NotationError", "PositionError", "RecordError", "Result", "Seat",
           "SplendorError", "State", "View"]

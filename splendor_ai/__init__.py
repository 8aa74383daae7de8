"""splendor_ai: a game-tree search AI toolkit for Splendor, on a compiled (Cython) engine."""
from .cards import CARDS, COLOURS, LETTERS, NOBLES
from .errors import (ConfigError, IllegalMoveError, NotationError, PositionError, RecordError,
                     SplendorError)
from .move import DecisionTag, Move, MoveKind
from .state import Config, LegalMoves, Result, Seat, State, Termination, View

__version__ = "0.5.0"
__all__ = ["CARDS", "COLOURS", "LETTERS", "NOBLES", "Config", "ConfigError", "DecisionTag", "IllegalMoveError",
           "LegalMoves", "Move", "MoveKind", "NotationError", "PositionError", "RecordError", "Result", "Seat",
           "SplendorError", "State", "Termination", "View"]

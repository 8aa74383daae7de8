"""Playing games between players: `play_game` runs one game to its end through the one game loop
(`session.GameSession`), the only component that holds the true state.

Players get their seat's view (or, for a labelled perfect-information player, the true state),
and every player is told each move played so it can keep its search tree. A two-step turn
(docs/RULES.md) asks its player twice, before and after the card its purchase reveals; the game's
moves, and what the players are told, are whole turns. A player that crashes, returns an illegal
move or (with `time_forfeit`) overruns the time ends the game, recorded as such.
"""
from __future__ import annotations

from dataclasses import dataclass

from .players.base import Limit, Player
from .state import Config, Result, State


@dataclass
class GameOutcome:
    start: str                   # the true start position
    moves: list[str]
    result: Result | None        # None when the game was stopped (see termination)
    termination: str             # "normal", or what stopped it: "illegal move by seat 1", ...
    seconds: list[float]         # per turn (a two-step turn's two choices summed)
    final: State                 # the position the game ended or stopped in
    offender: int | None = None  # the seat whose crash, illegal move or time-out stopped the game


def play_game(players: list[Player], seed: int, config: Config | None = None, first_player: int = 0,
              limit: Limit | None = None, time_forfeit: float | None = None) -> GameOutcome:
    """One game; players[i] sits in seat i. A player that raises, returns an illegal move or
    (with `time_forfeit`) overruns the time ends the game, recorded as such. The players are
    reset first and left open (the caller closes them)."""
    from .session import GameSession, PlayerFault
    config = config or Config(players=len(players))
    session = GameSession.new(players, seed=seed, config=config, first_player=first_player, event="match",
                              allow_perfect_information=True, describe=False)
    secs: list[float] = []
    while not session.is_over():
        try:
            session.ai_move(limit, time_forfeit=time_forfeit, interruptible=False)
        except PlayerFault as f:
            if f.kind != "crash":            # the move was chosen (too late, or illegal): its time counts
                secs.append(f.seconds)
            return GameOutcome(session.start, session.moves, None, str(f), secs, session.state, f.seat)
        secs.append(session.history[-1].seconds or 0.0)
    return GameOutcome(session.start, session.moves, session.state.result(), "normal", secs, session.state)

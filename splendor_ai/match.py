"""Playing games between players: the only component that holds the true state.

Players get their seat's view (or, for a labelled perfect-information player, the true state),
and every player is told each move played so it can keep its search tree. A two-step turn
(docs/RULES.md) asks its player twice, before and after the card its purchase reveals; the game's
moves, and what the players are told, are whole turns.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from .errors import IllegalMoveError
from .players.base import Limit, Player
from .state import Config, Result, State


@dataclass
class GameOutcome:
    start: str                   # the true start position
    moves: list[str]
    result: Result | None        # None when the game was stopped (see termination)
    termination: str             # "normal", or what stopped it: "illegal move by seat 1", ...
    seconds: list[float] = field(default_factory=list)   # per turn (a two-step turn's two choices summed)
    final: State | None = None
    offender: int | None = None  # the seat whose crash, illegal move or time-out stopped the game


def play_game(players: list[Player], seed: int, config: Config | None = None, first_player: int = 0,
              limit: Limit | None = None, time_forfeit: float | None = None) -> GameOutcome:
    """One game; players[i] sits in seat i. A player that raises, returns an illegal move or
    (with `time_forfeit`) overruns the time ends the game, recorded as such."""
    config = config or Config(players=len(players))
    state = State.new(config.players, seed=seed, first_player=first_player, config=config)
    start = state.position()
    for p in players:
        p.reset()
    moves: list[str] = []
    secs: list[float] = []
    step_secs = 0.0   # the first step's time of a two-step turn under way
    while not state.is_over():
        seat = state.to_move
        player = players[seat]
        t0 = time.perf_counter()
        try:
            given = state.copy(stack=False) if getattr(player, "perfect_information", False) else state.view(seat)
            decision = player.choose(given, limit)
        except Exception as e:  # a crashing bot ends its game, it does not end the tournament
            return GameOutcome(start, moves, None, f"crash by seat {seat}: {type(e).__name__}: {e}", secs, state, seat)
        dt = time.perf_counter() - t0
        secs.append(dt + step_secs)
        if time_forfeit is not None and dt > time_forfeit:
            return GameOutcome(start, moves, None, f"time-out by seat {seat} ({dt:.2f}s)", secs, state, seat)
        try:
            played = state.push(decision.move)
        except IllegalMoveError as e:
            return GameOutcome(start, moves, None, f"illegal move by seat {seat}: {e}", secs, state, seat)
        if state.partial_move is not None:
            step_secs += secs.pop()   # the first step of a two-step turn: the same seat chooses the rest
            continue
        step_secs = 0.0
        moves.append(str(played))
        for p in players:
            observe = getattr(p, "observe", None)
            if observe:
                observe(played)
    return GameOutcome(start, moves, state.result(), "normal", secs, state)

"""What a game record means for the standings: each seat's share of the win and its rank.

- A win: the winner gets 1. A shared win (several `winners`: equal points and cards) gives each
  winner 1/k.
- A draw (the safety cap or a stalemate: `winners` empty) gives every seat 1/n (0.5 each at two
  players), all ranked equal.
- A forfeit (`result` null; meta.termination names "crash / illegal move / time-out by seat s"):
  seat s loses (0, last); the others share the win (1/(n-1) each; at two players the opponent
  wins) and are ranked equal first.
- A record with no result and no offender (e.g. "aborted") is void: it counts for nothing.

Ranks are fractional ("mean" ranks): players tied for places 1-2 both get 1.5, so the ranks of a
game always add up to n(n+1)/2.

Each outcome carries the module its game was played with (`module`: "base" or a Cities of
Splendor module), from the record's config, so a record from before the modules is a base game.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..records import GameRecord
from .games import offender, record_key, record_module


@dataclass(frozen=True)
class Outcome:
    seats: tuple[str, ...]        # the spec in each seat
    order: tuple[int, ...]        # the lineup index of each seat
    lineup: tuple[str, ...]       # the match's players (meta.lineup, or the seats sorted)
    scores: tuple[float, ...]     # win share per seat, adding up to 1
    ranks: tuple[float, ...]      # fractional rank per seat, 1 = best
    kind: str                     # "win", "shared", "draw" or "forfeit"
    reason: str                   # points / cap / stalemate / the termination text
    deal: int | None
    key: str | None
    forfeit: int | None = None    # the seat that forfeited
    module: str = "base"          # the module played ("base": the base game; from the record's config)

    @property
    def players(self) -> int:
        return len(self.seats)


def mean_ranks(ranks) -> tuple[float, ...]:
    """Competition ranks (1, 1, 3) as mean ranks (1.5, 1.5, 3)."""
    out = []
    for r in ranks:
        better = sum(x < r for x in ranks)
        tied = sum(x == r for x in ranks)
        out.append(better + (tied + 1) / 2)
    return tuple(out)


def outcome(rec: GameRecord) -> Outcome | None:
    """The outcome of a record, or None for a void game."""
    n = rec.config.players
    seats = tuple(rec.players)
    meta = rec.meta
    lineup = tuple(meta["lineup"]) if isinstance(meta.get("lineup"), list) else tuple(sorted(seats))
    order = meta.get("seats")
    if not (isinstance(order, list) and len(order) == n):
        order = [lineup.index(s) for s in seats] if all(s in lineup for s in seats) else list(range(n))
    key, module = record_key(rec), record_module(rec)

    def made(scores: tuple[float, ...], ranks: tuple[float, ...], kind: str, reason: str,
             forfeit: int | None = None) -> Outcome:
        return Outcome(seats=seats, order=tuple(order), lineup=lineup, scores=scores, ranks=ranks, kind=kind,
                       reason=reason, deal=rec.seed, key=key, forfeit=forfeit, module=module)

    res = rec.result
    if res is not None:
        if res.winners:
            k = len(res.winners)
            scores = tuple(1 / k if s in res.winners else 0.0 for s in range(n))
            return made(scores, mean_ranks(res.ranks), "win" if k == 1 else "shared", res.reason)
        return made((1 / n,) * n, ((n + 1) / 2,) * n, "draw", res.reason)
    term = str(meta.get("termination", ""))
    bad = meta.get("forfeit")
    if not (isinstance(bad, int) and 0 <= bad < n):
        bad = offender(term)
    if bad is None or not 0 <= bad < n:
        return None
    scores = tuple(0.0 if s == bad else 1 / (n - 1) for s in range(n))
    ranks = tuple(float(n) if s == bad else n / 2 for s in range(n))
    return made(scores, ranks, "forfeit", term, forfeit=bad)

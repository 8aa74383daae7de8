"""Gating: a candidate network plays the current best (or any baseline spec) in a duplicate-format
match, stopped by an SPRT, and is promoted only if the test accepts it (AlphaZero's and KataGo's
gatekeeper). Games are ordinary tournament records (splendor_ai.tournament): resumable, on local
processes or Ray, rated with the tournament's statistics.
"""
from __future__ import annotations

from ..tournament.games import Settings, deals, schedule, versus
from ..tournament.outcomes import outcome
from ..tournament.runner import run
from ..tournament.stats import elo, sprt, wilson
from ..tournament.summary import wdl


def gate(candidate: str, best: str, path, players: int = 2, module: str | None = None, max_games: int = 400,
         elo0: float = 0.0, elo1: float = 30.0, alpha: float = 0.05, beta: float = 0.05, seed: int = 1,
         jobs: int = 1, ray: str | None = None, progress: bool = True) -> dict:
    """Play `candidate` against `best` (with players - 1 copies of it at 3-4 players) until the SPRT
    of elo0 against elo1 decides or `max_games` are played (two players; at 3-4 players all of them);
    returns the summary with "accept": at two players, the SPRT accepted elo1, or it is undecided and
    the lower end of the candidate's 95% Elo interval is above 0; at 3-4 players, the lower end of the
    95% interval of its win share is above its level (1 / players)."""
    n_deals = max(1, max_games // players)
    games = schedule([versus(candidate, best, players)], deals(n_deals, seed), Settings(players, module=module),
                     event="gate")

    def score(records):
        outs = [outcome(r) for r in records]
        if players == 2:
            return wdl(outs)
        a = sum(o.scores[o.order.index(0)] for o in outs if o.kind != "forfeit")
        return a, len([o for o in outs if o.kind != "forfeit"])

    def stop(records) -> bool:
        if players != 2:
            return False
        w, d, l = score(records)
        return sprt(w, d, l, elo0, elo1, alpha, beta).decision is not None

    result = run(games, path, jobs=jobs, ray=ray, stop=stop, progress=progress, desc="gate")
    out = {"candidate": candidate, "best": best, "players": players, "module": module or "base"}
    if players == 2:
        w, d, l = score(result.records)
        e = elo(w, d, l)
        test = sprt(w, d, l, elo0, elo1, alpha, beta)
        accept = test.decision == "H1" or (test.decision is None and e.lower > 0)
        out.update(games=w + d + l, wins=w, draws=d, losses=l, elo=e.elo, elo_95=[e.lower, e.upper],
                   sprt=test.to_json(), accept=bool(accept))
    else:
        won, n = score(result.records)
        lo, hi = wilson(won, n)
        out.update(games=n, score=won / n if n else None, score_95=[lo, hi], level=1 / players,
                   accept=bool(n and lo > 1 / players))
    return out

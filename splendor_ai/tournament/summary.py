"""Standings from game outcomes (a separate pass over records: any set of records can be re-rated).

- `pair(outcomes, a, b)`: two-player games of A against B: W/L/D, score, Elo with its 95%
  interval, LOS, and the games by how they ended.
- `players_table(outcomes)`: per player spec: games, win share and win rate with a Wilson 95%
  interval, average (mean) rank, per-seat win rates, forfeits.
- `plackett_luce(outcomes)`: openskill's Plackett-Luce rating (mu, sigma, mu +- 1.96 sigma, and
  the conservative ordinal mu - 3 sigma), one pass over the games in key order (so the same games
  give the same ratings whatever order they were played in).
- `match_summary(outcomes, lineup)`: one match (a lineup): per lineup member, and for two players
  the pair statistics of lineup[0] against lineup[1].
- `modules_of(outcomes)`, `by_module(outcomes)`: the modules the games were played with (base
  game first, then the Cities of Splendor modules in their usual order) and the outcomes of each;
  `module_rows(outcomes, lineup)`: lineup[0]'s results per module (and over all of them);
  `module_matrix(outcomes)`: each player's win rate per module.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from .errors import missing_extra
from .games import MODULE_CHOICES
from .outcomes import Outcome
from .stats import Z95, elo, elo_json, los, sprt, wilson


def _r(x, nd=4):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(x, nd)


def wdl(outcomes, a_index: int = 0, b_index: int = 1) -> tuple[int, int, int]:
    """W, D, L of lineup member a against b over two-player outcomes of one lineup."""
    w = d = l = 0
    for o in outcomes:
        if o.players != 2:
            continue
        sa = o.scores[o.order.index(a_index)]
        if sa == 1:
            w += 1
        elif sa == 0:
            l += 1
        else:
            d += 1
    return w, d, l


def pair_from_counts(w: int, d: int, l: int, kinds: Counter | None = None, sprt_args: dict | None = None) -> dict:
    e = elo(w, d, l)
    out = {"games": w + d + l, "wins": w, "draws": d, "losses": l, "score": _r(e.score),
           "elo": elo_json(e.elo), "elo_95": [elo_json(e.lower), elo_json(e.upper)], "los": _r(los(w, l))}
    if kinds is not None:
        out["endings"] = dict(sorted(kinds.items()))
    if sprt_args:
        out["sprt"] = sprt(w, d, l, **sprt_args).to_json()
    return out


def pair(outcomes, a_index: int = 0, b_index: int = 1, sprt_args: dict | None = None) -> dict:
    outs = [o for o in outcomes if o.players == 2]
    return pair_from_counts(*wdl(outs, a_index, b_index), Counter(o.kind for o in outs), sprt_args)


def sprt_sequence(outcomes, sprt_args: dict) -> dict:
    """The SPRT over two-player outcomes in the order they were recorded: where it first
    crossed a bound (the run stops there; games already running still finish and count in the
    final figures), and the LLR over all games."""
    w = d = l = 0
    out: dict[str, Any] = {"decision": None, "decided_after": None, "llr_at_decision": None}
    for i, o in enumerate(outcomes, 1):
        sc = o.scores[o.order.index(0)]
        w, d, l = w + (sc == 1), d + (0 < sc < 1), l + (sc == 0)
        t = sprt(w, d, l, **sprt_args)
        if t.decision:
            out.update(decision=t.decision, decided_after=i, llr_at_decision=round(t.llr, 6))
            break
    out["final"] = sprt(*wdl(outcomes), **sprt_args).to_json()
    return out


def _member_rows(outcomes, key) -> dict:
    """Per key (a spec or a lineup index) over every seat it held: games, wins, rank, seats."""
    rows: dict = {}
    for o in outcomes:
        for seat in range(o.players):
            k = key(o, seat)
            r = rows.setdefault(k, {"games": 0, "wins": 0.0, "rank_sum": 0.0, "forfeits": 0,
                                    "seat_games": defaultdict(int), "seat_wins": defaultdict(float)})
            r["games"] += 1
            r["wins"] += o.scores[seat]
            r["rank_sum"] += o.ranks[seat]
            r["forfeits"] += o.forfeit == seat
            r["seat_games"][seat] += 1
            r["seat_wins"][seat] += o.scores[seat]
    table = {}
    for k, r in rows.items():
        n = r["games"]
        lo, hi = wilson(r["wins"], n)
        table[k] = {"games": n, "wins": _r(r["wins"]), "win_rate": _r(r["wins"] / n),
                    "win_rate_95": [_r(lo), _r(hi)], "avg_rank": _r(r["rank_sum"] / n),
                    "forfeits": r["forfeits"],
                    "seat_win_rates": {str(s): _r(r["seat_wins"][s] / g) for s, g in sorted(r["seat_games"].items())},
                    "seat_games": {str(s): g for s, g in sorted(r["seat_games"].items())}}
    return table


def players_table(outcomes) -> dict:
    """Per player spec, over all its seats in all games (a spec seated twice counts twice)."""
    return _member_rows(outcomes, lambda o, seat: o.seats[seat])


def match_summary(outcomes, lineup, sprt_args: dict | None = None) -> dict:
    """One lineup's games: per member (by lineup index) and, at two players, A against B."""
    outs = [o for o in outcomes if tuple(o.lineup) == tuple(lineup)]
    members = _member_rows(outs, lambda o, seat: o.order[seat])
    out = {"lineup": list(lineup), "games": len(outs),
           "endings": dict(sorted(Counter(o.kind for o in outs).items())),
           "members": [dict(spec=lineup[k], **members[k]) for k in sorted(members)]}
    if len(lineup) == 2 and outs:
        out["pair"] = pair(outs, 0, 1, sprt_args)
    return out


def plackett_luce(outcomes) -> dict:
    """Plackett-Luce ratings (openskill) per spec. A spec seated several times in one game is
    updated by the mean of its seats' updates."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise missing_extra("openskill", "rating players (Plackett-Luce)") from None
    model = PlackettLuce()
    ratings: dict = {}
    for o in sorted(outcomes, key=lambda o: (o.key or "", o.deal or 0, o.seats)):
        teams = [[ratings.setdefault(s, model.rating(name=s))] for s in o.seats]
        new = model.rate(teams, ranks=list(o.ranks))
        by_spec: dict = defaultdict(list)
        for s, t in zip(o.seats, new):
            by_spec[s].append(t[0])
        for s, rs in by_spec.items():
            r = ratings[s]
            r.mu = sum(x.mu for x in rs) / len(rs)
            r.sigma = sum(x.sigma for x in rs) / len(rs)
    out = {}
    for s, r in sorted(ratings.items(), key=lambda kv: -kv[1].mu):
        out[s] = {"mu": _r(r.mu, 3), "sigma": _r(r.sigma, 3),
                  "mu_95": [_r(r.mu - Z95 * r.sigma, 3), _r(r.mu + Z95 * r.sigma, 3)],
                  "ordinal": _r(r.mu - 3 * r.sigma, 3)}
    return out


def lineups_of(outcomes) -> list[tuple[str, ...]]:
    seen: dict[tuple[str, ...], None] = {}
    for o in outcomes:
        seen.setdefault(tuple(o.lineup), None)
    return list(seen)


# -- per module -------------------------------------------------------------------------------------

def _module_order(m: str):
    return (MODULE_CHOICES.index(m), m) if m in MODULE_CHOICES else (len(MODULE_CHOICES), m)


def modules_of(outcomes) -> list[str]:
    """The modules of the games ("base" first, then cities, orient, posts, strongholds)."""
    return sorted({o.module for o in outcomes}, key=_module_order)


def by_module(outcomes) -> dict[str, list]:
    """The outcomes of each module, in module order (each list in the given order)."""
    out: dict[str, list] = {m: [] for m in modules_of(outcomes)}
    for o in outcomes:
        out[o.module].append(o)
    return out


def module_rows(outcomes, lineup, modules=None) -> list[dict]:
    """lineup[0]'s results in the games of `lineup`, per module and then over all modules
    (module "all"): games, win share and win rate with its Wilson 95% interval, average rank;
    at two players also W-D-L, score and Elo with its 95% interval (`pair`). `modules` lists the
    modules to show (default: those with games); a module without games gets a row of zeros."""
    outs = [o for o in outcomes if tuple(o.lineup) == tuple(lineup)]
    groups = by_module(outs)
    mods = list(modules) if modules is not None else list(groups)
    rows = []
    for m, os_ in [(m, groups.get(m, [])) for m in mods] + [("all", outs)]:
        members = _member_rows(os_, lambda o, seat: o.order[seat])
        row = {"module": m, "games": len(os_)}
        if 0 in members:
            a = members[0]
            row.update(wins=a["wins"], win_rate=a["win_rate"], win_rate_95=a["win_rate_95"], avg_rank=a["avg_rank"])
        if len(lineup) == 2 and os_:
            row["pair"] = pair(os_, 0, 1)
        rows.append(row)
    return rows


def module_matrix(outcomes, modules=None) -> dict:
    """Per player spec and module ("all": every module): games, win rate, Wilson 95% interval,
    average rank (players_table of each module's games)."""
    groups = by_module(outcomes)
    mods = list(modules) if modules is not None else list(groups)
    tables = {m: players_table(groups.get(m, [])) for m in mods}
    tables["all"] = players_table(outcomes)
    out: dict = {}
    for m, t in tables.items():
        for spec, row in t.items():
            out.setdefault(spec, {})[m] = {k: row[k] for k in ("games", "wins", "win_rate", "win_rate_95", "avg_rank")}
    return out

"""Text tables and PNG plots (matplotlib, Agg backend) of experiment summaries."""
from __future__ import annotations

import math
import textwrap

from .errors import missing_extra


def pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def num(x, fmt="{:+.0f}") -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, float) and math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return fmt.format(x)


def interval(lo, hi, fmt="{:+.0f}") -> str:
    return f"[{num(lo, fmt)}, {num(hi, fmt)}]"


def table(headers: list[str], rows: list[list], right: set[int] | None = None) -> str:
    """A fixed-width table; columns in `right` (default: all but the first two) right-aligned."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    right = set(range(2, len(headers))) if right is None else right

    def line(r):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    out = [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    return "\n".join(out)


def pair_line(p: dict) -> str:
    """W-D-L 12-1-7, score 0.625, Elo +89 [-20, +210], LOS 91.2%"""
    s = f"W-D-L {p['wins']}-{p['draws']}-{p['losses']}, score {p['score']:.3f}" if p["games"] else "no games"
    if p["games"]:
        s += f", Elo {num(p['elo'])} {interval(*p['elo_95'])}, LOS {pct(p['los'])}%"
    return s


def sprt_text(seq: dict) -> str:
    t = seq["final"]
    verdicts = {"H1": f"H1 accepted: A is stronger than B (elo >= {t['elo1']:g})",
                "H0": f"H0 accepted: A is not stronger than B (elo <= {t['elo0']:g})"}
    s = (f"SPRT elo0={t['elo0']:g} elo1={t['elo1']:g} alpha={t['alpha']:g} beta={t['beta']:g}, "
         f"bounds [{t['bounds'][0]:.3f}, {t['bounds'][1]:.3f}]: ")
    if seq["decision"]:
        s += f"{verdicts[seq['decision']]} after {seq['decided_after']} games (LLR {seq['llr_at_decision']:.3f})"
        s += f"; over all recorded games LLR {t['llr']:.3f}"
    else:
        s += f"undecided, LLR {t['llr']:.3f}"
    return s


def members_table(members: list[dict]) -> str:
    rows = []
    for i, m in enumerate(members):
        seats = " ".join(f"{pct(v)}" for v in m["seat_win_rates"].values())
        rows.append([i, m["spec"], m["games"], pct(m["win_rate"]),
                     ci(m["win_rate_95"]), f"{m['avg_rank']:.2f}",
                     seats, m["forfeits"]])
    return table(["#", "player", "games", "win%", "95% CI", "avg rank", "win% by seat", "forfeits"], rows)


def matches_text(matches: list[dict]) -> str:
    out = []
    for m in matches:
        lineup = m["lineup"]
        title = " vs ".join(lineup) if len(set(lineup)) == len(lineup) or len(lineup) == 2 else \
            f"{lineup[0]} vs {len(lineup) - 1} x {lineup[1]}" if len(set(lineup[1:])) == 1 else " vs ".join(lineup)
        ends = ", ".join(f"{k} {v}" for k, v in m["endings"].items())
        out.append(f"{title}: {m['games']} games ({ends or 'none'})")
        if "pair" in m:
            out.append("    " + pair_line(m["pair"]))
        else:
            out.append("\n".join("    " + line for line in members_table(m["members"]).splitlines()))
    return "\n".join(out)


def players_text(players: dict, ratings: dict | None) -> str:
    order = list(ratings) if ratings else sorted(players, key=lambda s: -(players[s]["win_rate"] or 0))
    rows = []
    for i, s in enumerate(order, 1):
        p = players[s]
        row = [i, s, p["games"], pct(p["win_rate"]), ci(p["win_rate_95"]),
               f"{p['avg_rank']:.2f}", " ".join(pct(v) for v in p["seat_win_rates"].values())]
        if ratings:
            r = ratings[s]
            row += [f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"[{r['mu_95'][0]:.1f}, {r['mu_95'][1]:.1f}]"]
        rows.append(row)
    headers = ["rank", "player", "games", "win%", "95% CI", "avg rank", "win% by seat"]
    if ratings:
        headers += ["PL mu", "sigma", "mu 95%"]
    return table(headers, rows)


def ci(lohi) -> str:
    """A Wilson interval [lo, hi] as percentages: [86.3, 98.3]."""
    lo, hi = lohi
    return interval(lo, hi, fmt="{:.1%}").replace("%", "")


def modules_text(rows: list[dict], players: int) -> str:
    """A's results per module (summary.module_rows): at two players W-D-L, score, win% with its
    Wilson interval and Elo with its interval; at three or four win% and average rank."""
    out = []
    for r in rows:
        if not r["games"]:
            out.append([r["module"], 0] + ["-"] * (5 if players == 2 else 3))
            continue
        if players == 2:
            p = r["pair"]
            out.append([r["module"], r["games"], f"{p['wins']}-{p['draws']}-{p['losses']}", f"{p['score']:.3f}",
                        pct(r["win_rate"]), ci(r["win_rate_95"]), f"{num(p['elo'])} {interval(*p['elo_95'])}"])
        else:
            out.append([r["module"], r["games"], pct(r["win_rate"]), ci(r["win_rate_95"]), f"{r['avg_rank']:.2f}"])
    head = (["module", "games", "W-D-L", "score", "A win%", "95% CI", "Elo of A (95%)"] if players == 2 else
            ["module", "games", "A win%", "95% CI", "A avg rank"])
    return table(head, out, right=set(range(1, len(head))))


def matrix_text(matrix: dict, modules: list[str]) -> str:
    """Each player's win% [Wilson 95%] per module (summary.module_matrix), and over all."""
    cols = list(modules) + ["all"]
    order = sorted(matrix, key=lambda s: -(matrix[s].get("all", {}).get("win_rate") or 0))
    rows = []
    for spec in order:
        row = [spec]
        for m in cols:
            c = matrix[spec].get(m)
            row.append(f"{pct(c['win_rate'])} {ci(c['win_rate_95'])} ({c['games']})" if c and c["games"] else "-")
        rows.append(row)
    return table(["player"] + cols, rows, right=set(range(1, len(cols) + 1)))


def section(title: str) -> str:
    """A section heading for one module's tables."""
    return f"-- {title} " + "-" * max(3, 60 - len(title))


# -- plots -----------------------------------------------------------------------------------------

def _plt():
    try:
        import matplotlib
    except ImportError:
        raise missing_extra("matplotlib", "plotting") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _finite(v, clip, default=None):
    """v clipped to [-clip, clip]; "+inf" / "-inf" (infinite Elo in JSON) to +-clip; None to
    `default` (default +clip)."""
    if v is None:
        return default if default is not None else clip
    if isinstance(v, str):
        v = float(v)
    if not math.isfinite(v):
        return clip if v > 0 else -clip
    return max(-clip, min(clip, v))


def bars(path, labels, values, lows, highs, xlabel: str, title: str, ref: float | None = None, clip: float = 1e9):
    """Horizontal bars with their intervals (None / infinite bounds drawn to +-clip)."""
    plt = _plt()
    n = len(labels)
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.45 * n))
    ys = list(range(n))[::-1]
    vals = [_finite(v, clip) for v in values]
    lo = [v - _finite(l, clip, -clip) for v, l in zip(vals, lows)]
    hi = [_finite(h, clip) - v for v, h in zip(vals, highs)]
    ax.barh(ys, vals, xerr=[lo, hi], color="#4a7ab5", ecolor="black", capsize=4, height=0.6)
    ax.set_yticks(ys, [_short(l) for l in labels])
    if ref is not None:
        ax.axvline(ref, color="grey", lw=1, ls="--")
    ax.set_xlabel(xlabel)
    _title(ax, title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def curve(path, series, xlabel: str, ylabel: str, title: str, logx: bool = False, ref: float | None = None,
          clip: float = 1e9, xticklabels=None):
    """Lines with shaded intervals; series = [(label, xs, ys, lows, highs), ...]."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, xs, ys, lo, hi in series:
        ys = [_finite(y, clip) for y in ys]
        ax.errorbar(xs, ys, yerr=[[y - _finite(l, clip, -clip) for y, l in zip(ys, lo)],
                                   [_finite(h, clip) - y for y, h in zip(ys, hi)]],
                    marker="o", capsize=4, label=_short(label, 60))
    if logx:
        ax.set_xscale("log", base=2)
        ax.set_xticks(series[0][1], [f"{x:g}" for x in series[0][1]])
    if xticklabels:
        ax.set_xticks(series[0][1], xticklabels)
    if ref is not None:
        ax.axhline(ref, color="grey", lw=1, ls="--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _title(ax, title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def trajectory(path, series, ylabel: str, title: str, hlines=(), clip: float = 1e9):
    """Running statistics over the games: series = [(label, xs, ys, lows or None, highs or None)]."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, xs, ys, lo, hi in series:
        ys = [_finite(y, clip) for y in ys]
        line, = ax.plot(xs, ys, label=label)
        if lo is not None:
            ax.fill_between(xs, [_finite(v, clip, -clip) for v in lo], [_finite(v, clip) for v in hi],
                            color=line.get_color(), alpha=0.2)
    for y, label in hlines:
        ax.axhline(y, color="grey", lw=1, ls="--")
        ax.annotate(label, (0, y), xycoords=("axes fraction", "data"), fontsize=8, va="bottom")
    ax.set_xlabel("games")
    ax.set_ylabel(ylabel)
    _title(ax, title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _title(ax, title: str) -> None:
    """A title wrapped to the figure's width (a title with a long player spec ran off both sides)."""
    ax.set_title(textwrap.fill(title, 75), fontsize=10)


def _short(s: str, n: int = 40) -> str:
    return s if len(s) <= n else s[:n - 1] + "…"

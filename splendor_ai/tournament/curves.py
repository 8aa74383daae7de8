"""One player varied over values (a parameter, a budget) against a fixed opponent on the same
deals: the shared part of experiments/sweep.py and experiments/strength_vs_time.py.

Each point is a match versus(spec_v, opponent, players). At two players a point is the varied
player's Elo difference against the opponent with its 95% interval; at three or four players its
win rate (Wilson 95%) against players-1 copies of the opponent (a fair share is 1/players). The
measured thinking time per move of the varied player is reported beside each point. With
--modules every point is played once per module: a table per module, then the combined one, and
one curve per module in the plot."""
from __future__ import annotations

from . import cli, report
from .games import versus
from .summary import match_summary, players_table


def think_time(records, index: int = 0) -> float | None:
    """Mean seconds per move of lineup member `index` over the records (meta.seconds)."""
    total, moves = 0.0, 0
    for rec in records:
        m = rec.meta
        if "seconds" not in m or "seats" not in m:
            continue
        n = rec.config.players
        for seat, k in enumerate(m["seats"]):
            if k == index:
                total += m["seconds"][seat]
                moves += sum(1 for i in range(len(rec.moves)) if i % n == seat)
    return round(total / moves, 6) if moves else None


def run_curve(name: str, args, argv, points: list[tuple[object, str]], opponent: str, xlabel: str,
              title: str, logx: bool) -> int:
    """points: (value, spec) pairs. Plays, summarises, writes the curve."""
    n = args.players
    lineups = [versus(spec, opponent, n) for _, spec in points]
    if len(set(lineups)) != len(lineups):
        from .errors import ExperimentError
        raise ExperimentError("two values give the same player spec")
    exp = cli.play(name, args, lineups)
    summary = cli.base_summary(exp, argv)
    head = (["value", "player", "games", "score", "Elo", "Elo 95%", "LOS%", "s/move"] if n == 2 else
            ["value", "player", "games", "win%", "95% CI", "avg rank", "s/move"])

    def body(module, outcomes, records):
        rows, pts = [], []
        for (value, spec), lu in zip(points, lineups):
            m = match_summary(outcomes, lu)
            recs = [r for r in records if tuple(r.meta.get("lineup", ())) == lu]
            tt = think_time(recs, 0)
            pt = {"value": value, "spec": spec, "games": m["games"], "seconds_per_move": tt,
                  "member": m["members"][0] if m["members"] else None}
            if "pair" in m:
                pt["pair"] = m["pair"]
            pts.append(pt)
            if n == 2 and "pair" in m:
                p = m["pair"]
                rows.append([str(value), spec, p["games"], f"{p['score']:.3f}", report.num(p["elo"]),
                             report.interval(*p["elo_95"]), report.pct(p["los"]), report.num(tt, "{:.4f}")])
            elif m["members"]:
                mem = m["members"][0]
                rows.append([str(value), spec, mem["games"], report.pct(mem["win_rate"]),
                             report.ci(mem["win_rate_95"]),
                             f"{mem['avg_rank']:.2f}", report.num(tt, "{:.4f}")])
            else:
                rows.append([str(value), spec, 0] + ["-"] * (5 if n == 2 else 4))
        return {"points": pts, "players": players_table(outcomes)}, [report.table(head, rows)]

    part, lines = cli.module_sections(exp.modules, exp.outcomes, exp.result.records, body, exp.per_module)
    summary.update({"opponent": opponent, "x": xlabel, **part})
    text = [cli.header(exp, title, argv), "",
            f"against {opponent if n == 2 else f'{n - 1} x {opponent}'} "
            f"({'Elo of the player over the opponent' if n == 2 else f'win rate; a fair share is {100 / n:.1f}%'})",
            *lines]
    summary["report"] = "report.txt"
    curves = [(m, part["by_module"][m]["points"]) for m in exp.modules] if exp.per_module else [(None, part["points"])]
    series: list[tuple] = []   # (label, xs, ys, lo, hi); xs are the values when numeric, else indices
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v, _ in points)
    done_values: list = []
    for module, pts in curves:
        done = [(v, p) for v, p in zip(points, pts) if p["games"]]
        if not done:
            continue
        xs = [v if numeric else i for i, ((v, _), _) in enumerate(done)]
        if n == 2:
            ys = [p["pair"]["elo"] for _, p in done]
            lo = [p["pair"]["elo_95"][0] for _, p in done]
            hi = [p["pair"]["elo_95"][1] for _, p in done]
        else:
            ys = [p["member"]["win_rate"] for _, p in done]
            lo = [p["member"]["win_rate_95"][0] for _, p in done]
            hi = [p["member"]["win_rate_95"][1] for _, p in done]
        series.append((points[0][1] if module is None else module, xs, ys, lo, hi))
        done_values = done_values or [v for (v, _), _ in done]
    if series:
        ylabel, ref = ((f"Elo difference against {opponent}", 0.0) if n == 2 else
                       (f"win rate against {n - 1} x {opponent}", 1 / n))
        report.curve(exp.out / "curve.png", series, xlabel, ylabel, title,
                     logx=logx and numeric and all(x > 0 for x in series[0][1]), ref=ref, clip=800 if n == 2 else 1,
                     xticklabels=None if numeric else [str(v) for v in done_values])
        text.append("\nplot: curve.png (Elo beyond +-800 drawn at +-800)" if n == 2 else "\nplot: curve.png")
    cli.write(exp, summary, "\n".join(text))
    return 0

#!/usr/bin/env python
"""Re-rate any set of game records (JSON Lines files, e.g. several runs' games.jsonl): per player
win rate (Wilson 95%), average rank, per-seat win rates and Plackett-Luce rating (openskill);
per match (lineup) W-D-L / Elo / LOS at two players, per-member tables at three or four. Records
from other tools (without a lineup in meta) are grouped by their set of player specs. A torn last
line of a file is skipped with a warning; any other corrupt line is an error naming it.

    python experiments/rate.py results/tournament/games.jsonl results/sweep/games.jsonl --out results/rated

Writes OUT/summary.json, OUT/report.txt and OUT/ratings.png.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.tournament import cli, load, outcome, report  # noqa: E402
from splendor_ai.tournament.errors import ExperimentError  # noqa: E402
from splendor_ai.tournament.summary import lineups_of, match_summary, plackett_luce, players_table  # noqa: E402

NAME = "rate"


def main(argv=None) -> int:
    p = cli.Parser(prog=NAME + ".py", description=__doc__, formatter_class=cli.argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", metavar="RECORDS.jsonl", help="records files")
    p.add_argument("--out", metavar="DIR", default="results/rate", help="results folder (default results/rate)")
    p.add_argument("--config", metavar="FILE.toml", help="options from a TOML file (files = [...], out = ...)")
    args = cli.parse(p, argv)
    if not args.files:
        raise ExperimentError("no records files given")
    records = []
    for f in args.files:
        if not Path(f).exists():
            raise ExperimentError(f"{f}: no such file")
        records += load(f)
    outs = [outcome(r) for r in records]
    void = sum(o is None for o in outs)
    outs = [o for o in outs if o is not None]
    if not outs:
        raise ExperimentError("no rated games in " + ", ".join(args.files))
    players = players_table(outs)
    ratings = plackett_luce(outs)
    matches = [match_summary(outs, lu) for lu in lineups_of(outs)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {"experiment": NAME, "command": cli.command(NAME, argv), "files": args.files,
               "games": {"records": len(records), "rated": len(outs), "void": void},
               "players": players, "ratings": ratings, "matches": matches}
    title = f"Ratings of {len(outs)} games from {len(args.files)} file(s)"
    text = [title, "=" * len(title), f"command: {summary['command']}",
            f"records: {len(records)}, rated: {len(outs)}" + (f", void (no result, no offender): {void}" if void else ""),
            "", "Standings (Plackett-Luce rating by openskill; win% by seat: seat 0 first)",
            report.players_text(players, ratings), "", "Matches", report.matches_text(matches)]
    names = list(ratings)
    report.bars(out / "ratings.png", names, [ratings[s]["mu"] for s in names],
                [ratings[s]["mu_95"][0] for s in names], [ratings[s]["mu_95"][1] for s in names],
                "Plackett-Luce rating mu (openskill), 95% interval", title)
    text.append("\nplot: ratings.png")
    with open(out / "summary.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1, allow_nan=False)
        f.write("\n")
    (out / "report.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main, NAME))

#!/usr/bin/env python
"""Search benchmark: MCTS iterations/s and expectimax nodes/s on mid-game positions.

The positions are turn-boundary positions from the middle half (by turn) of greedy self-play games
(deterministic from --seed), searched from the view of the seat to move. Per position:

  mcts            the classic `mcts` player (`eval='classic'`: ISMCTS; policy playouts cut off after
                  8 turns and scored by the evaluation) for --seconds: iterations/s (one iteration =
                  one determinized descent + playout + backup), and the memory the search allocated
                  (its node pool and sampled worlds)
  mcts to-end     the same with playouts to the end of the game (cutoff=0)
  mcts net        with --net NAME: `mcts(eval='net',net=NAME)`, a network's default use: each new
                  leaf valued half by the network, half by a classic playout (one network
                  evaluation, with the policy logits of its legal keys, and one playout per
                  iteration), each prior half the policy head's, half the heuristic one's
  mcts net alone  the same with `net_mix=1`: the network's value alone (no playout)
  mcts net priors the same as `mcts net` with `priors='net'`: the policy head's priors alone
  mcts net classic priors
                  the same as `mcts net` with `priors='classic'`: the heuristic priors alone (the
                  network's default use until 2026-12-03)
  net evals       with --net NAME: network evaluations/s of the position (features, both layers,
                  the value and the legal keys' policy logits)
  mcts uct random to-end
                  plain UCT with uniformly random playouts to the end of the game (no priors,
                  no policy), the kind of search the fast public Splendor MCTS programs run
  expectimax d=N  the default `expectimax` player (exact root values, Star2) at each fixed depth in
                  --depths: nodes/s (a node = a state the search visited: interior, decision,
                  chance outcome and leaf states) and the time per search
  expectimax t=S  `expectimax(seconds=S)` and `expectimax(seconds=S,exact_root=False)`: the depth
                  iterative deepening completes in --seconds

Rates are per second of CPU time of the searching thread, so other processes on a shared machine
do not lower them: for expectimax the search loop's own CPU time (`extra["nodes_per_s"]`), for
MCTS time.thread_time around the whole `choose` call. The timed searches stop on wall time, which
is what `s/search` shows. --repeat N keeps the fastest of N runs of each fixed-budget search.
Each rate is the mean over the positions with its 95% interval (Student t over the positions: how
far the mean over mid-game positions of such games could move; none with one position) and the
range of the positions' rates.

    python experiments/bench_search.py                  # 2 players, 6 positions, 1 s searches
    python experiments/bench_search.py --quick          # 3 positions, 0.2 s, depths 1-2
    python experiments/bench_search.py --players 3 --depths 1 2 3 --json search.json
    python experiments/bench_search.py --modules base cities orient posts strongholds --repeat 3

--modules (default: the base game only) measures each named module (the base game is `base`) on
positions from its own greedy self-play games (`Config(players, modules=(module,))`), a table per
module, then one table of the mean rates per module with each module's rate relative to the
base game's (when `base` is among them).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from splendor_ai.players import make_player  # noqa: E402
from splendor_ai.state import MODULES, Config, State  # noqa: E402
from splendor_ai.tournament.stats import mean_interval  # noqa: E402

MODULE_CHOICES = ("base",) + tuple(MODULES)


def mid_game_views(players: int, seed: int, count: int, module: str | None = None):
    """`count` views (seat to move) from the middle half of greedy self-play games (of `module`,
    None or "base" for the base game)."""
    rng = random.Random(seed)
    config = Config(players=players, modules=(module,) if module and module != "base" else ())
    out = []
    game = 0
    while len(out) < count:
        bots = [make_player("greedy", seed=seed + game * 10 + i) for i in range(players)]
        st = State.new(players, seed=seed + game, config=config)
        seen = []
        while not st.is_over():
            seen.append(st.copy(stack=False))
            st.push(bots[st.to_move].choose(st.view()).move)
        n = len(seen)
        middle = seen[n // 4: max(n // 4 + 1, 3 * n // 4)]
        out += [s.view() for s in rng.sample(middle, min(2, len(middle), count - len(out)))]
        game += 1
    return out


def timed(player, view):
    """(decision, CPU seconds of this thread)."""
    t0 = time.thread_time()
    d = player.choose(view)
    return d, max(time.thread_time() - t0, 1e-9)


def best_of(repeat: int, run):
    """The run (a dict with a rate under 'rate') with the highest rate of `repeat` runs."""
    runs = [run() for _ in range(repeat)]
    return max(runs, key=lambda r: r["rate"])


def bench(views, seconds: float, depths: list[int], repeat: int, net: str | None = None) -> dict:
    rows = {}

    def add(label, rec):
        rows.setdefault(label, []).append(rec)

    for i, view in enumerate(views):
        variants = [("mcts", ",eval='classic'"), ("mcts to-end", ",eval='classic',cutoff=0"),
                    ("mcts uct random to-end", ",eval='classic',puct=False,rollout='random',cutoff=0")]
        if net:
            variants.append(("mcts net", f",eval='net',net='{net}'"))
            variants.append(("mcts net alone", f",eval='net',net='{net}',net_mix=1"))
            variants.append(("mcts net priors", f",eval='net',net='{net}',priors='net'"))
            variants.append(("mcts net classic priors", f",eval='net',net='{net}',priors='classic'"))

            def evals():
                from splendor_ai.players.network import load_network
                network = load_network(net)
                t0 = time.thread_time()
                network.bench(view._core, 20000)
                cpu = max(time.thread_time() - t0, 1e-9)
                return {"rate": 20000 / cpu, "seconds": cpu}
            add("net evals", best_of(repeat, evals))
        for label, extra in variants:
            def mcts(extra=extra):
                d, cpu = timed(make_player(f"mcts(seconds={seconds}{extra})", seed=i), view)
                return {"rate": d.info.iterations / cpu, "seconds": d.info.seconds,
                        "iterations": d.info.iterations, "memory_bytes": d.info.memory_bytes,
                        "nodes": d.info.nodes}
            add(label, best_of(repeat, mcts))
        for depth in depths:
            def ex(depth=depth):
                d = make_player(f"expectimax(depth={depth})", seed=i).choose(view)
                return {"rate": d.info.extra["nodes_per_s"] or 0.0, "seconds": d.info.seconds,
                        "nodes": d.info.nodes}
            add(f"expectimax d={depth}", best_of(repeat, ex))
        for exact in (True, False):
            spec = f"expectimax(seconds={seconds}{'' if exact else ',exact_root=False'})"
            d = make_player(spec, seed=i).choose(view)
            add(f"expectimax t={seconds:g}" + ("" if exact else " root-ab"),
                {"rate": d.info.extra["nodes_per_s"] or 0.0, "seconds": d.info.seconds,
                 "nodes": d.info.nodes, "depth": d.info.extra["depth"]})
    return rows


def fmt(x) -> str:
    return "-" if x is None else (f"{x:,.0f}" if x >= 100 else f"{x:.3g}")


def report(rows: dict, seconds: float) -> tuple[dict, list[str]]:
    """The table of one module's figures (and their summary dict): the mean rate over the
    positions with its 95% interval (how far the mean over mid-game positions of such games could
    move), and the range."""
    lines = [f"{'search':<26}{'rate (mean)':>20}{'95% interval':>26}{'min - max':>26}{'s/search':>10}{'depth':>7}",
             "-" * 115]
    summary = {}
    for label, recs in rows.items():
        rates = [r["rate"] for r in recs]
        est = mean_interval(rates)
        unit = "it/s" if label.startswith("mcts") else "evals/s" if label == "net evals" else "nodes/s"
        depth = [r["depth"] for r in recs if "depth" in r]
        summary[label] = {"unit": unit, "mean": est.mean,
                          "ci95": None if est.lower is None else [max(0.0, est.lower), est.upper],
                          "median": statistics.median(rates), "min": min(rates), "max": max(rates),
                          "seconds_mean": statistics.mean(r["seconds"] for r in recs),
                          "depths": depth or None, "runs": recs}
        ci = "-" if est.lower is None else f"[{fmt(max(0.0, est.lower))}, {fmt(est.upper)}]"   # a rate is >= 0
        lines.append(f"{label:<26}{fmt(est.mean) + ' ' + unit:>20}{ci:>26}"
                     f"{fmt(min(rates)) + ' - ' + fmt(max(rates)):>26}"
                     f"{statistics.mean(r['seconds'] for r in recs):>10.3f}"
                     f"{(f'{min(depth)}-{max(depth)}' if depth else ''):>7}")
    for label in [x for x in ("mcts", "mcts to-end", "mcts net") if x in rows]:
        mem = [r["memory_bytes"] for r in rows[label]]
        nodes = [r["nodes"] for r in rows[label]]
        lines.append(f"memory of a {seconds:g} s {label} search: {statistics.median(mem) / 2**20:.1f} MiB median "
                     f"(max {max(mem) / 2**20:.1f} MiB; {statistics.median(nodes):,.0f} tree nodes)")
    return summary, lines


def comparison(results: dict) -> list[str]:
    """Mean rate of every search per module, and module/base when the base game was measured."""
    mods = list(results)
    labels = list(next(iter(results.values())))
    base = results.get("base")
    lines = [f"{'search':<24}" + "".join(f"{m:>14}" for m in mods), "-" * (24 + 14 * len(mods))]
    for label in labels:
        lines.append(f"{label:<24}" + "".join(f"{fmt(results[m][label]['mean']):>14}" for m in mods))
        if base is not None and len(mods) > 1:
            lines.append(f"{'  module/base':<24}" + "".join(
                f"{results[m][label]['mean'] / base[label]['mean']:>14.2f}" for m in mods))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--modules", nargs="+", default=["base"], choices=MODULE_CHOICES,
                    help="the base game (base, the default) and/or Cities of Splendor modules to measure, each on "
                         "its own positions")
    ap.add_argument("--positions", type=int, default=None, help="positions (default 6; --quick 3)")
    ap.add_argument("--seconds", type=float, default=None, help="per timed search (default 1; --quick 0.2)")
    ap.add_argument("--depths", type=int, nargs="+", default=None, help="fixed expectimax depths (default 1 2 3)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 3 positions, 0.2 s, depths 1 2")
    ap.add_argument("--repeat", type=int, default=1, help="keep the fastest of N runs of each search")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--net", default=None, help="also measure the search with this network (name or path)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    positions = args.positions or (3 if args.quick else 6)
    seconds = args.seconds or (0.2 if args.quick else 1.0)
    depths = args.depths or ([1, 2] if args.quick else [1, 2, 3])
    modules = list(dict.fromkeys(args.modules))
    print(f"splendor_ai search benchmark: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; {args.players} players, {positions} mid-game positions "
          f"(greedy self-play) per module, {seconds:g} s timed searches; best of {args.repeat}", flush=True)
    results, out_positions = {}, {}
    for module in modules:
        views = mid_game_views(args.players, args.seed, positions, module)
        legal = [len(v.legal_moves) for v in views]
        print(f"\n== {args.players} players, {'the base game' if module == 'base' else module} ==\n"
              f"{statistics.mean(legal):.0f} legal whole turns on average", flush=True)
        rows = bench(views, seconds, depths, args.repeat, args.net)
        summary, lines = report(rows, seconds)
        print("\n".join(lines), flush=True)
        results[module] = summary
        out_positions[module] = [v.position() for v in views]
    if len(modules) > 1:
        print(f"\n== mean rates per module ({args.players} players; mcts in it/s, expectimax in nodes/s) ==")
        print("\n".join(comparison(results)))
    if args.json:
        single = len(modules) == 1
        args.json.write_text(json.dumps({"players": args.players, "modules": modules,
                                         "positions": out_positions[modules[0]] if single else out_positions,
                                         "seconds": seconds, "depths": depths, "repeat": args.repeat,
                                         "machine": {"processor": platform.processor(), "cores": os.cpu_count(),
                                                     "python": platform.python_version()},
                                         "results": results[modules[0]] if single else results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

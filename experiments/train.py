"""Train the value and policy network (docs/TRAINING.md). Needs the `train` extra (PyTorch).

    python experiments/train.py selfplay --spec "mcts(iterations=4000)" --games 2000 --out sp.jsonl -j 2
    python experiments/train.py records "experiments/results/**/games.jsonl" --players 3 --out p3.jsonl
    python experiments/train.py reanalyse p3.jsonl --spec "mcts(eval='net',iterations=30000)" --out p3re.jsonl -j 2
    python experiments/train.py fit --data sp.jsonl records:experiments/results/x/games.jsonl --out runs/net0
    python experiments/train.py loop runs/loop2p --generations 10 --start runs/net0/net.npz -j 2
    python experiments/train.py ship runs/net0/net.npz --name net2p-base-1 --default-for 2:base
    python experiments/train.py evaluate net-2p-base-2 runs/net0/net.npz --data test.jsonl

`selfplay` plays games into a self-play file (resumable: the seeds already there are skipped).
`records` collects the finished games of search players (one player count and module, deal seeds
left out on request) from records files into one, training data for `fit` as records:FILE.
`reanalyse` searches every few turns of a records file's games again with a player spec into a
self-play file (resumable), new visit and value targets for `fit` (splendor_ai/train/reanalyse.py).
`fit` trains one network on data files (self-play files, or game records as records:PATH) into a
folder: checkpoint (resumable), history.json, losses.png, held_out.json, net.npz. `ship` adds a network to the package
(splendor_ai/nets: the file, its SHA-256 and check value in index.json, the games it is the
default for); its model card is written beside it. `evaluate` gives networks' value and policy
cross-entropies on fixed data, by kind of game (the outcome as value target), to compare networks
on games none was trained on. `loop` runs generations of self-play, training and gating in a run
folder (resumable; report.md and training.png there). The commands that play games take
`--ray ADDRESS` to play them on a Ray cluster instead of local processes.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import sys
from dataclasses import asdict, fields
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.state import MODULES  # noqa: E402
from splendor_ai.tournament.cli import positive_int  # noqa: E402
from splendor_ai.train.trainer import TrainSettings  # noqa: E402


def _train_args(p: argparse.ArgumentParser, skip=()) -> None:
    for f in fields(TrainSettings):
        if f.name in skip:
            continue
        if isinstance(f.default, bool):
            p.add_argument(f"--{f.name.replace('_', '-')}", action="store_true", default=f.default)
        else:
            p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)


def _train_settings(args) -> TrainSettings:
    return TrainSettings(**{f.name: getattr(args, f.name) for f in fields(TrainSettings) if hasattr(args, f.name)})


def _expand(data: list[str]) -> list[str]:
    out = []
    for d in data:
        prefix, path = ("records:", d[8:]) if d.startswith("records:") else ("", d)
        matches = sorted(glob.glob(path, recursive=True)) or [path]
        out += [prefix + m for m in matches]
    return out


def _share(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not 0 < x <= 1:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], got {text[:30]!r}")
    return x


def _seed_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi if sep else lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a seed or a range LO-HI, got {text[:30]!r}") from None
    if not 0 <= a <= b:
        raise argparse.ArgumentTypeError(f"expected 0 <= LO <= HI, got {text[:30]!r}")
    return a, b


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("selfplay", help="play self-play games into a file")
    sp.add_argument("--spec", required=True)
    sp.add_argument("--players", type=int, default=2)
    sp.add_argument("--module", default=None)
    sp.add_argument("--games", type=int, required=True)
    sp.add_argument("--first-seed", type=int, default=0)
    sp.add_argument("--explore", type=int, default=0)
    sp.add_argument("--out", required=True)
    sp.add_argument("-j", "--jobs", type=positive_int, default=1)
    sp.add_argument("--ray", default=None)
    fit = sub.add_parser("fit", help="train a network on data files")
    fit.add_argument("--data", nargs="+", required=True, help="self-play files, or records:PATH (globs allowed)")
    fit.add_argument("--out", required=True)
    fit.add_argument("--init", default=None, help="start from this network's weights")
    fit.add_argument("--held-out", type=float, default=0.05)
    fit.add_argument("--train-share", type=_share, default=1.0,
                     help="train on this share of the training games only, the held-out ones unchanged (a learning curve)")
    fit.add_argument("--cache", default=None, help="where encoded examples are cached (default OUT/cache)")
    fit.add_argument("-j", "--jobs", type=positive_int, default=1, help="processes encoding the data files not cached yet")
    _train_args(fit)
    lp = sub.add_parser("loop", help="run generations of self-play, training and gating")
    lp.add_argument("run_dir")
    lp.add_argument("--generations", type=int, required=True)
    lp.add_argument("--start", default=None, help="the first best network (default: the classic search)")
    lp.add_argument("--players", type=int, default=2)
    lp.add_argument("--module", default=None)
    lp.add_argument("--games", type=int, default=400)
    lp.add_argument("--sims", type=int, default=1600)
    lp.add_argument("--explore", type=int, default=3)
    lp.add_argument("--window", type=int, default=4)
    lp.add_argument("--extra", nargs="*", default=[], help="data files in every window (records:PATH for records)")
    lp.add_argument("--gate-games", type=int, default=200)
    lp.add_argument("--gate-iterations", type=int, default=1600)
    lp.add_argument("--elo1", type=float, default=25.0)
    lp.add_argument("--seed", type=int, default=0)
    lp.add_argument("-j", "--jobs", type=positive_int, default=1)
    lp.add_argument("--ray", default=None)
    _train_args(lp, skip=("seed",))   # each generation's training seed derives from --seed
    sh = sub.add_parser("ship", help="add a network to the package: splendor_ai/nets/NAME.npz and its index entry")
    sh.add_argument("net", help="the network file (a fit's net.npz)")
    sh.add_argument("--name", required=True)
    sh.add_argument("--default-for", nargs="+", default=[], metavar="PLAYERS:MODULE",
                    help="the games it becomes the default for, e.g. 2:base (base or a module name)")
    sh.add_argument("--data", nargs="+", default=None, help="its training data as the model card describes it")
    rc = sub.add_parser("records", help="collect the finished games of search players in records files into one "
                                       "file (for fit --data records:FILE)")
    rc.add_argument("files", nargs="+", help="records files (globs allowed, ** too)")
    rc.add_argument("--players", type=int, required=True, choices=(2, 3, 4))
    rc.add_argument("--module", default=None, choices=MODULES)
    rc.add_argument("--exclude-seeds", nargs="*", default=[], type=_seed_range, metavar="LO-HI",
                    help="deal seeds to leave out (inclusive ranges): the deals that test the network")
    rc.add_argument("--out", required=True)
    ra = sub.add_parser("reanalyse", help="search positions of recorded games again into a self-play file")
    ra.add_argument("records", help="a records file (e.g. one written by the records command)")
    ra.add_argument("--spec", required=True, help="the searching player")
    ra.add_argument("--every", type=positive_int, default=3, help="search every EVERY-th turn of a game")
    ra.add_argument("--games", type=positive_int, default=None, help="the first GAMES finished games only")
    ra.add_argument("--out", required=True)
    ra.add_argument("-j", "--jobs", type=positive_int, default=1)
    ev = sub.add_parser("evaluate", help="networks' held-out losses on fixed data (the outcome as value target)")
    ev.add_argument("nets", nargs="+", help="network files or shipped names")
    ev.add_argument("--data", nargs="+", required=True, help="self-play files, or records:PATH (globs allowed)")
    ev.add_argument("--cache", default=None, help="where encoded examples are cached (default: none kept)")
    args = ap.parse_args(argv)

    if args.cmd == "selfplay":
        from splendor_ai.train.selfplay import SelfPlayJob, run
        job = SelfPlayJob(args.spec, args.players, args.module, explore=args.explore)
        n = run(job, list(range(args.first_seed, args.first_seed + args.games)), args.out, jobs=args.jobs, ray=args.ray)
        print(f"{n} games played into {args.out}")
    elif args.cmd == "fit":
        from splendor_ai.players.network import read_network, save_network
        from splendor_ai.train.loop import _examples
        from splendor_ai.train.trainer import describe, evaluate_by_kind, plot_history, split_by_game, train
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        files = _expand(args.data)
        ex = _examples(files, Path(args.cache) if args.cache else out / "cache", jobs=args.jobs)
        tr, va = split_by_game(ex, args.held_out, train_share=args.train_share)
        print(f"{len(tr)} training positions, {len(va)} held out, from {len(files)} files")
        settings = _train_settings(args)
        init = read_network(args.init)[0] if args.init else None
        model, hist = train(ex, tr, va, settings, out, init=init)
        by_kind = evaluate_by_kind(model, ex, va, settings)
        (out / "held_out.json").write_text(json.dumps(by_kind, indent=1))
        for kind, v in by_kind.items():
            print(f"held out {kind:>16}: {describe(v)}")
        meta = {"name": out.name, "data": files, "positions": int(len(tr)), "settings": asdict(settings),
                "final": hist[-1] if hist else None, "held_out": by_kind}
        if hist:
            plot_history(hist, out / "losses.png")
        digest = save_network(out / "net.npz", model.export(), meta)
        print(json.dumps(hist[-1] if hist else {}), f"\nnet.npz sha256 {digest}")
    elif args.cmd == "records":
        from splendor_ai.errors import RecordError
        from splendor_ai.train.dataset import select_records
        files = _expand(args.files)
        missing = [f for f in files if not Path(f).is_file()]
        if missing:
            ap.error(f"no such records file: {', '.join(missing)[:200]}")
        out = Path(args.out)
        if out.resolve() in {Path(f).resolve() for f in files}:
            ap.error(f"--out {args.out} is one of the files read")
        tmp = out.with_name(out.name + ".part")
        n = 0
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                for rec in select_records(files, args.players, args.module, tuple(args.exclude_seeds)):
                    f.write(rec.to_line() + "\n")
                    n += 1
        except (RecordError, OSError) as e:
            tmp.unlink(missing_ok=True)
            ap.error(str(e)[:300])
        tmp.replace(out)   # a whole file or none: the old one stays if this fails
        print(f"{n} games from {len(files)} files into {out}")
    elif args.cmd == "reanalyse":
        from splendor_ai.players import make_player
        from splendor_ai.train.reanalyse import ReanalyseJob, run as reanalyse
        if not Path(args.records).is_file():
            ap.error(f"no such records file: {args.records[:200]}")
        if Path(args.out).resolve() == Path(args.records).resolve():
            ap.error(f"--out {args.out} is the records file read")
        try:
            make_player(args.spec).close()   # a bad spec fails here, before any game
            n = reanalyse(ReanalyseJob(args.spec, args.every), args.records, args.out, args.games, args.jobs)
        except ValueError as e:   # the toolkit's input errors (a spec, a record) are ValueErrors
            ap.error(str(e)[:300])
        print(f"{n} games reanalysed into {args.out}")
    elif args.cmd == "evaluate":
        import tempfile

        import numpy as np
        from splendor_ai.errors import ConfigError
        from splendor_ai.players.network import load_network, network_file, read_network
        from splendor_ai.train.loop import _examples
        from splendor_ai.train.model import Net
        from splendor_ai.train.trainer import TrainSettings, describe, evaluate_by_kind, load_arrays
        nets = {}
        try:    # every network checked (shapes too, by loading it) before the data is encoded
            for name in args.nets:
                load_network(name)
                nets[name] = read_network(network_file(name))[0]
        except ConfigError as e:
            ap.error(str(e))
        files = _expand(args.data)
        missing = [f for f in files if not Path(f.removeprefix("records:")).is_file()]
        if missing:
            ap.error(f"no such data file: {', '.join(missing)[:200]}")
        with tempfile.TemporaryDirectory() as tmp:
            ex = _examples(files, Path(args.cache or tmp))
        if not len(ex):
            ap.error(f"no positions in --data {' '.join(args.data)[:200]}")
        rows = np.arange(len(ex), dtype=np.int64)
        for name, arrays in nets.items():
            model = Net.of(arrays)
            load_arrays(model, arrays)
            for kind, v in evaluate_by_kind(model, ex, rows, TrainSettings()).items():
                print(f"{name} {kind}: {describe(v)}")
    elif args.cmd == "ship":
        from splendor_ai.train.ship import ship
        default_for: dict[str, list[int]] = {}
        for kind in args.default_for:
            players, _, module = kind.partition(":")
            default_for.setdefault(module or "base", []).append(int(players))
        entry = ship(args.net, args.name, default_for, data=args.data)
        print(json.dumps(entry, indent=1))
    else:
        from splendor_ai.train.loop import LoopSettings, run_loop
        settings = LoopSettings(players=args.players, module=args.module, games=args.games, sims=args.sims,
                                explore=args.explore, window=args.window, extra=tuple(_expand(args.extra)),
                                train=_train_settings(args), gate_games=args.gate_games,
                                gate_iterations=args.gate_iterations, elo1=args.elo1, seed=args.seed)
        state = run_loop(args.run_dir, settings, args.generations, start=args.start, jobs=args.jobs, ray=args.ray)
        print(f"best network: {state['best']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The training loop: generations of self-play -> train -> export -> gate -> promote (AlphaZero /
Expert Iteration, staged like KataGo's), each stage resumable, in one run folder:

    run.json               the settings (a run continues only with the same ones)
    state.json             the generation under way, the best network so far, the history
    selfplay/genNNN.jsonl  the self-play games of generation NNN, played by the best network then
    cache/                 the encoded examples of every data file (rebuilt when the encoder changes)
    train/genNNN/          the trainer's checkpoint and loss history
    nets/genNNN.npz        the candidate of generation NNN (splendor-net/1)
    gates/genNNN.jsonl     its gating games against the best
    report.md, *.png       the figures (losses, gating Elo per generation, strength vs wall-clock)

Generation 0 starts from `start` (a network file, or nothing: the classic search plays the first
self-play games and the network is trained from scratch). Every stage writes its output atomically or
appends whole records, and state.json moves on only after a stage is complete, so a run killed at any
point continues where it stopped when started again with the same folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from . import selfplay
from .dataset import Examples, cached
from .gate import gate
from .trainer import TrainSettings, split_by_game, train


@dataclass(frozen=True)
class LoopSettings:
    players: int = 2
    module: str | None = None
    games: int = 400            # self-play games per generation
    sims: int = 1600            # search iterations per self-play move
    explore: int = 3            # self-play rounds with moves drawn by visits
    window: int = 4             # generations of self-play in each training window
    extra: tuple[str, ...] = () # data files always in the window: self-play (.jsonl) or records (records:PATH)
    train: TrainSettings = field(default_factory=TrainSettings)
    gate_games: int = 200
    gate_iterations: int = 1600
    elo1: float = 25.0
    seed: int = 0

    @staticmethod
    def from_json(obj: dict) -> "LoopSettings":
        obj = dict(obj)
        obj["train"] = TrainSettings(**obj.get("train", {}))
        obj["extra"] = tuple(obj.get("extra", ()))
        return LoopSettings(**obj)


def player_spec(net: str | None, iterations: int) -> str:
    """The search of a generation: the network's, or the classic one before any network."""
    if net is None:
        return f"mcts(iterations={iterations},eval='classic')"
    return f"mcts(iterations={iterations},eval='net',net='{net}')"


def _write_json(path: Path, obj) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    os.replace(tmp, path)


def cache_folder(cache_dir: Path, path) -> Path:
    """Where the examples of a data file are cached: one folder per file, named by its absolute path,
    so every run that uses the file shares them."""
    return Path(cache_dir) / hashlib.sha1(str(Path(path).resolve()).encode()).hexdigest()[:16]


def _cache_one(kind: str, path: str, folder: Path) -> None:
    """Encode one file into its cache in a worker; nothing is sent back (the parent reads the cache)."""
    cached(path, kind, folder)


def _examples(files: list[str], cache_dir: Path, jobs: int = 1) -> Examples:
    """The examples of `files` (self-play files, or records:PATH), each from its cache; with
    `jobs` > 1 the files without a cache are encoded on that many processes first (on a new machine
    encoding the repository's records takes several times as long as a training run)."""
    sources = []
    for i, f in enumerate(files):
        kind, path = ("records", f[len("records:"):]) if f.startswith("records:") else ("selfplay", f)
        if Path(path).exists():
            sources.append((i, kind, path, cache_folder(cache_dir, path)))
    if jobs > 1 and len(sources) > 1:
        import concurrent.futures as cf
        with cf.ProcessPoolExecutor(jobs) as pool:
            for fut in [pool.submit(_cache_one, *src[1:]) for src in sources]:
                fut.result()
    parts = []
    for i, kind, path, folder in sources:
        ex = cached(path, kind, folder)
        ex.game = ex.game.astype(np.int64) + i * 10_000_000   # games of different files stay apart
        parts.append(ex)
    return Examples.concat(parts)


def run_loop(run_dir, settings: LoopSettings, generations: int, start: str | None = None, jobs: int = 1,
             ray: str | None = None, progress: bool = True, log=print) -> dict:
    """Run (or continue) the loop until `generations` generations are done; returns state.json's content."""
    from ..players.network import save_network

    run_dir = Path(run_dir)
    for sub in ("selfplay", "cache", "train", "nets", "gates"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    settings_json = json.loads(json.dumps(asdict(settings)))
    run_json = run_dir / "run.json"
    if run_json.exists():
        saved = json.loads(run_json.read_text())
        if saved != settings_json:
            raise ValueError(f"{run_json}: this folder holds a run of other settings; use another folder")
    else:
        _write_json(run_json, settings_json)
    state_path = run_dir / "state.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {
        "generation": 0, "best": start and str(Path(start).resolve()), "history": [], "seconds": 0.0}
    while state["generation"] < generations:
        g = state["generation"]
        t0 = time.time()
        best = state["best"]
        tag = f"gen{g:03d}"
        # 1. self-play by the best network
        sp_path = run_dir / "selfplay" / f"{tag}.jsonl"
        job = selfplay.SelfPlayJob(player_spec(best, settings.sims), settings.players, settings.module,
                                   explore=settings.explore)
        seeds = list(range(settings.seed * 10_000_000 + g * settings.games,
                           settings.seed * 10_000_000 + (g + 1) * settings.games))
        log(f"{tag}: self-play, {settings.games} games of {job.spec}")
        selfplay.run(job, seeds, sp_path, jobs=jobs, ray=ray, progress=progress)
        t0 = _count_time(state, state_path, t0)
        # 2. train on the window, from the best network's weights
        net_path = run_dir / "nets" / f"{tag}.npz"
        if not net_path.exists():
            window = [str(run_dir / "selfplay" / f"gen{k:03d}.jsonl") for k in range(max(0, g - settings.window + 1), g + 1)]
            ex = _examples(list(settings.extra) + window, run_dir / "cache", jobs=jobs)
            tr, va = split_by_game(ex, 0.05, seed=g)
            log(f"{tag}: training on {len(tr)} positions ({len(va)} held out)")
            init = None
            if best is not None:
                from ..players.network import read_network
                arrays, _ = read_network(best)
                if arrays["w1"].shape[1] == settings.train.h1 and arrays["w2"].shape[1] == settings.train.h2:
                    init = arrays
            model, hist = train(ex, tr, va, replace(settings.train, seed=settings.seed * 1000 + g),
                                run_dir / "train" / tag, init=init, progress=progress)
            save_network(net_path, model.export(), {"name": f"{run_dir.name}-{tag}", "generation": g,
                                                    "players": settings.players, "module": settings.module,
                                                    "positions": int(len(tr)), "final": hist[-1] if hist else None})
            t0 = _count_time(state, state_path, t0)
        # 3. gate against the best
        cand = str(net_path.resolve())
        log(f"{tag}: gating against {best or 'the classic search'}")
        res = gate(player_spec(cand, settings.gate_iterations), player_spec(best, settings.gate_iterations),
                   run_dir / "gates" / f"{tag}.jsonl", players=settings.players, module=settings.module,
                   max_games=settings.gate_games, elo1=settings.elo1, seed=1000 + g, jobs=jobs, ray=ray,
                   progress=progress)
        hist_path = run_dir / "train" / tag / "history.json"
        losses = json.loads(hist_path.read_text())[-1] if hist_path.exists() else None
        from ..players.network import read_network
        positions = read_network(net_path)[1].get("positions")
        state["seconds"] += time.time() - t0
        state["history"].append({"generation": g, "candidate": cand, "best_before": best, "gate": res,
                                 "losses": losses, "positions": positions, "hours": round(state["seconds"] / 3600, 3)})
        if res["accept"]:
            state["best"] = cand
        log(f"{tag}: {'accepted' if res['accept'] else 'rejected'} ({gate_text(res)})")
        state["generation"] = g + 1
        _write_json(state_path, state)
        write_report(run_dir, state)
    return state


def _count_time(state: dict, state_path: Path, t0: float) -> float:
    """Add the time since `t0` to the run's hours and save it, so that a stage finished before an
    interruption still counts in the strength-against-wall-clock figure; returns the new start."""
    now = time.time()
    state["seconds"] += now - t0
    _write_json(state_path, state)
    return now


def gate_text(gt: dict) -> str:
    """A gate's result in words: W-D-L and Elo at 2 players, the candidate's win share against
    copies of the best at 3-4 players (where a gate has no W-D-L)."""
    from ..tournament.stats import elo_json
    if gt.get("players", 2) > 2:
        lo, hi = gt.get("score_95") or [None, None]
        if gt.get("score") is None:
            return "no games"
        return (f"{gt['games']} games, share {100 * gt['score']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}], "
                f"level {100 * gt['level']:.1f}%")
    e95 = gt.get("elo_95") or [None, None]
    return (f"{gt.get('wins')}-{gt.get('draws')}-{gt.get('losses')}, Elo {elo_json(gt.get('elo'))} "
            f"[{elo_json(e95[0])}, {elo_json(e95[1])}]")


def write_report(run_dir, state: dict) -> None:
    """report.md and plots of a run folder: losses, gating Elo per generation, strength vs hours."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    hist = state["history"]
    if not hist:
        return
    gens = [h["generation"] for h in hist]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    vl = [h["losses"].get("val_value") if h["losses"] else None for h in hist]
    pl = [h["losses"].get("val_policy") if h["losses"] else None for h in hist]
    ax[0].plot(gens, vl, "o-", label="value (held out)")
    ax[0].plot(gens, pl, "s-", label="policy (held out)")
    ax[0].set_xlabel("generation")
    ax[0].set_title("losses")
    ax[0].legend()
    multi = any(h["gate"].get("players", 2) > 2 for h in hist)
    if multi:   # 3-4 players: the candidate's win share against copies of the best, and its level
        points = [None if h["gate"].get("score") is None else 100 * h["gate"]["score"] for h in hist]
        lo = [100 * (h["gate"].get("score_95") or [np.nan, np.nan])[0] for h in hist]
        hi = [100 * (h["gate"].get("score_95") or [np.nan, np.nan])[1] for h in hist]
        level = 100 * hist[0]["gate"].get("level", 0.0)
    else:
        points = [h["gate"].get("elo") for h in hist]
        lo = [h["gate"].get("elo_95", [None, None])[0] for h in hist]
        hi = [h["gate"].get("elo_95", [None, None])[1] for h in hist]
        level = 0.0
    ok = [i for i, e in enumerate(points) if e is not None and lo[i] is not None and np.isfinite(lo[i]) and np.isfinite(hi[i])]
    if ok:
        ax[1].errorbar([gens[i] for i in ok], [points[i] for i in ok],
                       yerr=[[points[i] - lo[i] for i in ok], [hi[i] - points[i] for i in ok]], fmt="o", capsize=3)
    ax[1].axhline(level, color="grey", lw=0.5)
    ax[1].set_xlabel("generation")
    ax[1].set_title("candidate's win share vs copies of the best (%, 95%)" if multi else "candidate vs best (Elo, 95%)")
    total, xs, ys = 0.0, [0.0], [0.0]
    for h in hist:
        if multi:   # a 3-4 player gate has a win share, no Elo: count the accepted generations
            total += 1.0 if h["gate"].get("accept") else 0.0
        elif h["gate"].get("accept") and h["gate"].get("elo") is not None and np.isfinite(h["gate"]["elo"]):
            total += h["gate"]["elo"]
        xs.append(h["hours"])
        ys.append(total)
    ax[2].step(xs, ys, where="post")
    pad = 1 if multi else 10     # a whole unit, not a hair's breadth, when no gate accepted
    ax[2].set_ylim(min(ys) - pad, max(ys) + pad)
    ax[2].set_xlabel("hours")
    ax[2].set_title("generations accepted" if multi else "Elo over the first best (sum of accepted gates)")
    from matplotlib.ticker import MaxNLocator
    for a in ax[:2]:
        a.xaxis.set_major_locator(MaxNLocator(integer=True))   # generations are whole numbers
    fig.tight_layout()
    fig.savefig(run_dir / "training.png", dpi=90)
    plt.close(fig)
    rows = ["| gen | positions | value loss | policy loss | gate | accepted | hours |",
            "|---|---|---|---|---|---|---|"]
    for h in hist:
        gt = h["gate"]
        rows.append(f"| {h['generation']} | {h.get('positions', '')} | {_f(h['losses'], 'val_value')} | {_f(h['losses'], 'val_policy')} | "
                    f"{gate_text(gt)} | {'yes' if gt.get('accept') else 'no'} | {h['hours']} |")
    settings = json.loads((run_dir / "run.json").read_text())
    text = [f"# Training run `{run_dir.name}`", "",
            f"Settings (run.json): {json.dumps(settings)}", "",
            f"Best network: `{state['best']}`", "", *rows, "", "![training](training.png)", ""]
    (run_dir / "report.md").write_text("\n".join(text))


def _f(d, k):
    return "" if not d or d.get(k) is None else f"{d[k]:.4f}"

"""Self-play games that become training data: every decision's position, the search's visit counts
over context-free action keys and its value estimates, and the game's outcome.

One game is one JSON line (format `splendor-selfplay/1`, docs/TRAINING.md):

    {"format": "splendor-selfplay/1", "seed": 17, "spec": "mcts(iterations=8000)", "players": 2,
     "module": null, "start": "SPN1 2 ...", "moves": ["+wbg", ...], "result": {...}, "target": [1.0, 0.0],
     "seconds": 21.3, "samples": [{"turn": 0, "pre": [], "seat": 0, "keys": [0, 3, ...],
     "visits": [812, 40, ...], "q": [0.55, 0.45]}, ...]}

A sample is the position at the start of turn `turn` (replay `moves[:turn]` from `start`) followed by
the engine actions `pre` of the mover's turn so far (empty at the main action; a token return, a noble,
a module decision come after their prefix), the seat to move, the visits of the search's children there
(keys with visits > 0, best first) and the search's mean result of every seat there (`q`). `target` is the
game's outcome per seat: a winner's share of 1 (ties share it), 1/n each when nobody won (the safety cap,
a stalemate). Positions are the true state: the encoder reads only what the mover may know
(`splendor_ai._features`), and the search that made the counts saw only the mover's view.

The generator plays the games of seeds not yet in the output file (resume after any interruption: the
file is appended one whole line per game by the main process only, a torn last line is cut), on local
worker processes or on Ray.
"""
from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass
from typing import Iterator

from ..players import make_player
from ..state import Config, State

FORMAT = "splendor-selfplay/1"


@dataclass(frozen=True)
class SelfPlayJob:
    """What every game of a self-play run shares; a game is this plus its seed."""

    spec: str                  # the player of every seat
    players: int = 2
    module: str | None = None
    explore: int = 0           # the first `explore` rounds: each move drawn in proportion to the
                               # visits of the root moves (a greedy choice after), for varied games

    def config(self) -> Config:
        return Config(self.players, modules=(self.module,) if self.module else ())


def outcome_target(result, players: int) -> list[float]:
    """The value target of a finished game: winners share 1; nobody won: 1/n each."""
    if result is None or not result.winners:
        return [1.0 / players] * players
    share = 1.0 / len(result.winners)
    return [share if s in result.winners else 0.0 for s in range(players)]


def _stats(children, players: int, legal: set[int] | None):
    kids = [(k, v, w) for k, v, w, *_ in children if v > 0 and (legal is None or k in legal)]
    kids.sort(key=lambda x: -x[1])
    total = sum(v for _, v, _ in kids)
    q = [round(sum(w[s] for _, _, w in kids) / total, 4) for s in range(players)] if total else None
    return [k for k, _, _ in kids], [v for _, v, _ in kids], q


def decision_samples(search, core, actions, turn: int, seat: int, players: int) -> list[dict]:
    """The samples of one decision: the root's visits and values of `search` (an MCTSSearch, None
    for a player without one) at `core`, the position at turn `turn` with `seat` to move, when
    it has a choice, then the visits below the root along `actions` (the engine actions of the
    move taken: its token returns, noble and module decisions) where those had a choice and 8
    visits or more."""
    if search is None:
        return []
    out = []
    tree = search.trees[0]
    legal = {core.action_key(a) for a in core.legal_actions()}
    keys, visits, q = _stats(tree.root_stats(), players, legal)
    if len(legal) > 1 and keys:
        out.append({"turn": turn, "pre": [], "seat": seat, "keys": keys, "visits": visits, "q": q})
    core = core.copy()
    path = []
    for i, a in enumerate(actions[:-1]):
        path.append(core.action_key(a))
        core.apply(a)
        legal = {core.action_key(b) for b in core.legal_actions()}
        if len(legal) < 2:
            continue
        keys, visits, q = _stats(tree.children(path), players, legal)
        if keys and sum(visits) >= 8:
            out.append({"turn": turn, "pre": list(actions[:i + 1]), "seat": seat, "keys": keys,
                        "visits": visits, "q": q})
    return out


def play_game(job: SelfPlayJob, seed: int) -> dict:
    """One self-play game; returns its JSON object (see the module docstring)."""
    t0 = time.perf_counter()
    config = job.config()
    state = State.new(job.players, seed=seed, first_player=seed % job.players, config=config)
    start = state.position()
    seats = [make_player(job.spec, seed=(seed * 7919 + s) % 2 ** 63) for s in range(job.players)]
    samples: list[dict] = []
    moves: list[str] = []
    while not state.is_over():
        seat = state.to_move
        view = state.view(seat)
        decision = seats[seat].choose(view)
        move = decision.move
        if len(moves) < job.explore * job.players and len(decision.info.moves) > 1:
            infos = [m for m in decision.info.moves if m.visits > 0]
            if infos:
                rng = random.Random(seed * 1000003 + len(moves))
                move = rng.choices([m.move for m in infos], weights=[m.visits for m in infos])[0]
        actions = view.legal_moves._table[move]
        samples += decision_samples(getattr(seats[seat], "last_search", None), state._core, actions,
                                    len(moves), seat, job.players)
        played = state.push(move)
        moves.append(str(played))
        for p in seats:
            p.observe(played)
    for p in seats:
        p.close()
    result = state.result()
    return {"format": FORMAT, "seed": seed, "spec": job.spec, "players": job.players, "module": job.module,
            "start": start, "moves": moves, "result": result.to_json() if result else None,
            "target": outcome_target(result, job.players), "seconds": round(time.perf_counter() - t0, 3),
            "samples": samples}


def read_games(path) -> Iterator[dict]:
    """The games of a self-play file, in file order; a torn or corrupt last line is skipped (a
    writer killed mid-line), a corrupt line elsewhere raises ValueError naming it."""
    if not os.path.exists(path):
        return
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    for i, line in enumerate(lines[:last + 1]):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if obj.get("format") != FORMAT:
                raise ValueError(f"format {obj.get('format')!r}, expected {FORMAT!r}")
        except (ValueError, UnicodeDecodeError) as e:
            if i == last:
                return
            raise ValueError(f"{path}: line {i + 1}: {e}") from None
        yield obj


def _cut_torn_tail(path) -> None:
    """Drop a last line without its newline (a writer killed mid-line), so appends stay whole lines."""
    if not os.path.exists(path):
        return
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def run(job: SelfPlayJob, seeds: list[int], path, jobs: int = 1, ray: str | None = None,
        progress: bool = True) -> int:
    """Play the games of `seeds` that `path` does not hold yet, appending each as it ends; returns
    how many were played. Interrupt it any time and run it again to go on."""
    from tqdm import tqdm

    _cut_torn_tail(path)
    done = {g["seed"] for g in read_games(path) if g["spec"] == job.spec and g["players"] == job.players
            and g["module"] == job.module}
    todo = [s for s in seeds if s not in done]
    bar = tqdm(total=len(todo), desc=f"self-play {job.spec}", unit="game", disable=not progress, smoothing=0.05)
    played = 0
    with open(path, "ab") as out:
        for game in _execute(job, todo, jobs, ray):
            out.write(json.dumps(game, separators=(",", ":")).encode() + b"\n")
            out.flush()
            os.fsync(out.fileno())
            played += 1
            bar.update(1)
    bar.close()
    return played


def _execute(job: SelfPlayJob, seeds: list[int], jobs: int, ray: str | None):
    """The games of `seeds`, as they finish, on `jobs` local processes or on a Ray cluster."""
    if ray:
        import ray as _ray
        if not _ray.is_initialized():
            _ray.init(address=None if ray == "local" else ray, log_to_driver=False)
        task = _ray.remote(play_game)
        refs = [task.remote(job, s) for s in seeds]
        while refs:
            ready, refs = _ray.wait(refs, num_returns=1)
            yield _ray.get(ready[0])
        return
    if jobs <= 1:
        for s in seeds:
            yield play_game(job, s)
        return
    import concurrent.futures as cf
    with cf.ProcessPoolExecutor(jobs) as pool:
        pending = set()
        it = iter(seeds)
        for s in it:
            pending.add(pool.submit(play_game, job, s))
            if len(pending) >= 2 * jobs:
                break
        while pending:
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for f in done:
                yield f.result()
                nxt = next(it, None)
                if nxt is not None:
                    pending.add(pool.submit(play_game, job, nxt))

"""Reanalysis: new search targets for the positions of finished games (MuZero's "Reanalyse").

A self-play game teaches the network what its own search saw at the self-play budget. Reanalysis
searches positions of recorded games again, with any player spec at any budget (the default
network search at full time, say), so that a network can learn the visits and values of a deeper
or stronger search than the one that played the games, on positions of games between strong
players, at the price of one search per position rather than of whole games.

The output is a self-play file (format `splendor-selfplay/1`, splendor_ai.train.selfplay) with one
line per reanalysed game: the record's start, moves and outcome, and the samples of the positions
searched again (every `every`-th turn of the game, the first at turn `index % every` so that the
games of a file cover every phase; a searched turn also gives the decisions below the root along
the move the search chose: its token returns, noble, module decisions). The search sees the
mover's view only, as in self-play. A line's `seed` is the game's index in the records file (the
deal seed is kept as `deal`, the spacing as `every`), so a run interrupted at any point goes on
with the games of its spec and spacing not yet in the output.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterator

from ..players import make_player
from ..records import GameRecord, read_records
from ..state import State
from .selfplay import FORMAT, _cut_torn_tail, decision_samples, outcome_target, read_games


@dataclass(frozen=True)
class ReanalyseJob:
    """What every reanalysed game shares; a game is this plus its record and index."""

    spec: str        # the searching player
    every: int = 3   # search every `every`-th turn of a game


def reanalyse_game(job: ReanalyseJob, index: int, rec: GameRecord) -> dict:
    """The self-play line of record `rec` (the `index`-th of its file) with new samples."""
    state = State(rec.start)
    players = state.players
    module = rec.config.module
    samples: list[dict] = []
    for turn, text in enumerate(rec.moves):
        if turn % job.every == index % job.every and not state.is_over():
            seat = state.to_move
            view = state.view(seat)
            player = make_player(job.spec, seed=(index * 7919 + turn) % 2 ** 63)
            try:
                move = player.choose(view).move
                actions = view.legal_moves._table[move]
                samples += decision_samples(getattr(player, "last_search", None), state._core, actions,
                                            turn, seat, players)
            finally:
                player.close()
        state.push(text)
    return {"format": FORMAT, "seed": index, "deal": rec.seed, "spec": job.spec, "every": job.every,
            "players": players, "module": module, "start": rec.start, "moves": list(rec.moves),
            "result": rec.result.to_json() if rec.result else None,
            "target": outcome_target(rec.result, players), "samples": samples}


def _work(args: tuple[ReanalyseJob, int, str]) -> dict:
    job, index, line = args
    return reanalyse_game(job, index, GameRecord.from_line(line))


def run(job: ReanalyseJob, records_path, out_path, games: int | None = None, jobs: int = 1,
        progress: bool = True) -> int:
    """Reanalyse the finished games of `records_path` (the first `games` of them, all if None)
    that `out_path` does not hold yet, appending each as it ends; returns how many were done."""
    from tqdm import tqdm

    _cut_torn_tail(out_path)
    done = {g["seed"] for g in read_games(out_path) if g["spec"] == job.spec and g.get("every") == job.every}
    todo = [(i, r.to_line()) for i, r in enumerate(_finished(records_path, games)) if i not in done]
    bar = tqdm(total=len(todo), desc=f"reanalyse {job.spec}", unit="game", disable=not progress, smoothing=0.05)
    n = 0
    with open(out_path, "ab") as out:
        for game in _execute(job, todo, jobs):
            out.write(json.dumps(game, separators=(",", ":")).encode() + b"\n")
            out.flush()
            n += 1
            bar.update(1)
    bar.close()
    return n


def _finished(path, games: int | None) -> Iterator[GameRecord]:
    n = 0
    for rec in read_records(path):
        if games is not None and n >= games:
            return
        if rec.result is not None:
            n += 1
            yield rec


def _execute(job: ReanalyseJob, todo: list[tuple[int, str]], jobs: int):
    if jobs <= 1:
        for i, line in todo:
            yield _work((job, i, line))
        return
    import concurrent.futures as cf
    with cf.ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(_work, [(job, i, line) for i, line in todo], chunksize=1)

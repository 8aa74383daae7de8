"""What a human seat receives during a live game is a function of that seat's view alone, through
every interface: twin games with the same view of seat 0 but other hidden cards (the decks'
order, the other seats' blind reserves, the deal seed) give byte-identical answers (timing aside)
from the engine protocol (analyses, hints, progress reports), the terminal game (the board, the
move list, hints, illegal-move explanations) and the web API while an AI seat thinks. The web
API's other answers are compared in tests/test_web_hidden.py.

Twins come from `redeal_unseen` (splendor_ai.interfaces.web.games): the game's decks dealt again
behind the cards seen, and the cards the opponents reserved blind exchanged for unseen ones.
"""
from __future__ import annotations

import io
import json
import random
import re
import sys
import time
import warnings

import pytest

from splendor_ai import State
from splendor_ai.analysis import analyse
from splendor_ai.interfaces.protocol import serve
from splendor_ai.interfaces.web.games import redeal_unseen
from splendor_ai.players import Limit
from splendor_ai.records import GameRecord, save_record
from splendor_ai.state import Config

AI = "mcts(iterations=30)"


def twins(players: int, module: str | None, seed: int, plies: int) -> tuple[State, State]:
    """A game where every seat but 0 reserves blind whenever it can (and seat 0 never does), and
    its twin: the same game as seat 0 saw it, with other cards in the decks and in the blind
    reserves. Seat 0 is to move at the end."""
    config = Config(players=players, modules=(module,) if module else ())
    st = State.new(players, seed=seed, config=config)
    rng = random.Random(seed)
    while len(st.move_stack) < plies or st.to_move != 0:
        moves = [str(m) for m in st.legal_moves]
        blind = [m for m in moves if m.startswith(("rL", "rO"))]
        plain = [m for m in moves if not m.startswith(("rL", "rO", "b"))] or moves
        st.push(rng.choice(blind) if blind and st.to_move != 0 else rng.choice(plain))
    assert not st.is_over()
    hidden = {c for s in range(1, players) for c, b in zip(st.seats[s].reserved, st.seats[s].reserved_blind) if b}
    assert hidden, "the opponents reserved nothing blind"
    rec = GameRecord.from_state(st, seed=seed, players=["human"] + [AI] * (players - 1))
    twin = redeal_unseen(rec, random.Random(seed + 1), vary=hidden)
    assert twin.view(0) == st.view(0)
    assert twin.position() != st.position()
    for s in range(1, players):
        assert twin.seats[s].reserved != st.seats[s].reserved
    return st, twin


CASES = [(2, None, 5, 8), (3, None, 11, 9), (3, "orient", 4, 9), (2, "strongholds", 8, 10), (4, "cities", 2, 12)]


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}p-{c[1] or 'base'}")
def pair(request):
    return twins(*request.param)


# -- the engine protocol -------------------------------------------------------------------------------

def _engine(requests: list[dict]) -> list[dict]:
    out = io.StringIO()
    serve(io.StringIO("".join(json.dumps(r) + "\n" for r in requests)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _untimed(answer: dict) -> str:
    answer = json.loads(json.dumps(answer))
    answer.pop("id", None)
    for part in (answer.get("rootInfo"), answer.get("runnerUp")):
        if isinstance(part, dict):
            part.pop("seconds", None)
    return json.dumps(answer, sort_keys=True)


def _requests(st: State) -> list[dict]:
    rec = GameRecord.from_state(st, seed=None, players=["human"] + [AI] * (st.players - 1))
    common = {"seat": 0, "limit": {"iterations": 300}, "topK": 4, "seed": 9}
    start = State(rec.start)
    return [{"id": "position", "position": st.position(), **common},
            {"id": "json", "position": st.to_json(), **common},
            {"id": "record", "record": rec.to_line(), **common},
            {"id": "start", "position": start.position(), "moves": rec.moves, **common},
            # part-way through: the position before seat 0's previous move, and after the next seat's
            {"id": "earlier", "record": rec.to_json(), "turn": len(rec.moves) - st.players, **common},
            {"id": "later", "record": rec.to_json(), "turn": len(rec.moves) - st.players + 1, **common},
            {"id": "hint", "action": "hint", "position": st.position(), **common},
            {"id": "view", "position": st.view(0).position(), **common}]


def test_engine_analyses_and_hints_of_twins_are_identical(pair):
    st, twin = pair
    answers = [_engine(_requests(game)) for game in pair]
    for a, b in zip(*answers, strict=True):
        assert "error" not in a, a
        assert a["id"] == b["id"] and _untimed(a) == _untimed(b), a["id"]
    # and what was searched is the view: the analysis of the view itself
    direct = analyse(st.view(0), Limit(iterations=300), top_k=4, seed=9).to_json()
    assert _untimed(answers[0][0]) == _untimed(direct)
    assert _untimed(answers[1][-1]) == _untimed(direct)


def test_engine_progress_reports_are_the_views_search_so_far():
    """Progress reports come at wall-clock times, so the twins' reports fall at other iteration
    counts; each one must be the analysis of seat 0's view after that many iterations (with
    sequential halving off, a search continued in chunks is the search of that many iterations)."""
    st, twin = twins(2, None, 5, 8)
    spec = "mcts(halving=0)"
    reports = []
    for game in (st, twin):
        # (long enough to report a few times even on a fast machine: 0.25 s at 240,000 iterations/s)
        answers = _engine([{"id": 1, "position": game.position(), "seat": 0, "limit": {"iterations": 60000},
                            "topK": 3, "seed": 2, "spec": spec, "reportEvery": 0.05}])
        assert answers[-1]["isDuringSearch"] is False and all(a["isDuringSearch"] for a in answers[:-1])
        assert len(answers) > 1, "no progress was reported"
        progress = answers[:-1]
        reports += [progress[0], progress[len(progress) // 2], answers[-1]]
    view = st.view(0)
    for r in reports:
        done = analyse(view, Limit(iterations=r["rootInfo"]["iterations"]), top_k=3, seed=2, spec=spec).to_json()
        r = dict(r, isDuringSearch=False)
        assert _untimed(r) == _untimed(done), r["rootInfo"]["iterations"]


# -- the terminal game ------------------------------------------------------------------------------------

def _play(monkeypatch, capsys, args: list[str], lines: list[str]) -> str:
    from splendor_ai.interfaces.cli import main
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(x + "\n" for x in lines)))
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["play", *args]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    out = re.sub(r"\[\d+\.\d s\]", "[time]", out)                   # a hint's search time
    return out.rsplit("The game (", 1)[0]                             # the autosave's file name


def test_the_terminal_shows_twins_alike(monkeypatch, capsys, tmp_path, pair):
    """A game loaded from a record, the human (seat 0) to move, the AI seats holding blind
    reserves: the board, the move list, a hint, explanations of illegal moves and help print the
    same for both twins (their records even carry other deal seeds)."""
    st, twin = pair
    hidden = [c for s in range(1, st.players) for c in st.seats[s].reserved]
    script = ["board", "moves", "hint", f"b{hidden[0]}", f"r{hidden[0]}", "+ww/-kk", "pass", "rL9", "help", "quit"]
    outs = []
    for i, game in enumerate(pair):
        path = tmp_path / f"twin{i}.jsonl"
        save_record(path, GameRecord.from_state(game, seed=100 + i, players=["human"] + [AI] * (game.players - 1)))
        outs.append(_play(monkeypatch, capsys, ["--load", str(path), "--hint", AI], script)
                    .replace(str(path), "<file>"))
    assert "Hint: " in outs[0] and "Illegal move" in outs[0] and "Player 1, your move>" in outs[0]
    assert outs[0] == outs[1]


# -- the web API while an AI seat thinks ---------------------------------------------------------------------

#: the AI thinking panel's figures that depend on the clock (how far its search has come), and its
#: own overall win estimate (of its own view, shown by design: docs/WEB.md, "Hidden information")
PANEL_CLOCK = ("elapsed", "iterations", "searched", "progress", "queued", "waiting", "winrate")


def test_the_ai_thinking_panel_is_alike_for_twins():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from splendor_ai.interfaces.web.app import create_app
    from splendor_ai.interfaces.web.games import GameManager
    st, twin = twins(2, None, 5, 8)
    # the AI (seat 1) to move in both: seat 0 plays the same move in each
    move = next(str(m) for m in st.legal_moves if str(m).startswith("+"))
    st.push(move)
    twin.push(move)
    manager = GameManager(workers=2)
    try:
        with TestClient(create_app(manager), base_url="http://127.0.0.1") as client:
            client.get("/api/health")
            token = client.cookies["splendor_client"]
            seen = []
            for game in (st, twin):
                g = manager.adopt(token, game, ["human", "mcts(iterations=2000000)"], secret=7, seed=1)
                end = time.monotonic() + 60
                while True:
                    answer = client.get(f"/api/games/{g.id}").json()
                    panel = answer["thinking"]
                    assert panel is not None and answer["aiError"] is None
                    if panel["iterations"]:
                        break
                    assert time.monotonic() < end, "the AI's search did not start"
                    time.sleep(0.05)
                assert 0 < panel["progress"] < 1 and panel["budget"] == {"iterations": 2000000}
                answer["thinking"] = {k: v for k, v in panel.items() if k not in PANEL_CLOCK}
                for k in ("gameId", "watchId"):
                    answer.pop(k)
                seen.append(json.dumps(answer, sort_keys=True))
                client.delete(f"/api/games/{g.id}")
            assert seen[0] == seen[1]
            assert set(json.loads(seen[0])["thinking"]) == {"seat", "player", "spec", "budget"}
    finally:
        manager.shutdown()

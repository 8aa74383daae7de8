"""The one game loop (splendor_ai/session.py): the session's AI is the tournament's AI (same moves
from the same seed and budget, its tree kept across moves), human moves, undo to the last human
turn, hints from the human's view, progress reports, cancellation, faults, records and autosave."""
import json
import os
import threading
import time

import pytest

from splendor_ai import Move, State
from splendor_ai.errors import ConfigError, IllegalMoveError, NotationError
from splendor_ai.match import play_game
from splendor_ai.players import Limit, make_player
from splendor_ai.players.base import Decision, Player, SearchCancelled, SearchInfo
from splendor_ai.records import GameRecord, read_records, save_record
from splendor_ai.session import GameSession, PlayerFault, SessionError, Thinking, seat_seed
from splendor_ai.tournament.games import Game, Settings, play, player_seed


# budgets large enough that every search outlasts a report interval of 1 ms (thousands of
# iterations: milliseconds on any machine), so progress reports come whatever the machine's speed
@pytest.mark.parametrize("specs,module", [(("mcts(iterations=3000)", "greedy"), None),
                                          (("mcts(iterations=2000)", "mcts(iterations=1500,halving=0)"), None),
                                          (("mcts(iterations=2000)", "greedy"), "strongholds")])
def test_session_ai_and_tournament_ai_make_the_same_moves(specs, module):
    """A front end's session (players built from specs, searches run in chunks with progress
    reports) and a tournament's game (games.play: its players, match.play_game) play the same
    game from the same deal and seeds (with the Strongholds, two-step turns too)."""
    deal = 21
    line = play(Game(tuple(specs), deal, 0, Settings(module=module)))
    tournament = GameRecord.from_line(line)
    players = [make_player(s, seed=player_seed(deal, k)) for k, s in enumerate(specs)]
    reports = []
    with GameSession.new(players, seed=deal, module=module) as session:
        session.play_ai(progress=reports.append, report_every=0.001)
        assert session.is_over()
        assert session.moves == tournament.moves
        assert session.record().result == tournament.result
    assert reports and all(isinstance(r, Thinking) and r.info.moves for r in reports)
    # the spec path of the front ends: players seeded by seat_seed, as match.play_game is given
    ours = GameSession.new(list(specs), seed=deal, module=module)
    ours.play_ai(progress=lambda t: None, report_every=0.001)
    again = play_game([make_player(s, seed=seat_seed(deal, k)) for k, s in enumerate(specs)], seed=deal,
                      config=ours.state.config)
    assert ours.moves == again.moves
    ours.close()


def test_the_session_keeps_its_players_and_their_trees():
    session = GameSession.new(["human", "mcts(iterations=300)"], seed=3)
    ai = session.player(1)
    session.play(next(iter(session.view().legal_moves)))
    session.ai_move()
    assert session.player(1) is ai and ai._tree is not None       # kept for the next move (tree reuse)
    before = ai._tree
    session.play(next(iter(session.view().legal_moves)))
    assert ai._since                                               # the human's move was observed
    session.ai_move()
    assert ai._tree is before                                      # the same tree, advanced
    session.close()


def test_human_moves_undo_and_hints():
    session = GameSession.new(["human", "mcts(iterations=100)"], seed=4)
    assert session.human_to_move() and not session.can_undo()
    with pytest.raises(SessionError, match="nothing to undo"):
        session.undo()
    with pytest.raises(SessionError, match="human seat"):
        session.ai_move()
    pos = session.state.position()
    for bad, err in [("b99", IllegalMoveError), ("zz", NotationError)]:
        with pytest.raises(err):
            session.play(bad)
        assert session.state.position() == pos and session.version == 0
    h = session.hint({"iterations": 200})
    assert h.move in {str(m) for m in session.view(0).legal_moves}
    assert "?" in h.analysis.position            # searched from the human's view
    first = session.play("+wbg")
    assert str(first) == "+wbg" and session.version == 1 and session.ai_to_move()
    with pytest.raises(SessionError, match="AI seat"):
        session.play("+wbr")
    with pytest.raises(SessionError, match="AI seat"):
        session.hint()
    reply = session.ai_move()
    assert session.moves == ["+wbg", str(reply)] and [t.by for t in session.history] == ["human", "ai"]
    assert session.history[1].info is not None and session.history[1].seconds >= 0
    assert session.history[0].description.startswith("Player 1 takes")
    undone = session.undo()
    assert [str(m) for m in undone] == [str(reply), "+wbg"]
    assert session.moves == [] and session.history == [] and session.state.position() == pos
    assert session.version == 3
    session.close()


def test_progress_then_the_same_move_as_without():
    view_moves = []
    for progress in (None, lambda t: view_moves.append(t)):
        session = GameSession.new(["mcts(iterations=30000)", "greedy"], seed=9)
        view_moves.append(str(session.ai_move(progress=progress, report_every=0.01)))
        session.close()
    plain, *reports, chunked = view_moves
    assert plain == chunked
    its = [r.info.iterations for r in reports]
    assert its == sorted(its) and len(its) >= 2 and all(r.seat == 0 and r.spec == "mcts(iterations=30000)"
                                                         for r in reports)


def test_undo_cancels_a_running_search():
    session = GameSession.new(["human", "mcts(seconds=120)"], seed=5)
    session.play("+wbg")
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("move", session.ai_move(report_every=0.05)))
    t.start()
    time.sleep(0.3)
    assert [str(m) for m in session.undo()] == ["+wbg"]   # (undo waits for the search to stop)
    t.join(60)
    assert not t.is_alive()                               # long before the search's 120 s
    assert out["move"] is None and session.moves == [] and session.human_to_move()
    # cancel_search, and a caller's cancel()
    session.play("+wbg")
    flag = threading.Event()
    out.clear()
    t = threading.Thread(target=lambda: out.__setitem__("move", session.ai_move(report_every=0.05, cancel=flag.is_set)))
    t.start()
    time.sleep(0.2)
    flag.set()
    t.join(60)
    assert not t.is_alive() and out == {"move": None} and session.moves == ["+wbg"]
    session.close()


class Crasher(Player):
    spec = "crasher"

    def choose(self, view, limit=None):
        raise RuntimeError("boom")


class Cheater(Player):
    spec = "cheater"

    def choose(self, view, limit=None):
        return Decision(Move.parse("b89"), SearchInfo())


def test_faults_leave_the_game_unchanged_and_match_names_them():
    for bot, kind in [(Crasher(), "crash"), (Cheater(), "illegal move")]:
        session = GameSession.new([bot, "greedy"], seed=2)
        with pytest.raises(PlayerFault) as err:
            session.ai_move()
        assert err.value.kind == kind and err.value.seat == 0 and session.moves == [] and session.version == 0
        out = play_game([bot, make_player("greedy")], seed=2)
        assert out.result is None and out.offender == 0 and out.termination.startswith(f"{kind} by seat 0: ")
    out = play_game([make_player("mcts(iterations=3000)"), make_player("greedy")], seed=2, time_forfeit=1e-6)
    assert out.termination.startswith("time-out by seat 0 (") and out.moves == []


def test_perfect_information_players_only_without_humans():
    with pytest.raises(ConfigError, match="perfect-information"):
        GameSession.new(["human", "mcts(iterations=50,mode='perfect')"], seed=1)
    session = GameSession.new(["mcts(iterations=50,mode='perfect')", "greedy"], seed=1,
                              allow_perfect_information=True)
    assert session.ai_move() is not None
    session.close()


def test_base_player_defaults():
    p = Crasher()
    assert p.perfect_information is False and p.observe(Move.parse("+wbg")) is None
    with pytest.raises(SearchCancelled):
        p.think(State.new(2, seed=1).view(), cancel=lambda: True)


def test_records_save_and_autosave(tmp_path):
    auto = tmp_path / "auto.jsonl"
    session = GameSession.new(["human", "greedy"], seed=6, autosave=auto)
    session.play("+wbg")
    session.ai_move()
    (rec,) = read_records(auto)
    assert rec.moves == session.moves and rec.seed == 6 and rec.players == ["human", "greedy"]
    assert rec.meta["termination"] == "unfinished" and rec.result is None
    session.undo()
    assert list(read_records(auto))[0].moves == []
    assert not [p for p in os.listdir(tmp_path) if p != "auto.jsonl"]     # no temporary file left
    # save refuses to overwrite unless asked
    path = tmp_path / "game.jsonl"
    session.play("+wbr")
    session.save(path)
    with pytest.raises(FileExistsError):
        session.save(path)
    session.ai_move()
    session.save(path, overwrite=True)
    (saved,) = read_records(path)
    assert saved.moves == session.moves
    # continued from the record: the same game, the same history
    again = GameSession.from_record(saved)
    assert again.moves == session.moves and again.state.position() == session.state.position()
    assert [(t.seat, t.move, t.by) for t in again.history] == [(t.seat, t.move, t.by) for t in session.history]
    assert GameSession.load(path).moves == session.moves
    session.close()
    again.close()


def test_save_record_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "g.jsonl"
    first = GameSession.new(["human", "greedy"], seed=1).record()
    save_record(path, first)
    before = path.read_bytes()

    def failing(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", failing)
    st = State.new(2, seed=1)
    st.push("+wbg")
    with pytest.raises(OSError, match="disk full"):
        save_record(path, GameRecord.from_state(st, 1, ["human", "greedy"]), overwrite=True)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["g.jsonl"]
    assert json.loads(before)["moves"] == []


def test_a_human_plays_a_two_step_turn_step_by_step():
    """Strongholds: a purchase whose slot the deck refills is a first step; the human then sees the
    card revealed and plays the rest. The record and the history hold whole turns."""
    for seed in range(40):
        session = GameSession.new(["human", "greedy"], seed=seed, module="strongholds")
        bot = make_player("greedy", seed=1)
        for _ in range(30):
            if session.is_over():
                break
            view = session.view()
            if session.human_to_move() and any(view.is_partial(m) for m in view.legal_moves):
                break
            if session.human_to_move():
                session.play(bot.choose(view).move)
            else:
                session.ai_move()
        else:
            continue
        view = session.view()
        firsts = [m for m in view.legal_moves if view.is_partial(m)]
        if not firsts:
            continue
        before = session.moves
        first = session.play(firsts[0])
        assert session.partial_move == first and session.human_to_move()
        assert session.moves == before and session.record().moves == before
        assert len(session.history) == len(before)
        rest = next(iter(session.view().legal_moves))
        whole = session.play(rest)
        assert str(whole).startswith(str(first) + "/") and session.partial_move is None
        assert session.moves == before + [str(whole)] and session.history[-1].move == str(whole)
        assert session.record().moves == session.moves
        # undo of a first step alone: back to the turn's start
        session.undo()
        assert session.moves == before and session.partial_move is None
        session.play(firsts[0])
        session.undo()
        assert session.moves == before and session.partial_move is None and session.human_to_move()
        session.close()
        return
    pytest.fail("no two-step turn for the human in 40 deals")


def test_a_game_begun_in_the_middle_of_a_turn_undoes_and_records():
    """A session from a position in the middle of a two-step turn (its first step not on the
    stack): undo goes back to that start, and the record keeps it as its start."""
    from module_positions import decision_position
    st, hits = decision_position("strongholds")
    start = State(st.position())
    assert start.partial_move is not None and not start.move_stack
    with GameSession.from_state(start, ["human", "mcts(iterations=50)"]) as s:
        s.play(hits[0])
        s.ai_move()
        assert [str(m) for m in s.undo()][-1] == str(hits[0])
        assert s.state.position() == start.position()
        assert s.record().start == start.position() and s.record().moves == []


def test_a_new_game_without_a_seed_is_dealt_from_64_random_bits():
    """A 32-bit deal seed could be found by dealing every seed and comparing the market (and so
    the decks): a session's own seed has 64 bits, different each time."""
    seeds = [GameSession.new(["human", "random"]).seed for _ in range(8)]
    assert len(set(seeds)) == 8 and all(0 <= s < 2 ** 64 for s in seeds)
    assert any(s >= 2 ** 32 for s in seeds)     # fails with probability 2**-256 for 64-bit seeds

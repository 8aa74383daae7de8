"""The terminal game driven by scripted input (docs/CLI.md): each decision of a turn asked in
turn (tokens to return, a noble, every module decision), whole-turn notation still accepted,
affordable cards marked and buying power shown, illegal moves explained in the board's terms,
public positions played, and a board that fits 80 columns."""
import io
import random
import re
import sys

import pytest
from rich.console import Console

from splendor_ai import State
from splendor_ai.interfaces.render import BOARD_WIDTH, board
from splendor_ai.players import make_player
from splendor_ai.records import read_records
from splendor_ai.state import Config

from module_positions import MODULES, decision_position

FAST_AI = "mcts(iterations=30)"


def play(monkeypatch, capsys, args: list[str], lines: list[str], columns: int = 80) -> str:
    """`splendor play` in this process with `lines` as its input; its output, whitespace folded."""
    from splendor_ai.interfaces.cli import main
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(x + "\n" for x in lines)))
    monkeypatch.setenv("COLUMNS", str(columns))
    rc = main(["play", *args])
    out, err = capsys.readouterr()
    assert rc == 0 and "Traceback" not in out + err, err
    return out


def flat(text: str) -> str:
    return " ".join(text.split())


def greedy_until(found, seed_range=range(300), players: int = 2, config=None):
    """The first position of greedy self-play (seeded deals) where `found(state)` holds."""
    for seed in seed_range:
        st = State.new(players, seed=seed, config=config)
        bots = [make_player("greedy", seed=seed + i) for i in range(players)]
        while not st.is_over():
            hit = found(st)
            if hit:
                return st, hit
            st.push(bots[st.to_move].choose(st.view()).move)
    raise AssertionError("no such position")


def actions_with(st: State, differ) -> list:
    """The actions of the seat to move that have several whole turns told apart by `differ`."""
    by_action: dict = {}
    for m in st.legal_moves:
        by_action.setdefault(m.action, set()).add(differ(m))
    return [a for a, v in by_action.items() if len(v) > 1]


# -- decisions asked one at a time -------------------------------------------------------------------

def test_tokens_to_return_are_asked(monkeypatch, capsys, tmp_path):
    st, actions = greedy_until(lambda s: [a for a in actions_with(s, lambda m: m.returns)
                                          if a.kind == "take" and len(a.gems) == 3])
    take = actions[0]
    turns = [m for m in st.legal_moves if m.action == take]
    want = turns[-1]                         # the last return, in the listed order
    letters = str(want).split("/-")[1]
    seat = st.to_move
    save = tmp_path / "g.jsonl"
    typed = "+" + str(take)[1:][::-1]          # colours in any order
    out = play(monkeypatch, capsys, ["--position", st.position(), "--seat", str(seat), "--players",
                                     str(st.players), "--ai", FAST_AI],
               [typed, "zz", "99", letters[::-1], f"save {save}", "quit"])
    held = sum(st.seats[seat].tokens) + 3
    assert f"You would hold {held} tokens: return {held - 10}. Which?" in out
    assert out.count("Not one of the choices") == 2
    assert f"You play {want}: " in out
    (rec,) = read_records(save)
    assert rec.moves[0] == str(want)


def test_a_noble_is_asked_when_two_can_visit(monkeypatch, capsys):
    st, actions = greedy_until(lambda s: actions_with(s, lambda m: m.noble))
    action = actions[0]
    nobles = sorted({m.noble for m in st.legal_moves if m.action == action})
    seat = st.to_move
    # picked by number: the action's number in the list, then the second noble's
    listed = list(dict.fromkeys(m.action for m in st.view(seat).legal_moves))
    out = play(monkeypatch, capsys, ["--position", st.position(), "--seat", str(seat), "--ai", FAST_AI],
               [str(listed.index(action) + 1), "2", "quit"])
    assert "Which noble visits you?" in out
    for n in nobles:
        assert f"n{n}: noble {n} (" in out
    assert f"You play {action}/n{nobles[1]}: " in out


@pytest.mark.parametrize("module", MODULES)
def test_module_decisions_are_asked_in_turn(monkeypatch, capsys, module):
    st, hits = decision_position(module)
    target = max(hits, key=lambda m: len(m.decisions))
    action = target.action
    turns = [m for m in st.view(0).legal_moves if m.action == action]
    # answer each question with the target's decision in notation, or 'none' where it skips one
    answers, left, at = [], turns, 0
    from splendor_ai.interfaces.terminal import SKIP, _fragment, narrow, next_choice
    while len(left) > 1:
        at, choices = next_choice(left, at)
        mine = target.decisions[at] if at < len(target.decisions) else None
        choice = mine if mine in choices else SKIP
        answers.append("none" if choice == SKIP else _fragment(*choice))
        at, left = narrow(left, at, choice)
    assert left == [target]
    out = play(monkeypatch, capsys, ["--position", st.position(), "--seat", "0", "--ai", FAST_AI],
               [str(action), "cancel", str(action), *answers, "quit"])
    assert "(move cancelled)" in out
    assert flat(f"You play {target}: {st.view(0).describe(target)}") in flat(out)


def test_whole_turns_in_notation_still_work(monkeypatch, capsys):
    st, hits = decision_position("orient")
    move = hits[0]
    out = play(monkeypatch, capsys, ["--position", st.position(), "--ai", FAST_AI], [str(move), "quit"])
    assert f"You play {move}: " in out


# -- the board: affordable cards, buying power, 80 columns ---------------------------------------------

def test_affordable_cards_are_marked_and_buying_power_shown(monkeypatch, capsys):
    st, buys = greedy_until(lambda s: {m.card for m in s.legal_moves if m.kind == "buy"} or None)
    out = play(monkeypatch, capsys, ["--position", st.position(), "--seat", str(st.to_move), "--ai", FAST_AI],
               ["quit"], columns=120)
    marked = {int(x) for x in re.findall(r"#(\d+)(?: O)? ✓", out)}
    assert marked == buys
    seat = st.seats[st.to_move]
    power = " ".join(f"{'wbgrk'[c]}{seat.bonuses[c] + seat.tokens[c]}" for c in range(5))
    assert f"buying power {power} + {seat.tokens[5]} gold" in flat(out)
    assert "✓ you can buy it now" in out


def random_positions(module, players: int, count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        st = State.new(players, seed=rng.randrange(10 ** 6),
                       config=Config(players, modules=(module,) if module else ()))
        for _ in range(rng.randrange(0, 120)):
            if st.is_over():
                break
            st.push(rng.choice(list(st.legal_moves)))
        yield st


@pytest.mark.parametrize("module", (None,) + MODULES)
@pytest.mark.parametrize("players", (2, 3, 4))
def test_the_board_fits_80_columns(module, players):
    """Every line within 80 columns and nothing cut short (rich marks a cut with '…')."""
    for st in random_positions(module, players, 6, seed=players):
        for shown in (st.view(st.to_move), st):
            console = Console(file=io.StringIO(), width=BOARD_WIDTH, color_system=None)
            can_buy = {m.card for m in st.legal_moves if m.kind == "buy"} if not st.is_over() else set()
            console.print(board(shown, can_buy=can_buy))
            text = console.file.getvalue()
            assert max(len(line) for line in text.splitlines()) <= BOARD_WIDTH
            assert "…" not in text
            for card in (c for row in st.market for c in row if c is not None):
                assert f"#{card}" in text


def test_a_narrow_terminal_is_told_the_width_needed(monkeypatch, capsys):
    out = play(monkeypatch, capsys, ["--seed", "1", "--ai", FAST_AI], ["quit"], columns=60)
    assert "The board is drawn for 80 columns; this terminal has 60" in flat(out)


# -- illegal moves explained -----------------------------------------------------------------------

def test_illegal_moves_say_why_in_the_board_terms(monkeypatch, capsys):
    st = State.new(2, seed=3)
    costly = st.market[2][0]
    from splendor_ai.cards import CARDS, COLOURS
    cost = " and ".join(f"{n} {COLOURS[c]}" for c, n in enumerate(CARDS[costly].cost) if n)
    out = flat(play(monkeypatch, capsys, ["--seed", "3", "--ai", FAST_AI],
                    [f"b{costly}", "b100", "b150", "+wbgr", "pass", "r0/n3", "quit"]))
    have = ", ".join(f"no {COLOURS[c]}" for c, n in enumerate(CARDS[costly].cost) if n)
    assert f"Illegal move: b{costly}: card {costly} costs {cost}, you have {have} and no gold." in out
    assert "Illegal move: b100: there is no card 100 in this game: its cards are 0-89" in out
    assert "there is no card 150: this game's cards are 0-89" in out
    assert "seat 0" not in out and "seat 1" not in out


def test_the_example_of_the_issue():
    """'card 86 costs 3 white, you have 1 white and no gold', worded from the seat's holdings."""
    from splendor_ai.interfaces.terminal import _shortfall
    from splendor_ai.state import Seat
    seat = Seat(tokens=(1, 0, 0, 0, 0, 0), cards=(), reserved=(), reserved_levels=(), reserved_blind=(), nobles=())
    from splendor_ai.cards import CARDS
    card = next(c.id for c in CARDS if c.cost == (3, 0, 0, 0, 0))
    assert _shortfall(None, seat, card) == f"card {card} costs 3 white, you have 1 white and no gold"


# -- positions as analyse prints them -------------------------------------------------------------------

def public_position() -> State:
    st = State.new(2, seed=3)
    for m in ("+wbg", "rL2", "+wbr", "r44"):     # seat 1 holds a blind reserve: hidden from seat 0
        st.push(m)
    return st


def test_a_public_position_is_played_with_its_hidden_cards_dealt(monkeypatch, capsys):
    st = public_position()
    public = st.view(0).position()
    assert "?" in public
    out = play(monkeypatch, capsys, ["--position", public, "--seed", "11", "--ai", FAST_AI], ["1", "quit"])
    assert "You play " in out and "level-2 card (hidden)" in out
    # the seat whose reserve the position hides cannot be played from it
    from splendor_ai.interfaces.cli import main
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--position", public, "--seat", "1"]) == 2
    assert "Player 2's reserved cards are hidden in this position" in capsys.readouterr().err


def test_what_the_player_sees_depends_on_their_view_alone(monkeypatch, capsys):
    """Two games from the same public position whose hidden cards are dealt differently (other
    seeds): hot-seat players making the same moves see exactly the same screens."""
    # both seats are human, so neither may hold a blind reserve; the decks stay hidden
    plain = State.new(2, seed=5)
    for m in ("+wbg", "+brk", "r" + str(plain.market[1][0])):
        plain.push(m)
    public = plain.view(1).position()
    assert "?" in public
    script = ["+wbr", "+wgk", "board", "moves", "hint", "undo", "quit"]
    outs = []
    for seed in ("1", "2"):
        out = play(monkeypatch, capsys, ["--position", public, "--seat", "0", "--seat", "1", "--seed", seed,
                                         "--hint", FAST_AI], script)
        out = out.rsplit("The game (", 1)[0]            # the saved file's name differs
        outs.append(re.sub(r"\[\d+\.\d s\]", "[time]", out))   # and a hint's search time
    decks = []
    for seed in (1, 2):
        from splendor_ai.interfaces.terminal import _search_seed
        from splendor_ai.state import View
        decks.append(View.from_position(public).resample(_search_seed(seed, 31337)).position())
    assert decks[0] != decks[1]                         # the hidden cards differ
    assert "You play +wbr" in outs[0] and "You play +wgk" in outs[0] and "Hint: " in outs[0]
    assert "Undid 1 move" in outs[0]
    assert outs[0] == outs[1]


# -- one game loop: the session's players ------------------------------------------------------------

def test_the_ai_is_one_player_across_the_game_and_plays_as_a_session_does(monkeypatch, capsys):
    """The terminal plays through a GameSession: the AI seat keeps one Player (its tree reused
    from move to move, as tournaments measure it), and its moves are those of a session driven
    directly with the same seed and the human's moves."""
    from splendor_ai.interfaces import terminal
    from splendor_ai.session import GameSession
    seen = []
    original = terminal.Game.ai_move

    def spy(self):
        seen.append(self.session.player(self.state.to_move))
        return original(self)
    monkeypatch.setattr(terminal.Game, "ai_move", spy)
    spec = "mcts(iterations=400)"
    out = play(monkeypatch, capsys, ["--seed", "12", "--ai", spec], ["1", "2", "1", "3", "quit"])
    assert len(seen) == 4 and all(p is seen[0] for p in seen)
    assert seen[0]._tree is not None                       # the tree kept for the next move
    mine = re.findall(r"You play (\S+):", out)
    theirs = re.findall(r"Player 2 \(AI\) plays (\S+):", out)
    with GameSession.new(["human", spec], seed=12) as session:
        for human in mine:
            session.play(human)
            assert str(session.ai_move()) == theirs.pop(0)

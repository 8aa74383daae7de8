"""`splendor play / analyse / hint` with the Cities of Splendor modules, run as subprocesses: a piped
game per module from a position where the human has a module decision to make (the board shows
the module's elements, a bad decision token and a missing decision are refused with a clear
message, a hint, the decision move typed in notation, undo, the same move picked by number, save),
then loading the saved game and the position again; analyse and hint of module games."""
import json

import pytest

from splendor_ai import State
from splendor_ai.records import read_records

from module_positions import MODULES, decision_position
from test_cli import FAST_AI, clean, run

#: what the board shows for each module
SHOWN = {"cities": ["Cities: c", "cities"], "orient": ["Out of the game", "Orient:", "(slots 5-6: the Orient)"],
         "posts": ["Trading posts", "+1 gem after each purchase", "trading posts"],
         "strongholds": ["strongholds", "3 in hand"]}
#: a well-formed decision token that no move of the position has
BAD_TOKEN = {"cities": "c13", "orient": "jy", "posts": "+y", "strongholds": "t999"}
TITLES = {"cities": "The Cities", "orient": "The Orient", "posts": "The Trading Posts",
          "strongholds": "The Strongholds"}


def answers(view, move) -> list[str]:
    """What to type at each question the game asks after `move`'s action to play `move`."""
    from splendor_ai.interfaces.terminal import SKIP, _fragment, narrow, next_choice
    left, at, out = [m for m in view.legal_moves if m.action == move.action], 0, []
    while len(left) > 1:
        at, choices = next_choice(left, at)
        mine = move.decisions[at] if at < len(move.decisions) else None
        choice = mine if mine in choices else SKIP
        out.append("none" if choice == SKIP else str(choices.index(choice) + 1))
        at, left = narrow(left, at, choice)
    assert left == [move]
    return out


@pytest.mark.parametrize("module", MODULES)
def test_piped_module_game_with_decisions_hint_undo_save_and_load(module, tmp_path):
    st, hits = decision_position(module)
    move = hits[-1]
    action = str(move).split("/")[0]
    view = st.view(0)
    actions = list(dict.fromkeys(m.action for m in view.legal_moves))   # the numbered list
    save = tmp_path / "game.jsonl"
    script = "\n".join([
        "board",
        f"{action}/{BAD_TOKEN[module]}",   # a decision token no legal move has (or not notation at all)
        f"{action}/-w",                   # a wrong decision
        "hint",
        str(move),                        # the decision move, typed in notation
        "undo",
        str(actions.index(move.action) + 1),  # the same move: its action picked by number,
        *answers(view, move),                 # then each decision answered in turn
        f"save {save}",
        "quit",
    ]) + "\n"
    p = run("play", "--position", st.position(), "--seat", "0", "--ai", FAST_AI, "--hint", FAST_AI, stdin=script)
    out = clean(p)
    assert f"Splendor with {TITLES[module]}" in out
    for text in SHOWN[module]:
        assert text in out, text
    assert "Not a move or command" in out or "Illegal move" in out
    assert out.count("Illegal move") + out.count("Not a move or command") >= 2
    assert "Hint: " in out and "visits" in out
    desc = st.view(0).describe(move)
    flat = " ".join(out.split())                 # rich wraps long lines
    assert flat.count(f"You play {move}: {desc}") == 2, out[-3000:]
    assert "Undid 2 moves" in out or "Undid 1 move" in out
    assert "Saved the game" in out
    (rec,) = list(read_records(save))
    assert rec.config.module == module and rec.start == st.position() and rec.moves[0] == str(move)
    assert rec.seed is None                      # the game began from a position, not a deal
    final = rec.replay()
    assert final.module == module

    # the saved game loads (a record with an SPN2 start), and so does a file holding the position
    out = clean(run("play", "--load", str(save), "--ai", FAST_AI, stdin="board\nquit\n"))
    assert f"{TITLES[module]}, {len(rec.moves)} moves played" in " ".join(out.split())
    pos = tmp_path / "position.txt"
    pos.write_text(st.position() + "\n")
    out = clean(run("play", "--ai", FAST_AI, stdin=f"load {pos}\nmoves\nquit\n"))
    assert f"Loaded the position in {pos}: 2 players, {TITLES[module]}" in " ".join(out.split())
    from splendor_ai.interfaces.terminal import action_description
    turns = [m for m in view.legal_moves if m.action == move.action]
    listed = f"{move.action} {action_description(view, turns)} (then you choose: {len(turns)} ways)"
    assert listed in " ".join(out.split())   # the numbered list: the action in words, its choices after


def test_no_decision_names_the_card_a_refill_reveals():
    """Strongholds: a purchase from the market refills its slot before the stronghold action, so
    the turn is played in two steps (docs/RULES.md): before the purchase the human's moves (their
    view's, the true state's alike) list it alone, and a stronghold on the card the deck will deal
    is refused (accepting it would show the top of the deck)."""
    st, _ = decision_position("strongholds")
    assert st.partial_move is not None and st.move_stack[-1] == st.partial_move
    assert set(map(str, st.legal_moves)) == set(map(str, st.view(st.to_move).legal_moves))
    first = str(st.pop())
    assert st.is_partial(first) and first in set(map(str, st.view(st.to_move).legal_moves))
    card = int(first[1:])
    level = next(i for i, row in enumerate(st.market) if card in row)
    top = st.copy()
    top.push(first)
    new = top.market[level][st.market[level].index(card)]
    bad = f"{first}/t{new}"
    out = clean(run("play", "--position", st.position(), "--ai", FAST_AI, stdin=f"{bad}\n{first}\nquit\n"))
    assert f"Illegal move: {bad}" in out and "two steps" in " ".join(out.split())
    assert "new card is face up" in " ".join(out.split()) and f"{first}/t{new}" in out


def test_play_module_option_new_game(tmp_path):
    save = tmp_path / "g.jsonl"
    out = clean(run("play", "--module", "orient", "--seed", "4", "--ai", FAST_AI,
                    stdin=f"1\nsave {save}\nquit\n"))
    assert "Splendor with The Orient" in out and "Orient:" in out
    (rec,) = list(read_records(save))
    assert rec.config.modules == ("orient",) and rec.seed == 4
    assert rec.replay(check_seed=True).module == "orient"


@pytest.mark.parametrize("args,message", [
    (["play", "--module", "atlantis"], "invalid choice: 'atlantis'"),
    (["play", "--position", "SPN2 2:orient 444445"], "--position:"),
    (["play", "--position", "{base}", "--module", "orient"], "--module orient: the position is a game without a module"),
    (["analyse", "--position", "{orient}", "--module", "cities"], "--module cities: the position is a game of the orient"),
    (["analyse", "--position", "{orient}", "--deal", "3"], "not with --position"),
    (["hint", "--module", "posts", "--players", "5"], "--players"),
])
def test_bad_module_inputs(args, message):
    orient = State.new(2, seed=1, config=__import__("splendor_ai").state.Config(2, modules=("orient",)))
    args = [a.replace("{base}", State.new(2, seed=1).position()).replace("{orient}", orient.position()) for a in args]
    p = run(*args, stdin="quit\n")
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_analyse_and_hint_of_module_games():
    # a new game of a module, from the command line
    a = json.loads(clean(run("analyse", "--module", "strongholds", "--deal", "5", "--iterations", "200", "--json")))
    assert a["rootInfo"]["position"].startswith("SPN2 2:strongholds")
    # a position with decisions: whole-turn moves and lines in v2 notation, described in words
    st, hits = decision_position("orient")
    out = clean(run("analyse", "--position", st.position(), "--iterations", "400", "--top", "40"))
    assert "Orient" in out or "/j" in out
    h = json.loads(clean(run("hint", "--position", st.position(), "--iterations", "400", "--top", "40", "--json")))
    view = st.view(0)
    for m in h["moveInfos"]:
        assert m["move"] in view.legal_moves and m["description"] == view.describe(m["move"])
    assert any("/j" in m["move"] for m in h["moveInfos"]), [m["move"] for m in h["moveInfos"]]
    assert any("attaching the joker" in m["description"] for m in h["moveInfos"])
    out = clean(run("hint", "--module", "cities", "--players", "3", "--deal", "2", "--iterations", "200"))
    assert out.startswith("Best move: ")

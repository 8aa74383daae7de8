"""The `splendor` command run as a subprocess (`python -m splendor_ai ...`) on real inputs."""
import json
import re
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from splendor_ai import State, View
from splendor_ai.records import GameRecord, read_records

ROOT = Path(__file__).resolve().parent.parent
FAST_AI = "mcts(iterations=100)"


def run(*args, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="120",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "splendor_ai", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)


def clean(p: subprocess.CompletedProcess, rc: int = 0) -> str:
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    assert p.returncode == rc, (p.returncode, p.stdout[-2000:], p.stderr)
    return p.stdout


def position_with_blind_reserves() -> State:
    st = State.new(2, seed=3)
    for m in ("r44", "rL2", "+wbg", "rL3"):
        st.push(m)
    return st


# -- play ---------------------------------------------------------------------------------------------

def test_play_piped_session_with_hint_bad_input_undo_and_save(tmp_path):
    start = State.new(2, seed=3)
    unaffordable = start.market[2][0]          # a level-3 card, never affordable on turn 2
    save = tmp_path / "game.jsonl"
    script = "\n".join([
        "1",                     # the first listed move (+wbg), picked by number
        "hint",
        "xyz",                   # not a move
        f"b{unaffordable}",      # a legal-looking but illegal move
        "99",                    # no such number
        "",                      # empty line: asked again
        "rL1",                   # a move in notation
        "undo",                  # takes back rL1 and the AI's reply
        "rL2",
        "moves",
        f"save {save}",
        "quit",
    ]) + "\n"
    out = clean(run("play", "--seed", "3", "--ai", FAST_AI, "--hint", FAST_AI, stdin=script))
    assert "You play +wbg: Player 1 takes white, blue and green gems." in out
    assert out.count("Player 2 (AI) plays") == 3              # after +wbg, rL1 and rL2
    assert "Hint: " in out and "visits" in out and "Runner-up:" in out
    assert "Not a move or command" in out
    assert f"Illegal move: b{unaffordable}" in out
    assert "There is no move number 99" in out
    assert "You play rL1" in out and "Undid 2 moves (rL1, " in out
    assert "You play rL2: Player 1 reserves the top card of the level-2 deck" in out
    assert "Market" in out and "Bank:" in out and "Nobles:" in out and "tokens" in out
    # the board never shows the player a hidden card; its own blind reserve it does see
    assert "Saved the game (4 moves)" in out
    (rec,) = list(read_records(save))
    assert rec.players == ["human", FAST_AI] and rec.result is None and rec.seed == 3
    final = rec.replay()
    assert rec.moves[0] == "+wbg" and rec.moves[2] == "rL2" and len(final.move_stack) == 4
    # what the AI played is what the transcript says it played
    assert f"Player 2 (AI) plays {rec.moves[1]}:" in out and f"Player 2 (AI) plays {rec.moves[3]}:" in out


def test_play_shows_hidden_reserves_only_to_their_owner(tmp_path):
    # the AI (seat 0) moves first; the human at seat 1 reserves blind; a 3-player game
    out = clean(run("play", "--players", "3", "--seat", "1", "--seed", "5", "--ai", FAST_AI, "--ai", "greedy",
                    stdin="rL3\nboard\nquit\n"))
    assert "You play rL3" in out
    assert out.count("(AI) plays") >= 3
    # the human's own blind reserve is shown with its card, marked "blind"
    assert re.search(r"#\d+ \w+.* blind\b", out)


def test_play_load_and_continue(tmp_path):
    st = State.new(2, seed=9)
    for m in ("+wbg", "rL2"):        # the AI (seat 1) reserved blind
        st.push(m)
    secret = st.seats[1].reserved[0]
    path = tmp_path / "saved.jsonl"
    path.write_text(GameRecord.from_state(st, seed=9, players=["human", FAST_AI]).to_line() + "\n")
    out = clean(run("play", "--load", str(path), "--ai", FAST_AI, "--hint", FAST_AI,
                    stdin=f"1\nundo\nundo\nundo\nload {tmp_path / 'missing.jsonl'}\nquit\n"))
    assert "Loaded" in out and "2 moves played" in out
    assert "level-2 card (hidden)" in out and f"#{secret} " not in out
    assert "Undid 2 moves" in out and out.count("Undid") == 2  # back to the start, then nothing
    assert "Nothing to undo" in out
    assert "Could not load" in out


def test_play_whole_game_to_the_end(tmp_path):
    save = tmp_path / "end.jsonl"
    script = "1\n" * 400   # always the first listed move, until the game ends
    # after the end, moves are refused but save works
    p = run("play", "--seed", "2", "--ai", "mcts(iterations=30)", stdin=script + f"save {save}\nquit\n")
    out = clean(p)
    assert "Game over" in out and "the game is over" in out and "Saved the game" in out
    (rec,) = list(read_records(save))
    assert rec.result is not None
    rec.replay()


def test_ai_move_takes_its_time_and_startup_is_quick():
    """The AI's move uses its time budget (its search runs until its clock says 0.5 s), and the
    command's own work is small: measured in CPU time, which a busy machine does not stretch as
    it stretches the wall clock (a command importing a heavy library at startup, or a search
    that overran its clock, would spend seconds of it)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = clean(run("play", "--seed", "4", "--seat", "1", "--ai", "mcts(seconds=0.5, halving=0)", stdin="quit\n"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert "Player 1 (AI) plays" in out
    took = float(out.split("Player 1 (AI) plays")[1].split(" s]")[0].rsplit(" ", 1)[1])
    assert took >= 0.5                             # the move took its time budget (shown to 0.1 s)
    assert 0 < cpu < 4, cpu                        # about 1 s: Python, the imports, the 0.5-s search
    # the command imports neither rich nor the search until a subcommand needs them
    code = "import sys, splendor_ai.interfaces.cli; print(sorted(m for m in ('rich', 'splendor_ai._mcts') if m in sys.modules))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.stdout.strip() == "[]", p.stdout + p.stderr


def run_here(capsys, *args) -> tuple[int, str, str]:
    """The command in this process (faster than a subprocess, for the many bad-input cases)."""
    from splendor_ai.interfaces.cli import main
    try:
        rc = main(list(args))
    except SystemExit as e:       # argparse's usage errors
        rc = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def test_bad_input_as_a_subprocess():
    p = run("analyse", "--position", "SPN1 2 444445 garbage")
    clean(p, rc=2)
    assert p.stderr.startswith("splendor analyse: error: position:") and p.stdout == ""
    p = run("hint", "--position", "SPN1 2", "--frobnicate")
    clean(p, rc=2)
    assert "unrecognized arguments: --frobnicate" in p.stderr


@pytest.mark.parametrize("args,message", [
    (["play", "--players", "5"], "--players"),
    (["play", "--seat", "3"], "--seat 3"),
    (["play", "--ai", "mcts(iterations=-1)"], "iterations"),
    (["play", "--ai", "alphazero"], "unknown player"),
    (["play", "--hint", "greedy"], "--hint"),
    (["play", "--load", "/nonexistent/game.jsonl"], "--load"),
    (["play", "--frobnicate"], "unrecognized arguments"),
])
def test_play_bad_options(capsys, args, message):
    rc, out, err = run_here(capsys, *args)
    assert rc == 2 and message in err


# -- analyse and hint ---------------------------------------------------------------------------------

def test_analyse_table_and_json():
    st = position_with_blind_reserves()
    pos = st.position()
    out = clean(run("analyse", "--position", pos, "--iterations", "600", "--top", "4"))
    assert "Player 1 to move" in out and "600 iterations" in out and "Win rates now" in out
    p = run("analyse", "--position", pos, "--iterations", "600", "--top", "4", "--json")
    a = json.loads(clean(p))
    view = st.view(0)
    assert a["rootInfo"]["position"] == view.position() and a["rootInfo"]["iterations"] == 600
    assert len(a["moveInfos"]) == 4
    for m in a["moveInfos"]:
        assert m["move"] in view.legal_moves and m["move"] in out
        assert m["description"] == view.describe(m["move"])
        assert 0 <= m["winrate"] <= 1 and len(m["seatWinrates"]) == 2 and m["pv"][0] == m["move"]
    # the table's moves are the JSON's, in order
    rows = [ln.split("│") for ln in out.splitlines() if "│" in ln]
    assert [r[1].strip() for r in rows if r[0].strip().isdigit()] == [m["move"] for m in a["moveInfos"]]


def test_analyse_other_inputs(tmp_path):
    st = position_with_blind_reserves()
    rec = GameRecord.from_state(st, seed=3, players=["human", "mcts"])
    path = tmp_path / "games.jsonl"
    path.write_text(rec.to_line() + "\n")
    jpath = tmp_path / "pos.json"
    jpath.write_text(json.dumps(st.to_json()))
    by_pos = json.loads(clean(run("analyse", "--position", st.position(), "--iterations", "300", "--json")))
    by_json = json.loads(clean(run("analyse", "--json-file", str(jpath), "--iterations", "300", "--json")))
    by_rec = json.loads(clean(run("analyse", "--record", str(path), "--iterations", "300", "--json")))
    for x in (by_pos, by_json, by_rec):
        x["rootInfo"].pop("seconds")
    assert by_pos == by_json == by_rec
    at2 = json.loads(clean(run("analyse", "--record", str(path), "--turn", "2", "--iterations", "300", "--json")))
    assert at2["rootInfo"]["turn"] == 2
    seat1 = json.loads(clean(run("analyse", "--record", str(path), "--seat", "1", "--iterations", "300", "--json")))
    assert seat1["rootInfo"]["seat"] == 1 and seat1["rootInfo"]["position"] == st.view(1).position()
    # a public position (a seat's view) works too
    view_pos = st.view(0).position()
    out = clean(run("analyse", "--position", view_pos, "--iterations", "300"))
    assert "300 iterations" in out


def test_hint_table_and_json():
    st = position_with_blind_reserves()
    out = clean(run("hint", "--position", st.position(), "--iterations", "600"))
    lines = out.splitlines()
    assert lines[0].startswith("Best move: ")
    best = lines[0].split(": ")[1]
    assert best in st.legal_moves
    assert "win rate" in out and "of 600 visits" in out and "runner-up" in out and "Runner-up: " in out
    h = json.loads(clean(run("hint", "--position", st.position(), "--iterations", "600", "--json")))
    assert h["move"] == best and h["reason"] in out.replace("\n", " ") or h["reason"].split(" (")[0] in out
    assert h["runnerUp"]["move"] != best and h["description"] == st.view(0).describe(best)


@pytest.mark.parametrize("args,message", [
    (["analyse", "--position", "SPN1 2 444445 garbage"], "position:"),
    (["analyse", "--position", "not a position at all"], "position:"),
    (["hint", "--position", "SPN9 2"], "position:"),
    (["analyse", "--position", "{st}", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["analyse", "--position", "{st}", "--iterations", "0"], "--iterations"),
    (["analyse", "--position", "{st}", "--iterations", "10", "--seconds", "1"], "not both"),
    (["analyse", "--position", "{st}", "--seat", "4"], "seat"),
    (["analyse", "--position", "{st}", "--spec", "greedy"], "spec"),
    (["analyse", "--position", "{st}", "--spec", "mcts(mode='perfect')"], "perfect"),
    (["analyse", "--position", "{st}", "--turn", "1"], "--turn"),
    (["analyse", "--json-file", "/nonexistent.json"], "/nonexistent.json"),
    (["hint", "--position", "{st}", "--seat", "1"], "not to move"),
    (["analyse"], "required"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_inputs_give_a_clear_error_and_status_2(capsys, args, message):
    st = position_with_blind_reserves()
    args = [a.replace("{st}", st.position()) for a in args]
    rc, out, err = run_here(capsys, *args)
    assert rc == 2 and message in err, err
    assert out == ""


def test_bad_files(capsys, tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    rc, out, err = run_here(capsys, "analyse", "--json-file", str(bad_json))
    assert rc == 2 and "not JSON" in err
    bad_rec = tmp_path / "bad.jsonl"
    bad_rec.write_text('{"format": "splendor-record/9"}\n{"format": "x"}\n')
    rc, out, err = run_here(capsys, "analyse", "--record", str(bad_rec))
    assert rc == 2 and "line 1" in err and "format" in err
    st = position_with_blind_reserves()
    good = tmp_path / "good.jsonl"
    good.write_text(GameRecord.from_state(st, seed=3, players=["a", "b"]).to_line() + "\n")
    rc, out, err = run_here(capsys, "analyse", "--record", str(good), "--turn", "9")
    assert rc == 2 and "turn" in err and "0-4" in err
    rc, out, err = run_here(capsys, "analyse", "--record", str(good), "--game", "2")
    assert rc == 2 and "--game 2" in err


def test_version_and_help():
    out = clean(run("--version"))
    assert out.startswith("splendor_ai ")
    p = run()
    clean(p, rc=2)
    assert "play" in p.stdout and "analyse" in p.stdout and "engine" in p.stdout
    out = clean(run("play", "--help"))
    assert "--ai" in out and "--seat" in out

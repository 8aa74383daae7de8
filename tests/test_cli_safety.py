"""`splendor play` and the analysis commands against the defects of a careless or hostile user:
the deal seed stays hidden while the game goes on, saved games are never lost or overwritten,
bad files and absurd values give a one-line error (docs/CLI.md)."""
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from splendor_ai import State
from splendor_ai.interfaces import terminal
from splendor_ai.records import GameRecord, read_records

ROOT = Path(__file__).resolve().parent.parent
FAST_AI = "mcts(iterations=30)"
SECRET_SEED = 16_045_690_984_833_335_023     # a 64-bit deal seed the player never chose


def env(save_dir: Path) -> dict:
    return dict(os.environ, COLUMNS="120", SPLENDOR_SAVE_DIR=str(save_dir),
                PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run(save_dir: Path, *args, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "splendor_ai", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env(save_dir))


def play_here(monkeypatch, capsys, args: list[str], script: str) -> tuple[int, str]:
    """`splendor play` in this process, its input from `script`."""
    from splendor_ai.interfaces.cli import main
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    monkeypatch.setenv("COLUMNS", "120")
    rc = main(["play", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out


def saved_games(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl")) if folder.exists() else []


# -- the deal seed ---------------------------------------------------------------------------------

def test_the_deal_seed_is_shown_only_when_the_game_is_over(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("SPLENDOR_SAVE_DIR", str(tmp_path))
    monkeypatch.setattr(terminal, "new_seed", lambda: SECRET_SEED)
    rc, out = play_here(monkeypatch, capsys, ["--ai", FAST_AI, "--hint", FAST_AI], "1\nhint\n" + "1\n" * 400)
    assert rc == 0
    live, _, after = out.partition("Game over")
    assert after, "the game did not end"
    # nothing printed during the game gives the seed (nor its low 32 bits, nor its hex)
    for shown in (str(SECRET_SEED), str(SECRET_SEED % 2 ** 32), f"{SECRET_SEED:x}"):
        assert shown not in live
    assert "the deal seed is shown when the game ends" in live
    assert f"Deal seed: {SECRET_SEED}" in after
    (saved,) = saved_games(tmp_path)
    (rec,) = read_records(saved)
    assert rec.seed == SECRET_SEED and rec.result is not None


def test_an_open_game_shows_the_seed_and_every_card(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(terminal, "new_seed", lambda: SECRET_SEED)
    # the AI (seat 1) reserves blind at once in this deal? make sure with a position: it holds one
    st = State.new(2, seed=9)
    for m in ("+wbg", "rL2"):
        st.push(m)
    secret = st.seats[1].reserved[0]
    path = tmp_path / "g.jsonl"
    path.write_text(GameRecord.from_state(st, seed=9, players=["human", FAST_AI]).to_line() + "\n")
    rc, out = play_here(monkeypatch, capsys, ["--load", str(path), "--ai", FAST_AI], "board\nquit\n")
    assert f"#{secret} " not in out and "level-2 card (hidden)" in out
    rc, out = play_here(monkeypatch, capsys, ["--load", str(path), "--ai", FAST_AI, "--open"], "board\nquit\n")
    assert f"#{secret} " in out and "an open game" in out
    rc, out = play_here(monkeypatch, capsys, ["--ai", FAST_AI, "--open"], "quit\n")
    assert f"deal seed {SECRET_SEED} (an open game)" in out


# -- saving ----------------------------------------------------------------------------------------

def test_save_never_replaces_a_file_unless_asked(tmp_path):
    target = tmp_path / "precious.jsonl"
    target.write_text("58 moves of a game that must not be lost\n")
    p = run(tmp_path / "auto", "play", "--seed", "3", "--ai", FAST_AI,
            stdin=f"1\nsave {target}\nsave! {tmp_path}\n1\nsave! {target}\nquit\n")
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert f"{target} exists: not replaced. Type 'save! {target}'" in p.stdout
    assert f"Could not save to {tmp_path}" in p.stdout
    assert "Saved the game (4 moves)" in p.stdout
    (rec,) = read_records(target)
    assert len(rec.moves) == 4
    assert sorted(x.name for x in tmp_path.iterdir()) == ["auto", "precious.jsonl"]   # no temporary file left


@pytest.mark.parametrize("ending", ["quit\n", ""])
def test_the_game_is_saved_when_the_player_leaves(tmp_path, ending):
    p = run(tmp_path, "play", "--seed", "5", "--ai", FAST_AI, stdin="1\n" + ending)
    assert p.returncode == 0
    (saved,) = saved_games(tmp_path)
    assert f"is saved in {saved}" in p.stdout.replace("\n", "") and f"--load {saved}" in p.stdout.replace("\n", "")
    (rec,) = read_records(saved)
    assert len(rec.moves) == 2 and rec.seed == 5 and rec.meta["termination"] == "unfinished"
    # and it continues where it stopped
    p = run(tmp_path / "again", "play", "--load", str(saved), "--ai", FAST_AI, stdin="board\nquit\n")
    assert "2 moves played" in p.stdout


def test_ctrl_c_while_the_ai_thinks_saves_the_game(tmp_path):
    """A two-minute AI move, interrupted: the process ends long before the move would have (with
    status 130) and the game as it stood (the human's move played, the AI's not) is saved. The
    waits are for conditions, with bounds far above what they take on a busy machine."""
    proc = subprocess.Popen([sys.executable, "-m", "splendor_ai", "play", "--seed", "6", "--ai", "mcts(seconds=120)"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env(tmp_path), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    proc.stdin.write("1\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 90
    while not saved_games(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)          # the game is saved after each move: +wbg is played, the AI thinks
    assert saved_games(tmp_path), "the human's move was not saved"
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=100)
    assert time.monotonic() - t0 < 60          # the search's 120 s were not waited for
    assert proc.returncode == 130 and "Traceback" not in err, err
    (saved,) = saved_games(tmp_path)
    (rec,) = read_records(saved)
    assert rec.moves == ["+wbg"]


# -- bad files -------------------------------------------------------------------------------------

@pytest.fixture
def bad_files(tmp_path) -> dict[str, Path]:
    files = {"binary": tmp_path / "random.bin", "latin1": tmp_path / "latin1.jsonl",
             "spn_latin1": tmp_path / "pos.txt", "long": tmp_path / "long.jsonl"}
    files["binary"].write_bytes(bytes(range(256)) * 64)
    files["latin1"].write_bytes('{"format": "splendor-record/1", "meta": {"event": "Café"}}\n'.encode("latin-1"))
    files["spn_latin1"].write_bytes("SPN1 2 é\n".encode("latin-1"))
    files["long"].write_bytes(b"{" * (3 << 20) + b"\n")
    return files


def test_loading_a_bad_file_in_the_game_says_why_and_goes_on(tmp_path, bad_files):
    script = "".join(f"load {p}\n" for p in bad_files.values()) + "1\nquit\n"
    p = run(tmp_path / "auto", "play", "--seed", "3", "--ai", FAST_AI, stdin=script)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr
    assert p.stdout.count("Could not load") == 4
    assert "not UTF-8 text" in p.stdout and "longer than" in p.stdout
    assert "You play +wbg" in p.stdout                     # the game went on


@pytest.mark.parametrize("which", ["binary", "latin1", "spn_latin1", "long"])
def test_bad_files_on_the_command_line(tmp_path, bad_files, which):
    for args in (["play", "--load", str(bad_files[which])], ["analyse", "--record", str(bad_files[which])],
                 ["analyse", "--json-file", str(bad_files[which])]):
        p = run(tmp_path, *args)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        assert p.stdout == "" and len(p.stderr.splitlines()) == 1 and len(p.stderr) < 300, p.stderr


def test_analyse_checks_the_whole_record_even_with_turn(tmp_path):
    st = State.new(2, seed=3)
    for m in ("r44", "rL2", "+wbg", "rL3"):
        st.push(m)
    rec = GameRecord.from_state(st, seed=3, players=["human", "mcts"]).to_json()
    rec["moves"][3] = "b99"
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    for args in (["analyse", "--record", str(path), "--turn", "1"], ["play", "--load", str(path)]):
        p = run(tmp_path, *args)
        assert p.returncode == 2 and "b99" in p.stderr, p.stderr


# -- absurd values ---------------------------------------------------------------------------------

HUGE_SPEC = "mcts(" + "c=1," * 50_000 + ")"


@pytest.mark.parametrize("args,message", [
    (["analyse", "--deal", "1", "--spec", "mcts(workers=100000)"], "workers: expected an integer in 1-"),
    (["analyse", "--deal", "1", "--spec", "mcts(seconds=1e9)"], "seconds: expected"),
    (["analyse", "--deal", "1", "--spec", "mcts(iterations=10**11)"], "iterations must be a literal value"),
    (["analyse", "--deal", "1", "--spec", "mcts(iterations=100000000000)"], "iterations: expected"),
    (["analyse", "--deal", "1", "--spec", HUGE_SPEC], "--spec: a spec of"),
    (["analyse", "--deal", "1", "--seconds", "1e9"], "--seconds"),
    (["analyse", "--deal", "1", "--seconds", "nan"], "--seconds"),
    (["analyse", "--deal", "1", "--iterations", "1" * 5000], "--iterations"),
    (["analyse", "--deal", "1", "--top", "100000"], "--top"),
    (["play", "--ai", HUGE_SPEC], "--ai: a spec of"),
    (["play", "--ai", "mcts(dets=100000)"], "dets: expected"),
    (["play", "--ai", "expectimax(depth=1000)"], "depth: expected"),
    (["play", "--hint", "mcts(workers=100000)"], "--hint: player spec"),
    (["play", "--seed", "1" * 5000], "--seed"),
    (["engine", "--threads", "1000"], "--threads"),
])
def test_absurd_values_are_refused_at_once(capsys, args, message):
    from splendor_ai.interfaces.cli import main
    t0 = time.process_time()      # CPU time: refused before any search, thread or allocation
    try:
        rc = main(args)
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    assert time.process_time() - t0 < 5
    assert rc == 2 and message in err and "Traceback" not in err, err
    assert len(err) < 1000

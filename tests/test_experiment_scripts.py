"""The experiment scripts: run as subprocesses on tiny configs (files written, reports), stopped
and resumed, and bad input (one-line errors, exit status 2, no traceback)."""
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXP = ROOT / "experiments"
SCRIPTS = ["tournament", "head_to_head", "sweep", "strength_vs_time", "value_of_information", "rate"]


def script(name, *args, cwd=None, timeout=120):
    return subprocess.run([sys.executable, str(EXP / f"{name}.py"), *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


def load(name):
    spec = importlib.util.spec_from_file_location(f"exp_{name}", EXP / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def call(name, *argv):
    """Run a script's main in this process, as its __main__ does: the exit status."""
    from splendor_ai.tournament import cli
    return cli.main(load(name).main, name, list(map(str, argv)))


def lines(path):
    return [ln for ln in Path(path).read_text().splitlines() if ln]


@pytest.mark.parametrize("name", SCRIPTS)
def test_help(name, capsys):
    assert call(name, "--help") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {name}.py") and "--out" in out


def test_tournament_writes_results(tmp_path):
    out = tmp_path / "rr"
    r = script("tournament", "random", "greedy", "mcts(iterations=10)", "--deals", 1, "-j", 2, "--out", out)
    assert r.returncode == 0, r.stderr
    assert {p.name for p in out.iterdir()} == {"games.jsonl", "summary.json", "report.txt", "ratings.png",
                                               "win_rates.png"}
    assert len(lines(out / "games.jsonl")) == 6
    s = json.loads((out / "summary.json").read_text())
    assert s["games"]["finished"] == 6 and set(s["ratings"]) == {"random", "greedy", "mcts(iterations=10)"}
    assert len(s["matches"]) == 3 and all(m["games"] == 2 for m in s["matches"])
    report = (out / "report.txt").read_text()
    assert "Standings" in report and "W-D-L" in report and report in r.stdout
    assert "game" in r.stderr                                       # the tqdm progress bar
    # a second run resumes: nothing to play, same standings
    r2 = script("tournament", "random", "greedy", "mcts(iterations=10)", "--deals", 1, "--out", out, "--no-progress")
    assert r2.returncode == 0 and "0 played now, 6 resumed" in r2.stdout
    assert json.loads((out / "summary.json").read_text())["ratings"] == s["ratings"]
    # and rate.py re-rates the records
    r3 = script("rate", out / "games.jsonl", "--out", tmp_path / "rated")
    assert r3.returncode == 0, r3.stderr
    assert json.loads((tmp_path / "rated" / "summary.json").read_text())["ratings"] == s["ratings"]


def test_tournament_three_players_from_toml(tmp_path):
    cfg = tmp_path / "rr.toml"
    cfg.write_text('specs = ["random", "greedy", "mcts(iterations=5)"]\nplayers = 3\ndeals = 1\n'
                   f'out = "{tmp_path / "rr3"}"\nno-progress = true\n')
    r = script("tournament", "--config", cfg)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "rr3" / "summary.json").read_text())
    assert s["settings"]["players"] == 3 and s["games"]["finished"] == 3
    assert all(len(p["seat_win_rates"]) == 3 for p in s["players"].values())


def test_head_to_head_sprt_stops(tmp_path):
    out = tmp_path / "h2h"
    r = script("head_to_head", "greedy", "random", "--sprt", "--elo0", 0, "--elo1", 400, "--deals", 10,
               "--out", out, "--no-progress")
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["sprt"]["decision"] == "H1" and s["games"]["stopped_early"]
    assert s["games"]["finished"] < 20 and "H1 accepted" in r.stdout
    assert (out / "progress.png").exists() and (out / "sprt.png").exists()


def test_sweep_and_strength_vs_time(tmp_path):
    r = script("sweep", "--player", "mcts(iterations=10)", "--param", "c", "--values", "0.5,2", "--deals", 1,
               "--out", tmp_path / "sw", "--no-progress")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "sw" / "summary.json").read_text())
    assert [p["spec"] for p in s["points"]] == ["mcts(iterations=10,c=0.5)", "mcts(iterations=10,c=2)"]
    assert all(p["games"] == 2 and p["seconds_per_move"] > 0 for p in s["points"])
    assert (tmp_path / "sw" / "curve.png").exists()
    r = script("strength_vs_time", "--budgets", "5,10", "--opponent", "random", "--players", 3, "--deals", 1,
               "--out", tmp_path / "svt", "--no-progress")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "svt" / "summary.json").read_text())
    assert [p["spec"] for p in s["points"]] == ["mcts(iterations=5)", "mcts(iterations=10)"]
    assert all(p["games"] == 3 for p in s["points"]) and "win%" in r.stdout


def test_value_of_information(tmp_path):
    r = script("value_of_information", "--player", "mcts(iterations=10)", "--deals", 1, "--out", tmp_path / "voi",
               "--no-progress")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "voi" / "summary.json").read_text())
    assert s["perfect"] == "mcts(iterations=10,mode='perfect')"
    assert [m["games"] for m in s["matches"]] == [2, 2, 2]
    assert "price of hidden information" in r.stdout and (tmp_path / "voi" / "value_of_information.png").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_killed_run_resumes_without_loss(tmp_path, sig):
    out, games = tmp_path / "run", 8
    args = [sys.executable, str(EXP / "tournament.py"), "greedy", "mcts(iterations=30)", "--deals", str(games // 2),
            "--out", str(out), "--no-progress"]
    # a shell's background job (nohup ... &, some CI runners) starts with SIGINT ignored, and the
    # child would inherit that; give it the default Ctrl-C of a terminal
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not ((out / "games.jsonl").exists() and len(lines(out / "games.jsonl")) >= 2):
            time.sleep(0.05)
        if sig == signal.SIGINT:
            os.kill(p.pid, sig)                     # Ctrl-C: the main process stops its workers
        else:
            os.killpg(p.pid, sig)                   # kill -9 of the run and its workers
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    if sig == signal.SIGINT:
        assert p.returncode == 130 and "run the same command again to resume" in err and "Traceback" not in err
    first = len(lines(out / "games.jsonl"))
    if sig == signal.SIGKILL and first:             # a kill -9 may tear the last record
        try:
            json.loads(lines(out / "games.jsonl")[-1])
        except json.JSONDecodeError:
            first -= 1
    assert first < games
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(ln) for ln in lines(out / "games.jsonl")]
    keys = [(r["seed"], r["meta"]["rotation"]) for r in recs]
    assert len(recs) == games and len(set(keys)) == games
    assert f"{games - first} played now, {first} resumed" in r.stdout


@pytest.mark.parametrize("name,argv,message", [
    ("tournament", ["foo", "greedy"], "unknown player 'foo'"),
    ("tournament", ["mcts(bogus=1)", "greedy"], "player spec 'mcts(bogus=1)'"),
    ("tournament", ["mcts(iterations=-1)", "greedy"], "player spec 'mcts(iterations=-1)': iterations: expected an integer in 1-"),
    ("tournament", ["random", "greedy", "--bogus"], "unrecognized arguments: --bogus"),
    ("tournament", ["random", "greedy", "--deals", "0"], "--deals: expected a positive integer"),
    ("tournament", ["random", "greedy", "--players", "5"], "--players: invalid choice"),
    ("tournament", ["random"], "needs at least 2 player specs"),
    ("head_to_head", ["random"], "expected two player specs"),
    ("head_to_head", ["random", "greedy", "--sprt", "--players", "3"], "--sprt needs --players 2"),
    ("head_to_head", ["random", "greedy", "--sprt", "--elo0", "5", "--elo1", "0"], "elo1 > elo0"),
    ("sweep", ["--player", "mcts", "--param", "c"], "--values is required"),
    ("sweep", ["--player", "mcts", "--param", "c", "--values", "1,(2"], "unbalanced"),
    ("strength_vs_time", ["--budgets", "10,-5"], "budget -5"),
    ("value_of_information", ["--player", "greedy"], "not an mcts spec"),
    ("rate", [], "no records files given"),
    ("rate", ["/nonexistent/games.jsonl"], "no such file"),
    ("tournament", ["random", "greedy", "--module", "expansion"], "--module: invalid choice: 'expansion'"),
    ("head_to_head", ["random", "greedy", "--modules", "base", "bogus"], "--modules: invalid choice: 'bogus'"),
    ("head_to_head", ["random", "greedy", "--module", "orient", "--modules", "base"], "give --module or --modules"),
    ("sweep", ["--player", "mcts", "--param", "c", "--values", "1,2", "--modules", "orient", "orient"],
     "a module is given twice"),
])
def test_bad_input_one_line_errors(name, argv, message, tmp_path, capsys):
    assert call(name, *argv, *([] if name == "rate" else ["--out", tmp_path / "o"])) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{name}.py: error: ") and message in err and "\n" not in err


@pytest.mark.ray
def test_bad_ray_address(tmp_path, capsys):
    import ray  # noqa: F401  (the `ray` marker's run installs it: pip install -e '.[ray]')
    for address, message in [("nohost", "--ray 'nohost': expected 'local', 'auto' or HOST:PORT"),
                             ("127.0.0.1:1", "cannot reach the Ray cluster at '127.0.0.1:1'")]:
        assert call("tournament", "random", "greedy", "--ray", address, "--out", tmp_path / "o") == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("tournament.py: error: ") and message in err[-1]


def test_bad_files_and_config(tmp_path, capsys):
    good = tmp_path / "ok"
    assert call("tournament", "random", "greedy", "--deals", 1, "--out", good, "--no-progress") == 0
    text = (good / "games.jsonl").read_text().splitlines()
    capsys.readouterr()
    # a corrupt line in the middle: an error naming the file and the line, nothing played
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "games.jsonl").write_text(text[0] + "\n{\"format\": 1\n" + text[1] + "\n")
    assert call("tournament", "random", "greedy", "--deals", 1, "--out", bad, "--no-progress") == 2
    err = capsys.readouterr().err
    assert err.strip().startswith("tournament.py: error: ") and "games.jsonl: line 2:" in err
    assert call("rate", bad / "games.jsonl", "--out", tmp_path / "r") == 2
    assert "line 2" in capsys.readouterr().err
    # a truncated last line: a warning, the earlier game kept, the lost one played again
    torn = tmp_path / "torn"
    torn.mkdir()
    (torn / "games.jsonl").write_text(text[0] + "\n" + text[1][:len(text[1]) // 2])
    assert call("tournament", "random", "greedy", "--deals", 1, "--out", torn, "--no-progress") == 0
    out = capsys.readouterr()
    assert "tournament.py: warning:" in out.err and "skipping the corrupt last line" in out.err
    assert "1 played now, 1 resumed" in out.out and len(lines(torn / "games.jsonl")) == 2
    # not a records file at all
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00junk\n{}\n")
    assert call("rate", tmp_path / "bin.jsonl", "--out", tmp_path / "r") == 2
    assert "line 1: not UTF-8 text" in capsys.readouterr().err
    # TOML problems
    for body, message in [('deals = "x"\n', "option 'deals': expected a positive integer"),
                          ("dealz = 3\n", "unknown option 'dealz'"), ("deals = 3\n[x\n", "not valid TOML"),
                          ("specs = 'random'\n", "option 'specs': expected a list")]:
        cfg = tmp_path / "c.toml"
        cfg.write_text(body)
        assert call("tournament", "random", "greedy", "--config", cfg, "--out", tmp_path / "t") == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err, err


def test_no_traceback_end_to_end(tmp_path):
    r = script("tournament", "nosuchbot", "greedy", "--out", tmp_path / "x")
    assert r.returncode == 2 and r.stderr.strip() == \
        "tournament.py: error: unknown player 'nosuchbot'; known players: " + \
        r.stderr.strip().split("known players: ")[1]
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_doubling_ladder(tmp_path):
    out = tmp_path / "ladder"
    r = script("doubling_ladder", "--player", "mcts", "--budgets", "5,10,20", "--deals", "1,2", "--out", out)
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    assert [(g["a"], g["b"], g["games"]) for g in s["rungs"]] == [
        ("mcts(iterations=10)", "mcts(iterations=5)", 2), ("mcts(iterations=20)", "mcts(iterations=10)", 4)]
    assert [c["budget"] for c in s["cumulative"]] == [5, 10, 20]
    assert (out / "10_vs_5" / "games.jsonl").exists() and (out / "ladder.png").exists()
    assert "20 vs 10" in (out / "report.txt").read_text()
    r = script("doubling_ladder", "--budgets", "5,10,20", "--deals", "1,2", "--out", out, "--report-only")
    assert r.returncode == 0 and json.loads((out / "summary.json").read_text())["rungs"] == s["rungs"]
    r = script("doubling_ladder", "--budgets", "10,5", "--deals", "1", "--out", out)
    assert r.returncode == 2 and "increasing" in r.stderr and "Traceback" not in r.stderr


# -- Cities of Splendor modules --------------------------------------------------------------------

def test_head_to_head_per_module(tmp_path):
    out = tmp_path / "h2h"
    argv = ["mcts(iterations=10)", "random", "--deals", 1, "--modules", "base", "orient", "strongholds",
            "--out", out, "--no-progress"]
    r = script("head_to_head", *argv)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(ln) for ln in lines(out / "games.jsonl")]
    assert sorted(r["meta"]["module"] for r in recs) == ["base", "base", "orient", "orient", "strongholds", "strongholds"]
    assert all(r["config"]["modules"] == ([] if r["meta"]["module"] == "base" else [r["meta"]["module"]]) for r in recs)
    s = json.loads((out / "summary.json").read_text())
    assert s["modules"] == ["base", "orient", "strongholds"] and s["games"]["finished"] == 6
    assert [row["module"] for row in s["per_module"]] == ["base", "orient", "strongholds", "all"]
    assert [row["games"] for row in s["per_module"]] == [2, 2, 2, 6]
    assert all("elo_95" in row["pair"] and len(row["win_rate_95"]) == 2 for row in s["per_module"])
    assert s["match"]["games"] == 6 and s["by_module"]["orient"]["match"]["games"] == 2
    report = (out / "report.txt").read_text()
    assert "results of A per module" in report and "Elo of A (95%)" in report
    for m in ("base", "orient", "strongholds"):
        assert f"-- module: {m} " in report
    assert "-- all modules (base, orient, strongholds)" in report
    # the same command resumes every module; one module alone finds its two games
    r2 = script("head_to_head", *argv)
    assert r2.returncode == 0 and "0 played now, 6 resumed" in r2.stdout
    r3 = script("head_to_head", "mcts(iterations=10)", "random", "--deals", 1, "--module", "orient", "--out", out,
                "--no-progress")
    assert r3.returncode == 0 and "0 played now, 2 resumed" in r3.stdout and "module: orient" in r3.stdout
    assert "-- module:" not in r3.stdout                      # a single module: no sections
    # rate.py splits mixed records by module
    r4 = script("rate", out / "games.jsonl", "--out", tmp_path / "rated")
    assert r4.returncode == 0, r4.stderr
    assert "-- module: orient" in r4.stdout and "per module" in r4.stdout
    rs = json.loads((tmp_path / "rated" / "summary.json").read_text())
    assert rs["modules"] == ["base", "orient", "strongholds"] and set(rs["module_matrix"]["random"]) == \
        {"base", "orient", "strongholds", "all"}
    r5 = script("rate", out / "games.jsonl", "--module", "strongholds", "--out", tmp_path / "rated2")
    assert r5.returncode == 0 and "rated: 2" in r5.stdout and "-- module:" not in r5.stdout


def test_tournament_module_from_toml_and_sweep_per_module(tmp_path):
    cfg = tmp_path / "rr.toml"
    cfg.write_text('specs = ["random", "greedy"]\nplayers = 3\ndeals = 1\nmodule = "cities"\n'
                   f'out = "{tmp_path / "rr3"}"\nno-progress = true\n')
    # three distinct specs are needed for a 3-player round robin: add one on the command line
    r = script("tournament", "--config", cfg, "random", "greedy", "mcts(iterations=5)")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "rr3" / "summary.json").read_text())
    assert s["settings"]["module"] == "cities" and s["modules"] == ["cities"] and s["games"]["finished"] == 3
    recs = [json.loads(ln) for ln in lines(tmp_path / "rr3" / "games.jsonl")]
    assert all(r["config"]["modules"] == ["cities"] and r["meta"]["module"] == "cities" for r in recs)
    assert "module: cities" in r.stdout
    cfg2 = tmp_path / "rr2.toml"
    cfg2.write_text('specs = ["random", "greedy"]\ndeals = 1\nmodules = ["base", "posts"]\nno-progress = true\n'
                    f'out = "{tmp_path / "rr2"}"\n')
    r = script("tournament", "--config", cfg2)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "rr2" / "summary.json").read_text())
    assert set(s["modules"]) == {"base", "posts"} and s["module_matrix"]["greedy"]["posts"]["games"] == 2
    assert s["by_module"]["posts"]["matches"][0]["games"] == 2 and s["matches"][0]["games"] == 4
    assert "Win% [Wilson 95%] (games) per module" in r.stdout and "-- module: posts" in r.stdout
    r = script("sweep", "--player", "mcts(iterations=5)", "--param", "c", "--values", "0.5,2", "--deals", 1,
               "--baseline", "random", "--modules", "orient", "posts", "--out", tmp_path / "sw", "--no-progress")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "sw" / "summary.json").read_text())
    assert [p["games"] for p in s["points"]] == [4, 4]
    assert [p["games"] for p in s["by_module"]["orient"]["points"]] == [2, 2]
    assert (tmp_path / "sw" / "curve.png").exists() and "-- module: posts" in r.stdout


def test_bench_search_per_module(tmp_path):
    out = tmp_path / "search.json"
    r = subprocess.run([sys.executable, str(EXP / "bench_search.py"), "--quick", "--positions", "2", "--seconds", "0.03",
                        "--depths", "1", "--modules", "base", "posts", "--json", str(out)],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    assert "== 2 players, the base game ==" in r.stdout and "== 2 players, posts ==" in r.stdout
    assert "mean rates per module" in r.stdout and "module/base" in r.stdout
    res = json.loads(out.read_text())
    assert res["modules"] == ["base", "posts"]
    assert res["results"]["posts"]["mcts"]["median"] > 0 and res["results"]["posts"]["mcts to-end"]["median"] > 0
    assert res["results"]["posts"]["expectimax d=1"]["median"] > 0
    for fig in res["results"]["posts"].values():   # two positions: the mean and its 95% interval
        rates = [run["rate"] for run in fig["runs"]]
        assert len(rates) == 2 and fig["mean"] == pytest.approx(sum(rates) / 2)
        assert 0 <= fig["ci95"][0] <= fig["mean"] <= fig["ci95"][1]


def test_move_agreement(tmp_path):
    out = tmp_path / "agree.json"
    r = script("move_agreement", "--budgets", "30,60", "--positions", "3", "--json", out, "--no-progress")
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert data["budgets"] == [30, 60] and len(data["positions"]) == 3
    assert all(set(p) == {"30/1", "30/2", "60/1", "60/2"} for p in data["positions"])
    rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines()[2:]}
    for b in ("30", "60"):
        same = sum(p[f"{b}/1"][0] == p[f"{b}/2"][0] for p in data["positions"]) / 3
        to_ref = sum(p[f"{b}/2"][0] == p["60/1"][0] for p in data["positions"]) / 3
        assert float(rows[b][1]) == round(same, 2) and float(rows[b][4]) == round(to_ref, 2)
    for argv, message in [(["--budgets", "60,30"], "increasing"), (["--budgets", "x"], "integers"),
                          (["--budgets", "30", "--player", "mcts(bogus=1)"], "bogus")]:
        r = script("move_agreement", *argv)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr

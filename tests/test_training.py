"""Training by self-play, end to end at a tiny size: self-play files, examples, the PyTorch model
against the compiled forward pass, a resumed training equal to an uninterrupted one, and the
generation loop (self-play, train, export, gate) resumed without replaying anything.

PyTorch comes with the `train` extra, which .ci/run installs: under CI a missing torch fails."""
import json
import os

import numpy as np
import pytest

if os.environ.get("CI"):
    import torch
else:
    torch = pytest.importorskip("torch")

from splendor_ai import State, _net  # noqa: E402
from splendor_ai.train import reference as ref  # noqa: E402
from splendor_ai.train.dataset import Examples, from_records, from_selfplay  # noqa: E402
from splendor_ai.train.loop import LoopSettings, run_loop  # noqa: E402
from splendor_ai.train.model import Net, batch_tensors  # noqa: E402
from splendor_ai.train.selfplay import SelfPlayJob, read_games, run  # noqa: E402
from splendor_ai.train.trainer import TrainSettings, split_by_game, train  # noqa: E402

from test_network import random_positions  # noqa: E402


@pytest.fixture(scope="module")
def selfplay_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sp") / "sp.jsonl"
    assert run(SelfPlayJob("mcts(iterations=150)", explore=1), [1, 2, 3], path, progress=False) == 3
    return path


def test_selfplay_file_replays_and_resumes(selfplay_file):
    games = list(read_games(selfplay_file))
    assert sorted(g["seed"] for g in games) == [1, 2, 3]
    for g in games:
        st = State(g["start"])
        for m in g["moves"]:
            st.push(m)
        assert st.result().to_json() == g["result"]
        assert sum(g["target"]) == pytest.approx(1.0)
        for s in g["samples"]:
            assert s["visits"] == sorted(s["visits"], reverse=True) and len(s["keys"]) == len(s["visits"])
    # a second run plays nothing; a torn last line is cut and its game played again
    assert run(SelfPlayJob("mcts(iterations=150)", explore=1), [1, 2, 3], selfplay_file, progress=False) == 0
    data = selfplay_file.read_bytes()
    selfplay_file.write_bytes(data[:-40])
    assert run(SelfPlayJob("mcts(iterations=150)", explore=1), [1, 2, 3], selfplay_file, progress=False) == 1
    assert sorted(g["seed"] for g in read_games(selfplay_file)) == [1, 2, 3]


def test_examples_match_the_games(selfplay_file):
    ex = from_selfplay(selfplay_file)
    games = list(read_games(selfplay_file))
    assert len(ex) == sum(len(g["samples"]) for g in games)
    probs_sum = np.add.reduceat(ex.probs, ex.key_off[:-1])
    assert np.allclose(probs_sum, 1.0, atol=1e-5)
    assert np.allclose(ex.z.sum(1), 1.0) and set(ex.players.tolist()) == {2}
    # the first example is the first sample of the first game, encoded for its seat (with the
    # evaluation's terms, which a model reads only when it has inputs for them)
    g = games[0]
    s = g["samples"][0]
    st = State(g["start"])
    for m in g["moves"][:s["turn"]]:
        st.push(m)
    idx, val = ref.sparse_features(st._core, s["seat"], terms=True)
    assert np.array_equal(ex.feat_idx[:ex.feat_off[1]], idx) and np.array_equal(ex.feat_val[:ex.feat_off[1]], val)
    # a round trip of the cache format
    sub = ex.subset(np.array([2, 0, 2]))
    assert np.array_equal(sub.z[0], ex.z[2]) and np.array_equal(sub.feat_idx[:sub.feat_off[1]],
                                                              ex.feat_idx[ex.feat_off[2]:ex.feat_off[3]])


def test_examples_from_records(tmp_path):
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    from splendor_ai.records import GameRecord, append_record
    out = play_game([make_player("greedy", seed=1), make_player("greedy", seed=2)], seed=5)
    rec = GameRecord.from_state(out.final, 5, ["greedy", "greedy"], start=out.start)
    append_record(tmp_path / "r.jsonl", rec)
    ex = from_records(tmp_path / "r.jsonl")
    assert len(ex) >= len(out.moves) - 2
    assert (ex.pweight == 0.5).all() and np.isnan(ex.q).all()
    assert np.allclose(np.add.reduceat(ex.probs, ex.key_off[:-1]), 1.0)


def test_examples_from_records_replay_two_step_turns(tmp_path):
    """A Strongholds record holds whole turns (`b16/t29`: a purchase, then a stronghold on the card
    that refilled its slot): each is replayed as its engine actions, every decision an example."""
    from splendor_ai import Config
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    from splendor_ai.records import GameRecord, append_record
    out = play_game([make_player("greedy", seed=1), make_player("greedy", seed=2)], seed=3,
                    config=Config(players=2, modules=("strongholds",)))
    rec = GameRecord.from_state(out.final, 3, ["greedy", "greedy"], start=out.start)
    two_step = [m for m in rec.moves if m.startswith("b") and "/" in m]
    assert two_step, "the game has a two-step turn"
    append_record(tmp_path / "r.jsonl", rec)
    ex = from_records(tmp_path / "r.jsonl")
    st = State(out.start)
    decisions = 0
    for m in rec.moves:
        core = st._core.copy()
        for a in st._resolve(st.parse_move(m))[1]:
            decisions += len(core.legal_actions()) > 1
            core.apply(a)
        st.push(m)
    assert len(ex) == decisions and set(ex.module.tolist()) == {4}


def _random_net(h1: int, h2: int, seed: int, terms: bool = False) -> Net:
    """A model whose every weight is random (biases and output layers too, not left at zero)."""
    torch.manual_seed(seed)
    model = Net(h1, h2, terms)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return model


@pytest.mark.parametrize("terms", [False, True])
def test_torch_model_exports_the_compiled_network(terms):
    """What is trained is what the search runs: the PyTorch model on the examples' features equals
    the compiled network on the position, with or without the evaluation's terms as inputs."""
    model = _random_net(32, 16, seed=0, terms=terms)
    arrays = model.export()
    net = _net.Network(arrays)
    from splendor_ai.train.dataset import _Builder
    for core in random_positions(3, "orient", seed=4, count=5):
        keys = sorted({core.action_key(a) for a in core.legal_actions()})
        b = _Builder()
        b.add(core, core.to_move, {keys[0]: 1.0}, [1, 0, 0], None, 2, 1.0, 0)
        batch = batch_tensors(b.build(), np.array([0]), 0.0, model.nfeat)
        with torch.no_grad():
            v, p = model(*batch[:3])
        values, logits = net.evaluate(core, keys)
        pv = torch.softmax(v[0, :3], 0).numpy()
        rel = [values[(core.to_move + r) % 3] for r in range(3)]
        assert np.allclose(pv, rel, atol=1e-5) and np.allclose(p[0, keys].numpy(), logits, atol=1e-4)


def test_a_network_takes_the_evaluation_terms_as_new_inputs(selfplay_file):
    """A network's arrays load into a model that also reads the evaluation's terms (their rows at
    zero), and the compiled search computes exactly what it did; the examples hold the terms,
    which a batch for a model without them leaves out, each position keeping its own features."""
    from splendor_ai.train.reference import NFEAT, NFEAT_TERMS
    from splendor_ai.train.trainer import load_arrays
    plain = _random_net(16, 8, seed=1)
    with_terms = Net(16, 8, terms=True)
    load_arrays(with_terms, plain.export())
    a, b = plain.export(), with_terms.export()
    assert b["w1"].shape == (NFEAT_TERMS, 16) and not b["w1"][NFEAT:].any()
    assert Net.of(b).terms and not Net.of(a).terms
    na, nb = _net.Network(a), _net.Network(b)
    for core in random_positions(3, None, seed=2, count=6):
        keys = sorted({core.action_key(x) for x in core.legal_actions()})
        (va, pa), (vb, pb) = na.evaluate(core, keys), nb.evaluate(core, keys)
        assert np.allclose(va, vb, atol=1e-6) and np.allclose(pa, pb, atol=1e-6)
    with pytest.raises(ValueError, match="evaluation's terms does not fit"):
        load_arrays(Net(16, 8), b)
    ex = from_selfplay(selfplay_file)
    rows = np.arange(40)
    full, part = batch_tensors(ex, rows, 0.0, NFEAT_TERMS), batch_tensors(ex, rows, 0.0)
    fi, pi = full[0].numpy(), part[0].numpy()
    assert (fi >= NFEAT).any() and np.array_equal(pi, fi[fi < NFEAT])
    counts = [int((ex.feat_idx[ex.feat_off[r]:ex.feat_off[r + 1]] < NFEAT).sum()) for r in rows]
    assert np.array_equal(np.diff(np.append(part[1].numpy(), len(pi))), counts)
    assert np.array_equal(np.diff(np.append(full[1].numpy(), len(fi))), np.diff(ex.feat_off[:41]))


def test_a_narrower_network_widens_to_the_same_function():
    narrow = _random_net(16, 8, seed=1)
    from splendor_ai.train.trainer import load_arrays
    wide = Net(32, 24)
    load_arrays(wide, narrow.export())
    a, b = _net.Network(narrow.export()), _net.Network(wide.export())
    assert b.hidden == (32, 24)
    for core in random_positions(2, None, seed=7, count=5):
        keys = sorted({core.action_key(x) for x in core.legal_actions()})
        (va, pa), (vb, pb) = a.evaluate(core, keys), b.evaluate(core, keys)
        assert np.allclose(va, vb, atol=1e-5) and np.allclose(pa, pb, atol=1e-5)
    assert wide.export()["w1"][:, 16:].any()      # the new units have inputs to grow from
    with pytest.raises(ValueError, match="does not fit"):
        load_arrays(Net(8, 8), narrow.export())


def test_learning_curve_split_keeps_the_held_out_games(selfplay_file):
    """`train_share` trains on a share of the training games: the held-out games are those of the
    whole split, and a smaller share's games are among a larger one's."""
    parts = []
    for i in range(4):   # 12 games
        part = from_selfplay(selfplay_file)
        part.game = part.game.astype(np.int64) + 100 * i
        parts.append(part)
    ex = Examples.concat(parts)

    def games(rows):
        return set(ex.game[rows].tolist())
    whole, held = split_by_game(ex, 0.25)
    assert len(games(held)) == 3 and len(games(whole)) == 9 and not games(held) & games(whole)
    shares = [split_by_game(ex, 0.25, train_share=f) for f in (2 / 3, 1 / 3)]
    assert all(np.array_equal(va, held) for _, va in shares)
    (two_thirds, _), (third, _) = shares
    assert games(third) < games(two_thirds) < games(whole)
    assert (len(games(two_thirds)), len(games(third))) == (6, 3)
    assert np.array_equal(two_thirds, np.flatnonzero(np.isin(ex.game, list(games(two_thirds)))))


def test_value_head_against_the_search_values(selfplay_file, tmp_path):
    """`evaluate`'s search-value figures equal a direct computation over the positions (per game
    size, the search values floored at 1e-4), and records, which carry none, have none."""
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    from splendor_ai.records import GameRecord, append_record
    from splendor_ai.train.trainer import evaluate
    torch.manual_seed(3)
    model = Net(16, 8)
    ex = from_selfplay(selfplay_file)
    rows = np.arange(len(ex))
    with torch.no_grad():
        logits = model(*batch_tensors(ex, rows, 0.0)[:3])[0].numpy().astype(np.float64)
    kl = own = 0.0
    for r in rows:
        n = int(ex.players[r])
        q = np.maximum(ex.q[r, :n].astype(np.float64), 1e-4)
        q /= q.sum()
        p = np.exp(logits[r, :n] - logits[r, :n].max())
        p /= p.sum()
        kl += float((q * np.log(q / p)).sum())
        own -= float((ex.z[r, :n] * np.log(q)).sum())
    got = evaluate(model, ex, rows, TrainSettings(), batch=7)
    assert got["search_kl"] == pytest.approx(kl / len(rows), rel=1e-4)
    assert got["search_loss"] == pytest.approx(own / len(rows), rel=1e-4)
    assert got["search_kl"] > 0.0
    out = play_game([make_player("greedy", seed=1), make_player("greedy", seed=2)], seed=5)
    append_record(tmp_path / "r.jsonl", GameRecord.from_state(out.final, 5, ["greedy", "greedy"], start=out.start))
    assert set(evaluate(model, from_records(tmp_path / "r.jsonl"), rows[:20], TrainSettings())) == {
        "value_loss", "policy_loss"}


def test_interrupted_training_equals_uninterrupted(selfplay_file, tmp_path):
    ex = from_selfplay(selfplay_file)
    tr, va = split_by_game(ex, 0.3)
    s = TrainSettings(h1=16, h2=8, batch=32, steps=12, eval_every=4)
    whole, _ = train(ex, tr, va, s, tmp_path / "a", progress=False)
    part, _ = train(ex, tr, va, s, tmp_path / "b", progress=False, stop_after=5)
    assert json.loads((tmp_path / "b" / "history.json").read_text())[-1]["step"] == 5
    resumed, hist = train(ex, tr, va, s, tmp_path / "b", progress=False)
    assert hist[-1]["step"] == 12
    for k, v in whole.export().items():
        assert np.array_equal(v, resumed.export()[k]), k


def test_generation_loop_runs_and_resumes(tmp_path):
    s = LoopSettings(games=2, sims=60, explore=1, window=2, gate_games=2, gate_iterations=40,
                     train=TrainSettings(h1=16, h2=8, batch=32, steps=6, eval_every=3))
    state = run_loop(tmp_path, s, 1, progress=False, log=lambda *a: None)
    assert state["generation"] == 1 and len(state["history"]) == 1
    gate = state["history"][0]["gate"]
    assert gate["games"] == 2 and "accept" in gate
    assert (tmp_path / "nets" / "gen000.npz").exists() and (tmp_path / "report.md").exists()
    before = (tmp_path / "selfplay" / "gen000.jsonl").read_bytes()
    state = run_loop(tmp_path, s, 2, progress=False, log=lambda *a: None)
    assert state["generation"] == 2
    assert (tmp_path / "selfplay" / "gen000.jsonl").read_bytes() == before
    with pytest.raises(ValueError, match="other settings"):
        run_loop(tmp_path, LoopSettings(games=3), 3, progress=False, log=lambda *a: None)


def test_loop_report_gives_each_gate_in_its_own_terms(tmp_path):
    """A 2-player gate reads W-D-L and Elo; a 3-4 player gate, which has neither, its win share
    against copies of the best and the level (it once read None-None-None)."""
    from splendor_ai.train.loop import gate_text, write_report
    two = {"players": 2, "games": 6, "wins": 3, "draws": 1, "losses": 2, "elo": 58.5, "elo_95": [-120.0, 260.0], "accept": False}
    three = {"players": 3, "games": 300, "score": 101 / 300, "score_95": [0.2856, 0.3919], "level": 1 / 3, "accept": False}
    assert gate_text(two) == "3-1-2, Elo 58.5 [-120.0, 260.0]"
    assert gate_text(three) == "300 games, share 33.7% [28.6, 39.2], level 33.3%"
    (tmp_path / "run.json").write_text("{}")
    losses = {"val_value": 1.004, "val_policy": 2.046}
    state = {"best": "start.npz", "history": [{"generation": 0, "gate": three, "losses": losses, "positions": 10, "hours": 0.5}]}
    write_report(tmp_path, state)
    report = (tmp_path / "report.md").read_text()
    assert "| 0 | 10 | 1.0040 | 2.0460 | 300 games, share 33.7% [28.6, 39.2], level 33.3% | no | 0.5 |" in report
    assert "None" not in report and (tmp_path / "training.png").stat().st_size > 0


def test_examples_encoded_on_processes_equal_those_of_one(selfplay_file, tmp_path):
    """The examples of several files encoded on two processes (then read from their caches) are
    those encoded one file after the other."""
    from splendor_ai.train.loop import _examples
    second = tmp_path / "second.jsonl"
    second.write_bytes(selfplay_file.read_bytes())
    files = [str(selfplay_file), str(tmp_path / "missing.jsonl"), str(second)]
    one = _examples(files, tmp_path / "one")
    two = _examples(files, tmp_path / "two", jobs=2)
    assert len(one) > 0 and len(one) == len(two)
    for name in Examples.__dataclass_fields__:
        assert np.array_equal(getattr(one, name), getattr(two, name), equal_nan=True), name
    assert len(set(one.game.tolist())) == 2 * len(set((one.game % 10_000_000).tolist()))


def read_network_arrays(path):
    from splendor_ai.players.network import read_network
    return read_network(path)[0]


def test_train_script_plays_then_fits_a_network(tmp_path):
    """experiments/train.py from the command line: `selfplay` writes its games (and a second run
    plays none), `fit` (encoding on two processes) writes a network the searches load."""
    import subprocess
    import sys
    from pathlib import Path
    from splendor_ai.players import make_player
    script = Path(__file__).resolve().parents[1] / "experiments" / "train.py"
    sp = tmp_path / "sp.jsonl"

    def train_py(*args):
        return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=300)

    for played in ("2 games", "0 games"):
        p = train_py("selfplay", "--spec", "mcts(iterations=60)", "--games", "2", "--out", str(sp))
        assert p.returncode == 0 and f"{played} played into" in p.stdout, p.stderr
    p = train_py("fit", "--data", str(sp), "--out", str(tmp_path / "bad"), "-j", "0")
    assert p.returncode == 2 and "expected a positive integer, got '0'" in p.stderr and not (tmp_path / "bad").exists()
    for share in ("0", "1.5", "half"):
        p = train_py("fit", "--data", str(sp), "--out", str(tmp_path / "bad"), "--train-share", share)
        assert p.returncode == 2 and f"expected a share in (0, 1], got '{share}'" in p.stderr
        assert not (tmp_path / "bad").exists()
    p = train_py("fit", "--data", str(sp), "--out", str(tmp_path / "run"), "-j", "2", "--h1", "16", "--h2", "8",
                 "--steps", "4", "--batch", "16", "--eval-every", "2", "--held-out", "0.5")
    assert p.returncode == 0, p.stderr
    net = tmp_path / "run" / "net.npz"
    assert "net.npz sha256" in p.stdout and net.exists()
    st = State.new(2, seed=4)
    d = make_player(f"mcts(eval='net',net='{net}',iterations=50)", seed=1).choose(st.view())
    assert d.move in st.legal_moves and d.info.extra["eval"] == str(net)
    # --terms: the network also reads the evaluation's terms, grown from the first one
    p = train_py("fit", "--data", str(sp), "--out", str(tmp_path / "terms"), "--init", str(net), "--terms",
                 "--h1", "16", "--h2", "8", "--steps", "4", "--batch", "16", "--eval-every", "2", "--held-out", "0.5")
    assert p.returncode == 0, p.stderr
    from splendor_ai.train.reference import NFEAT_TERMS
    tnet = tmp_path / "terms" / "net.npz"
    assert read_network_arrays(tnet)["w1"].shape == (NFEAT_TERMS, 16)
    d = make_player(f"mcts(eval='net',net='{tnet}',iterations=50)", seed=1).choose(st.view())
    assert d.move in st.legal_moves
    # `evaluate`: the fitted network's losses on the games, as the trainer computes them
    p = train_py("evaluate", str(net), "--data", str(sp))
    assert p.returncode == 0, p.stderr
    from splendor_ai.players.network import read_network
    from splendor_ai.train.trainer import evaluate_by_kind, load_arrays
    ex = from_selfplay(sp)
    model = Net(16, 8)
    load_arrays(model, read_network(net)[0])
    v = evaluate_by_kind(model, ex, np.arange(len(ex)), TrainSettings())["2p base"]
    assert p.stdout.strip() == (f"{net} 2p base: value {v['value_loss']:.4f}  policy {v['policy_loss']:.4f}  "
                                f"search values: divergence {v['search_kl']:.4f}, their value {v['search_loss']:.4f}  "
                                f"({v['positions']} positions)")
    p = train_py("evaluate", "net-9p-none", "--data", str(sp))
    assert p.returncode == 2 and "unknown network 'net-9p-none'" in p.stderr
    p = train_py("evaluate", str(net), "--data", str(sp), str(tmp_path / "none.jsonl"))
    assert p.returncode == 2 and f"no such data file: {tmp_path / 'none.jsonl'}" in p.stderr
    (tmp_path / "empty.jsonl").write_text("")
    p = train_py("evaluate", str(net), "--data", str(tmp_path / "empty.jsonl"))
    assert p.returncode == 2 and "no positions in --data" in p.stderr
    np.savez(tmp_path / "bad.npz", **dict(read_network(net)[0], w2=np.zeros((16, 7), np.float32)), meta=np.array(
        json.dumps(read_network(net)[1])))
    p = train_py("evaluate", str(tmp_path / "bad.npz"), "--data", str(sp))
    assert p.returncode == 2 and "bad.npz" in p.stderr and "Traceback" not in p.stderr


def test_select_records_keeps_the_asked_games_once(tmp_path):
    """`select_records` (and `train.py records`): the finished games of one player count and
    module between search players, each once, in file order, without the deals left out; the
    script writes them whole or not at all."""
    import subprocess
    import sys
    from pathlib import Path
    from splendor_ai import Config
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    from splendor_ai.records import GameRecord, append_record, read_records
    from splendor_ai.train.dataset import select_records

    def record(seed, specs, config=None):
        out = play_game([make_player(s, seed=i) for i, s in enumerate(specs)], seed=seed,
                        config=config or Config(players=len(specs)))
        return GameRecord.from_state(out.final, seed, specs, start=out.start)

    search = ["mcts(iterations=20)"] * 3
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    kept1, kept2, kept3 = record(1, search), record(2, search), record(7, search)
    for rec in (kept1, record(3, search), record(4, ["greedy"] + search[1:]), record(5, search[:2])):
        append_record(a, rec)
    for rec in (kept2, kept1, record(6, search, Config(players=3, modules=("orient",))), kept3):
        append_record(b, rec)
    got = list(select_records([a, b], 3, exclude_seeds=((3, 3), (10, 20))))
    assert [r.to_line() for r in got] == [kept1.to_line(), kept2.to_line(), kept3.to_line()]
    assert [r.seed for r in select_records([b], 3, "orient")] == [6]
    script = Path(__file__).resolve().parents[1] / "experiments" / "train.py"

    def train_py(*args):
        return subprocess.run([sys.executable, str(script), "records", *args], capture_output=True, text=True,
                              timeout=120)

    out = tmp_path / "p3.jsonl"
    p = train_py(str(tmp_path / "*.jsonl"), "--players", "3", "--exclude-seeds", "3", "10-20", "--out", str(out))
    assert p.returncode == 0 and "3 games from 2 files" in p.stdout, p.stderr
    assert [r.to_line() for r in read_records(out)] == [r.to_line() for r in got]
    before = out.read_bytes()
    p = train_py(str(a), "--players", "3", "--exclude-seeds", "20-10", "--out", str(out))
    assert p.returncode == 2 and "expected 0 <= LO <= HI, got '20-10'" in p.stderr
    p = train_py(str(a), "--players", "3", "--out", str(a))
    assert p.returncode == 2 and "is one of the files read" in p.stderr
    (tmp_path / "bad.jsonl").write_text('{"format": "splendor-record/1"}\n' + kept1.to_line() + "\n")
    p = train_py(str(tmp_path / "bad.jsonl"), "--players", "3", "--out", str(out))
    assert p.returncode == 2 and "line 1" in p.stderr and "Traceback" not in p.stderr
    assert out.read_bytes() == before and not (tmp_path / "p3.jsonl.part").exists()


def test_reanalyse_searches_recorded_positions_again(tmp_path, monkeypatch):
    """`reanalyse` (and `train.py reanalyse`): a self-play line per finished record with the
    record's start, moves and outcome, samples at every `every`-th turn from `index % every`
    (plus the decisions below the root of a searched turn, here a Strongholds purchase's
    placement), legal keys, the searcher given the mover's view only; the same run gives the same
    file; a second run adds nothing and a torn line is searched again; the file encodes."""
    import subprocess
    import sys
    from pathlib import Path
    from splendor_ai import Config
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    from splendor_ai.records import GameRecord, append_record
    from splendor_ai.state import View
    from splendor_ai.train import reanalyse as ra

    records = tmp_path / "r.jsonl"
    for seed, config in ((1, Config(players=3)), (2, Config(players=2, modules=("strongholds",)))):
        out = play_game([make_player("greedy", seed=i) for i in range(config.players)], seed=seed, config=config)
        append_record(records, GameRecord.from_state(out.final, seed, ["greedy"] * config.players, start=out.start))
    seen = []

    def spy(spec, seed=0):
        player = make_player(spec, seed=seed)
        choose = player.choose

        def checked(view):
            seen.append(type(view))
            return choose(view)
        player.choose = checked
        return player

    monkeypatch.setattr(ra, "make_player", spy)
    job = ra.ReanalyseJob("mcts(iterations=60)", every=4)
    out1 = tmp_path / "a.jsonl"
    assert ra.run(job, records, out1, progress=False) == 2
    assert seen and set(seen) == {View}
    games = list(read_games(out1))
    recs = [GameRecord.from_line(line) for line in records.read_text().splitlines()]
    assert [g["seed"] for g in games] == [0, 1] and [g["deal"] for g in games] == [1, 2]
    below_root = 0
    for index, (g, rec) in enumerate(zip(games, recs)):
        assert g["start"] == rec.start and g["moves"] == rec.moves
        assert g["target"] == [1.0 if s in rec.result.winners else 0.0 for s in range(rec.config.players)]
        turns = sorted({s["turn"] for s in g["samples"] if not s["pre"]})
        st = State(rec.start)
        for t in range(len(rec.moves)):
            if t % 4 == index % 4 and len(st.legal_moves) > 1:
                assert t in turns
            for s in (s for s in g["samples"] if s["turn"] == t):
                assert t % 4 == index % 4 and s["seat"] == st.to_move
                core = st._core.copy()
                for a in s["pre"]:
                    core.apply(a)
                assert set(s["keys"]) <= {core.action_key(a) for a in core.legal_actions()}
                assert s["visits"] == sorted(s["visits"], reverse=True) and sum(s["q"]) == pytest.approx(1, abs=1e-3)
                below_root += bool(s["pre"])
            st.push(rec.moves[t])
    assert below_root > 0
    assert len(from_selfplay(out1)) == sum(len(g["samples"]) for g in games)
    # reproducible; resumable
    out2 = tmp_path / "b.jsonl"
    assert ra.run(job, records, out2, progress=False) == 2 and out2.read_bytes() == out1.read_bytes()
    assert ra.run(job, records, out2, progress=False) == 0
    out2.write_bytes(out2.read_bytes()[:-30])
    assert ra.run(job, records, out2, jobs=2, progress=False) == 1 and out2.read_bytes() == out1.read_bytes()
    assert ra.run(ra.ReanalyseJob("mcts(iterations=60)", every=5), records, out2, games=1, progress=False) == 1
    # the script: the same file; bad input named
    script = Path(__file__).resolve().parents[1] / "experiments" / "train.py"

    def train_py(*args):
        return subprocess.run([sys.executable, str(script), "reanalyse", *args], capture_output=True, text=True,
                              timeout=120)
    p = train_py(str(records), "--spec", "mcts(iterations=60)", "--every", "4", "--out", str(tmp_path / "c.jsonl"))
    assert p.returncode == 0 and (tmp_path / "c.jsonl").read_bytes() == out1.read_bytes()
    for args, says in ((["--spec", "mcts(iterations=-1)"], "iterations"), (["--spec", "mcts(iterations=9)", "--every", "0"], "every"),
                       (["--spec", "mcts(iterations=9)"], "no such records file")):
        target = str(tmp_path / "nope.jsonl") if says == "no such records file" else str(records)
        p = train_py(target, *args, "--out", str(tmp_path / "d.jsonl"))
        assert p.returncode == 2 and says in p.stderr and "Traceback" not in p.stderr
        assert not (tmp_path / "d.jsonl").exists()

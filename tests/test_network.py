"""The value and policy network: the compiled forward pass equals the numpy reference, features see
only what the seat may know, network files are checked, and searches with a network stay
reproducible and still find forced wins."""
import json
import random

import numpy as np
import pytest

from splendor_ai import Config, State, _features, _net
from splendor_ai.errors import ConfigError
from splendor_ai.players import make_player
from splendor_ai.players.mcts import NET_C, NET_MIX, NET_PRIOR_SHARE
from splendor_ai.players.network import _nets_dir, default_network, load_network, read_network, save_network, sha256, shipped
from splendor_ai.train import reference as ref

from test_players import BUY_TO_WIN, BUY_TO_WIN_3P, NOBLE_TO_WIN, winning_moves

NKEYS = 1178
MODULES = (None, "cities", "orient", "posts", "strongholds")


def random_arrays(h1=32, h2=16, seed=0, scale=1.0, terms=False):
    rng = np.random.default_rng(seed)
    f = _features.FEATURES["nfeat_terms" if terms else "nfeat"]
    a = {"w1": rng.normal(0, 0.2 * scale, (f, h1)), "b1": rng.normal(0, 0.1, h1),
         "w2": rng.normal(0, 0.3 * scale, (h1, h2)), "b2": rng.normal(0, 0.1, h2),
         "wv": rng.normal(0, 0.5 * scale, (4, h2)), "bv": rng.normal(0, 0.1, 4),
         "wp": rng.normal(0, 0.5 * scale, (NKEYS, h2)), "bp": rng.normal(0, 0.1, NKEYS)}
    return {k: np.ascontiguousarray(v, np.float32) for k, v in a.items()}


@pytest.fixture(scope="module")
def net_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "random.npz"
    save_network(path, random_arrays(), {"name": "random-test"})
    return str(path)


def random_positions(players, module, seed, count=12):
    """True states along a random game (every phase of a turn, decisions included)."""
    rng = random.Random(seed)
    config = Config(players, modules=(module,) if module else ())
    st = State.new(players, seed=seed, config=config)
    core = st._core.copy()
    out = []
    while not core.over and len(out) < count:
        for _ in range(rng.randrange(1, 6)):
            if core.over:
                break
            core.apply(rng.choice(core.legal_actions()))
        if not core.over:
            out.append(core.copy())
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("module", MODULES)
# the kernels' 8-column path, then their 64-column blocks with 8 columns left over (weights scaled
# down so that the outputs stay a few units large, where float32 keeps 1e-5)
@pytest.mark.parametrize("hidden", [(48, 24, 1.0), (136, 72, 0.5)])
@pytest.mark.parametrize("terms", [False, True])
def test_compiled_forward_equals_numpy_reference(players, module, hidden, terms):
    arrays = random_arrays(h1=hidden[0], h2=hidden[1], seed=players, scale=hidden[2], terms=terms)
    net = _net.Network(arrays)
    for core in random_positions(players, module, seed=players * 7 + len(module or "")):
        keys = sorted({core.action_key(a) for a in core.legal_actions()})
        values, logits = net.evaluate(core, keys)
        rv, rl = ref.forward(arrays, core, keys)
        assert np.allclose(values, rv, atol=1e-5) and np.allclose(logits, rl, atol=1e-5)
        assert sum(values) == pytest.approx(1.0, abs=1e-5) and len(values) == players


def test_features_are_bounded_and_sparse():
    for players in (2, 3, 4):
        for module in MODULES:
            for core in random_positions(players, module, seed=3):
                for seat in range(players):
                    idx, val = ref.sparse_features(core, seat)
                    tidx, tval = ref.sparse_features(core, seat, terms=True)
                    assert np.array_equal(tidx[:len(idx)], idx) and np.array_equal(tval[:len(val)], val)
                    assert ((0 <= idx) & (idx < _features.FEATURES["nfeat"])).all()
                    assert (tidx[len(idx):] >= _features.FEATURES["nfeat"]).all()
                    assert len(tidx) == len(set(tidx.tolist())) <= _features.FEATURES["maxactive"]
                    assert (tidx < _features.FEATURES["nfeat_terms"]).all()
                    assert np.isfinite(tval).all() and (np.abs(tval) <= 10).all() and (tval != 0).all()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_evaluation_terms_as_features(players):
    """The network's optional inputs are the classic evaluation's terms: their weighted sum is the
    evaluation (base game), and the features hold each seat's terms, scaled, counted from the seat
    encoded for, another seat's blind reserves left out."""
    from splendor_ai import _policy
    rng = np.random.default_rng(players)
    nfeat, scale = _features.FEATURES["nfeat"], np.array(_features.FEATURES["term_scale"])
    for core in random_positions(players, None, seed=players * 11, count=20):
        w = rng.normal(0, 1, 16)
        want = _policy.evaluate(core, w.tolist())
        for seat in range(players):
            t = np.array(_policy.terms(core, seat))
            assert float(w @ t) == pytest.approx(want[seat], rel=1e-4, abs=1e-4)
            idx, val = ref.sparse_features(core, seat, terms=True)
            got = np.zeros(4 * 16)
            sel = idx >= nfeat
            got[idx[sel] - nfeat] = val[sel]
            for r in range(players):
                q = (seat + r) % players
                seen = np.array(_policy.terms(core, q, hide_blind=r != 0))
                assert np.allclose(got[16 * r:16 * r + 16], (seen * scale).astype(np.float32), atol=1e-6)
            assert not got[16 * players:].any()
    with pytest.raises(ValueError, match="seat must be"):
        _policy.terms(core, players)


def test_features_read_only_what_the_seat_may_know():
    """Twin worlds of one view (every hidden card resampled) encode the same for that seat, the
    evaluation's terms included, while the opponent's own features see its blind reserve."""
    changed_for_holder = 0
    for players in (2, 3, 4):
        for module in MODULES:
            st = State.new(players, seed=5, config=Config(players, modules=(module,) if module else ()))
            core = st._core.copy()
            rng = random.Random(players)
            while not core.over and core.turn < 12 * players:
                acts = core.legal_actions()
                blind = [a for a in acts if 48 <= a < 54]   # A_RES_DECK: reserve a deck's top card
                core.apply(rng.choice(blind) if blind and rng.random() < 0.5 else rng.choice(acts))
            for seat in range(players):
                view = core.hidden_for(seat)
                base = ref.dense_features(core, seat, terms=True)
                for k in range(4):
                    world = view.determinized(1000 + k)
                    assert np.array_equal(ref.dense_features(world, seat, terms=True), base)
                    if any(not np.array_equal(ref.dense_features(world, q, terms=True),
                                              ref.dense_features(core, q, terms=True))
                           for q in range(players) if q != seat):
                        changed_for_holder += 1
    assert changed_for_holder > 0   # the worlds did differ where someone else could see it


def test_known_features_of_the_start():
    st = State.new(2, seed=1)
    x = ref.dense_features(st._core, 0)
    f = _features.FEATURES
    assert x[0] == 1 and x[1] == 0 and x[2] == 0          # two players
    assert x[3] == 1                                        # the base game
    assert x[8] == 1                                        # the main phase
    assert np.allclose(x[23:29], [4 / 7] * 5 + [1.0])      # the bank: 4 of each colour, 5 gold
    for level, row in enumerate(st.market):
        for card in row:
            assert x[290 + card] == 1
    assert x.sum() > 0 and len(x) == f["nfeat"]


def test_network_file_round_trip_and_errors(tmp_path, net_file):
    arrays, meta = read_network(net_file)
    assert meta["name"] == "random-test" and meta["format"] == "splendor-net/1"
    assert all(np.array_equal(arrays[k], v) for k, v in random_arrays().items())
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file at all")
    with pytest.raises(ConfigError, match="not a network file"):
        read_network(bad)
    arr = random_arrays()
    np.savez(tmp_path / "fmt.npz", meta=np.array(json.dumps({"format": "other/1"})), **arr)
    with pytest.raises(ConfigError, match="format"):
        read_network(tmp_path / "fmt.npz")
    np.savez(tmp_path / "ver.npz", meta=np.array(json.dumps({"format": "splendor-net/1", "features": 999})), **arr)
    with pytest.raises(ConfigError, match="features version 999"):
        read_network(tmp_path / "ver.npz")
    arr["w2"] = arr["w2"][:, :8]
    save_network(tmp_path / "shape.npz", arr, {})
    with pytest.raises(ConfigError, match="shape"):
        load_network(str(tmp_path / "shape.npz"))
    with pytest.raises(ConfigError, match="unknown network"):
        make_player("mcts(eval='net',net='no-such-network')")


@pytest.mark.parametrize("extra", ["", ",cutoff=4", ",priors='net'", ",priors='net',values='classic'", ",net_mix=0.5",
                                   ",net_mix=0.5,priors='net'", ",workers=2",
                                   ",halving=0"])
def test_network_search_is_reproducible(net_file, extra):
    st = State.new(2, seed=21)
    for m in ["+wbg", "+grk", "+wbr"]:
        st.push(m)
    spec = f"mcts(iterations=600,eval='net',net='{net_file}'{extra})"
    d1 = make_player(spec, seed=4).choose(st.view())
    d2 = make_player(spec, seed=4).choose(st.view())
    assert d1.move == d2.move
    assert [(str(m.move), m.visits) for m in d1.info.moves] == [(str(m.move), m.visits) for m in d2.info.moves]
    assert d1.info.extra["eval"] == net_file


def test_network_search_does_not_depend_on_hidden_cards(net_file):
    """The same view over two true states that differ in hidden cards gives the same search."""
    st = State.new(2, seed=9)
    for m in ["+wbg", "rL2", "+wbk", "rL1"]:
        st.push(m)
    view = st.view(0)
    twin = view.resample(random.Random(3))
    assert twin.view(0) == view and twin.position() != st.position()
    spec = f"mcts(iterations=500,eval='net',net='{net_file}')"
    a = make_player(spec, seed=2).choose(st.view(0))
    b = make_player(spec, seed=2).choose(twin.view(0))
    assert [(str(m.move), m.visits, m.value) for m in a.info.moves] == \
           [(str(m.move), m.visits, m.value) for m in b.info.moves]


@pytest.mark.parametrize("position,expected", [(BUY_TO_WIN, "b45"), (NOBLE_TO_WIN, "b17/n5"),
                                               (BUY_TO_WIN_3P, "b45")])
@pytest.mark.parametrize("kind", ["mcts", "mcts-cutoff", "expectimax"])
def test_forced_win_is_found_with_a_network(net_file, position, expected, kind):
    st = State(position)
    assert winning_moves(st) == {expected}
    spec = {"mcts": f"mcts(iterations=400,eval='net',net='{net_file}')",
            "mcts-cutoff": f"mcts(iterations=400,eval='net',net='{net_file}',cutoff=2)",
            "expectimax": f"expectimax(depth=1,eval='net',net='{net_file}')"}[kind]
    decision = make_player(spec, seed=11).choose(st.view())
    assert str(decision.move) == expected
    assert decision.info.moves[0].value == pytest.approx(1.0)


def test_network_priors_follow_the_policy_head(net_file):
    """With priors='net' the root priors of a search are the softmax of the policy logits of the
    legal keys; without, they are the heuristic ones."""
    st = State.new(2, seed=2)
    net = load_network(net_file)
    core = st._core
    keys = sorted({core.action_key(a) for a in core.legal_actions()})
    _, logits = net.evaluate(core, keys)
    p = np.exp(np.array(logits) - max(logits))
    p /= p.sum()
    expected = dict(zip(keys, p))
    for values in ("net", "classic"):       # network priors over either kind of leaf
        player = make_player(f"mcts(iterations=200,eval='net',net='{net_file}',halving=0,priors='net',"
                             f"values='{values}')", seed=1)
        player.choose(st.view())
        for key, visits, w, prior in player.last_search.trees[0].root_stats():
            assert prior == pytest.approx(expected[key], rel=1e-4)
    # priors='classic': a network search with the heuristic priors, the classic search's
    priors = []
    for spec in (f"mcts(iterations=200,eval='net',net='{net_file}',halving=0,priors='classic')",
                 "mcts(iterations=200,eval='classic',halving=0)"):
        player = make_player(spec, seed=1)
        player.choose(st.view())
        priors.append(sorted((key, prior) for key, _, _, prior in player.last_search.trees[0].root_stats()))
    assert priors[0] == priors[1] and len({p for _, p in priors[0]}) > 1


def test_network_prior_share_mixes_the_two_priors(net_file):
    """net_prior_share mixes the policy head's priors with the heuristic ones: at 0 the search is
    the heuristic-prior search move for move (the same c), at 1 the network-prior one, and between
    each root prior is that share of the network's plus the rest of the heuristic's."""
    st = State.new(2, seed=2)
    for m in ["+wbg", "+grk"]:
        st.push(m)

    def run(spec):
        player = make_player(f"mcts(iterations=400,eval='net',net='{net_file}',halving=0,{spec})", seed=5)
        d = player.choose(st.view())
        stats = {key: prior for key, _, _, prior in player.last_search.trees[0].root_stats()}
        return [(str(m.move), m.visits, m.value) for m in d.info.moves], stats

    heuristic, h = run("priors='classic',c=1.0")
    network, n = run("priors='net'")
    assert run("priors='net',net_prior_share=0") == (heuristic, h)
    assert run("priors='net',net_prior_share=1") == (network, n)
    assert run("") == run("net_prior_share=0.5") == run("priors='net',net_prior_share=0.5")   # the default
    half, m = run("priors='net',net_prior_share=0.25")
    assert half != heuristic and half != network
    common = m.keys() & n.keys() & h.keys()   # the root children all three searches tried
    assert len(common) >= 5
    for key in common:
        assert m[key] == pytest.approx(0.25 * n[key] + 0.75 * h[key], rel=1e-4, abs=1e-6)
    with pytest.raises(ConfigError, match="net_prior_share"):
        make_player(f"mcts(eval='net',net='{net_file}',priors='net',net_prior_share=1.5)")
    with pytest.raises(ConfigError, match="net_prior_share"):
        make_player(f"mcts(eval='net',net='{net_file}',priors='classic',net_prior_share=0.5)")


def test_network_values_or_classic_leaves(net_file):
    """By default a leaf's value mixes the network's with a classic playout's (NET_MIX, the
    classic cutoff) under priors mixed of the policy head's and the heuristic ones
    (NET_PRIOR_SHARE, c=NET_C); net_mix=1 is the network alone (cutoff 0); priors='net' takes the
    policy head's alone, priors='classic' the heuristic ones (with the classic c), values='classic'
    keeps the classic leaves; with neither the network's priors nor its values the spec is refused."""
    view = State.new(2, seed=2).view()
    classic = make_player("mcts(eval='classic')").search_params(view)
    default = make_player(f"mcts(eval='net',net='{net_file}')").search_params(view)
    both = make_player(f"mcts(eval='net',net='{net_file}',priors='net')").search_params(view)
    priors = make_player(f"mcts(eval='net',net='{net_file}',priors='net',values='classic')").search_params(view)
    assert (default["net_values"], default["net_priors"], default["cutoff"], default["c"], default["net_mix"],
            default["net_prior_share"]) == (1, 1, classic["cutoff"], NET_C, NET_MIX, NET_PRIOR_SHARE)
    assert (both["net_values"], both["net_priors"], both["cutoff"], both["c"], both["net_prior_share"]) == \
        (1, 1, classic["cutoff"], NET_C, 1.0)
    heuristic = make_player(f"mcts(eval='net',net='{net_file}',priors='classic')").search_params(view)
    assert (heuristic["net_values"], heuristic["net_priors"], heuristic["c"]) == (1, 0, classic["c"])
    alone = make_player(f"mcts(eval='net',net='{net_file}',net_mix=1)").search_params(view)
    assert (alone["net_values"], alone["net_mix"], alone["cutoff"]) == (1, 1.0, 0)
    assert (priors["net_values"], priors["net_priors"]) == (0, 1)
    assert priors["cutoff"] == classic["cutoff"] == 8 and priors["c"] == NET_C
    mixed = make_player(f"mcts(eval='net',net='{net_file}',net_mix=0.25)").search_params(view)
    assert (mixed["net_values"], mixed["net_mix"], mixed["cutoff"]) == (1, 0.25, classic["cutoff"])
    for bad in ("0", "1.5", "-0.5", "True"):
        with pytest.raises(ConfigError, match="net_mix"):
            make_player(f"mcts(eval='net',net='{net_file}',net_mix={bad})")
    with pytest.raises(ConfigError, match="nothing to do"):
        make_player(f"mcts(eval='net',net='{net_file}',priors='classic',values='classic')")
    mixed_priors = make_player(f"mcts(eval='net',net='{net_file}',values='classic')").search_params(view)
    assert (mixed_priors["net_values"], mixed_priors["net_priors"]) == (0, 1)
    with pytest.raises(ConfigError, match="values"):
        make_player(f"mcts(eval='net',net='{net_file}',values='playout')")


def test_ship_writes_the_file_its_checksum_and_check_value(net_file, tmp_path):
    from splendor_ai.train.ship import check_value, ship
    entry = ship(net_file, "test-net", {"base": [2, 3], "orient": [2]}, data=["self-play: a test"], nets_dir=tmp_path)
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["networks"]["test-net"] == entry and index["format"] == "splendor-nets/1"
    assert entry["sha256"] == sha256(tmp_path / "test-net.npz")
    arrays, meta = read_network(tmp_path / "test-net.npz")
    assert meta["name"] == "test-net" and meta["data"] == ["self-play: a test"]
    net = _net.Network(arrays)
    assert set(entry["check"]) == {"2p base", "3p base", "2p orient"}
    assert entry["check"]["3p base"] == check_value(net, 3, None) and len(entry["check"]["3p base"]) == 3
    assert entry["check"]["2p orient"] == check_value(net, 2, "orient")
    # a network shipped as no game's default yet still has a check value (2-player base game)
    other = ship(net_file, "test-net-2", {}, nets_dir=tmp_path)
    assert other["default_for"] == {} and other["check"] == {"2p base": check_value(net, 2, None)}
    # a new default for a game takes it over: the older network keeps its other games and its checks
    ship(net_file, "test-net-3", {"orient": [2], "base": [3]}, nets_dir=tmp_path)
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["networks"]["test-net"]["default_for"] == {"base": [2]}
    assert set(index["networks"]["test-net"]["check"]) == {"2p base", "3p base", "2p orient"}
    assert index["networks"]["test-net-3"]["default_for"] == {"orient": [2], "base": [3]}


def test_shipped_networks_load_match_their_checksum_and_check_values():
    """Every shipped network: its file matches the index's SHA-256, it loads by name, it gives the
    index's check value on the fixed position (the model card documents it), and the default
    search of the games it is the default for uses it."""
    from splendor_ai.train.ship import check_value, check_position
    nets = shipped()
    assert nets, "no shipped network"
    for name, entry in nets.items():
        path = _nets_dir() / entry["file"]
        assert sha256(path) == entry["sha256"]
        card = (_nets_dir() / f"{name}.md").read_text()
        assert entry["sha256"] in card
        net = load_network(name)
        for kind, value in entry["check"].items():
            players, module = int(kind[0]), kind.split()[1]
            module = None if module == "base" else module
            assert check_value(net, players, module) == pytest.approx(value, abs=1e-5)
            assert abs(sum(value) - 1) < 1e-4
            if players in entry["default_for"].get(kind.split()[1], []):
                assert default_network(players, module) == name
                d = make_player("mcts(iterations=50)").choose(check_position(players, module).view())
                assert d.info.extra["eval"] == name
        assert entry["check"], f"{name}: no check value"
        for module, players in entry["default_for"].items():
            assert all(f"{p}p {module}" in entry["check"] for p in players)


def test_mixed_leaf_values_lie_between_the_network_and_the_playouts(net_file):
    """With net_mix, a root child's mean value is the mix of what the network alone and the
    classic playouts alone give it: a search of one iteration per child, the same playouts."""
    st = State.new(2, seed=4)
    values = {}
    for mix in (1.0, 0.5):
        cutoff = 0 if mix == 1 else 8      # the network at the leaf itself; the playout's 8 turns
        spec = f"mcts(iterations=1,eval='net',net='{net_file}',net_mix={mix},halving=0,cutoff={cutoff},priors='classic')"
        player = make_player(spec, seed=3)
        player.choose(st.view())
        ((key, visits, w, _),) = [r for r in player.last_search.trees[0].root_stats() if r[1]]
        values[mix] = (key, w)
    classic = make_player("mcts(iterations=1,eval='classic',halving=0,cutoff=8)", seed=3)
    classic.choose(st.view())
    ((key, visits, w, _),) = [r for r in classic.last_search.trees[0].root_stats() if r[1]]
    # same first child (the same heuristic priors), same world and playout: the halves add up
    assert values[1.0][0] == values[0.5][0] == key
    for seat in range(2):
        assert values[0.5][1][seat] == pytest.approx(0.5 * values[1.0][1][seat] + 0.5 * w[seat], abs=1e-6)

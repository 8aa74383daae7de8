"""The table of bounds (splendor_ai/players/bounds.py): every budget and size parameter of a spec
or a limit is refused outside it, with the field named and a short message, by every entry point
(make_player, Limit, analysis, the engine protocol, the web API, the command line); values inside
it are accepted."""
import json

import pytest

from splendor_ai import State
from splendor_ai.analysis import analyse
from splendor_ai.errors import ConfigError
from splendor_ai.players import Limit, MoveInfo, SearchInfo, make_player
from splendor_ai.players.bounds import (CPUS, MAX_ITERATIONS, MAX_SECONDS, MAX_TREE_NODES, BoundsError, check,
                                        default_max_nodes, table_json)
from splendor_ai.players.mcts import MCTSPlayer
from splendor_ai.players.spec import check_spec

# (spec, the field the error must name)
REFUSED = [
    (f"mcts(workers={CPUS + 1})", "workers"), ("mcts(workers=100000)", "workers"), ("mcts(workers=0)", "workers"),
    ("mcts(workers=True)", "workers"), ("mcts(workers=1.0)", "workers"),
    ("mcts(seconds=1e9)", "seconds"), (f"mcts(seconds={MAX_SECONDS + 1})", "seconds"), ("mcts(seconds=0)", "seconds"),
    ("mcts(seconds=-1)", "seconds"), ("mcts(seconds=True)", "seconds"), ("mcts(seconds='1')", "seconds"),
    ("mcts(seconds=1e400)", "seconds"),
    ("mcts(iterations=100000000000)", "iterations"), (f"mcts(iterations={MAX_ITERATIONS + 1})", "iterations"),
    ("mcts(iterations=0)", "iterations"), ("mcts(iterations=True)", "iterations"), ("mcts(iterations=5.0)", "iterations"),
    ("mcts(dets=100000)", "dets"), ("mcts(dets=65)", "dets"), ("mcts(dets=0)", "dets"),
    ("mcts(mode='pimc',dets=100000)", "dets"),
    ("mcts(c=0)", "c"), ("mcts(c=-1)", "c"), ("mcts(c=1e400)", "c"), ("mcts(c=True)", "c"), ("mcts(c='x')", "c"),
    ("mcts(c_base=-1)", "c_base"), ("mcts(prior_temp=0)", "prior_temp"), ("mcts(eps=1.5)", "eps"),
    ("mcts(fpu=1e400)", "fpu"), ("mcts(eval_scale=0)", "eval_scale"),
    ("mcts(cutoff=-1)", "cutoff"), ("mcts(cutoff=1001)", "cutoff"), ("mcts(cutoff=2.0)", "cutoff"),
    ("mcts(max_nodes=10)", "max_nodes"), (f"mcts(max_nodes={MAX_TREE_NODES + 1})", "max_nodes"),
    (f"mcts(workers=2,max_nodes={MAX_TREE_NODES // 2 + 1})", "max_nodes"),
    ("mcts(halving=1)", "halving"), ("mcts(halving=257)", "halving"), ("mcts(halving=-1)", "halving"),
    ("mcts(halving_warm=0)", "halving_warm"), ("mcts(halving_warm=1)", "halving_warm"),
    ("mcts(puct=1)", "puct"), ("mcts(reuse='yes')", "reuse"), ("mcts(mode='x')", "mode"), ("mcts(rollout=1)", "rollout"),
    ("mcts(weights=(1,2,3,4,5,6,7,8,9,1e400))", "weights"), ("mcts(weights='abc')", "weights"),
    ("mcts(phase_weights=(True,) * 10)", None),   # not a literal: refused by the parser
    ("expectimax(depth=7)", "depth"), ("expectimax(depth=41,seconds=1)", "depth"), ("expectimax(depth=0)", "depth"),
    ("expectimax(depth=True)", "depth"), ("expectimax(seconds=1e9)", "seconds"), ("expectimax(dets=65)", "dets"),
    ("expectimax(chance_samples=65)", "chance_samples"), ("expectimax(chance_samples=0)", "chance_samples"),
    ("expectimax(tt_bits=27)", "tt_bits"), ("expectimax(tt_bits=-1)", "tt_bits"),
    ("expectimax(exact_root=65)", "exact_root"), ("expectimax(exact_root=0)", "exact_root"),
    ("expectimax(eval_bound=0)", "eval_bound"), ("expectimax(algo='minimax')", "algo"),
    ("greedy(weights=(1e400,1,1,1,1,1,1,1,1,1))", "weights"),
]


@pytest.mark.parametrize("spec,field", REFUSED)
def test_out_of_bounds_specs_are_refused_naming_the_field(spec, field):
    with pytest.raises(ConfigError) as err:
        make_player(spec)
    msg = str(err.value)
    assert len(msg) < 300
    if field is not None:
        assert isinstance(err.value, BoundsError) and err.value.field == field
        assert f": {field}: expected" in msg
    with pytest.raises(ConfigError):
        check_spec(spec)


def test_the_constructors_check_the_same_table():
    """Building a player directly (not from a spec) meets the same bounds."""
    from splendor_ai.players.expectimax import ExpectimaxPlayer
    for kwargs, field in [(dict(workers=10 ** 5), "workers"), (dict(fpu=float("nan")), "fpu"),
                          (dict(seconds=float("inf")), "seconds"), (dict(dets=10 ** 5), "dets")]:
        with pytest.raises(BoundsError) as err:
            MCTSPlayer(**kwargs)
        assert err.value.field == field
    with pytest.raises(BoundsError) as err:
        ExpectimaxPlayer(depth=9)
    assert err.value.field == "depth"


ACCEPTED = ["mcts", f"mcts(iterations={MAX_ITERATIONS})", f"mcts(seconds={MAX_SECONDS:g})", f"mcts(workers={CPUS})",
            "mcts(mode='pimc',dets=64)", "mcts(c=0.01,c_base=0,eps=0,cutoff=0,halving=0)", "mcts(halving=256)",
            f"mcts(workers=2,max_nodes={MAX_TREE_NODES // 2})", "mcts(max_nodes=1024)", "mcts(fpu=-1)",
            "mcts(weights=(1,2,3,4,5,6,7,8,9,0))", "mcts(weights=[1,2,3,4,5,6,7,8,9,0.5])",
            "expectimax(depth=6)", "expectimax(depth=40,seconds=0.5)", "expectimax(dets=64,chance_samples=64)",
            "expectimax(exact_root=True)", "expectimax(exact_root=64,tt_bits=0)", "greedy", "random",
            "mcts(seconds=1)", "mcts(iterations=None)"]


@pytest.mark.parametrize("spec", ACCEPTED)
def test_specs_within_bounds_are_accepted(spec):
    make_player(spec).close()
    assert check_spec(spec)[0] == spec.split("(")[0]


def test_default_tree_cap_shrinks_with_workers():
    assert default_max_nodes(1) == 20_000_000 and default_max_nodes(2) == 20_000_000
    assert default_max_nodes(4) == MAX_TREE_NODES // 4
    p = MCTSPlayer(workers=2)
    assert p.max_nodes * p.workers <= MAX_TREE_NODES
    p.close()


@pytest.mark.parametrize("kwargs,field", [
    (dict(iterations=0), "iterations"), (dict(iterations=True), "iterations"), (dict(iterations=1.5), "iterations"),
    (dict(iterations=MAX_ITERATIONS + 1), "iterations"), (dict(seconds=1e9), "seconds"), (dict(seconds=0), "seconds"),
    (dict(seconds=float("nan")), "seconds"), (dict(seconds=False), "seconds"), (dict(dets=65), "dets"),
    (dict(depth=7), "depth"), (dict(depth=41, seconds=1), "depth"), (dict(depth=0), "depth"),
])
def test_limit_bounds(kwargs, field):
    with pytest.raises(BoundsError) as err:
        Limit(**kwargs)
    assert err.value.field == field and str(err.value).startswith(f"{field}: expected")
    with pytest.raises(BoundsError) as err:
        Limit.from_json(kwargs)
    assert err.value.field == f"limit.{field}" and str(err.value).startswith(f"limit.{field}: expected")


def test_limit_within_bounds_and_json():
    assert Limit(depth=6) == Limit.from_json({"depth": 6})
    assert Limit(depth=40, seconds=2).to_json() == {"seconds": 2.0, "depth": 40}
    lim = Limit.from_json({"iterations": MAX_ITERATIONS, "seconds": 1})
    assert lim == Limit(iterations=MAX_ITERATIONS, seconds=1.0) and isinstance(lim.seconds, float)
    assert Limit.from_json(lim.to_json()) == lim
    with pytest.raises(BoundsError, match=r"^limit: unknown field 'depth' \(known: iterations, seconds\)"):
        Limit.from_json({"iterations": 5, "depth": 2}, fields=("iterations", "seconds"))
    with pytest.raises(BoundsError, match=r"^limit: expected an object"):
        Limit.from_json([1, 2])
    # a front end's tighter caps are checked after the table, with the same kind of message
    with pytest.raises(BoundsError, match=r"^lim\.seconds: expected at most 30 \(the cap here\), got 31") as err:
        Limit.from_json({"seconds": 31}, where="lim", caps={"seconds": 30})
    assert err.value.field == "lim.seconds"
    with pytest.raises(BoundsError, match=r"workers: expected at most 1 \(the cap here\)"):
        check_spec("mcts(workers=2)", caps={"workers": 1})


def test_huge_inputs_get_short_errors():
    huge = "x" * 200_000
    for spec in [f"mcts({huge})", f"mcts(c='{huge[:3500]}')", f"{huge}", f"mcts(c={'(' * 3000})",
                 "mcts(" + "[" * 3000 + "]" * 3000 + ")", f"mcts(iterations={'9' * 3900})"]:
        with pytest.raises(ConfigError) as err:
            make_player(spec)
        assert len(str(err.value)) < 300, spec[:40]
    for obj in [{huge: 1}, {"seconds": huge}, [0] * 100_000, huge]:
        with pytest.raises(BoundsError) as err:
            Limit.from_json(obj)
        assert len(str(err.value)) < 300 and len(err.value.field) < 60


def test_every_entry_point_uses_the_table(capsys):
    """make_player is above; here analysis, the engine protocol, the web API and the command line."""
    st = State.new(2, seed=3)
    with pytest.raises(BoundsError) as err:
        analyse(st, spec="mcts(workers=100000)")
    assert err.value.field == "workers"
    with pytest.raises(BoundsError) as err:
        analyse(st, {"seconds": 1e9})
    assert err.value.field == "limit.seconds"

    from splendor_ai.interfaces.protocol import RequestError, prepare
    start = {"players": 2, "seed": 1}
    for req, field in [({"spec": "mcts(workers=100000)"}, "spec.workers"), ({"spec": "mcts(seconds=1e9)"}, "spec.seconds"),
                       ({"spec": "mcts(dets=100000)"}, "spec.dets"), ({"limit": {"seconds": 1e9}}, "limit.seconds"),
                       ({"limit": {"iterations": 10 ** 11}}, "limit.iterations"),
                       ({"spec": "mcts(" + "x" * 200_000 + ")"}, "spec")]:
        with pytest.raises(RequestError) as err:
            prepare({"id": 1, "start": start, **req}, lambda obj: None)
        assert err.value.field == field and len(str(err.value)) < 300

    from splendor_ai.interfaces.web.games import ApiError, check_ai_spec, parse_limit
    for spec in ["mcts(workers=100000)", "mcts(dets=100000)", "expectimax(depth=40)", "mcts(" + "x" * 200_000 + ")"]:
        with pytest.raises(ApiError) as err:
            check_ai_spec(spec, "seats[1]")
        assert err.value.status == 422 and err.value.field == "seats[1]" and len(err.value.message) < 300
    with pytest.raises(ApiError) as err:
        parse_limit({"seconds": 1e9})
    assert err.value.field == "limit.seconds"

    from splendor_ai.interfaces.cli import main
    for args, needle in [(["--spec", "mcts(workers=100000)"], "workers: expected"),
                         (["--seconds", "1e9"], "seconds: expected"),
                         (["--iterations", str(10 ** 11)], "iterations: expected")]:
        try:
            status = main(["analyse", "--deal", "1", *args])
        except SystemExit as e:      # refused by the option's own parser (the same table's caps)
            status = e.code
        err = capsys.readouterr().err
        assert status == 2 and needle.split(":")[0] in err and "splendor analyse: error:" in err


def test_table_lists_every_player_kind():
    table = table_json()
    assert set(table) == {"limit", "mcts", "expectimax", "greedy", "random"}
    assert table["mcts"]["workers"] == f"an integer in 1-{CPUS} (the machine's cores)"
    assert "seconds" in table["limit"] and "max_nodes" in table["mcts"] and "tt_bits" in table["expectimax"]
    with pytest.raises(ConfigError, match="unknown player 'alphazero'"):
        check("alphazero", {})


# -- one JSON casing -----------------------------------------------------------------------------------

def test_search_info_json_is_camel_case_and_round_trips():
    st = State.new(2, seed=4)
    d = make_player("mcts(iterations=200)", seed=1).choose(st.view())
    obj = d.info.to_json()
    assert {"moveInfos", "iterations", "seconds", "seed", "nodes", "memoryBytes"} <= set(obj)
    first = obj["moveInfos"][0]
    assert list(first) == ["order", "move", "visits", "winrate", "prior", "pv", "seatWinrates"]
    assert first["order"] == 0 and first["move"] == str(d.move)
    assert all("_" not in k for k in obj)
    json.dumps(obj, allow_nan=False)
    back = SearchInfo.from_json(json.loads(json.dumps(obj)))
    assert back.to_json() == obj
    # the version-1 snake_case form is read too
    v1 = {"moves": [{"move": "+wbg", "visits": 3, "winrate": None, "prior": 0.5, "pv": ["+wbg"],
                     "seat_winrates": [0.25, 0.75]}], "iterations": 3, "seconds": 0.1, "seed": 2, "nodes": 4,
          "memory_bytes": 99, "nodes_per_s": 7}
    info = SearchInfo.from_json(v1)
    assert info.memory_bytes == 99 and info.extra == {"nodes_per_s": 7}
    assert info.moves[0].values == (0.25, 0.75) and info.moves[0].value != info.moves[0].value  # nan: unvisited
    assert info.to_json()["moveInfos"][0]["winrate"] is None and info.to_json()["nodesPerS"] == 7
    m = MoveInfo.from_json(info.to_json()["moveInfos"][0])
    assert str(m.move) == "+wbg" and m.pv == ("+wbg",)


def test_expectimax_extra_figures_are_camel_case():
    st = State.new(2, seed=4)
    obj = make_player("expectimax(depth=1)").choose(st.view()).info.to_json()
    assert {"depthSeconds", "nodesPerS", "exactValues", "chanceSamples"} <= set(obj)
    assert SearchInfo.from_json(obj).extra["depth_seconds"] == obj["depthSeconds"]

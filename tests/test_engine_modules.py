"""`splendor engine` with the Cities of Splendor modules: a transcript through a real subprocess with
module requests good (a new module game with moves in v2 notation, SPN2 positions, JSON v2
positions, a hint) and bad (unknown module, two modules, SPN2 errors, a bad decision token, an
illegal decision); the engine answers each bad one with an error object and keeps serving."""
import json

import pytest

from splendor_ai import State
from splendor_ai.move import Move
from splendor_ai.state import Config

from module_positions import MODULES, decision_position
from test_engine_protocol import LIMIT, check_analysis, engine  # noqa: F401  (the fixture)


def check_v2(r: dict, decisions: bool = False) -> None:
    """Every move and line is whole-turn v2 notation; with `decisions`, some move has a decision."""
    for m in r["moveInfos"]:
        for text in m["pv"]:
            assert str(Move.parse(text)) == text or "b?" in text, text
    if decisions:
        assert any("/" in m["move"] for m in r["moveInfos"]), [m["move"] for m in r["moveInfos"]]


def test_module_requests_good_and_bad(engine):
    # a new game of each module from a start object, with moves (decisions included) played from it
    for i, module in enumerate(MODULES):
        r = engine.ask({"id": f"new-{module}", "start": {"players": 3, "seed": 7, "module": module},
                        "limit": LIMIT, "topK": 4})
        check_analysis(r, f"new-{module}", 4)
        assert r["rootInfo"]["position"].startswith(f"SPN2 3:{module}")
    st, hits = decision_position("strongholds")
    rec_moves = [str(m) for m in st.move_stack]
    # a two-step turn's first step ends the moves: the analysis is of the middle of that turn
    assert st.partial_move is not None and rec_moves[-1] == str(st.partial_move)
    r = engine.ask({"id": "moves", "start": {"seed": 1, "modules": ["strongholds"]}, "moves": rec_moves,
                    "limit": LIMIT, "topK": 50})
    check_analysis(r, "moves", 50)
    assert r["rootInfo"]["position"] == st.view(0).position()
    assert r["rootInfo"]["position"].split()[6].endswith(f"/{st.partial_move}")
    assert {m["move"] for m in r["moveInfos"]} <= set(map(str, st.legal_moves))
    check_v2(r, decisions=True)
    # the rest of the turn alone completes it, as in State.push
    done = engine.ask({"id": "rest", "start": {"seed": 1, "modules": ["strongholds"]},
                       "moves": rec_moves + [str(hits[0]).split("/", 1)[1]], "limit": LIMIT})
    after = st.copy()
    after.push(hits[0])
    assert done["rootInfo"]["position"] == after.view(after.to_move).position()

    # SPN2 positions (true and a seat's view) and JSON v2, with decisions in the moves listed
    for module in MODULES:
        st, hits = decision_position(module)
        r = engine.ask({"id": module, "position": st.position(), "limit": {"iterations": 600}, "topK": 200})
        check_analysis(r, module, 200)
        assert {m["move"] for m in r["moveInfos"]} <= set(map(str, st.view(0).legal_moves))
        check_v2(r, decisions=True)
        assert r["rootInfo"]["legalMoves"] == len(st.view(0).legal_moves)
        r = engine.ask({"id": f"{module}-view", "position": st.view(1).position(), "seat": 1, "limit": LIMIT})
        check_analysis(r, f"{module}-view", 5)
        assert r["rootInfo"]["seat"] == 1 and r["rootInfo"]["legalMoves"] is None
        r = engine.ask({"id": f"{module}-json", "position": st.to_json(), "limit": LIMIT})
        check_analysis(r, f"{module}-json", 5)
        assert r["rootInfo"]["position"] == st.view(0).position()
    st, hits = decision_position("orient")
    h = engine.ask({"id": "hint", "action": "hint", "position": st.position(), "limit": {"iterations": 400}})
    assert h["id"] == "hint" and h["move"] in st.view(0).legal_moves
    assert h["description"] == st.view(0).describe(h["move"]) and h["reason"]

    # bad module input: an error object naming the field, and the engine goes on
    orient = State.new(2, seed=1, config=Config(2, modules=("orient",)))
    base = State.new(2, seed=1)
    bad = [
        ({"start": {"seed": 1, "module": "atlantis"}}, "start.module", "unknown module 'atlantis'"),
        ({"start": {"seed": 1, "module": 3}}, "start.module", "expected a module name"),
        ({"start": {"seed": 1, "modules": ["orient", "cities"]}}, "start.modules", "one Cities of Splendor module"),
        ({"start": {"seed": 1, "module": "orient", "modules": ["orient"]}}, "start.modules", "not both"),
        ({"position": orient.position().replace("2:orient", "2:orient,cities")}, "position", "two modules"),
        ({"position": orient.position().replace("SPN2 2:orient", "SPN2 2")}, "position", "module"),
        ({"position": base.position().replace("SPN1 2", "SPN1 2:orient")}, "position", "SPN2"),
        ({"position": orient.position().replace("SPN2", "SPN7")}, "position", "position"),
        ({"position": {**orient.to_json(), "options": {"cap": 100, "module": "atlantis"}}}, "position", "atlantis"),
        ({"start": {"seed": 1, "module": "orient"}, "moves": ["+wbg/jz"]}, "moves[0]", "illegal move"),
        ({"start": {"seed": 5, "module": "strongholds"}, "moves": ["b16/t999"]}, "moves[0]", "card 999"),
        ({"start": {"seed": 1, "module": "orient"}, "moves": ["+wbg/t3"]}, "moves[0]", "illegal move"),
    ]
    st, hits = decision_position("orient")
    action = str(hits[0]).split("/")[0]
    bad.append(({"start": {"seed": 1, "module": "orient"}, "moves": [str(m) for m in st.move_stack] + [action]},
                f"moves[{len(st.move_stack)}]", "decisions after"))
    for i, (req, field, text) in enumerate(bad):
        r = engine.ask({"id": i, **req, "limit": LIMIT})
        assert r["id"] == i and field == r.get("field") and text in r["error"], (req, r)
        assert "internal error" not in r["error"]
    assert engine.ask({"id": "v", "action": "query_version"})["protocol"] == "splendor-engine/1"
    rc, err = engine.close()
    assert rc == 0 and "Traceback" not in err

"""The review of a game in the web API (FastAPI's test client): a finished closed game is reviewed
for its human seat only, every move rated from the mover's own view exactly as `splendor_ai.review`
rates it, with no seed of the server's secret in the answer; an open (uploaded) game for every seat;
a live closed game is refused, as are oversized limits."""
import json
import time

import pytest

pytest.importorskip("fastapi", reason="the web UI needs fastapi (pip install -e '.[test]')")

from test_web import client, client_id, closed_game, manager  # noqa: E402,F401  (fixtures)

from splendor_ai import State  # noqa: E402
from splendor_ai.players import make_player  # noqa: E402
from splendor_ai.records import GameRecord  # noqa: E402
from splendor_ai.review import review_stream  # noqa: E402


def finished(seed: int, plies: int | None = None) -> State:
    st = State.new(2, seed=seed)
    bots = [make_player("greedy", seed=seed), make_player("random", seed=seed + 1)]
    while not st.is_over() and (plies is None or len(st.move_stack) < plies):
        st.push(bots[st.to_move].choose(st.view()).move)
    return st


def wait_review(client, gid, timeout=60):
    end = time.monotonic() + timeout
    while (r := client.get(f"/api/games/{gid}/review").json())["status"] == "running":
        assert time.monotonic() < end, r["reviewed"]
        time.sleep(0.05)
    return r


def test_a_finished_closed_game_is_reviewed_for_its_human_seat_from_its_own_view(client, manager):
    st = finished(5)
    game = manager.adopt(client_id(client), st, ["human", "random"], seed=5)
    r = client.post(f"/api/games/{game.id}/review", json={"limit": {"iterations": 60}})
    assert r.status_code == 202, r.text
    r = wait_review(client, game.id)
    assert r["status"] == "done" and r["reviewed"] == r["total"] == sum(1 for m in range(len(st.move_stack)) if m % 2 == 0)
    report = r["report"]
    assert report["format"] == "splendor-review/1" and report["settings"]["seats"] == [0]
    assert "seed" not in report["settings"] and all(t["seat"] == 0 for t in report["turns"])
    # the same turns as the review module gives, with the server's (secret) seed
    rec = GameRecord.from_state(game.state, seed=5, players=["human", "random"])
    want = [t.to_json() for t in review_stream(rec, {"iterations": 60}, spec=game.hint_spec, seats=[0],
                                                seed=game.review_seed())]
    assert report["turns"] == want
    assert report["seats"][0]["moves"] == len(want) and report["seats"][0]["accuracy"] is not None
    text = json.dumps(r)
    assert str(game.secret) not in text and str(game.review_seed()) not in text
    for t in report["turns"]:                          # the human's views: the AI's blind cards are '?'
        assert t["position"] == rec_view(rec, t["turn"], 0)


def rec_view(rec, turn, seat):
    st = State(rec.start)
    for m in rec.moves[:turn]:
        st.push(m)
    return st.view(seat).position()


def test_an_open_game_is_reviewed_for_every_seat_and_a_live_closed_one_is_refused(client, manager):
    st = finished(6, plies=8)
    rec = GameRecord.from_state(st, seed=6, players=["human", "random"])
    g = client.post("/api/games/import", json={"record": rec.to_line()}).json()
    r = client.post(f"/api/games/{g['gameId']}/review", json={"limit": {"iterations": 40}})
    assert r.status_code == 202, r.text
    r = wait_review(client, g["gameId"])
    assert r["report"]["settings"]["seats"] == [0, 1] and r["reviewed"] == 8
    assert [t["turn"] for t in r["report"]["turns"]] == list(range(8))
    game, live = closed_game(manager, client, ["+wbg", "rL1"])
    r = client.post(f"/api/games/{game.id}/review", json={})
    assert r.status_code == 409 and "not over" in r.json()["error"]
    assert client.get(f"/api/games/{game.id}/review").json() == {"status": "none"}
    r = client.post(f"/api/games/{g['gameId']}/review", json={"limit": {"seconds": 10}})
    assert r.status_code == 422 and r.json()["field"] == "limit.seconds"

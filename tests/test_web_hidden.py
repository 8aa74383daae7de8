"""Hidden information and limits of the web server (FastAPI's test client).

- A closed game (the default) never sends a seed, a true position, a record or a search seed;
  twin games with the same view of the human seat but other hidden cards (deck order, the AI's
  blind reserves, the deal seed) give byte-identical answers to every request of the human's
  browser and of a spectator.
- Each browser sees only its own games; ids are unguessable; a spectator link shows public
  information only; an open game shows everything.
- The AI's and the hints' search seeds come from a server secret, never from the deal seed.
- After an undo in a closed game the decks' unseen cards are dealt again.
- Limits: Host allow-list, body size, no /docs, specs that would fail inside the search refused
  at creation, 503 with Retry-After when the searches are full, idle games expire with a message.
"""
import json
import random
import re
import time
import warnings

import pytest


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from test_web import client, client_id, closed_game, manager, new_game, owned, wait_for_human  # noqa: E402,F401

from splendor_ai import State  # noqa: E402
from splendor_ai.records import GameRecord  # noqa: E402
from splendor_ai.interfaces.web.app import MAX_BODY, create_app  # noqa: E402
from splendor_ai.interfaces.web.games import ApiError, GameManager, redeal_unseen  # noqa: E402
from splendor_ai.interfaces.web.scheduler import Scheduler  # noqa: E402

BIG_SEED = 987_654_321_987


def other_client(manager):
    return TestClient(create_app(manager), base_url="http://127.0.0.1")


# -- who sees what --------------------------------------------------------------------------------------

def test_each_browser_sees_only_its_own_games(client, manager):
    g = new_game(client, seats=["human", "random"])
    gid = g["gameId"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{20,}", gid) and re.fullmatch(r"[A-Za-z0-9_-]{16,}", g["watchId"])
    cookie = client.get("/api/health").headers.get("set-cookie") or ""
    first = other_client(manager)
    r = first.get("/api/games")
    set_cookie = r.headers["set-cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and "splendor_client=" in set_cookie
    assert r.json()["games"] == [] and cookie == ""           # a known browser gets no new token
    for method, suffix, body in [("GET", "", None), ("POST", "/move", {"move": "+wbg"}), ("POST", "/hint", {}),
                                 ("GET", "/record", None), ("GET", "/replay?step=0", None),
                                 ("POST", "/analysis", {}), ("DELETE", "", None), ("POST", "/undo", {})]:
        r = first.request(method, f"/api/games/{gid}{suffix}", json=body)
        assert r.status_code == 404 and "this browser" in r.json()["error"], (method, suffix, r.text)
    assert [x["gameId"] for x in client.get("/api/games").json()["games"]] == [gid]
    # a programmatic client may name itself with a header instead of the cookie
    token = client_id(client)
    r = first.get(f"/api/games/{gid}", headers={"X-Splendor-Client": token})
    assert r.status_code == 200 and r.json()["gameId"] == gid
    mine = first.post("/api/games", json={"seats": ["human", "random"]}).json()["gameId"]
    assert [x["gameId"] for x in first.get("/api/games").json()["games"]] == [mine]
    assert client.get(f"/api/games/{mine}").status_code == 404


def test_a_closed_game_never_sends_the_seed_or_the_deal(client, manager):
    g = new_game(client, seats=["human", "random"], seed=BIG_SEED)
    gid = g["gameId"]
    texts = []
    while not g["over"]:
        texts.append(json.dumps(g))
        moves = [m["move"] for m in g["legalMoves"]]
        blind = [m for m in moves if m.startswith("rL")]
        move = blind[0] if blind and len(g["log"]) < 6 else next((m for m in moves if m.startswith("b")), moves[0])
        r = client.post(f"/api/games/{gid}/move", json={"move": move, "version": g["version"]})
        assert r.status_code == 200, r.text
        texts.append(r.text)
        g = wait_for_human(client, gid)
    texts.append(json.dumps(g))
    game = owned(manager, client, gid)
    n = g["moveCount"]
    for k in range(0, n + 1, 5):
        texts.append(client.get(f"/api/games/{gid}/replay", params={"step": k}).text)
    texts.append(client.get(f"/api/watch/{g['watchId']}").text)
    for text in texts:
        assert str(BIG_SEED) not in text and '"seed"' not in text and "truePosition" not in text
    assert str(game.secret) not in "".join(texts)
    # over, and still closed: the rules keep blind reserves and the decks' order hidden
    assert client.get(f"/api/games/{gid}/record").status_code == 403
    true = game.state
    for seat in g["seats"][1:]:
        for r, card in zip(seat["reserved"], true.seats[seat["seat"]].reserved):
            assert r["card"] == (None if r["blind"] else card)
    assert g["position"] == true.view(0).position()


def test_the_ai_and_hint_seeds_come_from_a_secret_not_the_deal_seed(client, manager):
    a = owned(manager, client, new_game(client, seats=["human", "random"], seed=77)["gameId"])
    b = owned(manager, client, new_game(client, seats=["human", "random"], seed=77)["gameId"])
    assert a.secret != b.secret and 77 not in (a.secret, b.secret)
    assert a.seat_seed(1) != b.seat_seed(1)
    view = a.state.view(0)
    assert a._search_seed(view) != b._search_seed(view)
    # an open game's deal is public: its searches are seeded from it, so it replays alike
    c = owned(manager, client, new_game(client, seats=["human", "random"], seed=77, open=True)["gameId"])
    d = owned(manager, client, new_game(client, seats=["human", "random"], seed=77, open=True)["gameId"])
    assert c.secret == d.secret == 77


def test_the_thinking_panel_shows_aggregates_only(client):
    g = new_game(client, seats=["human", "mcts(seconds=2)"], firstPlayer=1)
    t = g["thinking"]
    assert set(t) == {"seat", "player", "spec", "budget", "elapsed", "iterations", "searched", "progress",
                      "winrate", "queued", "waiting"}
    end = time.monotonic() + 10
    while (t := client.get(f"/api/games/{g['gameId']}").json()["thinking"]) and not t["iterations"]:
        assert time.monotonic() < end
        time.sleep(0.05)
    assert t is None or (t["iterations"] > 0 and 0 <= t["progress"] <= 1 and t["budget"] == {"seconds": 2})
    client.delete(f"/api/games/{g['gameId']}")


def test_a_spectator_sees_public_information_only(client, manager):
    # seat 0 (human) and seat 1 (AI) each reserve a card blind
    game, g = closed_game(manager, client, ["rL1", "rL2", "+wbg", "+wbr"])
    viewer = other_client(manager)                   # anyone with the link, no cookie of the owner
    w = viewer.get(f"/api/watch/{g['watchId']}").json()
    assert w["spectator"] and w["viewer"] is None and "gameId" not in w and w["legalMoves"] == []
    assert [r["card"] for r in w["seats"][0]["reserved"]] == [None]
    assert [r["card"] for r in w["seats"][1]["reserved"]] == [None]
    assert g["seats"][0]["reserved"][0]["card"] == game.state.seats[0].reserved[0]   # the owner sees theirs
    assert "?" in w["position"] and str(game.state.seats[0].reserved[0]) not in w["position"].split()[-2]
    assert w["log"] == g["log"] and w["market"] == g["market"]
    rp = viewer.get(f"/api/watch/{g['watchId']}/replay", params={"step": 1}).json()
    assert rp["seats"][0]["reserved"][0]["card"] is None and "gameId" not in rp
    assert viewer.get("/api/watch/nonexistent-link-0000000").status_code == 404


def test_an_open_game_shows_everything(client, manager):
    game, g = closed_game(manager, client, ["+wbg", "rL1"], open_game=True, seed=5)
    assert g["open"] and g["seed"] == 5 and g["truePosition"] == game.state.position()
    assert g["seats"][1]["reserved"][0]["card"] == game.state.seats[1].reserved[0]
    rec = GameRecord.from_line(client.get(f"/api/games/{g['gameId']}/record").text)
    assert rec.moves == ["+wbg", "rL1"] and rec.replay().position() == game.state.position()


def test_undo_in_a_closed_game_deals_the_unseen_cards_again(client, manager):
    for open_game in (False, True):
        g = new_game(client, seats=["human", "random"], seed=11, open=open_game)
        gid = g["gameId"]
        game = owned(manager, client, gid)
        decks_before = [d["cards"] for d in game.state.to_json()["decks"]]
        market = g["market"][0]
        move = next(m["move"] for m in g["legalMoves"] if m["move"].startswith("r") and m["move"][1:].isdigit()
                    and int(m["move"][1:]) in market)                # reveals the next level-1 card
        client.post(f"/api/games/{gid}/move", json={"move": move})
        wait_for_human(client, gid)
        after = client.post(f"/api/games/{gid}/undo", json={}).json()
        assert after["position"] == g["position"] and after["log"] == []
        decks = [d["cards"] for d in game.state.to_json()["decks"]]
        assert [sorted(d) for d in decks] == [sorted(d) for d in decks_before]
        assert (decks != decks_before) is not open_game     # closed: dealt again; open: as it was
        assert game.state.move_stack == [] and State(game.start).position() == game.state.position()


# -- twin games -----------------------------------------------------------------------------------------

TIMING = ("elapsed", "iterations", "searched", "progress", "winrate", "queued", "waiting")


def _normal(text: str, ids: dict) -> str:
    """A response with the game's own ids and the AI search's wall-clock figures taken out."""
    obj = json.loads(text)

    def walk(x):
        if isinstance(x, dict):
            out = {}
            for k, v in x.items():
                if k in ("gameId", "watchId", "deleted"):
                    v = "<id>"
                elif k == "thinking" and isinstance(v, dict):
                    v = {kk: vv for kk, vv in v.items() if kk not in TIMING}
                elif k in ("elapsed", "seconds"):          # wall-clock time of a search
                    v = "<time>"
                out[k] = walk(v)
            return out
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x
    return json.dumps(walk(obj), sort_keys=True)


def test_twin_games_with_the_same_view_get_byte_identical_answers(client, manager):
    """What the human's browser (and a spectator) receives during a live game is a function of the
    human seat's view alone: two games that differ only in hidden cards (deck order, the AI's blind
    reserves, the deal seed) answer every request alike, ids aside."""
    st = State.new(2, seed=5)
    for m in ("+wbg", "rL1", "+wbr", "rL2", "rL3", "+grk"):    # the AI (seat 1) reserves two cards blind
        st.push(m)
    rec = GameRecord.from_state(st, seed=5, players=["human", "mcts(iterations=50)"])
    twin = redeal_unseen(rec, random.Random(3), vary=set(st.seats[1].reserved))
    assert twin.view(0).position() == st.view(0).position()
    assert twin.seats[1].reserved != st.seats[1].reserved
    assert [d["cards"] for d in twin.to_json()["decks"]] != [d["cards"] for d in st.to_json()["decks"]]
    secret = 0xC0FFEE
    specs = ["human", "random"]
    games = [manager.adopt(client_id(client), s, specs, secret=secret, seed=seed)
             for s, seed in ((st, 5), (twin, 6))]
    answers = [[], []]
    for i, game in enumerate(games):
        gid = game.id
        ask = lambda method, path, **kw: answers[i].append(  # noqa: E731
            _normal(client.request(method, path, **kw).text, {}))
        ask("GET", f"/api/games/{gid}")
        ask("GET", f"/api/games/{gid}?seat=0")
        for k in range(len(st.move_stack) + 1):
            ask("GET", f"/api/games/{gid}/replay?step={k}")
        ask("GET", f"/api/watch/{game.watch_id}")
        ask("GET", f"/api/watch/{game.watch_id}/replay?step=2")
        ask("GET", f"/api/games/{gid}/record")
        ask("POST", f"/api/games/{gid}/hint", json={"limit": {"iterations": 150}})
        r = client.post(f"/api/games/{gid}/analysis", json={"limit": {"iterations": 300}, "topK": 5})
        assert r.status_code == 202
        while (a := client.get(f"/api/games/{gid}/analysis")).json()["status"] == "running":
            time.sleep(0.02)
        answers[i].append(_normal(a.text, {}))
        entry = next(x for x in client.get("/api/games").json()["games"] if x["gameId"] == gid)
        answers[i].append(_normal(json.dumps(entry), {}))
        ask("POST", f"/api/games/{gid}/graph", json={"on": True, "limit": {"iterations": 100}})
        answers[i].append(_normal(json.dumps(wait_graph(client, gid, 7)), {}))
        ask("POST", f"/api/games/{gid}/analysis", json={"step": 3, "limit": {"iterations": 100}})
        while (a := client.get(f"/api/games/{gid}/analysis")).json()["status"] == "running":
            time.sleep(0.02)
        answers[i].append(_normal(a.text, {}))
        client.post(f"/api/games/{gid}/graph", json={"on": False})
        ask("POST", f"/api/games/{gid}/move", json={"move": "+bgr"})
        wait_for_human(client, gid)                      # the AI's reply is its own (its view differs)
        ask("POST", f"/api/games/{gid}/undo", json={})
        ask("GET", f"/api/games/{gid}")
    for a, b in zip(*answers, strict=True):
        assert a == b
    assert games[0].state.position() != games[1].state.position()


# -- limits -----------------------------------------------------------------------------------------------

def test_host_allow_list_body_limit_and_no_docs(manager):
    with TestClient(create_app(manager), base_url="http://127.0.0.1:8000") as c:
        assert c.get("/api/health").status_code == 200
        for host in ("localhost:8000", "[::1]:8000", "127.0.0.1"):
            assert c.get("/api/health", headers={"host": host}).status_code == 200, host
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""):
            r = c.get("/api/health", headers={"host": host})
            assert r.status_code == 400 and "host" in r.json()["error"], host
        for path in ("/docs", "/redoc"):
            assert c.get(path).status_code == 404
        big = b'{"record": "' + b"x" * MAX_BODY + b'"}'
        r = c.post("/api/games/import", content=big, headers={"content-type": "application/json"})
        assert r.status_code == 413 and "limit" in r.json()["error"] and len(r.text) < 300

        def chunks():                                    # a body sent without a length
            for _ in range(MAX_BODY // 65536 + 2):
                yield b"x" * 65536
        r = c.post("/api/games/import", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        assert c.get("/api/games").json()["games"] == []
    with TestClient(create_app(manager, allowed_hosts=["splendor.lan"]), base_url="http://splendor.lan") as c:
        assert c.get("/api/health").status_code == 200
        assert c.get("/api/health", headers={"host": "127.0.0.1"}).status_code == 400


@pytest.mark.parametrize("spec,word", [
    ("mcts(mode='pimc', dets=100000)", "dets"), ("expectimax(dets=100000)", "dets"),
    ("mcts(workers=100000)", "workers"), ("mcts(seconds=1e9)", "seconds"), ("mcts(iterations=10**11)", "literal"),
    ("mcts(iterations=100000000000)", "iterations"), ("mcts(c=-1)", "c"), ("mcts(mode='perfect')", "perfect"),
    ("mcts(" + "x" * 300 + ")", "200 characters"),
])
def test_a_spec_the_search_cannot_run_is_refused_at_creation(client, spec, word):
    n = len(client.get("/api/games").json()["games"])
    for body, field in (({"seats": ["human", spec]}, "seats[1]"), ({"hintSpec": spec}, "hintSpec")):
        r = client.post("/api/games", json=body)
        assert r.status_code == 422 and r.json()["field"] == field, r.text
        assert word in r.json()["error"] and len(r.text) < 400
    assert len(client.get("/api/games").json()["games"]) == n


def test_a_busy_server_answers_503_with_retry_after_and_changes_nothing():
    m = GameManager(scheduler=Scheduler(workers=1, max_tasks_per_client=1))
    try:
        with TestClient(create_app(m), base_url="http://127.0.0.1") as c:
            thinking = c.post("/api/games", json={"seats": ["human", "mcts(seconds=20)"], "firstPlayer": 1}).json()
            assert thinking["thinking"] is not None
            other = c.post("/api/games", json={"seats": ["human", "random"]}).json()
            r = c.post(f"/api/games/{other['gameId']}/hint", json={"limit": {"iterations": 50}})
            assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1 and "searches" in r.json()["error"]
            r = c.post(f"/api/games/{other['gameId']}/move", json={"move": other["legalMoves"][0]["move"]})
            assert r.status_code == 503 and r.headers["retry-after"]
            assert c.get(f"/api/games/{other['gameId']}").json()["version"] == other["version"]
            # another browser is not held back by this one's search
            c2 = other_client(m)
            g2 = c2.post("/api/games", json={"seats": ["human", "random"]}).json()
            r = c2.post(f"/api/games/{g2['gameId']}/hint", json={"limit": {"iterations": 50}})
            assert r.status_code == 200, r.text
            c.delete(f"/api/games/{thinking['gameId']}")         # its search is cancelled: room again
            end = time.monotonic() + 10
            while (r := c.post(f"/api/games/{other['gameId']}/hint", json={"limit": {"iterations": 50}})).status_code == 503:
                assert time.monotonic() < end
                time.sleep(0.05)
            assert r.status_code == 200
    finally:
        m.shutdown()


def test_idle_games_expire_with_a_clear_message():
    m = GameManager(idle_seconds=0.3, workers=1)
    try:
        with TestClient(create_app(m), base_url="http://127.0.0.1") as c:
            gid = c.post("/api/games", json={"seats": ["human", "random"]}).json()["gameId"]
            assert c.get(f"/api/games/{gid}").status_code == 200
            time.sleep(0.5)
            r = c.get(f"/api/games/{gid}")
            assert r.status_code == 410 and "without a move" in r.json()["error"]
            assert c.get("/api/games").json()["games"] == []
    finally:
        m.shutdown()


# -- the live win-rate graph and analysis while replaying ------------------------------------------------

def wait_graph(client, gid, n):
    end = time.monotonic() + 30
    while True:
        g = client.get(f"/api/games/{gid}").json()
        if len(g["graph"]["points"]) == n and not g["graph"]["running"]:
            return g
        assert time.monotonic() < end, g["graph"]
        time.sleep(0.05)


def test_the_live_graph_is_the_human_seats_own_view(client, manager):
    from splendor_ai.analysis import analyse
    from splendor_ai.players import Limit
    game, g = closed_game(manager, client, ["+wbg", "rL1", "+wbr", "rL2"])
    gid = game.id
    r = client.post(f"/api/games/{gid}/graph", json={"on": True, "limit": {"iterations": 150}})
    assert r.status_code == 200 and r.json()["on"] and r.json()["seat"] == 0
    g = wait_graph(client, gid, 5)
    st = State.new(2, seed=3)
    for ply, point in enumerate(g["graph"]["points"]):
        assert point["ply"] == ply
        view = st.view(0)                                  # the human's view then, never the true state
        a = analyse(view, Limit(iterations=150), spec=game.hint_spec, seed=game._search_seed(view))
        assert point["winrate"] == round(a.seat_winrates[0], 4)
        if ply < 4:
            st.push(g["log"][ply]["move"])
    client.post(f"/api/games/{gid}/move", json={"move": "+bgk"})
    g = wait_graph(client, gid, 7)                         # the human's move and the AI's reply
    assert [p["ply"] for p in g["graph"]["points"]] == list(range(7))
    client.post(f"/api/games/{gid}/undo", json={})
    g = wait_graph(client, gid, 5)
    assert client.post(f"/api/games/{gid}/graph", json={"on": False}).json()["on"] is False
    r = client.post(f"/api/games/{gid}/graph", json={"on": True, "seat": 1})
    assert r.status_code == 403                            # an AI seat's view is never searched for the page
    r = client.post(f"/api/games/{gid}/graph", json={"on": True, "limit": {"seconds": 5}})
    assert r.status_code == 422 and r.json()["field"] == "limit.seconds"


def test_analysis_of_a_replayed_position(client, manager):
    game, g = closed_game(manager, client, ["+wbg", "rL1", "+wbr", "rL2"])
    gid = game.id
    r = client.post(f"/api/games/{gid}/analysis", json={"step": 1, "limit": {"iterations": 100}})
    assert r.status_code == 202, r.text
    while (a := client.get(f"/api/games/{gid}/analysis").json())["status"] == "running":
        time.sleep(0.02)
    st = State.new(2, seed=3)
    st.push("+wbg")
    assert a["status"] == "done" and a["step"] == 1 and a["seat"] == 0      # the human's view, the AI to move
    assert a["rootInfo"]["position"] == st.view(0).position() and a["rootInfo"]["toMove"] == 1
    assert client.post(f"/api/games/{gid}/analysis", json={"step": 9}).status_code == 422

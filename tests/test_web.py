"""The web API of `splendor serve` (FastAPI's test client): games, moves, hidden information, hints,
analysis, undo, records and replay; bad requests get 4xx JSON errors and leave the game unchanged;
several games stay isolated; the AI searches off the request thread."""
import json
import os
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest


with warnings.catch_warnings():   # Starlette >= 1.x prefers httpx2 for its test client; httpx still works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from splendor_ai import State  # noqa: E402
from splendor_ai.analysis import hint as engine_hint  # noqa: E402
from splendor_ai.players import Limit  # noqa: E402
from splendor_ai.records import GameRecord  # noqa: E402
from splendor_ai.interfaces.web.app import create_app  # noqa: E402
from splendor_ai.interfaces.web.games import ApiError, GameManager  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FAST_AI = "mcts(iterations=30)"


@pytest.fixture
def manager():
    m = GameManager(workers=4)
    yield m
    m.shutdown()


@pytest.fixture
def client(manager):
    with TestClient(create_app(manager), base_url="http://127.0.0.1") as c:
        yield c


def client_id(client) -> str:
    """The client token the server gave this test client (its cookie)."""
    if "splendor_client" not in client.cookies:
        client.get("/api/health")
    return client.cookies["splendor_client"]


def owned(manager, client, gid):
    return manager.get(gid, client_id(client))


def new_game(client, **body) -> dict:
    body.setdefault("seats", ["human", "random"])
    body.setdefault("seed", 5)
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def wait_for_human(client, gid: str, timeout: float = 30) -> dict:
    """Poll the game until a human seat is to move (or the game is over)."""
    end = time.monotonic() + timeout
    while True:
        g = client.get(f"/api/games/{gid}").json()
        if g["yourTurn"] or g["over"]:
            return g
        assert g["aiError"] is None, g["aiError"]
        assert time.monotonic() < end, "the AI did not move in time"
        time.sleep(0.02)


def snapshot(client, gid: str) -> dict:
    g = client.get(f"/api/games/{gid}").json()
    return {k: g[k] for k in ("version", "position", "turn", "log", "legalMoves", "toMove", "seats", "bank", "market")}


def pick(moves: list[str]) -> str:
    """A simple strong-enough policy for tests: buy the card with the most points, else take 3 gems."""
    buys = [m for m in moves if m.startswith("b")]
    if buys:
        from splendor_ai import CARDS
        return max(buys, key=lambda m: (CARDS[int(m.split("/")[0][1:])].points, -len(m)))
    takes = [m for m in moves if m.startswith("+") and "/" not in m]
    return (takes or moves)[0]


# -- the basics ------------------------------------------------------------------------------------------

def test_page_and_static_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "<title>Splendor AI</title>" in r.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    cat = client.get("/api/catalog").json()
    assert len(cat["cards"]) == 120 and len(cat["nobles"]) == 10   # the Orient cards are 90-119
    assert cat["cards"][45]["level"] == 2
    assert client.get("/api/health").json()["ok"] is True


def test_new_game_is_the_seeded_deal_seen_from_the_human_seat(client):
    g = new_game(client, players=3, seats=["human", "random", "greedy"], seed=9)
    st = State.new(3, seed=9)
    assert g["position"] == st.view(0).position()          # the view: decks hidden
    assert "?" in g["position"]
    assert g["viewer"] == 0 and g["yourTurn"] and g["toMove"] == 0
    assert [m["move"] for m in g["legalMoves"]] == [str(m) for m in st.legal_moves]
    assert g["legalMoves"][0]["description"] == st.describe(g["legalMoves"][0]["move"])
    assert g["market"] == [list(row) for row in st.market]
    assert g["decks"] == list(st.deck_sizes) and g["bank"] == list(st.bank)
    assert [s["kind"] for s in g["seatsSetup"]] == ["human", "ai", "ai"]
    assert g["log"] == [] and not g["canUndo"]


def test_play_a_whole_game_then_record_replay_and_import(client, manager):
    g = new_game(client, seats=["human", "random"], seed=21, open=True)
    gid = g["gameId"]
    assert g["open"] and g["seed"] == 21 and g["recordAvailable"]
    while not g["over"]:
        move = pick([m["move"] for m in g["legalMoves"]])
        r = client.post(f"/api/games/{gid}/move", json={"move": move, "version": g["version"]})
        assert r.status_code == 200, r.text
        g = wait_for_human(client, gid)
    true_state = owned(manager, client, gid).state
    assert g["result"] == true_state.result().to_json()
    assert [s["points"] for s in g["seats"]] == list(true_state.result().points)
    assert len(g["log"]) == len(true_state.move_stack) == g["moveCount"]
    # no more moves, and no hint, once it is over
    assert client.post(f"/api/games/{gid}/move", json={"move": "pass"}).status_code == 409
    assert client.post(f"/api/games/{gid}/hint").status_code == 409

    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rec = GameRecord.from_line(r.text.strip())
    assert rec.players == ["human", "random"] and rec.seed == 21
    assert rec.replay().position() == true_state.position()

    # replay: the board after k moves, from the human's view
    n = g["moveCount"]
    for k in (0, 1, n // 2, n):
        rp = client.get(f"/api/games/{gid}/replay", params={"step": k}).json()
        st = State(rec.start)
        for m in rec.moves[:k]:
            st.push(m)
        assert rp["position"] == st.position()         # an open game shows everything
        assert (rp["previous"] or {}).get("move") == (rec.moves[k - 1] if k else None)
    assert client.get(f"/api/games/{gid}/replay", params={"step": n + 1}).status_code == 422

    # the record uploads as a new, finished game with the same log
    r = client.post("/api/games/import", json={"record": r.text})
    assert r.status_code == 201, r.text
    imp = r.json()
    assert imp["gameId"] != gid and imp["over"]
    assert imp["log"] == [{**e, "figures": None} for e in g["log"]]
    assert imp["position"] == g["position"]


def test_undo_takes_back_the_human_move_and_the_ai_reply(client):
    g = new_game(client, seats=["human", "random"], seed=4)
    gid = g["gameId"]
    before = snapshot(client, gid)
    r = client.post(f"/api/games/{gid}/move", json={"move": g["legalMoves"][0]["move"]})
    assert r.status_code == 200
    g = wait_for_human(client, gid)
    assert len(g["log"]) == 2 and g["canUndo"]
    r = client.post(f"/api/games/{gid}/undo", json={"version": g["version"]})
    assert r.status_code == 200, r.text
    after = snapshot(client, gid)
    assert after["position"] == before["position"] and after["log"] == [] and after["legalMoves"] == before["legalMoves"]
    assert after["version"] > before["version"]
    r = client.post(f"/api/games/{gid}/undo")
    assert r.status_code == 409 and "nothing to undo" in r.json()["error"]


# -- hidden information --------------------------------------------------------------------------------

def closed_game(manager, client, moves, seed=3, specs=("human", "random"), **kw):
    """A closed game (the default kind) of this client, with `moves` played: built through the
    manager, since a game played through the API has AI moves nobody chose."""
    st = State.new(len(specs), seed=seed)
    for m in moves:
        st.push(m)
    g = manager.adopt(client_id(client), st, list(specs), seed=seed, **kw)
    return g, client.get(f"/api/games/{g.id}").json()


def test_the_page_shows_only_the_human_seats_view(client, manager):
    game, g = closed_game(manager, client, ["+wbg", "rL1", "+wbr", "rL2"])   # the AI seat (1) reserves blind
    st = game.state
    hidden = [c for c in st.seats[1].reserved]
    assert g["position"] == st.view(0).position() and not g["open"]
    assert [r["card"] for r in g["seats"][1]["reserved"]] == [None, None]
    assert [r["level"] for r in g["seats"][1]["reserved"]] == [1, 2]
    text = json.dumps({k: v for k, v in g.items() if k not in ("legalMoves",)})
    for card in hidden:
        assert f'"card": {card}' not in text and f"#{card} " not in text
    assert "reserves the top card of the level-1 deck" in g["log"][1]["description"]
    # no seed, no true position, no record, no AI seed anywhere
    assert "seed" not in g and "truePosition" not in g and not g["recordAvailable"]
    r = client.get(f"/api/games/{game.id}/record")
    assert r.status_code == 403 and "closed" in r.json()["error"]
    # the AI seat's view is refused; the human's is given
    gid = g["gameId"]
    r = client.get(f"/api/games/{gid}", params={"seat": 1})
    assert r.status_code == 403 and r.json()["field"] == "seat"
    assert client.get(f"/api/games/{gid}", params={"seat": 0}).status_code == 200


def test_hint_and_analysis_search_the_human_view(client, manager):
    g = new_game(client, seats=["human", FAST_AI], seed=12)
    gid = g["gameId"]
    r = client.post(f"/api/games/{gid}/hint", json={"limit": {"iterations": 60}})
    assert r.status_code == 200, r.text
    h = r.json()
    game = owned(manager, client, gid)
    view = State.new(2, seed=12).view(0)
    want = engine_hint(view, Limit(iterations=60), spec=FAST_AI, seed=game._search_seed(view), top_k=5)
    assert h["move"] == want.move and h["reason"] == want.reason
    assert h["rootInfo"]["position"] == g["position"] and h["rootInfo"]["seat"] == 0
    assert "seed" not in h["rootInfo"]                     # a search seed is never sent

    r = client.post(f"/api/games/{gid}/analysis", json={"limit": {"iterations": 200}, "topK": 4})
    assert r.status_code == 202, r.text
    end = time.monotonic() + 20
    while (a := client.get(f"/api/games/{gid}/analysis").json())["status"] == "running":
        assert time.monotonic() < end
        time.sleep(0.02)
    assert a["status"] == "done" and not a["stale"]
    assert 1 <= len(a["moveInfos"]) <= 4
    legal = {m["move"] for m in g["legalMoves"]}
    assert all(m["move"] in legal and 0 <= m["winrate"] <= 1 for m in a["moveInfos"])
    assert a["rootInfo"]["position"] == g["position"] and a["rootInfo"]["iterations"] >= 200
    assert "seed" not in a["rootInfo"]


# -- bad requests -------------------------------------------------------------------------------------------

BAD_REQUESTS = [
    # (method, path suffix, body or raw bytes, expected status, a word of the message, field)
    ("POST", "/move", b"{not json", 400, "not valid JSON", None),
    ("POST", "/move", b"", 422, "JSON body", None),
    ("POST", "/move", {}, 422, "missing", "move"),
    ("POST", "/move", {"move": 7}, 422, "string", "move"),
    ("POST", "/move", {"move": "+wbg", "extra": 1}, 422, "unknown field", "extra"),
    ("POST", "/move", {"move": "xyz"}, 400, "not a move", "move"),
    ("POST", "/move", {"move": "+wbgr"}, 400, "not a move", "move"),
    ("POST", "/move", {"move": "b999"}, 400, "not a move", "move"),
    ("POST", "/move", {"move": "pass"}, 400, "illegal move", "move"),
    ("POST", "/move", {"move": "b{level3}"}, 400, "illegal move", "move"),
    ("POST", "/move", {"move": "+wbg/-k"}, 400, "illegal move", "move"),
    ("POST", "/move", {"move": "+wbg", "version": 99}, 409, "changed", "version"),
    ("POST", "/move", {"move": "+wbg", "version": "0"}, 422, "integer", "version"),
    ("POST", "/undo", {}, 409, "nothing to undo", None),
    ("POST", "/undo", {"version": 5}, 409, "changed", "version"),
    ("POST", "/hint", {"limit": {"iterations": 0}}, 422, "iterations", "limit.iterations"),
    ("POST", "/hint", {"limit": {"seconds": 1e9}}, 422, "seconds", "limit.seconds"),
    ("POST", "/hint", {"limit": {"depth": 3}}, 422, "unknown field", "limit.depth"),
    ("POST", "/hint", {"spec": "random"}, 422, "mcts", "spec"),
    ("POST", "/hint", {"spec": "mcts(mode='perfect')"}, 422, "perfect", "spec"),
    ("POST", "/analysis", {"topK": 0}, 422, "topK", "topK"),
    ("POST", "/analysis", {"seat": 1}, 403, "AI seat", "seat"),
    ("POST", "/analysis", {"seat": 7}, 422, "seat", "seat"),
    ("GET", "/replay?step=5", None, 422, "step", "step"),
    ("GET", "/replay?step=abc", None, 422, "integer", "step"),
    ("GET", "/replay", None, 422, "missing", "step"),
    ("GET", "?seat=1", None, 403, "AI seat", "seat"),
    ("GET", "?seat=9", None, 422, "seat", "seat"),
    ("PUT", "/move", {"move": "+wbg"}, 405, "not allowed", None),
    ("GET", "/nonsense", None, 404, "not found", None),
]


@pytest.mark.parametrize("method,suffix,body,status,word,field", BAD_REQUESTS,
                         ids=[f"{m} {s} {b!r}"[:60] for m, s, b, *_ in BAD_REQUESTS])
def test_bad_requests_get_4xx_json_and_change_nothing(client, method, suffix, body, status, word, field):
    g = new_game(client, seats=["human", "random"], seed=8)
    gid = g["gameId"]
    if isinstance(body, dict) and isinstance(body.get("move"), str):
        body = {**body, "move": body["move"].replace("{level3}", str(g["market"][2][0]))}
    before = snapshot(client, gid)
    kwargs = {}
    if isinstance(body, bytes):
        kwargs = {"content": body, "headers": {"content-type": "application/json"}}
    elif body is not None:
        kwargs = {"json": body}
    r = client.request(method, f"/api/games/{gid}{suffix}", **kwargs)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()
    assert isinstance(err["error"], str) and word.lower() in err["error"].lower(), err
    assert err.get("field") == field, err
    assert err["status"] == status
    assert snapshot(client, gid) == before


def test_bad_new_game_and_import_requests(client):
    cases = [
        ({"players": 5}, "players"), ({"players": "2"}, "players"), ({"players": 2, "seats": ["human"]}, "seats"),
        ({"seats": ["random", "random"]}, "seats"), ({"seats": ["human", "wizard"]}, "seats[1]"),
        ({"seats": ["human", "mcts(mode='perfect')"]}, "seats[1]"), ({"seats": ["human", "mcts(seconds=1000)"]}, "seats[1]"),
        ({"seats": ["human", "mcts(c=)"]}, "seats[1]"), ({"seats": ["human", 3]}, "seats[1]"),
        ({"seed": -1}, "seed"), ({"seed": 2 ** 64}, "seed"), ({"firstPlayer": 2}, "firstPlayer"),
        ({"hintSpec": "greedy"}, "hintSpec"), ({"colour": "red"}, "colour"),
    ]
    n = len(client.get("/api/games").json()["games"])
    for body, field in cases:
        r = client.post("/api/games", json=body)
        assert r.status_code == 422, (body, r.text)
        assert r.json()["field"] == field, (body, r.json())
    st = State.new(2, seed=1)
    st.push("+wbg")
    good = GameRecord.from_state(st, seed=1, players=["human", "random"]).to_json()
    for body, status, field in [
        ({"record": "not json"}, 400, "record"),
        ({"record": json.dumps({**good, "moves": ["b0"]})}, 400, "record"),
        ({"record": json.dumps({**good, "format": "x"})}, 400, "record"),
        ({"record": 17}, 422, "record"),
        ({"record": good, "humans": [5]}, 422, "humans"),
        ({"record": good, "game": 2}, 422, "game"),
        ({}, 422, "record"),
    ]:
        r = client.post("/api/games/import", json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["field"] == field
    assert len(client.get("/api/games").json()["games"]) == n      # nothing was created
    assert client.post("/api/games/import", json={"record": good}).status_code == 201


def test_a_move_while_the_ai_thinks_is_refused_and_the_server_stays_responsive(client):
    g = new_game(client, seats=["human", "mcts(seconds=1)"], seed=2, firstPlayer=1)
    gid = g["gameId"]
    assert g["thinking"] is not None and g["thinking"]["seat"] == 1
    r = client.post(f"/api/games/{gid}/move", json={"move": "+wbg"})
    assert r.status_code == 409 and "AI seat" in r.json()["error"]
    assert client.post(f"/api/games/{gid}/hint").status_code == 409
    # while the search runs in the pool, requests are answered (they show the search still running,
    # with its progress: a request blocked behind the search would only see its end)
    answered_while_thinking = 0
    seen_progress = False
    t0 = time.monotonic()
    while True:
        g = client.get(f"/api/games/{gid}").json()
        if g["thinking"] is None:
            break
        answered_while_thinking += 1
        assert client.get("/api/health").status_code == 200
        seen_progress |= bool(g["thinking"]["iterations"])
        assert time.monotonic() - t0 < 20
        time.sleep(0.05)
    assert answered_while_thinking >= 3 and seen_progress
    assert g["yourTurn"] and len(g["log"]) == 1 and g["log"][0]["by"] == "ai"
    assert "win estimate" in g["log"][0]["figures"] and "iterations" in g["log"][0]["figures"]


# -- several games -----------------------------------------------------------------------------------------

def test_several_games_are_isolated(client, manager):
    a = new_game(client, seats=["human", "random"], seed=1)
    b = new_game(client, players=3, seats=["random", "human", "greedy"], seed=1)
    assert a["gameId"] != b["gameId"]
    b = wait_for_human(client, b["gameId"])
    b_before = snapshot(client, b["gameId"])
    for _ in range(3):
        a = client.get(f"/api/games/{a['gameId']}").json()
        r = client.post(f"/api/games/{a['gameId']}/move", json={"move": pick([m["move"] for m in a["legalMoves"]])})
        assert r.status_code == 200
        wait_for_human(client, a["gameId"])
    assert snapshot(client, b["gameId"]) == b_before
    a_before = snapshot(client, a["gameId"])
    r = client.post(f"/api/games/{b['gameId']}/move", json={"move": pick([m["move"] for m in b["legalMoves"]])})
    assert r.status_code == 200
    b = wait_for_human(client, b["gameId"])
    assert len(b["log"]) == 4 and snapshot(client, a["gameId"]) == a_before
    ids = {x["gameId"] for x in client.get("/api/games").json()["games"]}
    assert {a["gameId"], b["gameId"]} <= ids
    assert client.delete(f"/api/games/{a['gameId']}").status_code == 200
    assert client.get(f"/api/games/{a['gameId']}").status_code == 404
    assert client.get(f"/api/games/{b['gameId']}").status_code == 200
    assert owned(manager, client, b["gameId"]).state.turn == 4


def test_concurrent_moves_on_one_game_apply_once(manager):
    game = manager.create("c" * 24, 2, ["human", "human"], seed=3)
    version = game.version
    moves = [str(m) for m in game.state.legal_moves][:8]
    results = []

    def go(move):
        try:
            game.play(move, version)
            results.append("ok")
        except ApiError as e:
            results.append(e.status)
    threads = [threading.Thread(target=go, args=(m,)) for m in moves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 1 and sorted(set(results) - {"ok"}) == [409]
    assert len(game.state.move_stack) == 1 and len(game.log) == 1 and game.version == version + 1


def test_games_beyond_a_browsers_limit_close_its_least_recently_used_one():
    m = GameManager(max_games=3, max_games_per_client=2, workers=1)
    me, other = "a" * 24, "b" * 24
    try:
        g1 = m.create(me, 2, ["human", "random"], seed=1)
        g2 = m.create(me, 2, ["human", "random"], seed=2)
        g2.to_json()                           # touched: g1 is now the least recently used
        g3 = m.create(me, 2, ["human", "random"], seed=3)
        assert {g.id for g in m.games.values()} == {g2.id, g3.id}
        with pytest.raises(ApiError) as e:
            m.get(g1.id, me)
        assert e.value.status == 410 and "at most 2 games" in e.value.message
        m.create(other, 2, ["human", "random"], seed=4)
        # the server is full: another browser's games are never closed for a newcomer
        with pytest.raises(ApiError) as e:
            m.create("c" * 24, 2, ["human", "random"], seed=5)
        assert e.value.status == 503 and e.value.retry_after and len(m.games) == 3
    finally:
        m.shutdown()


# -- the command -----------------------------------------------------------------------------------------

def test_splendor_serve_runs_the_app_on_localhost():
    import httpx
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "splendor_ai", "serve", "--port", str(port),
                             "--allow-host", "splendor.test"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < end, "the server did not start"
                time.sleep(0.1)
        assert r.json()["ok"] is True
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
        assert "Splendor" in page.text
        # the Host allow-list: the loopback names and --allow-host, nothing else (DNS rebinding)
        for host, status in (("localhost", 200), ("splendor.test", 200), ("evil.example", 400)):
            r = httpx.get(f"http://127.0.0.1:{port}/api/health", headers={"host": host}, timeout=5)
            assert r.status_code == status, (host, r.text)
        assert httpx.get(f"http://127.0.0.1:{port}/docs", timeout=5).status_code == 404
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    assert "Traceback" not in err, err
    assert f"http://127.0.0.1:{port}/" in err

    bad = subprocess.run([sys.executable, "-m", "splendor_ai", "serve", "--port", "0"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "port" in bad.stderr and "Traceback" not in bad.stderr

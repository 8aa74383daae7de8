"""The web API with the Cities of Splendor modules (FastAPI's test client): the catalog has every
card (the Orient's too), the cities and the trading posts; a new game takes a module; a game of
each module where the human has a decision: the board JSON carries the module's elements, the
legal moves carry the decisions in v2 notation with descriptions, the decision move is played, a
bad decision token and a move naming a card the refill would reveal are refused (the game
unchanged), undo, a hint, the record."""
import pytest


from module_positions import DECISION, MODULES, decision_position  # noqa: E402
from test_web import client, manager, new_game, owned, snapshot, wait_for_human  # noqa: E402,F401  (fixtures)

from splendor_ai import CARDS  # noqa: E402
from splendor_ai.records import GameRecord  # noqa: E402


def test_catalog_has_the_module_elements(client):
    cat = client.get("/api/catalog").json()
    assert len(cat["cards"]) == 120 and len(cat["cities"]) == 14 and len(cat["posts"]) == 5
    assert [m["name"] for m in cat["modules"]] == list(MODULES)
    joker = next(c for c in cat["cards"] if "joker" in c["abilities"])
    assert joker["orient"] and joker["bonus"] is None and joker["bonusLetter"] is None
    sac = next(c for c in cat["cards"] if c["sacrifice"] is not None)
    assert CARDS[sac["id"]].sacrifice == sac["sacrifice"]
    assert cat["cities"][0]["prestige"] == 14 and cat["posts"][3]["nobles"] == 1


@pytest.mark.parametrize("module", MODULES)
def test_new_module_game(client, module):
    players = 3 if module == "cities" else 2
    g = new_game(client, module=module, seats=["human"] + ["random"] * (players - 1), players=players)
    assert g["module"] == module and g["position"].startswith(f"SPN2 {g['players']}:{module}")
    if module == "orient":
        assert len(g["decks"]) == 6 and all(len(row) == 6 for row in g["market"]) and g["discard"] == []
        assert all(s["jokers"] == [] and s["heldNobles"] == [] for s in g["seats"])
    elif module == "cities":
        assert len(g["cities"]) == 3 and g["nobles"] == [] and all(s["cities"] == [] for s in g["seats"])
    elif module == "posts":
        assert all(s["posts"] == [] for s in g["seats"])
    else:
        assert g["strongholds"] == [] and all(s["strongholds"] == 3 for s in g["seats"])
    listed = client.get("/api/games").json()["games"]
    assert any(x["gameId"] == g["gameId"] and x["module"] == module for x in listed)


@pytest.mark.parametrize("body,field", [({"module": "atlantis"}, "module"), ({"module": "orient,cities"}, "module"),
                                        ({"module": ["orient"]}, "module")])
def test_bad_module_is_refused(client, body, field):
    r = client.post("/api/games", json={"seats": ["human", "random"], **body})
    assert r.status_code == 422 and r.json()["field"] == field, r.text


def import_position(client, module):
    st, hits = decision_position(module)
    rec = GameRecord.from_state(st, seed=1, players=["human", "random"])
    r = client.post("/api/games/import", json={"record": rec.to_line()})
    assert r.status_code == 201, r.text
    return r.json(), st, hits


@pytest.mark.parametrize("module", MODULES)
def test_module_game_with_decisions(client, manager, module):
    g, st, hits = import_position(client, module)
    gid = g["gameId"]
    view = st.view(0)
    assert g["yourTurn"] and g["open"] and g["position"] == st.position()    # an uploaded record is open
    listed = {m["move"]: m["description"] for m in g["legalMoves"]}
    assert set(listed) == set(map(str, view.legal_moves))
    for m in hits:
        assert listed[str(m)] == view.describe(m)
    move = str(hits[-1])
    action = move.split("/")[0]
    before = snapshot(client, gid)
    bad = [f"{action}/{DECISION[module]}zz", f"{action}/jy" if module != "orient" else f"{action}/t3"]
    hidden = sorted(set(map(str, st.legal_moves)) - set(map(str, view.legal_moves)))
    bad += hidden[:2]                             # a decision on the card a refill reveals: not the player's to see
    if module != "posts":
        bad.append(action)                        # the decision left out
    for text in bad:
        r = client.post(f"/api/games/{gid}/move", json={"move": text})
        assert r.status_code == 400 and r.json()["field"] == "move", (text, r.text)
        if text in hidden:                        # the error lists the choices the player can see only
            options = r.json()["error"].split("one of:")[-1]
            assert not any(h.split("/")[-1] in options.replace(",", " ").split() for h in hidden), options
        assert snapshot(client, gid) == before
    h = client.post(f"/api/games/{gid}/hint", json={"limit": {"iterations": 300}}).json()
    assert h["move"] in listed and h["description"] == listed[h["move"]]
    partial = g["partialMove"] is not None
    r = client.post(f"/api/games/{gid}/move", json={"move": move, "version": g["version"]})
    assert r.status_code == 200, r.text
    g = wait_for_human(client, gid)
    # the turn is one entry of the log (when the game was in its first step, the entry it completes)
    assert g["log"][len(before["log"]) - (1 if partial else 0)]["move"] == move
    true = owned(manager, client, gid).state
    assert g["position"] == true.position()
    seat = g["seats"][0]
    if module == "cities":
        assert seat["cities"] == [hits[-1].city] and hits[-1].city not in g["cities"]
    elif module == "orient":
        joker = next(v for t, v in hits[-1].decisions if t == "j")
        assert {"card": hits[-1].card, "colour": joker} in seat["jokers"]
    elif module == "posts":
        assert seat["tokens"] != before["seats"][0]["tokens"]
    else:
        card = hits[-1].decisions[0][1]
        assert any(e == {"card": card, "seat": 0, "count": 1} for e in g["strongholds"]) or card not in sum(g["market"], [])
        assert seat["strongholds"] == 2
    r = client.post(f"/api/games/{gid}/undo", json={})
    start = st.copy()
    if partial:                 # undo takes back the whole turn, its first step too
        start.pop()
    assert r.status_code == 200 and r.json()["position"] == start.position()
    rec = GameRecord.from_line(client.get(f"/api/games/{gid}/record").text.strip())
    assert rec.config.module == module and rec.replay().position() == start.position()


def test_a_two_step_turn_is_one_entry_of_the_log(client, manager):
    """The Strongholds' purchase then its stronghold action (a two-step turn, docs/RULES.md): while
    the second step is pending the log shows the first; once the turn is whole it is one entry, so
    the log, the replay, the undo and the record all count whole turns."""
    from module_positions import decision_position
    st, hits = decision_position("strongholds")
    if st.partial_move is not None:
        st.pop()
    rec = GameRecord.from_state(st, seed=1, players=["human", "random"])
    g = client.post("/api/games/import", json={"record": rec.to_line()}).json()
    gid, n = g["gameId"], g["moveCount"]
    first, rest = str(hits[-1]).split("/", 1)
    g = client.post(f"/api/games/{gid}/move", json={"move": first}).json()
    assert g["partialMove"] == first and g["yourTurn"] and g["log"][-1]["move"] == first
    r = client.post(f"/api/games/{gid}/move", json={"move": rest})
    assert r.status_code == 200, r.text
    g = wait_for_human(client, gid)
    whole = [e for e in g["log"][n:] if e["seat"] == 0]
    assert [e["move"] for e in whole] == [str(hits[-1])] and "places a stronghold" in whole[0]["description"]
    assert g["moveCount"] == len(g["log"]) == len(owned(manager, client, gid).state.move_stack)
    for k in range(g["moveCount"] + 1):
        assert client.get(f"/api/games/{gid}/replay", params={"step": k}).status_code == 200
    rec2 = GameRecord.from_line(client.get(f"/api/games/{gid}/record").text)
    assert rec2.moves[n] == str(hits[-1]) and len(rec2.moves) == len(g["log"])
    u = client.post(f"/api/games/{gid}/undo", json={}).json()
    assert u["moveCount"] == n and u["log"] == g["log"][:n] and u["partialMove"] is None

"""The browser UI end to end, in a real headless browser: Playwright drives Chromium (Debian's
/usr/bin/chromium, else Playwright's own: tests/install_browser.sh, in the README's test command,
installs one) against `splendor serve`'s app on a
free localhost port.

A whole game is played against a fast AI by clicking bank tokens, cards, decks, returned tokens and
nobles (and, on some turns, the page's legal-move list), with a hint, an analysis and an undo; after
every turn what the page shows (points, tokens, bonuses, reserved cards, market card ids, decks,
nobles) is checked against the game's JSON from the API and against the engine's true state. Then
the finished game is replayed, downloaded and uploaded again.

Set SPLENDOR_SCREENSHOTS=DIR to also write the README's screenshots there
(`SPLENDOR_SCREENSHOTS=docs/screenshots python -m pytest tests/test_web_browser.py`).
"""
import os
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None   # None: Playwright's own
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

from playwright import sync_api  # noqa: E402

from splendor_ai import CARDS, NOBLES, State  # noqa: E402
from splendor_ai.records import GameRecord  # noqa: E402
from live_server import live_server  # noqa: E402

FAST_AI = "mcts(iterations=30)"
SHOTS = os.environ.get("SPLENDOR_SCREENSHOTS")


# -- fixtures: the server in a thread, one browser -------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    with live_server(workers=4) as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    pw = sync_api.sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()
    pw.stop()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1440, "height": 960}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(20_000)
    errors = []
    pg.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    # an API answer of 4xx that the page handles (a stale tab's move) is logged by Chromium too
    pg.on("console", lambda m: errors.append(f"console {m.type}: {m.text}")
          if m.type == "error" and "server responded with a status of 4" not in m.text else None)
    yield pg
    ctx.close()
    assert not errors, errors


# -- reading the page -------------------------------------------------------------------------------------

READ_PAGE = """() => {
  const q = (sel, root = document) => [...root.querySelectorAll(sel)];
  const num = e => Number(e.textContent.trim());
  const st = document.querySelector('#status').dataset;
  return {
    gameId: document.querySelector('#status .game-id').textContent.replace('game ', '').trim(),
    turn: Number(st.turn), version: Number(st.version), yourTurn: st.yourTurn === '1', over: st.over === '1',
    bank: q('[data-testid=bank-token]').map(num),
    market: [1, 2, 3].map(l => [...document.querySelector(`.market-row.lv${l}`).children]
      .filter(e => (e.dataset.testid || '').startsWith('market'))
      .map(e => e.dataset.card ? Number(e.querySelector('.card-id').textContent.slice(1)) : null)),
    decks: [1, 2, 3].map(l => Number(document.querySelector(`[data-testid=deck][data-level='${l}']`).dataset.count))
      .concat(q('[data-testid=orient-deck]').length
        ? [1, 2, 3].map(l => Number(document.querySelector(`[data-testid=orient-deck][data-level='${l}']`).dataset.count)) : []),
    nobles: q('#nobles [data-testid=noble]').map(e => Number(e.dataset.noble)),
    seats: q('[data-testid=seat]').map(s => ({
      seat: Number(s.dataset.seat),
      points: num(s.querySelector('[data-testid=points]')),
      tokens: q('[data-testid=seat-token]', s).map(num),
      bonuses: q('[data-testid=seat-bonus]', s).map(num),
      reserved: q('[data-testid=reserved-card]', s).map(e => e.dataset.hidden ? null : Number(e.dataset.card)),
      nobles: q('.seat-nobles [data-noble]', s).map(e => Number(e.dataset.noble)),
    })),
  };
}"""


def read_page(page) -> dict:
    return page.evaluate(READ_PAGE)


def origin(page) -> str:
    u = urlsplit(page.url)
    return f"{u.scheme}://{u.netloc}"


def api(page, path: str, **params) -> dict:
    """A GET of the API as the page's browser (its client cookie: games belong to a browser)."""
    r = page.request.get(origin(page) + path, params=params or None)
    assert r.ok, r.text()
    return r.json()


def api_game(page, gid: str) -> dict:
    return api(page, f"/api/games/{gid}")


def client_of(page) -> str:
    return next(c["value"] for c in page.context.cookies() if c["name"] == "splendor_client")


def true_state(page, manager, gid: str):
    return manager.get(gid, client_of(page)).state


def check_page_against_engine(page, base: str, manager, gid: str) -> dict:
    """What the page shows equals the API's JSON of the game, which equals the engine's state."""
    shown = read_page(page)
    g = api_game(page, gid)
    assert shown["gameId"] == gid
    assert shown["turn"] == g["turn"] and shown["version"] == g["version"]
    assert shown["bank"] == g["bank"]
    assert shown["market"] == g["market"]
    assert shown["decks"] == g["decks"]
    assert shown["nobles"] == g["nobles"]
    for s_page, s_api in zip(shown["seats"], g["seats"], strict=True):
        assert s_page["points"] == s_api["points"]
        assert s_page["tokens"] == s_api["tokens"]
        assert s_page["bonuses"] == s_api["bonuses"]
        assert s_page["reserved"] == [r["card"] for r in s_api["reserved"]]
        assert s_page["nobles"] == s_api["nobles"]
    # ... and the API serves the engine's state, as the human seat sees it
    st = true_state(page, manager, gid)
    assert g["position"] == (st.position() if g["open"] else st.view(g["viewer"]).position())
    assert [s["points"] for s in shown["seats"]] == [s.points for s in st.seats]
    assert [row for row in shown["market"]] == [list(row) for row in st.market]
    assert [s["tokens"] for s in shown["seats"]] == [list(s.tokens) for s in st.seats]
    return g


def wait_for_turn(page, after_version: int) -> dict:
    """Wait until the page shows a newer version of the game where the human is to move (or it is over)."""
    page.wait_for_function(
        """v => { const d = document.querySelector('#status').dataset;
                  return Number(d.version) > v && (d.yourTurn === '1' || d.over === '1'); }""",
        arg=after_version)
    return read_page(page)


def pick(moves: list[str], turn: int) -> str:
    """Buy the card with the most points; else take 3 gems (varying), else the first move."""
    buys = [m for m in moves if m.startswith("b")]
    if buys:
        return max(buys, key=lambda m: (CARDS[int(m.split("/")[0][1:])].points, -len(m)))
    takes = [m for m in moves if m.startswith("+") and len(m.split("/")[0]) == 4]
    if takes and turn % 7 != 3:
        return takes[turn % len(takes)]
    reserves = [m for m in moves if m.startswith("r")]
    if reserves:
        return reserves[turn % len(reserves)]
    return moves[0]


def click_move(page, g: dict, move: str) -> list[str]:
    """Play `move` the way a person does: click its tokens / card / deck, then the returned tokens and
    the noble when the page asks for them. Returns what was clicked after the action."""
    parts = move.split("/")
    action = parts[0]
    returns = next((p[1:] for p in parts[1:] if p.startswith("-")), "")
    noble = next((p[1:] for p in parts[1:] if p.startswith("n")), None)
    if action.startswith("+"):
        for ch in action[1:]:
            page.click(f"[data-testid=bank-token][data-colour={ch}]")
        page.click("[data-testid=confirm-take]")
    elif action.startswith("rL"):
        page.click(f"[data-testid=deck][data-level='{action[2:]}']")
        page.click("#act-reserve-deck")
    elif action.startswith("r"):
        page.click(f"[data-testid=market-card][data-card='{action[1:]}']")
        page.click("#act-reserve")
    elif action.startswith("b"):
        card = int(action[1:])
        if any(card in row for row in g["market"]):
            page.click(f"[data-testid=market-card][data-card='{card}']")
        else:
            page.click(f"[data-testid=seat][data-seat='{g['viewer']}'] [data-testid=reserved-card][data-card='{card}']")
        page.click("#act-buy")
    else:
        page.click("#act-pass")
    clicked = []
    if returns and page.locator("[data-testid=return-token]").count():
        for ch in returns:
            page.click(f"[data-testid=return-token][data-colour={ch}]")
        clicked.append("returns")
    if noble is not None and page.locator("#nobles .noble.choosable").count():
        page.click(f"#nobles [data-testid=noble][data-noble='{noble}']")
        clicked.append("noble")
    return clicked


def shoot(page, name: str) -> None:
    page.mouse.move(0, 0)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(Path(SHOTS) / name))


def start_game(page, base: str, seats: list[str], seed: int, players: int = 2, module: str = "",
               open_game: bool = False) -> str:
    page.goto(base)
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#new-dialog[open]")
    page.select_option("#ng-players", str(players))
    page.select_option("#ng-module", module)
    for i, spec in enumerate(seats):
        row = f"#ng-seats [data-seat='{i}']"
        if spec == "human":
            page.select_option(f"{row} .seat-kind", "human")
            continue
        page.select_option(f"{row} .seat-kind", "ai")
        presets = page.eval_on_selector_all(f"{row} .seat-spec option", "els => els.map(e => e.value)")
        if spec in presets:
            page.select_option(f"{row} .seat-spec", spec)
        else:
            page.select_option(f"{row} .seat-spec", "custom")
            page.fill(f"{row} .seat-custom", spec)
    page.fill("#ng-seed", str(seed))
    if open_game:
        page.check("#ng-open")
    if SHOTS:
        shoot(page, "new-game.png")
    page.click("#ng-start")
    page.wait_for_selector("#status .game-id")
    return read_page(page)["gameId"]


# -- the tests ---------------------------------------------------------------------------------------------

def test_play_a_whole_game_in_the_browser(page, server):
    base, manager = server
    gid = start_game(page, base, ["human", FAST_AI], seed=17, open_game=True)   # open: its record downloads
    g = api_game(page, gid)
    assert g["seatsSetup"][1]["spec"] == FAST_AI and g["yourTurn"]
    page.select_option("#budget", '{"iterations":200}')       # hints and analyses: a tiny search
    turn = 0
    used = {"hint": False, "undo": False, "analysis": False, "list": 0, "clicks": 0, "returns": 0, "noble": 0}
    while True:
        g = check_page_against_engine(page, base, manager, gid)
        if g["over"]:
            break
        assert g["yourTurn"] and g["legalMoves"]
        moves = [m["move"] for m in g["legalMoves"]]
        # the page lists the same legal moves
        page_moves = page.eval_on_selector_all("[data-testid=legal-move]", "els => els.map(e => e.dataset.move)")
        assert page_moves == moves
        version = g["version"]

        if turn == 2:                                          # a hint, played with its button
            page.click("#btn-hint")
            page.wait_for_selector("[data-testid=hint-move]")
            hinted = page.get_attribute("[data-testid=hint-move]", "data-move")
            assert hinted in moves
            page.click("#play-hint")
            used["hint"] = True
        elif turn == 4 and not used["analysis"]:               # the analysis panel, then a click move
            page.click("#btn-analyse")
            page.wait_for_function("() => document.querySelector('#analysis-panel .muted') && "
                                   "!document.querySelector('#analysis-panel .spinner') && "
                                   "document.querySelectorAll('[data-testid=analysis-row]').length > 0")
            rows = page.eval_on_selector_all("[data-testid=analysis-row]", "els => els.map(e => e.dataset.move)")
            assert rows and set(rows) <= set(moves)
            used["analysis"] = True
            click_move(page, g, pick(moves, turn))
            used["clicks"] += 1
        elif turn == 6 and not used["undo"]:                    # play, see the AI reply, undo both
            before = g
            click_move(page, g, pick(moves, turn))
            after = wait_for_turn(page, version)
            last = api_game(page, gid)
            assert len(last["log"]) == len(before["log"]) + 2 or last["over"]
            if not last["over"]:
                banner = page.get_attribute("[data-testid=ai-move]", "data-move")
                assert banner == last["log"][-1]["move"]        # the AI's move, highlighted in a banner
                assert last["log"][-1]["description"].replace("Player 2 ", "") in page.inner_text("#banner")
                page.click("#btn-undo")
                wait_for_turn(page, after["version"])
                undone = api_game(page, gid)
                assert undone["position"] == before["position"] and undone["log"] == before["log"]
                assert read_page(page)["turn"] == before["turn"]
                used["undo"] = True
                turn += 1
                continue
        elif turn % 4 == 3:                                     # from the page's list of legal moves
            if not page.evaluate("() => document.querySelector('#legal').open"):
                page.click("#legal summary")
            page.click(f"[data-testid=legal-move][data-move='{pick(moves, turn)}']")
            used["list"] += 1
        else:
            for what in click_move(page, g, pick(moves, turn)):
                used[what] += 1
            used["clicks"] += 1
        wait_for_turn(page, version)
        turn += 1
        assert turn < 200, "the game did not end"

    assert used["hint"] and used["undo"] and used["analysis"] and used["list"] >= 2 and used["clicks"] >= 10, used
    st = true_state(page, manager, gid)
    result = st.result()
    status = page.inner_text("#status")
    assert "Game over" in status
    for seat, pts in enumerate(result.points):
        assert f"Player {seat + 1}: {pts}" in status
    assert page.locator("[data-testid=summary]:not([hidden])").count() == 1

    # replay the finished game, step by step
    n = len(st.move_stack)
    page.click("#btn-replay")
    page.wait_for_selector("#rp-label[data-step='0']")
    for step, how in ((0, None), (1, "#rp-next"), (2, "#rp-next"), (n, "#rp-last"), (n - 1, "ArrowLeft")):
        if how == "ArrowLeft":
            page.keyboard.press("ArrowLeft")
        elif how:
            page.click(how)
        page.wait_for_selector(f"#rp-label[data-step='{step}']")
        want = api(page, f"/api/games/{gid}/replay", step=step)
        shown = read_page(page)
        assert shown["market"] == want["market"] and shown["bank"] == want["bank"]
        assert [s["points"] for s in shown["seats"]] == [s["points"] for s in want["seats"]]
        replayed = State(GameRecord.from_state(st, seed=17, players=["human", FAST_AI]).start)
        for m in st.move_stack[:step]:
            replayed.push(m)
        assert shown["market"] == [list(r) for r in replayed.market]
        if step:
            assert want["previous"]["move"] in page.inner_text("#rp-label")
        if SHOTS and step == n:
            shoot(page, "replay.png")
    page.click("#rp-exit")

    # download the record; it replays to the game the engine played
    with page.expect_download() as dl:
        page.click("#btn-download")
    path = dl.value.path()
    rec = GameRecord.from_line(Path(path).read_text().strip())
    assert rec.replay().position() == st.position() and rec.result == result

    # upload it: a new game, opened as a replay at its start
    page.set_input_files("#upload-input", path)
    page.wait_for_function("gid => document.querySelector('#status .game-id').textContent.trim() !== 'game ' + gid",
                           arg=gid)
    page.wait_for_selector("#rp-label[data-step='0']")
    new_gid = read_page(page)["gameId"]
    assert new_gid != gid
    assert page.locator("[data-testid=log-entry]").count() == n
    assert api_game(page, new_gid)["position"] == api_game(page, gid)["position"]


def test_the_page_shows_hidden_cards_as_card_backs(page, server):
    """A closed game where the AI seat reserved blind: the human's page shows only card backs."""
    base, manager = server
    st = State.new(2, seed=3)
    for m in ("+wbg", "rL1", "+wbr", "rL3"):
        st.push(m)
    hidden = list(st.seats[1].reserved)
    page.goto(base)
    page.wait_for_selector("body[data-ready='1']")
    game = manager.adopt(client_of(page), st, ["human", "random"], seed=3)
    page.goto(f"{base}/#game={game.id}")
    page.reload()
    page.wait_for_selector("[data-testid=seat][data-seat='1'] [data-testid=reserved-card][data-hidden='1']")
    shown = read_page(page)
    assert shown["seats"][1]["reserved"] == [None, None]
    html = page.content()
    for card in hidden:
        assert f'data-card="{card}"' not in html and f"#{card}<" not in html
    assert "reserves the top card of the level-1 deck" in page.inner_text("#log")
    assert shown["yourTurn"]


def upload(page, base: str, rec: GameRecord) -> str:
    """Open the page and upload a record; returns the new game's id."""
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"splendor-upload-{os.getpid()}.jsonl"
    path.write_text(rec.to_line() + "\n")
    try:
        page.goto(base)
        page.wait_for_selector("body[data-ready='1']")
        page.click("#ng-cancel")
        page.set_input_files("#upload-input", str(path))
        page.wait_for_selector("#status .game-id")
    finally:
        path.unlink()
    return read_page(page)["gameId"]


def test_choosing_between_two_nobles_by_clicking(page, server):
    """A position (reached by greedy play) where a buy lets two nobles visit: the page asks, the click
    on a noble decides, and the move played names that noble."""
    from splendor_ai.players import make_player
    base, manager = server
    choice = None
    for seed in range(4, 40):                  # seed 4 has one at turn 46 (greedy against greedy)
        st = State.new(2, seed=seed)
        bots = [make_player("greedy", seed=seed), make_player("greedy", seed=seed + 1)]
        while not st.is_over():
            nobles = {}
            for m in st.legal_moves:
                if m.noble is not None and not m.returns and m.kind == "buy":
                    nobles.setdefault(str(m).split("/")[0], set()).add(m.noble)
            choice = next(((a, sorted(n)) for a, n in nobles.items() if len(n) >= 2), None)
            if choice:
                break
            st.push(bots[st.to_move].choose(st.view()).move)
        if choice:
            break
    assert choice, "no game with a two-noble choice found"
    action, options = choice
    seat = st.to_move
    players = ["random", "random"]
    players[seat] = "human"
    gid = upload(page, base, GameRecord.from_state(st, seed=seed, players=players))
    g = check_page_against_engine(page, base, manager, gid)
    assert g["yourTurn"] and g["viewer"] == seat
    card = action[1:]
    if any(int(card) in row for row in g["market"]):
        page.click(f"[data-testid=market-card][data-card='{card}']")
    else:
        page.click(f"[data-testid=seat][data-seat='{seat}'] [data-testid=reserved-card][data-card='{card}']")
    page.click("#act-buy")
    choosable = page.eval_on_selector_all("#nobles .noble.choosable", "els => els.map(e => Number(e.dataset.noble))")
    assert sorted(choosable) == options
    page.click(f"#nobles [data-testid=noble][data-noble='{options[-1]}']")
    wait_for_turn(page, g["version"])
    played = api_game(page, gid)["log"][len(g["log"])]
    assert played["move"] == f"{action}/n{options[-1]}" and played["seat"] == seat
    assert f"visited by noble {options[-1]}" in played["description"]
    check_page_against_engine(page, base, manager, gid)


@pytest.mark.opt_in
@pytest.mark.skipif(not SHOTS, reason="writes the README screenshots only when SPLENDOR_SCREENSHOTS=DIR is set")
def test_screenshots_of_a_game_in_progress(page, server):
    """A 3-player game: the AI thinking (progress), then gems being picked, a hint and an analysis."""
    base, _ = server
    gid = start_game(page, base, ["human", "mcts(seconds=3)", FAST_AI], seed=11, players=3)
    for _ in range(5):
        g = api_game(page, gid)
        if g["over"]:
            break
        page.wait_for_selector("#status[data-your-turn='1']")
        click_move(page, g, pick([m["move"] for m in g["legalMoves"]], g["turn"]))
        if _ == 4:
            page.wait_for_function("() => { const t = document.querySelector('#thinking'); "
                                   "return !t.hidden && /iterations/.test(t.textContent); }")
            page.wait_for_timeout(800)
            shoot(page, "ai-thinking.png")
        wait_for_turn(page, g["version"])
    page.select_option("#budget", '{"seconds":1}')
    page.click("#btn-hint")
    page.wait_for_selector("[data-testid=hint-move]")
    page.click("#btn-analyse")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=analysis-row]').length > 0 && "
                           "!document.querySelector('#analysis-panel .spinner')")
    g = api_game(page, gid)
    takes = [m["move"] for m in g["legalMoves"] if m["move"].startswith("+") and len(m["move"]) == 4]
    if takes:
        page.click(f"[data-testid=bank-token][data-colour={takes[0][1]}]")
        page.click(f"[data-testid=bank-token][data-colour={takes[0][2]}]")
    shoot(page, "play.png")


# -- the Cities of Splendor modules ----------------------------------------------------------------------

def test_a_module_game_from_the_new_game_form(page, server):
    """The form's module choice starts an Orient game: six cards a level, the Orient decks, and a
    few turns played by clicking, the page matching the engine after each."""
    base, manager = server
    gid = start_game(page, base, ["human", FAST_AI], seed=8, module="orient")
    g = check_page_against_engine(page, base, manager, gid)
    assert g["module"] == "orient" and len(g["decks"]) == 6 and all(len(row) == 6 for row in g["market"])
    assert page.locator("[data-testid=orient-deck]").count() == 3
    assert page.locator("[data-testid=market-card][data-orient='1']").count() == 6
    page.click("[data-testid=orient-deck][data-level='2']")       # a blind reserve from an Orient deck
    page.click("#act-reserve-deck")
    wait_for_turn(page, g["version"])
    g = check_page_against_engine(page, base, manager, gid)
    assert g["log"][0]["move"] == "rO2" and g["seats"][0]["reserved"][0]["orient"]
    for turn in range(3):
        if g["over"]:
            break
        click_move(page, g, pick([m["move"] for m in g["legalMoves"]], turn))
        wait_for_turn(page, g["version"])
        g = check_page_against_engine(page, base, manager, gid)


def module_game(page, base, manager, module: str):
    """Upload a game of `module` where the human (seat 0) has the module's decision to make (with
    the Strongholds, at the start of the two-step turn whose second step has it: docs/RULES.md)."""
    from module_positions import decision_position
    st, hits = decision_position(module)
    if st.partial_move is not None:
        st.pop()
    gid = upload(page, base, GameRecord.from_state(st, seed=1, players=["human", "random"]))
    g = check_page_against_engine(page, base, manager, gid)
    assert g["yourTurn"] and g["module"] == module
    return gid, g, st, hits


def click_card(page, g, card: int) -> None:
    if any(card in row for row in g["market"]):
        page.click(f"[data-testid=market-card][data-card='{card}']")
    else:
        page.click(f"[data-testid=seat][data-seat='0'] [data-testid=reserved-card][data-card='{card}']")


def test_strongholds_placement_by_clicking(page, server):
    """Buy a card, then click the card to put a stronghold on: the purchase is played first (its
    slot is refilled, a two-step turn: docs/RULES.md), then the page offers the stronghold action
    (place / move / remove) with the new card among the targets, the click on a highlighted market
    card decides it, and the board then shows the stronghold on that card and one fewer in hand."""
    base, manager = server
    gid, g, st, hits = module_game(page, base, manager, "strongholds")
    move = hits[-1]
    action, target = str(move).split("/")
    assert "♜♜♜ 3 in hand" in page.locator("[data-testid=seat][data-seat='0'] [data-testid=seat-strongholds]").inner_text()
    click_card(page, g, int(action[1:]))
    page.click("#act-buy")
    page.wait_for_selector("[data-testid=decision]")
    assert api_game(page, gid)["partialMove"] == action
    offered = page.eval_on_selector_all("[data-testid=decision]", "els => els.map(e => e.dataset.token)")
    assert sorted(offered) == sorted(str(m).split("/")[1] for m in hits if str(m).startswith(action + "/"))
    choosable = page.eval_on_selector_all("[data-testid=market-card].choosable", "els => els.map(e => Number(e.dataset.card))")
    assert int(target[1:]) in choosable
    page.click(f"[data-testid=market-card][data-card='{target[1:]}']")
    wait_for_turn(page, g["version"] + 1)
    after = api_game(page, gid)
    played = after["log"][len(g["log"])]          # the two steps: one turn, one entry of the log
    assert after["partialMove"] is None and after["moveCount"] == len(true_state(page, manager, gid).move_stack)
    assert played["move"] == str(move) and "places a stronghold on card" in played["description"]
    check_page_against_engine(page, base, manager, gid)
    state = true_state(page, manager, gid)
    mine = {c: n for c, (seat, n) in state.strongholds.items() if seat == 0}
    shown = page.eval_on_selector_all("[data-testid=stronghold][data-seat='0']",
                                      "els => els.map(e => [Number(e.closest('[data-card]').dataset.card), Number(e.dataset.count)])")
    assert dict(map(tuple, shown)) == mine
    assert page.get_attribute("[data-testid=seat][data-seat='0'] .sh-hand", "data-count") == str(state.seats[0].strongholds)
    if SHOTS:
        shoot(page, "strongholds.png")


def test_orient_joker_and_free_card_by_clicking(page, server):
    """Buy an Orient joker that also gives a free card: the page asks for the joker's colour (a
    button), then for the free card (a click on a highlighted market card), and plays the whole
    turn; the seat then shows the joker with its colour."""
    base, manager = server
    gid, g, st, hits = module_game(page, base, manager, "orient")
    move = str(hits[-1])
    parts = move.split("/")
    click_card(page, g, int(parts[0][1:]))
    page.click("#act-buy")
    for tok in parts[1:]:
        page.wait_for_selector("[data-testid=decision]")
        if tok[0] == "f":
            page.click(f"[data-testid=market-card][data-card='{tok[1:]}'].choosable")
        else:
            page.click(f"[data-testid=decision][data-token='{tok}']")
    wait_for_turn(page, g["version"])
    played = api_game(page, gid)["log"][len(g["log"])]
    assert played["move"] == move and "attaching the joker to their" in played["description"]
    check_page_against_engine(page, base, manager, gid)
    colour = next(t[1] for t in parts if t[0] == "j")
    assert page.get_attribute(f"[data-testid=seat][data-seat='0'] [data-testid=seat-orient] [data-card='{parts[0][1:]}']",
                              "data-joker") == colour
    if SHOTS:
        shoot(page, "orient.png")


@pytest.mark.parametrize("module", ["cities", "posts"])
def test_city_and_extra_gem_choices_by_clicking(page, server, module):
    """The Cities: two cities welcome the buyer, a click on one claims it; the Trading Posts: an
    extra gem after taking two, chosen with a button. The board shows the module's panel."""
    base, manager = server
    gid, g, st, hits = module_game(page, base, manager, module)
    move = str(hits[-1])
    parts = move.split("/")
    if module == "cities":
        assert sorted(int(e) for e in page.eval_on_selector_all("#module [data-testid=city]", "els => els.map(e => e.dataset.city)")) == sorted(g["cities"])
        click_card(page, g, int(parts[0][1:]))
        page.click("#act-buy")
        page.wait_for_selector("#module .city.choosable")
        page.click(f"#module [data-testid=city][data-city='{parts[-1][1:]}']")
    else:
        assert page.locator("#module [data-testid=post]").count() == 5
        for ch in parts[0][1:]:
            page.click(f"[data-testid=bank-token][data-colour={ch}]")
        page.click("[data-testid=confirm-take]")
        for tok in parts[1:]:
            if tok[0] == "-":
                for ch in tok[1:]:
                    page.click(f"[data-testid=return-token][data-colour={ch}]")
            else:
                page.click(f"[data-testid=decision][data-token='{tok}']")
    wait_for_turn(page, g["version"])
    played = api_game(page, gid)["log"][len(g["log"])]
    assert played["move"] == move
    g = check_page_against_engine(page, base, manager, gid)
    if module == "cities":
        assert page.locator(f"[data-testid=claimed-city][data-city='{parts[-1][1:]}'][data-seat='0']").count() == 1
    else:
        assert "takes an extra" in played["description"]


# -- the table: the end, links, marks, colour-blind mode, keys, a phone --------------------------------------

def open_adopted(page, base: str, manager, st, specs, **kw) -> str:
    """Show a game built move by move (a State) in the page, as this browser's game."""
    page.goto(base)
    page.wait_for_selector("body[data-ready='1']")
    game = manager.adopt(client_of(page), st, specs, **kw)
    page.goto(f"{base}/#game={game.id}")
    page.reload()
    page.wait_for_selector(f"#status[data-version='{game.version}']")
    return game.id


def greedy_game(seed: int) -> State:
    from splendor_ai.players import make_player
    st = State.new(2, seed=seed)
    bots = [make_player("greedy", seed=seed), make_player("greedy", seed=seed + 1)]
    while not st.is_over():
        st.push(bots[st.to_move].choose(st.view()).move)
    return st


def test_game_end_summary_names_the_tie_break_and_offers_rematch_and_swap(page, server):
    """A game decided by the tie-break (equal points, fewer cards): the summary gives the scores,
    cards and nobles, who won and by which rule; Rematch starts the same table again, Swap seats
    the same players one place on."""
    base, manager = server
    for seed in range(60, 400):                # seed 60: 15-15, won with 18 cards against 20
        st = greedy_game(seed)
        r = st.result()
        if r.points.count(max(r.points)) > 1 and len(r.winners) == 1:
            break
    gid = open_adopted(page, base, manager, st, ["human", "greedy"])
    page.wait_for_selector("[data-testid=summary]:not([hidden])")
    w = r.winners[0]
    assert page.inner_text("[data-testid=summary-title]") == f"Player {w + 1} wins"
    why = page.inner_text("[data-testid=summary-why]")
    assert why.startswith("Tie-break:") and f"tied on {max(r.points)} points" in why
    assert f"fewer development cards ({r.cards[w]} against Player {2 - w} {r.cards[1 - w]})" in why
    rows = page.eval_on_selector_all("[data-testid=summary-row]", """els => els.map(e =>
        [...e.querySelectorAll('td')].map(td => td.textContent.trim()))""")
    for seat, row in enumerate(rows):
        assert row[0] == str(r.ranks[seat]) and row[2] == str(r.points[seat]) and row[3] == str(r.cards[seat])
        assert row[4] == str(len(st.seats[seat].nobles))
    if SHOTS:
        shoot(page, "game-over.png")
    page.click("#btn-rematch")
    page.wait_for_function("gid => !location.hash.includes(gid) && document.querySelector('#status .game-id')", arg=gid)
    again = api_game(page, read_page(page)["gameId"])
    assert [s["spec"] for s in again["seatsSetup"]] == ["human", "greedy"] and not again["over"] and again["moveCount"] == 0
    page.click("#btn-new")
    page.click("#ng-cancel")
    g = open_adopted(page, base, manager, st, ["human", "greedy"])
    page.click("#btn-swap")
    page.wait_for_function("gid => !location.hash.includes(gid)", arg=g)
    page.wait_for_selector("#status .game-id")
    swapped = api_game(page, read_page(page)["gameId"])
    assert [s["spec"] for s in swapped["seatsSetup"]] == ["greedy", "human"]


def test_the_game_id_in_the_url_reload_a_second_tab_and_a_stale_tab(page, server):
    """The URL names the game: a reload and a second tab show it; a move in the second tab leaves
    the first one behind, and its next move is refused with a message in plain words, the board
    then brought up to date."""
    base, manager = server
    gid = start_game(page, base, ["human", "random"], seed=23)
    assert page.evaluate("() => location.hash") == f"#game={gid}"
    page.reload()
    page.wait_for_selector("#status .game-id")
    assert read_page(page)["gameId"] == gid
    second = page.context.new_page()
    second.goto(f"{base}/#game={gid}")
    second.wait_for_selector("#status[data-your-turn='1']")
    g = api_game(second, gid)
    moves = [m["move"] for m in g["legalMoves"]]
    page.click("#legal summary")
    second.click("#legal summary")
    second.click(f"[data-testid=legal-move][data-move='{moves[0]}']")
    while api_game(second, gid)["version"] == g["version"]:
        time.sleep(0.02)
    assert read_page(page)["version"] == g["version"]         # the first tab has not looked yet
    page.click(f"[data-testid=legal-move][data-move='{moves[1]}']")
    page.wait_for_selector("#toast:not([hidden])")
    # refused with a message in plain words (or, had the tab's own check come first, told so)
    assert re.search(r"This tab was behind|changed in another tab", page.inner_text("#toast"))
    page.wait_for_function("v => Number(document.querySelector('#status').dataset.version) > v", arg=g["version"])
    assert read_page(page)["version"] == api_game(page, gid)["version"]
    assert api_game(page, gid)["log"][0]["move"] == moves[0]     # the stale tab's move was not played
    second.close()


def test_a_spectator_link_shows_public_information_only(page, server, browser):
    """The owner's spectator link opens, in another browser (no cookie of the owner), a read-only
    page: the owner's blind reserve is a card back there, no move can be made."""
    base, manager = server
    st = State.new(2, seed=31)
    for m in ("rL2", "rL1"):                     # the human and the AI each reserve blind
        st.push(m)
    gid = open_adopted(page, base, manager, st, ["human", "random"])
    mine = st.seats[0].reserved[0]
    assert page.get_attribute("[data-testid=seat][data-seat='0'] [data-testid=reserved-card]", "data-card") == str(mine)
    page.click("#btn-watch")
    link = page.input_value("[data-testid=watch-link]")
    assert "#watch=" in link and gid not in link
    ctx = browser.new_context(viewport={"width": 1440, "height": 960})
    try:
        spy = ctx.new_page()
        spy.goto(link)
        spy.wait_for_selector("[data-testid=watching]")
        shown = read_page_watch(spy)
        assert shown == [[None], [None]]
        assert spy.locator("[data-testid=legal-move]").count() == 0 and spy.locator("#btn-hint").is_hidden()
        html = spy.content()
        assert f'data-card="{mine}"' not in html and gid not in html
        if SHOTS:
            shoot(spy, "spectator.png")
        # a move by the owner reaches the spectator
        g = api_game(page, gid)
        page.click("#legal summary")
        page.click(f"[data-testid=legal-move][data-move='{g['legalMoves'][0]['move']}']")
        spy.wait_for_function("() => document.querySelectorAll('[data-testid=log-entry]').length >= 3")
    finally:
        ctx.close()


def read_page_watch(page):
    return page.eval_on_selector_all("[data-testid=seat]", """els => els.map(s => [...s.querySelectorAll(
        '[data-testid=reserved-card]')].map(e => e.dataset.hidden ? null : Number(e.dataset.card)))""")


def next_turn_cards(g) -> set[int]:
    """The market cards the viewer cannot pay now but can after one take from the bank."""
    me = g["seats"][g["viewer"]]
    out = set()
    takes = [[(m >> i) & 1 for i in range(5)] for m in range(1, 32)]
    takes = [t for t in takes if sum(t) <= 3 and all(not x or g["bank"][i] > 0 for i, x in enumerate(t))]
    takes += [[2 if j == i else 0 for j in range(5)] for i in range(5) if g["bank"][i] >= 4]
    for card in (c for row in g["market"] for c in row if c is not None):
        short = [max(0, CARDS[card].cost[i] - me["bonuses"][i] - me["tokens"][i]) for i in range(5)]
        if sum(short) <= me["tokens"][5]:
            continue
        if any(sum(max(0, s - t[i]) for i, s in enumerate(short)) <= me["tokens"][5] for t in takes):
            out.add(card)
    return out


def test_buying_power_noble_progress_and_affordable_marks(page, server):
    base, manager = server
    st = greedy_game(9)
    while len(st.move_stack) > 24:             # the middle of a game: bonuses, tokens, a noble in reach
        st.pop()
    if st.to_move != 0:
        st.pop()
    gid = open_adopted(page, base, manager, st, ["human", "greedy"])
    g = api_game(page, gid)
    assert g["yourTurn"]
    for s in g["seats"]:
        shown = page.eval_on_selector_all(f"[data-testid=seat][data-seat='{s['seat']}'] [data-testid=power]",
                                          "els => els.map(e => Number(e.textContent))")
        assert shown == [s["bonuses"][c] + s["tokens"][c] for c in range(5)]
        gold = page.inner_text(f"[data-testid=seat][data-seat='{s['seat']}'] [data-testid=power-gold]")
        assert gold == f"+{s['tokens'][5]} gold"
    me = g["seats"][0]
    for noble in g["nobles"]:
        req = NOBLES[noble].requirement
        have = sum(min(k, me["bonuses"][c]) for c, k in enumerate(req))
        el = f"#nobles [data-testid=noble][data-noble='{noble}'] [data-testid=noble-progress]"
        assert page.get_attribute(el, "data-have") == str(have) and page.get_attribute(el, "data-need") == str(sum(req))
    buys = {int(m["move"].split("/")[0][1:]) for m in g["legalMoves"] if m["move"].startswith("b")}
    market = {c for row in g["market"] for c in row if c is not None}
    marked = set(page.eval_on_selector_all("[data-testid=market-card].buyable", "els => els.map(e => Number(e.dataset.card))"))
    soon = set(page.eval_on_selector_all("[data-testid=market-card].soon", "els => els.map(e => Number(e.dataset.card))"))
    assert marked == buys & market
    assert soon == next_turn_cards(g) and not soon & marked


def test_colour_blind_mode_and_keyboard_shortcuts(page, server):
    base, manager = server
    gid = start_game(page, base, ["human", "random"], seed=41)
    page.keyboard.press("c")
    assert page.evaluate("() => document.body.classList.contains('cb')")
    symbol = page.evaluate("""() => getComputedStyle(document.querySelector('[data-testid=bank-token][data-colour=b]'),
                                                     '::after').content""")
    assert symbol == '"\u25c6"'
    symbols = page.evaluate("""() => [...new Set([...document.querySelectorAll('.cost')].map(e =>
        [...e.classList].find(c => c.startsWith('t-')) + getComputedStyle(e, '::after').content))]""")
    assert all(s.split('"')[1] for s in symbols) and len({s.split('"')[1] for s in symbols}) == len({s[:3] for s in symbols})
    page.reload()
    page.wait_for_selector("#status .game-id")
    assert page.evaluate("() => document.body.classList.contains('cb')")      # kept
    if SHOTS:
        shoot(page, "colour-blind.png")
    page.keyboard.press("c")
    assert not page.evaluate("() => document.body.classList.contains('cb')")
    # keys: gems, Enter to take, h hint, u undo, ? the list
    g = api_game(page, gid)
    for key in "wbg":
        page.keyboard.press(key)
    assert page.locator(".bank-token.picked").count() == 3
    page.keyboard.press("Enter")
    wait_for_turn(page, g["version"])
    g = api_game(page, gid)
    assert g["log"][0]["move"] == "+wbg"
    page.keyboard.press("h")
    page.wait_for_selector("[data-testid=hint-move]")
    page.keyboard.press("u")
    page.wait_for_function("v => Number(document.querySelector('#status').dataset.version) > v", arg=g["version"])
    assert api_game(page, gid)["log"] == []
    page.keyboard.press("r")
    page.keyboard.press("Escape")
    assert page.locator(".bank-token.picked").count() == 0
    page.keyboard.press("?")
    assert page.locator("#keys-dialog[open]").count() == 1
    assert "hint" in page.inner_text("#keys-list")


def test_no_null_text_rounds_and_badges_clear_of_costs(page, server):
    """The return-tokens bar and the AI panel never show the word "null"; the status counts rounds
    as players do; on Orient and Strongholds cards the badges and the card id never cover a cost."""
    base, manager = server
    st = State.new(2, seed=51)
    for m in ("+wbg", "rL1", "+grk", "rL2", "+wbr", "rL3"):
        st.push(m)                              # seat 0 has 9 tokens and is to move
    gid = open_adopted(page, base, manager, st, ["human", "expectimax(depth=1)"])
    assert page.get_attribute("[data-testid=round]", "data-round") == "4"           # 6 turns of 2 players
    assert page.inner_text("[data-testid=round]") == "Round 4"
    g = api_game(page, gid)
    take = next(m["move"] for m in g["legalMoves"] if m["move"].startswith("+") and "/-" in m["move"])
    for ch in take.split("/")[0][1:]:
        page.click(f"[data-testid=bank-token][data-colour={ch}]")
    page.click("[data-testid=confirm-take]")
    page.wait_for_selector("[data-testid=return-token]")
    assert not re.search(r"\bnull\b", page.inner_text("#actionbar")), page.inner_text("#actionbar")
    for ch in take.split("/-")[1]:
        page.click(f"[data-testid=return-token][data-colour={ch}]")
    page.wait_for_selector("#thinking:not([hidden])", timeout=5000) if api_game(page, gid)["thinking"] else None
    seen = page.evaluate("() => document.querySelector('#thinking').innerText")
    assert not re.search(r"\bnull\b", seen) and not re.search(r"\bnull\b", page.inner_text("body"))
    wait_for_turn(page, g["version"])
    assert not re.search(r"\bnull\b", page.inner_text("body"))
    for module in ("orient", "strongholds"):
        from module_positions import decision_position
        mst, hits = decision_position(module)
        if module == "strongholds":
            mst.push(hits[-1])                      # a stronghold on a market card
        # two human seats: after the stronghold's placement the second seat is to move, and a bot
        # there could buy or clear the marked card before the page is read
        open_adopted(page, base, manager, mst, ["human", "human"])
        overlaps = page.evaluate("""() => {
          const box = e => e.getBoundingClientRect();
          const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          const out = [];
          for (const card of document.querySelectorAll('.card[data-card]')) {
            const costs = [...card.querySelectorAll('.cost, .sacrifice')].map(box);
            for (const b of card.querySelectorAll('.ability, .card-id, .sh-badge'))
              if (costs.some(c => hit(c, box(b)))) out.push(card.dataset.card + ' ' + b.className);
          }
          return out;
        }""")
        assert overlaps == [], (module, overlaps)
        assert page.locator(".card .ability" if module == "orient" else ".card .sh-badge").count() > 0


@pytest.mark.parametrize("module", ["", "orient"])
def test_the_page_fits_a_390_px_phone(browser, server, module):
    base, manager = server
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        pg = ctx.new_page()
        pg.goto(base)
        pg.wait_for_selector("#new-dialog[open]")
        box = pg.eval_on_selector("#new-dialog", "e => { const b = e.getBoundingClientRect(); return [b.left, b.right]; }")
        assert box[0] >= 0 and box[1] <= 390
        start_game(pg, base, ["human", "random"], seed=61, module=module)
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
        right = pg.eval_on_selector_all(".toolbar > *, .status > *, #actionbar > *",
                                        "els => Math.max(...els.filter(e => e.offsetParent).map(e => e.getBoundingClientRect().right))")
        assert right <= 390
        if SHOTS and not module:
            pg.screenshot(path=str(Path(SHOTS) / "phone.png"), full_page=True)
    finally:
        ctx.close()


def test_live_win_rate_graph_and_analysis_while_replaying(page, server):
    """The optional graph of the human's win rate, each position searched from the human's own view:
    it grows with the game, and a click on a point replays the position before that move, where
    Analyse ranks the moves of that position."""
    base, manager = server
    gid = start_game(page, base, ["human", "random"], seed=71)
    page.select_option("#budget", '{"iterations":200}')
    for _ in range(2):
        g = api_game(page, gid)
        click_move(page, g, pick([m["move"] for m in g["legalMoves"]], g["turn"]))
        wait_for_turn(page, g["version"])
    page.click("#btn-graph")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=graph-point]').length === 5")
    g = api_game(page, gid)
    assert g["graph"]["on"] and [p["ply"] for p in g["graph"]["points"]] == list(range(5))
    assert page.get_attribute("#btn-graph", "aria-pressed") == "true"
    if SHOTS:
        page.locator("#graph-panel").screenshot(path=str(Path(SHOTS) / "graph.png"))
    page.click("[data-testid=graph-point][data-ply='3']")
    page.wait_for_selector("#rp-label[data-step='3']")
    page.click("#btn-analyse")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=analysis-row]').length > 0 && "
                           "!document.querySelector('#analysis-panel .spinner')")
    assert "the position after move 3" in page.inner_text("#analysis-panel")
    a = api(page, f"/api/games/{gid}/analysis")
    assert a["step"] == 3 and a["rootInfo"]["toMove"] == 1 and a["seat"] == 0
    page.click("#rp-exit")
    page.click("#btn-graph")
    page.wait_for_selector("#graph-panel[hidden]", state="attached")


def test_review_of_a_finished_game(page, server):
    """Review a finished closed game: the human seat's moves are rated (accuracy, ?! ? ?? marks in
    the log), the win-rate graph is drawn under the board, a click on a point replays that position
    with the better move outlined on the board and named under the replay bar."""
    from splendor_ai.players import make_player
    base, manager = server
    st = State.new(2, seed=81)
    bots = [make_player("random", seed=1), make_player("greedy", seed=2)]    # a careless human seat
    while not st.is_over():
        st.push(bots[st.to_move].choose(st.view()).move)
    gid = open_adopted(page, base, manager, st, ["human", "greedy"])
    page.select_option("#budget", '{"iterations":200}')
    page.click("#btn-summary-review")
    page.wait_for_function("() => { const e = document.querySelector('[data-testid=review-progress]'); "
                           "return e && /^\\d+ moves rated/.test(e.textContent) && !document.querySelector('#review-panel .spinner'); }",
                           timeout=120_000)
    rv = api(page, f"/api/games/{gid}/review")
    rep = rv["report"]
    assert rv["status"] == "done" and rep["settings"]["seats"] == [0] and rv["reviewed"] == len(rep["turns"])
    assert page.locator("[data-testid=graph-point]").count() == len(rep["turns"])
    marks = [(t["turn"], t["mark"]) for t in rep["turns"] if t["mark"]]
    shown = page.eval_on_selector_all("[data-testid=log-mark]", "els => els.map(e => [Number(e.closest('[data-n]').dataset.n) - 1, e.textContent])")
    assert [tuple(x) for x in shown] == marks
    acc = page.get_attribute("[data-testid=review-seat][data-seat='0']", "data-accuracy")
    assert float(acc) == rep["seats"][0]["accuracy"]
    turn = next(t for t in rep["turns"] if t["best"] != t["played"])
    page.click(f"[data-testid=graph-point][data-ply='{turn['turn']}']")
    page.wait_for_selector(f"#rp-label[data-step='{turn['turn']}']")
    assert page.get_attribute("[data-testid=better-move]", "data-move") == turn["best"]
    action = turn["best"].split("/")[0]
    if action.startswith("+"):
        assert sorted(page.eval_on_selector_all(".bank-token.better", "els => els.map(e => e.dataset.colour)")) == sorted(action[1:])
    elif action[0] in "br" and action[1:].isdigit():
        assert page.locator(f".card.better[data-card='{action[1:]}']").count() == 1
    if SHOTS:
        shoot(page, "review.png")

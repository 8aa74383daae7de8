"""The browser plays the AI through the game session (`splendor_ai.session.GameSession`): the same
player a tournament measures, kept across moves (its tree reused), seeded as the session seeds it.
An open game of the browser and `match.play_game` (the tournaments' loop) make the same moves from
the same deal seed and budget, the browser's search running in the scheduler's time slices."""
import time

import pytest

pytest.importorskip("fastapi", reason="the web UI needs fastapi (pip install -e '.[test]')")

from test_web import client, manager, owned, wait_for_human  # noqa: E402,F401  (fixtures)

from splendor_ai.match import play_game  # noqa: E402
from splendor_ai.players import make_player  # noqa: E402
from splendor_ai.session import seat_seed  # noqa: E402

AI = "mcts(iterations=400)"


@pytest.mark.parametrize("seed,module", [(12, None), (13, "strongholds")])
def test_the_browsers_ai_makes_the_tournaments_moves(client, manager, seed, module):
    # the tournament's loop: a greedy player in seat 0, the AI in seat 1, seeded as a session seeds it
    from splendor_ai.state import Config
    ai = make_player(AI, seed=seat_seed(seed, 1))
    try:
        out = play_game([make_player("greedy", seed=3), ai], seed=seed,
                        config=Config(players=2, modules=(module,) if module else ()))
    finally:
        ai.close()
    assert out.termination == "normal"
    # the browser: an open game of that seed; the human's moves are the same greedy player's
    body = {"seats": ["human", AI], "seed": seed, "open": True}
    if module:
        body["module"] = module
    g = client.post("/api/games", json=body).json()
    gid = g["gameId"]
    game = owned(manager, client, gid)
    human = make_player("greedy", seed=3)
    t0 = time.monotonic()
    while not g["over"]:
        move = str(human.choose(game.state.view(0)).move)
        r = client.post(f"/api/games/{gid}/move", json={"move": move})
        assert r.status_code == 200, r.text
        g = wait_for_human(client, gid)
        assert time.monotonic() - t0 < 120
    assert [e["move"] for e in g["log"]] == out.moves
    assert game.session.player(1).reuse                    # its tree went on from move to move

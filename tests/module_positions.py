"""Positions of the Cities of Splendor modules where the seat to move has a decision to make (shared
by the interface tests: CLI, engine, web). Found by greedy play from a seeded deal, so they are the
same on every run."""
from splendor_ai.players import make_player
from splendor_ai.state import Config, State

#: the decision tag each module's test wants to see (docs/MODULES.md)
DECISION = {"cities": "c", "orient": "j", "posts": "+", "strongholds": "t"}
MODULES = tuple(DECISION)


def decision_position(module: str, seat: int = 0, seed: int = 1, players: int = 2) -> tuple[State, list]:
    """A game (its State, moves on its stack) where `seat` is to move and has legal moves with the
    module's decision; returns (state, those moves). The moves are the seat's view's legal moves.
    With the Strongholds this is usually the middle of a two-step turn (docs/RULES.md): after a
    purchase from the market, whose stronghold action may use the card that refilled its slot."""
    for s in range(seed, seed + 40):
        st = State.new(players, seed=s, config=Config(players, modules=(module,)))
        bots = [make_player("greedy", seed=s + i) for i in range(players)]
        while not st.is_over():
            if st.to_move == seat:
                hits = [m for m in st.view(seat).legal_moves if any(t == DECISION[module] for t, _ in m.decisions)]
                if hits and (module != "cities" or len({m.city for m in hits}) > 1):
                    return st, hits
            st.push(bots[st.to_move].choose(st.view()).move)
    raise AssertionError(f"no {module} position with a decision found")

"""The AI players. Every bot implements `Player.choose(view, limit) -> Decision` and is built from
a short spec string (`make_player("mcts(iterations=20000,c=1.2)")`) that records carry."""
from .base import Decision, Limit, MoveInfo, Player, SearchInfo
from .spec import DEFAULT_AI, PLAYERS, check_spec, make_player, parse_spec

__all__ = ["Decision", "Limit", "MoveInfo", "Player", "SearchInfo", "DEFAULT_AI", "PLAYERS", "check_spec", "make_player", "parse_spec"]

"""Experiments: duplicate-format matches between player specs, run resumably on local worker
processes or a Ray cluster (runner), rated in a separate pass over the records (outcomes,
stats, summary), reported as text and plots (report). The scripts in experiments/ use cli.

    from splendor_ai.tournament import Settings, schedule, deals, round_robin, run
    games = schedule(round_robin(["random", "greedy"], 2), deals(10), Settings(players=2))
    result = run(games, "games.jsonl", jobs=2)        # resumable; ray="local" for Ray
"""
from .errors import ExperimentError
from .games import Game, Settings, deals, play, record_key, round_robin, schedule, versus
from .outcomes import Outcome, outcome
from .runner import RunResult, load, run

__all__ = ["ExperimentError", "Game", "Outcome", "RunResult", "Settings", "deals", "load", "outcome",
           "play", "record_key", "round_robin", "run", "schedule", "versus"]

"""What one game of an experiment is, how a schedule of them is laid out, and `play(game)`,
the function a worker process (or a Ray task) runs: it builds the players from their specs,
plays the game with splendor_ai.match.play_game and returns the game record as a JSON line.

Duplicate format: every deal (a seed) is played under every seat rotation of a lineup: seat s
holds lineup[(s + rotation) % n]; two players play both orders, three or four the n cyclic
rotations. Seat 0 always moves first, so a rotation changes who starts too.

Module: a run plays the base game or one Cities of Splendor module (`Settings.module`: None or
"base" for the base game, else "cities", "orient", "posts" or "strongholds"); its games are
created with that module's Config, and every record says which (`config.modules`, and
`meta.module`). A game's key includes the module only for a module game, so records written
before modules existed (no module anywhere) are base-game records with unchanged keys.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field, replace

from ..match import play_game
from ..players import Limit, make_player
from ..records import GameRecord
from ..state import MODULES, Config
from ..validate import check_int, check_number
from .errors import ExperimentError

#: what a run can play: the base game and each Cities of Splendor module, in report order
MODULE_CHOICES = ("base",) + tuple(MODULES)


def module_label(module: str | None) -> str:
    """'base' for the base game (None), else the module's name."""
    return module or "base"


def check_module(module) -> str | None:
    """A module setting normalised: None for the base game ("base" or None), else the module's
    name; anything else raises ExperimentError."""
    if module is None or module == "base":
        return None
    if module not in MODULES:
        raise ExperimentError(f"unknown module {module!r}; expected one of {', '.join(MODULE_CHOICES)}")
    return module


@dataclass(frozen=True)
class Settings:
    """What every game of a run shares: the player count, the rules' safety cap (None = the
    default), a per-move limit for every player (iterations and/or seconds; None = each
    player's own budget from its spec) and the time forfeit (a move slower than this many
    seconds loses the game; None = never) and the module played (None = the base game; "base" is
    accepted for it)."""

    players: int = 2
    cap: int | None = None
    iterations: int | None = None
    seconds: float | None = None
    time_forfeit: float | None = None
    module: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "module", check_module(self.module))
        if self.players not in (2, 3, 4):
            raise ExperimentError(f"players must be 2, 3 or 4, got {self.players!r}")
        for name in ("cap", "iterations"):
            v = getattr(self, name)
            if v is not None:
                check_int(v, name, 1, None, ExperimentError, expect="a positive integer", must=True)
        for name in ("seconds", "time_forfeit"):
            v = getattr(self, name)
            if v is not None:
                check_number(v, name.replace("_", "-"), 0, None, ExperimentError, lo_open=True,
                             expect="a positive number of seconds", must=True)
        try:
            self.config()
        except Exception as e:  # ConfigError from the rules
            raise ExperimentError(str(e)) from None

    def config(self) -> Config:
        config = Config(players=self.players, modules=(self.module,) if self.module else ())
        return config if self.cap is None else replace(config, cap=self.cap)

    def limit(self) -> Limit | None:
        if self.iterations is None and self.seconds is None:
            return None
        return Limit(iterations=self.iterations, seconds=self.seconds)

    def to_json(self) -> dict:
        return {"players": self.players, "cap": self.cap, "iterations": self.iterations,
                "seconds": self.seconds, "time_forfeit": self.time_forfeit, "module": module_label(self.module)}


@dataclass(frozen=True)
class Game:
    """One scheduled game: a lineup (the match's player specs), a deal seed and a rotation."""

    lineup: tuple[str, ...]
    deal: int
    rotation: int
    settings: Settings = field(default_factory=Settings)
    event: str = ""

    @property
    def order(self) -> tuple[int, ...]:
        """The lineup index of the player in each seat."""
        n = len(self.lineup)
        return tuple((s + self.rotation) % n for s in range(n))

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(self.lineup[k] for k in self.order)

    @property
    def module(self) -> str:
        return module_label(self.settings.module)

    def key(self) -> str:
        return game_key(self.lineup, self.deal, self.rotation, self.settings.to_json(), self.settings.module)


def game_key(lineup, deal, rotation, settings: dict, module: str | None = None) -> str:
    """What identifies a game across runs (the resume key): lineup, deal, rotation, settings and
    the module. The module is left out of the key of a base game (None or "base"), so the keys
    of records from before the modules are unchanged; it is taken from `module`, not from
    `settings` (which a base-game record of old may lack)."""
    settings = {k: v for k, v in settings.items() if k != "module"}
    obj = {"lineup": list(lineup), "deal": deal, "rotation": rotation, "settings": settings}
    if module not in (None, "base"):
        obj["module"] = module
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def record_module(record: GameRecord) -> str:
    """The module a record's game was played with ("base" for the base game): its config, which
    every record has (a record without modules is a base game)."""
    return module_label(record.config.module)


def record_key(record: GameRecord) -> str | None:
    """The key of a record written by `play`, or None for a record from elsewhere."""
    m = record.meta
    if not all(k in m for k in ("lineup", "rotation", "settings")):
        return None
    return game_key(m["lineup"], record.seed, m["rotation"], m["settings"], record.config.module)


def deals(count: int, seed: int = 1) -> list[int]:
    """The deal seeds of a run: seed, seed+1, ..., seed+count-1."""
    check_int(count, "deals", 1, None, ExperimentError, expect="a positive integer", must=True)
    check_int(seed, "seed", 0, 2 ** 64 - count, ExperimentError, expect="an integer in [0, 2**64 - deals]",
              must=True)
    return list(range(seed, seed + count))


def schedule(lineups, deal_seeds, settings: Settings, event: str = "", modules=None) -> list[Game]:
    """Every lineup on every deal under every rotation, ordered deal by deal (so all matches
    progress together and a stopped run has whole duplicate sets of the early deals). With
    `modules` (names; "base" for the base game) the whole schedule is played once per module,
    the same deals in each, interleaved deal by deal; otherwise settings.module."""
    games = []
    for lineup in lineups:
        if len(lineup) != settings.players:
            raise ExperimentError(f"lineup {list(lineup)} has {len(lineup)} players, the games {settings.players}")
    if modules is None:
        variants = [settings]
    else:
        mods = [check_module(m) for m in modules]
        if not mods:
            raise ExperimentError("no modules given")
        if len(set(mods)) != len(mods):
            raise ExperimentError(f"a module is given twice in {list(modules)}")
        variants = [replace(settings, module=m) for m in mods]
    for d in deal_seeds:
        for st in variants:
            for lineup in lineups:
                for r in range(settings.players):
                    games.append(Game(tuple(lineup), d, r, st, event))
    return games


def round_robin(specs, players: int) -> list[tuple[str, ...]]:
    """Every set of `players` distinct specs (all pairs for two players)."""
    specs = list(specs)
    if len(set(specs)) != len(specs):
        dup = next(s for s in specs if specs.count(s) > 1)
        raise ExperimentError(f"player spec {dup!r} is given twice")
    if len(specs) < players:
        raise ExperimentError(f"a {players}-player round robin needs at least {players} player specs, got {len(specs)}")
    return [tuple(c) for c in itertools.combinations(specs, players)]


def versus(a: str, b: str, players: int) -> tuple[str, ...]:
    """A head-to-head lineup: A against players-1 copies of B."""
    return (a,) + (b,) * (players - 1)


def player_seed(deal: int, index: int) -> int:
    """The seed of lineup player `index` in deal `deal` (the same under every rotation)."""
    h = hashlib.sha256(f"splendor-experiment:{deal}:{index}".encode()).digest()
    return int.from_bytes(h[:8], "little")


_OFFENDER = re.compile(r"\bby seat (\d+)\b")


def offender(termination: str) -> int | None:
    """The seat a crash / illegal move / time-out termination names (match.py's wording)."""
    m = _OFFENDER.search(termination or "")
    return int(m[1]) if m else None


def play(game: Game) -> str:
    """Play one game and return its record as a JSON line (the worker's job)."""
    s = game.settings
    n = s.players
    players = [make_player(game.lineup[k], seed=player_seed(game.deal, k)) for k in game.order]
    try:
        out = play_game(players, seed=game.deal, config=s.config(), first_player=0,
                        limit=s.limit(), time_forfeit=s.time_forfeit)
    finally:
        for p in players:
            p.close()
    think = [0.0] * n
    slowest = [0.0] * n
    for i, dt in enumerate(out.seconds):  # turns go round the table from seat 0
        think[i % n] += dt
        slowest[i % n] = max(slowest[i % n], dt)
    meta = {"event": game.event, "module": game.module, "lineup": list(game.lineup), "rotation": game.rotation,
            "seats": list(game.order), "settings": s.to_json(), "termination": out.termination}
    if out.result is None:
        meta["forfeit"] = out.offender
    meta["seconds"] = [round(t, 4) for t in think]
    meta["max_move_seconds"] = [round(t, 4) for t in slowest]
    rec = GameRecord.from_state(out.final, game.deal, list(game.seats), start=out.start, meta=meta)
    return rec.to_line()

"""The public game API (python-chess style): State, View, legal moves, results.

A `State` is the true game, hidden cards included; the match runner owns it. A `View` is what one
seat sees; players and analysis only ever get views, and sample full states from them with
`View.resample`. Both sit on the compiled engine (`splendor_ai._engine.Core`), which plays turns as
a sequence of integer actions (main action, then token returns, then a noble choice); this module
turns those sequences into whole-turn `Move`s and back.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from itertools import combinations
from typing import Iterator

from . import position as pos
from ._engine import Core
from .cards import CARDS, COLOURS, NOBLES, TOKEN_NAMES
from .errors import ConfigError, IllegalMoveError, NotationError, PositionError
from .move import BUY, PASS, RESERVE, RESERVE_DECK, TAKE, Move

# action-id layout of ext/splendor_ai/_engine.pxd
A_TAKE3, A_TAKE2D, A_TAKE1, A_TAKE2S = 0, 10, 20, 25
A_RES_SLOT, A_RES_DECK, A_BUY_SLOT, A_BUY_HAND, A_PASS = 30, 48, 54, 72, 75
A_RETURN, A_NOBLE = 76, 82
NSLOT = 6
TAKE3 = list(combinations(range(5), 3))
TAKE2 = list(combinations(range(5), 2))
END_REASONS = {1: "points", 2: "cap", 3: "stalemate"}
MODULES = ("cities", "orient", "trading_posts", "strongholds")


@dataclass(frozen=True)
class Config:
    """Rule options, fixed for a game. The Cities of Splendor modules are named here but not yet
    implemented: asking for one raises ConfigError."""

    players: int = 2
    cap: int = pos.DEFAULT_CAP  # safety cap on game length, in rounds
    modules: tuple[str, ...] = ()

    def __post_init__(self):
        if self.players not in (2, 3, 4):
            raise ConfigError(f"players must be 2, 3 or 4, got {self.players!r}")
        if not isinstance(self.cap, int) or isinstance(self.cap, bool) or not 1 <= self.cap <= pos.MAX_CAP:
            raise ConfigError(f"cap must be an integer number of rounds in 1-{pos.MAX_CAP}, got {self.cap!r}")
        for m in self.modules:
            if m not in MODULES:
                raise ConfigError(f"unknown module {m!r}; the modules are {', '.join(MODULES)}")
            raise ConfigError(f"module {m!r} is not implemented yet")

    def to_json(self) -> dict:
        return {"players": self.players, "cap": self.cap, "modules": list(self.modules)}

    @classmethod
    def from_json(cls, obj) -> "Config":
        if not isinstance(obj, dict) or set(obj) - {"players", "cap", "modules"}:
            raise ConfigError(f"config: expected an object with players, cap, modules; got {obj!r}")
        return cls(obj.get("players", 2), obj.get("cap", pos.DEFAULT_CAP), tuple(obj.get("modules", ())))


@dataclass(frozen=True)
class Result:
    """How a finished game ended. `winners` is empty when the game did not finish normally (the
    safety cap, or every player passing in a row): such a game is a draw, never a win."""

    reason: str          # "points", "cap" or "stalemate"
    points: tuple[int, ...]
    cards: tuple[int, ...]
    ranks: tuple[int, ...]   # 1 = best; ties (points, then fewest cards) share a rank
    winners: tuple[int, ...]

    def to_json(self) -> dict:
        return {"reason": self.reason, "points": list(self.points), "cards": list(self.cards),
                "ranks": list(self.ranks), "winners": list(self.winners)}


def _result(core: Core) -> Result:
    points, cards = tuple(core.points()), tuple(core.ncards())
    keys = [(-p, c) for p, c in zip(points, cards)]
    ranks = tuple(1 + sum(k < mine for k in keys) for mine in keys)
    reason = END_REASONS[core.over]
    winners = tuple(i for i, r in enumerate(ranks) if r == 1) if reason == "points" else ()
    return Result(reason, points, cards, ranks, winners)


@dataclass(frozen=True)
class Seat:
    """One player's public holdings (reserved cards as ids; None where hidden from the viewer)."""

    tokens: tuple[int, ...]
    cards: tuple[int, ...]
    reserved: tuple[int | None, ...]
    reserved_levels: tuple[int, ...]
    reserved_blind: tuple[bool, ...]
    nobles: tuple[int, ...]

    @property
    def bonuses(self) -> tuple[int, ...]:
        b = [0] * 5
        for c in self.cards:
            b[CARDS[c].bonus] += 1
        return tuple(b)

    @property
    def points(self) -> int:
        return sum(CARDS[c].points for c in self.cards) + sum(NOBLES[n].points for n in self.nobles)


class LegalMoves:
    """The legal whole turns of a position: iterable, sized, and supports `move in legal_moves`."""

    def __init__(self, table: dict[Move, tuple[int, ...]]):
        self._table = table

    def __contains__(self, move) -> bool:
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except NotationError:
                return False
        return move in self._table

    def __iter__(self) -> Iterator[Move]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return f"<LegalMoves: {', '.join(map(str, self._table))}>"


class _Game:
    """What State and View share: reading the engine's fields and listing whole-turn moves."""

    _core: Core
    _legal: dict[Move, tuple[int, ...]] | None

    def _fields(self) -> dict:
        return self._core.to_dict()

    @property
    def players(self) -> int:
        return self._core.nplayers

    @property
    def to_move(self) -> int:
        return self._core.to_move

    @property
    def turn(self) -> int:
        return self._core.turn

    @property
    def bank(self) -> tuple[int, ...]:
        return tuple(self._fields()["bank"])

    @property
    def market(self) -> tuple[tuple[int | None, ...], ...]:
        """Face-up cards per level (level 1 first), four slots each, None for an empty slot."""
        return tuple(tuple(row[:4]) for row in self._fields()["market"])

    @property
    def deck_sizes(self) -> tuple[int, ...]:
        return tuple(len(d) for d in self._fields()["decks"][:3])

    @property
    def nobles(self) -> tuple[int, ...]:
        return tuple(self._fields()["nobles"])

    @property
    def seats(self) -> tuple[Seat, ...]:
        out = []
        for s in self._fields()["seats"]:
            res = s["reserved"]
            out.append(Seat(tuple(s["tokens"]), tuple(s["cards"]), tuple(c for c, _ in res),
                            tuple((CARDS[c].level if c is not None else d + 1) for c, d in res),
                            tuple(d is not None for _, d in res), tuple(s["nobles"])))
        return tuple(out)

    @property
    def final_round(self) -> bool:
        return bool(self._fields()["final"])

    def is_over(self) -> bool:
        return self._core.over != 0

    def result(self) -> Result | None:
        """The result of a finished game, None while it is being played."""
        return _result(self._core) if self._core.over else None

    @property
    def legal_moves(self) -> LegalMoves:
        if self._legal is None:
            self._legal = _expand(self._core)
        return LegalMoves(self._legal)

    def parse_move(self, text: str) -> Move:
        """Parse a move and check it is legal here. A missing noble is filled in when only one
        noble can visit."""
        move = Move.parse(text)
        table = self.legal_moves._table
        if move in table:
            return move
        if move.noble is None:
            cands = [m for m in table if m.noble is not None and
                     Move(m.kind, m.gems, m.card, m.level, m.returns) == move]
            if len(cands) == 1:
                return cands[0]
        raise IllegalMoveError(self._why_illegal(move))

    def _why_illegal(self, move: Move) -> str:
        if self.is_over():
            return f"{move}: the game is over"
        same_action = [m for m in self.legal_moves if m.action == move.action]
        if not same_action:
            return f"{move}: the action {move.action} is not legal for seat {self.to_move} here"
        returns = sorted({m.returns for m in same_action})
        if move.returns not in returns:
            need = len(returns[0])
            if need == 0:
                return f"{move}: no tokens need returning after {move.action}"
            return f"{move}: {move.action} leaves {10 + need} tokens, so exactly {need} must be returned from what the player holds"
        nobles = sorted({m.noble for m in same_action if m.returns == move.returns and m.noble is not None})
        if not nobles:
            return f"{move}: no noble visits after this turn"
        return f"{move}: the noble must be one of {', '.join(f'n{n}' for n in nobles)}"

    def describe(self, move: Move | str) -> str:
        """A plain-English sentence for a legal move, from the mover's point of view. Seats are
        named as players counted from 1 (seat 0 is "Player 1")."""
        if isinstance(move, str):
            move = self.parse_move(move)
        elif move not in self.legal_moves:
            raise IllegalMoveError(self._why_illegal(move))
        who = f"Player {self.to_move + 1}"
        seat = self.seats[self.to_move]
        if move.kind == TAKE:
            names = [COLOURS[c] for c in move.gems]
            if len(names) == 2 and names[0] == names[1]:
                text = f"{who} takes two {names[0]} gems"
            elif len(names) == 1:
                text = f"{who} takes a {names[0]} gem"
            else:
                text = f"{who} takes {_join(names)} gems"
        elif move.kind == RESERVE:
            text = f"{who} reserves {_card_phrase(move.card)}" + self._gold_clause()
        elif move.kind == RESERVE_DECK:
            text = f"{who} reserves the top card of the level-{move.level} deck" + self._gold_clause()
        elif move.kind == BUY:
            where = " from their hand" if move.card in seat.reserved else ""
            text = f"{who} buys {_card_phrase(move.card)}{where}, paying {self._payment(seat, move.card)}"
        else:
            text = f"{who} passes (no legal action)"
        if move.returns:
            text += f", then returns {_token_phrase(move.returns)}"
        if move.noble is not None:
            noble = NOBLES[move.noble]
            req = _join([f"{n} {COLOURS[c]}" for c, n in enumerate(noble.requirement) if n])
            text += f", and is visited by noble {move.noble} ({req} bonuses, {noble.points} points)"
        return text + "."

    def _gold_clause(self) -> str:
        return " and takes a gold token" if self.bank[5] > 0 else "; no gold is left to take"

    @staticmethod
    def _payment(seat: Seat, card: int) -> str:
        paid = []
        gold = 0
        for c in range(5):
            need = max(0, CARDS[card].cost[c] - seat.bonuses[c])
            use = min(need, seat.tokens[c])
            gold += need - use
            paid += [c] * use
        paid += [5] * gold
        return _token_phrase(paid) if paid else "nothing (their bonuses cover the cost)"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _card_phrase(card: int) -> str:
    c = CARDS[card]
    pts = f", {c.points} point{'s' if c.points != 1 else ''}" if c.points else ""
    return f"card #{card} (level {c.level}, {COLOURS[c.bonus]} bonus{pts})"


def _token_phrase(tokens) -> str:
    counts = {}
    for t in tokens:
        counts[t] = counts.get(t, 0) + 1
    return _join([f"{n} {TOKEN_NAMES[t]}" for t, n in sorted(counts.items())])


def _main_move(d: dict, a: int) -> Move:
    """The Move of a main action id in the position with fields d."""
    if a < A_TAKE2D:
        return Move(TAKE, gems=TAKE3[a - A_TAKE3])
    if a < A_TAKE1:
        return Move(TAKE, gems=TAKE2[a - A_TAKE2D])
    if a < A_TAKE2S:
        return Move(TAKE, gems=(a - A_TAKE1,))
    if a < A_RES_SLOT:
        return Move(TAKE, gems=(a - A_TAKE2S,) * 2)
    if a < A_RES_DECK:
        i = a - A_RES_SLOT
        return Move(RESERVE, card=d["market"][i // NSLOT][i % NSLOT])
    if a < A_BUY_SLOT:
        return Move(RESERVE_DECK, level=a - A_RES_DECK + 1)
    if a < A_BUY_HAND:
        i = a - A_BUY_SLOT
        return Move(BUY, card=d["market"][i // NSLOT][i % NSLOT])
    if a < A_PASS:
        return Move(BUY, card=d["seats"][d["to_move"]]["reserved"][a - A_BUY_HAND][0])
    return Move(PASS)


def _expand(core: Core) -> dict[Move, tuple[int, ...]]:
    """Every legal whole turn, mapped to its engine action sequence."""
    out: dict[Move, tuple[int, ...]] = {}
    if core.over:
        return out
    d = core.to_dict()
    seat = core.to_move
    nobles_before = set(d["seats"][seat]["nobles"])

    def walk(c: Core, main: Move, returns: tuple, actions: tuple):
        if c.phase == 0 or c.over:
            got = set(c.to_dict()["seats"][seat]["nobles"]) - nobles_before
            noble = got.pop() if got else None
            out[Move(main.kind, main.gems, main.card, main.level, returns, noble)] = actions
            return
        for a in c.legal_actions():
            nxt = c.copy()
            nxt.apply(a)
            if a >= A_NOBLE:  # the chosen noble is read back from the seat when the turn ends
                walk(nxt, main, returns, actions + (a,))
            else:
                walk(nxt, main, returns + (a - A_RETURN,), actions + (a,))

    for a in core.legal_actions():
        c = core.copy()
        c.apply(a)
        walk(c, _main_move(d, a), (), (a,))
    return out


class State(_Game):
    """The true state of a game. `State(position)` parses an SPN1 string, like chess.Board(fen)."""

    def __init__(self, position: str | None = None):
        if position is None:
            self._core = Core.new(2, 0, 0, pos.DEFAULT_CAP)
        else:
            d = pos.from_text(position)
            if _has_hidden(d):
                raise PositionError("the position hides cards ('?'): it is a seat's view, use View.from_position")
            self._core = Core.from_dict(d)
        self._legal = None
        self._stack: list[tuple[Core, Move, dict]] = []  # (core before, move, its legal table)

    @classmethod
    def new(cls, players: int | None = None, seed: int | None = None, first_player: int = 0,
            config: Config | None = None) -> "State":
        """A new game (2 players unless told): decks shuffled and nobles drawn from `seed`
        (random when None)."""
        config = config or Config(players=players or 2)
        if players is not None and config.players != players:
            raise ConfigError(f"players={players} disagrees with config.players={config.players}")
        if not isinstance(first_player, int) or not 0 <= first_player < config.players:
            raise ConfigError(f"first_player must be a seat 0-{config.players - 1}, got {first_player!r}")
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 63)
        if not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
            raise ConfigError(f"seed must be an integer in [0, 2**64), got {seed!r}")
        st = cls.__new__(cls)
        st._core = Core.new(config.players, seed, first_player, config.cap)
        st._legal = None
        st._stack = []
        return st

    @classmethod
    def from_position(cls, text: str) -> "State":
        return cls(text)

    @classmethod
    def from_json(cls, obj) -> "State":
        if isinstance(obj, str):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as e:
                raise PositionError(f"position JSON does not parse: {e}") from None
        d = pos.from_json(obj)
        if _has_hidden(d):
            raise PositionError("the position hides cards: it is a seat's view, use View.from_json")
        st = cls.__new__(cls)
        st._core = Core.from_dict(d)
        st._legal = None
        st._stack = []
        return st

    @property
    def config(self) -> Config:
        return Config(self._core.nplayers, self._fields()["cap"])

    def position(self) -> str:
        return pos.to_text(self._fields())

    def to_json(self) -> dict:
        return pos.to_json(self._fields())

    def copy(self, stack: bool = True) -> "State":
        st = State.__new__(State)
        st._core = self._core.copy()
        st._legal = self._legal
        st._stack = list(self._stack) if stack else []
        return st

    def push(self, move: Move | str) -> Move:
        """Play a legal move (a Move or its notation). Raises and leaves the state unchanged if
        the move is malformed or illegal. Returns the Move played (with the noble filled in)."""
        move = move if isinstance(move, Move) else self.parse_move(move)
        table = self.legal_moves._table
        actions = table.get(move)
        if actions is None:
            raise IllegalMoveError(self._why_illegal(move))
        # the engine applies in place: play on a fresh copy, so that a Core kept in a move stack
        # (this one's or a copy's: copies share those Cores) is never changed afterwards
        core = self._core.copy()
        for a in actions:
            core.apply(a)
        self._stack.append((self._core, move, table))
        self._core = core
        self._legal = None
        return move

    def pop(self) -> Move:
        """Undo the last move and return it."""
        if not self._stack:
            raise IndexError("no move to undo")
        self._core, move, self._legal = self._stack.pop()
        return move

    @property
    def move_stack(self) -> list[Move]:
        return [m for _, m, _ in self._stack]

    def view(self, seat: int | None = None) -> "View":
        """What `seat` (default: the player to move) can see."""
        seat = self.to_move if seat is None else seat
        if not 0 <= seat < self.players:
            raise ValueError(f"seat must be 0-{self.players - 1}")
        return View(self._core.hidden_for(seat), seat)

    def __repr__(self) -> str:
        return f"State({self.position()!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.position() == other.position()

    def __hash__(self) -> int:
        return hash(self.position())


class View(_Game):
    """One seat's information set: the decks' order and the opponents' blind reserves are unknown
    (`None`). Search players receive views and sample states from them with `resample`."""

    def __init__(self, core: Core, seat: int):
        self._core = core
        self.seat = seat
        self._legal = None

    @classmethod
    def from_position(cls, text: str, seat: int | None = None) -> "View":
        """A view from a position string; the seat defaults to the player to move. Cards the
        string shows are known to the viewer; hidden ones are written ?N / ?level."""
        return cls._from_fields(pos.from_text(text), seat)

    @classmethod
    def from_json(cls, obj, seat: int | None = None) -> "View":
        if isinstance(obj, str):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as e:
                raise PositionError(f"position JSON does not parse: {e}") from None
        return cls._from_fields(pos.from_json(obj), seat)

    @classmethod
    def _from_fields(cls, d: dict, seat: int | None) -> "View":
        seat = d["to_move"] if seat is None else seat
        if not isinstance(seat, int) or not 0 <= seat < d["players"]:
            raise PositionError(f"seat must be 0-{d['players'] - 1}, got {seat!r}")
        core = Core.from_dict(d)
        # a view never holds a deck order, even when the text gave one; a true position (no '?')
        # is read as the game itself, so the view of it is State(text).view(seat)
        return cls(core.hidden_for(seat) if _deck_known(d) or not _has_hidden(d) else core, seat)

    @property
    def legal_moves(self) -> LegalMoves:
        if self.seat != self.to_move:
            raise ValueError(f"seat {self.seat} is not to move: its view does not show seat "
                             f"{self.to_move}'s hidden cards, so it cannot list their moves")
        return super().legal_moves

    def position(self) -> str:
        return pos.to_text(self._fields())

    def to_json(self) -> dict:
        return pos.to_json(self._fields())

    def resample(self, rng: random.Random | int | None = None) -> State:
        """A full state consistent with this view: the unseen cards of each level dealt at
        random to the hidden blind reserves and the decks."""
        if not isinstance(rng, int):
            rng = (rng or random).getrandbits(64)
        st = State.__new__(State)
        st._core = self._core.determinized(rng)
        st._legal = None
        st._stack = []
        return st

    def __repr__(self) -> str:
        return f"View.from_position({self.position()!r}, seat={self.seat})"

    def __eq__(self, other) -> bool:
        return isinstance(other, View) and self.seat == other.seat and self.position() == other.position()

    def __hash__(self) -> int:
        return hash((self.seat, self.position()))


def _has_hidden(d: dict) -> bool:
    return any(c is None for deck in d["decks"] for c in deck) or any(
        c is None for s in d["seats"] for c, _ in s["reserved"])


def _deck_known(d: dict) -> bool:
    return any(c is not None for deck in d["decks"] for c in deck)

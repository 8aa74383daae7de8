"""The public game API (python-chess style): State, View, legal moves, results.

A `State` is the true game, hidden cards included; the match runner owns it. A `View` is what one
seat sees; players and analysis only ever get views, and sample full states from them with
`View.resample`. Both sit on the compiled engine (`splendor_ai._engine.Core`), which plays turns as
a sequence of integer actions (main action, then token returns, then a noble choice); this module
turns those sequences into whole-turn `Move`s and back.

Two-step turns (docs/RULES.md, "Two-step turns"): in the Strongholds, buying a face-up card whose
slot the deck refills reveals a card that the rest of the turn may use, so `legal_moves` lists that
purchase alone (`b10`, a *first step*: `is_partial(move)`). After `push("b10")` the same seat is
to move, `partial_move` is `b10` and `legal_moves` lists the whole turns that complete it
(`b10/t36`, ...); `push("b10/t36")` (or just `push("t36")`) ends the turn. The move stack holds
whole turns (the completed turn replaces its first step); `pop` undoes one push. A true `State`
also takes the whole turn `b10/t36` in one push from the turn's start (it knows the card the
purchase reveals): records replay that way. A View never does: it cannot know the card.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Iterator

from . import position as pos
from ._engine import (A_BASE_END, A_BUY_HAND, A_BUY_SLOT, A_CITY, A_CONQUER, A_DECLINE, A_FREE, A_GEM, A_HOLD,
                      A_JOKER, A_NOBLE, A_PASS, A_RES_DECK, A_RES_SLOT, A_RETURN, A_SACRIFICE, A_SH_FROM,
                      A_SH_PLACE, A_SH_REMOVE, A_SH_TO, A_TAKE1, A_TAKE2D, A_TAKE2S, A_TAKE3, END_CAP, END_POINTS,
                      END_STALEMATE, NLEV, NSLOT, NUM_ACTIONS, Core)
from .cards import CARDS, CITIES, COLOURS, NOBLES, POSTS, TOKEN_NAMES
from .errors import ConfigError, IllegalMoveError, NotationError, PositionError, loads, short
from .move import (BUY, CITY, CONQUER, DISCARD, FREE, GEM, HOLD, JOKER, NOBLE, PASS, PLACE, REMOVE, RESERVE,
                   RESERVE_DECK, RETURN, SH_MOVE, TAKE, Move, StrEnum, _fragment)
from .validate import check_int

TAKE3 = list(combinations(range(5), 3))
TAKE2 = list(combinations(range(5), 2))


class Termination(StrEnum):
    """Why a game ended (`Result.reason`). Members are strings ("points", ...), as in JSON."""

    POINTS = "points"         # the normal end: the round someone reached 15 points (a city, in the Cities)
    CAP = "cap"               # the safety cap on rounds: a draw
    STALEMATE = "stalemate"   # every player passed in a row: a draw


END_REASONS = {END_POINTS: Termination.POINTS, END_CAP: Termination.CAP, END_STALEMATE: Termination.STALEMATE}
#: the Cities of Splendor modules (docs/MODULES.md); a game plays one at most
MODULES = tuple(pos.MODULE_FLAGS)


@dataclass(frozen=True)
class Config:
    """Rule options, fixed for a game: the player count, the safety cap and the Cities of Splendor
    module played (`modules=("orient",)`; none by default; one at most)."""

    players: int = 2
    cap: int = pos.DEFAULT_CAP  # safety cap on game length, in rounds
    modules: tuple[str, ...] = ()

    def __post_init__(self):
        check_int(self.players, "players", 2, 4, ConfigError, expect="2, 3 or 4", must=True)
        check_int(self.cap, "cap", 1, pos.MAX_CAP, ConfigError,
                  expect=f"an integer number of rounds in 1-{pos.MAX_CAP}", must=True)
        mods = self.modules
        if isinstance(mods, str):
            mods = (mods,)
        if not isinstance(mods, (tuple, list)):
            raise ConfigError(f"modules must be a tuple of module names ({', '.join(MODULES)}), got {short(mods)}")
        mods = tuple(mods)
        for m in mods:
            if m not in MODULES:
                raise ConfigError(f"unknown module {short(m)}; the modules are {', '.join(MODULES)}")
        if len(mods) > 1:
            raise ConfigError(f"modules {short(mods)}: a game plays one module at most (each "
                              f"Cities of Splendor module is played on its own with the base game)")
        object.__setattr__(self, "modules", mods)

    @property
    def module(self) -> str | None:
        """The module played, None for the base game."""
        return self.modules[0] if self.modules else None

    @property
    def flags(self) -> int:
        """The engine's module flag word (State.modules)."""
        return pos.MODULE_FLAGS[self.modules[0]] if self.modules else 0

    def to_json(self) -> dict:
        return {"players": self.players, "cap": self.cap, "modules": list(self.modules)}

    @classmethod
    def from_json(cls, obj) -> "Config":
        if not isinstance(obj, dict) or set(obj) - {"players", "cap", "modules"}:
            raise ConfigError(f"config: expected an object with players, cap, modules; got {short(obj)}")
        mods = obj.get("modules", [])
        if not isinstance(mods, list):
            raise ConfigError(f"config.modules: expected a list of module names, got {short(mods)}")
        return cls(obj.get("players", 2), obj.get("cap", pos.DEFAULT_CAP), tuple(mods))


@dataclass(frozen=True)
class Result:
    """How a finished game ended. `winners` is empty when the game did not finish normally (the
    safety cap, or every player passing in a row): such a game is a draw, never a win. In a Cities
    game the normal end ("points") is the round the first city was claimed in, and the city
    holders rank first (docs/MODULES.md)."""

    reason: Termination
    points: tuple[int, ...]
    cards: tuple[int, ...]
    ranks: tuple[int, ...]   # 1 = best; ties (cities held, points, then fewest cards) share a rank
    winners: tuple[int, ...]

    def __post_init__(self):
        if self.reason.__class__ is not Termination:
            object.__setattr__(self, "reason", Termination(self.reason))

    def to_json(self) -> dict:
        return {"reason": self.reason.value, "points": list(self.points), "cards": list(self.cards),
                "ranks": list(self.ranks), "winners": list(self.winners)}


def _ranks(core: Core, points, cards) -> tuple[int, ...]:
    if hasattr(core, "ranks"):
        return tuple(core.ranks())
    seats = core.to_dict()["seats"]
    keys = [(-bool(s.get("cities")), -p, c) for s, p, c in zip(seats, points, cards)]
    return tuple(1 + sum(k < mine for k in keys) for mine in keys)


def _result(core: Core) -> Result:
    points, cards = tuple(core.points()), tuple(core.ncards())
    ranks = _ranks(core, points, cards)
    reason = END_REASONS[core.over]
    winners = tuple(i for i, r in enumerate(ranks) if r == 1) if reason == Termination.POINTS else ()
    return Result(reason, points, cards, ranks, winners)


@dataclass(frozen=True)
class Seat:
    """One player's public holdings (reserved cards as ids; None where hidden from the viewer),
    with the module elements: claimed cities, trading-post powers, jokers as (card, colour), held
    nobles (Orient) and strongholds in hand."""

    tokens: tuple[int, ...]
    cards: tuple[int, ...]
    reserved: tuple[int | None, ...]
    reserved_levels: tuple[int, ...]
    reserved_blind: tuple[bool, ...]
    nobles: tuple[int, ...]
    cities: tuple[int, ...] = ()
    posts: tuple[int, ...] = ()
    jokers: tuple[tuple[int, int], ...] = ()
    held_nobles: tuple[int, ...] = ()
    strongholds: int = 0
    reserved_orient: tuple[bool, ...] = ()

    @property
    def bonuses(self) -> tuple[int, ...]:
        """Bonuses per colour: a double bonus counts 2, a joker 1 of the colour it joined."""
        return tuple(pos.bonuses(self.cards, self.jokers))

    @property
    def points(self) -> int:
        return (sum(CARDS[c].points for c in self.cards) + sum(NOBLES[n].points for n in self.nobles)
                + pos.post_points(self.posts))

    @property
    def gold_cards(self) -> tuple[int, ...]:
        """Orient gold cards held (each stands for 2 gold when paying)."""
        return tuple(c for c in self.cards if "gold2" in CARDS[c].abilities)


class LegalMoves:
    """The legal moves of a position: iterable, sized, and supports `move in legal_moves`. Whole
    turns, and the first steps of two-step turns (`State.is_partial`); in the middle of a two-step
    turn, the whole turns that complete it."""

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
    _legal: tuple[dict[Move, tuple[int, ...]], frozenset[Move]] | None   # moves -> actions, first steps

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
    def module(self) -> str | None:
        """The Cities of Splendor module played, None for the base game."""
        return pos.module_name(self._fields().get("modules", 0))

    @property
    def market(self) -> tuple[tuple[int | None, ...], ...]:
        """Face-up cards per level (level 1 first), None for an empty slot: four slots each, six
        with the Orient (slots 5-6 hold the Orient cards)."""
        nslots = pos.geometry(self.module)[0]
        return tuple(tuple(row[:nslots]) for row in self._fields()["market"])

    @property
    def deck_sizes(self) -> tuple[int, ...]:
        """Cards left per deck: levels 1-3, then (Orient) the Orient decks of levels 1-3."""
        return tuple(len(d) for d in self._fields()["decks"][:pos.geometry(self.module)[1]])

    @property
    def nobles(self) -> tuple[int, ...]:
        return tuple(self._fields()["nobles"])

    @property
    def cities(self) -> tuple[int, ...]:
        """The Cities: the face-up city ids, not yet claimed."""
        return tuple(sorted(self._fields().get("cities", [])))

    @property
    def discard(self) -> tuple[int, ...]:
        """The Orient: the cards out of the game (sacrificed, spent gold cards)."""
        return tuple(sorted(self._fields().get("discard", [])))

    @property
    def strongholds(self) -> dict[int, tuple[int, int]]:
        """The Strongholds: face-up card id -> (owner seat, count), in market order."""
        d = self._fields()
        sh = d.get("strongholds") or []
        return {card: tuple(sh[lv][sl]) for lv, row in enumerate(d["market"]) for sl, card in enumerate(row)
                if card is not None and lv < len(sh) and sh[lv][sl]}

    @property
    def seats(self) -> tuple[Seat, ...]:
        out = []
        for s in self._fields()["seats"]:
            res = s["reserved"]
            out.append(Seat(tuple(s["tokens"]), tuple(s["cards"]), tuple(c for c, _ in res),
                            tuple((CARDS[c].level if c is not None else d % NLEV + 1) for c, d in res),
                            tuple(d is not None for _, d in res), tuple(s["nobles"]),
                            tuple(sorted(s.get("cities", []))), tuple(sorted(s.get("posts", []))),
                            tuple(sorted((c, col) for c, col in s.get("jokers", []))),
                            tuple(sorted(s.get("held", []))), s.get("sh_hand", 0),
                            tuple((CARDS[c].orient if c is not None else d >= NLEV) for c, d in res)))
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
        return LegalMoves(self._tables()[0])

    def _tables(self) -> tuple[dict[Move, tuple[int, ...]], frozenset[Move]]:
        if self._legal is None:
            self._legal = _expand(self._core)
        return self._legal

    @property
    def partial_move(self) -> Move | None:
        """In the middle of a two-step turn, its first step (the purchase already played, e.g.
        `b10`); None at a turn's start (docs/RULES.md, "Two-step turns")."""
        step = self._core.step
        return Move(BUY, card=step) if step >= 0 and not self._core.over else None

    def is_partial(self, move: Move | str) -> bool:
        """Is this legal move the first step of a two-step turn (pushing it leaves the same seat
        to move, to choose the rest of the turn with the revealed card face up)?"""
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except NotationError:
                return False
        return move in self._tables()[1]

    def parse_move(self, text: str) -> Move:
        """Parse a move and check it is legal here. A missing noble (or city) is filled in when
        only one can visit (be claimed). In the middle of a two-step turn, the rest of the turn
        alone (`t36`) stands for the whole turn (`b10/t36`)."""
        return self._resolve(Move.parse(self._whole_text(text)))[0]

    def _whole_text(self, text: str) -> str:
        """`text`, completed with the first step played when it is only the rest of the turn."""
        partial = self.partial_move
        if partial is None or not isinstance(text, str):
            return text
        head, text = str(partial), text.strip()
        if text == head:
            raise IllegalMoveError(f"{head} is played already: now choose the rest of the turn "
                                   f"(e.g. {next(iter(self.legal_moves), head)})")
        return text if text.startswith(head + "/") else f"{head}/{text}"

    def _resolve(self, move: Move) -> tuple[Move, tuple[int, ...]]:
        """The legal move `move` stands for (its noble or city filled in when only one can come)
        and its engine actions; IllegalMoveError if there is none."""
        table = self._tables()[0]
        found = _lookup(table, move)
        if found is None:
            found = self._across_step(move)
        if found is None:
            raise IllegalMoveError(self._why_illegal(move))
        return found

    def _across_step(self, move: Move):
        """A whole turn that completes a first step, from the turn's start: only a true State
        knows the card the step reveals (View: None)."""
        return None

    def _why_illegal(self, move: Move) -> str:
        if self.is_over():
            return f"{move}: the game is over"
        partial = self.partial_move
        if partial is not None and move.action != partial:
            return (f"{move}: {partial} was played as this turn's first step; the rest of the turn comes next "
                    f"(e.g. {next(iter(self.legal_moves))})")
        if partial is None and move.kind == BUY and move.decisions and self.is_partial(Move(BUY, card=move.card)):
            return (f"{move}: buying card {move.card} refills its slot from the deck before the rest of the turn, "
                    f"so the turn is played in two steps: first b{move.card}, then the rest with the new card face "
                    f"up (docs/RULES.md, \"Two-step turns\")")
        same_action = [m for m in self.legal_moves if m.action == move.action]
        if not same_action:
            return f"{move}: the action {move.action} is not legal for seat {self.to_move} here"

        def follow(m):
            return tuple(d for d in m.decisions if d[0] not in (RETURN, NOBLE, CITY))
        follows = sorted({follow(m) for m in same_action}, key=lambda f: [_fragment(*d) for d in f])
        if follow(move) not in follows:
            shown = ["/".join(_fragment(*d) for d in f) or "(none)" for f in follows]
            more = f" (and {len(shown) - 8} more)" if len(shown) > 8 else ""
            return (f"{move}: the decisions after {move.action} must be one of: {', '.join(shown[:8])}{more}")
        same_action = [m for m in same_action if follow(m) == follow(move)]
        returns = sorted({m.returns for m in same_action})
        if move.returns not in returns:
            need = len(returns[0])
            if need == 0:
                return f"{move}: no tokens need returning after {move.action}"
            return f"{move}: {move.action} leaves {10 + need} tokens, so exactly {need} must be returned from what the player holds"
        same_action = [m for m in same_action if m.returns == move.returns]
        nobles = sorted({m.noble for m in same_action if m.noble is not None})
        if not any(m.noble == move.noble for m in same_action):
            if not nobles:
                return f"{move}: no noble visits after this turn"
            return f"{move}: the noble must be one of {', '.join(f'n{n}' for n in nobles)}"
        cities = sorted({m.city for m in same_action if m.noble == move.noble and m.city is not None})
        if not cities:
            return f"{move}: no city is claimed after this turn"
        return f"{move}: the city must be one of {', '.join(f'c{c}' for c in cities)}"

    def describe(self, move: Move | str) -> str:
        """A plain-English sentence for a legal move, from the mover's point of view. Seats are
        named as players counted from 1 (seat 0 is "Player 1")."""
        # a legal move, or (a true State) a whole turn that completes a first step, as records hold
        move = self.parse_move(move) if isinstance(move, str) else self._resolve(move)[0]
        who = f"Player {self.to_move + 1}"
        seat = self.seats[self.to_move]
        card = move.card
        if move.kind == TAKE:
            names = [COLOURS[c] for c in move.gems]
            if len(names) == 2 and names[0] == names[1]:
                text = f"{who} takes two {names[0]} gems"
            elif len(names) == 1:
                text = f"{who} takes a {names[0]} gem"
            else:
                text = f"{who} takes {_join(names)} gems"
        elif move.kind == RESERVE:
            assert card is not None   # a legal reserve or buy names its card
            text = f"{who} reserves {_card_phrase(card)}" + self._gold_clause()
        elif move.kind == RESERVE_DECK:
            deck = "Orient " if move.orient else ""
            text = f"{who} reserves the top card of the {deck}level-{move.level} deck" + self._gold_clause()
        elif move.kind == BUY and self.partial_move is not None:
            assert card is not None
            text = f"{who} buys {_card_phrase(card)}, already paid in the turn's first step"
        elif move.kind == BUY:
            assert card is not None
            where = " from their hand" if card in seat.reserved else ""
            if CARDS[card].sacrifice is not None:
                cards = [v for t, v in move.decisions if t == DISCARD]
                text = (f"{who} buys {_card_phrase(card)}{where}, discarding "
                        f"{_join([f'card #{c}' for c in cards])} as its price")
            else:
                text = f"{who} buys {_card_phrase(card)}{where}, paying {self._payment(seat, card)}"
        else:
            text = f"{who} passes (no legal action)"
        for tag, value in move.decisions:
            if tag == RETURN:
                text += f", then returns {_token_phrase(value)}"
            elif tag == NOBLE:
                noble = NOBLES[value]
                req = _join([f"{n} {COLOURS[c]}" for c, n in enumerate(noble.requirement) if n])
                text += f", and is visited by noble {value} ({req} bonuses, {noble.points} points)"
            elif tag == JOKER:
                text += f", attaching the joker to their {COLOURS[value]} cards"
            elif tag == HOLD:
                text += f", reserves noble {value} for themselves"
            elif tag == FREE:
                text += f", takes {_card_phrase(value)} free"
            elif tag == PLACE:
                text += f", places a stronghold on card #{value}"
            elif tag == SH_MOVE:
                text += f", moves a stronghold from card #{value[0]} to card #{value[1]}"
            elif tag == REMOVE:
                text += f", removes an opponent's stronghold from card #{value}"
            elif tag == CONQUER:
                text += (f", then conquers {_card_phrase(value)} (all 3 of their strongholds stand on it), paying "
                         f"{self._payment(seat, value)}")
            elif tag == GEM:
                text += f", takes an extra {COLOURS[value]} gem (trading post)"
            elif tag == CITY:
                text += f", and claims {CITIES[value]}"
        if self.is_partial(move):
            text += "; the card that replaces it is revealed before the rest of the turn (a stronghold action)"
        return text + "."

    def _gold_clause(self) -> str:
        return " and takes a gold token" if self.bank[5] > 0 else "; no gold is left to take"

    @staticmethod
    def _payment(seat: Seat, card: int) -> str:
        """What the engine spends (docs/MODULES.md, "Payment"): coloured gems first, then gold
        tokens (each covering 2 missing gems of a colour with trading-post power 2), then gold
        cards (Orient), each spent whole."""
        paid = []
        gold = 0
        bonuses = seat.bonuses
        for c in range(5):
            need = max(0, CARDS[card].cost[c] - bonuses[c])
            use = min(need, seat.tokens[c])
            missing = need - use
            gold += (missing + 1) // 2 if 2 in seat.posts else missing
            paid += [c] * use
        tokens = min(gold, seat.tokens[5])
        paid += [5] * tokens
        cards = seat.gold_cards[:(gold - tokens + 1) // 2]
        if not paid and not cards:
            return "nothing (their bonuses cover the cost)"
        parts = ([_token_phrase(paid)] if paid else []) + [f"gold card #{c}" for c in cards]
        return _join(parts)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _card_phrase(card: int) -> str:
    c = CARDS[card]
    pts = f", {c.points} point{'s' if c.points != 1 else ''}" if c.points else ""
    if "gold2" in c.abilities:
        kind = "a gold card worth 2 gold"
    elif c.bonus is None:   # the Orient's joker cards (gold ones have no colour either)
        kind = "joker"
    else:
        kind = f"{'double ' if c.bonus_count == 2 else ''}{COLOURS[c.bonus]} bonus"
    extra = [a.replace("_", " ") for a in c.abilities if a not in ("gold2", "joker", "double_bonus")]
    extra_text = f", {', '.join(extra)}" if extra else ""
    return f"card #{card} (level {c.level}{' Orient' if c.orient else ''}, {kind}{pts}{extra_text})"


def _token_phrase(tokens) -> str:
    counts: dict[int, int] = {}
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
        deck = a - A_RES_DECK
        return Move(RESERVE_DECK, level=deck % NLEV + 1, orient=deck >= NLEV)
    if a < A_BUY_HAND:
        i = a - A_BUY_SLOT
        return Move(BUY, card=d["market"][i // NSLOT][i % NSLOT])
    if a < A_PASS:
        return Move(BUY, card=d["seats"][d["to_move"]]["reserved"][a - A_BUY_HAND][0])
    return Move(PASS)


def _slot_card(c: Core, i: int) -> int:
    return c.to_dict()["market"][i // NSLOT][i % NSLOT]


def _decision(c: Core, a: int, decisions: tuple) -> tuple:
    """`decisions` after decision action `a`, taken in `c` (before it is applied). Noble and city
    choices add nothing here: the visits are read back from the seat at the end of the turn."""
    if A_RETURN <= a < A_NOBLE:
        if decisions and decisions[-1][0] == RETURN:
            return decisions[:-1] + ((RETURN, decisions[-1][1] + (a - A_RETURN,)),)
        return decisions + ((RETURN, (a - A_RETURN,)),)
    if A_NOBLE <= a < A_BASE_END or A_CITY <= a < NUM_ACTIONS or a == A_DECLINE:
        return decisions
    if A_JOKER <= a < A_HOLD:
        return decisions + ((JOKER, a - A_JOKER),)
    if A_HOLD <= a < A_FREE:
        return decisions + ((HOLD, a - A_HOLD),)
    if A_FREE <= a < A_SACRIFICE:
        return decisions + ((FREE, _slot_card(c, a - A_FREE)),)
    if A_SACRIFICE <= a < A_SH_PLACE:
        return decisions + ((DISCARD, a - A_SACRIFICE),)
    if A_SH_PLACE <= a < A_SH_FROM:
        return decisions + ((PLACE, _slot_card(c, a - A_SH_PLACE)),)
    if A_SH_FROM <= a < A_SH_TO:   # completed by the A_SH_TO that follows
        return decisions + ((SH_MOVE, (_slot_card(c, a - A_SH_FROM), None)),)
    if A_SH_TO <= a < A_SH_REMOVE:
        tag, (frm, _) = decisions[-1]
        assert tag == SH_MOVE, decisions
        return decisions[:-1] + ((SH_MOVE, (frm, _slot_card(c, a - A_SH_TO))),)
    if A_SH_REMOVE <= a < A_CONQUER:
        return decisions + ((REMOVE, _slot_card(c, a - A_SH_REMOVE)),)
    if a == A_CONQUER:
        d = c.to_dict()
        mine = [d["market"][lv][sl] for lv, row in enumerate(d["strongholds"]) for sl, e in enumerate(row)
                if e and e[0] == d["to_move"] and e[1] == 3]
        assert len(mine) == 1, d["strongholds"]
        return decisions + ((CONQUER, mine[0]),)
    if A_GEM <= a < A_CITY:
        return decisions + ((GEM, a - A_GEM),)
    raise ValueError(f"action {a} is not a decision")


def _lookup(table: dict[Move, tuple[int, ...]], move: Move):
    """(the legal move `move` stands for, its actions) in `table`, or None. A missing noble (or
    city) is filled in when only one can visit (be claimed)."""
    if move in table:
        return move, table[move]
    if move.noble is None or move.city is None:
        bare = move.without(NOBLE, CITY)
        cands = [m for m in table if m.without(NOBLE, CITY) == bare
                 and (move.noble is None or m.noble == move.noble)
                 and (move.city is None or m.city == move.city)]
        if len(cands) == 1:
            return cands[0], table[cands[0]]
    return None


def _expand(core: Core) -> tuple[dict[Move, tuple[int, ...]], frozenset[Move]]:
    """Every legal move, mapped to its engine action sequence, and the moves among them that are
    first steps. At a turn's start: the whole turns, except that a Strongholds purchase whose
    slot the deck refills stops after the purchase (the first step; docs/RULES.md, "Two-step
    turns"). In the middle of such a turn: the whole turns that complete it, mapped to the
    actions still to play."""
    out: dict[Move, tuple[int, ...]] = {}
    steps: set[Move] = set()
    if core.over:
        return out, frozenset()
    d = core.to_dict()
    seat = core.to_move
    nobles_before = set(d["seats"][seat]["nobles"])
    cities_before = set(d["seats"][seat].get("cities", ()))

    def walk(c: Core, main: Move, decisions: tuple, actions: tuple):
        if c.phase == 0 or c.over:
            after = c.to_dict()["seats"][seat]
            for noble in set(after["nobles"]) - nobles_before:
                decisions = decisions + ((NOBLE, noble),)
            for city in set(after.get("cities", ())) - cities_before:
                decisions = decisions + ((CITY, city),)
            move = Move(main.kind, main.gems, main.card, main.level, orient=main.orient, decisions=decisions)
            out.setdefault(move, actions)
            return
        for a in c.legal_actions():
            nxt = c.copy()
            nxt.apply(a)
            walk(nxt, main, _decision(c, a, decisions), actions + (a,))

    if core.phase != 0:   # the second step of a two-step turn
        if core.step < 0:
            raise ValueError("a state in the middle of a turn is only kept between the two steps of a two-step turn")
        walk(core, Move(BUY, card=core.step), (), ())
        return out, frozenset()
    for a in core.legal_actions():
        c = core.copy()
        c.apply(a)
        if c.step >= 0 and c.phase != 0 and not c.over:
            move = _main_move(d, a)
            out[move] = (a,)
            steps.add(move)
            continue
        walk(c, _main_move(d, a), (), (a,))
    return out, frozenset(steps)


class State(_Game):
    """The true state of a game. `State(position)` parses an SPN1 string, like chess.Board(fen)."""

    def __init__(self, position: str | None = None):
        if position is None:
            self._core = Core.new(2, 0, 0, pos.DEFAULT_CAP)
        else:
            d = pos.from_text(position)
            if _has_hidden(d):
                raise PositionError("the position hides cards ('?'): it is a seat's view, use View.from_position")
            self._core = _core_of(d)
        self._legal = None
        # (core before, move, its legal tables, the first step it completed: an entry like this
        # one, or None); the move stack is the moves of these entries
        self._stack: list[tuple] = []

    @classmethod
    def new(cls, players: int | None = None, seed: int | None = None, first_player: int = 0,
            config: Config | None = None) -> "State":
        """A new game (2 players unless told): decks shuffled and nobles drawn from `seed`
        (random when None)."""
        config = config or Config(players=players or 2)
        if players is not None and config.players != players:
            raise ConfigError(f"players={players} disagrees with config.players={config.players}")
        check_int(first_player, "first_player", 0, config.players - 1, ConfigError,
                  expect=f"a seat 0-{config.players - 1}", must=True)
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 63)
        check_int(seed, "seed", 0, 2 ** 64 - 1, ConfigError, expect="an integer in [0, 2**64)", must=True)
        st = cls.__new__(cls)
        st._core = Core.new(config.players, seed, first_player, config.cap, config.flags)
        st._legal = None
        st._stack = []
        return st

    @classmethod
    def from_position(cls, text: str) -> "State":
        return cls(text)

    @classmethod
    def from_json(cls, obj) -> "State":
        if isinstance(obj, str):
            obj = loads(obj, PositionError, "position JSON does not parse: ")
        d = pos.from_json(obj)
        if _has_hidden(d):
            raise PositionError("the position hides cards: it is a seat's view, use View.from_json")
        st = cls.__new__(cls)
        st._core = _core_of(d)
        st._legal = None
        st._stack = []
        return st

    @property
    def config(self) -> Config:
        d = self._fields()
        module = pos.module_name(d.get("modules", 0))
        return Config(self._core.nplayers, d["cap"], (module,) if module else ())

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
        the move is malformed or illegal. Returns the Move played (with the noble filled in).

        A first step (`is_partial`) leaves the same seat to move in the middle of the turn; the
        whole turn that completes it (or the rest alone, `t36`) ends it. From a turn's start the
        whole turn `b10/t36` is played in one push too (this true state knows the card `b10`
        reveals)."""
        if not isinstance(move, Move):
            move = Move.parse(self._whole_text(move))
        move, actions = self._resolve(move)
        # the engine applies in place: play on a fresh copy, so that a Core kept in a move stack
        # (this one's or a copy's: copies share those Cores) is never changed afterwards
        core = self._core.copy()
        for a in actions:
            core.apply(a)
        # completing a first step: its entry becomes this one's, so the stack holds whole turns
        step = self._stack.pop() if self.partial_move is not None and self._stack else None
        self._stack.append((self._core, move, self._tables(), step))
        self._core = core
        self._legal = None
        return move

    def _across_step(self, move: Move):
        if self.partial_move is not None or move.kind != BUY or not move.decisions:
            return None
        first = Move(BUY, card=move.card)
        if not self.is_partial(first):
            return None
        mid = self.copy(stack=False)
        mid.push(first)
        found = _lookup(mid._tables()[0], move)
        if found is None:
            return None
        return found[0], self._tables()[0][first] + found[1]

    def pop(self) -> Move:
        """Undo the last push and return its move (after a two-step turn pushed in two steps,
        the state goes back to the middle of the turn, its first step on the stack again)."""
        if not self._stack:
            raise IndexError("no move to undo")
        self._core, move, self._legal, step = self._stack.pop()
        if step is not None:
            self._stack.append(step)
        return move

    @property
    def move_stack(self) -> list[Move]:
        """The moves played: whole turns, and last the first step of a turn under way."""
        return [m for _, m, _, _ in self._stack]

    def view(self, seat: int | None = None) -> "View":
        """What `seat` (default: the player to move) can see."""
        seat = self.to_move if seat is None else seat
        if not 0 <= seat < self.players:
            raise ValueError(f"seat must be 0-{self.players - 1}")
        return View(self._core.hidden_for(seat), seat)

    def __repr__(self) -> str:
        return f"State({self.position()!r})"

    def key(self) -> str:
        """A frozen, hashable key of the position (what `==` compares): a State changes with
        `push` and `pop`, so it is not hashable itself (like chess.Board); put keys in sets."""
        return self.position()

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]


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
            obj = loads(obj, PositionError, "position JSON does not parse: ")
        return cls._from_fields(pos.from_json(obj), seat)

    @classmethod
    def _from_fields(cls, d: dict, seat: int | None) -> "View":
        seat = d["to_move"] if seat is None else seat
        check_int(seat, "seat", 0, d["players"] - 1, PositionError, expect=f"0-{d['players'] - 1}", must=True)
        core = _core_of(d)
        # a view never holds a deck order, even when the text gave one; a true position (no '?')
        # is read as the game itself, so the view of it is State(text).view(seat)
        return cls(core.hidden_for(seat) if _deck_known(d) or not _has_hidden(d) else core, seat)

    @property
    def legal_moves(self) -> LegalMoves:
        """The mover's moves: the same as the true state's, since no move names a card that is
        hidden before it is played (a decision that may use a card the turn reveals is the second
        step of a two-step turn; docs/RULES.md, "Two-step turns")."""
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


def _core_of(d: dict) -> Core:
    """The engine state of a parsed position. A position in the middle of a two-step turn must
    leave its mover a decision (the stronghold action after a refill always has one)."""
    core = Core.from_dict(d)
    if core.step >= 0 and not core.legal_actions():
        raise PositionError(f"status: b{core.step} as a turn's first step leaves no stronghold action to take, "
                            f"so no turn can be under way here")
    return core


def _has_hidden(d: dict) -> bool:
    return any(c is None for deck in d["decks"] for c in deck) or any(
        c is None for s in d["seats"] for c, _ in s["reserved"])


def _deck_known(d: dict) -> bool:
    return any(c is not None for deck in d["decks"] for c in deck)

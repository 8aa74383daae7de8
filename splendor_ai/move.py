"""Moves: small immutable values with a context-free text form (docs/NOTATION.md).

A move is one whole turn: the main action, then the decisions the game asked for, in the order it
asked for them. `Move.kind` is a `MoveKind`; decisions are kept as an ordered tuple of `(tag, value)`
pairs, the tag a `DecisionTag`: the token's prefix in the notation (version 2, docs/MODULES.md
"Notation"). Both enums are strings (`MoveKind.BUY == "buy"`, `DecisionTag.NOBLE == "n"`):

| tag | decision | value |
|---|---|---|
| `-` | tokens returned | tuple of colour indices 0-5 |
| `n` | noble visit | noble id |
| `j` | joker joins a colour (Orient) | colour 0-4 |
| `h` | noble reserved (Orient) | noble id |
| `f` | free card (Orient) | card id |
| `d` | card discarded for a sacrifice (Orient) | card id |
| `t` | stronghold placed on a card | card id |
| `m` | stronghold moved | (card from, card to) |
| `x` | opponent's stronghold removed | card id |
| `b` | conquest (the second purchase) | card id |
| `+` | extra gem (trading posts) | colour 0-4 |
| `c` | city claimed | city id |
"""
from __future__ import annotations

import enum
import re
import sys
from dataclasses import dataclass
from typing import Any

from .cards import CARDS, CITIES, LETTERS, NOBLES
from .errors import NotationError, short

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - Python 3.10
    class StrEnum(str, enum.Enum):
        """enum.StrEnum of Python 3.11: members are their values as strings."""

        def __str__(self) -> str:
            return str.__str__(self)

        def __format__(self, spec: str) -> str:
            return str.__format__(str(self), spec)


class MoveKind(StrEnum):
    """The main action of a turn (`Move.kind`). Members are strings, so JSON and comparisons with
    the plain names ("take", ...) keep working."""

    TAKE = "take"
    RESERVE = "reserve"
    RESERVE_DECK = "reserve_deck"   # the top card of a deck, unseen
    BUY = "buy"
    PASS = "pass"                   # only when no other action is legal


class DecisionTag(StrEnum):
    """The kind of a decision in `Move.decisions`: its token's prefix in the notation."""

    RETURN = "-"
    NOBLE = "n"
    JOKER = "j"
    HOLD = "h"
    FREE = "f"
    DISCARD = "d"
    PLACE = "t"
    SH_MOVE = "m"
    REMOVE = "x"
    CONQUER = "b"
    GEM = "+"
    CITY = "c"


TAKE, RESERVE, RESERVE_DECK, BUY, PASS = MoveKind
RETURN, NOBLE, JOKER, HOLD, FREE, DISCARD, PLACE, SH_MOVE, REMOVE, CONQUER, GEM, CITY = DecisionTag

#: the module each decision belongs to (None: the base game)
TAG_MODULE = {RETURN: None, NOBLE: None, JOKER: "orient", HOLD: "orient", FREE: "orient", DISCARD: "orient",
              PLACE: "strongholds", SH_MOVE: "strongholds", REMOVE: "strongholds", CONQUER: "strongholds",
              GEM: "posts", CITY: "cities"}
_SH = (PLACE, SH_MOVE, REMOVE)
# where a decision stands in a turn: the action's follow-ups (0), then returns, noble, city
_RANK = {RETURN: 1, NOBLE: 2, CITY: 3}

# ids are ASCII digits ([0-9], not \d, which also matches other scripts' digits)
_ACTION = re.compile(r"\+(?P<take>[a-z]+)|r(?P<reserve>[0-9]+)|rL(?P<level>[0-9]+)|rO(?P<olevel>[0-9]+)"
                     r"|b(?P<buy>[0-9]+)|(?P<pass>pass)")
_DECISION = re.compile(r"-(?P<ret>.+)|n(?P<n>[0-9]+)|j(?P<j>[a-z]+)|h(?P<h>[0-9]+)|f(?P<f>[0-9]+)|d(?P<d>[0-9]+)"
                       r"|t(?P<t>[0-9]+)|m(?P<m1>[0-9]+):(?P<m2>[0-9]+)|x(?P<x>[0-9]+)|b(?P<b>[0-9]+)"
                       r"|\+(?P<gem>[a-z]+)|c(?P<c>[0-9]+)")
#: the longest move text read: a whole turn with every decision a module allows is under 40
#: characters, so a longer text is not a move (and its error never echoes it whole)
MAX_CHARS = 100
_EXPECTED = "(expected -tokens, then n<noble>; docs/NOTATION.md lists the module decisions and their order)"


def _colours(text: str, what: str, allowed: str) -> tuple[int, ...]:
    out = []
    for ch in text:
        if ch not in allowed:
            raise NotationError(f"{what}: {ch!r} is not one of the letters {allowed!r}")
        out.append(LETTERS.index(ch))
    if out != sorted(out):
        raise NotationError(f"{what}: colours must be in the order {allowed!r}, got {text!r}")
    return tuple(out)


def _card(card: int, what: str) -> int:
    if card >= len(CARDS):
        raise NotationError(f"{what}: card {card} does not exist (cards are 0-{len(CARDS) - 1})")
    return card


def _fragment(tag: DecisionTag, value) -> str:
    if tag == RETURN:
        return "-" + "".join(LETTERS[c] for c in value)
    if tag in (JOKER, GEM):
        return tag + LETTERS[value]
    if tag == SH_MOVE:
        return f"m{value[0]}:{value[1]}"
    return f"{tag}{value}"


def _insert(decisions: tuple, tag: DecisionTag, value) -> tuple:
    """`decisions` with (tag, value) added at its place: after every decision that comes before it."""
    rank = _RANK.get(tag, 0)
    i = len(decisions)
    while i and _RANK.get(decisions[i - 1][0], 0) > rank:
        i -= 1
    return decisions[:i] + ((tag, value),) + decisions[i:]


@dataclass(frozen=True, slots=True, init=False)
class Move:
    """One whole turn: the main action and the decisions it led to, in the order they were made.

    `Move(kind, gems, card, level, returns, noble)` builds a base-game move as before; module
    decisions go in `decisions` (a tuple of (tag, value) pairs, see the module docstring), and
    `orient=True` makes a `RESERVE_DECK` move a blind reserve from an Orient deck (`rO<level>`).
    """

    kind: MoveKind
    gems: tuple[int, ...]      # take: colour indices in order; (c, c) takes two of c
    card: int | None           # reserve / buy: card id
    level: int | None          # reserve_deck: 1-3
    orient: bool               # reserve_deck: from the Orient deck of that level
    decisions: tuple[tuple[DecisionTag, Any], ...]

    def __init__(self, kind: MoveKind | str, gems: tuple[int, ...] = (), card: int | None = None,
                 level: int | None = None, returns: tuple[int, ...] = (), noble: int | None = None, *,
                 orient: bool = False, decisions: tuple = ()):
        # the enums, whatever was given: a member and its string compare equal, hash alike, and
        # print alike, so moves built either way are the same value
        if kind.__class__ is not MoveKind:
            kind = MoveKind(kind)
        decisions = tuple((t if t.__class__ is DecisionTag else DecisionTag(t), tuple(v) if isinstance(v, list) else v)
                          for t, v in decisions)
        if returns:
            decisions = _insert(decisions, RETURN, tuple(returns))
        if noble is not None:
            decisions = _insert(decisions, NOBLE, noble)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "gems", tuple(gems))
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "orient", bool(orient))
        object.__setattr__(self, "decisions", decisions)

    # -- the decisions, by kind ------------------------------------------------------------------

    def _find(self, tag: DecisionTag):
        for t, v in self.decisions:
            if t == tag:
                return v
        return None

    @property
    def returns(self) -> tuple[int, ...]:
        """Token colour indices (0-5) returned, in order."""
        return self._find(RETURN) or ()

    @property
    def noble(self) -> int | None:
        """The noble that visits at the end of the turn."""
        return self._find(NOBLE)

    @property
    def city(self) -> int | None:
        """The city claimed at the end of the turn (the Cities)."""
        return self._find(CITY)

    @property
    def conquest(self) -> int | None:
        """The card bought by conquest (the Strongholds)."""
        return self._find(CONQUER)

    @property
    def module(self) -> str | None:
        """The module this move needs (None: a base-game move)."""
        if self.orient:
            return "orient"
        for t, _ in self.decisions:
            if TAG_MODULE[t]:
                return TAG_MODULE[t]
        if self.card is not None and self.card >= 90:
            return "orient"
        return None

    @property
    def action(self) -> "Move":
        """The main action alone, without the decisions that followed it."""
        return Move(self.kind, self.gems, self.card, self.level, orient=self.orient)

    def without(self, *tags: DecisionTag | str) -> "Move":
        """This move without its decisions of the given tags (e.g. `without("n", "c")`)."""
        return Move(self.kind, self.gems, self.card, self.level, orient=self.orient,
                    decisions=tuple(d for d in self.decisions if d[0] not in tags))

    # -- text ------------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> "Move":
        """Parse the notation of docs/NOTATION.md; raise NotationError naming the problem."""
        if not isinstance(text, str):
            raise NotationError(f"a move must be a string, not {type(text).__name__}")
        text = text.strip()
        if len(text) > MAX_CHARS:
            raise NotationError(f"{short(text)}: a move is at most {MAX_CHARS} characters, got {len(text)}")
        parts = text.split("/")
        m = _ACTION.fullmatch(parts[0])
        if not m:
            raise NotationError(f"{text!r}: the action {parts[0]!r} is none of +gems, r<card>, rL<level>, "
                                f"rO<level>, b<card>, pass")
        if m["take"] is not None:
            if len(m["take"]) > 3:
                raise NotationError(f"{text!r}: a take is 1-3 gems, got {len(m['take'])}")
            gems = _colours(m["take"], text, LETTERS[:5])
            if not (len(gems) == 2 and gems[0] == gems[1]) and len(set(gems)) != len(gems):
                raise NotationError(f"{text!r}: take 1-3 different colours or two of one colour")
            move = cls(TAKE, gems=gems)
        elif m["reserve"] is not None:
            move = cls(RESERVE, card=_card(int(m["reserve"]), repr(text)))
        elif m["level"] is not None or m["olevel"] is not None:
            level = int(m["level"] if m["level"] is not None else m["olevel"])
            if level not in (1, 2, 3):
                raise NotationError(f"{text!r}: deck level must be 1, 2 or 3")
            move = cls(RESERVE_DECK, level=level, orient=m["olevel"] is not None)
        elif m["buy"] is not None:
            move = cls(BUY, card=_card(int(m["buy"]), repr(text)))
        else:
            move = cls(PASS)
        decisions = tuple(_parse_decision(text, part) for part in parts[1:])
        _check_order(text, move, decisions)
        return cls(move.kind, move.gems, move.card, move.level, orient=move.orient, decisions=decisions)

    def __str__(self) -> str:
        if self.kind == TAKE:
            s = "+" + "".join(LETTERS[c] for c in self.gems)
        elif self.kind == RESERVE:
            s = f"r{self.card}"
        elif self.kind == RESERVE_DECK:
            s = f"r{'O' if self.orient else 'L'}{self.level}"
        elif self.kind == BUY:
            s = f"b{self.card}"
        else:
            s = "pass"
        return "/".join([s] + [_fragment(t, v) for t, v in self.decisions])

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def _parse_decision(text: str, part: str) -> tuple:
    m = _DECISION.fullmatch(part)
    if not m or (m["ret"] is not None and part == "-"):
        raise NotationError(f"{text!r}: unexpected decision {part!r} {_EXPECTED}")
    if m["ret"] is not None:
        return RETURN, _colours(m["ret"], text, LETTERS)
    if m["j"] is not None or m["gem"] is not None:
        tag, letters = (JOKER, m["j"]) if m["j"] is not None else (GEM, m["gem"])
        if len(letters) != 1:
            raise NotationError(f"{text!r}: {part!r} names one colour")
        return tag, _colours(letters, text, LETTERS[:5])[0]
    if m["n"] is not None or m["h"] is not None:
        tag, nb = (NOBLE, int(m["n"])) if m["n"] is not None else (HOLD, int(m["h"]))
        if nb >= len(NOBLES):
            raise NotationError(f"{text!r}: there is no noble {nb}")
        return tag, nb
    if m["c"] is not None:
        city = int(m["c"])
        if city >= len(CITIES):
            raise NotationError(f"{text!r}: there is no city {city} (cities are 0-{len(CITIES) - 1})")
        return CITY, city
    if m["m1"] is not None:
        a, b = _card(int(m["m1"]), repr(text)), _card(int(m["m2"]), repr(text))
        if a == b:
            raise NotationError(f"{text!r}: {part!r} moves a stronghold onto the card it came from")
        return SH_MOVE, (a, b)
    for tag, group in ((FREE, "f"), (DISCARD, "d"), (PLACE, "t"), (REMOVE, "x"), (CONQUER, "b")):
        if m[group] is not None:
            card = _card(int(m[group]), repr(text))
            if tag == FREE and CARDS[card].level == 3:
                raise NotationError(f"{text!r}: {part!r}: free cards are of level 1 or 2, card {card} is level 3")
            return tag, card
    raise AssertionError(part)  # pragma: no cover


def _check_order(text: str, move: Move, decisions: tuple) -> None:
    """The context-free shape of a turn's decisions (docs/MODULES.md, "A turn")."""
    modules = {m for t, _ in decisions if (m := TAG_MODULE[t]) is not None}
    if move.orient or (move.card is not None and move.card >= 90):
        modules.add("orient")
    if any(t == NOBLE for t, _ in decisions) and "cities" in modules:
        raise NotationError(f"{text!r}: a noble visit and a city claim in one turn: a Cities game has no nobles")
    if len(modules) > 1:
        raise NotationError(f"{text!r}: mixes decisions of {' and '.join(sorted(modules))}; a game plays one "
                            f"module at most")
    rank, seen = 0, set()
    buys = 1 if move.kind == BUY else 0   # purchases so far: each allows one stronghold action / extra gem
    sh_used = 0
    for i, (tag, value) in enumerate(decisions):
        part = _fragment(tag, value)
        r = _RANK.get(tag, 0)
        if r < rank or (r and tag in seen) or (tag == CONQUER and tag in seen):
            raise NotationError(f"{text!r}: unexpected decision {part!r} {_EXPECTED}")
        rank = r
        seen.add(tag)
        if tag == DISCARD:
            if move.kind != BUY or i > 1 or (i == 1 and decisions[0][0] != DISCARD):
                raise NotationError(f"{text!r}: {part!r}: the two discarded cards come right after the purchase")
            if i == 1 and value <= decisions[0][1]:
                raise NotationError(f"{text!r}: the discarded cards are written in increasing id order")
        elif tag in (JOKER, HOLD, FREE) and move.kind != BUY:
            raise NotationError(f"{text!r}: {part!r} follows the purchase of an Orient card")
        elif tag == CONQUER:
            if move.kind == PASS:
                raise NotationError(f"{text!r}: a conquest follows a main action")
            buys += 1
        elif tag in _SH:
            sh_used += 1
            if sh_used > buys:
                raise NotationError(f"{text!r}: {part!r}: one stronghold action per purchase")
        elif tag == GEM:
            two = move.kind == TAKE and len(move.gems) == 2 and move.gems[0] == move.gems[1]
            if not two and move.kind != BUY:
                raise NotationError(f"{text!r}: {part!r}: an extra gem follows a purchase or a take of two")
            if two and value == move.gems[0]:
                raise NotationError(f"{text!r}: the extra gem after taking two {LETTERS[value]} is another colour")
    if sum(1 for t, _ in decisions if t == DISCARD) == 1:
        raise NotationError(f"{text!r}: a sacrifice discards two cards")
    if sum(1 for t, _ in decisions if t == GEM) > 1:
        raise NotationError(f"{text!r}: one extra gem a turn")

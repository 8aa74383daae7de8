"""Moves: small immutable values with a context-free text form (docs/NOTATION.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .cards import LETTERS, NOBLES
from .errors import NotationError

TAKE, RESERVE, RESERVE_DECK, BUY, PASS = "take", "reserve", "reserve_deck", "buy", "pass"

# ids are ASCII digits ([0-9], not \d, which also matches other scripts' digits)
_ACTION = re.compile(r"\+(?P<take>[a-z]+)|r(?P<reserve>[0-9]+)|rL(?P<level>[0-9]+)|b(?P<buy>[0-9]+)|(?P<pass>pass)")


def _colours(text: str, what: str, allowed: str) -> tuple[int, ...]:
    out = []
    for ch in text:
        if ch not in allowed:
            raise NotationError(f"{what}: {ch!r} is not one of the letters {allowed!r}")
        out.append(LETTERS.index(ch))
    if out != sorted(out):
        raise NotationError(f"{what}: colours must be in the order {allowed!r}, got {text!r}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Move:
    """One whole turn: the main action and the decisions it led to (returns, noble)."""

    kind: str
    gems: tuple[int, ...] = ()     # take: colour indices in order; (c, c) takes two of c
    card: int | None = None        # reserve / buy: card id
    level: int | None = None       # reserve_deck: 1-3
    returns: tuple[int, ...] = ()  # token colour indices (0-5) returned, in order
    noble: int | None = None       # noble that visits at the end of the turn

    @classmethod
    def parse(cls, text: str) -> "Move":
        """Parse the notation of docs/NOTATION.md; raise NotationError naming the problem."""
        if not isinstance(text, str):
            raise NotationError(f"a move must be a string, not {type(text).__name__}")
        parts = text.strip().split("/")
        m = _ACTION.fullmatch(parts[0])
        if not m:
            raise NotationError(f"{text!r}: the action {parts[0]!r} is none of +gems, r<card>, rL<level>, b<card>, pass")
        kw: dict = {}
        if m["take"] is not None:
            if len(m["take"]) > 3:
                raise NotationError(f"{text!r}: a take is 1-3 gems, got {len(m['take'])}")
            gems = _colours(m["take"], text, LETTERS[:5])
            if len(gems) == 2 and gems[0] == gems[1]:
                pass
            elif len(set(gems)) != len(gems):
                raise NotationError(f"{text!r}: take 1-3 different colours or two of one colour")
            move = cls(TAKE, gems=gems)
        elif m["reserve"] is not None:
            move = cls(RESERVE, card=int(m["reserve"]))
        elif m["level"] is not None:
            level = int(m["level"])
            if level not in (1, 2, 3):
                raise NotationError(f"{text!r}: deck level must be 1, 2 or 3")
            move = cls(RESERVE_DECK, level=level)
        elif m["buy"] is not None:
            move = cls(BUY, card=int(m["buy"]))
        else:
            move = cls(PASS)
        for part in parts[1:]:
            if part.startswith("-") and len(part) > 1 and "returns" not in kw and "noble" not in kw:
                kw["returns"] = _colours(part[1:], text, LETTERS)
            elif re.fullmatch(r"n[0-9]+", part) and "noble" not in kw:
                kw["noble"] = int(part[1:])
                if kw["noble"] >= len(NOBLES):
                    raise NotationError(f"{text!r}: there is no noble {kw['noble']}")
            else:
                raise NotationError(f"{text!r}: unexpected decision {part!r} (expected -tokens, then n<noble>)")
        if move.card is not None and move.card >= 90:
            raise NotationError(f"{text!r}: card {move.card} does not exist (base cards are 0-89)")
        return cls(move.kind, move.gems, move.card, move.level, **kw) if kw else move

    @property
    def action(self) -> "Move":
        """The main action alone, without the decisions that followed it."""
        return Move(self.kind, self.gems, self.card, self.level)

    def __str__(self) -> str:
        if self.kind == TAKE:
            s = "+" + "".join(LETTERS[c] for c in self.gems)
        elif self.kind == RESERVE:
            s = f"r{self.card}"
        elif self.kind == RESERVE_DECK:
            s = f"rL{self.level}"
        elif self.kind == BUY:
            s = f"b{self.card}"
        else:
            s = "pass"
        if self.returns:
            s += "/-" + "".join(LETTERS[c] for c in self.returns)
        if self.noble is not None:
            s += f"/n{self.noble}"
        return s

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

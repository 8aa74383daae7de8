"""The card, noble and colour tables, read once from the data files shipped in the package.

Ids are stable: a card's id is its row in base_cards.csv (0-89) or 90 + its row in
orient_cards.csv (90-119); a noble's id is its row in base_nobles.csv (0-9), a city's its row in
cities.csv (0-13), a trading-post power's its id in trading_posts.csv minus 1 (0-4). See
docs/NOTATION.md and docs/MODULES.md.
"""
from __future__ import annotations

import csv
import io
from importlib import resources
from typing import NamedTuple

COLOURS = ("white", "blue", "green", "red", "black")
TOKEN_NAMES = COLOURS + ("gold",)
LETTERS = "wbgrky"  # white blue green red black + gold (yellow)
GOLD = 5


#: Orient ability codes (orient_abilities.csv), in the order of the engine's ability bits
ABILITIES = ("gold2", "joker", "double_bonus", "reserve_noble", "take_l1", "take_l2", "sacrifice")


class Card(NamedTuple):
    id: int
    level: int  # 1-3
    bonus: int | None  # colour index 0-4; None for Orient gold and joker cards (see abilities)
    points: int
    cost: tuple[int, int, int, int, int]
    deck: int  # 0-2 regular decks of levels 1-3, 3-5 the Orient decks of levels 1-3
    bonus_count: int = 1  # 2 for double bonuses; gold cards stand for 2 gold (see abilities)
    abilities: tuple[str, ...] = ()  # Orient ability codes
    sacrifice: int | None = None  # sacrifice cards: the colour of the 2 cards discarded to pay

    @property
    def orient(self) -> bool:
        return self.deck >= 3

    def __str__(self) -> str:
        cost = " ".join(f"{n}{LETTERS[c]}" for c, n in enumerate(self.cost) if n)
        if self.sacrifice is not None:
            cost = f"sacrifice 2 {COLOURS[self.sacrifice]}"
        bonus = "gold" if "gold2" in self.abilities else "joker" if self.bonus is None else COLOURS[self.bonus]
        extra = f" [{','.join(self.abilities)}]" if self.abilities else ""
        return f"#{self.id} L{self.level} {bonus} {self.points}pt ({cost}){extra}"


class Noble(NamedTuple):
    id: int
    points: int
    requirement: tuple[int, int, int, int, int]

    def __str__(self) -> str:
        req = " ".join(f"{n}{LETTERS[c]}" for c, n in enumerate(self.requirement) if n)
        return f"noble {self.id} ({req})"


def _rows(name: str) -> list[dict[str, str]]:
    text = resources.files("splendor_ai").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


class City(NamedTuple):
    id: int
    tile: int  # 1-7; each tile has two sides, one of which is dealt
    side: str  # "A" or "B"
    prestige: int  # prestige needed
    requirement: tuple[int, int, int, int, int]  # bonuses needed per colour
    same_colour: int  # N > 0: also N bonuses of one colour not named in `requirement`

    def __str__(self) -> str:
        req = [f"{n}{LETTERS[c]}" for c, n in enumerate(self.requirement) if n]
        if self.same_colour:
            req.append(f"{self.same_colour} of one other colour" if any(self.requirement)
                       else f"{self.same_colour} of one colour")
        return f"city {self.id} ({self.prestige} prestige{', ' if req else ''}{' '.join(req)})"


class Post(NamedTuple):
    id: int  # 0-4 (the data file's id minus 1)
    requirement: tuple[int, int, int, int, int]  # bonuses needed per colour
    nobles: int  # nobles needed
    power: str
    effect: str

    def __str__(self) -> str:
        req = " ".join(f"{n}{LETTERS[c]}" for c, n in enumerate(self.requirement) if n)
        return f"post {self.id} ({req}{' + 1 noble' if self.nobles else ''}: {self.power})"


def _gems(row: dict[str, str]) -> tuple[int, int, int, int, int]:
    """The row's five colour columns (costs, requirements), as integers."""
    w, b, g, r, k = (int(row[c]) for c in COLOURS)
    return w, b, g, r, k


def _load_cards() -> tuple[Card, ...]:
    out = []
    for i, row in enumerate(_rows("base_cards.csv")):
        level = int(row["level"])
        out.append(Card(i, level, COLOURS.index(row["bonus"]), int(row["points"]),
                        _gems(row), level - 1))
    for i, row in enumerate(_rows("orient_cards.csv")):
        level = int(row["level"])
        bonus = COLOURS.index(row["bonus"]) if row["bonus"] in COLOURS else None
        abilities = tuple(row["ability"].split(";")) if row["ability"] else ()
        assert all(a in ABILITIES for a in abilities), abilities
        sac = COLOURS.index(row["sacrifice_colour"]) if row["sacrifice_colour"] else None
        out.append(Card(len(out), level, bonus, int(row["points"]), _gems(row),
                        level + 2, int(row["bonus_count"]), abilities, sac))
    return tuple(out)


def _load_cities() -> tuple[City, ...]:
    return tuple(City(i, int(r["tile"]), r["side"], int(r["min_prestige"]), _gems(r),
                      int(r["same_colour"])) for i, r in enumerate(_rows("cities.csv")))


def _load_posts() -> tuple[Post, ...]:
    return tuple(Post(int(r["id"]) - 1, _gems(r), int(r["nobles"]), r["power"], r["effect"])
                 for r in _rows("trading_posts.csv"))


def _load_nobles() -> tuple[Noble, ...]:
    return tuple(Noble(i, int(row["points"]), _gems(row))
                 for i, row in enumerate(_rows("base_nobles.csv")))


def _load_setup() -> dict[int, dict[str, int]]:
    return {int(r["players"]): {k: int(v) for k, v in r.items()} for r in _rows("base_setup.csv")}


#: every card: the 90 base cards (ids 0-89), then the 30 Orient cards (ids 90-119)
CARDS = _load_cards()
NBASE = 90
BASE_CARDS = CARDS[:NBASE]
NOBLES = _load_nobles()
CITIES = _load_cities()
POSTS = _load_posts()
SETUP = _load_setup()
#: base card ids of each level, in id order
LEVEL_CARDS = tuple(tuple(c.id for c in BASE_CARDS if c.level == lv) for lv in (1, 2, 3))
#: Orient card ids of each level, in id order
ORIENT_LEVEL_CARDS = tuple(tuple(c.id for c in CARDS[NBASE:] if c.level == lv) for lv in (1, 2, 3))

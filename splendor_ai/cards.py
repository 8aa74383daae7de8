"""The card, noble and colour tables, read once from the data files shipped in the package.

Ids are stable: a card's id is its row in base_cards.csv (0-89), a noble's its row in
base_nobles.csv (0-9). See docs/NOTATION.md.
"""
from __future__ import annotations

import csv
from importlib import resources
from typing import NamedTuple

COLOURS = ("white", "blue", "green", "red", "black")
TOKEN_NAMES = COLOURS + ("gold",)
LETTERS = "wbgrky"  # white blue green red black + gold (yellow)
GOLD = 5


class Card(NamedTuple):
    id: int
    level: int  # 1-3
    bonus: int  # colour index 0-4
    points: int
    cost: tuple[int, int, int, int, int]
    deck: int  # 0-2 regular decks of levels 1-3

    def __str__(self) -> str:
        cost = " ".join(f"{n}{LETTERS[c]}" for c, n in enumerate(self.cost) if n)
        return f"#{self.id} L{self.level} {COLOURS[self.bonus]} {self.points}pt ({cost})"


class Noble(NamedTuple):
    id: int
    points: int
    requirement: tuple[int, int, int, int, int]

    def __str__(self) -> str:
        req = " ".join(f"{n}{LETTERS[c]}" for c, n in enumerate(self.requirement) if n)
        return f"noble {self.id} ({req})"


def _rows(name: str) -> list[dict[str, str]]:
    with resources.files("splendor_ai").joinpath("data", name).open(newline="") as f:
        return list(csv.DictReader(f))


def _load_cards() -> tuple[Card, ...]:
    out = []
    for i, row in enumerate(_rows("base_cards.csv")):
        level = int(row["level"])
        out.append(Card(i, level, COLOURS.index(row["bonus"]), int(row["points"]),
                        tuple(int(row[c]) for c in COLOURS), level - 1))
    return tuple(out)


def _load_nobles() -> tuple[Noble, ...]:
    return tuple(Noble(i, int(row["points"]), tuple(int(row[c]) for c in COLOURS))
                 for i, row in enumerate(_rows("base_nobles.csv")))


def _load_setup() -> dict[int, dict[str, int]]:
    return {int(r["players"]): {k: int(v) for k, v in r.items()} for r in _rows("base_setup.csv")}


CARDS = _load_cards()
NOBLES = _load_nobles()
SETUP = _load_setup()
#: card ids of each level, in id order
LEVEL_CARDS = tuple(tuple(c.id for c in CARDS if c.level == lv) for lv in (1, 2, 3))

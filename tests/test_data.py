"""The card and noble data: the regularities listed in splendor_ai/data/README.md, checked on the
CSV files shipped in splendor_ai/data (read here with csv, not through the package), the files
against the digests that README pins, and the package's tables against them."""
import csv
import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest

from splendor_ai import CARDS, COLOURS, NOBLES
from splendor_ai.cards import SETUP

DATA = Path(__file__).resolve().parent.parent / "splendor_ai" / "data"


def rows(name):
    with open(DATA / name, newline="") as f:
        return list(csv.DictReader(f))


CARD_ROWS = rows("base_cards.csv")


def cost(row):
    return [int(row[c]) for c in COLOURS]


def shape(row):
    """(points, the non-zero cost amounts in decreasing order)"""
    return int(row["points"]), tuple(sorted((n for n in cost(row) if n), reverse=True))


def test_card_counts_per_level_and_colour():
    assert len(CARD_ROWS) == 90
    assert Counter(int(r["level"]) for r in CARD_ROWS) == {1: 40, 2: 30, 3: 20}
    per = Counter((int(r["level"]), r["bonus"]) for r in CARD_ROWS)
    assert per == {(lv, c): n for lv, n in ((1, 8), (2, 6), (3, 4)) for c in COLOURS}
    # ids are grouped by level: level 1 = 0..39, level 2 = 40..69, level 3 = 70..89
    assert [int(r["level"]) for r in CARD_ROWS] == [1] * 40 + [2] * 30 + [3] * 20


EXPECTED_SHAPES = {
    1: Counter({(0, (1, 1, 1, 1)): 1, (0, (2, 1, 1, 1)): 1, (0, (2, 2, 1)): 1, (0, (2, 2)): 1, (0, (2, 1)): 1,
                (0, (3, 1, 1)): 1, (0, (3,)): 1, (1, (4,)): 1}),
    2: Counter({(1, (3, 2, 2)): 1, (1, (3, 3, 2)): 1, (2, (4, 2, 1)): 1, (2, (5,)): 1, (2, (5, 3)): 1,
                (3, (6,)): 1}),
    3: Counter({(3, (5, 3, 3, 3)): 1, (4, (7,)): 1, (4, (6, 3, 3)): 1, (5, (7, 3)): 1}),
}


@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_colour_has_the_same_cards_up_to_colours(level):
    for colour in COLOURS:
        shapes = Counter(shape(r) for r in CARD_ROWS if int(r["level"]) == level and r["bonus"] == colour)
        assert shapes == EXPECTED_SHAPES[level], colour


def test_level2_six_gem_card_costs_its_own_colour():
    for r in CARD_ROWS:
        if int(r["level"]) == 2 and int(r["points"]) == 3:
            assert cost(r) == [6 if c == r["bonus"] else 0 for c in COLOURS]


@pytest.mark.parametrize("level, demand", [(1, 33), (2, 41), (3, 43)])
def test_gem_demand_per_colour(level, demand):
    totals = [sum(cost(r)[c] for r in CARD_ROWS if int(r["level"]) == level) for c in range(5)]
    assert totals == [demand] * 5


def test_points_per_level():
    assert {lv: sum(int(r["points"]) for r in CARD_ROWS if int(r["level"]) == lv) for lv in (1, 2, 3)} \
        == {1: 5, 2: 55, 3: 80}


def test_nobles():
    nobles = rows("base_nobles.csv")
    assert len(nobles) == 10
    assert all(int(r["points"]) == 3 for r in nobles)
    shapes = Counter(tuple(sorted((int(r[c]) for c in COLOURS if int(r[c])), reverse=True)) for r in nobles)
    assert shapes == {(4, 4): 5, (3, 3, 3): 5}
    assert len({tuple(int(r[c]) for c in COLOURS) for r in nobles}) == 10


def test_setup_table():
    assert [(int(r["players"]), int(r["gems_per_colour"]), int(r["gold"]), int(r["nobles_revealed"]),
             int(r["cards_revealed_per_level"])) for r in rows("base_setup.csv")] == \
        [(2, 4, 5, 3, 4), (3, 5, 5, 4, 4), (4, 7, 5, 5, 4)]
    assert {n: (s["gems_per_colour"], s["gold"], s["nobles_revealed"]) for n, s in SETUP.items()} == \
        {2: (4, 5, 3), 3: (5, 5, 4), 4: (7, 5, 5)}


def test_package_tables_match_the_csv():
    assert len(CARDS) == 120 and len(NOBLES) == 10
    for i, (card, r) in enumerate(zip(CARDS[:90], CARD_ROWS)):
        assert (card.id, card.level, COLOURS[card.bonus], card.points, list(card.cost)) == \
            (i, int(r["level"]), r["bonus"], int(r["points"]), cost(r))
        assert card.deck == card.level - 1
    for i, (noble, r) in enumerate(zip(NOBLES, rows("base_nobles.csv"))):
        assert (noble.id, noble.points, list(noble.requirement)) == (i, int(r["points"]), cost(r))


def test_tables_are_the_checked_ones():
    """Every CSV table has the row count and SHA-256 digest pinned in the data README (the tables
    as checked against their sources), and the README pins no other file."""
    text = (DATA / "README.md").read_text()
    pinned = {m[1]: (int(m[2]), m[3]) for m in re.finditer(r"^\| `([a-z_]+\.csv)` \| ([0-9]+) \| `([0-9a-f]{64})` \|$",
                                                             text, re.M)}
    shipped = sorted(p.name for p in DATA.glob("*.csv"))
    assert sorted(pinned) == shipped and len(shipped) == 7
    for name in shipped:
        assert (len(rows(name)), hashlib.sha256((DATA / name).read_bytes()).hexdigest()) == pinned[name], name


# -- Cities of Splendor (splendor_ai/data/README.md) ----------------------------------------------

ORIENT_ROWS = rows("orient_cards.csv")


def kinds(level):
    return Counter((r["bonus"] if r["bonus"] in ("gold", "joker") else "colour", r["ability"])
                   for r in ORIENT_ROWS if int(r["level"]) == level)


def test_orient_cards_per_level():
    assert len(ORIENT_ROWS) == 30
    assert [int(r["level"]) for r in ORIENT_ROWS] == [1] * 10 + [2] * 10 + [3] * 10
    assert kinds(1) == {("gold", "gold2"): 5, ("joker", "joker"): 5}
    assert kinds(2) == {("colour", "double_bonus"): 5, ("colour", "reserve_noble"): 3,
                        ("joker", "joker;take_l1"): 2}
    assert kinds(3) == {("colour", "take_l2"): 5, ("colour", "sacrifice"): 5}
    abilities = {r["code"] for r in rows("orient_abilities.csv")}
    assert abilities == {"gold2", "joker", "double_bonus", "reserve_noble", "take_l1", "take_l2", "sacrifice"}
    assert all(a in abilities for r in ORIENT_ROWS for a in r["ability"].split(";"))


def test_orient_card_details():
    for r in ORIENT_ROWS:
        gems = sorted((n for n in cost(r) if n), reverse=True)
        ability = r["ability"]
        points = int(r["points"])
        if ability == "gold2":       # 3 gems of one colour, stands for 2 gold
            assert (r["bonus_count"], points, gems) == ("2", 0, [3])
        elif ability == "joker":     # 3 + 2 gems
            assert (r["bonus_count"], points, gems) == ("1", 0, [3, 2])
        elif ability == "double_bonus":   # 4 of one colour and 3 of another, 0 points
            assert (r["bonus_count"], points, gems) == ("2", 0, [4, 3])
            assert cost(r)[COLOURS.index(r["bonus"])] == 0
        elif ability == "reserve_noble":  # 2 of each of the other four colours, 1 point
            assert (r["bonus_count"], points) == ("1", 1)
            assert cost(r) == [0 if c == r["bonus"] else 2 for c in COLOURS]
        elif ability == "joker;take_l1":
            assert (r["bonus_count"], points, gems) == ("1", 0, [4, 3, 1])
        elif ability == "take_l2":
            assert (r["bonus_count"], points, gems) == ("1", 0, [6, 3, 1])
        else:
            assert ability == "sacrifice"
            assert (r["bonus_count"], points, gems, r["sacrifice_count"]) == ("1", 3, [], "2")
        if ability != "sacrifice":
            assert r["sacrifice_colour"] == "" and r["sacrifice_count"] == "0"
    # one card of every colour in each coloured group
    for ability in ("double_bonus", "take_l2", "sacrifice"):
        assert sorted(r["bonus"] for r in ORIENT_ROWS if r["ability"] == ability) == sorted(COLOURS)
    assert sorted(cost(r).index(3) for r in ORIENT_ROWS if r["ability"] == "gold2") == [0, 1, 2, 3, 4]


def test_sacrifice_colour_rotation():
    """The sacrifice card of colour X asks for 2 cards of the colour before X (white: black)."""
    sac = {r["bonus"]: r["sacrifice_colour"] for r in ORIENT_ROWS if r["ability"] == "sacrifice"}
    assert sac == {COLOURS[i]: COLOURS[i - 1] for i in range(5)}


def test_cities():
    cities = rows("cities.csv")
    assert len(cities) == 14
    assert Counter(r["tile"] for r in cities) == {str(t): 2 for t in range(1, 8)}
    assert sorted((r["tile"], r["side"]) for r in cities) == [(str(t), s) for t in range(1, 8) for s in "AB"]
    for r in cities:
        same = int(r["same_colour"])
        assert 10 <= int(r["min_prestige"]) <= 17 and same in (0, 4, 5, 6)
    # tile 5 side A: 4 green + 4 of one other colour
    five_a = next(r for r in cities if (r["tile"], r["side"]) == ("5", "A"))
    assert cost(five_a) == [0, 0, 4, 0, 0] and five_a["same_colour"] == "4"


def test_trading_posts():
    posts = rows("trading_posts.csv")
    assert [(int(r["id"]), cost(r), int(r["nobles"]), r["power"]) for r in posts] == [
        (1, [1, 0, 0, 3, 0], 0, "gem_after_purchase"),
        (2, [2, 0, 0, 0, 0], 0, "extra_gem_on_take_two"),
        (3, [0, 3, 0, 0, 1], 0, "gold_worth_two"),
        (4, [0, 0, 5, 0, 0], 1, "five_points"),
        (5, [0, 0, 0, 0, 3], 0, "point_per_coat_of_arms"),
    ]


def test_package_module_tables_match_the_csv():
    from splendor_ai.cards import ABILITIES, CITIES, POSTS
    for i, (card, r) in enumerate(zip(CARDS[90:], ORIENT_ROWS)):
        bonus = COLOURS.index(r["bonus"]) if r["bonus"] in COLOURS else None
        assert (card.id, card.level, card.deck, card.bonus, card.points, list(card.cost)) == \
            (90 + i, int(r["level"]), int(r["level"]) + 2, bonus, int(r["points"]), cost(r))
        assert card.orient and card.bonus_count == int(r["bonus_count"])
        assert card.abilities == tuple(r["ability"].split(";"))
        assert all(a in ABILITIES for a in card.abilities)
        assert card.sacrifice == (COLOURS.index(r["sacrifice_colour"]) if r["sacrifice_colour"] else None)
    assert len(CITIES) == 14
    for i, (city, r) in enumerate(zip(CITIES, rows("cities.csv"))):
        assert (city.id, city.tile, city.side, city.prestige, list(city.requirement), city.same_colour) == \
            (i, int(r["tile"]), r["side"], int(r["min_prestige"]), cost(r), int(r["same_colour"]))
    assert len(POSTS) == 5
    for post, r in zip(POSTS, rows("trading_posts.csv")):
        assert (post.id, list(post.requirement), post.nobles, post.power) == \
            (int(r["id"]) - 1, cost(r), int(r["nobles"]), r["power"])

"""The card and noble data: the regularities listed in /work/shared/data/README.md, checked on the
CSV files shipped in splendor_ai/data (read here with csv, not through the package), and the
package's tables against them."""
import csv
import filecmp
from collections import Counter
from pathlib import Path

import pytest

from splendor_ai import CARDS, COLOURS, NOBLES
from splendor_ai.cards import SETUP

DATA = Path(__file__).resolve().parent.parent / "splendor_ai" / "data"
SHARED = Path("/work/shared/data")


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


@pytest.mark.skipif(not SHARED.is_dir(), reason="/work/shared/data is not available")
def test_shipped_data_is_the_shared_data():
    shared = sorted(p.name for p in SHARED.iterdir() if p.is_file())
    shipped = sorted(p.name for p in DATA.iterdir() if p.is_file())
    assert shipped == shared
    for name in shared:
        assert filecmp.cmp(SHARED / name, DATA / name, shallow=False), name

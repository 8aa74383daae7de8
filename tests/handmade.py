"""Hand-made SPN1 positions for the behaviour tests.

`spn(...)` writes a true position string (docs/NOTATION.md) from a few overrides and fills in the
rest so that every one of the 90 cards is in exactly one place: the market (default: the four
lowest free ids of each level), the seats (bought or reserved), or the decks (the remaining free
cards of the level, lowest id on top, after any cards asked for on top). The bank defaults to the
setup supply minus what the seats hold, so tokens are conserved. It reads only the card levels from
the data file, nothing from the engine, so a position it writes is the test's own statement.
"""
from __future__ import annotations

import csv
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "splendor_ai" / "data"
with open(DATA / "base_cards.csv", newline="") as _f:
    LEVEL = [int(row["level"]) for row in csv.DictReader(_f)]
SUPPLY = {2: 4, 3: 5, 4: 7}

TAKE3 = ["+wbg", "+wbr", "+wbk", "+wgr", "+wgk", "+wrk", "+bgr", "+bgk", "+brk", "+grk"]


def tokens(text: str) -> list[int]:
    assert len(text) == 6 and text.isdigit(), text
    return [int(ch) for ch in text]


def seat(tokens: str = "000000", cards=(), reserved=(), nobles=()) -> dict:
    """One player: tokens in wbgrky digits; reserved entries are ids (face up) or '*id' (blind)."""
    return {"tokens": tokens, "cards": list(cards), "reserved": list(reserved), "nobles": list(nobles)}


def spn(players: int = 2, *, seats=None, market=None, decks=None, nobles=None, bank=None,
        to_move: int = 0, first: int = 0, turn: int | None = None, final: int = 0, passes: int = 0,
        cap: int | None = None) -> str:
    """A true SPN1 position; see the module docstring for the defaults.

    market: None, or three entries each None (default slots) or a list of 4 ids / None (empty).
    decks: None, or three entries each None or a list of ids to put on top of that deck.
    """
    seats = list(seats or [])
    seats += [seat() for _ in range(players - len(seats))]
    assert len(seats) == players
    used: list[int] = []
    for s in seats:
        used += s["cards"]
        used += [int(str(r).lstrip("*")) for r in s["reserved"]]
    market = list(market or [None, None, None])
    decks = list(decks or [None, None, None])
    for row in market:
        if row is not None:
            used += [c for c in row if c is not None]
    for top in decks:
        if top is not None:
            used += top
    if len(used) != len(set(used)):
        raise ValueError(f"a card is placed twice: {sorted(used)}")
    free = [[c for c in range(90) if LEVEL[c] == lv + 1 and c not in used] for lv in range(3)]
    rows = []
    for lv in range(3):
        if market[lv] is None:
            row, free[lv] = free[lv][:4], free[lv][4:]
            row += [None] * (4 - len(row))
        else:
            row = list(market[lv])
        assert len(row) == 4
        rows.append(row)
    deck_texts = []
    for lv in range(3):
        deck = list(decks[lv] or []) + free[lv]
        deck_texts.append(".".join(map(str, deck)) if deck else "-")
    if bank is None:
        gems = SUPPLY[players]
        bank_list = [(5 if c == 5 else gems) - sum(tokens(s["tokens"])[c] for s in seats) for c in range(6)]
        assert min(bank_list) >= 0, bank_list
        bank = "".join(map(str, bank_list))
    if nobles is None:
        held = {n for s in seats for n in s["nobles"]}
        nobles = [n for n in range(10) if n not in held][:players + 1 - len(held)]
    if turn is None:
        turn = (to_move - first) % players
    fields = ["SPN1", f"{players}" + (f":cap={cap}" if cap is not None else ""), bank,
              "/".join(",".join("-" if c is None else str(c) for c in row) for row in rows),
              "/".join(deck_texts), ",".join(map(str, sorted(nobles))) or "-",
              f"{to_move}/{first}/{turn}/{final}/{passes}"]
    for s in seats:
        fields.append("{}:{}:{}:{}".format(
            s["tokens"], ",".join(map(str, sorted(s["cards"]))) or "-",
            ",".join(map(str, s["reserved"])) or "-", ",".join(map(str, sorted(s["nobles"]))) or "-"))
    return " ".join(fields)


def legal(st) -> set[str]:
    return {str(m) for m in st.legal_moves}


# -- Cities of Splendor (SPN2, docs/MODULES.md) ---------------------------------------------------

with open(DATA / "orient_cards.csv", newline="") as _f:
    LEVEL += [int(row["level"]) for row in csv.DictReader(_f)]   # ids 90-119: the Orient cards


def seat2(tokens: str = "000000", cards=(), reserved=(), nobles=(), *, cities=(), posts=(), jokers=(),
          held=(), strongholds=None) -> dict:
    """One player of a module game: jokers as '95g' strings, strongholds = the number in hand
    (default: 3 minus those on the board)."""
    s = seat(tokens, cards, reserved, nobles)
    s.update(cities=list(cities), posts=list(posts), jokers=list(jokers), held=list(held), sh_hand=strongholds)
    return s


def spn2(module: str, players: int = 2, *, seats=None, market=None, decks=None, nobles=None, bank=None,
         to_move: int = 0, first: int = 0, turn: int | None = None, final: int = 0, passes: int = 0,
         cap: int | None = None, cities=(0, 2, 4), discard=(), strongholds=None) -> str:
    """A true SPN2 position of `module`, filled in as spn() does. With the Orient, market rows have
    6 slots (slots 5-6 the Orient cards) and decks are 6 (regular levels 1-3, then Orient levels
    1-3); `discard` is the out-of-game pile. `cities`: the face-up cities of a Cities game (minus
    those the seats hold). `strongholds`: {card: (seat, count)} on the board."""
    orient = module == "orient"
    nslots, ndecks = (6, 6) if orient else (4, 3)
    seats = list(seats or [])
    seats += [seat2() for _ in range(players - len(seats))]
    used: list[int] = list(discard)
    for s in seats:
        used += s["cards"]
        used += [int(str(r).lstrip("*")) for r in s["reserved"]]
    market = list(market or [None] * 3)
    decks = list(decks or [None] * ndecks)
    for row in market:
        if row is not None:
            used += [c for c in row if c is not None]
    for top in decks:
        if top is not None:
            used += top
    if len(used) != len(set(used)):
        raise ValueError(f"a card is placed twice: {sorted(used)}")
    ncards = 120 if orient else 90

    def deck_of(c):
        return LEVEL[c] - 1 + (3 if c >= 90 else 0)
    free = [[c for c in range(ncards) if deck_of(c) == d and c not in used] for d in range(ndecks)]
    rows = []
    for lv in range(3):
        if market[lv] is None:
            row, free[lv] = free[lv][:4], free[lv][4:]
            row += [None] * (4 - len(row))
            if orient:
                extra, free[lv + 3] = free[lv + 3][:2], free[lv + 3][2:]
                row += extra + [None] * (2 - len(extra))
        else:
            row = list(market[lv])
        assert len(row) == nslots, row
        rows.append(row)
    deck_texts = []
    for d in range(ndecks):
        deck = list(decks[d] or []) + free[d]
        deck_texts.append(".".join(map(str, deck)) if deck else "-")
    if bank is None:
        gems = SUPPLY[players]
        bank_list = [(5 if c == 5 else gems) - sum(tokens(s["tokens"])[c] for s in seats) for c in range(6)]
        assert min(bank_list) >= 0, bank_list
        bank = "".join(map(str, bank_list))
    if module == "cities":
        nobles = []
    elif nobles is None:
        held = {n for s in seats for n in s["nobles"] + s.get("held", [])}
        nobles = [n for n in range(10) if n not in held][:players + 1 - len(held)]
    if turn is None:
        turn = (to_move - first) % players
    strongholds = dict(strongholds or {})
    if module == "cities":
        claimed = {c for s in seats for c in s.get("cities", [])}
        board = ",".join(str(c) for c in sorted(cities) if c not in claimed) or "-"
    elif module == "orient":
        board = ",".join(map(str, sorted(discard))) or "-"
    elif module == "strongholds":
        order = [c for row in rows for c in row if c is not None]
        board = ",".join(f"{c}={strongholds[c][0]}x{strongholds[c][1]}" for c in order if c in strongholds) or "-"
    else:
        board = "-"
    opts = [module] + ([f"cap={cap}"] if cap is not None else [])
    fields = ["SPN2", f"{players}:" + ",".join(opts), bank,
              "/".join(",".join("-" if c is None else str(c) for c in row) for row in rows),
              "/".join(deck_texts), ",".join(map(str, sorted(nobles))) or "-",
              f"{to_move}/{first}/{turn}/{final}/{passes}", board]
    for i, s in enumerate(seats):
        text = "{}:{}:{}:{}".format(
            s["tokens"], ",".join(map(str, sorted(s["cards"]))) or "-",
            ",".join(map(str, s["reserved"])) or "-", ",".join(map(str, sorted(s["nobles"]))) or "-")
        if module == "cities":
            text += ":" + (",".join(map(str, sorted(s.get("cities", [])))) or "-")
        elif module == "orient":
            text += ":" + (",".join(s.get("jokers", [])) or "-") + ":" + (",".join(map(str, sorted(s.get("held", [])))) or "-")
        elif module == "posts":
            text += ":" + (",".join(map(str, sorted(s.get("posts", [])))) or "-")
        elif module == "strongholds":
            hand = s.get("sh_hand")
            if hand is None:
                hand = 3 - sum(n for c, (who, n) in strongholds.items() if who == i)
            text += f":{hand}"
        fields.append(text)
    return " ".join(fields)

"""Position string (SPN1) and JSON forms, and the consistency checks behind both.

Both forms convert to and from the engine's field dict (`Core.to_dict()`): decks top first with
None for an unknown card, reserved entries as (card or None, source deck or None). The grammar is
docs/NOTATION.md; the validation list there is what `validate` checks.
"""
from __future__ import annotations

import re
from typing import Any

from .cards import CARDS, LETTERS, NBASE, NOBLES, SETUP
from .errors import PositionError

TAG = "SPN1"
JSON_FORMAT = "splendor-position/1"
DEFAULT_CAP = 100
#: the largest cap, in rounds: the engine counts turns in 16 bits (4 players x 8000 < 2**15)
MAX_CAP = 8000
NLEV, NSLOT, NREG, NDECK = 3, 6, 4, 6
END_NONE, END_POINTS, END_CAP, END_STALEMATE = 0, 1, 2, 3


# -- text ---------------------------------------------------------------------------------------

_NUM = re.compile(r"[0-9]+")  # ASCII digits only (str.isdigit and \d take other scripts' digits)


def _ids(text: str, what: str) -> list[int]:
    if text == "-":
        return []
    out = []
    for part in text.split(","):
        if not _NUM.fullmatch(part):
            raise PositionError(f"{what}: {part!r} is not a card/noble id")
        out.append(int(part))
    return out


def _digits(text: str, what: str) -> list[int]:
    if not re.fullmatch(r"[0-9]{6}", text):
        raise PositionError(f"{what}: expected six digits (wbgrky), got {text!r}")
    return [int(ch) for ch in text]


def _fmt_ids(ids) -> str:
    return ",".join(map(str, ids)) if ids else "-"


def to_text(d: dict) -> str:
    opts = "" if d["cap"] == DEFAULT_CAP else f":cap={d['cap']}"
    market = "/".join(",".join("-" if c is None else str(c) for c in row[:NREG]) for row in d["market"])
    decks = []
    for deck in d["decks"][:NLEV]:
        if not deck:
            decks.append("-")
        elif all(c is None for c in deck):
            decks.append(f"?{len(deck)}")
        elif any(c is None for c in deck):
            raise PositionError("a deck with some cards known and some hidden has no text form")
        else:
            decks.append(".".join(map(str, deck)))
    status = f"{d['to_move']}/{d['first']}/{d['turn']}/{d['final']}/{d['passes']}"
    seats = []
    for seat in d["seats"]:
        res = []
        for card, deck in seat["reserved"]:
            if deck is None:
                res.append(str(card))
            elif card is None:
                res.append(f"?{deck + 1}")
            else:
                res.append(f"*{card}")
        seats.append("{}:{}:{}:{}".format("".join(map(str, seat["tokens"])), _fmt_ids(seat["cards"]),
                                          _fmt_ids(res) if res else "-", _fmt_ids(seat["nobles"])))
    return " ".join([TAG, f"{d['players']}{opts}", "".join(map(str, d["bank"])), market, "/".join(decks),
                     _fmt_ids(d["nobles"]), status, *seats])


def from_text(text: str) -> dict:
    """Parse and validate a position string."""
    if not isinstance(text, str):
        raise PositionError(f"a position must be a string, not {type(text).__name__}")
    f = text.split()
    if not f or f[0] != TAG:
        raise PositionError(f"not a {TAG} position: it must start with {TAG!r}")
    if len(f) < 7:
        raise PositionError(f"a {TAG} position has at least 9 fields, got {len(f)}")
    m = re.fullmatch(r"([234])(?::(.*))?", f[1])
    if not m:
        raise PositionError(f"players field: expected 2, 3 or 4 (with :options), got {f[1]!r}")
    players, cap = int(m[1]), DEFAULT_CAP
    for opt in (m[2].split(",") if m[2] else []):
        om = re.fullmatch(r"cap=([0-9]+)", opt)
        if not om:
            raise PositionError(f"players field: unknown option {opt!r} (version 1 knows cap=N)")
        cap = int(om[1])
    if len(f) != 7 + players:
        raise PositionError(f"a {players}-player position has {7 + players} fields, got {len(f)}")
    levels = f[3].split("/")
    if len(levels) != NLEV:
        raise PositionError(f"market: expected 3 levels separated by '/', got {f[3]!r}")
    market = []
    for lv, row in enumerate(levels):
        slots = row.split(",")
        if len(slots) != NREG:
            raise PositionError(f"market level {lv + 1}: expected 4 slots, got {row!r}")
        cells = []
        for s in slots:
            if s == "-":
                cells.append(None)
            elif _NUM.fullmatch(s):
                cells.append(int(s))
            else:
                raise PositionError(f"market level {lv + 1}: {s!r} is not a card id or '-'")
        market.append(cells + [None] * (NSLOT - NREG))
    deck_fields = f[4].split("/")
    if len(deck_fields) != NLEV:
        raise PositionError(f"decks: expected 3 decks separated by '/', got {f[4]!r}")
    decks: list[list] = []
    for lv, text_deck in enumerate(deck_fields):
        if text_deck == "-":
            decks.append([])
        elif re.fullmatch(r"\?[0-9]+", text_deck):
            decks.append([None] * int(text_deck[1:]))
        elif re.fullmatch(r"[0-9]+(\.[0-9]+)*", text_deck):
            decks.append([int(x) for x in text_deck.split(".")])
        else:
            raise PositionError(f"deck {lv + 1}: expected ?N, '-' or ids separated by '.', got {text_deck!r}")
    decks += [[] for _ in range(NDECK - NLEV)]
    sm = re.fullmatch(r"([0-9])/([0-9])/([0-9]+)/([01])/([0-9])", f[6])
    if not sm:
        raise PositionError(f"status: expected to_move/first/turn/final/passes, got {f[6]!r}")
    seats = []
    for i, text_seat in enumerate(f[7:]):
        parts = text_seat.split(":")
        if len(parts) != 4:
            raise PositionError(f"seat {i}: expected tokens:cards:reserved:nobles, got {text_seat!r}")
        reserved = []
        for r in ([] if parts[2] == "-" else parts[2].split(",")):
            if _NUM.fullmatch(r):
                reserved.append((int(r), None))
            elif re.fullmatch(r"\*[0-9]+", r):
                card = int(r[1:])
                reserved.append((card, CARDS[card].deck if card < len(CARDS) else -1))
            elif re.fullmatch(r"\?[123]", r):
                reserved.append((None, int(r[1]) - 1))
            else:
                raise PositionError(f"seat {i} reserved: {r!r} is none of <id>, *<id>, ?<level>")
        seats.append({"tokens": _digits(parts[0], f"seat {i} tokens"), "cards": _ids(parts[1], f"seat {i} cards"),
                      "reserved": reserved, "nobles": _ids(parts[3], f"seat {i} nobles")})
    d = {"players": players, "cap": cap, "modules": 0, "bank": _digits(f[2], "bank"), "market": market,
         "decks": decks, "nobles": _ids(f[5], "nobles"), "to_move": int(sm[1]), "first": int(sm[2]),
         "turn": int(sm[3]), "final": int(sm[4]), "passes": int(sm[5]), "seats": seats}
    return validate(d)


# -- JSON ---------------------------------------------------------------------------------------

def to_json(d: dict) -> dict[str, Any]:
    decks = []
    for deck in d["decks"][:NLEV]:
        if deck and all(c is None for c in deck):
            decks.append({"count": len(deck)})
        elif any(c is None for c in deck):
            raise PositionError("a deck with some cards known and some hidden has no JSON form")
        else:
            decks.append({"cards": list(deck)})
    seats = []
    for seat in d["seats"]:
        res = []
        for card, deck in seat["reserved"]:
            if deck is None:
                res.append({"card": card})
            elif card is None:
                res.append({"level": deck + 1, "blind": True})
            else:
                res.append({"card": card, "blind": True})
        seats.append({"tokens": list(seat["tokens"]), "cards": list(seat["cards"]), "reserved": res,
                      "nobles": list(seat["nobles"])})
    return {"format": JSON_FORMAT, "players": d["players"], "options": {"cap": d["cap"]},
            "bank": list(d["bank"]), "market": [list(row[:NREG]) for row in d["market"]], "decks": decks,
            "nobles": list(d["nobles"]), "to_move": d["to_move"], "first_player": d["first"],
            "turn": d["turn"], "final_round": bool(d["final"]), "passes": d["passes"], "seats": seats}


def _get(obj: dict, key: str, kind, where: str):
    if not isinstance(obj, dict):
        raise PositionError(f"{where}: expected an object")
    if key not in obj:
        raise PositionError(f"{where}: missing {key!r}")
    v = obj[key]
    ok = isinstance(v, kind) and not (kind is int and isinstance(v, bool))
    if not ok:
        raise PositionError(f"{where}.{key}: expected {getattr(kind, '__name__', kind)}, got {v!r}")
    return v


def _int_list(v, where: str, n: int | None = None, allow_none: bool = False) -> list:
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise PositionError(f"{where}: expected a list" + (f" of {n}" if n is not None else ""))
    for x in v:
        if not ((isinstance(x, int) and not isinstance(x, bool)) or (allow_none and x is None)):
            raise PositionError(f"{where}: {x!r} is not an integer")
    return list(v)


def from_json(obj: Any) -> dict:
    """Parse and validate a JSON position (a dict, as json.loads gives)."""
    if _get(obj, "format", str, "position") != JSON_FORMAT:
        raise PositionError(f"position: format must be {JSON_FORMAT!r}, got {obj['format']!r}")
    unknown = set(obj) - {"format", "players", "options", "bank", "market", "decks", "nobles", "to_move",
                          "first_player", "turn", "final_round", "passes", "seats"}
    if unknown:
        raise PositionError(f"position: unknown field(s) {sorted(unknown)}")
    options = obj.get("options", {})
    if not isinstance(options, dict) or set(options) - {"cap"}:
        raise PositionError(f"position.options: only 'cap' is known, got {options!r}")
    cap = options.get("cap", DEFAULT_CAP)
    if not isinstance(cap, int) or isinstance(cap, bool):
        raise PositionError(f"position.options.cap: expected an integer, got {cap!r}")
    market = obj.get("market")
    if not isinstance(market, list) or len(market) != NLEV:
        raise PositionError("position.market: expected 3 lists of 4 slots")
    market = [_int_list(row, f"position.market[{i}]", NREG, allow_none=True) + [None] * (NSLOT - NREG)
              for i, row in enumerate(market)]
    decks_in = obj.get("decks")
    if not isinstance(decks_in, list) or len(decks_in) != NLEV:
        raise PositionError("position.decks: expected 3 decks")
    decks = []
    for i, dk in enumerate(decks_in):
        if (isinstance(dk, dict) and set(dk) == {"count"} and isinstance(dk["count"], int)
                and not isinstance(dk["count"], bool) and dk["count"] >= 0):
            decks.append([None] * dk["count"])
        elif isinstance(dk, dict) and set(dk) == {"cards"}:
            decks.append(_int_list(dk["cards"], f"position.decks[{i}].cards"))
        else:
            raise PositionError(f"position.decks[{i}]: expected {{'count': n}} or {{'cards': [...]}}")
    decks += [[] for _ in range(NDECK - NLEV)]
    seats_in = _get(obj, "seats", list, "position")
    seats = []
    for i, s in enumerate(seats_in):
        where = f"position.seats[{i}]"
        if isinstance(s, dict) and set(s) - {"tokens", "cards", "reserved", "nobles"}:
            raise PositionError(f"{where}: unknown field(s) {sorted(set(s) - {'tokens', 'cards', 'reserved', 'nobles'})}")
        res = []
        for j, r in enumerate(_get(s, "reserved", list, where)):
            rw = f"{where}.reserved[{j}]"
            if not isinstance(r, dict) or set(r) - {"card", "level", "blind"} or {"card", "level"} <= set(r):
                raise PositionError(f"{rw}: expected an object with card or level (not both), and blind")
            blind = r.get("blind", False)
            if not isinstance(blind, bool):
                raise PositionError(f"{rw}.blind: expected true or false")
            if "card" in r:
                card = _get(r, "card", int, rw)
                res.append((card, (CARDS[card].deck if 0 <= card < len(CARDS) else -1) if blind else None))
            elif blind and r.get("level") in (1, 2, 3):
                res.append((None, r["level"] - 1))
            else:
                raise PositionError(f"{rw}: a hidden card needs 'level' 1-3 and 'blind': true")
        seats.append({"tokens": _int_list(_get(s, "tokens", list, where), f"{where}.tokens", 6),
                      "cards": _int_list(_get(s, "cards", list, where), f"{where}.cards"),
                      "reserved": res, "nobles": _int_list(_get(s, "nobles", list, where), f"{where}.nobles")})
    final = _get(obj, "final_round", bool, "position")
    d = {"players": _get(obj, "players", int, "position"), "cap": cap, "modules": 0,
         "bank": _int_list(obj.get("bank"), "position.bank", 6), "market": market, "decks": decks,
         "nobles": _int_list(_get(obj, "nobles", list, "position"), "position.nobles"),
         "to_move": _get(obj, "to_move", int, "position"), "first": _get(obj, "first_player", int, "position"),
         "turn": _get(obj, "turn", int, "position"), "final": int(final),
         "passes": _get(obj, "passes", int, "position"), "seats": seats}
    return validate(d)


# -- consistency --------------------------------------------------------------------------------

def validate(d: dict) -> dict:
    """Check a parsed position for consistency; fill in `over` and `phase`. Returns d."""
    n = d["players"]
    if n not in SETUP:
        raise PositionError(f"players: {n} is not 2, 3 or 4")
    if len(d["seats"]) != n:
        raise PositionError(f"seats: {n} players but {len(d['seats'])} seats")
    if not 1 <= d["cap"] <= MAX_CAP:
        raise PositionError(f"cap: {d['cap']} is not between 1 and {MAX_CAP} rounds")
    supply = [SETUP[n]["gems_per_colour"]] * 5 + [SETUP[n]["gold"]]
    for c in range(6):
        if d["bank"][c] < 0 or any(s["tokens"][c] < 0 for s in d["seats"]):
            raise PositionError(f"tokens: negative {LETTERS[c]} count")
        total = d["bank"][c] + sum(s["tokens"][c] for s in d["seats"])
        if total != supply[c]:
            raise PositionError(f"tokens: {total} {LETTERS[c]} in bank and hands, a {n}-player game has {supply[c]}")
    for i, s in enumerate(d["seats"]):
        if sum(s["tokens"]) > 10:
            raise PositionError(f"seat {i}: holds {sum(s['tokens'])} tokens, more than 10 at a turn boundary")
        if len(s["reserved"]) > 3:
            raise PositionError(f"seat {i}: {len(s['reserved'])} reserved cards, at most 3")
    where: dict[int, str] = {}

    def place(card, what):
        if not isinstance(card, int) or not 0 <= card < NBASE:
            raise PositionError(f"{what}: {card!r} is not a card id (0-{NBASE - 1})")
        if card in where:
            raise PositionError(f"card {card} is in two places: {where[card]} and {what}")
        where[card] = what

    hidden = [0] * NDECK
    for lv in range(NLEV):
        for sl, card in enumerate(d["market"][lv]):
            if card is None:
                if sl < NREG and d["decks"][lv]:
                    raise PositionError(f"market level {lv + 1} slot {sl + 1}: empty while its deck has cards")
                continue
            place(card, f"market level {lv + 1}")
            if sl >= NREG or CARDS[card].level != lv + 1:
                raise PositionError(f"market level {lv + 1}: card {card} is a level-{CARDS[card].level} card")
    for dk, deck in enumerate(d["decks"]):
        if dk >= NLEV and deck:
            raise PositionError("decks: the Orient decks are not part of the base game")
        for card in deck:
            if card is None:
                hidden[dk] += 1
                continue
            place(card, f"deck {dk + 1}")
            if CARDS[card].level != dk + 1:
                raise PositionError(f"deck {dk + 1}: card {card} is a level-{CARDS[card].level} card")
    for i, s in enumerate(d["seats"]):
        for card in s["cards"]:
            place(card, f"seat {i} cards")
        for card, deck in s["reserved"]:
            if card is None:
                hidden[deck] += 1
            else:
                place(card, f"seat {i} reserved")
                if deck is not None and deck != CARDS[card].deck:
                    raise PositionError(f"seat {i} reserved: card {card} did not come from deck {deck + 1}")
    for lv in range(NLEV):
        unseen = sum(1 for c in CARDS if c.deck == lv and c.id not in where)
        if unseen != hidden[lv]:
            raise PositionError(f"level {lv + 1}: {unseen} cards are not visible anywhere but the position "
                                f"has {hidden[lv]} hidden places for them")
    owner: dict[int, str] = {}
    for what, ids in [("board", d["nobles"])] + [(f"seat {i}", s["nobles"]) for i, s in enumerate(d["seats"])]:
        for nb in ids:
            if not isinstance(nb, int) or not 0 <= nb < len(NOBLES):
                raise PositionError(f"nobles ({what}): {nb!r} is not a noble id (0-{len(NOBLES) - 1})")
            if nb in owner:
                raise PositionError(f"noble {nb} is in two places: {owner[nb]} and {what}")
            owner[nb] = what
    if len(owner) != n + 1:
        raise PositionError(f"nobles: {len(owner)} in play, a {n}-player game has {n + 1}")
    for i, s in enumerate(d["seats"]):
        bonus = [0] * 5
        for card in s["cards"]:
            bonus[CARDS[card].bonus] += 1
        for nb in s["nobles"]:
            if any(b < r for b, r in zip(bonus, NOBLES[nb].requirement)):
                raise PositionError(f"seat {i}: has noble {nb} without meeting its requirement")
    if not (0 <= d["to_move"] < n and 0 <= d["first"] < n):
        raise PositionError(f"status: seats are 0-{n - 1}")
    if d["turn"] < 0 or (d["first"] + d["turn"]) % n != d["to_move"]:
        raise PositionError(f"status: turn {d['turn']} from first player {d['first']} puts seat "
                            f"{(d['first'] + d['turn']) % n} to move, not {d['to_move']}")
    if d["turn"] > d["cap"] * n:
        raise PositionError(f"status: turn {d['turn']} is past the cap ({d['cap']} rounds of {n} turns)")
    if not 0 <= d["passes"] <= min(n, d["turn"]):
        raise PositionError(f"status: {d['passes']} consecutive passes is impossible here")
    d["phase"] = 0
    if d["final"] and d["turn"] > 0 and d["to_move"] == d["first"]:
        d["over"] = END_POINTS
    elif d["passes"] >= n:
        d["over"] = END_STALEMATE
    elif d["turn"] >= d["cap"] * n:
        d["over"] = END_CAP
    else:
        d["over"] = END_NONE
    return d

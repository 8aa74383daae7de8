"""Position strings (SPN1, SPN2) and JSON forms (versions 1, 2), and the consistency checks behind them.

Both forms convert to and from the engine's field dict (`Core.to_dict()`): decks top first with
None for an unknown card, reserved entries as (card or None, source deck or None), and the module
fields of docs/MODULES.md ("The engine's Python handle"). A base game is written in version 1
(docs/NOTATION.md), byte for byte as before the modules; a game with a module in version 2
(docs/MODULES.md, "Positions, version 2"). Parsers read both. `validate` checks what
docs/NOTATION.md lists, plus the module checks listed in docs/MODULES.md.
"""
from __future__ import annotations

import re
from typing import Any

from ._engine import (END_CAP, END_NONE, END_POINTS, END_STALEMATE, MOD_CITIES, MOD_ORIENT, MOD_POSTS,
                      MOD_STRONGHOLDS, NCITY_UP, NDECK, NLEV, NREG, NSLOT, NSTRONG)
from .cards import CARDS, CITIES, LETTERS, NBASE, NOBLES, POSTS, SETUP
from .errors import PositionError, short
from .validate import int_in, is_int

TAG, TAG2 = "SPN1", "SPN2"
JSON_FORMAT, JSON_FORMAT2 = "splendor-position/1", "splendor-position/2"
DEFAULT_CAP = 100
#: the largest cap, in rounds: the engine counts turns in 16 bits (4 players x 8000 < 2**15)
MAX_CAP = 8000
#: the longest position string read: the longest real one (four players, the Orient, every card
#: listed) is under 1,500 characters, so a longer text is not a position (and is never split)
MAX_TEXT = 4096
#: the Cities of Splendor modules and their engine flags (State.modules)
MODULE_FLAGS = {"cities": MOD_CITIES, "orient": MOD_ORIENT, "posts": MOD_POSTS, "strongholds": MOD_STRONGHOLDS}
MODULE_NAMES = {v: k for k, v in MODULE_FLAGS.items()}
JOKERS = frozenset(c.id for c in CARDS if "joker" in c.abilities)
#: cards of each deck (levels 1-3, then the Orient's): no deck or hidden count is ever larger
DECK_SIZES = tuple(sum(1 for c in CARDS if c.deck == dk) for dk in range(NDECK))


def module_name(flags: int) -> str | None:
    """The module of an engine flag word (None: the base game)."""
    if flags == 0:
        return None
    if flags not in MODULE_NAMES:
        raise PositionError(f"modules: flag word {short(flags)} is not one module (one of {sorted(MODULE_NAMES)})")
    return MODULE_NAMES[flags]


def _module_of(d: dict) -> str | None:
    return module_name(d.get("modules", 0))


def geometry(module: str | None) -> tuple[int, int]:
    """(face-up slots per level, decks) in play."""
    return (NSLOT, NDECK) if module == "orient" else (NREG, NLEV)


def _fresh(d: dict) -> dict:
    """Fill the module fields a parser leaves empty (docs/MODULES.md: 0 / empty means nothing)."""
    d.setdefault("cities", [])
    d.setdefault("discard", [])
    d.setdefault("strongholds", [[None] * NSLOT for _ in range(NLEV)])
    d.setdefault("todo", [])
    d.setdefault("conquered", 0)
    d.setdefault("step", None)
    for s in d["seats"]:
        for k in ("held", "jokers", "posts", "cities"):
            s.setdefault(k, [])
        s.setdefault("sh_hand", NSTRONG if d.get("modules") == MODULE_FLAGS["strongholds"] else 0)
    return d


# -- text ---------------------------------------------------------------------------------------

_NUM = re.compile(r"[0-9]+")  # ASCII digits only (str.isdigit and \d take other scripts' digits)


def _ids(text: str, what: str) -> list[int]:
    if text == "-":
        return []
    out = []
    for part in text.split(","):
        if not _NUM.fullmatch(part):
            raise PositionError(f"{what}: {short(part)} is not a card/noble id")
        out.append(int(part))
    return out


def _sorted_ids(text: str, what: str) -> list[int]:
    ids = _ids(text, what)
    if ids != sorted(set(ids)):
        raise PositionError(f"{what}: ids must be increasing and distinct, got {short(text)}")
    return ids


def _digits(text: str, what: str) -> list[int]:
    if not re.fullmatch(r"[0-9]{6}", text):
        raise PositionError(f"{what}: expected six digits (wbgrky), got {short(text)}")
    return [int(ch) for ch in text]


def _hidden_count(n: int, deck: int, what: str) -> int:
    """A deck's count of hidden cards, checked before a list of that size is made."""
    if n > DECK_SIZES[deck]:
        raise PositionError(f"{what}: {short(n)} hidden cards, but deck {deck + 1} has {DECK_SIZES[deck]} cards in all")
    return n


def _fmt_ids(ids) -> str:
    return ",".join(map(str, ids)) if ids else "-"


def _fmt_reserved(card, deck) -> str:
    if deck is None:
        return str(card)
    if card is not None:
        return f"*{card}"
    return f"?O{deck - NLEV + 1}" if deck >= NLEV else f"?{deck + 1}"


def _market_cards(d: dict):
    """(level, slot, card) of every face-up card, in market order."""
    for lv, row in enumerate(d["market"]):
        for sl, card in enumerate(row):
            if card is not None:
                yield lv, sl, card


def to_text(d: dict) -> str:
    module = _module_of(d)
    nslots, ndecks = geometry(module)
    opts = ([module] if module else []) + ([] if d["cap"] == DEFAULT_CAP else [f"cap={d['cap']}"])
    market = "/".join(",".join("-" if c is None else str(c) for c in row[:nslots]) for row in d["market"])
    decks = []
    for deck in d["decks"][:ndecks]:
        if not deck:
            decks.append("-")
        elif all(c is None for c in deck):
            decks.append(f"?{len(deck)}")
        elif any(c is None for c in deck):
            raise PositionError("a deck with some cards known and some hidden has no text form")
        else:
            decks.append(".".join(map(str, deck)))
    status = f"{d['to_move']}/{d['first']}/{d['turn']}/{d['final']}/{d['passes']}"
    if d.get("step") is not None:
        status += f"/b{d['step']}"
    seats = []
    for seat in d["seats"]:
        res = [_fmt_reserved(card, deck) for card, deck in seat["reserved"]]
        text = "{}:{}:{}:{}".format("".join(map(str, seat["tokens"])), _fmt_ids(seat["cards"]),
                                    _fmt_ids(res), _fmt_ids(seat["nobles"]))
        if module == "cities":
            text += ":" + _fmt_ids(sorted(seat.get("cities", [])))
        elif module == "orient":
            jokers = ",".join(f"{card}{LETTERS[col]}" for card, col in sorted(seat.get("jokers", [])))
            text += f":{jokers or '-'}:{_fmt_ids(sorted(seat.get('held', [])))}"
        elif module == "posts":
            text += ":" + _fmt_ids(sorted(seat.get("posts", [])))
        elif module == "strongholds":
            text += f":{seat.get('sh_hand', 0)}"
        seats.append(text)
    fields = [TAG2 if module else TAG, f"{d['players']}" + (":" + ",".join(opts) if opts else ""),
              "".join(map(str, d["bank"])), market, "/".join(decks), _fmt_ids(d["nobles"]), status]
    if module:
        fields.append(_board_text(d, module))
    return " ".join(fields + seats)


def _board_text(d: dict, module: str) -> str:
    if module == "cities":
        return _fmt_ids(sorted(d.get("cities", [])))
    if module == "orient":
        return _fmt_ids(sorted(d.get("discard", [])))
    if module == "strongholds":
        sh = d.get("strongholds") or [[None] * NSLOT for _ in range(NLEV)]
        out = [f"{card}={sh[lv][sl][0]}x{sh[lv][sl][1]}" for lv, sl, card in _market_cards(d) if sh[lv][sl]]
        return ",".join(out) or "-"
    return "-"


def _parse_options(text: str, allow_module: bool) -> tuple[int, str | None]:
    cap, module = DEFAULT_CAP, None
    seen = set()
    for opt in (text.split(",") if text else []):
        om = re.fullmatch(r"cap=([0-9]+)", opt)
        if om and "cap" in seen:
            raise PositionError("players field: cap is given twice")
        if om:
            cap = int(om[1])
            seen.add("cap")
        elif opt in MODULE_FLAGS and allow_module and module is None:
            module = opt
        elif opt in MODULE_FLAGS and allow_module:
            raise PositionError(f"players field: two modules {module!r} and {short(opt)}; a game plays one module "
                                "at most")
        elif opt in MODULE_FLAGS:
            raise PositionError(f"players field: module {short(opt)} in an {TAG} position; a game with a module is "
                                f"written {TAG2}")
        else:
            known = "cap=N" + (" and a module (" + ", ".join(MODULE_FLAGS) + ")" if allow_module else "")
            raise PositionError(f"players field: unknown option {short(opt)} (known: {known})")
    return cap, module


def from_text(text: str) -> dict:
    """Parse and validate a position string (SPN1 or SPN2)."""
    if not isinstance(text, str):
        raise PositionError(f"a position must be a string, not {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise PositionError(f"a position is at most {MAX_TEXT} characters, got {len(text)}: not a position")
    f = text.split()
    if not f or f[0] not in (TAG, TAG2):
        raise PositionError(f"not a {TAG} position: it must start with {TAG!r} (or {TAG2!r} with a module)")
    v2 = f[0] == TAG2
    nfixed = 8 if v2 else 7
    if len(f) < nfixed:
        raise PositionError(f"a {f[0]} position has at least {nfixed + 2} fields, got {len(f)}")
    m = re.fullmatch(r"([234])(?::(.*))?", f[1])
    if not m:
        raise PositionError(f"players field: expected 2, 3 or 4 (with :options), got {short(f[1])}")
    players = int(m[1])
    cap, module = _parse_options(m[2], v2)
    if v2 and module is None:
        raise PositionError(f"players field: an {TAG2} position names its module ({', '.join(MODULE_FLAGS)}), "
                            f"e.g. '2:orient'; a base game is written {TAG}")
    nslots, ndecks = geometry(module)
    if len(f) != nfixed + players:
        raise PositionError(f"a {players}-player position has {nfixed + players} fields, got {len(f)}")
    levels = f[3].split("/")
    if len(levels) != NLEV:
        raise PositionError(f"market: expected 3 levels separated by '/', got {short(f[3])}")
    market = []
    for lv, row in enumerate(levels):
        slots = row.split(",")
        if len(slots) != nslots:
            raise PositionError(f"market level {lv + 1}: expected {nslots} slots, got {short(row)}")
        cells: list[int | None] = []
        for s in slots:
            if s == "-":
                cells.append(None)
            elif _NUM.fullmatch(s):
                cells.append(int(s))
            else:
                raise PositionError(f"market level {lv + 1}: {short(s)} is not a card id or '-'")
        market.append(cells + [None] * (NSLOT - nslots))
    deck_fields = f[4].split("/")
    if len(deck_fields) != ndecks:
        raise PositionError(f"decks: expected {ndecks} decks separated by '/', got {short(f[4])}")
    decks: list[list] = []
    for dk, text_deck in enumerate(deck_fields):
        if text_deck == "-":
            decks.append([])
        elif re.fullmatch(r"\?[0-9]+", text_deck):
            decks.append([None] * _hidden_count(int(text_deck[1:]), dk, f"deck {dk + 1}"))
        elif re.fullmatch(r"[0-9]+(\.[0-9]+)*", text_deck):
            decks.append([int(x) for x in text_deck.split(".")])
        else:
            raise PositionError(f"deck {dk + 1}: expected ?N, '-' or ids separated by '.', got {short(text_deck)}")
    decks += [[] for _ in range(NDECK - ndecks)]
    sm = re.fullmatch(r"([0-9])/([0-9])/([0-9]+)/([01])/([0-9])(?:/b([0-9]{1,3}))?", f[6])
    if not sm:
        raise PositionError(f"status: expected to_move/first/turn/final/passes (then /b<card> in the middle of "
                            f"a two-step turn), got {short(f[6])}")
    d = {"players": players, "cap": cap, "modules": MODULE_FLAGS[module] if module else 0,
         "bank": _digits(f[2], "bank"), "market": market, "decks": decks, "nobles": _ids(f[5], "nobles"),
         "to_move": int(sm[1]),
         "first": int(sm[2]), "turn": int(sm[3]), "final": int(sm[4]), "passes": int(sm[5]),
         "step": None if sm[6] is None else int(sm[6])}
    if module:
        _parse_board(d, module, f[7])
    nextra = (2 if module == "orient" else 1) if module else 0
    layout = "tokens:cards:reserved:nobles" + {"cities": ":cities", "orient": ":jokers:held nobles",
                                                 "posts": ":posts", "strongholds": ":strongholds in hand",
                                                 None: ""}[module]
    seats = []
    for i, text_seat in enumerate(f[nfixed:]):
        parts = text_seat.split(":")
        if len(parts) != 4 + nextra:
            raise PositionError(f"seat {i}: expected {layout}, got {short(text_seat)}")
        reserved: list[tuple[int | None, int | None]] = []
        for r in ([] if parts[2] == "-" else parts[2].split(",")):
            if _NUM.fullmatch(r):
                reserved.append((int(r), None))
            elif re.fullmatch(r"\*[0-9]+", r):
                card = int(r[1:])
                reserved.append((card, CARDS[card].deck if card < len(CARDS) else -1))
            elif re.fullmatch(r"\?[123]", r):
                reserved.append((None, int(r[1]) - 1))
            elif re.fullmatch(r"\?O[123]", r) and module == "orient":
                reserved.append((None, NLEV + int(r[2]) - 1))
            else:
                raise PositionError(f"seat {i} reserved: {short(r)} is none of <id>, *<id>, ?<level>"
                                    + (", ?O<level>" if module == "orient" else ""))
        seat = {"tokens": _digits(parts[0], f"seat {i} tokens"), "cards": _ids(parts[1], f"seat {i} cards"),
                "reserved": reserved, "nobles": _ids(parts[3], f"seat {i} nobles")}
        extra = parts[4:]
        if module == "cities":
            seat["cities"] = _sorted_ids(extra[0], f"seat {i} cities")
        elif module == "orient":
            jokers = []
            for j in ([] if extra[0] == "-" else extra[0].split(",")):
                jm = re.fullmatch(r"([0-9]+)([a-z])", j)
                if not jm or jm[2] not in LETTERS[:5]:
                    raise PositionError(f"seat {i} jokers: {short(j)} is not <card><colour letter wbgrk> (e.g. 95g)")
                jokers.append([int(jm[1]), LETTERS.index(jm[2])])
            if [c for c, _ in jokers] != sorted({c for c, _ in jokers}):
                raise PositionError(f"seat {i} jokers: cards must be increasing and distinct, got {short(extra[0])}")
            seat["jokers"] = jokers
            seat["held"] = _sorted_ids(extra[1], f"seat {i} held nobles")
        elif module == "posts":
            seat["posts"] = _sorted_ids(extra[0], f"seat {i} posts")
        elif module == "strongholds":
            if not re.fullmatch(r"[0-3]", extra[0]):
                raise PositionError(f"seat {i} strongholds: expected the strongholds in hand, 0-3, got "
                                    f"{short(extra[0])}")
            seat["sh_hand"] = int(extra[0])
        seats.append(seat)
    d["seats"] = seats
    return validate(d)


def _parse_board(d: dict, module: str, text: str) -> None:
    if module == "cities":
        d["cities"] = _sorted_ids(text, "board (cities)")
    elif module == "orient":
        d["discard"] = _sorted_ids(text, "board (discard pile)")
    elif module == "posts":
        if text != "-":
            raise PositionError(f"board: a trading-posts game has nothing on the board ('-'), got {short(text)}")
    else:
        entries = []
        for e in ([] if text == "-" else text.split(",")):
            em = re.fullmatch(r"([0-9]+)=([0-9])x([0-9])", e)
            if not em:
                raise PositionError(f"board (strongholds): {short(e)} is not <card>=<seat>x<count>, e.g. 30=0x2")
            entries.append({"card": int(em[1]), "seat": int(em[2]), "count": int(em[3])})
        d["strongholds"] = _strongholds_from_entries(d, entries, "board (strongholds)", text=True)


def _strongholds_from_entries(d: dict, entries: list[dict], what: str, text: bool = False) -> list:
    """The engine's per-slot stronghold table from a list of {card, seat, count} entries."""
    slot_of = {card: (lv, sl) for lv, sl, card in _market_cards(d)}
    sh = [[None] * NSLOT for _ in range(NLEV)]
    order = []
    for e in entries:
        card = e["card"]
        if card not in slot_of:
            raise PositionError(f"{what}: card {card} is not face up in the market")
        lv, sl = slot_of[card]
        if sh[lv][sl] is not None:
            raise PositionError(f"{what}: card {card} is listed twice (one player's strongholds at most on a card)")
        if not 1 <= e["count"] <= NSTRONG:
            raise PositionError(f"{what}: card {card} holds {e['count']} strongholds, expected 1-{NSTRONG}")
        sh[lv][sl] = [e["seat"], e["count"]]
        order.append(lv * NSLOT + sl)
    if text and order != sorted(order):
        raise PositionError(f"{what}: entries must be in market order (level 1 first, slots left to right)")
    return sh


# -- JSON ---------------------------------------------------------------------------------------

def to_json(d: dict) -> dict[str, Any]:
    module = _module_of(d)
    nslots, ndecks = geometry(module)
    decks: list[dict[str, Any]] = []
    for deck in d["decks"][:ndecks]:
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
                res.append({"level": deck % NLEV + 1, "orient": True, "blind": True} if deck >= NLEV
                           else {"level": deck + 1, "blind": True})
            else:
                res.append({"card": card, "blind": True})
        js = {"tokens": list(seat["tokens"]), "cards": list(seat["cards"]), "reserved": res,
              "nobles": list(seat["nobles"])}
        if module == "cities":
            js["cities"] = sorted(seat.get("cities", []))
        elif module == "orient":
            js["jokers"] = [{"card": c, "colour": col} for c, col in sorted(seat.get("jokers", []))]
            js["held_nobles"] = sorted(seat.get("held", []))
        elif module == "posts":
            js["posts"] = sorted(seat.get("posts", []))
        elif module == "strongholds":
            js["strongholds"] = seat.get("sh_hand", 0)
        seats.append(js)
    options: dict[str, Any] = {"cap": d["cap"]}
    if module:
        options["module"] = module
    out: dict[str, Any] = {
        "format": JSON_FORMAT2 if module else JSON_FORMAT, "players": d["players"], "options": options,
        "bank": list(d["bank"]), "market": [list(row[:nslots]) for row in d["market"]], "decks": decks,
        "nobles": list(d["nobles"]), "to_move": d["to_move"], "first_player": d["first"],
        "turn": d["turn"], "final_round": bool(d["final"]), "passes": d["passes"]}
    if d.get("step") is not None:
        out["step"] = f"b{d['step']}"
    if module == "cities":
        out["cities"] = sorted(d.get("cities", []))
    elif module == "orient":
        out["discard"] = sorted(d.get("discard", []))
    elif module == "strongholds":
        sh = d.get("strongholds") or [[None] * NSLOT for _ in range(NLEV)]
        out["strongholds"] = [{"card": card, "seat": sh[lv][sl][0], "count": sh[lv][sl][1]}
                              for lv, sl, card in _market_cards(d) if sh[lv][sl]]
    out["seats"] = seats
    return out


def _get(obj: dict, key: str, kind, where: str):
    if not isinstance(obj, dict):
        raise PositionError(f"{where}: expected an object")
    if key not in obj:
        raise PositionError(f"{where}: missing {key!r}")
    v = obj[key]
    if not (is_int(v) if kind is int else isinstance(v, kind)):
        raise PositionError(f"{where}.{key}: expected {getattr(kind, '__name__', kind)}, got {short(v)}")
    return v


def _int_list(v, where: str, n: int | None = None, allow_none: bool = False) -> list:
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise PositionError(f"{where}: expected a list" + (f" of {n}" if n is not None else ""))
    for x in v:
        if not (is_int(x) or (allow_none and x is None)):
            raise PositionError(f"{where}: {short(x)} is not an integer")
    return list(v)


_TOP = {"format", "players", "options", "bank", "market", "decks", "nobles", "to_move", "first_player", "turn",
        "final_round", "passes", "seats"}
# the fields each module adds (None, the base game, adds none)
_TOP_MODULE: dict[str | None, set[str]] = {"cities": {"cities"}, "orient": {"discard"}, "posts": set(),
                                           "strongholds": {"strongholds", "step"}}
_SEAT = {"tokens", "cards", "reserved", "nobles"}
_SEAT_MODULE: dict[str | None, set[str]] = {"cities": {"cities"}, "orient": {"jokers", "held_nobles"},
                                            "posts": {"posts"}, "strongholds": {"strongholds"}}


def from_json(obj: Any) -> dict:
    """Parse and validate a JSON position (a dict, as json.loads gives), version 1 or 2."""
    fmt = _get(obj, "format", str, "position")
    if fmt not in (JSON_FORMAT, JSON_FORMAT2):
        raise PositionError(f"position: format must be {JSON_FORMAT!r} (or {JSON_FORMAT2!r} with a module), "
                            f"got {short(fmt)}")
    v2 = fmt == JSON_FORMAT2
    options = obj.get("options", {})
    if not isinstance(options, dict) or set(options) - ({"cap", "module"} if v2 else {"cap"}):
        known = "'cap' and 'module' are" if v2 else "'cap' is"
        raise PositionError(f"position.options: only {known} known, "
                            f"got {short(options)}" + (f" (a game with a module is format {JSON_FORMAT2!r})"
                                                       if not v2 and isinstance(options, dict) and "module" in options
                                                       else ""))
    cap = options.get("cap", DEFAULT_CAP)
    if not is_int(cap):
        raise PositionError(f"position.options.cap: expected an integer, got {short(cap)}")
    module = options.get("module")
    if v2 and not (isinstance(module, str) and module in MODULE_FLAGS):
        raise PositionError(f"position.options.module: expected one of {', '.join(MODULE_FLAGS)} in a "
                            f"{JSON_FORMAT2!r} position, got {short(module)}")
    unknown = set(obj) - _TOP - _TOP_MODULE.get(module, set())
    if unknown:
        raise PositionError(f"position: unknown field(s) {short(sorted(unknown))}"
                            + (f" for module {module!r}" if module else ""))
    nslots, ndecks = geometry(module)
    market = obj.get("market")
    if not isinstance(market, list) or len(market) != NLEV:
        raise PositionError(f"position.market: expected 3 lists of {nslots} slots")
    market = [_int_list(row, f"position.market[{i}]", nslots, allow_none=True) + [None] * (NSLOT - nslots)
              for i, row in enumerate(market)]
    decks_in = obj.get("decks")
    if not isinstance(decks_in, list) or len(decks_in) != ndecks:
        raise PositionError(f"position.decks: expected {ndecks} decks")
    decks = []
    for i, dk in enumerate(decks_in):
        if isinstance(dk, dict) and set(dk) == {"count"} and int_in(dk["count"], 0):
            decks.append([None] * _hidden_count(dk["count"], i, f"position.decks[{i}].count"))
        elif isinstance(dk, dict) and set(dk) == {"cards"}:
            decks.append(_int_list(dk["cards"], f"position.decks[{i}].cards"))
        else:
            raise PositionError(f"position.decks[{i}]: expected {{'count': n}} or {{'cards': [...]}}")
    decks += [[] for _ in range(NDECK - ndecks)]
    seats_in = _get(obj, "seats", list, "position")
    seat_keys = _SEAT | _SEAT_MODULE.get(module, set())
    seats = []
    for i, s in enumerate(seats_in):
        where = f"position.seats[{i}]"
        if isinstance(s, dict) and set(s) - seat_keys:
            raise PositionError(f"{where}: unknown field(s) {short(sorted(set(s) - seat_keys))}"
                                + (f" for module {module!r}" if module else ""))
        res = []
        for j, r in enumerate(_get(s, "reserved", list, where)):
            rw = f"{where}.reserved[{j}]"
            if (not isinstance(r, dict) or set(r) - {"card", "level", "blind", "orient"}
                    or {"card", "level"} <= set(r)):
                raise PositionError(f"{rw}: expected an object with card or level (not both), and blind")
            blind = r.get("blind", False)
            if not isinstance(blind, bool):
                raise PositionError(f"{rw}.blind: expected true or false")
            orient = r.get("orient", False)
            if orient not in (True, False) or (orient and module != "orient") or (orient and "card" in r):
                raise PositionError(f"{rw}.orient: only a hidden blind reserve of an Orient game says "
                                    f"'orient': true")
            if "card" in r:
                card = _get(r, "card", int, rw)
                res.append((card, (CARDS[card].deck if 0 <= card < len(CARDS) else -1) if blind else None))
            elif blind and int_in(r.get("level"), 1, 3):
                res.append((None, r["level"] - 1 + (NLEV if orient else 0)))
            else:
                raise PositionError(f"{rw}: a hidden card needs 'level' 1-3 and 'blind': true")
        seat = {"tokens": _int_list(_get(s, "tokens", list, where), f"{where}.tokens", 6),
                "cards": _int_list(_get(s, "cards", list, where), f"{where}.cards"),
                "reserved": res, "nobles": _int_list(_get(s, "nobles", list, where), f"{where}.nobles")}
        if module == "cities":
            seat["cities"] = _int_list(_get(s, "cities", list, where), f"{where}.cities")
        elif module == "orient":
            jokers = []
            for j, jk in enumerate(_get(s, "jokers", list, where)):
                jw = f"{where}.jokers[{j}]"
                if not isinstance(jk, dict) or set(jk) != {"card", "colour"}:
                    raise PositionError(f"{jw}: expected an object with card and colour")
                jokers.append([_get(jk, "card", int, jw), _get(jk, "colour", int, jw)])
            seat["jokers"] = jokers
            seat["held"] = _int_list(_get(s, "held_nobles", list, where), f"{where}.held_nobles")
        elif module == "posts":
            seat["posts"] = _int_list(_get(s, "posts", list, where), f"{where}.posts")
        elif module == "strongholds":
            seat["sh_hand"] = _get(s, "strongholds", int, where)
        seats.append(seat)
    final = _get(obj, "final_round", bool, "position")
    d = {"players": _get(obj, "players", int, "position"), "cap": cap, "modules": MODULE_FLAGS[module] if module else 0,
         "bank": _int_list(obj.get("bank"), "position.bank", 6), "market": market, "decks": decks,
         "nobles": _int_list(_get(obj, "nobles", list, "position"), "position.nobles"),
         "to_move": _get(obj, "to_move", int, "position"), "first": _get(obj, "first_player", int, "position"),
         "turn": _get(obj, "turn", int, "position"), "final": int(final),
         "passes": _get(obj, "passes", int, "position"), "seats": seats, "step": None}
    if "step" in obj:
        step = obj["step"]
        if not (isinstance(step, str) and re.fullmatch(r"b[0-9]{1,3}", step)):
            raise PositionError(f"position.step: expected the first step of a two-step turn, b<card> (e.g. \"b10\"), "
                                f"got {str(step)[:40]!r}")
        d["step"] = int(step[1:])
    if module == "cities":
        d["cities"] = _int_list(_get(obj, "cities", list, "position"), "position.cities")
    elif module == "orient":
        d["discard"] = _int_list(_get(obj, "discard", list, "position"), "position.discard")
    elif module == "strongholds":
        entries = []
        for j, e in enumerate(_get(obj, "strongholds", list, "position")):
            ew = f"position.strongholds[{j}]"
            if not isinstance(e, dict) or set(e) != {"card", "seat", "count"}:
                raise PositionError(f"{ew}: expected an object with card, seat and count")
            entries.append({k: _get(e, k, int, ew) for k in ("card", "seat", "count")})
        d["strongholds"] = _strongholds_from_entries(d, entries, "position.strongholds")
    return validate(d)


# -- consistency --------------------------------------------------------------------------------

def bonuses(cards, jokers=()) -> list[int]:
    """Bonuses per colour of a set of cards (double bonuses count 2) and attached jokers."""
    b = [0] * 5
    for card in cards:
        c = CARDS[card]
        if c.bonus is not None:
            b[c.bonus] += c.bonus_count
    for _, col in jokers:
        b[col] += 1
    return b


def post_points(posts) -> int:
    """Prestige from trading-post powers: power 3 gives 5, power 4 one per power held."""
    posts = set(posts)
    return (5 if 3 in posts else 0) + (len(posts) if 4 in posts else 0)


def seat_points(seat: dict) -> int:
    return (sum(CARDS[c].points for c in seat["cards"]) + sum(NOBLES[n].points for n in seat["nobles"])
            + post_points(seat.get("posts", ())))


def city_met(city: int, bonus, points: int) -> bool:
    c = CITIES[city]
    if points < c.prestige or any(b < r for b, r in zip(bonus, c.requirement)):
        return False
    if c.same_colour:
        return any(bonus[col] >= c.same_colour for col in range(5) if not c.requirement[col])
    return True


def post_met(post: int, bonus, nobles: int) -> bool:
    p = POSTS[post]
    return all(b >= r for b, r in zip(bonus, p.requirement)) and nobles >= p.nobles


def validate(d: dict) -> dict:
    """Check a parsed position for consistency; fill in `over`, `phase` and the empty module
    fields. Returns d."""
    n = d["players"]
    module = _module_of(d)
    _fresh(d)
    nslots, ndecks = geometry(module)
    ncards = len(CARDS) if module == "orient" else NBASE
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
        if not isinstance(card, int) or not 0 <= card < ncards:
            raise PositionError(f"{what}: {short(card)} is not a card id (0-{ncards - 1}"
                                + (", Orient cards 90-119 need the Orient module)" if ncards == NBASE else ")"))
        if card in where:
            raise PositionError(f"card {card} is in two places: {where[card]} and {what}")
        where[card] = what

    hidden = [0] * NDECK
    for lv in range(NLEV):
        for sl, card in enumerate(d["market"][lv]):
            deck = lv + (NLEV if sl >= NREG else 0)
            if card is None:
                if sl < nslots and d["decks"][deck]:
                    raise PositionError(f"market level {lv + 1} slot {sl + 1}: empty while its deck has cards")
                continue
            place(card, f"market level {lv + 1}")
            if sl >= nslots or CARDS[card].level != lv + 1:
                raise PositionError(f"market level {lv + 1}: card {card} is a level-{CARDS[card].level} card")
            if CARDS[card].deck != deck:
                raise PositionError(f"market level {lv + 1} slot {sl + 1}: card {card} is "
                                    f"{'an Orient' if CARDS[card].orient else 'a regular'} card, the slot holds "
                                    f"{'Orient' if deck >= NLEV else 'regular'} cards")
    for dk, deck in enumerate(d["decks"]):
        if dk >= ndecks and deck:
            raise PositionError("decks: the Orient decks are only in a game with the Orient")
        for card in deck:
            if card is None:
                hidden[dk] += 1
                continue
            place(card, f"deck {dk + 1}")
            if CARDS[card].level != dk % NLEV + 1:
                raise PositionError(f"deck {dk + 1}: card {card} is a level-{CARDS[card].level} card")
            if CARDS[card].deck != dk:
                raise PositionError(f"deck {dk + 1}: card {card} belongs to deck {CARDS[card].deck + 1}"
                                    f" ({'Orient' if CARDS[card].orient else 'regular'} cards)")
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
    for card in d["discard"]:
        if module != "orient":
            raise PositionError("discard: only a game with the Orient has an out-of-game pile")
        place(card, "the discard pile")
    for dk in range(ndecks):
        unseen = sum(1 for c in CARDS if c.deck == dk and c.id not in where)
        if unseen != hidden[dk]:
            what = f"Orient level {dk - NLEV + 1}" if dk >= NLEV else f"level {dk + 1}"
            raise PositionError(f"{what}: {unseen} cards are not visible anywhere but the position "
                                f"has {hidden[dk]} hidden places for them")
    owner: dict[int, str] = {}
    places = [("board", d["nobles"])] + [(f"seat {i}", s["nobles"]) for i, s in enumerate(d["seats"])]
    places += [(f"seat {i} held nobles", s["held"]) for i, s in enumerate(d["seats"]) if s["held"]]
    if module != "orient" and any(s["held"] for s in d["seats"]):
        raise PositionError("held nobles: only a game with the Orient has them")
    for what, ids in places:
        for nb in ids:
            if not isinstance(nb, int) or not 0 <= nb < len(NOBLES):
                raise PositionError(f"nobles ({what}): {short(nb)} is not a noble id (0-{len(NOBLES) - 1})")
            if nb in owner:
                raise PositionError(f"noble {nb} is in two places: {owner[nb]} and {what}")
            owner[nb] = what
    want = 0 if module == "cities" else n + 1
    if len(owner) != want:
        raise PositionError(f"nobles: {len(owner)} in play, a {n}-player game has {want}"
                            + (" (a Cities game has no nobles)" if module == "cities" else ""))
    _check_jokers(d, module)
    for i, s in enumerate(d["seats"]):
        bonus = bonuses(s["cards"], s["jokers"])
        s_bonus = bonus
        if module == "orient":
            continue  # cards can be discarded: a noble received may no longer be met
        for nb in s["nobles"]:
            if any(b < r for b, r in zip(s_bonus, NOBLES[nb].requirement)):
                raise PositionError(f"seat {i}: has noble {nb} without meeting its requirement")
    _check_cities(d, module)
    _check_posts(d, module)
    _check_strongholds(d, module)
    if not (0 <= d["to_move"] < n and 0 <= d["first"] < n):
        raise PositionError(f"status: seats are 0-{n - 1}")
    if d["turn"] < 0 or (d["first"] + d["turn"]) % n != d["to_move"]:
        raise PositionError(f"status: turn {d['turn']} from first player {d['first']} puts seat "
                            f"{(d['first'] + d['turn']) % n} to move, not {d['to_move']}")
    if d["turn"] > d["cap"] * n:
        raise PositionError(f"status: turn {d['turn']} is past the cap ({d['cap']} rounds of {n} turns)")
    if not 0 <= d["passes"] <= min(n, d["turn"]):
        raise PositionError(f"status: {d['passes']} consecutive passes is impossible here")
    _check_step(d, module)
    d["phase"] = 0
    if d["final"] and d["turn"] > 0 and d["to_move"] == d["first"]:
        d["over"] = END_POINTS
    elif d["passes"] >= n and not d["final"]:   # a triggered end is played out (docs/RULES.md)
        d["over"] = END_STALEMATE
    elif d["turn"] >= d["cap"] * n:
        d["over"] = END_CAP
    else:
        d["over"] = END_NONE
    return d


def _check_step(d: dict, module: str | None) -> None:
    """A position in the middle of a two-step turn (docs/RULES.md, "Two-step turns"): the mover
    has just bought that card from the market in a Strongholds game, so no pass in a row, and the
    game goes on."""
    card = d["step"]
    if card is None:
        return
    if module != "strongholds":
        raise PositionError(f"status: /b{card} (the middle of a two-step turn) is only in a Strongholds game")
    if card not in d["seats"][d["to_move"]]["cards"]:
        raise PositionError(f"status: /b{card}: card {card} is not one of seat {d['to_move']}'s cards")
    if d["passes"]:
        raise PositionError(f"status: /b{card}: a turn that bought a card follows no pass in a row")
    if ((d["final"] and d["turn"] > 0 and d["to_move"] == d["first"]) or d["turn"] >= d["cap"] * d["players"]):
        raise PositionError(f"status: /b{card}: the game is over, no turn is under way")


def _check_jokers(d: dict, module: str | None) -> None:
    for i, s in enumerate(d["seats"]):
        if s["jokers"] and module != "orient":
            raise PositionError(f"seat {i} jokers: only a game with the Orient has them")
        seen = set()
        for card, col in s["jokers"]:
            if card not in JOKERS:
                raise PositionError(f"seat {i} jokers: card {card} is not a joker card ({sorted(JOKERS)})")
            if card in seen:
                raise PositionError(f"seat {i} jokers: card {card} is listed twice")
            if card not in s["cards"]:
                raise PositionError(f"seat {i} jokers: card {card} is not one of the seat's cards")
            if not 0 <= col < 5:
                raise PositionError(f"seat {i} jokers: colour {short(col)} of card {card} is not 0-4")
            seen.add(card)
        missing = sorted(c for c in s["cards"] if c in JOKERS and c not in seen)
        if missing:
            raise PositionError(f"seat {i} jokers: joker card {missing[0]} has no colour (a joker joins a colour "
                                f"when acquired)")


def _check_cities(d: dict, module: str | None) -> None:
    claimed = [c for s in d["seats"] for c in s["cities"]]
    if module != "cities":
        if d["cities"] or claimed:
            raise PositionError("cities: only a game with the Cities has them")
        return
    every = list(d["cities"]) + claimed
    for c in every:
        if not isinstance(c, int) or not 0 <= c < len(CITIES):
            raise PositionError(f"cities: {short(c)} is not a city id (0-{len(CITIES) - 1})")
    if len(set(every)) != len(every):
        raise PositionError("cities: a city is in two places")
    tiles = [CITIES[c].tile for c in every]
    if len(set(tiles)) != len(tiles):
        raise PositionError("cities: both sides of one tile are in play")
    if len(every) != NCITY_UP:
        raise PositionError(f"cities: {len(every)} in play (face up and claimed), a game has {NCITY_UP}")
    for i, s in enumerate(d["seats"]):
        bonus, points = bonuses(s["cards"]), seat_points(s)
        for c in s["cities"]:
            if not city_met(c, bonus, points):
                raise PositionError(f"seat {i}: has city {c} without meeting its requirement")
    if bool(claimed) != bool(d["final"]):
        raise PositionError("status: in a Cities game the final round starts with the first city claimed"
                            + (", and none is" if d["final"] else f", and city {claimed[0]} is"))


def _check_posts(d: dict, module: str | None) -> None:
    for i, s in enumerate(d["seats"]):
        if s["posts"] and module != "posts":
            raise PositionError(f"seat {i} posts: only a game with the Trading Posts has them")
        for p in s["posts"]:
            if not isinstance(p, int) or not 0 <= p < len(POSTS):
                raise PositionError(f"seat {i} posts: {short(p)} is not a power (0-{len(POSTS) - 1})")
        if len(set(s["posts"])) != len(s["posts"]):
            raise PositionError(f"seat {i} posts: a power is listed twice")
        if module != "posts":
            continue
        bonus = bonuses(s["cards"])
        for p in range(len(POSTS)):
            met = post_met(p, bonus, len(s["nobles"]))
            if p in s["posts"] and not met:
                raise PositionError(f"seat {i} posts: holds power {p} without meeting its requirement")
            if met and p not in s["posts"]:
                raise PositionError(f"seat {i} posts: meets power {p}'s requirement but does not hold it (powers "
                                    f"met are claimed at the end of the turn)")


def _check_strongholds(d: dict, module: str | None) -> None:
    n = d["players"]
    on_board = [0] * n
    for lv in range(NLEV):
        for sl in range(NSLOT):
            e = d["strongholds"][lv][sl]
            if e is None:
                continue
            if module != "strongholds":
                raise PositionError("strongholds: only a game with the Strongholds has them")
            seat, count = e
            if not 0 <= seat < n:
                raise PositionError(f"strongholds: seat {seat} on card {d['market'][lv][sl]} is not 0-{n - 1}")
            on_board[seat] += count
    for i, s in enumerate(d["seats"]):
        if module != "strongholds":
            if s["sh_hand"]:
                raise PositionError(f"seat {i} strongholds: only a game with the Strongholds has them")
            continue
        if not 0 <= s["sh_hand"] <= NSTRONG:
            raise PositionError(f"seat {i} strongholds: {s['sh_hand']} in hand, expected 0-{NSTRONG}")
        if s["sh_hand"] + on_board[i] != NSTRONG:
            raise PositionError(f"seat {i} strongholds: {s['sh_hand']} in hand and {on_board[i]} on the board, "
                                f"a player has {NSTRONG}")

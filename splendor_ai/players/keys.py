"""Context-free action keys of the search trees (ext/splendor_ai/_engine.pxd) <-> move notation.

Ids below KEY_RESERVE are their own key, except the market-slot ids, which are keyed by the card
(KEY_RESERVE, KEY_BUY, KEY_FREE, KEY_SH_* + card id); see docs/MODULES.md "Engine layout".
"""
from __future__ import annotations

from .._engine import (A_BASE_END, A_CITY, A_CONQUER, A_DECLINE, A_FREE, A_GEM, A_HOLD, A_JOKER, A_NOBLE, A_PASS,
                       A_RES_DECK, A_RES_SLOT, A_RETURN, A_SACRIFICE, A_TAKE1, A_TAKE2D, A_TAKE2S, KEY_BUY, KEY_FREE,
                       KEY_RESERVE, KEY_SH_FROM, KEY_SH_PLACE, KEY_SH_REMOVE, KEY_SH_TO, NCARDS, NKEYS, NLEV)
from ..cards import LETTERS
from ..move import (BUY, CITY, CONQUER, DISCARD, FREE, GEM, HOLD, JOKER, NOBLE, PLACE, REMOVE, RESERVE,
                    RESERVE_DECK, RETURN, SH_MOVE, TAKE, DecisionTag, Move)
from ..state import TAKE2, TAKE3


def is_decision(key: int) -> bool:
    """A decision after the main action (returns, noble, the module decisions, a conquest):
    part of the same turn as the main action before it."""
    return A_RETURN <= key < KEY_RESERVE or KEY_FREE <= key < NKEYS


def main_key(move: Move) -> int:
    if move.kind == TAKE:
        g = move.gems
        if len(g) == 3:
            return TAKE3.index(g)
        if len(g) == 2 and g[0] == g[1]:
            return A_TAKE2S + g[0]
        if len(g) == 2:
            return A_TAKE2D + TAKE2.index(g)
        return A_TAKE1 + g[0]
    if move.kind == RESERVE:
        assert move.card is not None   # a reserve or buy names its card, a blind reserve its level
        return KEY_RESERVE + move.card
    if move.kind == RESERVE_DECK:
        assert move.level is not None
        return A_RES_DECK + move.level - 1 + (NLEV if move.orient else 0)
    if move.kind == BUY:
        assert move.card is not None
        return KEY_BUY + move.card
    return A_PASS


def _decision_keys(tag: DecisionTag, value) -> list[int]:
    if tag == RETURN:
        return [A_RETURN + c for c in value]
    if tag == JOKER:
        return [A_JOKER + value]
    if tag == HOLD:
        return [A_HOLD + value]
    if tag == FREE:
        return [KEY_FREE + value]
    if tag == DISCARD:
        return [A_SACRIFICE + value]
    if tag == PLACE:
        return [KEY_SH_PLACE + value]
    if tag == SH_MOVE:
        return [KEY_SH_FROM + value[0], KEY_SH_TO + value[1]]
    if tag == REMOVE:
        return [KEY_SH_REMOVE + value]
    if tag == CONQUER:
        return [A_CONQUER]
    if tag == GEM:
        return [A_GEM + value]
    raise ValueError(tag)


def move_keys(move: Move) -> tuple[list[int], int | None]:
    """The keys of a move's main action and of its decisions, and the noble key (which is a tree
    key only when the noble was a choice among several). A city claim is a tree key only when
    it was a choice too; it is left out here (tree reuse then falls back to a fresh tree), as is
    a declined conquest, which leaves no trace in the notation."""
    keys = [main_key(move)]
    for tag, value in move.decisions:
        if tag not in (NOBLE, CITY):
            keys += _decision_keys(tag, value)
    return keys, (A_NOBLE + move.noble if move.noble is not None else None)


def fragment(key: int) -> str:
    """The notation of one key: a main action or a decision token (a return key gives its letter,
    a stronghold pick-up `m<card>:` and its destination `<card>`, a declined conquest '')."""
    if key < A_TAKE2D:
        return "+" + "".join(LETTERS[c] for c in TAKE3[key])
    if key < A_TAKE1:
        return "+" + "".join(LETTERS[c] for c in TAKE2[key - A_TAKE2D])
    if key < A_TAKE2S:
        return "+" + LETTERS[key - A_TAKE1]
    if key < A_RES_SLOT:
        return "+" + LETTERS[key - A_TAKE2S] * 2
    if A_RES_DECK <= key < A_RES_DECK + 2 * NLEV:
        deck = key - A_RES_DECK
        return f"r{'O' if deck >= NLEV else 'L'}{deck % NLEV + 1}"
    if key == A_PASS:
        return "pass"
    if A_RETURN <= key < A_NOBLE:
        return LETTERS[key - A_RETURN]
    if A_NOBLE <= key < A_BASE_END:
        return f"n{key - A_NOBLE}"
    if A_JOKER <= key < A_HOLD:
        return f"j{LETTERS[key - A_JOKER]}"
    if A_HOLD <= key < A_FREE:
        return f"h{key - A_HOLD}"
    if A_SACRIFICE <= key < A_SACRIFICE + NCARDS:
        return f"d{key - A_SACRIFICE}"
    if key == A_CONQUER:
        return "b?"
    if key == A_DECLINE:
        return ""
    if A_GEM <= key < A_CITY:
        return f"+{LETTERS[key - A_GEM]}"
    if A_CITY <= key < KEY_RESERVE:
        return f"c{key - A_CITY}"
    if KEY_RESERVE <= key < KEY_BUY:
        return f"r{key - KEY_RESERVE}"
    if KEY_BUY <= key < KEY_FREE:
        return f"b{key - KEY_BUY}"
    if KEY_FREE <= key < KEY_SH_PLACE:
        return f"f{key - KEY_FREE}"
    if KEY_SH_PLACE <= key < KEY_SH_FROM:
        return f"t{key - KEY_SH_PLACE}"
    if KEY_SH_FROM <= key < KEY_SH_TO:
        return f"m{key - KEY_SH_FROM}:"
    if KEY_SH_TO <= key < KEY_SH_REMOVE:
        return f"{key - KEY_SH_TO}"
    if KEY_SH_REMOVE <= key < NKEYS:
        return f"x{key - KEY_SH_REMOVE}"
    raise ValueError(f"{key} is not an action key")


def line_to_moves(keys: list[int]) -> list[str]:
    """Group a line of keys into whole turns in move notation. Automatic noble visits and city
    claims, which are not choices, do not appear in search lines. A conquest is keyed without
    its card, so it reads `b?` here (the card is the one holding the mover's 3 strongholds)."""
    turns: list[list[int]] = []
    for k in keys:
        if is_decision(k) and turns:
            turns[-1].append(k)
        else:
            turns.append([k])
    out = []
    for t in turns:
        parts = [fragment(t[0])]
        returns = ""
        tail: list[str] = []   # the noble and the city come after the returns
        for k in t[1:]:
            f = fragment(k)
            if A_RETURN <= k < A_NOBLE:
                returns += f
            elif A_NOBLE <= k < A_BASE_END or A_CITY <= k < KEY_RESERVE:
                tail.append(f)
            elif KEY_SH_TO <= k < KEY_SH_REMOVE and parts[-1].endswith(":"):
                parts[-1] += f
            elif f:
                parts.append(f)
        if returns:
            parts.append("-" + returns)
        out.append("/".join(parts + tail))
    return out

"""Context-free action keys of the search trees (ext/splendor_ai/_engine.pxd) <-> move notation."""
from __future__ import annotations

from itertools import combinations

from ..cards import LETTERS
from ..move import BUY, RESERVE, RESERVE_DECK, TAKE, Move

A_TAKE2D, A_TAKE1, A_TAKE2S, A_RES_DECK, A_PASS, A_RETURN, A_NOBLE, A_BASE_END = 10, 20, 25, 48, 75, 76, 82, 92
KEY_RESERVE, KEY_BUY = 338, 458  # mirrors ext/splendor_ai/_engine.pxd
TAKE3 = list(combinations(range(5), 3))
TAKE2 = list(combinations(range(5), 2))


def is_decision(key: int) -> bool:
    """A return or noble choice: part of the same turn as the main action before it."""
    return A_RETURN <= key < A_BASE_END


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
        return KEY_RESERVE + move.card
    if move.kind == RESERVE_DECK:
        return A_RES_DECK + move.level - 1
    if move.kind == BUY:
        return KEY_BUY + move.card
    return A_PASS


def move_keys(move: Move) -> tuple[list[int], int | None]:
    """The keys of a move's main action and returns, and the noble key (which is a tree key only
    when the noble was a choice among several)."""
    keys = [main_key(move)] + [A_RETURN + c for c in move.returns]
    return keys, (A_NOBLE + move.noble if move.noble is not None else None)


def fragment(key: int) -> str:
    if key < A_TAKE2D:
        return "+" + "".join(LETTERS[c] for c in TAKE3[key])
    if key < A_TAKE1:
        return "+" + "".join(LETTERS[c] for c in TAKE2[key - A_TAKE2D])
    if key < A_TAKE2S:
        return "+" + LETTERS[key - A_TAKE1]
    if key < 30:
        return "+" + LETTERS[key - A_TAKE2S] * 2
    if A_RES_DECK <= key < A_RES_DECK + 3:
        return f"rL{key - A_RES_DECK + 1}"
    if key == A_PASS:
        return "pass"
    if A_RETURN <= key < A_NOBLE:
        return LETTERS[key - A_RETURN]
    if A_NOBLE <= key < A_BASE_END:
        return f"n{key - A_NOBLE}"
    if KEY_RESERVE <= key < KEY_BUY:
        return f"r{key - KEY_RESERVE}"
    return f"b{key - KEY_BUY}"


def line_to_moves(keys: list[int]) -> list[str]:
    """Group a line of keys into whole turns in move notation (automatic noble visits, which are
    not choices, do not appear in search lines)."""
    turns: list[list[int]] = []
    for k in keys:
        if is_decision(k) and turns:
            turns[-1].append(k)
        else:
            turns.append([k])
    out = []
    for t in turns:
        s = fragment(t[0])
        rets = "".join(fragment(k) for k in t[1:] if k < A_NOBLE)
        if rets:
            s += "/-" + rets
        nob = [fragment(k) for k in t[1:] if k >= A_NOBLE]
        if nob:
            s += "/" + nob[0]
        out.append(s)
    return out

"""The plain-English sentences of State.describe, one move of each kind, on hand-made positions."""
import pytest

from handmade import seat, spn
from splendor_ai import IllegalMoveError, Move, State

# seat 0: bonuses 4w 3b 4g, 3 black tokens; buying card 14 meets nobles 0 and 1 (see test_rules.py)
TWO_NOBLES = spn(seats=[seat("000030", cards=[0, 1, 2, 3, 8, 9, 10, 16, 17, 18, 19])], nobles=[0, 1, 3],
                 market=[[14, 22, 29, 38], [43, 44, 58, 62], [72, 84, 88, 89]])
# seat 0: 10 tokens, the bank has one white, one blue, one green and 5 gold
THIRTEEN = spn(seats=[seat("220330"), seat("113110")], market=[[0, 1, 2, 4], [41, 42, 43, 44], [71, 72, 73, 75]])
# seat 0 owns every white and blue level-3 card (bonuses 4w 4b) and holds 4 red + 3 gold
RICH = spn(seats=[seat("000403", cards=range(70, 78)), seat(cards=range(78, 86))],
           market=[None, None, [86, 87, 88, 89]], nobles=[1, 3, 4])
# seat 0: 4w 4b 2g, 3 reserved, nothing to take or buy; its bonuses (4b 4g) meet noble 1
PASS = spn(seats=[seat("442000", cards=[8, 9, 10, 11, 16, 17, 18, 19], reserved=[6, 15, 23]), seat("002440")],
           market=[[14, 22, 29, 38], [43, 44, 58, 62], [72, 84, 88, 89]], nobles=[1, 3, 4])


@pytest.mark.parametrize("position, move, sentence", [
    (TWO_NOBLES, "+wbg", "Player 1 takes white, blue and green gems."),
    (TWO_NOBLES, "+ww", "Player 1 takes two white gems."),
    (TWO_NOBLES, "r22", "Player 1 reserves card #22 (level 1, green bonus) and takes a gold token."),
    (TWO_NOBLES, "r72", "Player 1 reserves card #72 (level 3, white bonus, 4 points) and takes a gold token."),
    (TWO_NOBLES, "rL3", "Player 1 reserves the top card of the level-3 deck and takes a gold token."),
    (TWO_NOBLES, "b14/n0", "Player 1 buys card #14 (level 1, blue bonus), paying 3 black, and is visited by "
                           "noble 0 (4 white and 4 blue bonuses, 3 points)."),
    (TWO_NOBLES, "b14/n1", "Player 1 buys card #14 (level 1, blue bonus), paying 3 black, and is visited by "
                           "noble 1 (4 blue and 4 green bonuses, 3 points)."),
    (spn(seats=[seat("002440"), seat("022000")], to_move=1), "+w", "Player 2 takes a white gem."),
    (spn(seats=[seat("002440"), seat("022000")], to_move=1), "+wb", "Player 2 takes white and blue gems."),
    (spn(seats=[seat("000140"), seat("124300")]), "b1", None),   # not legal: raises
    (THIRTEEN, "+wbg/-rrk", "Player 1 takes white, blue and green gems, then returns 2 red and 1 black."),
    (THIRTEEN, "r0/-y", "Player 1 reserves card #0 (level 1, white bonus) and takes a gold token, "
                        "then returns 1 gold."),
    (spn(seats=[seat(), seat("000005")]), "r1",
     "Player 1 reserves card #1 (level 1, white bonus); no gold is left to take."),
    (spn(seats=[seat(), seat("000005")]), "rL2",
     "Player 1 reserves the top card of the level-2 deck; no gold is left to take."),
    (spn(seats=[seat("110202", cards=[1])]), "b0",
     "Player 1 buys card #0 (level 1, white bonus), paying 1 white, 1 blue and 2 gold."),
    (spn(seats=[seat("030030", reserved=[1, "*14"])]), "b1",
     "Player 1 buys card #1 (level 1, white bonus) from their hand, paying 3 blue."),
    (spn(seats=[seat("030030", reserved=[1, "*14"])]), "b14",
     "Player 1 buys card #14 (level 1, blue bonus) from their hand, paying 3 black."),
    (RICH, "b1", "Player 1 buys card #1 (level 1, white bonus), paying nothing (their bonuses cover the cost)."),
    (RICH, "b88", "Player 1 buys card #88 (level 3, black bonus, 4 points), paying 4 red and 3 gold."),
    (RICH, "b40", "Player 1 buys card #40 (level 2, white bonus, 1 point), paying 3 red."),
    (PASS, "pass/n1", "Player 1 passes (no legal action), and is visited by noble 1 (4 blue and 4 green "
                      "bonuses, 3 points)."),
    (spn(3, seats=[seat(), seat(), seat("000030", cards=[0, 1, 2, 3, 8, 9, 10, 16, 17, 18, 19])],
         nobles=[0, 3, 4, 8], market=[[14, 22, 29, 38], None, None], to_move=2), "b14",
     "Player 3 buys card #14 (level 1, blue bonus), paying 3 black, and is visited by noble 0 (4 white and "
     "4 blue bonuses, 3 points)."),
])
def test_describe(position, move, sentence):
    st = State(position)
    if sentence is None:
        with pytest.raises(IllegalMoveError):
            st.describe(move)
        return
    assert st.describe(move) == sentence
    played = st.parse_move(move)
    assert st.describe(played) == sentence          # a Move describes the same as its text
    assert st.view(st.to_move).describe(move) == sentence   # the mover's view knows the same
    assert st.position() == position                # describing plays nothing


def test_describe_rejects_ambiguous_and_illegal_moves():
    st = State(TWO_NOBLES)
    with pytest.raises(IllegalMoveError, match="the noble must be one of n0, n1"):
        st.describe("b14")
    with pytest.raises(IllegalMoveError, match="not legal"):
        st.describe(Move.parse("b0"))

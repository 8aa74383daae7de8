"""A plain-Python reference model of the base Splendor rules.

This is a deliberately simple, independent second implementation of the rules in
/work/shared/RULES.md (base game only) and of the notation in docs/NOTATION.md
(version 1).  The compiled engine is compared against it move for move
(differential testing), so it shares no code with the ``splendor_ai`` package and
uses only the standard library.  Readability comes first; speed is secondary.

Choices made where NOTATION.md / the brief leave room (keep them in sync with the
engine, or change them here if the project decides otherwise):

* Only *true* positions are read (no ``?`` anywhere); a public position raises
  ValueError.  Only base-game card ids 0..89 are accepted.
* In a true position every one of the 90 base cards must appear exactly once
  (market, deck, a reserved hand or a bought pile): base Splendor never removes a
  card from the game.  Face-up nobles plus received nobles must number exactly
  players + 1 ("noble count consistent with setup").
* Number fields must be written canonically: no leading zeros, bought cards and
  nobles strictly increasing.  The only non-canonical input accepted is an explicit
  ``cap=100`` in the players field; ``position()`` then omits it (default).
* ``to_move`` is NOT checked against ``(first_player + turn) % players`` and the
  ``final`` flag is not checked against the players' points: NOTATION.md does not
  list these checks.
* The end-of-turn noble visit happens after every turn, a pass included, so
  ``pass/n3`` is a possible move (a player who met two nobles at once keeps
  meeting the second one).  Such a move still counts as a pass for ``passes``.
* A return decision may give back any tokens held after the action, including
  ones just taken (so ``+wbg/-wbg`` is a legal move when it applies).
* ``result()`` raises ValueError while the game is not over.
"""

import csv
import itertools
import os
import random
import re

# ---------------------------------------------------------------------------
# Constants and data tables
# ---------------------------------------------------------------------------

COLOUR_LETTERS = "wbgrky"          # white, blue, green, red, black, gold
GEM_COLOURS = 5                    # the first five letters are gem colours
GOLD = 5                           # index of gold in a token list
TOKEN_LIMIT = 10
RESERVE_LIMIT = 3
WINNING_POINTS = 15
DEFAULT_CAP = 100
GEMS_PER_COLOUR = {2: 4, 3: 5, 4: 7}
GOLD_SUPPLY = 5
MARKET_SLOTS = 4
LEVELS = 3


def _find_data_dir():
    """Return the folder holding base_cards.csv / base_nobles.csv."""
    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    package_data = os.path.join(repo_root, "splendor_ai", "data")
    if (os.path.isfile(os.path.join(package_data, "base_cards.csv"))
            and os.path.isfile(os.path.join(package_data, "base_nobles.csv"))):
        return package_data
    return "/work/shared/data"


class Card:
    """One development card: id, level (1-3), bonus colour index, points, cost (5 gems)."""

    def __init__(self, card_id, level, bonus, points, cost):
        self.id = card_id
        self.level = level
        self.bonus = bonus
        self.points = points
        self.cost = cost

    def __repr__(self):
        return "Card(%d, L%d, %s, %dpt, cost=%s)" % (
            self.id, self.level, COLOUR_LETTERS[self.bonus], self.points, self.cost)


class Noble:
    """One noble tile: id, points and the bonuses it requires (5 colours)."""

    def __init__(self, noble_id, points, requirement):
        self.id = noble_id
        self.points = points
        self.requirement = requirement

    def __repr__(self):
        return "Noble(%d, %dpt, needs=%s)" % (self.id, self.points, self.requirement)


COLOUR_NAMES = ["white", "blue", "green", "red", "black"]


def _load_cards(data_dir):
    """Read base_cards.csv; the card id is the 0-based row index."""
    cards = []
    with open(os.path.join(data_dir, "base_cards.csv"), newline="") as handle:
        for row in csv.DictReader(handle):
            cost = [int(row[name]) for name in COLOUR_NAMES]
            card = Card(len(cards), int(row["level"]), COLOUR_NAMES.index(row["bonus"]),
                        int(row["points"]), cost)
            cards.append(card)
    return cards


def _load_nobles(data_dir):
    """Read base_nobles.csv; the noble id is the 0-based row index."""
    nobles = []
    with open(os.path.join(data_dir, "base_nobles.csv"), newline="") as handle:
        for row in csv.DictReader(handle):
            requirement = [int(row[name]) for name in COLOUR_NAMES]
            nobles.append(Noble(len(nobles), int(row["points"]), requirement))
    return nobles


DATA_DIR = _find_data_dir()
CARDS = _load_cards(DATA_DIR)
NOBLES = _load_nobles(DATA_DIR)
assert len(CARDS) == 90 and len(NOBLES) == 10


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

_NUMBER = re.compile(r"(0|[1-9][0-9]*)\Z")


def _parse_number(text, field):
    """Parse a canonical non-negative integer (no sign, no leading zeros)."""
    if not _NUMBER.match(text):
        raise ValueError("%s: %r is not a number" % (field, text))
    return int(text)


def _parse_tokens(text, field):
    """Parse six digits in wbgrky order into a list of 6 counts."""
    if len(text) != 6 or not text.isdigit() or not text.isascii():
        raise ValueError("%s: %r is not six digits" % (field, text))
    return [int(char) for char in text]


def _format_tokens(tokens):
    """Six digits in wbgrky order."""
    return "".join(str(count) for count in tokens)


def _parse_id_list(text, field, separator, limit):
    """Parse '-' or ids joined by separator, each in range(limit)."""
    if text == "-":
        return []
    ids = []
    for part in text.split(separator):
        number = _parse_number(part, field)
        if number >= limit:
            raise ValueError("%s: id %d out of range" % (field, number))
        ids.append(number)
    return ids


def _parse_increasing_ids(text, field, limit):
    """Parse '-' or a strictly increasing ','-separated id list."""
    ids = _parse_id_list(text, field, ",", limit)
    for index in range(1, len(ids)):
        if ids[index] <= ids[index - 1]:
            raise ValueError("%s: ids must be strictly increasing" % field)
    return ids


def _format_id_list(ids, separator=","):
    """'-' for an empty list, else the ids joined by separator."""
    if not ids:
        return "-"
    return separator.join(str(number) for number in ids)


def _token_multisets(holdings, size):
    """All ways to pick `size` tokens from `holdings` (6 counts), as letter strings.

    Letters come in wbgrky order with repeats, e.g. 'kk' or 'wy'.
    """
    results = []

    def pick(colour, remaining, chosen):
        if remaining == 0:
            results.append(chosen)
            return
        if colour == len(holdings):
            return
        most = min(remaining, holdings[colour])
        for count in range(most, -1, -1):
            pick(colour + 1, remaining - count, chosen + COLOUR_LETTERS[colour] * count)

    pick(0, size, "")
    return results


# ---------------------------------------------------------------------------
# Players and the game model
# ---------------------------------------------------------------------------

class Seat:
    """One player's belongings."""

    def __init__(self):
        self.tokens = [0] * 6            # wbgrky
        self.cards = []                  # bought card ids, kept increasing
        self.reserved = []               # [card_id, blind] pairs, in reservation order
        self.nobles = []                 # received noble ids, kept increasing

    def copy(self):
        """An independent copy of this seat."""
        other = Seat()
        other.tokens = list(self.tokens)
        other.cards = list(self.cards)
        other.reserved = [list(entry) for entry in self.reserved]
        other.nobles = list(self.nobles)
        return other

    def bonuses(self):
        """Count of bought cards per gem colour."""
        counts = [0] * GEM_COLOURS
        for card_id in self.cards:
            counts[CARDS[card_id].bonus] += 1
        return counts

    def points(self):
        """Prestige: bought cards' points plus the nobles' points (3 each)."""
        total = 0
        for card_id in self.cards:
            total += CARDS[card_id].points
        for noble_id in self.nobles:
            total += NOBLES[noble_id].points
        return total

    def reserved_ids(self):
        """The reserved card ids in order."""
        return [entry[0] for entry in self.reserved]


class Model:
    """The base Splendor game state with the rules needed to play it turn by turn."""

    def __init__(self):
        """An empty shell; use Model.new or Model.from_position."""
        self.players = 2
        self.cap = DEFAULT_CAP
        self.bank = [0] * 6
        self.market = [[None] * MARKET_SLOTS for _ in range(LEVELS)]
        self.decks = [[] for _ in range(LEVELS)]      # top card first
        self.nobles = []                              # face-up noble ids, increasing
        self.to_move = 0
        self.first_player = 0
        self.turn = 0
        self.final = 0
        self.passes = 0
        self.seats = []

    # ----- construction ---------------------------------------------------

    @classmethod
    def new(cls, players, seed, first_player=0, cap=DEFAULT_CAP):
        """A starting position dealt with random.Random(seed)."""
        if players not in GEMS_PER_COLOUR:
            raise ValueError("players must be 2, 3 or 4")
        if not 0 <= first_player < players:
            raise ValueError("first_player out of range")
        if cap < 1:
            raise ValueError("cap must be positive")
        rng = random.Random(seed)
        model = cls()
        model.players = players
        model.cap = cap
        gems = GEMS_PER_COLOUR[players]
        model.bank = [gems] * GEM_COLOURS + [GOLD_SUPPLY]
        for level in range(1, LEVELS + 1):
            deck = [card.id for card in CARDS if card.level == level]
            rng.shuffle(deck)
            model.market[level - 1] = deck[:MARKET_SLOTS]
            model.decks[level - 1] = deck[MARKET_SLOTS:]
        noble_ids = [noble.id for noble in NOBLES]
        rng.shuffle(noble_ids)
        model.nobles = sorted(noble_ids[:players + 1])
        model.to_move = first_player
        model.first_player = first_player
        model.seats = [Seat() for _ in range(players)]
        return model

    def copy(self):
        """An independent copy of this model."""
        other = Model()
        other.players = self.players
        other.cap = self.cap
        other.bank = list(self.bank)
        other.market = [list(level) for level in self.market]
        other.decks = [list(deck) for deck in self.decks]
        other.nobles = list(self.nobles)
        other.to_move = self.to_move
        other.first_player = self.first_player
        other.turn = self.turn
        other.final = self.final
        other.passes = self.passes
        other.seats = [seat.copy() for seat in self.seats]
        return other

    # ----- position strings -------------------------------------------------

    @classmethod
    def from_position(cls, text):
        """Parse a true position string (NOTATION.md version 1); ValueError if malformed."""
        if not isinstance(text, str):
            raise ValueError("position must be a string")
        if "?" in text:
            raise ValueError("only true positions (no '?') are supported")
        fields = text.split(" ")
        if not fields or fields[0] != "SPN1":
            raise ValueError("tag/version: expected 'SPN1'")
        if len(fields) < 2:
            raise ValueError("field count: missing players field")
        model = cls()
        model._parse_players_field(fields[1])
        if len(fields) != 7 + model.players:
            raise ValueError("field count: expected %d fields, got %d"
                             % (7 + model.players, len(fields)))
        model.bank = _parse_tokens(fields[2], "bank")
        model._parse_market(fields[3])
        model._parse_decks(fields[4])
        model.nobles = _parse_increasing_ids(fields[5], "nobles", len(NOBLES))
        model._parse_status(fields[6])
        model.seats = []
        for seat_index in range(model.players):
            model.seats.append(cls._parse_seat(fields[7 + seat_index], seat_index))
        model._validate()
        return model

    def _parse_players_field(self, text):
        """Read '<players>[:option,...]'; only cap=N is known."""
        if ":" in text:
            count_text, options_text = text.split(":", 1)
            options = options_text.split(",")
        else:
            count_text, options = text, []
        if count_text not in ("2", "3", "4"):
            raise ValueError("players: %r is not 2, 3 or 4" % count_text)
        self.players = int(count_text)
        seen = set()
        for option in options:
            if "=" not in option:
                raise ValueError("players: malformed option %r" % option)
            name, value = option.split("=", 1)
            if name != "cap" or name in seen:
                raise ValueError("players: unknown or repeated option %r" % option)
            seen.add(name)
            self.cap = _parse_number(value, "players: cap")
            if self.cap < 1:
                raise ValueError("players: cap must be positive")

    def _parse_market(self, text):
        """Read three levels of four slots ('-' for an empty slot)."""
        levels = text.split("/")
        if len(levels) != LEVELS:
            raise ValueError("market: expected 3 levels")
        for level_index, level_text in enumerate(levels):
            slots = level_text.split(",")
            if len(slots) != MARKET_SLOTS:
                raise ValueError("market: level %d needs 4 slots" % (level_index + 1))
            row = []
            for slot in slots:
                if slot == "-":
                    row.append(None)
                else:
                    card_id = _parse_number(slot, "market")
                    if card_id >= len(CARDS):
                        raise ValueError("market: card id %d out of range" % card_id)
                    if CARDS[card_id].level != level_index + 1:
                        raise ValueError("market: card %d is not level %d"
                                         % (card_id, level_index + 1))
                    row.append(card_id)
            self.market[level_index] = row

    def _parse_decks(self, text):
        """Read three decks, top card first, ids joined by '.', or '-'."""
        decks = text.split("/")
        if len(decks) != LEVELS:
            raise ValueError("decks: expected 3 decks")
        for level_index, deck_text in enumerate(decks):
            deck = _parse_id_list(deck_text, "decks", ".", len(CARDS))
            for card_id in deck:
                if CARDS[card_id].level != level_index + 1:
                    raise ValueError("decks: card %d is not level %d"
                                     % (card_id, level_index + 1))
            self.decks[level_index] = deck

    def _parse_status(self, text):
        """Read '<to move>/<first player>/<turn>/<final>/<passes>'."""
        parts = text.split("/")
        if len(parts) != 5:
            raise ValueError("status: expected 5 numbers")
        numbers = [_parse_number(part, "status") for part in parts]
        self.to_move, self.first_player, self.turn, self.final, self.passes = numbers
        if self.to_move >= self.players or self.first_player >= self.players:
            raise ValueError("status: seat out of range")
        if self.final not in (0, 1):
            raise ValueError("status: final must be 0 or 1")

    @staticmethod
    def _parse_seat(text, seat_index):
        """Read '<tokens>:<cards>:<reserved>:<nobles>'."""
        field = "player %d" % seat_index
        parts = text.split(":")
        if len(parts) != 4:
            raise ValueError("%s: expected 4 parts" % field)
        seat = Seat()
        seat.tokens = _parse_tokens(parts[0], field + " tokens")
        seat.cards = _parse_increasing_ids(parts[1], field + " cards", len(CARDS))
        if parts[2] != "-":
            for entry in parts[2].split(","):
                blind = entry.startswith("*")
                number_text = entry[1:] if blind else entry
                card_id = _parse_number(number_text, field + " reserved")
                if card_id >= len(CARDS):
                    raise ValueError("%s reserved: card id %d out of range" % (field, card_id))
                seat.reserved.append([card_id, blind])
        seat.nobles = _parse_increasing_ids(parts[3], field + " nobles", len(NOBLES))
        return seat

    def _validate(self):
        """Check the global consistency rules of NOTATION.md."""
        # Tokens: conservation and the 10-token limit.
        gems = GEMS_PER_COLOUR[self.players]
        supply = [gems] * GEM_COLOURS + [GOLD_SUPPLY]
        for colour in range(6):
            total = self.bank[colour]
            for seat in self.seats:
                total += seat.tokens[colour]
            if total != supply[colour]:
                raise ValueError("bank: %s tokens total %d, expected %d"
                                 % (COLOUR_LETTERS[colour], total, supply[colour]))
        for seat_index, seat in enumerate(self.seats):
            if sum(seat.tokens) > TOKEN_LIMIT:
                raise ValueError("player %d: more than 10 tokens" % seat_index)
            if len(seat.reserved) > RESERVE_LIMIT:
                raise ValueError("player %d: more than 3 reserved cards" % seat_index)
        # Cards: every card exactly once.
        places = {}
        for level_index in range(LEVELS):
            for card_id in self.market[level_index]:
                if card_id is not None:
                    places.setdefault(card_id, []).append("market")
            for card_id in self.decks[level_index]:
                places.setdefault(card_id, []).append("deck")
        for seat_index, seat in enumerate(self.seats):
            for card_id in seat.cards:
                places.setdefault(card_id, []).append("player %d cards" % seat_index)
            for card_id in seat.reserved_ids():
                places.setdefault(card_id, []).append("player %d reserved" % seat_index)
        for card in CARDS:
            where = places.get(card.id, [])
            if len(where) != 1:
                raise ValueError("cards: card %d appears %d times (%s)"
                                 % (card.id, len(where), ", ".join(where) or "nowhere"))
        # Market slots are empty only when their deck is empty.
        for level_index in range(LEVELS):
            if None in self.market[level_index] and self.decks[level_index]:
                raise ValueError("market: empty slot in level %d with a non-empty deck"
                                 % (level_index + 1))
        # Nobles: each in one place, count consistent with setup.
        noble_places = list(self.nobles)
        for seat in self.seats:
            noble_places.extend(seat.nobles)
        if len(set(noble_places)) != len(noble_places):
            raise ValueError("nobles: a noble appears in more than one place")
        if len(noble_places) != self.players + 1:
            raise ValueError("nobles: %d nobles in play, expected %d"
                             % (len(noble_places), self.players + 1))

    def position(self):
        """The canonical true position string."""
        players_field = str(self.players)
        if self.cap != DEFAULT_CAP:
            players_field += ":cap=%d" % self.cap
        market_levels = []
        for row in self.market:
            slots = []
            for card_id in row:
                slots.append("-" if card_id is None else str(card_id))
            market_levels.append(",".join(slots))
        decks = [_format_id_list(deck, ".") for deck in self.decks]
        status = "%d/%d/%d/%d/%d" % (self.to_move, self.first_player, self.turn,
                                     self.final, self.passes)
        fields = ["SPN1", players_field, _format_tokens(self.bank), "/".join(market_levels),
                  "/".join(decks), _format_id_list(self.nobles), status]
        for seat in self.seats:
            reserved = []
            for card_id, blind in seat.reserved:
                reserved.append(("*%d" if blind else "%d") % card_id)
            fields.append("%s:%s:%s:%s" % (
                _format_tokens(seat.tokens),
                _format_id_list(seat.cards),
                ",".join(reserved) if reserved else "-",
                _format_id_list(seat.nobles)))
        return " ".join(fields)

    def __repr__(self):
        return "Model(%r)" % self.position()

    # ----- game over and result ---------------------------------------------

    def _over_reason(self):
        """'points', 'stalemate', 'cap' or None, checked in that order."""
        if self.final == 1 and self.to_move == self.first_player:
            return "points"
        if self.passes >= self.players:
            return "stalemate"
        if self.turn >= self.cap * self.players:
            return "cap"
        return None

    def is_over(self):
        """True when the game has ended (final round done, stalemate or cap)."""
        return self._over_reason() is not None

    def result(self):
        """The outcome of a finished game as a dict (ValueError if not over)."""
        reason = self._over_reason()
        if reason is None:
            raise ValueError("the game is not over")
        points = [seat.points() for seat in self.seats]
        cards = [len(seat.cards) for seat in self.seats]
        ranks = []
        for seat_index in range(self.players):
            better = 0
            for other in range(self.players):
                if (-points[other], cards[other]) < (-points[seat_index], cards[seat_index]):
                    better += 1
            ranks.append(better + 1)
        winners = []
        if reason == "points":
            winners = [seat_index for seat_index in range(self.players) if ranks[seat_index] == 1]
        return {"reason": reason, "points": points, "cards": cards,
                "ranks": ranks, "winners": winners}

    # ----- rule helpers -----------------------------------------------------

    def _missing_gold(self, seat, card_id):
        """Gold needed to buy card_id: sum of max(0, cost - bonus - tokens)."""
        bonuses = seat.bonuses()
        card = CARDS[card_id]
        missing = 0
        for colour in range(GEM_COLOURS):
            missing += max(0, card.cost[colour] - bonuses[colour] - seat.tokens[colour])
        return missing

    def _can_afford(self, seat, card_id):
        """True if the seat can pay for card_id (gold covers the shortfall)."""
        return self._missing_gold(seat, card_id) <= seat.tokens[GOLD]

    def _payment(self, seat, card_id):
        """Tokens paid (6 counts): coloured gems first, gold for the rest."""
        bonuses = seat.bonuses()
        card = CARDS[card_id]
        paid = [0] * 6
        for colour in range(GEM_COLOURS):
            need = max(0, card.cost[colour] - bonuses[colour])
            from_gems = min(need, seat.tokens[colour])
            paid[colour] = from_gems
            paid[GOLD] += need - from_gems
        return paid

    def _market_card_ids(self):
        """Face-up market card ids, level 1 first, left to right."""
        ids = []
        for row in self.market:
            for card_id in row:
                if card_id is not None:
                    ids.append(card_id)
        return ids

    def _main_actions(self):
        """All legal main actions (without decisions) for the player to move."""
        seat = self.seats[self.to_move]
        actions = []
        # Take different colours.
        available = [colour for colour in range(GEM_COLOURS) if self.bank[colour] > 0]
        if len(available) >= 3:
            sizes = [3]
        else:
            sizes = list(range(1, len(available) + 1))
        for size in sizes:
            for combo in itertools.combinations(available, size):
                actions.append("+" + "".join(COLOUR_LETTERS[colour] for colour in combo))
        # Take two of one colour.
        for colour in range(GEM_COLOURS):
            if self.bank[colour] >= 4:
                actions.append("+" + COLOUR_LETTERS[colour] * 2)
        # Reserve.
        if len(seat.reserved) < RESERVE_LIMIT:
            for card_id in self._market_card_ids():
                actions.append("r%d" % card_id)
            for level_index in range(LEVELS):
                if self.decks[level_index]:
                    actions.append("rL%d" % (level_index + 1))
        # Buy from the market or from the hand.
        for card_id in self._market_card_ids() + seat.reserved_ids():
            if self._can_afford(seat, card_id):
                actions.append("b%d" % card_id)
        return actions

    def _after_action(self, action):
        """(tokens, bonuses) of the mover right after `action`, without changing the model."""
        seat = self.seats[self.to_move]
        tokens = list(seat.tokens)
        bonuses = seat.bonuses()
        if action.startswith("+"):
            for letter in action[1:]:
                tokens[COLOUR_LETTERS.index(letter)] += 1
        elif action.startswith("r"):
            if self.bank[GOLD] > 0:
                tokens[GOLD] += 1
        elif action.startswith("b"):
            card_id = int(action[1:])
            paid = self._payment(seat, card_id)
            for colour in range(6):
                tokens[colour] -= paid[colour]
            bonuses[CARDS[card_id].bonus] += 1
        return tokens, bonuses

    def _met_nobles(self, bonuses):
        """Face-up noble ids whose requirement these bonuses meet."""
        met = []
        for noble_id in self.nobles:
            requirement = NOBLES[noble_id].requirement
            if all(bonuses[colour] >= requirement[colour] for colour in range(GEM_COLOURS)):
                met.append(noble_id)
        return met

    # ----- moves ------------------------------------------------------------

    def legal_moves(self):
        """The set of all legal whole turns in canonical notation (empty when over)."""
        if self.is_over():
            return set()
        actions = self._main_actions()
        if not actions:
            actions = ["pass"]
        moves = set()
        for action in actions:
            tokens, bonuses = self._after_action(action)
            excess = sum(tokens) - TOKEN_LIMIT
            if excess > 0:
                return_parts = ["/-" + letters for letters in _token_multisets(tokens, excess)]
            else:
                return_parts = [""]
            met = self._met_nobles(bonuses)
            if met:
                noble_parts = ["/n%d" % noble_id for noble_id in met]
            else:
                noble_parts = [""]
            for return_part in return_parts:
                for noble_part in noble_parts:
                    moves.add(action + return_part + noble_part)
        return moves

    def apply(self, move):
        """Play one legal whole turn (ValueError if the move is not legal here)."""
        if move not in self.legal_moves():
            raise ValueError("illegal move %r in %s" % (move, self.position()))
        parts = move.split("/")
        action = parts[0]
        returns = ""
        noble_id = None
        for decision in parts[1:]:
            if decision.startswith("-"):
                returns = decision[1:]
            else:
                noble_id = int(decision[1:])
        mover = self.seats[self.to_move]

        # 1. The main action.
        if action == "pass":
            pass
        elif action.startswith("+"):
            for letter in action[1:]:
                colour = COLOUR_LETTERS.index(letter)
                self.bank[colour] -= 1
                mover.tokens[colour] += 1
        elif action.startswith("rL"):
            level_index = int(action[2:]) - 1
            card_id = self.decks[level_index].pop(0)
            mover.reserved.append([card_id, True])
            self._take_gold_for_reserve(mover)
        elif action.startswith("r"):
            card_id = int(action[1:])
            self._remove_from_market(card_id)
            mover.reserved.append([card_id, False])
            self._take_gold_for_reserve(mover)
        elif action.startswith("b"):
            card_id = int(action[1:])
            paid = self._payment(mover, card_id)
            for colour in range(6):
                mover.tokens[colour] -= paid[colour]
                self.bank[colour] += paid[colour]
            if card_id in mover.reserved_ids():
                index = mover.reserved_ids().index(card_id)
                del mover.reserved[index]
            else:
                self._remove_from_market(card_id)
            mover.cards.append(card_id)
            mover.cards.sort()

        # 2. Returns down to 10 tokens.
        for letter in returns:
            colour = COLOUR_LETTERS.index(letter)
            mover.tokens[colour] -= 1
            self.bank[colour] += 1

        # 3. Noble visit.
        if noble_id is not None:
            self.nobles.remove(noble_id)
            mover.nobles.append(noble_id)
            mover.nobles.sort()

        # 4. Final-round trigger, pass counter, next player.
        if mover.points() >= WINNING_POINTS:
            self.final = 1
        if action == "pass":
            self.passes += 1
        else:
            self.passes = 0
        self.turn += 1
        self.to_move = (self.to_move + 1) % self.players

    def _take_gold_for_reserve(self, seat):
        """Give the reserving seat one gold if the bank has any."""
        if self.bank[GOLD] > 0:
            self.bank[GOLD] -= 1
            seat.tokens[GOLD] += 1

    def _remove_from_market(self, card_id):
        """Take card_id off the market and refill its slot from the top of its deck."""
        for level_index in range(LEVELS):
            row = self.market[level_index]
            if card_id in row:
                slot = row.index(card_id)
                deck = self.decks[level_index]
                row[slot] = deck.pop(0) if deck else None
                return
        raise ValueError("card %d is not in the market" % card_id)

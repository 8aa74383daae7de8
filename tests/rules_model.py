"""A plain-Python reference model of the Splendor rules (base game and the four
Cities of Splendor modules).

This is a deliberately simple, independent second implementation of the rules in
docs/RULES.md and of the notation in docs/NOTATION.md (version 1) and
docs/MODULES.md (version 2).  The compiled engine is compared against it move for move
(differential testing), so it shares no code with the ``splendor_ai`` package and
uses only the standard library.  Readability comes first; speed is secondary.

Choices made where NOTATION.md / the brief leave room (keep them in sync with the
engine, or change them here if the project decides otherwise):

* Only *true* positions are read (no ``?`` anywhere); a public position raises
  ValueError.  SPN1 accepts only base-game card ids 0..89.
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
  meeting the second one).  Such a move changes the game, so it is not a dead
  pass: it sets ``passes`` back to 0 (as does a pass on which a city or a trading
  post is claimed).  A stalemate (every player passing in a row) ends the game only
  while no end is triggered; once the final round is under way it is played out.
* A return decision may give back any tokens held after the action, including
  ones just taken (so ``+wbg/-wbg`` is a legal move when it applies).
* ``result()`` raises ValueError while the game is not over.

Cities of Splendor (docs/MODULES.md; one module per game):

* API: ``Model.new(players, seed, first_player=0, cap=100, module=None)`` with
  module "cities", "orient", "posts" or "strongholds"; ``Model.from_position`` reads
  SPN1 and SPN2 (a module game), ``position()`` writes SPN2 for a module game;
  ``legal_moves()``, ``apply(move)``, ``is_over()`` and ``result()`` work the same
  for every game.  Moves are whole turns in notation v2 (main action, then every
  decision in game order, e.g. ``b108/jr/f12``, ``+wbg/b30/t5``).
* A module turn is played by one procedure (``_m_run_turn``) that asks for each
  decision in the order of docs/MODULES.md; the legal moves are every path through
  it (``_m_turns``).  Run without a module it gives the base game's moves
  (``turn_legal_moves``, checked against the base code by the tests).
* SPN2 options are read in any order (``2:cap=60,orient``) and written canonically
  (``2:orient,cap=60``).  In an Orient position all 120 cards must appear exactly
  once (the out-of-game pile included); in other module games the 90 base cards.
  Held (Orient) nobles count towards players + 1 nobles; a Cities game has none
  and exactly 3 cities (face up plus claimed) of 3 different tiles.  Trading-post
  powers held are not checked against the requirements.
* Cities: ``result()`` ranks city holders first, then most prestige, then fewest
  cards; a normal end (reason "points") starts with the first city claimed.
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
MODULES = ("cities", "orient", "posts", "strongholds")
ORIENT_SLOTS = 6                   # market slots a level with the Orient (4 regular + 2)
STRONGHOLDS_EACH = 3


def _find_data_dir():
    """The folder holding the data tables: the repository's splendor_ai/data (read with csv
    here, not through the package; tests/test_data.py pins their digests)."""
    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(repo_root, "splendor_ai", "data")


class Card:
    """One development card: id, level (1-3), bonus colour index, points, cost (5 gems).

    Orient cards (ids 90..119) also have: ``kind`` ("colour", "gold" or "joker"; base
    cards are "colour"), ``bonus_count`` (2 for a double bonus), ``abilities`` (codes of
    orient_abilities.csv) and ``sacrifice`` (the colour index of the two cards to discard,
    or None).  ``bonus`` is None for gold and joker cards.
    """

    def __init__(self, card_id, level, bonus, points, cost, kind="colour", bonus_count=1,
                 abilities=(), sacrifice=None, orient=False):
        self.id = card_id
        self.level = level
        self.bonus = bonus
        self.points = points
        self.cost = cost
        self.kind = kind
        self.bonus_count = bonus_count
        self.abilities = tuple(abilities)
        self.sacrifice = sacrifice
        self.orient = orient

    def __repr__(self):
        letter = COLOUR_LETTERS[self.bonus] if self.bonus is not None else self.kind
        return "Card(%d, L%d, %s, %dpt, cost=%s%s)" % (
            self.id, self.level, letter, self.points, self.cost,
            ", " + ";".join(self.abilities) if self.abilities else "")


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


class City:
    """One city tile side: id (row of cities.csv), tile, side, min_prestige, requirement,
    same_colour (N > 0: N bonuses of one colour the requirement does not name)."""

    def __init__(self, city_id, tile, side, min_prestige, requirement, same_colour):
        self.id = city_id
        self.tile = tile
        self.side = side
        self.min_prestige = min_prestige
        self.requirement = requirement
        self.same_colour = same_colour

    def __repr__(self):
        return "City(%d, %d%s, %dpt, needs=%s, same=%d)" % (
            self.id, self.tile, self.side, self.min_prestige, self.requirement, self.same_colour)


class Post:
    """One trading-post power: id (0-4), the bonuses and the nobles it requires."""

    def __init__(self, post_id, requirement, nobles, power):
        self.id = post_id
        self.requirement = requirement
        self.nobles = nobles
        self.power = power


def _load_orient_cards(data_dir):
    """Read orient_cards.csv; the card id is 90 + the 0-based row index."""
    cards = []
    path = os.path.join(data_dir, "orient_cards.csv")
    if not os.path.isfile(path):
        return cards
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            cost = [int(row[name]) for name in COLOUR_NAMES]
            bonus_text = row["bonus"]
            if bonus_text in COLOUR_NAMES:
                kind, bonus = "colour", COLOUR_NAMES.index(bonus_text)
            else:
                kind, bonus = bonus_text, None          # "gold" or "joker"
            abilities = [code for code in row["ability"].split(";") if code]
            sacrifice = None
            if row["sacrifice_colour"]:
                sacrifice = COLOUR_NAMES.index(row["sacrifice_colour"])
                assert int(row["sacrifice_count"]) == 2
            cards.append(Card(90 + len(cards), int(row["level"]), bonus, int(row["points"]),
                              cost, kind, int(row["bonus_count"]), abilities, sacrifice,
                              orient=True))
    return cards


def _load_cities(data_dir):
    """Read cities.csv; the city id is the 0-based row index."""
    cities = []
    path = os.path.join(data_dir, "cities.csv")
    if not os.path.isfile(path):
        return cities
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            requirement = [int(row[name]) for name in COLOUR_NAMES]
            cities.append(City(len(cities), int(row["tile"]), row["side"],
                               int(row["min_prestige"]), requirement, int(row["same_colour"])))
    return cities


def _load_posts(data_dir):
    """Read trading_posts.csv; the power id is the csv id minus 1."""
    posts = []
    path = os.path.join(data_dir, "trading_posts.csv")
    if not os.path.isfile(path):
        return posts
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            requirement = [int(row[name]) for name in COLOUR_NAMES]
            posts.append(Post(int(row["id"]) - 1, requirement, int(row["nobles"]), row["power"]))
    return posts


DATA_DIR = _find_data_dir()
CARDS = _load_cards(DATA_DIR)
NOBLES = _load_nobles(DATA_DIR)
assert len(CARDS) == 90 and len(NOBLES) == 10
ORIENT_CARDS = _load_orient_cards(DATA_DIR)
ALL_CARDS = CARDS + ORIENT_CARDS                 # indexed by card id 0..119
CITIES = _load_cities(DATA_DIR)
POSTS = _load_posts(DATA_DIR)

# Trading-post powers by id (trading_posts.csv id - 1).
POST_GEM_AFTER_BUY = 0
POST_EXTRA_GEM = 1
POST_GOLD_TWO = 2
POST_FIVE = 3
POST_PER_ARMS = 4


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
        # Module holdings (empty / zero outside their module):
        self.cities = []                 # Cities: claimed city ids, increasing
        self.jokers = {}                 # Orient: joker card id -> colour index it joined
        self.held = []                   # Orient: reserved (held) noble ids, increasing
        self.posts = []                  # Trading posts: power ids held, increasing
        self.sh_hand = 0                 # Strongholds: strongholds in hand

    def copy(self):
        """An independent copy of this seat."""
        other = Seat()
        other.tokens = list(self.tokens)
        other.cards = list(self.cards)
        other.reserved = [list(entry) for entry in self.reserved]
        other.nobles = list(self.nobles)
        other.cities = list(self.cities)
        other.jokers = dict(self.jokers)
        other.held = list(self.held)
        other.posts = list(self.posts)
        other.sh_hand = self.sh_hand
        return other

    def bonuses(self):
        """Bonuses per gem colour: one per bought card of that colour, two for an Orient
        double bonus, one per joker attached to that colour; gold cards give none."""
        counts = [0] * GEM_COLOURS
        for card_id in self.cards:
            card = ALL_CARDS[card_id]
            if card.kind == "colour":
                counts[card.bonus] += card.bonus_count
            elif card.kind == "joker" and card_id in self.jokers:
                counts[self.jokers[card_id]] += 1
        return counts

    def points(self):
        """Prestige: bought cards' points, the nobles' points (3 each) and the trading-post
        points (power 3: 5; power 4: 1 per power held)."""
        total = 0
        for card_id in self.cards:
            total += ALL_CARDS[card_id].points
        for noble_id in self.nobles:
            total += NOBLES[noble_id].points
        if POST_FIVE in self.posts:
            total += 5
        if POST_PER_ARMS in self.posts:
            total += len(self.posts)
        return total

    def gold_cards(self):
        """The Orient gold cards this seat holds, increasing ids."""
        return [card_id for card_id in self.cards if ALL_CARDS[card_id].kind == "gold"]

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
        # Cities of Splendor (docs/MODULES.md); None / empty in a base game.
        self.module = None
        self.nslots = MARKET_SLOTS                    # 6 with the Orient
        self.cities = []                              # Cities: face-up city ids, increasing
        self.discard = []                             # Orient: out-of-game pile, increasing
        self.strongholds = {}                         # card id -> [seat, count] (market cards)

    # ----- construction ---------------------------------------------------

    @classmethod
    def new(cls, players, seed, first_player=0, cap=DEFAULT_CAP, module=None):
        """A starting position dealt with random.Random(seed).

        ``module`` is None (base game) or one of MODULES: "cities", "orient", "posts",
        "strongholds" (one module per game).  Deal order: regular decks, nobles (not with
        the Cities), then the module's own elements.
        """
        if module is not None and module not in MODULES:
            raise ValueError("module must be one of %s" % ", ".join(MODULES))
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
        if module != "cities":
            noble_ids = [noble.id for noble in NOBLES]
            rng.shuffle(noble_ids)
            model.nobles = sorted(noble_ids[:players + 1])
        model.to_move = first_player
        model.first_player = first_player
        model.seats = [Seat() for _ in range(players)]
        if module is not None:
            model._setup_module(module, rng)
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
        other.module = self.module
        other.nslots = self.nslots
        other.cities = list(self.cities)
        other.discard = list(self.discard)
        other.strongholds = {card_id: list(entry) for card_id, entry in self.strongholds.items()}
        # The listed turns (keyed by the position, never mutated) stay valid for the copy.
        other._turns_cache = getattr(self, "_turns_cache", None)
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
        if fields and fields[0] == "SPN2":
            return cls._from_position_v2(fields)
        if not fields or fields[0] != "SPN1":
            raise ValueError("tag/version: expected 'SPN1' or 'SPN2'")
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
    def _parse_seat(text, seat_index, limit=len(CARDS)):
        """Read '<tokens>:<cards>:<reserved>:<nobles>' (card ids below `limit`)."""
        field = "player %d" % seat_index
        parts = text.split(":")
        if len(parts) != 4:
            raise ValueError("%s: expected 4 parts" % field)
        seat = Seat()
        seat.tokens = _parse_tokens(parts[0], field + " tokens")
        seat.cards = _parse_increasing_ids(parts[1], field + " cards", limit)
        if parts[2] != "-":
            for entry in parts[2].split(","):
                blind = entry.startswith("*")
                number_text = entry[1:] if blind else entry
                card_id = _parse_number(number_text, field + " reserved")
                if card_id >= limit:
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
        """The canonical true position string (SPN1, or SPN2 in a module game)."""
        if self.module is not None:
            return self._position_v2()
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
        if self.passes >= self.players and not self.final:
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
        # Cities: the city holders rank first; then most prestige, then fewest cards.
        if self.module == "cities":
            keys = [(0 if seat.cities else 1, -points[index], cards[index])
                    for index, seat in enumerate(self.seats)]
        else:
            keys = [(-points[index], cards[index]) for index in range(self.players)]
        ranks = []
        for seat_index in range(self.players):
            better = 0
            for other in range(self.players):
                if keys[other] < keys[seat_index]:
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
        if self.module is not None:
            return set(self._m_turns())
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
        if self.module is not None:
            self._m_apply(move)
            return
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
        if action == "pass" and noble_id is None:
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

    # =======================================================================
    # Cities of Splendor: the four modules (docs/MODULES.md)
    # =======================================================================
    #
    # A module game plays through one turn procedure, ``_m_run_turn``, that follows
    # docs/MODULES.md "A turn, with its decisions in order" step by step and asks
    # ``_decide`` at every decision.  ``_m_turns`` lists the legal whole turns by
    # replaying that procedure on copies of the model with every prefix of choices
    # (depth first); ``apply`` replays the one path that spells the move.  The same
    # procedure also plays the base game (module None), which the tests compare with
    # the base code above.

    def _setup_module(self, module, rng):
        """Deal the module's own elements (after the regular decks and the nobles)."""
        self.module = module
        if module == "cities":
            tiles = rng.sample(range(len(CITIES) // 2), 3)
            self.cities = sorted(2 * tile + rng.randrange(2) for tile in tiles)
        elif module == "orient":
            self.nslots = ORIENT_SLOTS
            for level in range(1, LEVELS + 1):
                deck = [card.id for card in ORIENT_CARDS if card.level == level]
                rng.shuffle(deck)
                self.market[level - 1].extend(deck[:ORIENT_SLOTS - MARKET_SLOTS])
                self.decks.append(deck[ORIENT_SLOTS - MARKET_SLOTS:])
        elif module == "strongholds":
            for seat in self.seats:
                seat.sh_hand = STRONGHOLDS_EACH

    # ----- rule helpers (modules) --------------------------------------------

    def _m_blocked(self, card_id, seat_index):
        """True if another player's strongholds stand on this market card."""
        entry = self.strongholds.get(card_id)
        return entry is not None and entry[0] != seat_index

    def _m_shortfall(self, seat, card_id):
        """Gems missing per colour after bonuses and coloured tokens."""
        bonuses = seat.bonuses()
        cost = ALL_CARDS[card_id].cost
        return [max(0, cost[colour] - bonuses[colour] - seat.tokens[colour])
                for colour in range(GEM_COLOURS)]

    def _m_gold_needed(self, seat, missing):
        """Gold tokens needed for these missing gems (trading-post power 2: ceil(m/2) each)."""
        if POST_GOLD_TWO in seat.posts:
            return sum((count + 1) // 2 for count in missing)
        return sum(missing)

    @staticmethod
    def _m_sacrifice_candidates(seat, colour):
        """The seat's cards that count as cards of `colour` for a sacrifice, increasing."""
        found = []
        for card_id in seat.cards:
            card = ALL_CARDS[card_id]
            if card.kind == "colour" and card.bonus == colour:
                found.append(card_id)
            elif card.kind == "joker" and seat.jokers.get(card_id) == colour:
                found.append(card_id)
        return sorted(found)

    def _m_can_acquire(self, seat, card_id):
        """Orient acquisition conditions (buying or taking free): a joker needs a coloured
        bonus, a sacrifice card needs two cards of its colour."""
        card = ALL_CARDS[card_id]
        if card.kind == "joker" and sum(seat.bonuses()) == 0:
            return False
        if card.sacrifice is not None:
            return len(self._m_sacrifice_candidates(seat, card.sacrifice)) >= 2
        return True

    def _m_can_buy(self, seat, card_id):
        """True if the seat may buy card_id now (price and acquisition conditions)."""
        if not self._m_can_acquire(seat, card_id):
            return False
        if ALL_CARDS[card_id].sacrifice is not None:
            return True                   # its price is the two cards, no tokens
        need = self._m_gold_needed(seat, self._m_shortfall(seat, card_id))
        return need <= seat.tokens[GOLD] + 2 * len(seat.gold_cards())

    def _m_pay(self, seat, card_id):
        """Pay card_id: coloured gems first, then gold tokens, then whole gold cards
        (lowest id first, to the out-of-game pile)."""
        bonuses = seat.bonuses()
        cost = ALL_CARDS[card_id].cost
        gold_two = POST_GOLD_TWO in seat.posts
        missing_total = 0
        gold_tokens = 0
        for colour in range(GEM_COLOURS):
            need = max(0, cost[colour] - bonuses[colour])
            from_gems = min(need, seat.tokens[colour])
            seat.tokens[colour] -= from_gems
            self.bank[colour] += from_gems
            if gold_two:
                gold_tokens += (need - from_gems + 1) // 2
            else:
                missing_total += need - from_gems
        if not gold_two:
            gold_tokens = min(missing_total, seat.tokens[GOLD])
            rest = missing_total - gold_tokens
            for gold_card in seat.gold_cards()[:(rest + 1) // 2]:
                self._m_discard(seat, gold_card)
        if gold_tokens > seat.tokens[GOLD]:
            raise AssertionError("payment needs more gold than held")
        seat.tokens[GOLD] -= gold_tokens
        self.bank[GOLD] += gold_tokens

    def _m_discard(self, seat, card_id):
        """A card of the seat leaves the game (sacrifice, spent gold card)."""
        seat.cards.remove(card_id)
        seat.jokers.pop(card_id, None)
        self.discard.append(card_id)
        self.discard.sort()

    def _m_deck_index(self, level_index, slot):
        """The deck that refills this market slot (Orient slots 4-5: Orient decks)."""
        return level_index if slot < MARKET_SLOTS else LEVELS + level_index

    def _m_refill(self, level_index, slot):
        """Refill an empty market slot from the top of its deck (or leave it empty)."""
        deck = self.decks[self._m_deck_index(level_index, slot)]
        self.market[level_index][slot] = deck.pop(0) if deck else None

    def _m_take_from_market(self, card_id, refill=True):
        """Remove card_id from the market (its strongholds go back to their owner),
        refilling the slot unless told not to; returns (level index, slot)."""
        for level_index, row in enumerate(self.market):
            if card_id in row:
                slot = row.index(card_id)
                entry = self.strongholds.pop(card_id, None)
                if entry is not None:
                    self.seats[entry[0]].sh_hand += entry[1]
                row[slot] = None
                if refill:
                    self._m_refill(level_index, slot)
                return level_index, slot
        raise ValueError("card %d is not in the market" % card_id)

    @staticmethod
    def _m_meets(bonuses, requirement):
        return all(bonuses[colour] >= requirement[colour] for colour in range(GEM_COLOURS))

    def _m_city_met(self, seat, city_id):
        """Prestige >= min, bonuses >= requirement, and the same-colour group if any."""
        city = CITIES[city_id]
        bonuses = seat.bonuses()
        if seat.points() < city.min_prestige or not self._m_meets(bonuses, city.requirement):
            return False
        if city.same_colour > 0:
            return any(city.requirement[colour] == 0 and bonuses[colour] >= city.same_colour
                       for colour in range(GEM_COLOURS))
        return True

    def _m_main_actions(self):
        """The legal main actions (base actions; Orient blind reserves; strongholds block)."""
        seat_index = self.to_move
        seat = self.seats[seat_index]
        actions = []
        available = [colour for colour in range(GEM_COLOURS) if self.bank[colour] > 0]
        sizes = [3] if len(available) >= 3 else list(range(1, len(available) + 1))
        for size in sizes:
            for combo in itertools.combinations(available, size):
                actions.append("+" + "".join(COLOUR_LETTERS[colour] for colour in combo))
        for colour in range(GEM_COLOURS):
            if self.bank[colour] >= 4:
                actions.append("+" + COLOUR_LETTERS[colour] * 2)
        market = [card_id for card_id in self._market_card_ids()
                  if not self._m_blocked(card_id, seat_index)]
        if len(seat.reserved) < RESERVE_LIMIT:
            for card_id in market:
                actions.append("r%d" % card_id)
            for level_index in range(LEVELS):
                if self.decks[level_index]:
                    actions.append("rL%d" % (level_index + 1))
            if self.module == "orient":
                for level_index in range(LEVELS):
                    if self.decks[LEVELS + level_index]:
                        actions.append("rO%d" % (level_index + 1))
        for card_id in market + seat.reserved_ids():
            if self._m_can_buy(seat, card_id):
                actions.append("b%d" % card_id)
        return actions

    # ----- the turn procedure -------------------------------------------------

    def _decide(self, options, independent=False):
        """One decision of the turn under way: returns the chosen option (a notation
        token, '' for a declined conquest) or None when there is no option (skipped).

        ``independent`` marks a decision that nothing later in the turn depends on
        (the returned tokens): the enumerator expands it without replaying.
        """
        if not options:
            return None
        path_index = self._cursor
        if self._cursor < len(self._path):
            pick = self._path[self._cursor]
            if pick not in options:
                raise ValueError("illegal decision %r (options %s)" % (pick, sorted(options)))
        elif self._enumerating:
            if not independent:
                raise _NeedChoice(options)
            pick = options[0]
            self._path.append(pick)
        else:
            raise ValueError("the move stops before the decision %s" % sorted(options))
        self._cursor += 1
        if independent:
            self._variants.append((path_index, len(self._tokens), options))
        if pick:
            self._tokens.append(pick)
        return pick

    def _m_run_turn(self, path, enumerating, main_actions=None):
        """Play one whole turn along `path` (a list of decisions); returns its tokens.

        ``main_actions``: the legal main actions of this position, if already known.
        """
        self._path = list(path)
        self._cursor = 0
        self._refills = []       # Strongholds: the conquered card's slot, refilled after its action
        self._tokens = []
        self._variants = []
        self._enumerating = enumerating
        seat_index = self.to_move
        seat = self.seats[seat_index]

        # 1-2. The main action and its follow-ups.
        if main_actions is None:
            main_actions = self._m_main_actions() or ["pass"]
        action = self._decide(main_actions)
        if action == "pass":
            pass
        elif action.startswith("+"):
            for letter in action[1:]:
                colour = COLOUR_LETTERS.index(letter)
                self.bank[colour] -= 1
                seat.tokens[colour] += 1
            if len(action) == 3 and action[1] == action[2] and POST_EXTRA_GEM in seat.posts:
                self._m_extra_gem(seat, COLOUR_LETTERS.index(action[1]))
        elif action.startswith("rL") or action.startswith("rO"):
            deck_index = int(action[2:]) - 1 + (LEVELS if action[1] == "O" else 0)
            seat.reserved.append([self.decks[deck_index].pop(0), True])
            self._take_gold_for_reserve(seat)
        elif action.startswith("r"):
            card_id = int(action[1:])
            self._m_take_from_market(card_id)
            seat.reserved.append([card_id, False])
            self._take_gold_for_reserve(seat)
        else:
            self._m_buy(seat_index, int(action[1:]))

        # 3. Conquest (Strongholds), then the refill of the conquered card's slot.
        if self.module == "strongholds":
            for card_id, (owner, count) in list(self.strongholds.items()):
                if owner == seat_index and count == STRONGHOLDS_EACH:
                    if self._m_can_buy(seat, card_id) and self._decide(["b%d" % card_id, ""]):
                        self._m_conquer(seat_index, card_id)
                    break
            for level_index, slot in self._refills:
                self._m_refill(level_index, slot)

        # 4. Token limit.
        changed = False          # 5-7: a visit or a claim at the end of the turn
        excess = sum(seat.tokens) - TOKEN_LIMIT
        if excess > 0:
            returned = self._decide(["-" + letters for letters in
                                     _token_multisets(seat.tokens, excess)], independent=True)
            for letter in returned[1:]:
                colour = COLOUR_LETTERS.index(letter)
                seat.tokens[colour] -= 1
                self.bank[colour] += 1

        # 5. Noble visit: face-up nobles and (Orient) the mover's held nobles.
        if self.module != "cities":
            bonuses = seat.bonuses()
            met = [noble_id for noble_id in sorted(self.nobles + seat.held)
                   if self._m_meets(bonuses, NOBLES[noble_id].requirement)]
            pick = self._decide(["n%d" % noble_id for noble_id in met])
            if pick:
                changed = True
                noble_id = int(pick[1:])
                if noble_id in seat.held:
                    seat.held.remove(noble_id)
                else:
                    self.nobles.remove(noble_id)
                seat.nobles.append(noble_id)
                seat.nobles.sort()

        # 6. Trading posts: every power met and not held yet.
        if self.module == "posts":
            bonuses = seat.bonuses()
            for post in POSTS:
                if (post.id not in seat.posts and self._m_meets(bonuses, post.requirement)
                        and len(seat.nobles) >= post.nobles):
                    seat.posts.append(post.id)
                    changed = True
            seat.posts.sort()

        # 7. City claim; the first city claimed starts the final round.
        if self.module == "cities":
            met = [city_id for city_id in self.cities if self._m_city_met(seat, city_id)]
            pick = self._decide(["c%d" % city_id for city_id in met])
            if pick:
                changed = True
                city_id = int(pick[1:])
                self.cities.remove(city_id)
                seat.cities.append(city_id)
                seat.cities.sort()
                self.final = 1

        # 8. End of the turn.
        if self.module != "cities" and seat.points() >= WINNING_POINTS:
            self.final = 1
        if self._cursor != len(self._path):
            raise ValueError("the move has decisions left over")
        # a pass that changed nothing counts towards a stalemate; a visit or a claim does not
        self.passes = self.passes + 1 if action == "pass" and not changed else 0
        self.turn += 1
        self.to_move = (self.to_move + 1) % self.players
        return self._tokens

    def _m_buy(self, seat_index, card_id):
        """A purchase as the main action, with its follow-ups in order."""
        seat = self.seats[seat_index]
        card = ALL_CARDS[card_id]
        if card.sacrifice is not None:
            candidates = self._m_sacrifice_candidates(seat, card.sacrifice)
            first = int(self._decide(["d%d" % other for other in candidates[:-1]])[1:])
            self._m_discard(seat, first)
            second = int(self._decide(["d%d" % other for other in candidates
                                       if other > first])[1:])
            self._m_discard(seat, second)
        else:
            self._m_pay(seat, card_id)
        if card_id in seat.reserved_ids():
            del seat.reserved[seat.reserved_ids().index(card_id)]
        else:
            # refilled at once: the stronghold action below may use the new card (only the
            # conquest's slot waits for its stronghold action)
            self._m_take_from_market(card_id)
        self._m_gain(seat, card_id)
        if self.module == "strongholds":
            self._m_stronghold_action(seat_index)
        if POST_GEM_AFTER_BUY in seat.posts:
            self._m_extra_gem(seat, None)

    def _m_gain(self, seat, card_id):
        """The card joins the seat's cards; its Orient abilities follow (depth first)."""
        seat.cards.append(card_id)
        seat.cards.sort()
        card = ALL_CARDS[card_id]
        if "joker" in card.abilities:
            bonuses = seat.bonuses()             # the new joker is not attached yet
            pick = self._decide(["j" + COLOUR_LETTERS[colour] for colour in range(GEM_COLOURS)
                                 if bonuses[colour] > 0])
            if pick:
                seat.jokers[card_id] = COLOUR_LETTERS.index(pick[1])
        if "reserve_noble" in card.abilities:
            pick = self._decide(["h%d" % noble_id for noble_id in self.nobles])
            if pick:
                noble_id = int(pick[1:])
                self.nobles.remove(noble_id)
                seat.held.append(noble_id)
                seat.held.sort()
        for code, level in (("take_l1", 1), ("take_l2", 2)):
            if code in card.abilities:
                pick = self._decide(["f%d" % other for other in self.market[level - 1]
                                     if other is not None and self._m_can_acquire(seat, other)])
                if pick:
                    free_id = int(pick[1:])
                    self._m_take_from_market(free_id)       # refilled at once
                    self._m_gain(seat, free_id)

    def _m_extra_gem(self, seat, excluded):
        """Trading posts: one more gem of any colour left in the bank (not `excluded`)."""
        pick = self._decide(["+" + COLOUR_LETTERS[colour] for colour in range(GEM_COLOURS)
                             if self.bank[colour] > 0 and colour != excluded])
        if pick:
            colour = COLOUR_LETTERS.index(pick[1])
            self.bank[colour] -= 1
            seat.tokens[colour] += 1

    def _m_stronghold_action(self, seat_index):
        """Strongholds, after a purchase: place (t), move (m from:to) or remove (x)."""
        seat = self.seats[seat_index]
        face_up = self._market_card_ids()
        open_cards = [card_id for card_id in face_up if not self._m_blocked(card_id, seat_index)]
        options = []
        if seat.sh_hand > 0:
            options.extend("t%d" % card_id for card_id in open_cards)
        for card_id in face_up:
            entry = self.strongholds.get(card_id)
            if entry is None:
                continue
            if entry[0] == seat_index:
                options.extend("m%d:%d" % (card_id, other) for other in open_cards
                               if other != card_id)
            else:
                options.append("x%d" % card_id)
        pick = self._decide(options)
        if pick is None:
            return
        if pick[0] == "t":
            seat.sh_hand -= 1
            self._m_place(seat_index, int(pick[1:]))
        elif pick[0] == "m":
            source, target = (int(part) for part in pick[1:].split(":"))
            self._m_lift(source)
            self._m_place(seat_index, target)
        else:
            card_id = int(pick[1:])
            owner = self.strongholds[card_id][0]
            self._m_lift(card_id)
            self.seats[owner].sh_hand += 1

    def _m_place(self, seat_index, card_id):
        entry = self.strongholds.setdefault(card_id, [seat_index, 0])
        assert entry[0] == seat_index
        entry[1] += 1

    def _m_lift(self, card_id):
        """Take one stronghold off card_id (the caller decides where it goes)."""
        entry = self.strongholds[card_id]
        entry[1] -= 1
        if entry[1] == 0:
            del self.strongholds[card_id]

    def _m_conquer(self, seat_index, card_id):
        """The conquest purchase: pay, gain, strongholds back to hand, stronghold action,
        then (only then) refill the slot."""
        seat = self.seats[seat_index]
        self._m_pay(seat, card_id)
        self._refills.append(self._m_take_from_market(card_id, refill=False))
        self._m_gain(seat, card_id)
        self._m_stronghold_action(seat_index)

    # ----- listing and applying whole turns -----------------------------------

    def _m_turns(self):
        """Every legal whole turn: dict move string -> its decision path."""
        key = self.position() if self.module is not None else None
        cached = getattr(self, "_turns_cache", None)
        if key is not None and cached is not None and cached[0] == key:
            return cached[1]
        turns = {}
        main_actions = self._m_main_actions() or ["pass"]
        pending = [[action] for action in main_actions]
        while pending:
            path = pending.pop()
            model = self.copy()
            try:
                tokens = model._m_run_turn(path, True, main_actions)
            except _NeedChoice as need:
                for option in need.options:
                    pending.append(model._path + [option])
                continue
            records = model._variants
            for combo in itertools.product(*[record[2] for record in records]):
                full_path = list(model._path)
                full_tokens = list(tokens)
                for (path_index, token_index, _), pick in zip(records, combo):
                    full_path[path_index] = pick
                    full_tokens[token_index] = pick
                move = "/".join(full_tokens)
                if move in turns and turns[move] != full_path:
                    raise AssertionError("move %r spells two different turns" % move)
                turns[move] = full_path
        if key is not None:
            self._turns_cache = (key, turns)
        return turns

    def two_step_first(self, move):
        """The first step of `move` when it is a two-step turn (docs/RULES.md, "Two-step
        turns"): in a Strongholds game, a purchase from the market whose slot the deck refills,
        so that the stronghold action after it may use a card the turn reveals. None for a turn
        played in one step."""
        action = move.split("/")[0]
        if self.module != "strongholds" or not action.startswith("b"):
            return None
        for level_index, row in enumerate(self.market):
            if int(action[1:]) in row:
                return action if self.decks[level_index] else None
        return None

    def legal_steps(self):
        """What the player to move chooses from at the start of a turn: the legal whole turns,
        a two-step turn standing as its first step."""
        return {self.two_step_first(move) or move for move in self.legal_moves()}

    def turn_legal_moves(self):
        """Legal whole turns computed by the module turn procedure (any game, also base)."""
        if self.is_over():
            return set()
        return set(self._m_turns())

    def _m_apply(self, move):
        """Play one legal whole turn of a module game."""
        if self.is_over():
            raise ValueError("illegal move %r: the game is over" % move)
        path = self._m_turns().get(move)
        if path is None:
            raise ValueError("illegal move %r in %s" % (move, self.position()))
        self._m_run_turn(path, False)
        self._turns_cache = None
        for name in ("_path", "_cursor", "_tokens", "_variants", "_enumerating"):
            delattr(self, name)

    # ----- positions, version 2 -----------------------------------------------

    @classmethod
    def _from_position_v2(cls, fields):
        """Parse an SPN2 true position (fields already split)."""
        if len(fields) < 2:
            raise ValueError("field count: missing players field")
        model = cls()
        model._parse_players_field_v2(fields[1])
        if len(fields) != 8 + model.players:
            raise ValueError("field count: expected %d fields, got %d"
                             % (8 + model.players, len(fields)))
        orient = model.module == "orient"
        model.nslots = ORIENT_SLOTS if orient else MARKET_SLOTS
        limit = len(ALL_CARDS) if orient else len(CARDS)
        model.bank = _parse_tokens(fields[2], "bank")
        model._parse_market_v2(fields[3])
        model._parse_decks_v2(fields[4])
        if model.module == "cities" and fields[5] != "-":
            raise ValueError("nobles: a Cities game has no nobles ('-')")
        model.nobles = _parse_increasing_ids(fields[5], "nobles", len(NOBLES))
        model._parse_status(fields[6])
        model._parse_board(fields[7])
        model.seats = []
        for seat_index in range(model.players):
            model.seats.append(model._parse_seat_v2(fields[8 + seat_index], seat_index, limit))
        model._validate_v2()
        return model

    def _parse_players_field_v2(self, text):
        """Read '<players>:<module>[,cap=N]' (the options in any order, one module)."""
        if ":" not in text:
            raise ValueError("players: SPN2 needs a module option, e.g. '2:orient'")
        count_text, options_text = text.split(":", 1)
        if count_text not in ("2", "3", "4"):
            raise ValueError("players: %r is not 2, 3 or 4" % count_text)
        self.players = int(count_text)
        seen_cap = False
        for option in options_text.split(","):
            if option in MODULES:
                if self.module is not None:
                    raise ValueError("players: one module per game")
                self.module = option
            elif option.startswith("cap=") and not seen_cap:
                seen_cap = True
                self.cap = _parse_number(option[4:], "players: cap")
                if self.cap < 1:
                    raise ValueError("players: cap must be positive")
            else:
                raise ValueError("players: unknown or repeated option %r" % option)
        if self.module is None:
            raise ValueError("players: SPN2 needs a module option")

    def _parse_market_v2(self, text):
        """Three levels of nslots slots: regular cards, then (Orient) Orient cards."""
        levels = text.split("/")
        if len(levels) != LEVELS:
            raise ValueError("market: expected 3 levels")
        for level_index, level_text in enumerate(levels):
            slots = level_text.split(",")
            if len(slots) != self.nslots:
                raise ValueError("market: level %d needs %d slots"
                                 % (level_index + 1, self.nslots))
            row = []
            for slot, slot_text in enumerate(slots):
                if slot_text == "-":
                    row.append(None)
                    continue
                card_id = _parse_number(slot_text, "market")
                if card_id >= len(ALL_CARDS):
                    raise ValueError("market: card id %d out of range" % card_id)
                card = ALL_CARDS[card_id]
                if card.level != level_index + 1 or card.orient != (slot >= MARKET_SLOTS):
                    raise ValueError("market: card %d does not belong in level %d slot %d"
                                     % (card_id, level_index + 1, slot + 1))
                row.append(card_id)
            self.market[level_index] = row

    def _parse_decks_v2(self, text):
        """3 decks (6 with the Orient: regular levels 1-3, then Orient levels 1-3)."""
        decks = text.split("/")
        count = 2 * LEVELS if self.module == "orient" else LEVELS
        if len(decks) != count:
            raise ValueError("decks: expected %d decks" % count)
        self.decks = []
        for deck_index, deck_text in enumerate(decks):
            deck = _parse_id_list(deck_text, "decks", ".", len(ALL_CARDS))
            level = deck_index % LEVELS + 1
            for card_id in deck:
                card = ALL_CARDS[card_id]
                if card.level != level or card.orient != (deck_index >= LEVELS):
                    raise ValueError("decks: card %d does not belong in deck %d"
                                     % (card_id, deck_index + 1))
            self.decks.append(deck)

    def _parse_board(self, text):
        """The module's board field."""
        if self.module == "cities":
            self.cities = _parse_increasing_ids(text, "board", len(CITIES))
        elif self.module == "orient":
            self.discard = _parse_increasing_ids(text, "board", len(ALL_CARDS))
        elif self.module == "posts":
            if text != "-":
                raise ValueError("board: a Trading posts game has '-'")
        else:
            self.strongholds = {}
            self._board_order = []
            if text != "-":
                for entry in text.split(","):
                    match = re.match(r"(0|[1-9][0-9]*)=([0-9])x([1-3])\Z", entry)
                    if not match:
                        raise ValueError("board: malformed stronghold entry %r" % entry)
                    card_id, seat_index, count = (int(group) for group in match.groups())
                    if card_id in self.strongholds:
                        raise ValueError("board: card %d listed twice" % card_id)
                    if seat_index >= self.players:
                        raise ValueError("board: seat %d out of range" % seat_index)
                    self.strongholds[card_id] = [seat_index, count]
                    self._board_order.append(card_id)

    def _parse_seat_v2(self, text, seat_index, limit):
        """The SPN1 seat, then the module's field(s)."""
        field = "player %d" % seat_index
        parts = text.split(":")
        extra = 2 if self.module == "orient" else 1
        if len(parts) != 4 + extra:
            raise ValueError("%s: expected %d parts" % (field, 4 + extra))
        seat = self._parse_seat(":".join(parts[:4]), seat_index, limit)
        if self.module == "cities":
            seat.cities = _parse_increasing_ids(parts[4], field + " cities", len(CITIES))
        elif self.module == "orient":
            if parts[4] != "-":
                previous = -1
                for entry in parts[4].split(","):
                    match = re.match(r"(0|[1-9][0-9]*)([wbgrk])\Z", entry)
                    if not match:
                        raise ValueError("%s jokers: malformed entry %r" % (field, entry))
                    card_id = int(match.group(1))
                    if card_id <= previous:
                        raise ValueError("%s jokers: ids must be strictly increasing" % field)
                    previous = card_id
                    seat.jokers[card_id] = COLOUR_LETTERS.index(match.group(2))
            seat.held = _parse_increasing_ids(parts[5], field + " held nobles", len(NOBLES))
        elif self.module == "posts":
            seat.posts = _parse_increasing_ids(parts[4], field + " posts", len(POSTS))
        else:
            if parts[4] not in ("0", "1", "2", "3"):
                raise ValueError("%s strongholds: %r is not 0-3" % (field, parts[4]))
            seat.sh_hand = int(parts[4])
        return seat

    def _validate_v2(self):
        """The SPN1 checks adapted to the module, and the module's own checks."""
        gems = GEMS_PER_COLOUR[self.players]
        supply = [gems] * GEM_COLOURS + [GOLD_SUPPLY]
        for colour in range(6):
            total = self.bank[colour] + sum(seat.tokens[colour] for seat in self.seats)
            if total != supply[colour]:
                raise ValueError("bank: %s tokens total %d, expected %d"
                                 % (COLOUR_LETTERS[colour], total, supply[colour]))
        for seat_index, seat in enumerate(self.seats):
            if sum(seat.tokens) > TOKEN_LIMIT:
                raise ValueError("player %d: more than 10 tokens" % seat_index)
            if len(seat.reserved) > RESERVE_LIMIT:
                raise ValueError("player %d: more than 3 reserved cards" % seat_index)
        # Cards: every card of the game exactly once (the Orient's out-of-game pile included).
        places = {}
        for row in self.market:
            for card_id in row:
                if card_id is not None:
                    places.setdefault(card_id, []).append("market")
        for deck in self.decks:
            for card_id in deck:
                places.setdefault(card_id, []).append("deck")
        for card_id in self.discard:
            places.setdefault(card_id, []).append("board")
        for seat_index, seat in enumerate(self.seats):
            for card_id in seat.cards:
                places.setdefault(card_id, []).append("player %d cards" % seat_index)
            for card_id in seat.reserved_ids():
                places.setdefault(card_id, []).append("player %d reserved" % seat_index)
        universe = ALL_CARDS if self.module == "orient" else CARDS
        for card in universe:
            where = places.get(card.id, [])
            if len(where) != 1:
                raise ValueError("cards: card %d appears %d times (%s)"
                                 % (card.id, len(where), ", ".join(where) or "nowhere"))
        if len(places) != len(universe):
            raise ValueError("cards: a card of another module is in play")
        for level_index in range(LEVELS):
            for slot in range(self.nslots):
                if (self.market[level_index][slot] is None
                        and self.decks[self._m_deck_index(level_index, slot)]):
                    raise ValueError("market: empty slot in level %d with a non-empty deck"
                                     % (level_index + 1))
        # Nobles (held ones included), or none at all with the Cities.
        noble_places = list(self.nobles)
        for seat in self.seats:
            noble_places.extend(seat.nobles)
            noble_places.extend(seat.held)
        if len(set(noble_places)) != len(noble_places):
            raise ValueError("nobles: a noble appears in more than one place")
        expected = 0 if self.module == "cities" else self.players + 1
        if len(noble_places) != expected:
            raise ValueError("nobles: %d nobles in play, expected %d"
                             % (len(noble_places), expected))
        if self.module == "cities":
            city_places = list(self.cities)
            for seat in self.seats:
                city_places.extend(seat.cities)
            tiles = [CITIES[city_id].tile for city_id in city_places]
            if len(set(tiles)) != len(tiles) or len(tiles) != 3:
                raise ValueError("board: 3 cities of 3 different tiles expected in play")
        if self.module == "orient":
            for seat_index, seat in enumerate(self.seats):
                jokers = [card_id for card_id in seat.cards if ALL_CARDS[card_id].kind == "joker"]
                if sorted(seat.jokers) != jokers:
                    raise ValueError("player %d jokers: one colour per bought joker card"
                                     % seat_index)
        if self.module == "strongholds":
            market_ids = self._market_card_ids()
            for card_id in self.strongholds:
                if card_id not in market_ids:
                    raise ValueError("board: card %d is not face up" % card_id)
            if self._board_order != [card_id for card_id in market_ids
                                     if card_id in self.strongholds]:
                raise ValueError("board: strongholds must be listed in market order")
            del self._board_order
            for seat_index, seat in enumerate(self.seats):
                on_board = sum(count for owner, count in self.strongholds.values()
                               if owner == seat_index)
                if seat.sh_hand + on_board != STRONGHOLDS_EACH:
                    raise ValueError("player %d strongholds: hand + board must be 3" % seat_index)

    def _position_v2(self):
        """The canonical SPN2 position string."""
        players_field = "%d:%s" % (self.players, self.module)
        if self.cap != DEFAULT_CAP:
            players_field += ",cap=%d" % self.cap
        market_levels = [",".join("-" if card_id is None else str(card_id) for card_id in row)
                         for row in self.market]
        decks = [_format_id_list(deck, ".") for deck in self.decks]
        status = "%d/%d/%d/%d/%d" % (self.to_move, self.first_player, self.turn,
                                     self.final, self.passes)
        if self.module == "cities":
            board = _format_id_list(self.cities)
        elif self.module == "orient":
            board = _format_id_list(self.discard)
        elif self.module == "posts":
            board = "-"
        else:
            entries = ["%d=%dx%d" % (card_id, self.strongholds[card_id][0],
                                     self.strongholds[card_id][1])
                       for card_id in self._market_card_ids() if card_id in self.strongholds]
            board = ",".join(entries) if entries else "-"
        fields = ["SPN2", players_field, _format_tokens(self.bank), "/".join(market_levels),
                  "/".join(decks), _format_id_list(self.nobles), status, board]
        for seat in self.seats:
            reserved = [("*%d" if blind else "%d") % card_id for card_id, blind in seat.reserved]
            text = "%s:%s:%s:%s" % (_format_tokens(seat.tokens), _format_id_list(seat.cards),
                                    ",".join(reserved) if reserved else "-",
                                    _format_id_list(seat.nobles))
            if self.module == "cities":
                text += ":" + _format_id_list(seat.cities)
            elif self.module == "orient":
                jokers = ["%d%s" % (card_id, COLOUR_LETTERS[seat.jokers[card_id]])
                          for card_id in sorted(seat.jokers)]
                text += ":%s:%s" % (",".join(jokers) if jokers else "-",
                                    _format_id_list(seat.held))
            elif self.module == "posts":
                text += ":" + _format_id_list(seat.posts)
            else:
                text += ":%d" % seat.sh_hand
            fields.append(text)
        return " ".join(fields)


class _NeedChoice(Exception):
    """Raised while listing turns: the replayed path reached a decision not chosen yet."""

    def __init__(self, options):
        Exception.__init__(self)
        self.options = options

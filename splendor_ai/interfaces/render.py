"""Terminal rendering with rich: the board as one seat sees it, and analysis tables.

The board is drawn from a `View`, so an opponent's blind reserve is shown as "level-2 card
(hidden)" and nothing hidden can reach the screen. A game with a Cities of Splendor module also
shows its elements (docs/MODULES.md): the face-up cities and who claimed which, the Orient slots,
decks, card abilities, held nobles and jokers and the out-of-game pile, the trading-post board and
each seat's powers, the strongholds on market cards and in each hand.
"""
from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..cards import CARDS, CITIES, COLOURS, LETTERS, NOBLES, POSTS

STYLES = ("bold bright_white", "bold blue", "bold green", "bold red", "bold bright_black", "bold yellow")


def player_name(seat: int) -> str:
    return f"Player {seat + 1}"


def tokens_text(counts, letters: str = LETTERS, zeros: bool = True) -> Text:
    t = Text()
    first = True
    for i, n in enumerate(counts):
        if not n and not zeros:
            continue
        if not first:
            t.append(" ")
        t.append(f"{letters[i]}{n}", style=STYLES[i] if n else "dim")
        first = False
    return t if not first else Text("-", style="dim")


def cost_text(cost) -> Text:
    t = Text()
    for c, n in enumerate(cost):
        if n:
            if t:
                t.append(" ")
            t.append(f"{n}{LETTERS[c]}", style=STYLES[c])
    return t


#: short labels of the Orient abilities (the gold card and the joker are shown as the card's bonus)
ABILITY_LABELS = {"double_bonus": "double bonus", "reserve_noble": "reserve a noble", "take_l1": "take a free L1 card",
                  "take_l2": "take a free L2 card", "sacrifice": "sacrifice"}


def bonus_text(card: int) -> Text:
    """What a card gives: its bonus colour (x2 for a double bonus), or gold card / joker."""
    c = CARDS[card]
    if "gold2" in c.abilities:
        return Text("gold card (=2 gold)", style=STYLES[5])
    if c.bonus is None:   # the Orient's jokers (gold cards have no colour either)
        return Text("joker", style="bold magenta")
    t = Text(COLOURS[c.bonus], style=STYLES[c.bonus])
    if c.bonus_count == 2:
        t.append("x2", style=STYLES[c.bonus])
    return t


def card_text(card: int, compact: bool = False, joker: int | None = None) -> Text:
    """A card: id, bonus, points, cost; Orient cards add their abilities (and a joker the colour it
    joined, when given)."""
    c = CARDS[card]
    t = Text()
    t.append(f"#{card}", style="bold")
    if c.orient:
        t.append(" O", style="bold cyan")
    t.append(" ")
    t.append_text(bonus_text(card))
    if joker is not None:
        t.append(f"->{COLOURS[joker]}", style=STYLES[joker])
    if c.points:
        t.append(f" {c.points}pt", style="bold magenta")
    t.append(" " if compact else "\n")
    if compact:
        t.append("(")
    if c.sacrifice is not None:
        t.append("sacrifice 2 ", style="italic")
        t.append(COLOURS[c.sacrifice], style=STYLES[c.sacrifice])
    else:
        t.append_text(cost_text(c.cost))
    if compact:
        t.append(")")
    extra = [ABILITY_LABELS[a] for a in c.abilities if a in ABILITY_LABELS and a != "sacrifice"]
    if extra:
        t.append((" [" if compact else "\n[") + ", ".join(extra) + "]", style="cyan")
    return t


def city_text(city: int) -> Text:
    c = CITIES[city]
    t = Text()
    t.append(f"c{city}", style="bold")
    t.append(f" {c.prestige}pt ", style="bold magenta")
    t.append_text(cost_text(c.requirement))
    if c.same_colour:
        t.append(f"{' + ' if any(c.requirement) else ''}{c.same_colour} of one {'other ' if any(c.requirement) else ''}colour",
                 style="italic")
    return t


POST_LABELS = ("+1 gem after each purchase", "+1 gem of another colour when taking 2", "gold pays for 2 gems",
               "5 points", "1 point per post held")


def post_text(post: int) -> Text:
    p = POSTS[post]
    t = Text()
    t.append(f"p{post}", style="bold")
    t.append(f" {POST_LABELS[post]} ", style="cyan")
    t.append("(needs ")
    t.append_text(cost_text(p.requirement))
    if p.nobles:
        t.append(f" + {p.nobles} noble")
    t.append(")")
    return t


def noble_text(noble: int) -> Text:
    n = NOBLES[noble]
    t = Text()
    t.append(f"n{noble}", style="bold")
    t.append(f" {n.points}pt ", style="bold magenta")
    t.append_text(cost_text(n.requirement))
    return t


#: the width the board is drawn for: every line of it fits (tests/test_cli_layout.py)
BOARD_WIDTH = 80
#: the mark of a card the seat to move can buy now
CAN_BUY = "✓"


def market_cell(card: int, can_buy: bool = False, stronghold: tuple[int, int] | None = None,
                names: list[str] | None = None) -> Text:
    """A market card in short lines (no word longer than 10 characters, so that six cards and the
    deck column fit the board's width): id (O for the Orient, ✓ when the seat to move can buy
    it), bonus and points, cost, ability, the strongholds on it."""
    c = CARDS[card]
    t = Text()
    t.append(f"#{card}", style="bold")
    if c.orient:
        t.append(" O", style="bold cyan")
    if can_buy:
        t.append(f" {CAN_BUY}", style="bold green")
    t.append("\n")
    t.append_text(bonus_text(card))
    if c.points:
        t.append(f" {c.points}pt", style="bold magenta")
    t.append("\n")
    if c.sacrifice is not None:
        t.append("sacrifice 2 ", style="italic")
        t.append(COLOURS[c.sacrifice], style=STYLES[c.sacrifice])
    else:
        t.append_text(cost_text(c.cost))
    extra = [ABILITY_LABELS[a] for a in c.abilities if a in ABILITY_LABELS and a != "sacrifice"]
    if extra:
        t.append("\n" + ", ".join(extra), style="cyan")
    if stronghold is not None:
        owner, count = stronghold
        who = names[owner] if names else player_name(owner)
        t.append(f"\nstronghold{'s' if count > 1 else ''}:\n{who} x{count}", style="bold yellow")
    return t


def buying_power(seat) -> Text:
    """What a seat can pay with: bonuses + tokens per colour, then its gold (tokens, and the
    Orient gold cards, each worth 2)."""
    power = [b + t for b, t in zip(seat.bonuses, seat.tokens[:5])]
    t = tokens_text(power)
    gold = seat.tokens[5]
    t.append(f" + {gold} gold", style=STYLES[5] if gold else "dim")
    cards = len(seat.gold_cards)
    if cards:
        t.append(f" + {cards} gold card{'s' if cards > 1 else ''} (2 each)", style=STYLES[5])
    return t


def board(view, names: list[str] | None = None, highlight: str | None = None,
          can_buy: frozenset[int] | set[int] = frozenset()) -> Group:
    """The whole board as `view.seat` sees it (a State shows every card: an open game), in at
    most BOARD_WIDTH columns. `names` labels the seats (default "Player N"); `can_buy` holds the
    cards the seat to move can buy now (marked ✓ in the market and in its hand)."""
    names = names or [player_name(i) for i in range(view.players)]
    seats = view.seats
    head = Text()
    head.append(f"Turn {view.turn + 1}", style="bold")
    if view.is_over():
        head.append(" · game over", style="bold red")
    else:
        head.append(f" · {names[view.to_move]} to move")
        if view.final_round:
            head.append(" · final round", style="bold red")

    nobles = Text("Nobles: ", style="bold")
    for i, n in enumerate(view.nobles):
        if i:
            nobles.append("  ")
        nobles.append_text(noble_text(n))
    if not view.nobles:
        nobles.append("none left", style="dim")

    module = view.module
    orient = module == "orient"
    strongholds = view.strongholds if module == "strongholds" else {}
    market = Table(title="Market" + (" (slots 5-6: the Orient)" if orient else ""), title_justify="left",
                   show_header=False, show_lines=True, box=box.HORIZONTALS, show_edge=False, pad_edge=False,
                   padding=(0, 1), collapse_padding=True)
    market.add_column("deck")
    nslots = len(view.market[0])
    for _ in range(nslots):
        market.add_column(ratio=1)
    decks = view.deck_sizes
    for level in (3, 2, 1):
        deck_head = Text(f"Level {level}\n{decks[level - 1]} left", style="bold")
        if orient:
            deck_head.append(f"\nOrient: {decks[level + 2]}", style="bold cyan")
        row = [deck_head]
        for card in view.market[level - 1]:
            if card is None:
                row.append(Text("(empty)", style="dim"))
                continue
            row.append(market_cell(card, card in can_buy, strongholds.get(card), names))
        market.add_row(*row)

    modparts: list[RenderableType] = []
    if module == "cities":
        cities = Text("Cities: ", style="bold")
        for i, c in enumerate(view.cities):
            if i:
                cities.append("  ")
            cities.append_text(city_text(c))
        if not view.cities:
            cities.append("none face up", style="dim")
        claimed = [(c, i) for i, s in enumerate(seats) for c in s.cities]
        if claimed:
            cities.append("  · claimed: ", style="bold")
            cities.append_text(Text(", ").join(Text.assemble(city_text(c), f" by {names[i]}") for c, i in claimed))
        modparts.append(cities)
    if module == "posts":
        posts = Table(title="Trading posts", title_justify="left", show_header=False, show_edge=False, pad_edge=False,
                      box=None, padding=(0, 1))
        posts.add_column(ratio=3)
        posts.add_column(ratio=1)
        for p in range(len(POSTS)):
            held = [names[i] for i, s in enumerate(seats) if p in s.posts]
            posts.add_row(post_text(p), Text("held by " + ", ".join(held), style="bold") if held
                          else Text("free", style="dim"))
        modparts.append(posts)
    if orient:
        pile = Text("Out of the game: ", style="bold")
        pile.append(" ".join(f"#{c}" for c in view.discard) or "-", style="" if view.discard else "dim")
        modparts.append(pile)

    bank = Text("Bank: ", style="bold")
    bank.append_text(tokens_text(view.bank))

    players: list[RenderableType] = [Text("Players", style="bold")]
    for i, s in enumerate(seats):
        players.append(_seat_block(view, i, s, names, can_buy if i == view.to_move else frozenset(), module))
    legend = Text(f"{CAN_BUY} you can buy it now", style="green") if can_buy else None
    parts = [head] + ([nobles] if module != "cities" else []) + modparts + [market, bank] + players
    if legend is not None:
        parts.append(legend)
    if highlight:
        parts.append(Text(highlight, style="bold cyan"))
    return Group(*parts)


def _seat_block(view, i: int, s, names: list[str], can_buy, module: str | None) -> Group:
    """One seat: a head line (name, points, nobles) and labelled rows (tokens, bonuses, buying
    power, reserved cards, the module's holdings), the values wrapping under their column."""
    to_move = i == view.to_move and not view.is_over()
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="dim", min_width=15)
    grid.add_column()
    head = Text("▶ " if to_move else "  ")
    head.append(names[i], style="bold" if to_move else "")
    head.append(f" · {s.points} point{'s' if s.points != 1 else ''}", style="bold magenta")
    if s.nobles:
        head.append(" · nobles " + " ".join(f"n{n}" for n in s.nobles), style="bold")
    held = tokens_text(s.tokens)
    held.append(f" ={sum(s.tokens)}", style="dim")
    grid.add_row("  tokens", held)
    grid.add_row("  bonuses", tokens_text(s.bonuses))
    grid.add_row("  buying power", buying_power(s))
    reserved = Text()
    for j, card in enumerate(s.reserved):
        if j:
            reserved.append(", ")
        if card is None:
            reserved.append(f"level-{s.reserved_levels[j]} card (hidden)", style="italic dim")
        else:
            reserved.append_text(card_text(card, compact=True))
            if card in can_buy:
                reserved.append(f" {CAN_BUY}", style="bold green")
            if s.reserved_blind[j]:
                reserved.append(" blind", style="dim")
    if s.reserved:
        grid.add_row("  reserved", reserved)
    if module == "orient":
        jokers = dict(s.jokers)
        specials = [c for c in s.cards if CARDS[c].orient]
        if specials:
            grid.add_row("  Orient cards", Text(", ").join(card_text(c, compact=True, joker=jokers.get(c))
                                                           for c in specials))
        if s.held_nobles:
            grid.add_row("  held nobles", Text(" ".join(f"n{n}" for n in s.held_nobles), style="bold"))
    elif module == "cities" and s.cities:
        grid.add_row("  cities", Text(" ".join(f"c{c}" for c in s.cities), style="bold green"))
    elif module == "posts" and s.posts:
        grid.add_row("  trading posts", Text(" ".join(f"p{p}" for p in s.posts), style="bold cyan"))
    elif module == "strongholds":
        grid.add_row("  strongholds", Text(f"{s.strongholds} in hand", style="bold yellow" if s.strongholds else "dim"))
    return Group(head, grid)


def move_list(moves: list[str], numbered_from: int = 1) -> Table:
    """A compact grid of numbered moves."""
    grid = Table.grid(padding=(0, 2))
    cols = 6
    for _ in range(cols):
        grid.add_column(no_wrap=True)
    cells = [Text.assemble((f"{i + numbered_from:>2}", "dim"), " ", m) for i, m in enumerate(moves)]
    for r in range(0, len(cells), cols):
        grid.add_row(*cells[r:r + cols])
    return grid


def analysis_table(console: Console, a) -> None:
    from ..analysis import pct
    n = len(a.seat_winrates)
    head = Text()
    head.append(f"{player_name(a.to_move)} to move", style="bold")
    head.append(f" · turn {a.turn + 1} · analysed from {player_name(a.seat)}'s view (seat {a.seat})")
    console.print(head)
    console.print(f"{a.iterations} iterations in {a.seconds:.2f} s, {a.nodes} nodes, spec {a.spec}, seed {a.seed}",
                  markup=False)
    wr = Text("Win rates now: ")
    wr.append(" · ".join(f"{player_name(i)} {pct(v)}" for i, v in enumerate(a.seat_winrates)))
    console.print(wr)
    t = Table(show_edge=False)
    t.add_column("#", justify="right")
    t.add_column("move", no_wrap=True, style="bold")
    t.add_column("visits", justify="right")
    t.add_column("win", justify="right")
    for i in range(n):
        t.add_column(f"P{i + 1}", justify="right")
    t.add_column("prior", justify="right")
    t.add_column("expected line")
    for i, m in enumerate(a.moves):
        line = " ".join(m.pv[:8]) + (" …" if len(m.pv) > 8 else "")
        t.add_row(str(i + 1), m.move, str(m.visits), pct(m.winrate), *[pct(v) for v in m.seat_winrates],
                  f"{m.prior:.2f}", line)
    console.print(t)
    for i, m in enumerate(a.moves):
        console.print(Text.assemble((f"{i + 1}. {m.move}", "bold"), ": ", m.description or "(no description)"))

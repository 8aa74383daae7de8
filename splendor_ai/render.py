"""Terminal rendering with rich: the board as one seat sees it, and analysis tables.

The board is drawn from a `View`, so an opponent's blind reserve is shown as "level-2 card
(hidden)" and nothing hidden can reach the screen.
"""
from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .cards import CARDS, COLOURS, LETTERS, NOBLES

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


def card_text(card: int, compact: bool = False) -> Text:
    c = CARDS[card]
    t = Text()
    t.append(f"#{card}", style="bold")
    t.append(" ")
    t.append(COLOURS[c.bonus], style=STYLES[c.bonus])
    if c.points:
        t.append(f" {c.points}pt", style="bold magenta")
    t.append(" " if compact else "\n")
    if compact:
        t.append("(")
    t.append_text(cost_text(c.cost))
    if compact:
        t.append(")")
    return t


def noble_text(noble: int) -> Text:
    n = NOBLES[noble]
    t = Text()
    t.append(f"n{noble}", style="bold")
    t.append(f" {n.points}pt ", style="bold magenta")
    t.append_text(cost_text(n.requirement))
    return t


def board(view, names: list[str] | None = None, highlight: str | None = None) -> Group:
    """The whole board as `view.seat` sees it. `names` labels the seats (default "Player N")."""
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

    market = Table(title="Market", title_justify="left", show_header=False, show_lines=True, expand=False,
                   pad_edge=True)
    market.add_column("deck", no_wrap=True)
    for _ in range(4):
        market.add_column(no_wrap=True)
    for level in (3, 2, 1):
        row = [Text(f"Level {level}\n{view.deck_sizes[level - 1]} in deck", style="bold")]
        for card in view.market[level - 1]:
            row.append(card_text(card) if card is not None else Text("(empty)", style="dim"))
        market.add_row(*row)

    bank = Text("Bank: ", style="bold")
    bank.append_text(tokens_text(view.bank))

    players = Table(title="Players", title_justify="left", show_lines=True)
    players.add_column("", no_wrap=True)
    players.add_column("player", no_wrap=True)
    players.add_column("tokens / bonuses", no_wrap=True)
    players.add_column("reserved")
    players.add_column("nobles")
    for i, s in enumerate(seats):
        marker = "▶" if i == view.to_move and not view.is_over() else ""
        reserved = Text()
        for j, card in enumerate(s.reserved):
            if j:
                reserved.append("\n")
            if card is None:
                reserved.append(f"level-{s.reserved_levels[j]} card (hidden)", style="italic dim")
            else:
                reserved.append_text(card_text(card, compact=True))
                if s.reserved_blind[j]:
                    reserved.append(" blind", style="dim")
        if not s.reserved:
            reserved.append("-", style="dim")
        nob = Text(" ".join(f"n{n}" for n in s.nobles) or "-", style="bold" if s.nobles else "dim")
        holdings = Text("tokens  ", style="dim")
        holdings.append_text(tokens_text(s.tokens))
        holdings.append(f" ={sum(s.tokens)}", style="dim")
        holdings.append("\nbonuses ", style="dim")
        holdings.append_text(tokens_text(s.bonuses))
        who = Text(names[i], style="bold" if i == view.to_move else "")
        who.append(f"\n{s.points} point{'s' if s.points != 1 else ''}", style="bold magenta")
        players.add_row(marker, who, holdings, reserved, nob)
    parts = [head, nobles, market, bank, players]
    if highlight:
        parts.append(Text(highlight, style="bold cyan"))
    return Group(*parts)


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
    from .analysis import pct
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

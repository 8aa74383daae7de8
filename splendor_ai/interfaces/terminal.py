"""`splendor play`: a game in the terminal against the AI.

The game loop holds the true `State` (like the match runner); the board shown to the human and
everything the AI and the hints search are views of one seat. Input is read line by line, so the
game can be driven through a pipe (tests do).

Hidden information: nothing printed while the game goes on depends on a card the human cannot
see. The deal seed (which with the moves gives the deck order and every blind reserve) is shown
only when the game is over, or from the start in a game started with `--open`.

Files are never lost: `save FILE` refuses to replace a file (`save! FILE` does), every save is
atomic (records.save_record), and the game is saved on its own when the player leaves (`quit`,
end of input, Ctrl-C, even while the AI thinks) to a file in `save_dir()`, named on screen.
"""
from __future__ import annotations

import datetime
import os
import re
import sys
import threading
import time
import warnings
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..cards import CARDS, CITIES, COLOURS, LETTERS, NOBLES, TOKEN_NAMES
from ..errors import ConfigError, IllegalMoveError, NotationError, RecordError, SplendorError
from ..session import GameSession, new_seed
from ..move import (BUY, CITY, CONQUER, DISCARD, FREE, GEM, HOLD, JOKER, NOBLE, PASS, PLACE, REMOVE, RESERVE,
                    RESERVE_DECK, RETURN, SH_MOVE, TAKE, Move, _fragment)
from .render import BOARD_WIDTH, board, move_list, player_name

HELP = """\
On your turn, type one of:
  a number       the action with that number in the list; the game then asks
                 each decision that follows it (tokens to return, a noble, the
                 module's decisions)
  an action      +wbg (take white, blue, green), +rr (two red), r17 (reserve
                 card 17), rL2 (reserve the top of the level-2 deck), b45 (buy
                 card 45), pass; the decisions that follow are asked as above
  a whole turn   the action and its decisions, each after a '/'
                 (docs/NOTATION.md): +wbg/-kk (return two black), b45/n3
                 (noble 3 visits); with a module: jr (joker joins red), h7
                 (reserve noble 7), f12 (take card 12 free), d80/d84 (discard
                 two cards), t30 (place a stronghold on card 30), m30:31 (move
                 one), x30 (remove an opponent's), b30 (conquer card 30), +w
                 (extra gem), c4 (claim city 4); rO2 reserves blind from the
                 Orient level-2 deck. E.g. b108/jr/f12, b12/t30
  cancel         (at a decision) back to the choice of an action
  moves          list the legal moves with what they do
  hint           ask the AI for the best move, with its reasons
  undo           take back your last move (and the AI's replies)
  board          show the board again
  save FILE      save the game as a game record (docs/RECORDS.md); an
                 existing file is kept: save! FILE replaces it
  load FILE      continue a game saved in FILE (a record or a position)
  help           this text
  quit           leave the game; it is saved first (as on Ctrl-C or at the
                 end of the input)"""


#: the longest input line read (a move or a command with a file name is far shorter)
MAX_INPUT_CHARS = 4096

MODULE_TITLES = {"cities": "The Cities", "orient": "The Orient", "posts": "The Trading Posts",
                 "strongholds": "The Strongholds"}


class Quit(Exception):
    pass


def save_dir() -> Path:
    """Where games are saved when the player leaves: $SPLENDOR_SAVE_DIR, else the user's data
    folder (platformdirs: ~/.local/share/splendor_ai/saves on Linux)."""
    env = os.environ.get("SPLENDOR_SAVE_DIR")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_data_dir("splendor_ai")) / "saves"


def _search_seed(seed: int, *parts: int) -> int:
    from ..players.mcts import derive_seed
    return derive_seed(seed, *parts)


class Game:
    """The terminal front end of one `GameSession` (splendor_ai/session.py): the session holds the
    true state, the AI players (kept across moves, so their trees are reused and `mcts(seconds=1)`
    is the player tournaments measure), undo, hints, the record and its autosave; this class
    reads the human's input, asks the decisions of a turn and draws the board of a seat's view."""

    session: GameSession

    def __init__(self, args, console: Console):
        from ..errors import CLIError
        from ..players.spec import DEFAULT_AI
        self.console = console
        self.interactive = sys.stdin.isatty()
        players = args.players
        humans = args.seat if args.seat is not None else [0]
        for s in humans:
            if not 0 <= s < players:
                raise CLIError(f"--seat {s}: seats are 0-{players - 1} in a {players}-player game "
                               f"(Player 1-{players} on the board)")
        if not 0 <= args.first_player < players:
            raise CLIError(f"--first-player {args.first_player}: seats are 0-{players - 1} (Player 1-{players} on "
                           "the board)")
        humans = set(humans)
        ai_seats = [s for s in range(players) if s not in humans]
        specs = args.ai or [DEFAULT_AI]
        if len(specs) not in (1, len(ai_seats)):
            raise CLIError(f"--ai given {len(specs)} times for {len(ai_seats)} AI seats: give it once, or once "
                           "per AI seat")
        from .protocol import check_spec_option
        for spec in specs:
            check_spec_option(spec, "--ai")
        self.default_ai = specs[0]
        seats = ["human" if s in humans else specs[ai_seats.index(s) if len(specs) > 1 else 0]
                 for s in range(players)]
        self.seed = args.seed if args.seed is not None else new_seed()
        self.open = bool(getattr(args, "open", False))
        self.hidden_dealt = False               # a public position's hidden cards were dealt from the seed
        self.hint_spec = args.hint_spec
        if self.hint_spec is not None:
            from ..analysis import check_search_spec
            check_spec_option(self.hint_spec, "--hint")
            try:
                self.hint_spec = check_search_spec(self.hint_spec)
            except ConfigError as e:
                raise CLIError(f"--hint: {e}") from None
        # the session reports a failed autosave in `autosave_error`, which the game shows
        warnings.filterwarnings("ignore", message="autosave to ", category=UserWarning)
        self.shown_error: str | None = None
        self.shown_for: tuple | None = None
        self.warned_width = False
        module = getattr(args, "module", None)
        position = getattr(args, "position", None)
        if position is not None and args.load:
            raise CLIError("give --position or --load, not both")
        if args.load:
            self.load(args.load, startup=True, humans=humans)
            return
        if position is not None:
            try:
                state = self.deal_position(position.strip(), humans, "--seat")
            except SplendorError as e:
                raise CLIError(f"--position: {e}") from None
            if state.players != players:
                if args.players != 2:
                    raise CLIError(f"--position: a {state.players}-player position; give --players "
                                   f"{state.players} (or leave it out)")
                for s in humans:
                    if s >= state.players:
                        raise CLIError(f"--seat {s}: the position has seats 0-{state.players - 1} "
                                       f"(Player 1-{state.players} on the board)")
                seats = ["human" if s in humans else self.default_ai for s in range(state.players)]
            if module is not None and state.module != module:
                raise CLIError(f"--module {module}: the position is a game "
                               f"{'of the ' + state.module + ' module' if state.module else 'without a module'}")
            self.start(state, seats, seed=None)
        else:
            from ..state import Config, State
            state = State.new(players, seed=self.seed, first_player=args.first_player,
                              config=Config(players=players, modules=(module,) if module else ()))
            self.start(state, seats, seed=self.seed)

    # -- setup -------------------------------------------------------------------------------------

    def start(self, state, seats: list[str], seed: int | None) -> None:
        """Play `state` with `seats` in a new session."""
        from ..session import GameSession
        self.adopt(lambda **kw: GameSession(state, seats, seed=seed, **kw), from_position=seed is None)

    def adopt(self, make, from_position: bool) -> None:
        """Play the session `make(**options)` builds: this game's hint spec, its own autosave file
        in save_dir() (written by the session after every move)."""
        from ..errors import CLIError
        path = self.new_save_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            self.say(f"Games cannot be saved in {path.parent}: {e.strerror or e}", style="red", whole=True)
        try:
            session = make(hint_spec=self.hint_spec, autosave=path, event="splendor play")
        except ConfigError as e:
            raise CLIError(f"--ai: {e}") from None
        old = getattr(self, "session", None)
        if old is not None:
            old.close()
        self.session = session
        self.from_position = from_position
        self.shown_for = None

    @staticmethod
    def new_save_path() -> Path:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        return save_dir() / f"game-{stamp}-{os.getpid()}.jsonl"

    @property
    def state(self):
        """The true state: read here to draw an open game and the result, never shown otherwise."""
        return self.session.state

    @property
    def humans(self) -> frozenset[int]:
        return self.session.humans

    def deal_position(self, text: str, humans: set[int], what: str = "seat"):
        """The true state of a position string: a true position as it is, or a public one (a
        seat's view, as `splendor analyse` prints it) with its hidden cards (the decks' order,
        the other seats' blind reserves) dealt at random from the deal seed, consistently with
        what it shows. Every human seat must see its own cards: a seat whose reserve is hidden
        in the position cannot be played."""
        from ..errors import PositionError
        from ..state import State, View
        if len(text) > MAX_INPUT_CHARS:
            raise PositionError(f"a position of {len(text)} characters is not a position")
        if "?" not in text:
            self.hidden_dealt = False
            return State(text)
        view = View.from_position(text)
        for h in sorted(humans):
            if h < view.players and None in view.seats[h].reserved:
                raise PositionError(f"{player_name(h)}'s reserved cards are hidden in this position, so that seat "
                                    f"cannot be played from it ({what} {h}); play the seat whose view it is")
        self.hidden_dealt = True
        return view.resample(_search_seed(self.seed, 31337))

    def close(self) -> None:
        if getattr(self, "session", None) is not None:
            self.session.close()

    # -- output ------------------------------------------------------------------------------------

    def say(self, text, style: str | None = None, whole: bool = False) -> None:
        """A message, wrapped at the console's width; `whole`: as one line that the terminal
        wraps (a message naming a file, so that the name can be copied)."""
        if isinstance(text, str):
            text = Text(text, style=style or "")
        self.console.print(text, soft_wrap=whole)

    def names(self) -> list[str]:
        out = []
        for s in range(self.session.players):
            out.append(f"{player_name(s)} (you)" if s in self.humans and len(self.humans) == 1
                       else f"{player_name(s)} (human)" if s in self.humans else f"{player_name(s)} (AI)")
        return out

    def viewer(self) -> int:
        st = self.state
        if st.to_move in self.humans and not st.is_over():
            return st.to_move
        return min(self.humans) if self.humans else st.to_move

    def show_board(self) -> None:
        # an open game shows every card; otherwise the board is the viewer's view
        shown = self.state if self.open else self.session.view(self.viewer())
        self.console.print(board(shown, self.names(), can_buy=self.can_buy()))
        if self.console.width < BOARD_WIDTH and not self.warned_width:
            self.warned_width = True
            self.say(f"(The board is drawn for {BOARD_WIDTH} columns; this terminal has {self.console.width}, so "
                     "some lines wrap.)", style="dim")

    def can_buy(self) -> frozenset[int]:
        """The cards the human to move can buy now (none when it is not a human's turn)."""
        st = self.state
        if not self.session.human_to_move() or st.partial_move is not None:
            return frozenset()        # (in a turn's second step the card is bought already)
        return frozenset(m.card for m in self.legal() if m.kind == BUY)

    def show_moves(self, describe: bool) -> None:
        actions = self.actions()
        view = self.session.view(self.state.to_move)
        if describe:
            grid = Table.grid(padding=(0, 1))
            grid.add_column(justify="right", style="dim", no_wrap=True)
            grid.add_column(style="bold", no_wrap=True)
            grid.add_column()
            for i, (action, turns) in enumerate(actions.items(), 1):
                text = action_description(view, turns)
                if len(turns) > 1:
                    text += f" (then you choose: {len(turns)} ways)"
                grid.add_row(f"{i}.", str(turns[0] if len(turns) == 1 else action), text)
            self.console.print(grid)
        else:
            self.console.print(Text("Your moves (a number, or the move; … = choices follow):", style="bold"))
            self.console.print(move_list([str(a) + ("…" if len(t) > 1 else "") for a, t in actions.items()]))

    def legal(self):
        """The moves the human to move can choose: their view's legal moves (the same as the true
        state's: a decision that may use a card the turn reveals comes in the turn's second step,
        docs/RULES.md "Two-step turns")."""
        return list(self.session.view(self.state.to_move).legal_moves)

    def actions(self) -> dict:
        """The legal actions, in the order of the legal moves, each with its whole turns."""
        out: dict = {}
        for m in self.legal():
            out.setdefault(m.action, []).append(m)
        return out

    # -- the loop ----------------------------------------------------------------------------------

    def run(self) -> int:
        module = self.state.module
        deal = f"deal seed {self.seed} (an open game)" if self.open else "the deal seed is shown when the game ends"
        specs = self.session.specs
        self.say(f"Splendor{' with ' + MODULE_TITLES[module] if module else ''}: {self.state.players} players, "
                 f"{deal}. You play "
                 f"{', '.join(player_name(s) for s in sorted(self.humans))}; AI: "
                 f"{', '.join(f'{player_name(s)} {spec}' for s, spec in enumerate(specs) if s not in self.humans) or 'none'}. "
                 "Type 'help' for commands.", style="bold")
        status = 0
        try:
            self.loop()
        except Quit:
            pass
        except KeyboardInterrupt:
            self.session.cancel_search()
            self.console.print()
            self.say("(interrupted)")
            status = 130
        finally:
            self.close()
        self.autosave()
        return status

    def loop(self) -> None:
        while True:
            st = self.state
            if st.is_over():
                if self.shown_for != ("over", len(st.move_stack)):
                    self.show_board()
                    self.show_result()
                    self.say("The game is over: save FILE, undo, load FILE or quit.")
                    self.shown_for = ("over", len(st.move_stack))
                self.command(self.read("game over> "), game_over=True)
            elif st.to_move in self.humans:
                self.show_autosave_error()
                key = ("turn", len(st.move_stack), st.partial_move is not None)
                if self.shown_for != key:
                    self.show_board()
                    self.show_moves(describe=False)
                    self.shown_for = key
                self.command(self.read(f"{player_name(st.to_move)}, your move> "))
            else:
                self.ai_move()

    def show_autosave_error(self) -> None:
        error = self.session.autosave_error
        if error and error != self.shown_error:
            self.say(f"The game could not be saved: {error}", style="red", whole=True)
        self.shown_error = error

    def read(self, prompt: str) -> str:
        self.console.print(Text(prompt, style="bold cyan"), end="")
        self.console.file.flush()
        line = sys.stdin.readline(MAX_INPUT_CHARS + 1)
        if not line:
            self.console.print()
            self.say("(end of input: leaving the game)")
            raise Quit
        if len(line) > MAX_INPUT_CHARS:
            while line and not line.endswith("\n"):
                line = sys.stdin.readline(MAX_INPUT_CHARS)
            if not self.interactive:
                self.console.print()
            self.say(f"That line is longer than {MAX_INPUT_CHARS} characters: ignored.", style="red")
            return ""
        line = line.strip()
        if not self.interactive:
            self.console.print(line, markup=False, highlight=False)  # echo piped input
        return line

    def command(self, line: str, game_over: bool = False) -> None:
        if not line:
            return
        word, _, rest = line.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if word in ("quit", "exit", "q"):
            raise Quit
        if word in ("help", "?", "h"):
            self.say(HELP)
        elif word == "board":
            self.show_board()
        elif word == "undo":
            self.undo()
        elif word in ("save", "save!", "load"):
            if not rest:
                self.say(f"Usage: {word} FILE", style="red")
            elif word == "load":
                self.load(rest)
            else:
                self.save(rest, overwrite=word == "save!")
        elif game_over:
            self.say(f"Unknown command {line[:40]!r}: the game is over (save FILE, undo, load FILE, quit).",
                     style="red")
        elif word in ("moves", "list", "m"):
            self.show_moves(describe=True)
        elif word == "hint":
            self.hint()
        else:
            self.human_move(line)

    def human_move(self, text: str) -> None:
        """A move typed by the human to move: a number from the list or notation, whole or only
        its action (then each decision is asked in turn)."""
        st = self.state
        view = self.session.view(st.to_move)
        actions = self.actions()
        if text.isdigit():
            n = int(text) if len(text) < 6 else 0
            if not 1 <= n <= len(actions):
                self.say(f"There is no move number {text}: pick 1-{len(actions)}, or type 'moves' to see them.",
                         style="red")
                return
            turns = list(actions.values())[n - 1]
        else:
            text = canonical(text)
            try:
                move = Move.parse(text)
            except NotationError as e:
                self.say(f"Not a move or command: {self.notation_problem(view, e)}. Type 'help' for commands, "
                         "'moves' for the legal moves.", style="red")
                return
            try:
                turns = [view.parse_move(text)]        # a whole turn (a lone noble or city is filled in)
            except IllegalMoveError:
                turns = [m for m in actions.get(move.action, []) if _contains(m.decisions, move.decisions)]
            if not turns:
                self.say(f"Illegal move: {move}: {why_illegal(view, move)}. Type 'moves' for the legal moves.",
                         style="red")
                return
        move = self.ask_decisions(view, turns)
        if move is None:
            self.say("(move cancelled)")
            return
        desc = view.describe(move)
        move = self.session.play(move)
        self.say(Text.assemble(("You play ", "bold"), (str(move), "bold green"), f": {desc}"))
        if self.state.partial_move is not None:
            self.say("The new card is face up: now choose the rest of your turn (the whole turn, or just "
                     "its decisions, e.g. 't36').")

    def ask_decisions(self, view, turns: list):
        """One whole turn out of `turns` (of one action), asking the human each decision that
        tells them apart; None if they cancel."""
        at = 0
        while len(turns) > 1:
            at, choices = next_choice(turns, at)
            self.say(question(choices), style="bold")
            many = choices[0] not in (SKIP, None) and choices[0][0] == RETURN and len(choices) > 12
            if many:
                example = _fragment(*choices[0])[1:]
                self.say(f"  type the colours ({', '.join(TOKEN_NAMES[c] + '=' + LETTERS[c] for c in range(6))}), "
                         f"e.g. {example}")
            else:
                for i, c in enumerate(choices, 1):
                    self.say(f"  {i:>2}. {decision_label(view, c)}")
            while True:
                answer = self.read("  choice> ")
                if answer.lower() in ("cancel", "back"):
                    return None
                if answer.lower() in ("quit", "exit", "q"):
                    raise Quit
                choice = match_choice(answer, choices)
                if choice is not None:
                    break
                if answer:
                    self.say(f"Not one of the choices: {answer[:40]!r}. Type its number"
                             f"{' or the colours' if many else ' or notation'}, or 'cancel'.", style="red")
            at, turns = narrow(turns, at, choice)
        return turns[0]

    def notation_problem(self, view, e: NotationError) -> str:
        """A notation error in the game's own terms (a base game's cards are 0-89)."""
        text = str(e)
        m = re.search(r"card (\d+) does not exist \(cards are 0-\d+\)", text)
        if m:
            return f"there is no card {m[1]}: this game's cards are {card_range(view)}"
        return text

    def ai_move(self) -> None:
        """The AI to move thinks (the session's player, its tree kept from its last move) and plays."""
        from ..session import PlayerFault
        seat = self.state.to_move
        spec = self.session.specs[seat]
        label = f"{player_name(seat)} is thinking ({spec})"
        status = {"text": label + "..."}

        def progress(t) -> None:      # one aggregate figure of the AI's own search
            status["text"] = f"{label}: {t.elapsed:.1f} s, {t.info.iterations} iterations"
            if self._status is not None:
                self._status.update(status["text"])
        try:
            played = self.think(lambda: self.session.ai_move(progress=progress), status["text"])
        except PlayerFault as e:   # a bug in a bot: say so and leave (the game is saved as it was)
            self.say(f"{player_name(seat)}'s AI could not move ({e}); the game stops.", style="red")
            raise Quit from None
        if played is None:
            return
        turn = self.session.history[-1]
        figures = f"{turn.seconds:.1f} s" if turn.seconds is not None else ""
        info = turn.info
        if info is not None and info.moves and info.moves[0].visits and info.moves[0].value == info.moves[0].value:
            figures = f"{100 * info.moves[0].value:.0f}% win rate for it, {info.iterations} iterations, {figures}"
        desc = turn.description
        if desc == turn.move:
            # a two-step turn is described on the true state before it (all of it is public now)
            before = self.state.copy()
            before.pop()
            try:
                desc = before.describe(turn.move)
            except SplendorError:
                pass
        self.say(Text.assemble((f"{player_name(seat)} (AI) plays ", "bold"), (turn.move, "bold magenta"),
                               f": {desc} ", (f"[{figures}]", "dim")))

    _status = None

    def think(self, work, status: str):
        """Run a search on a worker thread while this one waits, so that Ctrl-C is taken at once
        (the C search holds no lock Python needs; the session then cancels the search and the game
        stays as it was before it). The abandoned thread is a daemon: it ends with the program."""
        box: dict = {}

        def target():
            try:
                box["value"] = work()
            except BaseException as e:  # handed to the game's thread
                box["error"] = e
        worker = threading.Thread(target=target, name="splendor-search", daemon=True)
        try:
            if self.interactive:
                with self.console.status(status) as self._status:
                    worker.start()
                    while worker.is_alive():
                        worker.join(0.1)
            else:
                worker.start()
                while worker.is_alive():
                    worker.join(0.1)
        finally:
            self._status = None
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def show_result(self) -> None:
        r = self.state.result()
        pts = ", ".join(f"{player_name(s)} {p} points ({c} cards)" for s, (p, c) in enumerate(zip(r.points, r.cards)))
        if r.winners:
            who = " and ".join(player_name(s) + (" (you)" if s in self.humans else "") for s in r.winners)
            self.say(f"Game over: {who} {'win' if len(r.winners) > 1 else 'wins'}. {pts}.", style="bold green")
        else:
            why = {"cap": "the turn cap was reached"}.get(r.reason, "every player had to pass")
            self.say(f"Game over without a winner: {why}. {pts}.", style="bold yellow")
        # everything may be known now: the deal that the seed and the moves give
        if self.from_position and self.hidden_dealt:
            self.say(f"Deal seed: {self.seed} (it dealt the cards the position hid: give --seed {self.seed} with "
                     "the same --position to deal them again).")
        elif not self.from_position:
            self.say(f"Deal seed: {self.seed} (the same deal again: splendor play --seed {self.seed}"
                     f"{' --players ' + str(self.state.players) if self.state.players != 2 else ''}"
                     f"{' --module ' + self.state.module if self.state.module else ''}).")

    # -- commands ----------------------------------------------------------------------------------

    def hint(self) -> None:
        from ..analysis import pct
        from ..session import SessionError
        t0 = time.perf_counter()
        try:
            h = self.think(self.session.hint, f"Thinking about a hint ({self.session.hint_spec})...")
        except SessionError as e:
            self.say(f"No hint: {e}.", style="red")
            return
        self.say(Text.assemble(("Hint: ", "bold"), (h.move, "bold green"), f" — {h.reason}",
                               (f" [{time.perf_counter() - t0:.1f} s]", "dim")))
        if h.runner_up is not None:
            r = h.runner_up
            self.say(f"Runner-up: {r.move} ({pct(r.winrate)}, {r.visits} visits): {r.description or ''}")

    def undo(self) -> None:
        from ..session import SessionError
        try:
            undone = self.session.undo()
        except SessionError:
            self.say("Nothing to undo: you have not moved yet.", style="red")
            return
        # a turn played in two steps is on the stack as its first step and the whole turn: name the turn
        shown = [m for i, m in enumerate(undone)
                 if not (i and not m.decisions and undone[i - 1].action == m and undone[i - 1] != m)][::-1]
        self.shown_for = None
        self.say(f"Undid {len(shown)} move{'s' if len(shown) > 1 else ''} "
                 f"({', '.join(str(m) for m in shown)}); {player_name(self.state.to_move)} to move.")

    def save(self, path: str, overwrite: bool = False) -> None:
        try:
            rec = self.session.save(os.path.expanduser(path), overwrite=overwrite)
        except FileExistsError:
            self.say(f"{path} exists: not replaced. Type 'save! {path}' to replace it, or give another name.",
                     style="red", whole=True)
            return
        except (OSError, RecordError) as e:
            self.say(f"Could not save to {path}: {getattr(e, 'strerror', None) or e}", style="red", whole=True)
            return
        self.say(f"Saved the game ({len(rec.moves)} moves) to {path}.", whole=True)

    def autosave(self) -> None:
        """As the player leaves: the session has kept the game in its file in save_dir() after
        every move; write it once more and say where it is (a game with no move played is not
        saved: there is nothing to lose)."""
        from ..records import save_record
        session = self.session
        if not session.moves and not self.from_position:
            return
        path = session.autosave
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            rec = session.record()
            save_record(path, rec, overwrite=True)
        except (OSError, RecordError) as e:
            self.say(f"Could not save the game in {path.parent}: {getattr(e, 'strerror', None) or e}", style="red",
                     whole=True)
            return
        self.say(f"The game ({len(rec.moves)} moves) is saved in {path}; continue it with: "
                 f"splendor play --load {path}", whole=True)

    def load(self, path: str, startup: bool = False, humans: set[int] | None = None) -> None:
        from ..errors import CLIError
        from ..players.spec import make_player
        from ..records import read_records
        path = os.path.expanduser(path)
        humans = set(humans if humans is not None else self.humans)
        try:
            with open(path, "rb") as f:
                first = f.readline(MAX_INPUT_CHARS + 1)
            if first.startswith(b"SPN"):
                try:
                    text = first.decode("utf-8").strip()
                except UnicodeDecodeError:
                    raise RecordError("the position on the first line is not UTF-8 text") from None
                return self._load_position(path, text, startup, humans)
            records = read_records(path, strict=True)
            rec = next(records, None)
            if rec is None:
                raise RecordError("no game record in the file")
            more = next(records, None) is not None
            rec.replay()
        except (OSError, SplendorError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            if startup:
                raise CLIError(f"--load {path}: {why}") from None
            self.say(f"Could not load {path}: {why}", style="red", whole=True)
            return
        n = rec.config.players
        chosen = {s for s, spec in enumerate(rec.players) if spec == "human"}
        if not chosen:
            chosen = {s for s in humans if s < n} or {0}
        seats = []
        for s, spec in enumerate(rec.players):
            if s in chosen:
                seats.append("human")
                continue
            try:
                make_player(spec).close()
                seats.append(spec)
            except (ConfigError, TypeError):
                seats.append(self.default_ai)
        from ..session import GameSession
        if rec.seed is not None:
            self.seed = rec.seed
        self.hidden_dealt = False
        self.adopt(lambda **kw: GameSession.from_record(rec, seats, **kw), from_position=rec.seed is None)
        extra = " (the first game in the file)" if more else ""
        module = rec.config.module
        self.say(f"Loaded {path}{extra}: {n} players{', ' + MODULE_TITLES[module] if module else ''}, "
                 f"{len(rec.moves)} moves played; you play {', '.join(player_name(s) for s in sorted(chosen))}.",
                 whole=True)

    def _load_position(self, path: str, text: str, startup: bool, humans: set[int]) -> None:
        """`load FILE` of a file holding a position string (SPN1 or SPN2; a public one has its
        hidden cards dealt, as for --position): a new game from there, with the same human seats
        (or seat 0) and AI."""
        from ..errors import CLIError
        try:
            state = self.deal_position(text, {s for s in humans if s < 4} or {0}, "seat")
        except SplendorError as e:
            if startup:
                raise CLIError(f"--load {path}: {e}") from None
            self.say(f"Could not load {path}: {e}", style="red", whole=True)
            return
        n = state.players
        chosen = {s for s in humans if s < n} or {0}
        current = getattr(self, "session", None)
        ai = next((sp for sp in (current.specs if current else []) if sp != "human"), self.default_ai)
        self.start(state, ["human" if s in chosen else ai for s in range(n)], seed=None)
        module = state.module
        self.say(f"Loaded the position in {path}: {n} players{', ' + MODULE_TITLES[module] if module else ''}, "
                 f"{player_name(state.to_move)} to move; you play {', '.join(player_name(s) for s in sorted(chosen))}.",
                 whole=True)


# -- a turn, one decision at a time -----------------------------------------------------------------

#: the clauses State.describe adds for a turn's decisions (cut off to describe the action alone)
_DECISION_CLAUSES = (", then returns ", ", and is visited by noble ", ", attaching the joker ", ", reserves noble ",
                     ", takes card #", ", places a stronghold", ", moves a stronghold", ", removes an opponent's",
                     ", then conquers ", ", takes an extra ", ", and claims ")
#: what the question is, by the kind of the choices
_QUESTIONS = {RETURN: None, NOBLE: "Which noble visits you?", CITY: "Which city do you claim?",
              JOKER: "Which of your colours does the joker join?", HOLD: "Which noble do you reserve?",
              FREE: "Which card do you take free?", DISCARD: "Which card do you discard (the price is two cards)?",
              CONQUER: "Which card do you conquer?", GEM: "Which extra gem do you take (trading post)?"}
_STRONGHOLD_TAGS = {PLACE, SH_MOVE, REMOVE}
#: the choice of not taking an optional decision (e.g. no stronghold action)
SKIP = ("skip", None)


def _rank(decision) -> int:
    """0 for the action's follow-ups (module decisions), then returns, noble, city (move.py)."""
    if decision is None:
        return 9
    return {RETURN: 1, NOBLE: 2, CITY: 3}.get(decision[0], 0)


def action_description(view, moves: list) -> str:
    """What an action does, in words, without the decisions that may follow it."""
    text = view.describe(moves[0])
    if len(moves) > 1:
        cut = min((text.find(c) for c in _DECISION_CLAUSES if c in text), default=-1)
        if cut >= 0:
            text = text[:cut] + "."
    return text


def decision_label(view, decision) -> str:
    """A decision choice in notation and words: 'n3: noble 3 (4 red and 4 black bonuses, 3 points)'."""
    if decision == SKIP:
        return "none"
    if decision is None:
        return "nothing more"
    tag, value = decision
    frag = _fragment(tag, value)
    if tag == RETURN:
        return f"{frag}: return {_tokens_words(value)}"
    if tag in (NOBLE, HOLD):
        n = NOBLES[value]
        req = " and ".join(f"{k} {COLOURS[c]}" for c, k in enumerate(n.requirement) if k)
        what = "noble" if tag == NOBLE else "reserve noble"
        return f"{frag}: {what} {value} ({req} bonuses, {n.points} points)"
    if tag == CITY:
        return f"{frag}: {CITIES[value]}"
    if tag == JOKER:
        return f"{frag}: the joker joins your {COLOURS[value]} cards"
    if tag in (FREE, DISCARD, CONQUER):
        verb = {FREE: "take", DISCARD: "discard", CONQUER: "conquer"}[tag]
        return f"{frag}: {verb} card {CARDS[value]}"
    if tag == PLACE:
        return f"{frag}: place a stronghold on card #{value}"
    if tag == SH_MOVE:
        return f"{frag}: move a stronghold from card #{value[0]} to card #{value[1]}"
    if tag == REMOVE:
        return f"{frag}: remove an opponent's stronghold from card #{value}"
    if tag == GEM:
        return f"{frag}: take an extra {COLOURS[value]} gem"
    return frag


def _tokens_words(colours) -> str:
    counts = [0] * 6
    for c in colours:
        counts[c] += 1
    return " and ".join(f"{n} {TOKEN_NAMES[c]}" for c, n in enumerate(counts) if n)


def next_choice(moves: list, at: int) -> tuple[int, list]:
    """The first decision, from index `at` on, that tells `moves` (whole turns of one action)
    apart: its index and the choices there (an optional follow-up can be skipped: SKIP)."""
    longest = max(len(m.decisions) for m in moves)
    while True:
        here = [m.decisions[at] if at < len(m.decisions) else None for m in moves]
        if len(set(here)) > 1 or at >= longest:
            break
        at += 1
    follow = sorted({d for d in here if _rank(d) == 0}, key=_order)
    if follow and any(_rank(d) > 0 for d in here):
        return at, follow + [SKIP]
    return at, sorted(set(here), key=_order)


def _order(decision) -> tuple:
    """Choices in the order of the game's tables: by kind, then colour or id."""
    if decision is None:
        return (9,)
    return (_rank(decision), decision[0], decision[1])


def narrow(moves: list, at: int, choice) -> tuple[int, list]:
    """The whole turns left after `choice` at decision index `at`, and the next index."""
    here = [m.decisions[at] if at < len(m.decisions) else None for m in moves]
    if choice == SKIP:
        return at, [m for m, d in zip(moves, here) if _rank(d) > 0]
    return at + 1, [m for m, d in zip(moves, here) if d == choice]


def question(choices: list) -> str:
    tags = {c[0] for c in choices if c not in (SKIP, None)}
    if tags == {RETURN}:
        k = len(choices[0][1])
        return f"You would hold {10 + k} tokens: return {k}. Which?"
    if tags and tags <= _STRONGHOLD_TAGS:
        return "Your stronghold action?"
    if len(tags) == 1:
        q = _QUESTIONS.get(next(iter(tags)))
        if q:
            return q
    return "Your next decision?"


def match_choice(text: str, choices: list):
    """The choice a typed answer names: its number, its notation ('n3', '-kk', 'kk' for a
    return, 'none' to skip), or None."""
    text = text.strip()
    if text.isdigit():
        n = int(text)
        return choices[n - 1] if 1 <= n <= len(choices) else None
    lower = text.lower()
    for c in choices:
        if c == SKIP and lower in ("none", "no", "skip", "0"):
            return c
        if c in (SKIP, None):
            continue
        frag = _fragment(*c)
        if text == frag:
            return c
        if c[0] == RETURN and lower.lstrip("-") and sorted(lower.lstrip("-"), key=LETTERS.find) == list(frag[1:]):
            return c
    return None


# -- why a move is illegal, in the player's terms ---------------------------------------------------

def _seat_names(text: str) -> str:
    """Seats named as the board names them ('seat 0' -> 'Player 1')."""
    return re.sub(r"\bseat (\d+)", lambda m: player_name(int(m[1])), text)


def card_range(view) -> str:
    return "0-119" if view.module == "orient" else "0-89"


def why_illegal(view, move) -> str:
    """Why `move` (well-formed, not legal here) cannot be played by the seat to move, in terms of
    what the board shows: 'card 86 costs 3 white, you have 1 white and no gold'."""
    seat = view.seats[view.to_move]
    card = move.card
    if card is not None and card >= 90 and view.module != "orient":
        return f"there is no card {card} in this game: its cards are {card_range(view)}"
    in_market = card is not None and any(card in row for row in view.market)
    if move.kind == BUY and (in_market or card in seat.reserved):
        c = CARDS[card]
        if c.sacrifice is None and view.module != "strongholds":
            short = _shortfall(view, seat, card)
            if short:
                return short
    elif move.kind in (BUY, RESERVE) and not in_market:
        owner = next((i for i, s in enumerate(view.seats) if card in s.reserved), None)
        if owner == view.to_move:
            return f"card {card} is already in your hand" + ("" if move.kind == RESERVE else "")
        if owner is not None:
            return f"card {card} is in {player_name(owner)}'s hand"
        return f"card {card} is not in the market{' or in your hand' if move.kind == BUY else ''}"
    if move.kind in (RESERVE, RESERVE_DECK) and len(seat.reserved) >= 3:
        return "you already hold 3 reserved cards, the most a player may hold"
    if move.kind == RESERVE_DECK:
        deck = move.level - 1 + (3 if move.orient else 0)
        if view.deck_sizes[deck] == 0:
            return f"the {'Orient ' if move.orient else ''}level-{move.level} deck is empty"
    if move.kind == TAKE:
        bank = view.bank
        names = [COLOURS[c] for c in move.gems]
        if len(move.gems) == 2 and move.gems[0] == move.gems[1] and bank[move.gems[0]] < 4:
            return (f"taking two {names[0]} gems needs 4 {names[0]} in the bank; it has {bank[move.gems[0]]}")
        empty = [COLOURS[c] for c in dict.fromkeys(move.gems) if bank[c] == 0]
        if empty:
            return f"the bank has no {' or '.join(empty)} left"
        if len(set(move.gems)) < 3 and not (len(move.gems) == 2 and move.gems[0] == move.gems[1]):
            left = sum(1 for c in range(5) if bank[c])
            if left >= 3:
                return (f"take three gems of different colours, or two of one colour: fewer different gems only "
                        f"when fewer than 3 colours are left in the bank ({left} are)")
    if move.kind == PASS:
        return "you can pass only when you have no other move"
    try:
        view.parse_move(str(move))
    except IllegalMoveError as e:
        return _seat_names(str(e))
    return f"{move} is not legal here"


def _shortfall(view, seat, card: int) -> str | None:
    """'card 86 costs 3 white, you have 1 white and no gold' when the seat cannot pay for `card`
    with its bonuses, tokens and gold (None when it can: then some other rule forbids the move)."""
    c = CARDS[card]
    bonuses = seat.bonuses
    missing = 0
    for col in range(5):
        missing += max(0, c.cost[col] - bonuses[col] - seat.tokens[col])
    gold_tokens = seat.tokens[5]
    per_gold = 2 if 2 in seat.posts else 1
    gold = gold_tokens * per_gold + 2 * len(seat.gold_cards)
    if missing <= gold:
        return None
    cost = " and ".join(f"{n} {COLOURS[col]}" for col, n in enumerate(c.cost) if n)
    have = []
    for col, n in enumerate(c.cost):
        if n:
            k = bonuses[col] + seat.tokens[col]
            have.append(f"{k} {COLOURS[col]}" if k else f"no {COLOURS[col]}")
    gold_words = f"{gold_tokens} gold" if gold_tokens else "no gold"
    if seat.gold_cards:
        gold_words += f" and {len(seat.gold_cards)} gold card{'s' if len(seat.gold_cards) > 1 else ''}"
    return f"card {card} costs {cost}, you have {', '.join(have)} and {gold_words}"


def canonical(text: str) -> str:
    """Typed notation with the colours of a take and of a return in the notation's order
    ('+rkw/-kb' -> '+wrk/-bk'): the player need not know the order."""
    parts = text.strip().split("/")
    for i, part in enumerate(parts):
        if (i == 0 and part.startswith("+")) or part.startswith("-"):
            letters = part[1:]
            if letters.isalpha() and all(ch in LETTERS for ch in letters):
                parts[i] = part[0] + "".join(sorted(letters, key=LETTERS.find))
    return "/".join(parts)


def _contains(whole: tuple, part: tuple) -> bool:
    """Whether the decisions `part` occur in `whole`, in order."""
    it = iter(whole)
    return all(d in it for d in part)


def play(args) -> int:
    console = Console(highlight=False)
    game = Game(args, console)
    return game.run()

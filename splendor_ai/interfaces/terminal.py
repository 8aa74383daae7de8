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
import random
import sys
import threading
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..errors import ConfigError, IllegalMoveError, NotationError, RecordError, SplendorError
from .render import board, move_list, player_name

HELP = """\
On your turn, type one of:
  a move in notation      +wbg (take white, blue, green), +rr (two red), r17 (reserve card 17),
                          rL2 (reserve the top of the level-2 deck), b45 (buy card 45), pass;
                          add /-kk to return tokens and /n3 to pick a noble (docs/NOTATION.md)
  module decisions        after the action, each after a '/', in the order the game asks:
                          jr (joker joins red), h7 (reserve noble 7), f12 (take card 12 free),
                          d80/d84 (discard two cards), t30 (place a stronghold on card 30),
                          m30:31 (move one), x30 (remove an opponent's), b30 (conquer card 30),
                          +w (extra gem, trading posts), c4 (claim city 4); rO2 reserves
                          blind from the Orient level-2 deck. E.g. b108/jr/f12, b12/t30
  a number                the move with that number in the list
  moves                   list the legal moves with what they do
  hint                    ask the AI for the best move, with its reasons
  undo                    take back your last move (and the AI's replies)
  board                   show the board again
  save FILE               save the game as a game record (docs/RECORDS.md); an existing
                          file is kept: save! FILE replaces it
  load FILE               continue a game saved in FILE
  help                    this text
  quit                    leave the game (it is saved on its own first, and Ctrl-C or
                          the end of input do the same)"""


#: the longest input line read (a move or a command with a file name is far shorter)
MAX_INPUT_CHARS = 4096

MODULE_TITLES = {"cities": "The Cities", "orient": "The Orient", "posts": "The Trading Posts",
                 "strongholds": "The Strongholds"}


class Quit(Exception):
    pass


def new_seed() -> int:
    """A deal seed nobody has seen: 64 random bits (a 32-bit seed could be found by dealing
    every seed and comparing the market, which would give away the decks)."""
    return random.SystemRandom().randrange(2 ** 64)


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
    def __init__(self, args, console: Console):
        from ..analysis import DEFAULT_SPEC
        from ..errors import CLIError
        from ..players.spec import DEFAULT_AI
        from ..players.spec import parse_spec
        from ..state import Config, State
        self.console = console
        self.interactive = sys.stdin.isatty()
        players = args.players
        humans = args.seat if args.seat is not None else [0]
        for s in humans:
            if not 0 <= s < players:
                raise CLIError(f"--seat {s}: seats are 0-{players - 1} in a {players}-player game")
        if not 0 <= args.first_player < players:
            raise CLIError(f"--first-player {args.first_player}: seats are 0-{players - 1}")
        self.humans = set(humans)
        ai_seats = [s for s in range(players) if s not in self.humans]
        specs = args.ai or [DEFAULT_AI]
        if len(specs) not in (1, len(ai_seats)):
            raise CLIError(f"--ai given {len(specs)} times for {len(ai_seats)} AI seats: give it once, or once "
                           "per AI seat")
        self.default_ai = specs[0]
        self.specs = ["human" if s in self.humans else None for s in range(players)]
        for i, s in enumerate(ai_seats):
            self.specs[s] = specs[i if len(specs) > 1 else 0]
        from .protocol import check_spec_option
        for spec in specs:
            check_spec_option(spec, "--ai")
        self.seed = args.seed if args.seed is not None else new_seed()
        self.open = bool(getattr(args, "open", False))
        self.saved_to: Path | None = None       # this game's own file in save_dir(), once written
        hint_spec = args.hint_spec
        if hint_spec is None:
            try:
                hint_spec = specs[0] if parse_spec(specs[0])[0] == DEFAULT_SPEC else DEFAULT_AI
            except ConfigError:
                hint_spec = DEFAULT_AI
        self.hint_spec = check_spec_option(hint_spec, "--hint")
        module = getattr(args, "module", None)
        position = getattr(args, "position", None)
        self.from_position = position is not None
        if position is not None and args.load:
            raise CLIError("give --position or --load, not both")
        if position is not None:
            try:
                self.state = State(position.strip())
            except SplendorError as e:
                raise CLIError(f"--position: {e}") from None
            if self.state.players != players:
                if args.players != 2:
                    raise CLIError(f"--position: a {self.state.players}-player position; give --players "
                                   f"{self.state.players} (or leave it out)")
                self._reseat(self.state.players)
            if module is not None and self.state.module != module:
                raise CLIError(f"--module {module}: the position is a game "
                               f"{'of the ' + self.state.module + ' module' if self.state.module else 'without a module'}")
        else:
            self.state = State.new(players, seed=self.seed, first_player=args.first_player,
                                   config=Config(players=players, modules=(module,) if module else ()))
        self.ai = {}
        self._make_ai()
        self._check_hint_spec()
        self.shown_for: tuple | None = None
        if args.load:
            self.load(args.load, startup=True)

    # -- setup -------------------------------------------------------------------------------------

    def _reseat(self, players: int) -> None:
        """Seats for a position of another player count than --players (its default of 2)."""
        from ..errors import CLIError
        for s in self.humans:
            if s >= players:
                raise CLIError(f"--seat {s}: the position has seats 0-{players - 1}")
        self.specs = ["human" if s in self.humans else self.default_ai for s in range(players)]

    def _make_ai(self) -> None:
        from ..errors import CLIError
        from ..players import make_player
        for p in self.ai.values():
            p.close()
        self.ai = {}
        for seat, spec in enumerate(self.specs):
            if seat in self.humans:
                continue
            try:
                self.ai[seat] = make_player(spec, seed=_search_seed(self.seed, 7919, seat))
            except ConfigError as e:
                raise CLIError(f"--ai: {e}") from None
            if getattr(self.ai[seat], "perfect_information", False):
                raise CLIError(f"--ai {spec!r}: a perfect-information player would see your hidden cards")

    def _check_hint_spec(self) -> None:
        from ..analysis import _make_search_player
        from ..errors import CLIError
        try:
            _make_search_player(self.hint_spec, 0).close()
        except ConfigError as e:
            raise CLIError(f"--hint: {e}") from None

    def close(self) -> None:
        for p in self.ai.values():
            p.close()

    # -- output ------------------------------------------------------------------------------------

    def say(self, text, style: str | None = None) -> None:
        """A message, as one line that the terminal wraps (a file name in it stays whole, for
        copying)."""
        if isinstance(text, str):
            text = Text(text, style=style or "")
        self.console.print(text, soft_wrap=True)

    def names(self) -> list[str]:
        out = []
        for s, spec in enumerate(self.specs):
            out.append(f"{player_name(s)} (you)" if s in self.humans and len(self.humans) == 1
                       else f"{player_name(s)} (human)" if s in self.humans else f"{player_name(s)} (AI)")
        return out

    def viewer(self) -> int:
        st = self.state
        if st.to_move in self.humans and not st.is_over():
            return st.to_move
        return min(self.humans)

    def show_board(self) -> None:
        # an open game shows every card; otherwise the board is the viewer's view
        shown = self.state if self.open else self.state.view(self.viewer())
        self.console.print(board(shown, self.names()))

    def show_moves(self, describe: bool) -> None:
        moves = self.legal()
        if describe:
            view = self.state.view(self.state.to_move)
            for i, m in enumerate(moves, 1):
                self.console.print(Text.assemble((f"{i:>3}. ", "dim"), (str(m), "bold"), "  ", view.describe(m)))
        else:
            self.console.print(Text("Legal moves:", style="bold"))
            self.console.print(move_list([str(m) for m in moves]))

    def legal(self):
        """The moves the human to move can choose: their view's legal moves (the same as the true
        state's: no decision of a turn names a card the turn draws, docs/MODULES.md "Refills")."""
        return list(self.state.view(self.state.to_move).legal_moves)

    # -- the loop ----------------------------------------------------------------------------------

    def run(self) -> int:
        module = self.state.module
        deal = f"deal seed {self.seed} (an open game)" if self.open else "the deal seed is shown when the game ends"
        self.say(f"Splendor{' with ' + MODULE_TITLES[module] if module else ''}: {self.state.players} players, "
                 f"{deal}. You play "
                 f"{', '.join(player_name(s) for s in sorted(self.humans))}; AI: "
                 f"{', '.join(f'{player_name(s)} {spec}' for s, spec in enumerate(self.specs) if s not in self.humans) or 'none'}. "
                 "Type 'help' for commands.", style="bold")
        status = 0
        try:
            self.loop()
        except Quit:
            pass
        except KeyboardInterrupt:
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
                key = ("turn", len(st.move_stack))
                if self.shown_for != key:
                    self.show_board()
                    self.show_moves(describe=False)
                    self.shown_for = key
                self.command(self.read(f"{player_name(st.to_move)}, your move> "))
            else:
                self.ai_move()

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
            self.say(f"Unknown command {line!r}: the game is over (save FILE, undo, load FILE, quit).", style="red")
        elif word in ("moves", "list", "m"):
            self.show_moves(describe=True)
        elif word == "hint":
            self.hint()
        else:
            self.human_move(line)

    def human_move(self, text: str) -> None:
        st = self.state
        moves = self.legal()
        if text.isdigit():
            n = int(text)
            if not 1 <= n <= len(moves):
                self.say(f"There is no move number {n}: pick 1-{len(moves)}, or type 'moves' to see them.",
                         style="red")
                return
            move = moves[n - 1]
        else:
            try:
                move = st.view(st.to_move).parse_move(text)
            except NotationError as e:
                self.say(f"Not a move or command: {e}. Type 'help' for commands, 'moves' for the legal moves.",
                         style="red")
                return
            except IllegalMoveError as e:
                self.say(f"Illegal move: {e}. Type 'moves' for the legal moves.", style="red")
                return
        desc = st.view(st.to_move).describe(move)
        st.push(move)
        self.observe(move)
        self.say(Text.assemble(("You play ", "bold"), (str(move), "bold green"), f": {desc}"))

    def ai_move(self) -> None:
        st = self.state
        seat = st.to_move
        player = self.ai[seat]
        view = st.view(seat)
        t0 = time.perf_counter()
        decision = self.think(lambda: player.choose(view), f"{player_name(seat)} is thinking ({player.spec})...")
        dt = time.perf_counter() - t0
        move = decision.move
        try:
            desc = view.describe(move)
        except SplendorError:
            desc = str(move)
        try:
            st.push(move)
        except IllegalMoveError as e:  # a bug in a bot; do not let it end the session
            self.say(f"{player_name(seat)}'s AI chose an illegal move ({e}); the game stops.", style="red")
            raise Quit from None
        self.observe(move)
        figures = f"{dt:.1f} s"
        moves = decision.info.moves
        if moves and moves[0].visits and moves[0].value == moves[0].value:
            figures = f"{100 * moves[0].value:.0f}% win rate for it, {decision.info.iterations} iterations, {figures}"
        self.say(Text.assemble((f"{player_name(seat)} (AI) plays ", "bold"), (str(move), "bold magenta"),
                               f": {desc} ", (f"[{figures}]", "dim")))

    def think(self, work, status: str):
        """Run a search on a worker thread while this one waits, so that Ctrl-C is taken at once
        (the C search holds no lock Python needs) and the game is saved as it stood before the
        search. The abandoned search's thread is a daemon: it ends with the program."""
        box: dict = {}

        def target():
            try:
                box["value"] = work()
            except BaseException as e:  # handed to the game's thread
                box["error"] = e
        worker = threading.Thread(target=target, name="splendor-search", daemon=True)
        if self.interactive:
            with self.console.status(status):
                worker.start()
                while worker.is_alive():
                    worker.join(0.1)
        else:
            worker.start()
            while worker.is_alive():
                worker.join(0.1)
        if "error" in box:
            raise box["error"]
        return box["value"]

    def observe(self, move) -> None:
        for p in self.ai.values():
            obs = getattr(p, "observe", None)
            if obs:
                obs(move)

    def show_result(self) -> None:
        r = self.state.result()
        pts = ", ".join(f"{player_name(s)} {p} points ({c} cards)" for s, (p, c) in enumerate(zip(r.points, r.cards)))
        if r.winners:
            who = " and ".join(player_name(s) + (" (you)" if s in self.humans else "") for s in r.winners)
            self.say(f"Game over: {who} {'win' if len(r.winners) > 1 else 'wins'}. {pts}.", style="bold green")
        else:
            why = "the turn cap was reached" if r.reason == "cap" else "every player had to pass"
            self.say(f"Game over without a winner: {why}. {pts}.", style="bold yellow")
        # everything may be known now: the deal that the seed and the moves give
        if not self.from_position:
            self.say(f"Deal seed: {self.seed} (the same deal again: splendor play --seed {self.seed}"
                     f"{' --players ' + str(self.state.players) if self.state.players != 2 else ''}"
                     f"{' --module ' + self.state.module if self.state.module else ''}).")

    # -- commands ----------------------------------------------------------------------------------

    def hint(self) -> None:
        from ..analysis import hint, pct
        st = self.state
        view = st.view(st.to_move)     # the hint searches your view only
        t0 = time.perf_counter()
        seed = _search_seed(self.seed, 104729, st.turn)
        h = self.think(lambda: hint(view, spec=self.hint_spec, seed=seed), f"Thinking about a hint ({self.hint_spec})...")
        self.say(Text.assemble(("Hint: ", "bold"), (h.move, "bold green"), f" — {h.reason}",
                               (f" [{time.perf_counter() - t0:.1f} s]", "dim")))
        if h.runner_up is not None:
            r = h.runner_up
            self.say(f"Runner-up: {r.move} ({pct(r.winrate)}, {r.visits} visits): {r.description or ''}")

    def undo(self) -> None:
        st = self.state
        trial = st.copy()
        undone = []
        while trial.move_stack:
            undone.append(trial.pop())
            if trial.to_move in self.humans:
                break
        else:
            undone = []
        if not undone:
            self.say("Nothing to undo: you have not moved yet.", style="red")
            return
        for _ in undone:
            st.pop()
        for p in self.ai.values():
            p.reset()          # their search trees follow the moves played; start afresh
        self.shown_for = None
        self.say(f"Undid {len(undone)} move{'s' if len(undone) > 1 else ''} "
                 f"({', '.join(str(m) for m in reversed(undone))}); {player_name(st.to_move)} to move.")

    def record(self):
        from ..records import GameRecord
        return GameRecord.from_state(self.state, seed=None if self.from_position else self.seed,
                                     players=list(self.specs),
                                     meta={"event": "splendor play"} if not self.state.is_over()
                                     else {"event": "splendor play", "termination": "normal"})

    def save(self, path: str, overwrite: bool = False) -> None:
        from ..records import save_record
        try:
            rec = self.record()
            if not self.state.is_over():
                rec.meta["termination"] = "saved unfinished"
            save_record(os.path.expanduser(path), rec, overwrite=overwrite)
        except FileExistsError:
            self.say(f"{path} exists: not replaced. Type 'save! {path}' to replace it, or give another name.",
                     style="red")
            return
        except (OSError, RecordError) as e:
            self.say(f"Could not save to {path}: {getattr(e, 'strerror', None) or e}", style="red")
            return
        self.say(f"Saved the game ({len(rec.moves)} moves) to {path}.")

    def autosave(self) -> None:
        """Save the game to its own file in save_dir() as the player leaves, and say where (a
        game with no move played is not saved: there is nothing to lose)."""
        from ..records import save_record
        if not self.state.move_stack and not self.from_position:
            return
        try:
            rec = self.record()
            if not self.state.is_over():
                rec.meta["termination"] = "saved unfinished"
            folder = save_dir()
            folder.mkdir(parents=True, exist_ok=True)
            if self.saved_to is None:
                stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
                self.saved_to = folder / f"game-{stamp}-{os.getpid()}.jsonl"
            save_record(self.saved_to, rec, overwrite=True)
        except (OSError, RecordError) as e:
            self.say(f"Could not save the game in {save_dir()}: {getattr(e, 'strerror', None) or e}", style="red")
            return
        self.say(f"The game ({len(rec.moves)} moves) is saved in {self.saved_to}; continue it with: "
                 f"splendor play --load {self.saved_to}")

    def load(self, path: str, startup: bool = False) -> None:
        from ..errors import CLIError
        from ..players.spec import parse_spec
        from ..records import read_records
        path = os.path.expanduser(path)
        try:
            with open(path, "rb") as f:
                first = f.readline(MAX_INPUT_CHARS + 1)
            if first.startswith(b"SPN"):
                try:
                    text = first.decode("utf-8").strip()
                except UnicodeDecodeError:
                    raise RecordError("the position on the first line is not UTF-8 text") from None
                return self._load_position(path, text, startup)
            records = read_records(path, strict=True)
            rec = next(records, None)
            if rec is None:
                raise RecordError("no game record in the file")
            more = next(records, None) is not None
            state = rec.replay()
        except (OSError, SplendorError) as e:
            if isinstance(e, OSError) and e.strerror:
                e = e.strerror
            if startup:
                raise CLIError(f"--load {path}: {e}") from None
            self.say(f"Could not load {path}: {e}", style="red")
            return
        n = rec.config.players
        humans = {s for s, spec in enumerate(rec.players) if spec == "human"}
        if not humans:
            humans = {s for s in self.humans if s < n} or {0}
        specs = []
        for s, spec in enumerate(rec.players):
            if s in humans:
                specs.append("human")
                continue
            try:
                parse_spec(spec)
                from ..players import make_player
                make_player(spec).close()
                specs.append(spec)
            except (ConfigError, TypeError):
                specs.append(self.default_ai)
        self.state, self.humans, self.specs = state, humans, specs
        self.from_position = rec.seed is None
        if rec.seed is not None:
            self.seed = rec.seed
        self._make_ai()
        self.shown_for = None
        extra = " (the first game in the file)" if more else ""
        module = state.module
        self.say(f"Loaded {path}{extra}: {n} players{', ' + MODULE_TITLES[module] if module else ''}, "
                 f"{len(rec.moves)} moves played; you play {', '.join(player_name(s) for s in sorted(humans))}.")

    def _load_position(self, path: str, text: str, startup: bool) -> None:
        """`load FILE` of a file holding a position string (SPN1 or SPN2, no hidden card): a new game
        from there, with the same human seats (or seat 0) and AI."""
        from ..errors import CLIError
        from ..state import State
        try:
            state = State(text)
        except SplendorError as e:
            if startup:
                raise CLIError(f"--load {path}: {e}") from None
            self.say(f"Could not load {path}: {e}", style="red")
            return
        n = state.players
        humans = {s for s in self.humans if s < n} or {0}
        self.state, self.humans, self.from_position = state, humans, True
        self.specs = ["human" if s in humans else next((sp for sp in self.specs if sp not in (None, "human")),
                                                       self.default_ai) for s in range(n)]
        self._make_ai()
        self.shown_for = None
        module = state.module
        self.say(f"Loaded the position in {path}: {n} players{', ' + MODULE_TITLES[module] if module else ''}, "
                 f"{player_name(state.to_move)} to move; you play {', '.join(player_name(s) for s in sorted(humans))}.")


def play(args) -> int:
    console = Console(highlight=False)
    game = Game(args, console)
    return game.run()

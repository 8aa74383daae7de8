"""The `splendor` command (also `python -m splendor_ai`): play, analyse, hint, engine.

    splendor play [--players N] [--module M] [--seat S ...] [--ai SPEC ...] [--hint SPEC] [--seed N]
                  [--first-player S] [--load FILE | --position SPN]
    splendor analyse (--position SPN | --json-file FILE | --record FILE [--game N] [--turn N]
                      | --module M [--players N] [--deal N])
                     [--seat S] [--iterations N | --seconds S] [--top K] [--spec SPEC] [--seed N] [--json]
    splendor hint    (same position and search options as analyse)
    splendor review  RECORD... [--seat N|all] [--seconds S | --iterations N] [-j N | --ray ADDRESS]
                     [--json] [--plot FILE.png] [--resume FILE]  (docs/REVIEW.md)
    splendor engine  (JSON lines on stdin/stdout: docs/ENGINE.md)
    splendor serve   [--host 127.0.0.1] [--port 8000] [--allow-host NAME]  (the browser UI: docs/WEB.md)

Imports are lazy so that the command starts fast: the engine, the players and rich are loaded by
the subcommand that needs them. Bad input is reported in one line on stderr with exit status 2,
never with a traceback.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import CLIError
from ..players.spec import DEFAULT_AI

#: the Cities of Splendor modules (docs/MODULES.md), as --module takes them
MODULE_CHOICES = ("cities", "orient", "posts", "strongholds")
EXIT_USAGE = 2


# -- argument parsing -------------------------------------------------------------------------------

def _seat_count(text: str) -> int:
    try:
        n = int(text) if len(text) <= 30 else None
    except ValueError:
        n = None
    if n is None:
        raise argparse.ArgumentTypeError(f"expected 2, 3 or 4, got {text[:30]!r}")
    if n not in (2, 3, 4):
        raise argparse.ArgumentTypeError(f"expected 2, 3 or 4, got {n}")
    return n


def _nonneg_int(text: str) -> int:
    try:
        n = int(text) if len(text) <= 30 else None
    except ValueError:
        n = None
    if n is None:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text[:30]!r}")
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {n}")
    return n


def _pos_int(text: str) -> int:
    n = _nonneg_int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {n}")
    return n


def _iterations(text: str) -> int:
    from .protocol import MAX_ITERATIONS
    n = _pos_int(text)
    if n > MAX_ITERATIONS:
        raise argparse.ArgumentTypeError(f"expected 1-{MAX_ITERATIONS} iterations, got {n}")
    return n


def _seconds(text: str) -> float:
    from .protocol import MAX_SECONDS
    try:
        x = float(text)
    except ValueError:
        x = float("nan")
    if not 0 < x <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"expected a number of seconds in (0, {MAX_SECONDS:g}], got {text[:30]!r}")
    return x


def _top(text: str) -> int:
    from .protocol import MAX_TOP_K
    n = _pos_int(text)
    if n > MAX_TOP_K:
        raise argparse.ArgumentTypeError(f"expected 1-{MAX_TOP_K}, got {n}")
    return n


def _threads(text: str) -> int:
    import os
    n = _pos_int(text)
    cores = os.cpu_count() or 1
    if n > cores:
        raise argparse.ArgumentTypeError(f"expected 1-{cores} (the number of cores), got {n}")
    return n


def _port(text: str) -> int:
    n = _nonneg_int(text)
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 1-65535, got {n}")
    return n


def _seed(text: str) -> int:
    n = _nonneg_int(text)
    if n >= 2 ** 64:
        raise argparse.ArgumentTypeError("expected an integer in [0, 2**64)")
    return n


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="splendor", description="Splendor AI toolkit: play against the AI, "
                                "analyse positions, get hints, run the JSON analysis engine or the browser UI.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play a game in the terminal against the AI",
                          description="Play a game against one to three AI opponents. On your turn type the "
                          "number of an action in the list or the action in notation (e.g. +wbg, b45, rL2; see "
                          "docs/NOTATION.md): the game then asks each decision that follows it (tokens to return, a "
                          "noble, a module's decisions); a whole turn in notation (b108/jr/f12) works too. Commands: "
                          "hint, undo, moves, board, save FILE, save! FILE, load FILE, help, quit. The game is saved "
                          "when you leave (docs/CLI.md).")
    play.add_argument("--players", type=_seat_count, default=2, help="number of players, 2-4 (default 2)")
    play.add_argument("--module", choices=MODULE_CHOICES, help="play a Cities of Splendor module with the base "
                      "game: cities, orient, posts (the Trading Posts) or strongholds (docs/MODULES.md)")
    play.add_argument("--seat", type=_nonneg_int, action="append", metavar="S",
                      help="a seat you play (0 moves first unless --first-player says otherwise); repeat for "
                      "several human seats (default: 0)")
    play.add_argument("--ai", action="append", metavar="SPEC",
                      help=f"AI player spec, e.g. 'mcts(seconds=2)', 'mcts(iterations=5000)', 'greedy'; give it "
                      f"once for every AI seat or once per AI seat in seat order (default {DEFAULT_AI!r})")
    play.add_argument("--hint", metavar="SPEC", dest="hint_spec",
                      help="the search behind 'hint' (default: the first AI's spec if it is an mcts spec, "
                      f"else {DEFAULT_AI!r})")
    play.add_argument("--seed", type=_seed, help="seed of the deal and of the AI (default: random; shown when "
                      "the game ends, since with the moves it gives away the decks and blind reserves)")
    play.add_argument("--open", action="store_true", help="an open game: every card is shown, blind reserves "
                      "included, and the deal seed from the start (for study; the AI still sees only its own view)")
    play.add_argument("--first-player", type=_nonneg_int, default=0, metavar="S", help="the seat that moves first")
    play.add_argument("--load", metavar="FILE", help="continue the game saved in FILE (a game record, or a file "
                      "holding a position string)")
    play.add_argument("--position", metavar="SPN", help="start from this position (an SPN1 or SPN2 string; its "
                      "players and module are the game's). A public position, with hidden cards ('?', as analyse "
                      "prints it), is played from your seat's side: its hidden cards are dealt from the seed")
    play.set_defaults(func=cmd_play)

    for name, helptext in (("analyse", "rank the moves of a position with the search"),
                           ("hint", "the best move of a position, with a reason and the runner-up")):
        a = sub.add_parser(name, help=helptext, description=helptext[0].upper() + helptext[1:] + ". The search "
                           "only sees the analysing seat's view, even when given a full game record.",
                           aliases=["analyze"] if name == "analyse" else [])
        src = a.add_mutually_exclusive_group()
        src.add_argument("--position", metavar="SPN", help="a position string, SPN1 or SPN2 (docs/NOTATION.md)")
        src.add_argument("--json-file", metavar="FILE", help="a file holding a JSON position")
        src.add_argument("--record", metavar="FILE", help="a game record file (docs/RECORDS.md)")
        a.add_argument("--game", type=_pos_int, default=1, metavar="N",
                       help="with --record: the Nth game of the file (default 1)")
        a.add_argument("--turn", type=_nonneg_int, metavar="N",
                       help="with --record: the position after N moves (default: the last position)")
        a.add_argument("--seat", type=_nonneg_int, metavar="S", help="the analysing seat (default: the seat to move)")
        new = a.add_argument_group("a new game instead of a position (with --module, or with --deal)")
        new.add_argument("--module", choices=MODULE_CHOICES, help="the Cities of Splendor module: with no position, "
                         "the start of a new game with it; with a position or record, checked to be its module")
        new.add_argument("--players", type=_seat_count, metavar="N", help="players of the new game (default 2)")
        new.add_argument("--deal", type=_seed, metavar="N", help="the new game's deal seed (default 0)")
        lim = a.add_argument_group("search limit (default: the spec's own, 2000 iterations for plain mcts)")
        lim.add_argument("--iterations", type=_iterations, metavar="N", help="search iterations")
        lim.add_argument("--seconds", type=_seconds, metavar="S", help="search time in seconds")
        a.add_argument("--spec", default="mcts", help="the search player spec (default 'mcts')")
        a.add_argument("--seed", type=_seed, default=0, help="search seed (default 0)")
        a.add_argument("--top", type=_top, default=5, metavar="K", help="how many moves to show (default 5)")
        a.add_argument("--json", action="store_true", help="print JSON (the engine's response format)")
        a.set_defaults(func=cmd_analyse if name == "analyse" else cmd_hint)

    rev = sub.add_parser("review", help="rate every move of recorded games from the mover's own view "
                         "(docs/REVIEW.md)", description="Review game records: each move's win rate against the "
                         "search's best, a class (best, good, inaccuracy, mistake, blunder), each player's accuracy "
                         "and the win-rate graph. Every move is searched from its mover's view only.")
    from ..review import add_arguments as review_arguments
    review_arguments(rev)
    rev.set_defaults(func=cmd_review)

    eng = sub.add_parser("engine", help="JSON-lines analysis engine on stdin/stdout (docs/ENGINE.md)",
                         description="Read one JSON request per line on stdin, write one JSON response per "
                         "line on stdout. Requests are read while searches run: query_version and "
                         "terminate are answered at once. See docs/ENGINE.md.")
    eng.add_argument("--threads", type=_threads, default=1, metavar="N",
                     help="searches run at once, 1 to the number of cores (default 1: one at a time, in "
                     "the order they arrive)")
    eng.add_argument("--quit-without-waiting", action="store_true",
                     help="at end of input, terminate the queued and running searches (each still answered "
                     "with its partial result) instead of waiting for them")
    eng.set_defaults(func=cmd_engine)

    srv = sub.add_parser("serve", help="the browser UI on localhost (docs/WEB.md)",
                         description="Serve the browser UI: play against the AI, hints, analysis, game "
                         "records and replays. Open the printed address in a browser.")
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    srv.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    srv.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                     help="also answer requests whose Host header names NAME (repeatable; '*' for any). "
                     "By default only the loopback names and the --host address are answered")
    srv.set_defaults(func=cmd_serve)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from .. import __version__
        print(f"splendor_ai {__version__}")
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from ..errors import SplendorError
    name = "analyse" if args.command == "analyze" else args.command
    try:
        return args.func(args) or 0
    except (CLIError, SplendorError, OSError) as e:
        msg = str(e)
        if isinstance(e, OSError) and e.filename:
            msg = f"{e.filename}: {e.strerror}"
        print(f"splendor {name}: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


# -- positions from the command line ----------------------------------------------------------------

def _request_from_args(args) -> dict:
    """The engine request the analyse/hint options describe (so both check inputs the same way)."""
    import json
    if (args.turn is not None or args.game != 1) and not args.record:
        raise CLIError("--turn and --game go with --record")
    if args.iterations is not None and args.seconds is not None:
        raise CLIError("give --iterations or --seconds, not both")
    req: dict = {}
    sources = [args.position, args.json_file, args.record]
    new_game = args.players is not None or args.deal is not None
    if all(x is None for x in sources):
        if args.module is None and not new_game:
            raise CLIError("a position is required: give --position, --json-file or --record (or --module / --deal for the "
                           "start of a new game)")
        start = {"players": args.players or 2, "seed": args.deal or 0}
        if args.module:
            start["module"] = args.module
        req["start"] = start
        if args.seat is not None:
            req["seat"] = args.seat
        return req
    if new_game:
        raise CLIError("--players and --deal describe a new game: not with --position, --json-file or --record")
    if args.position is not None:
        req["position"] = args.position.strip()
    elif args.json_file is not None:
        from .protocol import MAX_LINE_CHARS, RequestError, _loads
        text = read_text(args.json_file, MAX_LINE_CHARS)
        try:
            req["position"] = _loads(text)
        except RequestError as e:
            raise CLIError(f"{args.json_file}: not JSON: {str(e).removeprefix('malformed JSON: ')}") from None
        if isinstance(req["position"], str):
            req["position"] = req["position"].strip()
    else:
        from ..errors import RecordError
        from ..records import read_records
        try:
            records = list(read_records(args.record, strict=True))
        except RecordError as e:
            raise CLIError(f"{args.record}: {e}") from None
        if not records:
            raise CLIError(f"{args.record}: no game record in the file")
        if args.game > len(records):
            raise CLIError(f"--game {args.game}: {args.record} holds {len(records)} game(s)")
        req["record"] = records[args.game - 1].to_json()
        if args.turn is not None:
            req["turn"] = args.turn
    if args.seat is not None:
        req["seat"] = args.seat
    return req


def _analysis_inputs(args):
    from .protocol import RequestError, build_position, check_spec_option
    from ..players.base import Limit
    check_spec_option(args.spec, "--spec")
    try:
        position = build_position(_request_from_args(args))
    except RequestError as e:
        raise CLIError(str(e)) from None
    if args.module is not None and position.module != args.module:
        raise CLIError(f"--module {args.module}: the position is a game "
                       f"{'of the ' + position.module + ' module' if position.module else 'without a module'}")
    return position, Limit(iterations=args.iterations, seconds=args.seconds)


def read_text(path: str, limit: int) -> str:
    """A small text file whole: at most `limit` bytes of UTF-8 (else a one-line error)."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise CLIError(f"{path}: larger than {limit} bytes: not a position")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CLIError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def cmd_analyse(args) -> int:
    import json
    from ..analysis import analyse
    position, limit = _analysis_inputs(args)
    a = analyse(position, limit, top_k=args.top, spec=args.spec, seed=args.seed, seat=args.seat)
    if args.json:
        print(json.dumps(a.to_json(), allow_nan=False))
        return 0
    from .render import analysis_table
    console = _console()
    analysis_table(console, a)
    return 0


def cmd_hint(args) -> int:
    import json
    from ..analysis import hint
    position, limit = _analysis_inputs(args)
    h = hint(position, limit, spec=args.spec, seed=args.seed, seat=args.seat, top_k=args.top)
    if args.json:
        print(json.dumps(h.to_json(), allow_nan=False))
        return 0
    from ..analysis import pct
    console = _console()
    console.print(f"[bold]Best move: {h.move}[/bold]", highlight=False)
    console.print(h.reason, highlight=False, markup=False)
    if h.runner_up:
        r = h.runner_up
        desc = f": {r.description}" if r.description else ""
        console.print(f"Runner-up: {r.move} ({pct(r.winrate)} win rate, {r.visits} visits){desc}",
                      highlight=False, markup=False)
    return 0


def cmd_serve(args) -> int:
    try:
        from .web import serve
        import fastapi, uvicorn  # noqa: F401  (checked here for a one-line error)
    except ImportError as e:
        raise CLIError(f"the browser UI needs fastapi and uvicorn, which are not installed: "
                       f"pip install 'splendor_ai[web]' ({e})") from None
    print(f"splendor serve: http://{args.host}:{args.port}/  (Ctrl-C to stop)", file=sys.stderr)
    serve(args.host, args.port, allow_hosts=args.allow_host)
    return 0


def cmd_review(args) -> int:
    from ..review import run_cli
    return run_cli(args)


def cmd_engine(args) -> int:
    from .protocol import main as engine_main
    return engine_main(args.threads, args.quit_without_waiting)


def _console():
    from rich.console import Console
    return Console(highlight=False)


def cmd_play(args) -> int:
    from .terminal import play
    return play(args)

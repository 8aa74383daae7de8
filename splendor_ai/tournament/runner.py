"""Running a schedule of games into a records file, resumably, on local worker processes or Ray.

`run(games, path, jobs=N)` plays the games that `path` (a JSON Lines records file) does not hold
yet, each in a worker process, and appends each record as its game ends; the main process is the
only writer. A game is known by its key (lineup, deal seed, rotation, settings and, for a Cities
of Splendor module, the module; see games.game_key), so a run that was interrupted (Ctrl-C, a kill, a crash, a torn last line) and is
started again with the same schedule and file plays only the missing games. With `ray=ADDRESS`
(or "local" to start a local Ray instance; or an already initialised Ray) the same `games.play`
runs as Ray tasks instead: Ray only executes the games, the loop and the file stay here.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import sys
import warnings
from dataclasses import dataclass, field
from typing import Callable

try:
    import fcntl
except ImportError:   # Windows: no flock
    fcntl = None  # type: ignore[assignment]

from ..errors import RecordError
from ..players import parse_spec
from ..records import GameRecord, append_record, read_records
from ..validate import check_int
from .errors import ExperimentError
from .games import Game, play, record_key
from .outcomes import outcome


@dataclass
class RunResult:
    records: list[GameRecord]          # the schedule's finished games, in schedule order
    played: int = 0                    # games played by this call
    resumed: int = 0                   # games found in the file already
    stopped: bool = False              # `stop` said so before the schedule was done
    ignored: int = 0                   # records in the file that are not in this schedule
    remaining: int = 0                 # scheduled games not played
    recorded: list[GameRecord] = field(default_factory=list)  # the same records in file order


def load(path) -> list[GameRecord]:
    """The records of a file (none if it does not exist); a corrupt line other than the last
    raises ExperimentError naming the file and line; a torn last line is skipped with a warning."""
    if not os.path.exists(path):
        return []
    try:
        return list(read_records(path))
    except RecordError as e:
        raise ExperimentError(f"{path}: {e}") from None
    except IsADirectoryError:
        raise ExperimentError(f"{path}: is a directory, not a records file") from None


def _worker_init():
    """Set up a worker process: Ctrl-C is the main process's to handle, and the worker exits when
    the main process dies (a `kill -9` of the run must not leave workers behind: they would wait
    forever on a queue that no one writes to, each holding its game's memory)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def die_with_parent(poll: float = 1.0) -> None:
    """Make this process exit when its parent dies: at once on Linux (prctl PR_SET_PDEATHSIG, the
    parent's death sends SIGKILL), and on every system within `poll` seconds (a daemon thread that
    watches the parent's pid; the C searches release the GIL, so it runs during a search too)."""
    import threading
    import time
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:          # it died before the prctl
        os._exit(1)

    def watch():
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(1)
    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


class _Processes:
    """`fn(task)` on `jobs` local worker processes."""

    def __init__(self, jobs: int, fn: Callable = play):
        self.capacity = jobs
        self.fn = fn
        self.pool = cf.ProcessPoolExecutor(jobs, initializer=_worker_init)

    def submit(self, task):
        return self.pool.submit(self.fn, task)

    def wait(self, handles):
        done, _ = cf.wait(handles, return_when=cf.FIRST_COMPLETED)
        out = []
        for h in done:
            try:
                out.append((h, h.result()))
            except cf.process.BrokenProcessPool:
                raise ExperimentError("a worker process died (out of memory? a crash in the engine?); "
                                      "the finished results are saved: run again to resume") from None
        return out

    def close(self, kill: bool = False):
        manager = getattr(self.pool, "_executor_manager_thread", None)
        if kill:
            for p in list(getattr(self.pool, "_processes", {}).values()):
                p.terminate()
        self.pool.shutdown(wait=not kill, cancel_futures=True)
        if kill and manager is not None:
            # let the pool's manager thread close its wake-up pipe before the interpreter exits: at
            # exit CPython 3.11's pool hook writes to that pipe unlocked, and a close racing it
            # printed an "Exception ignored ... Bad file descriptor" traceback after a Ctrl-C
            manager.join(timeout=5)


def _cpus(games) -> int:
    """CPUs one game needs: the most root-parallel `workers` of any player."""
    most = 1
    for spec in {s for g in games for s in g.lineup}:
        w = parse_spec(spec)[1].get("workers", 1)
        if isinstance(w, int) and w > most:
            most = w
    return most


def _probe(address: str, timeout: float = 5.0) -> None:
    """Fail fast (ExperimentError) when a host:port Ray address does not answer: ray.init
    would otherwise keep retrying for minutes."""
    if address in ("local", "auto"):
        return
    hostport = address.split("://", 1)[-1].rsplit("/", 1)[0]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise ExperimentError(f"--ray {address!r}: expected 'local', 'auto' or HOST:PORT (ray://HOST:PORT)")
    import socket
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise ExperimentError(f"cannot reach the Ray cluster at {address!r}: {e.strerror or e}") from None


class _Ray:
    """`fn(task)` as Ray tasks of `cpus` CPUs each, on a cluster (`address`) or a local Ray."""

    def __init__(self, address: str, jobs: int | None, cpus: int, fn: Callable = play):
        try:
            import ray
        except ImportError:
            raise ExperimentError("--ray needs the ray package: pip install 'splendor_ai[ray]'") from None
        import logging
        self.ray = ray
        self.started = False
        if not ray.is_initialized():
            _probe(address)
            try:
                # a local cluster gets `jobs` CPUs; a running cluster keeps its own
                ray.init(address=None if address == "local" else address,
                         num_cpus=jobs if address == "local" else None, include_dashboard=False,
                         log_to_driver=False, logging_level=logging.WARNING)
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise ExperimentError(f"cannot connect to the Ray cluster at {address!r}: {e}") from None
            self.started = True
        total = int(ray.cluster_resources().get("CPU", 1))
        self.capacity = jobs or max(1, total // cpus)
        self.task = ray.remote(num_cpus=cpus)(fn)

    def submit(self, task):
        return self.task.remote(task)

    def wait(self, handles):
        ready, _ = self.ray.wait(list(handles), num_returns=1)
        return [(h, self.ray.get(h)) for h in ready]

    def close(self, kill: bool = False):
        if kill:
            for h in getattr(self, "_inflight", ()):
                self.ray.cancel(h, force=True)
        if self.started:
            self.ray.shutdown()


def make_executor(fn: Callable, jobs: int | None = None, ray: str | None = None, cpus: int = 1):
    """Where tasks run: `fn(task)` on `jobs` local processes (default 1), or as Ray tasks of `cpus`
    CPUs each when `ray` is an address ("local", "auto", HOST:PORT; `jobs` then caps the tasks at
    once, default every CPU of the cluster). The executor has `capacity`, `submit(task)`,
    `wait(handles) -> [(handle, result)]` (at least one) and `close(kill=False)`."""
    return _Ray(ray, jobs, cpus, fn) if ray else _Processes(jobs or 1, fn)


class Scoreboard:
    """Running scores for the progress bar: each spec's win shares and games so far."""

    def __init__(self, width: int = 24):
        self.points: dict[str, float] = {}
        self.games: dict[str, int] = {}
        self.width = width

    def add(self, record: GameRecord):
        o = outcome(record)
        if o is None:
            return
        for spec, sc in zip(o.seats, o.scores):
            self.points[spec] = self.points.get(spec, 0.0) + sc
            self.games[spec] = self.games.get(spec, 0) + 1

    def text(self) -> str:
        def short(s):
            return s if len(s) <= self.width else s[:self.width - 1] + "…"
        return " | ".join(f"{short(s)} {self.points[s]:g}/{self.games[s]}" for s in self.points)


def _claim(path):
    """The records file `path` opened for appending with an exclusive lock on it, so that a second
    run playing into the same file stops at once with an error instead of playing its games again
    beside the first (both would append them). Where the platform has no flock, no lock."""
    f = open(path, "ab")
    if fcntl is not None:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise ExperimentError(f"{path}: another run is playing games into this file; let it finish "
                                  "(this run would resume from it) or give another output") from None
    return f


def run(games: list[Game], path, *, jobs: int | None = None, ray: str | None = None, progress: bool = True,
        stop: Callable[[list[GameRecord]], bool] | None = None, desc: str = "games",
        execute: bool = True) -> RunResult:
    """Play the games of `games` that `path` lacks, appending each record as it ends.

    `stop(records)` is called with the schedule's finished records (file order, then completion
    order) before the first game and after each: once it returns True no new game starts; the
    games already running finish and are recorded. Ctrl-C stops at once (running games are
    dropped: they are played again on resume) and re-raises KeyboardInterrupt.

    `jobs`: games at a time (default: 1 on local processes; every CPU of the Ray cluster).
    With execute=False nothing is played: the result holds the games already in the file."""
    if jobs is not None:
        check_int(jobs, "-j/--jobs", 1, None, ExperimentError, expect="a positive integer", must=True)
    wanted: dict[str, Game] = {}
    for g in games:
        wanted.setdefault(g.key(), g)
    done: dict[str, GameRecord] = {}
    ignored = dupes = 0
    for rec in load(path):
        k = record_key(rec)
        if k is None or k not in wanted:
            ignored += 1
        elif k in done:
            dupes += 1
        else:
            done[k] = rec
    if ignored:
        warnings.warn(f"{path}: {ignored} record(s) are not games of this run (other players, deals or "
                      f"settings); they are kept in the file and left out of this run's results")
    if dupes:
        warnings.warn(f"{path}: {dupes} game(s) recorded twice; the first record of each is used")
    todo = [g for k, g in wanted.items() if k not in done]
    result = RunResult([], resumed=len(done), ignored=ignored)
    finished = list(done.values())
    board = Scoreboard()
    for rec in finished:
        board.add(rec)
    stopping = bool(stop and stop(finished))
    if todo and not stopping and execute:
        from tqdm import tqdm
        lock = _claim(path)   # held until the run ends: closing the file releases it
        try:
            executor = make_executor(play, jobs, ray, _cpus(todo))
        except BaseException:
            lock.close()
            raise
        bar = tqdm(total=len(wanted), initial=len(done), desc=desc, unit="game", disable=not progress,
                   dynamic_ncols=True, leave=True)
        if board.points:
            bar.set_postfix_str(board.text(), refresh=False)
        inflight: dict = {}
        executor._inflight = inflight
        queue = list(reversed(todo))
        clean = False
        try:
            while queue or inflight:
                while queue and not stopping and len(inflight) < executor.capacity:
                    g = queue.pop()
                    inflight[executor.submit(g)] = g
                if not inflight:
                    break
                for h, line in executor.wait(inflight):
                    g = inflight.pop(h)
                    rec = GameRecord.from_line(line)
                    append_record(path, rec)
                    done[g.key()] = rec
                    finished.append(rec)
                    result.played += 1
                    board.add(rec)
                    bar.set_postfix_str(board.text(), refresh=False)
                    bar.update(1)
                    if stop and not stopping and stop(finished):
                        stopping = True
            clean = True
        finally:
            executor.close(kill=not clean)
            bar.close()
            lock.close()
    result.stopped = stopping and len(done) < len(wanted)
    result.remaining = len(wanted) - len(done)
    result.records = [done[k] for k in wanted if k in done]
    result.recorded = finished
    return result

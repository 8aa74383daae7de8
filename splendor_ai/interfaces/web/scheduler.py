"""The searches of `splendor serve` (AI moves, hints, analyses), shared fairly between browsers.

A `Scheduler` runs `Task`s on a few worker threads (the C search releases the GIL, so they use
the cores). Every task runs in slices of `slice_seconds`: after each slice it goes back into its
client's queue, and the workers serve the clients with work in turn (round robin). A
browser with twenty searches queued therefore gets the same share of the machine as one with a
single hint, and that hint is answered after about (its budget x clients with work / workers)
seconds, whatever the others asked for. Within a client, hints and analyses go before AI moves
(a person is waiting for them), slice after slice.

Resources are bounded at admission, so a request the server cannot serve is refused at once with
`Busy` (HTTP 503 with Retry-After) rather than queued without end:
- at most `max_tasks` tasks in all and `max_tasks_per_client` per client;
- memory: each task reserves the most search-tree memory it may use (`nodes` x `BYTES_PER_NODE`;
  its search is built with that node cap) and the reservations never exceed `memory`.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from itertools import takewhile

#: bytes per search-tree node, with slack for the tree's doubling growth (a node is about 330
#: bytes; a tree's capacity can be up to twice its nodes)
BYTES_PER_NODE = 700


class Busy(Exception):
    """The server cannot take this search now; try again after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int = 5):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class Cancelled(Exception):
    """The task was cancelled before it finished (an undo, a newer analysis, a deleted game)."""


class Task:
    """A unit of search work for one client. Subclasses implement `step(seconds)`: work for
    about that long, return True when finished (after setting `self.result`). `close()` frees
    what the task holds; it is called once, when the task ends for any reason."""

    kind = "task"

    def __init__(self, client: str, nodes: int = 0, urgent: bool = False):
        self.client = client
        self.nodes = nodes               # search-tree nodes reserved
        self.urgent = urgent             # a person waits for it: ahead of the client's other tasks
        self.cancelled = threading.Event()
        self.future: Future = Future()
        self.started: float | None = None
        self.submitted = time.monotonic()
        self.result = None

    def step(self, seconds: float) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def cancel(self) -> None:
        self.cancelled.set()


class Scheduler:
    """Round-robin, time-sliced search workers with admission limits (module docstring)."""

    def __init__(self, workers: int = 2, slice_seconds: float = 0.1, max_tasks: int = 64,
                 max_tasks_per_client: int = 8, memory: int = 4 * 2 ** 30):
        self.slice_seconds = slice_seconds
        self.max_tasks = max_tasks
        self.max_tasks_per_client = max_tasks_per_client
        self.max_nodes_total = memory // BYTES_PER_NODE
        self._cond = threading.Condition()
        self._queues: dict[str, deque[Task]] = {}
        self._order: OrderedDict[str, None] = OrderedDict()   # clients with queued (not running) tasks
        self._count: dict[str, int] = {}                      # tasks admitted and not ended, by client
        self._tasks = 0
        self._nodes = 0
        self._stopping = False
        self._threads = [threading.Thread(target=self._work, name=f"splendor-search-{i}", daemon=True)
                         for i in range(workers)]
        for t in self._threads:
            t.start()

    # -- admission ------------------------------------------------------------------------------------

    def check(self, client: str, nodes: int = 0) -> None:
        """Raise Busy if a task of `client` reserving `nodes` would not be admitted now."""
        with self._cond:
            self._check(client, nodes)

    def _check(self, client: str, nodes: int) -> None:
        if self._stopping:
            raise Busy("the server is shutting down", 30)
        if self._count.get(client, 0) >= self.max_tasks_per_client:
            raise Busy(f"this browser already has {self.max_tasks_per_client} searches (AI moves, hints, "
                       "analyses) running or waiting: try again when one has finished", 2)
        if self._tasks >= self.max_tasks:
            raise Busy(f"the server is running its maximum of {self.max_tasks} searches: try again shortly", 5)
        if nodes > self.max_nodes_total:
            raise Busy("this search needs more memory than the server sets aside for all searches", 60)
        if self._nodes + nodes > self.max_nodes_total:
            raise Busy("the server's search memory is taken by other searches: try again shortly", 5)

    def submit(self, task: Task) -> Future:
        """Queue `task` (raises Busy when it cannot be admitted). Its future ends with its result,
        its exception, or `Cancelled`."""
        with self._cond:
            self._check(task.client, task.nodes)
            self._tasks += 1
            self._nodes += task.nodes
            self._count[task.client] = self._count.get(task.client, 0) + 1
            q = self._queues.setdefault(task.client, deque())
            if task.urgent:
                q.appendleft(task)
            else:
                q.append(task)
            self._order[task.client] = None
            self._cond.notify()
        return task.future

    def load(self) -> dict:
        with self._cond:
            return {"tasks": self._tasks, "clients": len(self._count), "reservedBytes": self._nodes * BYTES_PER_NODE,
                    "memoryBytes": self.max_nodes_total * BYTES_PER_NODE}

    # -- the workers ------------------------------------------------------------------------------------

    def _next(self) -> Task | None:
        with self._cond:
            while not self._order and not self._stopping:
                self._cond.wait()
            if self._stopping:
                return None
            client, _ = self._order.popitem(last=False)
            q = self._queues[client]
            task = q.popleft()
            if q:                            # its other tasks stay in turn for the other workers
                self._order[client] = None
            return task

    def _work(self) -> None:
        while True:
            task = self._next()
            if task is None:
                return
            done = False
            try:
                if task.cancelled.is_set():
                    raise Cancelled
                if task.started is None:
                    task.started = time.monotonic()
                done = task.step(self.slice_seconds)
                if done and not task.future.done():
                    task.future.set_result(task.result)
            except Cancelled:
                done = True
                if not task.future.done():
                    task.future.set_exception(Cancelled())
            except BaseException as e:   # a failing search must not stop the worker
                done = True
                if not task.future.done():
                    task.future.set_exception(e)
            if done:
                self._end(task)
            else:
                with self._cond:
                    if self._stopping:
                        continue
                    # an urgent task stays ahead of its client's other tasks for every slice, not
                    # only its first (a hint needing two slices would otherwise wait a slice of each
                    # of its client's AI moves), and takes turns with its client's other urgent ones
                    q = self._queues[task.client]
                    if task.urgent:
                        q.insert(sum(1 for _ in takewhile(lambda t: t.urgent, q)), task)
                    else:
                        q.append(task)
                    self._order[task.client] = None
                    self._cond.notify()

    def _end(self, task: Task) -> None:
        try:
            task.close()
        finally:
            with self._cond:
                self._tasks -= 1
                self._nodes -= task.nodes
                left = self._count[task.client] - 1
                if left:
                    self._count[task.client] = left
                else:
                    del self._count[task.client]
                    if not self._queues.get(task.client):
                        self._queues.pop(task.client, None)

    def shutdown(self) -> None:
        with self._cond:
            self._stopping = True
            pending = [t for q in self._queues.values() for t in q]
            self._queues.clear()
            self._order.clear()
            self._cond.notify_all()
        for t in pending:
            t.cancel()
            if not t.future.done():
                t.future.set_exception(Cancelled())
            try:
                t.close()
            except Exception:
                pass
        for th in self._threads:
            th.join(2)

"""The web scheduler's order of work: round robin over clients, slice by slice, and within a client
the urgent tasks (hints, analyses) ahead of the others for every slice. One worker, so the order of
the slices is exact; a first task holds the worker until every task of the scenario is queued."""
import threading

import pytest

from splendor_ai.interfaces.web.scheduler import Busy, Scheduler, Task


class Sliced(Task):
    """A task that needs `slices` slices and logs each as `name` + its number."""

    def __init__(self, name: str, client: str, slices: int, log: list[str], urgent: bool = False,
                 gate: threading.Event | None = None, nodes: int = 0):
        super().__init__(client, nodes, urgent=urgent)
        self.name, self.slices, self.log, self.gate, self.done_slices = name, slices, log, gate, 0

    def step(self, seconds: float) -> bool:
        if self.gate is not None:
            assert self.gate.wait(10)
        self.done_slices += 1
        self.log.append(f"{self.name}{self.done_slices}")
        if self.done_slices == self.slices:
            self.result = self.name
            return True
        return False


def run(scenario) -> list[str]:
    """Hold the worker with a one-slice task, queue `scenario(log)`'s tasks, release, and return
    the slices in the order they ran."""
    log: list[str] = []
    gate = threading.Event()
    s = Scheduler(workers=1)
    try:
        s.submit(Sliced("x", "hold", 1, log, gate=gate))
        futures = [s.submit(t) for t in scenario(log)]
        gate.set()
        for f in futures:
            f.result(10)
        assert s.load()["tasks"] == 0
    finally:
        s.shutdown()
    return log[1:]


def test_a_hint_needing_three_slices_goes_before_its_clients_ai_moves_at_every_slice():
    def scenario(log):
        return [Sliced("a", "A", 2, log), Sliced("c", "A", 2, log), Sliced("b", "B", 3, log),
                Sliced("h", "A", 3, log, urgent=True)]
    # A and B take turns; within A the hint runs all its slices before either AI move
    assert run(scenario) == ["h1", "b1", "h2", "b2", "h3", "b3", "a1", "c1", "a2", "c2"]


def test_a_clients_urgent_tasks_take_turns_and_the_newest_starts_first():
    def scenario(log):
        return [Sliced("a", "A", 2, log), Sliced("u", "A", 4, log, urgent=True),
                Sliced("v", "A", 2, log, urgent=True)]
    assert run(scenario) == ["v1", "u1", "v2", "u2", "u3", "u4", "a1", "a2"]


def test_three_clients_share_the_worker_slice_by_slice_whatever_they_queued():
    def scenario(log):
        many = [Sliced(f"m{i}", "M", 2, log) for i in range(4)]
        return many + [Sliced("p", "P", 2, log), Sliced("q", "Q", 1, log)]
    # M's four tasks get one turn in three, like P's one and Q's one
    assert run(scenario) == ["m01", "p1", "q1", "m11", "p2", "m21", "m31", "m02", "m12", "m22", "m32"]


def test_admission_limits_refuse_with_busy_and_leave_the_queue_as_it_was():
    s = Scheduler(workers=1, max_tasks=3, max_tasks_per_client=2, memory=1000 * 700)
    log: list[str] = []
    gate = threading.Event()
    try:
        futures = [s.submit(Sliced("x", "A", 1, log, gate=gate)), s.submit(Sliced("y", "A", 1, log))]
        with pytest.raises(Busy, match="already has 2 searches"):
            s.submit(Sliced("z", "A", 1, log))
        with pytest.raises(Busy, match="more memory than the server sets aside"):
            s.submit(Sliced("big", "B", 1, log, nodes=1001))
        futures.append(s.submit(Sliced("w", "B", 1, log, nodes=600)))
        with pytest.raises(Busy, match="maximum of 3 searches"):
            s.submit(Sliced("v", "C", 1, log))
        assert s.load() == {"tasks": 3, "clients": 2, "reservedBytes": 600 * 700, "memoryBytes": 1000 * 700}
        gate.set()
        assert [f.result(10) for f in futures] == ["x", "y", "w"]
        assert s.load()["tasks"] == 0 and s.load()["reservedBytes"] == 0
    finally:
        s.shutdown()

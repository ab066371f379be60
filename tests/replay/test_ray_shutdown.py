"""A Ray started for the runs is stopped whole when the runs are interrupted: every process listed
below this one before the shutdown is killed after it, even when a second Ctrl-C interrupts the
shutdown itself (replay/ray_runner.py _shutdown); a cluster joined has its tasks in flight
cancelled and is left running."""
from __future__ import annotations

import signal

import pytest

from kubectl_preempt.replay import ray_runner


class _Ray:
    """What _shutdown reads of the ray module: a shutdown that a second Ctrl-C interrupts."""

    def __init__(self, interrupted: bool) -> None:
        self.interrupted = interrupted

    def shutdown(self) -> None:
        if self.interrupted:
            raise KeyboardInterrupt


@pytest.mark.parametrize("interrupted", [False, True], ids=["a shutdown that ends", "a shutdown interrupted by Ctrl-C"])
def test_every_process_listed_before_a_quick_shutdown_is_killed_after_it(monkeypatch, interrupted) -> None:  # noqa: ANN001
    killed: list[tuple[int, int]] = []
    monkeypatch.setattr(ray_runner, "_descendants", lambda pid: {101, 102})
    monkeypatch.setattr(ray_runner.os, "kill", lambda pid, sig: killed.append((pid, sig)))
    if interrupted:
        with pytest.raises(KeyboardInterrupt):
            ray_runner._shutdown(_Ray(True), quickly=True)
    else:
        ray_runner._shutdown(_Ray(False), quickly=True)
    assert sorted(killed) == [(101, signal.SIGKILL), (102, signal.SIGKILL)]


class _Ref:
    pass


class _RayAtWork:
    """A Ray whose wait is interrupted by a Ctrl-C, and which notes how SIGINT is handled while it
    cancels the tasks in flight and shuts down."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, object]] = []
        self.started = False

    def is_initialized(self) -> bool:
        return self.started

    def init(self, **kwargs: object) -> None:
        self.started = True

    def cluster_resources(self) -> dict:
        return {"CPU": 1}

    def remote(self, fn):  # noqa: ANN001, ANN201
        return type("Task", (), {"remote": staticmethod(lambda spec, run: _Ref())})

    def put(self, value: object) -> object:
        return value

    def wait(self, refs, num_returns, timeout):  # noqa: ANN001, ANN201
        raise KeyboardInterrupt

    def cancel(self, ref, force):  # noqa: ANN001, ANN201
        self.seen.append(("cancel", signal.getsignal(signal.SIGINT)))

    def shutdown(self) -> None:
        self.seen.append(("shutdown", signal.getsignal(signal.SIGINT)))


@pytest.mark.parametrize("joined", [False, True], ids=["a Ray started here", "a cluster joined"])
def test_a_second_ctrl_c_does_not_stop_the_teardown_of_an_interrupted_ray(monkeypatch, joined) -> None:  # noqa: ANN001
    ray = _RayAtWork()
    ray.started = joined
    monkeypatch.setattr(ray_runner, "_ray_module", lambda: ray)
    monkeypatch.setattr(ray_runner, "_descendants", lambda pid: set())
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        list(ray_runner.run_on_ray(None, 3, "ray://head:10001" if joined else ray_runner.LOCAL,
                                   lambda spec, k: b""))
    assert ray.seen and all(handler is signal.SIG_IGN for _, handler in ray.seen), ray.seen
    assert signal.getsignal(signal.SIGINT) is before


def test_an_interrupted_ray_started_here_is_shut_down_without_cancelling_its_tasks_first(monkeypatch) -> None:  # noqa: ANN001
    # Ray's core worker aborts the process when a task's reply comes in just after the task was
    # cancelled (task_manager.cc CompletePendingTask): the shutdown ends the tasks with their workers
    ray = _RayAtWork()
    monkeypatch.setattr(ray_runner, "_ray_module", lambda: ray)
    monkeypatch.setattr(ray_runner, "_descendants", lambda pid: set())
    with pytest.raises(KeyboardInterrupt):
        list(ray_runner.run_on_ray(None, 3, ray_runner.LOCAL, lambda spec, k: b""))
    assert [what for what, _ in ray.seen] == ["shutdown"]


def test_the_tasks_in_flight_on_a_cluster_joined_are_cancelled_and_the_cluster_left_running(monkeypatch) -> None:  # noqa: ANN001
    ray = _RayAtWork()
    ray.started = True  # ray.init was called by someone else: the cluster is not this process's
    monkeypatch.setattr(ray_runner, "_ray_module", lambda: ray)
    with pytest.raises(KeyboardInterrupt):
        list(ray_runner.run_on_ray(None, 3, "ray://head:10001", lambda spec, k: b""))
    assert [what for what, _ in ray.seen] == ["cancel"] * 3

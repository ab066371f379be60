"""A Ray started for the runs is stopped whole when the runs are interrupted: every process listed
below this one before the shutdown is killed after it, even when a second Ctrl-C interrupts the
shutdown itself (replay/ray_runner.py _shutdown)."""
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

"""io/beside.py: a question about a large read answered in a forked child on the other core, with
the answer it gives here, and no child left behind."""
from __future__ import annotations

import os
import signal
import time

import pytest

from kubectl_preempt.io import beside
from kubectl_preempt.model.memory import MEMORY


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork whatever the test process is (a test runner's worker may hold threads of its own)."""
    monkeypatch.setattr(beside, "can_fork", lambda: True)


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize("answer", [True, False])
def test_the_child_answers_yes_and_no_as_the_question_is_answered_here(forking: None, answer: bool) -> None:
    with beside.ask_beside(lambda: answer) as a:
        assert a.beside
        pid = a._pid
        assert a.get() is answer
    assert not a.beside and _gone(pid)


def test_a_question_the_child_cannot_answer_is_answered_here(forking: None) -> None:
    calls = []

    def ask() -> bool:
        calls.append(os.getpid())
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return True

    parent = os.getpid()
    with beside.ask_beside(ask) as a:
        assert a.get() is True
    # the child's call is not seen here (another process); this one's is
    assert calls == [parent]


def test_a_child_killed_before_it_answers_leaves_the_answer_to_this_process(forking: None) -> None:
    here = os.getpid()
    with beside.ask_beside(lambda: time.sleep(60) is None if os.getpid() != here else False) as a:
        os.kill(a._pid, signal.SIGKILL)
        assert a.get() is False


def test_leaving_the_block_early_stops_the_child_at_once(forking: None) -> None:
    here = os.getpid()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with beside.ask_beside(lambda: time.sleep(60) is None if os.getpid() != here else True) as a:
            pid = a._pid
            raise KeyboardInterrupt
    assert _gone(pid) and time.monotonic() - started < 30


def test_without_a_child_the_question_is_asked_here_when_its_answer_is_wanted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "can_fork", lambda: False)
    calls = []
    with beside.ask_beside(lambda: calls.append(1) or True) as a:
        assert not a.beside and calls == []
        assert a.get() is True and a.get() is True
    assert calls == [1]


def test_the_switch_over_every_memory_turns_the_child_off() -> None:
    with MEMORY.off():
        assert beside.can_fork() is False

"""One RFC 3339 reader for the project: nanoseconds exact, as Go's time.Time compares them."""
from __future__ import annotations

import json

import pytest

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.model.rfc3339 import format_nanos, format_seconds, parse_nanos, parse_seconds
from kubectl_preempt.preemption.evaluator import more_important_pod


@pytest.mark.parametrize("text,nanos", [
    ("2026-11-23T14:09:48Z", 1795442988 * 10**9),
    ("2026-11-23T14:09:48.761Z", 1795442988 * 10**9 + 761_000_000),
    ("2026-11-23T14:09:48.123456789Z", 1795442988 * 10**9 + 123_456_789),
    ("2026-11-23T14:09:48.1234567891Z", 1795442988 * 10**9 + 123_456_789),
    ("2026-11-23t15:09:48.5+01:00", 1795442988 * 10**9 + 500_000_000),
    ("2026-11-23T12:39:48-01:30", 1795442988 * 10**9),
], ids=["whole seconds", "milliseconds", "nine fractional digits", "digits past the ninth dropped",
        "lower-case t and a positive offset", "negative offset"])
def test_times_read_to_the_nanosecond(text: str, nanos: int) -> None:
    assert parse_nanos(text) == nanos


@pytest.mark.parametrize("text", ["", "2026-11-23", "2026-11-23T14:09:48", "2026-13-01T00:00:00Z",
                                  "2026-02-30T00:00:00Z", "2026-11-23T14:09:48.Z", "yesterday"])
def test_what_is_not_rfc3339_is_none(text: str) -> None:
    assert parse_nanos(text) is None
    assert parse_seconds(text) is None


def test_formats_round_trip() -> None:
    assert format_seconds(parse_seconds("2026-11-23T14:09:48.761Z")) == "2026-11-23T14:09:48.761Z"
    assert format_seconds(parse_seconds("2026-11-23T14:09:48Z")) == "2026-11-23T14:09:48Z"
    n = parse_nanos("2026-11-23T14:09:48.000000120Z")
    assert format_nanos(n) == "2026-11-23T14:09:48Z"
    assert format_nanos(n, fraction=True) == "2026-11-23T14:09:48.00000012Z"


def _pod(name: str, start: str) -> Pod:
    return Pod({"metadata": {"name": name, "namespace": "ns"}, "spec": {"priority": 100},
                "status": {"startTime": start}})


def test_victims_started_within_one_microsecond_are_ordered_as_go_orders_them() -> None:
    a = _pod("a", "2026-11-23T14:09:48.000000100Z")
    b = _pod("b", "2026-11-23T14:09:48.000000900Z")
    assert more_important_pod(a, b)
    assert not more_important_pod(b, a)
    same = _pod("c", "2026-11-23T14:09:48.000000100Z")
    assert not more_important_pod(a, same) and not more_important_pod(same, a)


@pytest.mark.parametrize("text,valid", [
    ("2024-02-29T00:00:00Z", True), ("2026-02-29T00:00:00Z", False), ("2000-02-29T00:00:00Z", True),
    ("1900-02-29T00:00:00Z", False), ("2026-04-31T00:00:00Z", False), ("2026-12-31T23:59:59Z", True),
    ("2026-00-10T00:00:00Z", False), ("2026-01-00T00:00:00Z", False), ("2026-01-01T24:00:00Z", False),
    ("9999-12-31T23:59:59Z", True),
], ids=lambda v: str(v))
def test_days_are_checked_against_their_month(text: str, valid: bool) -> None:
    n = parse_nanos(text)
    assert (n is not None) is valid
    if valid:
        assert format_nanos(n) == text


@pytest.mark.parametrize("text,seconds", [
    ("0000-01-01T00:00:00Z", -62167219200),  # Go: time.Date(0, 1, 1, ...).Unix()
    ("0000-02-29T12:00:00Z", -62167219200 + (31 + 28) * 86400 + 12 * 3600),  # year 0 is a leap year
    ("0000-12-31T23:59:59Z", -62135596801),
    ("0001-01-01T00:00:00Z", -62135596800),
])
def test_year_zero_is_read_as_go_reads_it(text: str, seconds: int) -> None:
    assert parse_nanos(text) == seconds * 1_000_000_000


def test_the_usual_form_reads_as_every_other_form_of_the_same_time() -> None:
    # "...SSZ" takes a shorter path than a fraction or an offset; the instants must agree
    for usual, other in [("2026-03-01T10:00:00Z", "2026-03-01T11:00:00.000+01:00"),
                         ("1999-12-31T23:59:59Z", "1999-12-31t23:59:59.0z"),
                         ("2024-02-29T00:00:00Z", "2024-02-28T20:00:00-04:00")]:
        assert parse_nanos(usual) == parse_nanos(other) is not None
    for bad in ["2026-01-01T24:00:00Z", "2026-01-01T23:59:60Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z"]:
        assert parse_nanos(bad) is None, bad


@pytest.mark.parametrize("text", ["0000-01-01T00:00:00Z", "0000-02-29T12:00:00Z", "0001-01-01T00:00:00Z",
                                  "0999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
def test_times_are_written_back_as_go_writes_them(text: str) -> None:
    # four-digit years as Go's time.Format writes them (strftime writes year 1 as "1"), year 0 too
    assert format_nanos(parse_nanos(text)) == text
    assert format_seconds(parse_seconds(text)) == text


def test_a_victim_started_in_year_zero_is_explained_not_a_traceback() -> None:
    import kubectl_preempt
    from tests.builders import make_node, make_pod

    old = make_pod("old").on("node-a").req(cpu="2").priority(1).obj()
    old["status"]["startTime"] = "0000-01-01T00:00:00Z"
    objs = [make_node("node-a").alloc(cpu="2").obj(), old,
            make_pod("new").req(cpu="2").priority(100).obj()]
    doc = kubectl_preempt.explain(objs, "default/new")
    assert doc["outcome"] == "Preempted" and doc["victims"] == ["default/old"]
    assert '"startTime": "0000-01-01T00:00:00Z"' in json.dumps(doc)


@pytest.mark.parametrize("text,expected", [
    ("1970-01-01T00:00:00Z", 0),
    ("1969-12-31T23:59:59Z", -10**9),
    ("0001-01-01T00:00:00Z", -62135596800 * 10**9),
    ("2024-02-29T12:30:45Z", 1709209845 * 10**9),
    ("0000-01-01T00:00:00Z", -62167219200 * 10**9),
    ("2026-01-01T24:00:00Z", None),
    ("2026-01-01T23:59:60Z", None),
    ("2026-02-29T00:00:00Z", None),
    ("2026-01-01T0\u0661:00:00Z", None),
    ("2026-01-01 00:00:00Z", None),
    ("2026-W01-1T00:00:00Z", None),
    ("2026-01-01T00:00:00z", 1767225600 * 10**9),
], ids=["the epoch", "a second before it", "year 1", "a leap day", "year 0, which Go reads",
        "hour 24", "second 60", "no such day", "a non-ASCII digit", "a space for the T", "a week date",
        "a lower-case z"])
def test_the_form_metav1_time_writes_reads_as_every_other_form(text: str, expected: int | None) -> None:
    # model/rfc3339.py reads that form by datetime's parser, the rest by the pattern: the same
    # answers either way, the memory on or off
    from kubectl_preempt.model.memory import MEMORY
    assert parse_nanos(text) == expected
    with MEMORY.off():
        assert parse_nanos(text) == expected

"""The HTML report in a real browser: headless Chromium (Debian's `chromium`, installed by
.ci/run) loads the bundled demo's report from a file URL, over the DevTools protocol on a pipe.

The timeline must render (a lane per node, a mark per preemption), the console must stay free of
errors, the page must ask the network for nothing, and clicking a preemption must show its
victims in the detail panel. A screenshot of each page is saved under the test's tmp dir.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.api import replay_html
from kubectl_preempt.replay.state import parse_time
from tests.conftest import REPO, run_cli
from tests.render import scenarios
from tests.render.cdp import CDPError, Chromium, find_chromium

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it where it can)")

DEMO = REPO / "traces" / "demo.jsonl.gz"


@pytest.fixture
def browser(tmp_path: Path):
    assert CHROMIUM is not None
    try:
        b = Chromium(CHROMIUM, tmp_path / "chromium-profile", width=1500, height=1000)
    except (CDPError, OSError) as e:
        pytest.skip(f"Chromium at {CHROMIUM} does not start here: {e}")
    try:
        yield b
    finally:
        b.close()


def _open(browser: Chromium, page: Path) -> None:
    browser.navigate(page.resolve().as_uri())
    browser.wait_for("document.body.getAttribute('data-ready') === '1'")


def _embedded(browser: Chromium, cls: str) -> Any:
    return json.loads(browser.evaluate(f"document.querySelector('script.{cls}').textContent"))


def _click_mark(browser: Chromium, index: int) -> None:
    """A real mouse click on the first drawn mark of that preemption."""
    box = browser.evaluate(f"""(function () {{
        var m = document.querySelector('.mark[data-mark="{index}"]');
        m.scrollIntoView({{block: 'center'}});
        var r = m.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 3];
    }})()""")
    browser.click(*box)
    browser.wait_for(f"document.getElementById('detail').getAttribute('data-mark') === '{index}'")


def _assert_clean(browser: Chromium, page: Path) -> None:
    assert browser.console_errors() == []
    assert browser.evaluate("document.body.getAttribute('data-error')") is None
    assert [u for u in browser.requests() if u != page.resolve().as_uri()] == [], "the page fetched something"


def test_the_demo_report_renders_and_a_clicked_preemption_names_its_victims(browser: Chromium, tmp_path: Path) -> None:
    if not DEMO.exists():
        pytest.skip("the bundled demo trace is not in traces/")
    page = tmp_path / "demo.html"
    run = run_cli(["replay", str(DEMO), "--html", str(page)])
    assert run.code == 0, run.err
    _open(browser, page)

    report = _embedded(browser, "kp-report")
    view = _embedded(browser, "kp-view")
    assert report["preemptions"], "the demo should preempt"
    nodes = browser.evaluate("Array.from(document.querySelectorAll('.lane[data-node]')).map(e => e.getAttribute('data-node'))")
    assert nodes == [lane["name"] for lane in view["lanes"]]
    marks = browser.evaluate("new Set(Array.from(document.querySelectorAll('.mark')).map(e => e.getAttribute('data-mark'))).size")
    assert marks == len(report["preemptions"])
    assert browser.evaluate("document.querySelectorAll('#chart-preemptions-0 rect').length") > 0
    assert browser.evaluate("document.querySelectorAll('#preemptions-0 tbody tr').length") == len(report["preemptions"])

    last = len(report["preemptions"]) - 1
    # hovering a mark says who evicted whom
    box = browser.evaluate(f"""(function () {{
        var m = document.querySelector('.mark[data-mark="{last}"]');
        m.scrollIntoView({{block: 'center'}});
        var r = m.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 3];
    }})()""")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    tip = browser.wait_for("document.getElementById('tip').style.display === 'block' && "
                           "document.getElementById('tip').innerText")
    assert report["preemptions"][last]["preemptor"] in tip
    _click_mark(browser, last)
    detail = browser.evaluate("document.getElementById('detail').innerText")
    p = report["preemptions"][last]
    assert p["preemptor"] in detail and p["node"] in detail
    for victim in p["victims"]:
        assert victim in detail
    shown = browser.evaluate("Array.from(document.querySelectorAll('#detail-victims .victim')).map(e => e.getAttribute('data-pod'))")
    assert shown == p["victims"]
    # the selection is drawn: the victims' runs on their node
    assert browser.evaluate("document.querySelectorAll('.selection .victim-bar').length") == len(p["victims"])

    browser.screenshot(tmp_path / "demo.png")
    assert (tmp_path / "demo.png").stat().st_size > 10_000
    _assert_clean(browser, page)


def test_filters_and_the_time_range_narrow_what_is_shown(browser: Chromium, tmp_path: Path) -> None:
    report, rec = scenarios.run(scenarios.zones())
    page = tmp_path / "zones.html"
    page.write_text(replay_html(report, scenarios.zones(), rec))
    _open(browser, page)
    visible = "document.querySelectorAll('.mark:not(.dim)').length"
    rows = "document.querySelectorAll('#preemptions-0 tbody tr').length"
    assert browser.evaluate(visible) == len(report["preemptions"]) == browser.evaluate(rows)

    # sandbox pods are victims of two preemptions: only those stay lit
    browser.evaluate("""(function () {
        // each change redraws the filter bar: look every checkbox up afresh
        var names = Array.from(document.querySelectorAll('#ns-filter input[type=checkbox]'))
            .map(function (cb) { return cb.getAttribute('data-ns'); });
        names.forEach(function (n) {
            if (n !== 'sandbox') document.querySelector('#ns-filter input[data-ns="' + n + '"]').click();
        });
    })()""")
    with_sandbox = [p for p in report["preemptions"] if any(v.startswith("sandbox/") for v in p["victims"])]
    assert browser.evaluate(visible) == len(with_sandbox) == browser.evaluate(rows) == 2

    # every namespace again, then only the best-effort class (double-click): the same two
    browser.evaluate("document.querySelector('#ns-filter .links a').click()")
    browser.evaluate("document.querySelector('#class-filter .chip[data-class=\"best-effort\"]')"
                     ".dispatchEvent(new MouseEvent('dblclick', {bubbles: true}))")
    assert browser.evaluate(rows) == 2
    # a class switched off hides the preemptions it is not part of
    browser.evaluate("document.querySelector('#class-filter .chip[data-class=\"best-effort\"]').click()")
    assert browser.evaluate(rows) == 0
    browser.evaluate("document.querySelector('#class-filter .all').click()")
    assert browser.evaluate(rows) == len(report["preemptions"])

    # the first 38 s hold the first two preemptions (30 s and 35 s)
    browser.evaluate("""(function () {
        var from = document.getElementById('range-from'), to = document.getElementById('range-to');
        from.value = '+0s'; to.value = '+38s';
        to.dispatchEvent(new Event('change'));
    })()""")
    assert browser.evaluate(rows) == 2
    browser.evaluate("document.getElementById('range-reset').click()")
    assert browser.evaluate(rows) == len(report["preemptions"])

    # dragging across the timeline zooms into what was dragged over
    box = browser.evaluate("""(function () {
        var r = document.getElementById('timeline-0').getBoundingClientRect();
        return [r.left, r.top, r.width];
    })()""")
    left, top, width = box
    y = top + 40
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": left + 260, "y": y})
    browser.call("Input.dispatchMouseEvent", {"type": "mousePressed", "x": left + 260, "y": y, "button": "left", "clickCount": 1})
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": left + 400, "y": y, "button": "left"})
    browser.call("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": left + 400, "y": y, "button": "left", "clickCount": 1})
    t0, t1 = browser.evaluate("[window.kubectlPreempt.state.t0, window.kubectlPreempt.state.t1]")
    assert 0 < t0 < t1 < report["trace"]["durationSeconds"]
    browser.screenshot(tmp_path / "zones-zoomed.png")
    _assert_clean(browser, page)


def test_a_fleet_is_drawn_per_pool_and_zone_and_a_pool_expands(browser: Chromium, tmp_path: Path) -> None:
    tr = scenarios.fleet()
    report, rec = scenarios.run(tr)
    page = tmp_path / "fleet.html"
    page.write_text(replay_html(report, tr, rec))
    _open(browser, page)
    groups = browser.evaluate("Array.from(document.querySelectorAll('.lane.group')).map(e => e.getAttribute('data-group'))")
    assert groups == ["gpu · eu-b", "gpu · eu-a", "general · eu-b", "general · eu-a"]
    assert browser.evaluate("document.querySelectorAll('.lane[data-node]').length") == 0
    browser.evaluate("document.querySelector('.lane.group[data-group=\"gpu · eu-b\"] .lane-label.group')"
                     ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    assert browser.evaluate("document.querySelectorAll('.lane[data-node]').length") == 6
    _click_mark(browser, 0)
    assert report["preemptions"][0]["victims"][0] in browser.evaluate("document.getElementById('detail').innerText")
    browser.screenshot(tmp_path / "fleet.png")
    _assert_clean(browser, page)


def test_a_follow_report_shows_the_verdict(browser: Chromium, tmp_path: Path) -> None:
    tr = scenarios.recorded()
    report, _ = scenarios.run(tr, "follow")
    page = tmp_path / "recorded.html"
    page.write_text(replay_html(report, tr))
    _open(browser, page)
    _click_mark(browser, 0)
    detail = browser.evaluate("document.getElementById('detail').innerText")
    assert "agrees with the cluster" in detail
    assert "batch/etl-0" in detail and "batch/etl-2" in detail
    _assert_clean(browser, page)


def test_a_snapshot_replayed_as_one_instant_still_draws_its_nodes(browser: Chromium, tmp_path: Path) -> None:
    page = tmp_path / "snapshot.html"
    run = run_cli(["replay", str(REPO / "examples" / "cluster.json"), "--html", str(page)])
    assert run.code == 0, run.err
    _open(browser, page)
    lanes = browser.evaluate("document.querySelectorAll('.lane[data-node]').length")
    # a band spans the page, not the trace's zero seconds
    filled = browser.evaluate("Array.from(document.querySelectorAll('.lane[data-node] path[fill^=\"#\"]'))"
                              ".filter(p => p.getBBox().width > 100).length")
    assert lanes > 0 and filled > 0
    _assert_clean(browser, page)


def test_a_report_of_many_runs_draws_the_median_run_and_a_band_for_the_spread(browser: Chromium, tmp_path: Path) -> None:
    page = tmp_path / "runs.html"
    run = run_cli(["replay", str(DEMO), "--runs", "4", "--jobs", "1", "--html", str(page), "-o", "json"])
    assert run.code == 0, run.err
    report = json.loads(run.out)
    _open(browser, page)
    title = browser.evaluate("document.querySelector('.spread-wrap .chart-title').textContent")
    assert f"drawn below: run {report['run']['run']}," in title
    rows = browser.evaluate("Array.from(document.querySelectorAll('#spread-0 text.lane-label:not(.sub)'))"
                            ".map(t => t.textContent)")
    workloads = report["distribution"]["victimsByWorkload"]
    assert rows[:3] == ["preemptions", "victims", "pods never scheduled"]
    assert sorted(rows[3:]) == sorted(f"victims of {w}" for w in workloads)
    # one p5..p95 band per figure, as wide as its spread
    bands = browser.evaluate("document.querySelectorAll('#spread-0 rect.spread-band').length")
    assert bands == len(rows)
    # the timeline is the median run's: as many marks as its preemptions
    assert browser.evaluate("document.querySelectorAll('.mark[data-mark]').length") >= len(report["preemptions"]) > 0
    _assert_clean(browser, page)


def test_a_check_report_marks_what_the_change_does(browser: Chromium, tmp_path: Path) -> None:
    page = tmp_path / "check.html"
    run = scenarios.check_rollout_html(page)
    assert run.code in (0, 1), run.err
    _open(browser, page)
    assert browser.evaluate("document.querySelectorAll('section.run').length") == 2
    assert browser.evaluate("document.querySelectorAll('#timeline-0 .lane[data-node]').length") > 0
    assert browser.evaluate("document.querySelectorAll('#timeline-1 .lane[data-node]').length") > 0
    changed = browser.evaluate("document.querySelectorAll('#timeline-1 .mark.changed').length")
    if json.loads(run.out)["traces"][0]["totals"]["podsChanged"]:
        assert changed > 0
        box = browser.evaluate("""(function () {
            var m = document.querySelector('#timeline-1 .mark.changed');
            m.scrollIntoView({block: 'center'});
            var r = m.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 3];
        })()""")
        browser.click(*box)
        browser.wait_for("document.getElementById('detail').getAttribute('data-mark') !== null")
        detail = browser.evaluate("document.getElementById('detail').innerText")
        assert "proposed" in detail and "with the proposed classes:" in detail
    browser.screenshot(tmp_path / "check.png")
    _assert_clean(browser, page)


@pytest.mark.skipif(not os.environ.get("KUBECTL_PREEMPT_README_SCREENSHOT"),
                    reason="rewrites docs/replay-report.png; set KUBECTL_PREEMPT_README_SCREENSHOT=1 to run it")
def test_write_the_readme_screenshot(browser: Chromium, tmp_path: Path) -> None:
    """The README's picture: the demo's report with its busiest node's last preemption selected."""
    page = tmp_path / "demo.html"
    assert run_cli(["replay", str(DEMO), "--html", str(page)]).code == 0
    _open(browser, page)
    report = _embedded(browser, "kp-report")
    nodes = [p["node"] for p in report["preemptions"]]
    busiest = max(set(nodes), key=nodes.count)
    chosen = max(i for i, n in enumerate(nodes) if n == busiest)
    _click_mark(browser, chosen)
    # the stretch around the burst of preemptions, so that each mark and its links stand apart
    times = [parse_time(p["time"]) - parse_time(report["trace"]["start"]) for p in report["preemptions"]]
    span = max(times) - min(times)
    browser.evaluate(f"window.kubectlPreempt.setRange({max(0, int(min(times) - span / 4 - 60))}, "
                     f"{int(max(times) + span / 4 + 120)})")
    browser.evaluate("window.scrollTo(0, 0)")
    out = REPO / "docs" / "replay-report.png"
    out.parent.mkdir(exist_ok=True)
    browser.screenshot(out, full_page=True)
    assert out.stat().st_size < 500_000


def test_a_kube_batch_eviction_says_which_scheduler_and_action_and_why(browser: Chromium, tmp_path: Path) -> None:
    trace = REPO / "traces" / "two-schedulers.jsonl.gz"
    page = tmp_path / "two.html"
    run = run_cli(["replay", str(trace), "--batch-scheduler-conf", str(REPO / "traces" / "kube-batch.conf"),
                   "--html", str(page)])
    assert run.code == 0, run.err
    _open(browser, page)
    report = _embedded(browser, "kp-report")
    first = next(i for i, p in enumerate(report["preemptions"]) if p.get("action") == "reclaim")
    _click_mark(browser, first)
    assert browser.evaluate("document.getElementById('detail-by').innerText") == "by kube-batch reclaim"
    detail = browser.evaluate("document.getElementById('detail').innerText")
    assert "Queue production is under its deserved share: it reclaims for job production/finetune" in detail
    assert "Eligible by conformance, gang" in detail
    other = next(i for i, p in enumerate(report["preemptions"]) if p.get("scheduler") == "default-scheduler")
    _click_mark(browser, other)
    assert browser.evaluate("document.getElementById('detail-by').innerText") == "by default-scheduler DefaultPreemption"
    _assert_clean(browser, page)


def test_a_gangs_preemption_and_its_members_are_drawn_as_one_unit(browser: Chromium, tmp_path: Path) -> None:
    report, rec = scenarios.run_gangs()
    page = tmp_path / "gangs.html"
    page.write_text(replay_html(report, scenarios.gangs(), rec))
    _open(browser, page)
    first = report["preemptions"][0]
    # the preemption is marked on each node it took victims from, and there is no "cluster" lane
    lanes = browser.evaluate("Array.from(document.querySelectorAll('.lane[data-node]')).map(e => e.getAttribute('data-node'))")
    assert "cluster" not in lanes
    marked = browser.evaluate("Array.from(document.querySelectorAll('.mark[data-mark=\"0\"]'))"
                              ".map(e => e.closest('svg') && e.getAttribute('data-mark')).length")
    assert marked == len({d["node"] for d in first["victimDetails"]})
    _click_mark(browser, 0)
    detail = browser.evaluate("document.getElementById('detail').innerText")
    assert "PodGroup ml/train" in detail and "workload-aware" in detail
    # victims by unit: the PodGroup evicted whole, then the single pod
    units = browser.evaluate("Array.from(document.querySelectorAll('#detail-victims .unit')).map(e => e.innerText)")
    assert units == ["PodGroup batch/lowgang evicted whole: 3 pods"]
    shown = browser.evaluate("Array.from(document.querySelectorAll('#detail-victims .victim')).map(e => e.getAttribute('data-pod'))")
    assert shown == first["victims"]
    members = browser.evaluate("Array.from(document.querySelectorAll('#detail-members .member')).map(e => e.innerText)")
    assert len(members) == 3 and all("bound to node-" in m for m in members)
    assert browser.evaluate("document.querySelectorAll('.selection .victim-bar').length") == len(first["victims"])
    assert browser.evaluate("document.querySelectorAll('.selection .victim-bar.unit-group').length") == 3
    # the pod groups' table: a click outlines the gang's members on the timeline, joined as one
    rows = browser.evaluate("Array.from(document.querySelectorAll('#podgroups-0 tbody tr')).map(e => e.getAttribute('data-gang'))")
    assert rows == ["batch/lowgang", "ml/train"]
    browser.evaluate("document.querySelector('#podgroups-0 tr[data-gang=\"ml/train\"]').click()")
    browser.wait_for("document.querySelectorAll('.gang[data-gang=\"ml/train\"] .gang-run').length === 3")
    assert browser.evaluate("document.querySelectorAll('.gang .gang-join').length") == 1
    browser.screenshot(tmp_path / "gangs.png")
def test_the_verdicts_card_counts_what_the_text_summary_counts(browser: Chromium, tmp_path: Path) -> None:
    # a followed workload-aware preemption whose recorded victim is another order's choice: tied;
    # the card counts it as the text summary does, not as "0 agree, 0 differ"
    from kubectl_preempt.render.replay import render_replay

    tr = scenarios.gang_followed()
    report, rec = scenarios.run(tr, "follow", kubernetes_version="v1.36", feature_gates=scenarios.GANG_GATES)
    sm = report["summary"]
    assert sm["tied"] == 1 and sm["agree"] == 0, [p.get("verdict") for p in report["preemptions"]]
    assert "0 agree, 1 tied with the real one, 0 differ" in render_replay(report)
    page = tmp_path / "followed.html"
    page.write_text(replay_html(report, tr, rec))
    _open(browser, page)
    _, value, sub = browser.evaluate("Array.from(document.getElementById('card-verdicts-0').children)"
                                     ".map(e => e.textContent)")
    assert (value, sub) == ("0 agree", "1 tied, 0 differ")
    _assert_clean(browser, page)


# --- the page counts as the text does, and names what it draws ----------------------------------

BUNDLED_PAGES = [
    ("demo", ["traces/demo.jsonl.gz"]),
    ("demo, followed", ["traces/demo.jsonl.gz", "--follow"]),
    ("gpu training vs inference", ["traces/gpu-training-vs-inference.jsonl.gz"]),
    ("priorityclass rollout", ["traces/priorityclass-rollout.jsonl.gz"]),
    ("two schedulers", ["traces/two-schedulers.jsonl.gz"]),
    ("two schedulers, kube-batch reclaiming", ["traces/two-schedulers.jsonl.gz", "--batch-scheduler-conf",
                                               "traces/kube-batch.conf"]),
]


def _n(text: str) -> int:
    return int(text.replace(",", ""))


def text_totals(table: str) -> dict[str, int]:
    """The totals the text report prints in its summary: preemptions (kube-batch's evictions
    included), victims, pods bound and the pods the time to schedule is of."""
    import re

    out = {"preemptions": 0, "victims": 0, "bound": 0}
    m = re.search(r"Preemptions in the recording\s+([\d,]+) \(([\d,]+) victims?\)", table)
    if m:  # follow mode: what the recording did
        return {"preemptions": _n(m[1]), "victims": _n(m[2])}
    for m in re.finditer(r"(?:Scheduling decisions|kube-scheduler)\s+[\d,]+(?: decisions)?: ([\d,]+) bound, "
                         r"([\d,]+) preemptions? \(([\d,]+) victims?\)", table):
        out["bound"] += _n(m[1])
        out["preemptions"] += _n(m[2])
        out["victims"] += _n(m[3])
    m = re.search(r"kube-batch\s+[\d,]+ sessions?: ([\d,]+) bound, ([\d,]+) evictions?[^,]*(?:\([^)]*\))?, ([\d,]+) victims?",
                  table)
    if m:
        out["bound"] += _n(m[1])
        out["preemptions"] += _n(m[2])
        out["victims"] += _n(m[3])
    m = re.search(r"Time to schedule .*\(([\d,]+) pods? bound", table)
    out["timed"] = _n(m[1]) if m else 0
    return out


@pytest.mark.parametrize("name,args", BUNDLED_PAGES, ids=[n for n, _ in BUNDLED_PAGES])
def test_the_cards_count_what_the_text_report_totals_and_the_legend_names_each_pattern(
        browser: Chromium, tmp_path: Path, name: str, args: list[str]) -> None:
    page = tmp_path / "page.html"
    run = run_cli(["replay", *args, "--html", str(page)], cwd=REPO)
    assert run.code == 0, run.err
    totals = text_totals(run.out)
    assert totals["preemptions"] > 0, run.out
    _open(browser, page)

    def card(which: str) -> list[str]:
        return browser.evaluate(f"Array.from(document.getElementById('card-{which}-0').children).map(e => e.textContent)")

    _, value, sub = card("preemptions")
    assert _n(value) == totals["preemptions"]
    assert sub.startswith(f"{totals['victims']} victims"), sub
    if "--follow" not in args:
        _, value, sub = card("scheduled")
        assert _n(value) == totals["bound"], sub
        schedulers = ["kube-scheduler", "kube-batch"] if "two-schedulers" in args[0] else ["kube-scheduler"]
        assert sub.startswith("bound by ") and all(f"{s} " in sub.split(";")[0] for s in schedulers), sub
        _, _, sub = card("tts")
        assert f"({totals['timed']} pods bound by {' and '.join(schedulers)})" in sub, sub
        assert totals["timed"] == totals["bound"]

    # every pattern the timeline draws is named in the legend beside it
    drawn = browser.evaluate("""(function () {
        var t = document.getElementById('timeline-0'), out = [];
        if (t.querySelector('.cap')) out.push('cap');
        if (Array.from(t.querySelectorAll('path')).some(p => p.getAttribute('fill') === 'url(#kp-hatch)')) out.push('hatch');
        if (Array.from(t.querySelectorAll('.lane-dead')).some(r => parseFloat(r.getAttribute('width')) > 0)) out.push('dead');
        if (t.querySelector('.mark')) out.push('mark');
        if (t.querySelector('.mark.changed')) out.push('changed');
        return out;
    })()""")
    named = browser.evaluate("Array.from(document.querySelectorAll('#legend-0 .legend-item')).map(e => e.getAttribute('data-pattern'))")
    assert set(drawn) <= set(named), (drawn, named)
    if name == "gpu training vs inference":
        assert "dead" in drawn, "a GPU node fails in this trace: its lane is drawn as gone"
    _assert_clean(browser, page)

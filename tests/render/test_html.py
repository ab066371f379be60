"""The HTML page as a file: self-contained, small, holding the replay report exactly as
`replay -o json` prints it, and written by `replay --html`."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest

from kubectl_preempt.api import replay_html
from kubectl_preempt.render.html import _json_for_script, render_html
from kubectl_preempt.replay.view import build_view
from kubectl_preempt.render.replay import render_replay
from tests.conftest import REPO, run_cli
from tests.render import scenarios

MAX_BYTES = 5 * 1024 * 1024


class _Scripts(HTMLParser):
    """The page's script elements: (attributes, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.refs: list[str] = []
        self._cur: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for k in ("src", "href"):
            if a.get(k):
                self.refs.append(f"{tag} {k}={a[k]}")
        if tag == "script":
            self._cur, self._text = a, []

    def handle_data(self, data: str) -> None:
        if self._cur is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._cur is not None:
            self.scripts.append((self._cur, "".join(self._text)))
            self._cur = None


def _parse(page: str) -> _Scripts:
    p = _Scripts()
    p.feed(page)
    p.close()
    return p


@pytest.fixture(scope="module")
def zones_page() -> tuple[dict, str]:
    tr = scenarios.zones()
    report, rec = scenarios.run(tr)
    return report, replay_html(report, tr, rec)


def test_the_page_embeds_the_report_exactly_as_json_output_prints_it(zones_page: tuple[dict, str]) -> None:
    report, page = zones_page
    scripts = _parse(page).scripts
    reports = [json.loads(text) for attrs, text in scripts if attrs.get("class") == "kp-report"]
    views = [json.loads(text) for attrs, text in scripts if attrs.get("class") == "kp-view"]
    assert reports == [json.loads(render_replay(report, "json"))]
    assert len(views) == 1 and views[0]["marks"]


def test_the_page_needs_no_network(zones_page: tuple[dict, str]) -> None:
    _, page = zones_page
    parsed = _parse(page)
    assert parsed.refs == []
    assert "default-src 'none'" in page, "the Content-Security-Policy forbids every fetch"
    # the only URL in the page is the SVG namespace name, which nothing fetches
    assert set(re.findall(r"https?://[^\s\"')]+", page)) <= {"http://www.w3.org/2000/svg"}
    inline = [attrs for attrs, _ in parsed.scripts if attrs.get("type") != "application/json"]
    assert inline == [{}], "one inline script, no src"


def test_text_in_the_data_cannot_close_the_script_element() -> None:
    text = _json_for_script({"message": "</script><script>alert(1)</script>"})
    assert "</" not in text and json.loads(text) == {"message": "</script><script>alert(1)</script>"}


def test_labels_are_escaped_and_several_replays_sit_side_by_side() -> None:
    tr = scenarios.zones()
    report, rec = scenarios.run(tr)
    view = build_view(report, tr, rec)
    page = render_html([("baseline", report, view), ('proposed "B"', report, view)])
    scripts = _parse(page).scripts
    labels = [attrs.get("data-label") for attrs, _ in scripts if attrs.get("class") == "kp-report"]
    assert labels == ["baseline", 'proposed "B"']


def test_the_assets_ship_as_package_data() -> None:
    root = resources.files("kubectl_preempt.render").joinpath("html_assets")
    assert {p.name for p in root.iterdir()} >= {"report.html", "report.js", "report.css"}
    assert 'package-data' in (REPO / "pyproject.toml").read_text()


def test_a_thousand_preemptions_stay_under_five_megabytes() -> None:
    tr = scenarios.storm(preemptions=1000, nodes=25)
    report, rec = scenarios.run(tr)
    assert len(report["preemptions"]) == 1000
    page = replay_html(report, tr, rec)
    assert len(page.encode()) < MAX_BYTES


def test_replay_html_writes_the_page_beside_the_usual_output(tmp_path: Path) -> None:
    trace = tmp_path / "zones.jsonl"
    tr = scenarios.zones()
    lines = [json.dumps({"apiVersion": "kubectl-preempt/v1", "kind": "Trace", **tr["header"]})]
    lines += [json.dumps(e) for e in tr["events"]]
    trace.write_text("\n".join(lines) + "\n")
    out = tmp_path / "report.html"
    run = run_cli(["replay", str(trace), "--html", str(out), "-o", "json"])
    assert run.code == 0, run.err
    assert f"wrote the HTML report to {out}" in run.err
    page = out.read_text()
    embedded = next(json.loads(t) for a, t in _parse(page).scripts if a.get("class") == "kp-report")
    assert embedded == json.loads(run.out), "the page and -o json hold the same report"


def test_replay_html_names_a_file_it_cannot_write(tmp_path: Path) -> None:
    trace = tmp_path / "zones.jsonl"
    tr = scenarios.zones()
    trace.write_text("\n".join([json.dumps({"apiVersion": "kubectl-preempt/v1", "kind": "Trace", **tr["header"]})]
                               + [json.dumps(e) for e in tr["events"]]) + "\n")
    run = run_cli(["replay", str(trace), "--html", str(tmp_path / "missing" / "report.html"), "--kubernetes-version",
                   "v1.34"])
    assert run.code == 2
    assert run.err.count("\n") == 1 and "report.html" in run.err and "--html" in run.err


def _replay_page_html_commands() -> list[str]:
    text = (REPO / "docs" / "replay.md").read_text()
    section = text.split("## A picture of a replay: `--html`", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for b in blocks for line in b.splitlines() if line.startswith("kubectl preempt ")]


def test_the_replay_pages_html_example_writes_the_page(tmp_path: Path) -> None:
    commands = _replay_page_html_commands()
    assert commands, "docs/replay.md's --html section shows a command"
    (tmp_path / "traces").symlink_to(REPO / "traces")
    for cmd in commands:
        argv = cmd.split()[2:]
        run = run_cli(argv, cwd=tmp_path)
        assert run.code == 0, run.err
        page = (tmp_path / argv[argv.index("--html") + 1]).read_text()
        assert "kp-report" in page and "kp-view" in page
    page = (REPO / "docs" / "replay.md").read_text()
    shot = REPO / "docs" / "replay-report.png"
    assert "](replay-report.png)" in page
    assert shot.exists() and shot.stat().st_size < 500_000


def test_check_html_puts_baseline_above_proposed_for_each_trace(tmp_path: Path) -> None:
    out = tmp_path / "check.html"
    run = scenarios.check_rollout_html(out)
    check = json.loads(run.out)
    assert run.code == (0 if check["passed"] else 1), run.err
    assert f"wrote the HTML report to {out}" in run.err
    scripts = _parse(out.read_text()).scripts
    labels = [a.get("data-label") for a, _ in scripts if a.get("class") == "kp-report"]
    name = check["traces"][0]["trace"]
    assert labels == [f"{name}: baseline", f"{name}: proposed"]
    reports = [json.loads(t) for a, t in scripts if a.get("class") == "kp-report"]
    views = [json.loads(t) for a, t in scripts if a.get("class") == "kp-view"]
    for which, report, view in zip(("baseline", "proposed"), reports, views):
        summary = report["summary"]
        assert {k: summary[k] for k in check["traces"][0][which]} == check["traces"][0][which]
        assert "notes" not in view, "the page's replays are the check's"
        assert view["changes"]["totals"] == check["traces"][0]["totals"]
    assert reports[1]["whatIf"]["priorityClasses"][0]["name"] == "platform-critical"
    colours = [{c["name"]: c["colour"] for c in v["classes"]} for v in views]
    assert all(colours[0][n] == colours[1][n] for n in colours[0].keys() & colours[1].keys())


def test_check_html_with_runs_draws_each_side_s_distribution_over_the_runs(tmp_path: Path) -> None:
    # the recording of one preemption in tests/golden, and a proposal that makes batch outrank serving
    folder = REPO / "tests" / "golden" / "check-table"
    out = tmp_path / "check.html"
    run = run_cli(["check", "-t", str(folder / "trace.jsonl"), "-p", str(folder / "proposed.yaml"),
                   "--runs", "3", "--jobs", "1", "--html", str(out), "-o", "json"])
    check = json.loads(run.out)
    assert run.code == (0 if check["passed"] else 1), run.err
    paired = check["traces"][0]["distribution"]
    k = paired["proposed"]["medianRun"]
    scripts = _parse(out.read_text()).scripts
    reports = [json.loads(t) for a, t in scripts if a.get("class") == "kp-report"]
    views = [json.loads(t) for a, t in scripts if a.get("class") == "kp-view"]
    assert [r["run"]["of"] for r in reports] == [3, 3]
    assert [r["run"]["run"] for r in reports] == [k, k], "both sides draw the same pair"
    for which, report in zip(("baseline", "proposed"), reports):
        # the band chart's data: the check's own distribution of that side over the 3 runs
        assert report["distribution"] == paired[which]
        st = paired[which]["preemptions"]
        assert st["min"] <= report["summary"]["preemptions"] <= st["max"]
    if k == 1:
        # run 1 is the single replay: its changes are the ones the check lists
        assert views[0]["changes"]["pods"] == check["traces"][0]["changes"]
    assert views[0]["changes"] == views[1]["changes"]
    # the page's script draws the band for any report that carries a distribution
    assert "run.report.distribution" in out.read_text()


def test_a_single_run_of_a_runs_replay_is_the_run_the_runs_replay_drew() -> None:
    from kubectl_preempt.api import replay
    from kubectl_preempt.io.trace import read_trace

    tr = read_trace(str(REPO / "traces" / "demo.jsonl.gz"))
    many = replay(tr, runs=4, jobs=1)
    k = many["run"]["run"]
    alone = replay(tr, run=k)
    assert alone["summary"] == many["summary"] and alone["preemptions"] == many["preemptions"]
    # run 1 is the single replay, whose report names no run
    assert (alone.get("run") or {"seed": None})["seed"] == many["run"]["seed"]
    if k > 1:
        assert alone["run"]["run"] == k

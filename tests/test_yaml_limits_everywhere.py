"""The YAML depth and alias limits hold in the readers beyond snapshots and traces: kubeconfigs and
kube-batch's scheduler configuration (one line, exit 2, no crash), and docs/formats.md states every limit
as the code has it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_preempt.batch.conf import parse_scheduler_conf
from kubectl_preempt.errors import InputError
from kubectl_preempt.model import limits
from tests.conftest import REPO, run_cli
from tests.test_hostile_input import DEEP, one_line_error

ALIASES = "a: &x [1]\nb: [" + ", ".join(["*x"] * (limits.MAX_ALIASES + 1)) + "]\n"


@pytest.mark.parametrize("form", sorted(DEEP))
def test_a_deep_kubeconfig_is_one_line_and_exit_2(tmp_path: Path, form: str) -> None:
    kc = tmp_path / "kubeconfig"
    kc.write_text(DEEP[form])
    one_line_error(run_cli(["explain", "-A", "--kubeconfig", str(kc)]), f"error: {kc}: line ",
                   f"nested more than {limits.MAX_DEPTH} levels deep")


def test_a_kubeconfig_of_too_many_aliases_is_refused(tmp_path: Path) -> None:
    kc = tmp_path / "kubeconfig"
    kc.write_text(ALIASES)
    one_line_error(run_cli(["explain", "-A", "--kubeconfig", str(kc)]), f"error: {kc}: more than 10000 YAML aliases")


@pytest.mark.parametrize("text", [DEEP["flow"], DEEP["block-sequences"], ALIASES], ids=["deep flow", "deep block",
                                                                                        "aliases"])
def test_kube_batch_scheduler_conf_refuses_deep_or_aliased_yaml(text: str) -> None:
    with pytest.raises(InputError, match="conf.yaml: .*(levels deep|YAML aliases)"):
        parse_scheduler_conf(text, source="conf.yaml")


def test_the_formats_page_states_the_limits_the_code_has() -> None:
    text = re.sub(r"\s+", " ", (REPO / "docs" / "formats.md").read_text())
    d = limits.DEFAULT
    for row in (f"| {limits.format_size(d.max_input_bytes)} | `--max-input-size` |",
                f"| {limits.format_span(d.max_trace_span)} | `--max-trace-span` |",
                f"| {d.max_trace_events:,} | `--max-trace-events` |",
                f"| {limits.MAX_DEPTH} | none |", f"| {limits.MAX_ALIASES:,} | none |"):
        assert row in text, row

"""--junit FILE for check: JUnit XML, as CI systems show test results.

One testsuite for validation (one testcase: the proposed classes as the API server takes them)
and one per trace, with a testcase per rule; a failing rule's testcase carries a <failure> whose
message is the rule's summary and whose text lists every violation.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Mapping

SUITES_NAME = "kubectl-preempt check"
VALIDATION_SUITE = "validation"


def _case(suite: ET.Element, classname: str, rule: Mapping[str, Any]) -> None:
    case = ET.SubElement(suite, "testcase", {"classname": classname, "name": rule["rule"], "time": "0"})
    if rule["passed"]:
        out = ET.SubElement(case, "system-out")
        out.text = rule.get("summary", "")
        return
    fail = ET.SubElement(case, "failure", {"message": rule.get("summary", ""), "type": rule["rule"]})
    fail.text = "\n".join(v["message"] for v in rule.get("violations") or ())


def render_junit(report: Mapping[str, Any]) -> str:
    rules = list(report.get("rules") or [])
    root = ET.Element("testsuites", {"name": SUITES_NAME, "tests": str(len(rules)),
                                     "failures": str(sum(1 for r in rules if not r["passed"])),
                                     "errors": "0", "time": "0"})
    # validation is keyed apart, so that a trace named "validation" gets a suite of its own
    groups: dict[tuple[bool, str], list[Mapping[str, Any]]] = {}
    for r in rules:
        key = (True, r["trace"]) if r.get("trace") else (False, VALIDATION_SUITE)
        groups.setdefault(key, []).append(r)
    versions = {t.get("trace"): t.get("schedulerVersion") for t in report.get("traces") or ()}
    for (is_trace, name), group in groups.items():
        suite = ET.SubElement(root, "testsuite", {
            "name": name, "tests": str(len(group)), "failures": str(sum(1 for r in group if not r["passed"])),
            "errors": "0", "skipped": "0", "time": "0"})
        if is_trace and versions.get(name):
            # which scheduler release replayed the trace
            props = ET.SubElement(suite, "properties")
            ET.SubElement(props, "property", {"name": "kube-scheduler", "value": str(versions[name])})
        for r in group:
            _case(suite, name, r)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


__all__ = ["render_junit"]

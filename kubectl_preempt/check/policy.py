"""The gate: which differences fail a proposed change.

Rules, each a JUnit testcase per trace: `new-victims` (a pod preempted that was not before),
`unschedulable` (a pod that got a node before and no longer does), `any-change` (any per-pod
difference), `protect-namespace NS` (a new victim in NS), `max-new-victims N` (more than N new
victims in one trace). Validation is always a rule: a class the API server would refuse fails
the change whatever else is asked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..errors import UsageError, quote
from .diff import (DIFFERENT_NODE, DIFFERENT_PREEMPTIONS, DIFFERENT_PREEMPTOR, NEWLY_PREEMPTED, NEWLY_PREEMPTING,
                   NEWLY_SCHEDULED, NEWLY_UNSCHEDULABLE, NO_LONGER_PREEMPTED, NO_LONGER_PREEMPTING)

NEW_VICTIMS = "new-victims"
UNSCHEDULABLE = "unschedulable"
ANY_CHANGE = "any-change"
FAIL_ON = (NEW_VICTIMS, UNSCHEDULABLE, ANY_CHANGE)
PROTECT_NAMESPACE = "protect-namespace"
MAX_NEW_VICTIMS = "max-new-victims"
VALIDATION = "validation"
# what the gate checks when no policy is given
DEFAULT_FAIL_ON = (NEW_VICTIMS, UNSCHEDULABLE)

CHANGE_WORDS = {
    NEWLY_PREEMPTED: "newly preempted",
    NO_LONGER_PREEMPTED: "no longer preempted",
    NEWLY_UNSCHEDULABLE: "newly unschedulable",
    NEWLY_SCHEDULED: "newly scheduled",
    DIFFERENT_PREEMPTOR: "preempted by another pod or on another node",
    DIFFERENT_NODE: "scheduled on another node",
    NEWLY_PREEMPTING: "newly preempts others",
    NO_LONGER_PREEMPTING: "no longer preempts others",
    DIFFERENT_PREEMPTIONS: "preempts on other nodes or another number of times",
}


@dataclass(frozen=True)
class Policy:
    fail_on: tuple[str, ...] = DEFAULT_FAIL_ON
    protect_namespaces: tuple[str, ...] = ()
    max_new_victims: int | None = None

    @classmethod
    def from_options(cls, fail_on: Iterable[str] | None = None, protect_namespaces: Iterable[str] | None = None,
                     max_new_victims: int | None = None) -> "Policy":
        """The policy the flags ask for; with none of them, DEFAULT_FAIL_ON."""
        rules: list[str] = []
        for r in fail_on or ():
            for part in str(r).split(","):
                part = part.strip()
                if part not in FAIL_ON:
                    raise UsageError(f"{quote(part)} is not one of {', '.join(FAIL_ON)}", field="--fail-on")
                if part not in rules:
                    rules.append(part)
        namespaces = tuple(dict.fromkeys(ns for ns in (protect_namespaces or ()) if ns))
        if max_new_victims is not None and max_new_victims < 0:
            raise UsageError(f"must be 0 or more, got {max_new_victims}", field="--max-new-victims")
        if not rules and not namespaces and max_new_victims is None:
            rules = list(DEFAULT_FAIL_ON)
        return cls(tuple(sorted(rules, key=FAIL_ON.index)), namespaces, max_new_victims)

    def rule_names(self) -> list[str]:
        names = list(self.fail_on)
        names += [f"{PROTECT_NAMESPACE} {ns}" for ns in self.protect_namespaces]
        if self.max_new_victims is not None:
            names.append(f"{MAX_NEW_VICTIMS} {self.max_new_victims}")
        return names

    def to_dict(self) -> dict[str, Any]:
        return {"failOn": list(self.fail_on), "protectNamespaces": list(self.protect_namespaces),
                "maxNewVictims": self.max_new_victims}


@dataclass
class RuleResult:
    rule: str
    trace: str | None
    violations: list[dict[str, Any]] = field(default_factory=list)
    summary: str = ""

    @property
    def passed(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"rule": self.rule, "passed": self.passed, "summary": self.summary,
                             "violations": list(self.violations)}
        if self.trace is not None:
            d = {"rule": self.rule, "trace": self.trace, **{k: v for k, v in d.items() if k != "rule"}}
        return d


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def victim_text(entry: Mapping[str, Any]) -> str:
    p = entry["proposed"]
    return f"{entry['pod']} (priority {p.get('priority')}) newly preempted by {p.get('preemptedBy')} on {p.get('node')}"


def unschedulable_text(entry: Mapping[str, Any]) -> str:
    b, p = entry["baseline"], entry["proposed"]
    text = f"{entry['pod']} no longer gets a node (was scheduled on {b.get('node')})"
    if p.get("message"):
        text += f": {p['message']}"
    return text


def change_text(entry: Mapping[str, Any]) -> str:
    return f"{entry['pod']}: " + ", ".join(CHANGE_WORDS[c] for c in entry["changes"])


def _violation(entry: Mapping[str, Any], message: str) -> dict[str, Any]:
    return {"pod": entry["pod"], "changes": list(entry["changes"]), "message": message}


def evaluate_trace(policy: Policy, trace: str, entries: Sequence[Mapping[str, Any]]) -> list[RuleResult]:
    """Each of the policy's rules on one trace's per-pod differences."""
    new_victims = [e for e in entries if NEWLY_PREEMPTED in e["changes"]]
    out: list[RuleResult] = []
    for rule in policy.fail_on:
        if rule == NEW_VICTIMS:
            r = RuleResult(rule, trace, [_violation(e, victim_text(e)) for e in new_victims])
            r.summary = _plural(len(new_victims), "new victim")
        elif rule == UNSCHEDULABLE:
            bad = [e for e in entries if NEWLY_UNSCHEDULABLE in e["changes"]]
            r = RuleResult(rule, trace, [_violation(e, unschedulable_text(e)) for e in bad])
            r.summary = _plural(len(bad), "newly unschedulable pod")
        else:
            r = RuleResult(rule, trace, [_violation(e, change_text(e)) for e in entries])
            r.summary = _plural(len(entries), "pod changed", "pods changed")
        out.append(r)
    for ns in policy.protect_namespaces:
        bad = [e for e in new_victims if e["namespace"] == ns]
        r = RuleResult(f"{PROTECT_NAMESPACE} {ns}", trace,
                       [_violation(e, f"{victim_text(e)}; namespace {ns} is protected") for e in bad])
        r.summary = _plural(len(bad), f"new victim in {ns}", f"new victims in {ns}")
        out.append(r)
    if policy.max_new_victims is not None:
        n, limit = len(new_victims), policy.max_new_victims
        r = RuleResult(f"{MAX_NEW_VICTIMS} {limit}", trace)
        r.summary = f"{_plural(n, 'new victim')}, at most {limit} allowed"
        if n > limit:
            r.violations.append({"pods": [e["pod"] for e in new_victims],
                                 "message": f"{_plural(n, 'new victim')}, more than the {limit} allowed: "
                                            + ", ".join(e["pod"] for e in new_victims)})
        out.append(r)
    return out


def evaluate_validation(findings: Sequence[Mapping[str, Any]]) -> RuleResult:
    """The validation rule: every error finding (not warnings) is a violation."""
    errors = [f for f in findings if f.get("severity") == "error"]
    r = RuleResult(VALIDATION, None, [{"priorityClass": f["priorityClass"], "rule": f["rule"],
                                       "message": f["message"]} for f in errors])
    r.summary = "the API server accepts every proposed class" if not errors else \
        _plural(len(errors), "rejection")
    return r


__all__ = ["Policy", "RuleResult", "evaluate_trace", "evaluate_validation", "FAIL_ON", "DEFAULT_FAIL_ON"]

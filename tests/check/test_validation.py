"""Proposed PriorityClasses as the API server takes them: every rule, in upstream's words."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.check import validation as v
from kubectl_preempt.check.validation import (ExistingClass, ProposedClass, apply_proposal, check_object,
                                              decode_proposal)
from tests.builders import make_priority_class as pc

MAX_MSG = v.MSG_MAX_USER_PRIORITY % v.HIGHEST_USER_DEFINABLE_PRIORITY


def field_errors(obj: dict[str, Any]) -> list[str]:
    p = ProposedClass(obj, "pc.yaml")
    return [e for f in check_object(p) if f.severity == v.ERROR for e in f.errors]


def messages(obj: dict[str, Any]) -> list[str]:
    p = ProposedClass(obj, "pc.yaml")
    return [f.message for f in check_object(p) if f.severity == v.ERROR]


@pytest.mark.parametrize("obj, expected", [
    (pc("high", 1_000_000_000), []),
    (pc("too-high", 1_000_000_001), [f"value: Forbidden: {MAX_MSG}"]),
    (pc("negative", -5), []),
    (pc("system-cluster-critical", 2_000_000_000), []),
    (pc("system-node-critical", 2_000_001_000), []),
    (pc("system-custom", 10), ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
                               "for system use only. error: system-custom is not a known system priority class"]),
    (pc("system-custom", 2_000_000_000), ["metadata.name: Forbidden: priority class names with 'system-' prefix are "
                                          "reserved for system use only. error: system-custom is not a known system "
                                          "priority class"]),
    (pc("system-node-critical", 5), ["metadata.name: Forbidden: priority class names with 'system-' prefix are "
                                     "reserved for system use only. error: value of system-node-critical "
                                     "PriorityClass must be 2000001000"]),
    (pc("system-cluster-critical", 2_000_000_000, True),
     ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
      "error: globalDefault of system-cluster-critical PriorityClass must be false"]),
    (pc("never", 10, policy="Never"), []),
    (pc("lower", 10, policy="PreemptLowerPriority"), []),
    (pc("odd", 10, policy="Sometimes"),
     ['preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']),
    ({**pc("empty-policy", 10), "preemptionPolicy": ""}, ["preemptionPolicy: Required value"]),
    (pc("Bad_Name", 10), [f'metadata.name: Invalid value: "Bad_Name": {v.MSG_DNS1123_SUBDOMAIN}']),
    (pc("a" * 254, 10), [f'metadata.name: Invalid value: "{"a" * 254}": must be no more than 253 characters']),
    ({**pc("x", 10), "metadata": {}}, ["metadata.name: Required value: name or generateName is required"]),
], ids=[
    "the highest user-definable value is accepted",
    "one above the highest user-definable value is forbidden",
    "a negative value is accepted",
    "system-cluster-critical exactly as the system defines it is accepted",
    "system-node-critical exactly as the system defines it is accepted",
    "an unknown name with the system- prefix is reserved",
    "the system- prefix is checked instead of the value limit",
    "a system class with another value is refused",
    "a system class marked globalDefault is refused",
    "preemptionPolicy Never is accepted",
    "preemptionPolicy PreemptLowerPriority is accepted",
    "an unknown preemptionPolicy lists the supported values in upstream's order",
    "an empty preemptionPolicy is required, not defaulted",
    "a name that is not a DNS subdomain is invalid",
    "a name longer than 253 characters is invalid",
    "a class without a name needs one",
])
def test_create_validation_mirrors_validate_priority_class(obj: dict[str, Any], expected: list[str]) -> None:
    assert field_errors(obj) == expected


def test_the_whole_answer_names_the_kind_and_the_class() -> None:
    assert messages(pc("too-high", 2_000_000_000)) == [
        f'PriorityClass.scheduling.k8s.io "too-high" is invalid: value: Forbidden: {MAX_MSG}']


def test_several_errors_are_one_answer_in_brackets_as_an_aggregate() -> None:
    obj = pc("system-x", 10, policy="Sometimes")
    msgs = messages(obj)
    assert len(msgs) == 2 and msgs[0] == msgs[1]  # one finding per rule, the same answer
    assert msgs[0] == ('PriorityClass.scheduling.k8s.io "system-x" is invalid: [metadata.name: Forbidden: priority '
                       "class names with 'system-' prefix are reserved for system use only. error: system-x is not a "
                       'known system priority class, preemptionPolicy: Unsupported value: "Sometimes": supported '
                       'values: "PreemptLowerPriority", "Never"]')
    rules = [f.rule for f in check_object(ProposedClass(obj))]
    assert rules == [v.RULE_SYSTEM_PREFIX, v.RULE_PREEMPTION_POLICY]


@pytest.mark.parametrize("obj, expected", [
    ({**pc("s", 1), "value": "100"}, "json: cannot unmarshal string into Go struct field PriorityClass.value of type int32"),
    ({**pc("s", 1), "value": 3_000_000_000},
     "json: cannot unmarshal number 3000000000 into Go struct field PriorityClass.value of type int32"),
    ({**pc("s", 1), "value": 1.5}, "json: cannot unmarshal number 1.5 into Go struct field PriorityClass.value of type int32"),
    ({**pc("s", 1), "globalDefault": "yes"},
     "json: cannot unmarshal string into Go struct field PriorityClass.globalDefault of type bool"),
    # a number where no number goes is named "number" alone (literalStore's default case)
    ({**pc("s", 1), "preemptionPolicy": 5},
     "json: cannot unmarshal number into Go struct field PriorityClass.preemptionPolicy of type v1.PreemptionPolicy"),
    ({**pc("s", 1), "description": {"a": 1}},
     "json: cannot unmarshal object into Go struct field PriorityClass.description of type string"),
    ({**pc("s", 1), "metadata": 7},
     "json: cannot unmarshal number into Go struct field PriorityClass.metadata of type v1.ObjectMeta"),
    ({**pc("s", 1), "metadata": {"name": "s", "labels": ["a", "b"]}},
     "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ({**pc("s", 1), "metadata": {"name": "s", "labels": {"tier": 5}}},
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    ({**pc("s", 1), "metadata": {"name": 12}},
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
    # kubectl sends the keys sorted: the decoder meets globalDefault before value, and keeps the first
    ({**pc("s", 1), "value": "100", "globalDefault": "yes"},
     "json: cannot unmarshal string into Go struct field PriorityClass.globalDefault of type bool"),
], ids=["a quoted value", "a value beyond int32", "a fractional value", "a globalDefault that is not a boolean",
        "a number as the policy", "a description that is an object", "metadata a number", "labels a list",
        "a label value a number", "a name that is a number", "the first error in key order"])
def test_fields_that_do_not_fit_their_go_types_are_refused_by_the_decoder(obj: dict[str, Any], expected: str) -> None:
    p = ProposedClass(obj)
    [f] = check_object(p)
    assert f.rule == v.RULE_DECODE and not p.valid
    assert f.message == v.MSG_UNDECODABLE % expected


def test_an_api_version_the_server_does_not_serve_has_no_kind_match() -> None:
    p = ProposedClass({**pc("old", 5), "apiVersion": "scheduling.k8s.io/v1beta1"})
    [f] = check_object(p)
    assert (f.rule, f.message) == (v.RULE_API_VERSION,
                                   'no matches for kind "PriorityClass" in version "scheduling.k8s.io/v1beta1"')


def test_a_manifest_without_api_version_is_refused_before_validation() -> None:
    obj = pc("bare", 5)
    del obj["apiVersion"]
    [f] = check_object(ProposedClass(obj))
    assert (f.rule, f.message) == (v.RULE_API_VERSION, "apiVersion not set")


def test_a_class_without_value_is_created_with_zero_and_says_so() -> None:
    obj = pc("zero", 1)
    del obj["value"]
    p = ProposedClass(obj)
    [f] = check_object(p)
    assert p.valid and p.value == 0 and f.severity == v.WARNING and f.rule == v.RULE_DEFAULT_VALUE


def test_defaults_fill_the_stored_object() -> None:
    p = ProposedClass({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "a"},
                       "value": 7})
    assert check_object(p) == []
    assert p.as_object()["preemptionPolicy"] == "PreemptLowerPriority" and p.as_object()["globalDefault"] is False


# --- against what exists -----------------------------------------------------------------------------

def existing(*objs: dict[str, Any]) -> dict[str, ExistingClass]:
    return {o["metadata"]["name"]: ExistingClass.from_object(o) for o in objs}


def apply(proposed: list[dict[str, Any]], current: dict[str, ExistingClass], **kw: Any) -> v.Applied:
    classes, _ = decode_proposal(proposed, [f"f{i}.yaml" for i in range(len(proposed))])
    return apply_proposal(classes, current, **kw)


ONE_DEFAULT = v.MSG_ONE_DEFAULT


@pytest.mark.parametrize("proposed, current, refused", [
    ([pc("a", 1, True), pc("b", 2, True)], {}, [("b", ONE_DEFAULT % "a")]),
    ([pc("new", 1, True)], existing(pc("old", 5, True)), [("new", ONE_DEFAULT % "old")]),
    ([pc("old", 5, False), pc("new", 1, True)], existing(pc("old", 5, True)), []),
    ([pc("new", 1, True), pc("old", 5, False)], existing(pc("old", 5, True)), []),
    ([pc("old", 5, True)], existing(pc("old", 5, True)), []),
    ([pc("other", 7, True)], existing(pc("other", 7, False), pc("old", 5, True)), [("other", ONE_DEFAULT % "old")]),
    ([pc("old", 9, True)], existing(pc("old", 5, True)), []),
], ids=[
    "two proposed defaults: the second is refused",
    "a new default while one exists is refused",
    "moving the default from one class to another in one change is accepted",
    "moving the default is accepted whatever the order of the manifests",
    "re-applying the existing default is accepted",
    "marking an existing class default while another is default is refused",
    "re-creating the default class with another value is accepted",
])
def test_only_one_default_can_exist(proposed, current, refused) -> None:
    applied = apply(proposed, current)
    got = [(f.name, f.message) for f in applied.findings]
    assert got == [(name, v.forbidden_message(name, reason)) for name, reason in refused]
    assert got == [(n, f'priorityclasses.scheduling.k8s.io "{n}" is forbidden: {r}') for n, r in refused]
    assert applied.rejected == [name for name, _ in refused]


def test_a_changed_value_is_a_delete_and_recreate_with_the_update_error() -> None:
    applied = apply([pc("batch", 200)], existing(pc("batch", 100)))
    [rc] = applied.recreates
    assert rc.changes() == {"value": [100, 200]}
    assert rc.update_error == 'PriorityClass.scheduling.k8s.io "batch" is invalid: value: Forbidden: ' + v.MSG_VALUE_IMMUTABLE
    assert applied.findings == [] and applied.created == ["batch"]


def test_a_changed_preemption_policy_is_immutable_too() -> None:
    applied = apply([pc("batch", 200, policy="Never")], existing(pc("batch", 100)))
    [rc] = applied.recreates
    assert rc.changes() == {"value": [100, 200], "preemptionPolicy": ["PreemptLowerPriority", "Never"]}
    assert rc.update_error == ('PriorityClass.scheduling.k8s.io "batch" is invalid: [value: Forbidden: may not be '
                               'changed in an update., preemptionPolicy: Invalid value: "Never": field is immutable]')


def test_globaldefault_and_description_change_in_place() -> None:
    applied = apply([{**pc("batch", 100, True), "description": "now the default"}], existing(pc("batch", 100)))
    assert applied.recreates == [] and applied.updated == ["batch"]


def test_an_identical_class_is_unchanged_and_a_new_one_created() -> None:
    applied = apply([pc("batch", 100), pc("fresh", 5)], existing(pc("batch", 100)))
    assert (applied.unchanged, applied.created) == (["batch"], ["fresh"])


def test_a_complete_proposal_deletes_what_it_leaves_out_but_never_system_classes() -> None:
    current = existing(pc("batch", 100), pc("gone", 5), pc("system-node-critical", 2_000_001_000))
    applied = apply([pc("batch", 100)], current, complete=True)
    assert applied.removed == ["gone"]


def test_invalid_classes_are_never_applied() -> None:
    applied = apply([pc("huge", 2_000_000_000, True)], existing(pc("old", 5, True)))
    assert applied.findings == [] and applied.created == []


def test_a_name_given_twice_warns_and_the_later_manifest_wins() -> None:
    classes, findings = decode_proposal([pc("a", 1), pc("a", 2)], ["one.yaml", "two.yaml"])
    [f] = findings
    assert f.rule == v.RULE_DUPLICATE and f.severity == v.WARNING and f.source == "two.yaml"
    assert "one.yaml" in f.message
    assert [c.effective for c in classes] == [False, True]


def test_go_quote_matches_strconv_quote_for_manifest_strings() -> None:
    assert v.go_quote('a"b') == '"a\\"b"'
    assert v.go_quote("x") == '"x"'

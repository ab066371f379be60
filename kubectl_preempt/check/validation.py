"""Proposed PriorityClasses as the API server would take them, in its own words.

Creation: the object is decoded (value int32, globalDefault bool), validated as
pkg/apis/scheduling/validation.ValidatePriorityClass does (name, the reserved `system-` prefix,
the highest user-definable value, preemptionPolicy), and then the Priority admission plugin
refuses a second globalDefault. Update: value and preemptionPolicy are immutable
(ValidatePriorityClassUpdate), so a proposal that changes either means delete and re-create; pods
keep the priority admission gave them until they are themselves re-created.

Every message is built from the constants below, which hold upstream's texts verbatim.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..model.objects import (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER, SYSTEM_CLUSTER_CRITICAL,
                             SYSTEM_CRITICAL_PRIORITY, SYSTEM_NODE_CRITICAL)
from ..model.priority import global_default
from ..model.selectors import DNS1123_SUBDOMAIN_FMT

API_VERSION = "scheduling.k8s.io/v1"
KIND = "PriorityClass"
# apierrors.NewInvalid's qualified kind and NewForbidden's qualified resource
QUALIFIED_KIND = "PriorityClass.scheduling.k8s.io"
QUALIFIED_RESOURCE = "priorityclasses.scheduling.k8s.io"

# pkg/apis/scheduling: HighestUserDefinablePriority and SystemPriorityClassPrefix
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
# pkg/apis/scheduling/v1.systemPriorityClasses: name -> (value, globalDefault)
SYSTEM_PRIORITY_CLASSES = {
    SYSTEM_NODE_CRITICAL: (SYSTEM_CRITICAL_PRIORITY + 1000, False),
    SYSTEM_CLUSTER_CRITICAL: (SYSTEM_CRITICAL_PRIORITY, False),
}
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
DNS1123_SUBDOMAIN_MAX_LENGTH = 253

# field.ErrorType strings
FORBIDDEN = "Forbidden"
INVALID = "Invalid value"
UNSUPPORTED = "Unsupported value"
REQUIRED = "Required value"

# ValidatePriorityClass
MSG_MAX_USER_PRIORITY = "maximum allowed value of a user defined priority is %d"
MSG_SYSTEM_PREFIX = "priority class names with '" + SYSTEM_PRIORITY_CLASS_PREFIX + \
    "' prefix are reserved for system use only. error: %s"
# IsKnownSystemPriorityClass
MSG_SYSTEM_VALUE = "value of %s PriorityClass must be %d"
MSG_SYSTEM_GLOBAL_DEFAULT = "globalDefault of %s PriorityClass must be %s"
MSG_NOT_SYSTEM = "%s is not a known system priority class"
# ValidatePreemptionPolicy: field.NotSupported keeps the order of the list it is given
PREEMPTION_POLICIES = (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER)
MSG_SUPPORTED_VALUES = "supported values: %s"
# ValidateObjectMeta with NameIsDNSSubdomain (IsDNS1123Subdomain, MaxLenError, RegexError)
MSG_NAME_REQUIRED = "name or generateName is required"
MSG_MAX_LEN = "must be no more than %d characters"
MSG_DNS1123_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                         "'-' or '.', and must start and end with an alphanumeric character "
                         "(e.g. 'example.com', regex used for validation is '" + DNS1123_SUBDOMAIN_FMT + "')")
# ValidatePriorityClassUpdate (and apimachinery's FieldImmutableErrorMsg)
MSG_VALUE_IMMUTABLE = "may not be changed in an update."
MSG_FIELD_IMMUTABLE = "field is immutable"
# plugin/pkg/admission/priority: validatePriorityClass, and its check of a pod's class
MSG_ONE_DEFAULT = "PriorityClass %s is already marked as default. Only one default can exist"
MSG_NO_CLASS = "no PriorityClass with name %s was found"
# apierrors.NewInvalid / NewForbidden / the decoder's error for a body that does not fit the type
MSG_INVALID = '%s "%s" is invalid: %s'
MSG_FORBIDDEN = '%s "%s" is forbidden: %s'
MSG_UNDECODABLE = 'PriorityClass in version "v1" cannot be handled as a PriorityClass: %s'
MSG_UNMARSHAL = "json: cannot unmarshal %s into Go struct field %s.%s of type %s"
# the RESTMapper's answer (as kubectl apply prints it) to an apiVersion the server does not serve
MSG_NO_KIND_MATCH = 'no matches for kind "PriorityClass" in version "%s"'
MSG_NO_API_VERSION = "apiVersion not set"

_DNS1123_SUBDOMAIN = re.compile(r"^" + DNS1123_SUBDOMAIN_FMT + r"$")

# finding rules: what a reader (and a JUnit testcase) names
RULE_DECODE = "decode"
RULE_API_VERSION = "api-version"
RULE_NAME = "name"
RULE_SYSTEM_PREFIX = "system-prefix"
RULE_MAX_VALUE = "max-value"
RULE_PREEMPTION_POLICY = "preemption-policy"
RULE_GLOBAL_DEFAULT = "global-default"
RULE_DUPLICATE = "duplicate"
RULE_DEFAULT_VALUE = "value-unset"
ERROR = "error"
WARNING = "warning"


def go_quote(value: str) -> str:
    """strconv.Quote / %q for the strings a manifest holds."""
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class FieldError:
    """field.Error: `<field>: <type>[: <bad value>][: <detail>]`, as Error() prints it."""

    type: str
    field: str
    detail: str = ""
    bad_value: str | None = None  # already formatted as Go prints it (a quoted string, a number)

    def __str__(self) -> str:
        text = f"{self.field}: {self.type}"
        if self.bad_value is not None:
            text += f": {self.bad_value}"
        if self.detail:
            text += f": {self.detail}"
        return text


def aggregate(errors: Sequence[FieldError]) -> str:
    """utilerrors.Aggregate's text: one error alone, several in brackets; duplicates dropped."""
    seen: list[str] = []
    for e in errors:
        s = str(e)
        if s not in seen:
            seen.append(s)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def invalid_message(name: str, errors: Sequence[FieldError]) -> str:
    return MSG_INVALID % (QUALIFIED_KIND, name, aggregate(errors))


def forbidden_message(name: str, reason: str) -> str:
    return MSG_FORBIDDEN % (QUALIFIED_RESOURCE, name, reason)


@dataclass
class Finding:
    """One thing the API server (or its admission) would say about a proposed class."""

    rule: str
    name: str
    message: str
    severity: str = ERROR
    source: str = ""
    errors: list[str] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)  # traces (or --baseline) it holds in

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"rule": self.rule, "severity": self.severity, "priorityClass": self.name,
                             "message": self.message}
        if self.source:
            d["source"] = self.source
        if self.errors:
            d["fieldErrors"] = list(self.errors)
        if self.contexts:
            d["traces"] = list(self.contexts)
        return d


@dataclass
class ProposedClass:
    """A proposed manifest, where it came from, and (once decoded) its effective fields."""

    raw: Mapping[str, Any]
    source: str = ""
    name: str = ""
    value: int = 0
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    valid: bool = True         # passes decoding and ValidatePriorityClass
    superseded: bool = False   # a later manifest of the same name replaces it

    @property
    def effective(self) -> bool:
        return self.valid and not self.superseded

    def as_object(self) -> dict[str, Any]:
        """The class as the API server stores it: defaults filled in."""
        obj = dict(self.raw)
        obj["value"] = self.value
        obj["globalDefault"] = self.global_default
        obj["preemptionPolicy"] = self.preemption_policy
        return obj


# --- creation ----------------------------------------------------------------------------------------

def _json_kind(v: Any, *, integer: bool = False) -> str:
    # encoding/json's literalStore names the JSON type it met; a number it met is named with its
    # text only where the target is an integer it does not fit (ParseInt's failure), and as
    # "number" alone where the target is no number at all (a string, a bool)
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return f"number {_go_number(v)}" if integer else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, Mapping):
        return "object"
    return "null"


def _go_number(v: float | int) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v)) if abs(v) < 1e21 else repr(v)
    return str(v)


# The fields the decoder gives a Go type, with that type as UnmarshalTypeError prints it: those of
# scheduling/v1 PriorityClass and of the meta/v1 ObjectMeta fields a manifest writes by hand.
_STRING, _BOOL, _INT32, _STRING_MAP = "string", "bool", "int32", "map[string]string"
_OBJECT_META = "v1.ObjectMeta"
_META_FIELDS = {"annotations": _STRING_MAP, "generateName": _STRING, "labels": _STRING_MAP, "name": _STRING,
                "namespace": _STRING}
_CLASS_FIELDS = {"description": _STRING, "globalDefault": _BOOL, "metadata": _OBJECT_META,
                 "preemptionPolicy": "v1.PreemptionPolicy", "value": _INT32}


def _fits(v: Any, go_type: str) -> bool:
    if v is None:  # null leaves a field at its zero value
        return True
    if go_type == _BOOL:
        return isinstance(v, bool)
    if go_type == _INT32:
        # an integer as the JSON text kubectl sends holds it (a YAML 1e3 arrives as 1000)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        return isinstance(v, int) and not isinstance(v, bool) and INT32_MIN <= v <= INT32_MAX
    if go_type in (_STRING_MAP, _OBJECT_META):
        return isinstance(v, Mapping)
    return isinstance(v, str)


def _unmarshal_errors(obj: Mapping[str, Any], fields: Mapping[str, str], struct: str, path: str,
                      out: list[str]) -> None:
    # kubectl sends the manifest as json.Marshal writes a map: keys sorted, at every level; the
    # decoder reads them in that order, so its first error is the first below in that order
    for key in sorted(k for k in obj if isinstance(k, str)):
        go_type = fields.get(key)
        if go_type is None:
            continue
        v = obj[key]
        field_path = f"{path}{key}"
        if not _fits(v, go_type):
            out.append(MSG_UNMARSHAL % (_json_kind(v, integer=go_type == _INT32), struct, field_path, go_type))
        elif go_type == _OBJECT_META and v is not None:
            _unmarshal_errors(v, _META_FIELDS, "ObjectMeta", f"{field_path}.", out)
        elif go_type == _STRING_MAP and v is not None:
            # a map's element keeps the error context of the map's field (the struct and the path)
            for k in sorted(str(x) for x in v):
                item = v.get(k)
                if not _fits(item, _STRING):
                    out.append(MSG_UNMARSHAL % (_json_kind(item), struct, field_path, _STRING))


def decode_errors(raw: Mapping[str, Any]) -> list[str]:
    """What the decoder refuses before validation runs: fields that do not fit their Go types, in
    the order it meets them (the first is the one the API server answers with: saveError keeps
    the first)."""
    out: list[str] = []
    _unmarshal_errors(raw, _CLASS_FIELDS, "PriorityClass", "", out)
    return out


def validate_name(name: Any) -> list[FieldError]:
    """mirrors ValidateObjectMeta's name checks with NameIsDNSSubdomain"""
    if not name:
        return [FieldError(REQUIRED, "metadata.name", MSG_NAME_REQUIRED)]
    name = str(name)
    errs = []
    if len(name) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(FieldError(INVALID, "metadata.name", MSG_MAX_LEN % DNS1123_SUBDOMAIN_MAX_LENGTH, go_quote(name)))
    if not _DNS1123_SUBDOMAIN.match(name):
        errs.append(FieldError(INVALID, "metadata.name", MSG_DNS1123_SUBDOMAIN, go_quote(name)))
    return errs


def known_system_class_error(name: str, value: int, global_default: bool) -> str | None:
    """mirrors IsKnownSystemPriorityClass: None when the class is exactly a system one."""
    spec = SYSTEM_PRIORITY_CLASSES.get(name)
    if spec is None:
        return MSG_NOT_SYSTEM % name
    want_value, want_default = spec
    if value != want_value:
        return MSG_SYSTEM_VALUE % (name, want_value)
    if global_default != want_default:
        return MSG_SYSTEM_GLOBAL_DEFAULT % (name, "true" if want_default else "false")
    return None


def validate_priority_class(name: str, value: int, global_default: bool,
                            preemption_policy: str | None) -> list[tuple[str, FieldError]]:
    """mirrors ValidatePriorityClass (after defaulting); (rule, error) pairs in upstream's order."""
    out: list[tuple[str, FieldError]] = [(RULE_NAME, e) for e in validate_name(name)]
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        err = known_system_class_error(name, value, global_default)
        if err is not None:
            out.append((RULE_SYSTEM_PREFIX, FieldError(FORBIDDEN, "metadata.name", MSG_SYSTEM_PREFIX % err)))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        out.append((RULE_MAX_VALUE, FieldError(FORBIDDEN, "value",
                                               MSG_MAX_USER_PRIORITY % HIGHEST_USER_DEFINABLE_PRIORITY)))
    if preemption_policy is not None:
        out.extend((RULE_PREEMPTION_POLICY, e) for e in validate_preemption_policy(preemption_policy))
    return out


def validate_preemption_policy(policy: str) -> list[FieldError]:
    """mirrors ValidatePreemptionPolicy"""
    if policy in PREEMPTION_POLICIES:
        return []
    if policy == "":
        return [FieldError(REQUIRED, "preemptionPolicy")]
    supported = ", ".join(go_quote(p) for p in PREEMPTION_POLICIES)
    return [FieldError(UNSUPPORTED, "preemptionPolicy", MSG_SUPPORTED_VALUES % supported, go_quote(policy))]


def check_object(pc: ProposedClass) -> list[Finding]:
    """Decode, default and validate one proposed class as a create; fills in pc's fields."""
    raw = pc.raw
    md = raw.get("metadata") if isinstance(raw.get("metadata"), Mapping) else {}
    name = md.get("name") if isinstance(md.get("name"), str) else ""
    pc.name = name
    label = name or "(no name)"
    api_version = raw.get("apiVersion")
    if api_version != API_VERSION:
        pc.valid = False
        msg = MSG_NO_KIND_MATCH % api_version if api_version else MSG_NO_API_VERSION
        return [Finding(RULE_API_VERSION, label, msg, source=pc.source)]
    decode = decode_errors(raw)
    if decode:
        pc.valid = False
        return [Finding(RULE_DECODE, label, MSG_UNDECODABLE % decode[0], source=pc.source, errors=decode)]
    v = raw.get("value")
    pc.value = int(v) if v is not None else 0
    pc.global_default = bool(raw.get("globalDefault"))
    policy = raw.get("preemptionPolicy")
    # SetDefaults_PriorityClass: only an absent policy is defaulted; "" fails validation
    pc.preemption_policy = PREEMPT_LOWER_PRIORITY if policy is None else policy
    errs = validate_priority_class(name, pc.value, pc.global_default, pc.preemption_policy)
    findings: list[Finding] = []
    if errs:
        pc.valid = False
        msg = invalid_message(name, [e for _, e in errs])
        rules = []
        for rule, _ in errs:
            if rule not in rules:
                rules.append(rule)
        # one finding per rule broken, each with the API server's whole answer
        for rule in rules:
            findings.append(Finding(rule, label, msg, source=pc.source,
                                    errors=[str(e) for r, e in errs if r == rule]))
        return findings
    if v is None:
        findings.append(Finding(RULE_DEFAULT_VALUE, label, "value is not set: the class is created with value 0",
                                severity=WARNING, source=pc.source))
    return findings


# --- against the classes that exist ----------------------------------------------------------------------

@dataclass(frozen=True)
class ExistingClass:
    name: str
    value: int
    global_default: bool
    preemption_policy: str

    @classmethod
    def from_object(cls, raw: Mapping[str, Any]) -> "ExistingClass":
        md = raw.get("metadata") or {}
        v = raw.get("value")
        return cls(md.get("name") or "", v if isinstance(v, int) and not isinstance(v, bool) else 0,
                   bool(raw.get("globalDefault")), raw.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY)


def update_errors(new: ProposedClass, old: ExistingClass) -> list[FieldError]:
    """mirrors ValidatePriorityClassUpdate for value and preemptionPolicy"""
    errs = []
    if new.value != old.value:
        errs.append(FieldError(FORBIDDEN, "value", MSG_VALUE_IMMUTABLE))
    if new.preemption_policy != old.preemption_policy:
        errs.append(FieldError(INVALID, "preemptionPolicy", MSG_FIELD_IMMUTABLE, go_quote(new.preemption_policy)))
    return errs


@dataclass
class Recreate:
    """A proposal that changes an immutable field of an existing class."""

    name: str
    old: ExistingClass
    new: ProposedClass
    update_error: str

    def changes(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        if self.old.value != self.new.value:
            out["value"] = [self.old.value, self.new.value]
        if self.old.preemption_policy != self.new.preemption_policy:
            out["preemptionPolicy"] = [self.old.preemption_policy, self.new.preemption_policy]
        return out


@dataclass
class Applied:
    """What applying the proposal over one set of existing classes gives."""

    findings: list[Finding]
    recreates: list[Recreate]
    rejected: list[str]  # refused by admission: they would not exist after the change
    created: list[str]
    updated: list[str]
    unchanged: list[str]
    removed: list[str]


def apply_proposal(proposed: Sequence[ProposedClass], existing: Mapping[str, ExistingClass], *,
                   complete: bool = False) -> Applied:
    """Apply the valid proposed classes over `existing` one by one, as the API server would take
    them: a changed value or preemptionPolicy as delete and re-create, a globalDefault through
    the admission plugin's one-default rule.

    Classes that drop their globalDefault are applied before those that set it, so that moving
    the default from one class to another in a single change is not refused for its order alone.
    With `complete`, `proposed` is the whole desired set: existing classes it leaves out (other
    than the system ones) are deleted.
    """
    state = dict(existing)
    findings: list[Finding] = []
    recreates: list[Recreate] = []
    created: list[str] = []
    updated: list[str] = []
    unchanged: list[str] = []
    rejected: list[str] = []
    valid = [p for p in proposed if p.effective]
    order = [p for p in valid if not p.global_default] + [p for p in valid if p.global_default]
    for pc in order:
        old = state.get(pc.name)
        if old is not None and (old.value != pc.value or old.preemption_policy != pc.preemption_policy):
            errs = update_errors(pc, old)
            recreates.append(Recreate(pc.name, old, pc, invalid_message(pc.name, errs)))
            del state[pc.name]
            old = None
        creating = old is None
        if pc.global_default:
            dpc = global_default(state.values())
            if dpc is not None and (creating or dpc.name != pc.name):
                findings.append(Finding(RULE_GLOBAL_DEFAULT, pc.name,
                                        forbidden_message(pc.name, MSG_ONE_DEFAULT % dpc.name), source=pc.source))
                rejected.append(pc.name)
                continue
        new = ExistingClass(pc.name, pc.value, pc.global_default, pc.preemption_policy)
        if creating:
            created.append(pc.name)
        elif new == old:
            unchanged.append(pc.name)
        else:
            updated.append(pc.name)
        state[pc.name] = new
    removed: list[str] = []
    if complete:
        names = {p.name for p in proposed}
        removed = [n for n in existing if n not in names and n not in SYSTEM_PRIORITY_CLASSES]
    return Applied(findings, recreates, rejected, created, updated, unchanged, removed)


def duplicate_findings(proposed: Sequence[ProposedClass]) -> list[Finding]:
    """A name given twice: the later manifest is applied over the earlier one."""
    seen: dict[str, ProposedClass] = {}
    out = []
    for pc in proposed:
        if not pc.name:
            continue
        first = seen.get(pc.name)
        if first is None:
            seen[pc.name] = pc
            continue
        out.append(Finding(RULE_DUPLICATE, pc.name,
                           f"defined again (first in {first.source or 'an earlier manifest'}): the later one is "
                           "applied over the first", severity=WARNING, source=pc.source))
    return out


def decode_proposal(objects: Sequence[Mapping[str, Any]], sources: Sequence[str] | None = None
                    ) -> tuple[list[ProposedClass], list[Finding]]:
    """Every proposed PriorityClass checked as a create, then names given twice."""
    proposed: list[ProposedClass] = []
    findings: list[Finding] = []
    for i, raw in enumerate(objects):
        src = sources[i] if sources is not None and i < len(sources) else ""
        pc = ProposedClass(raw, src)
        findings.extend(check_object(pc))
        proposed.append(pc)
    findings.extend(duplicate_findings(proposed))
    # the last manifest of a name is the one that stays
    last: dict[str, ProposedClass] = {}
    for pc in proposed:
        last[pc.name] = pc
    for pc in proposed:
        pc.superseded = last.get(pc.name) is not pc
    return proposed, findings


__all__ = ["FieldError", "Finding", "ProposedClass", "ExistingClass", "Recreate", "Applied",
           "decode_proposal", "apply_proposal", "check_object", "validate_priority_class",
           "validate_preemption_policy", "validate_name", "update_errors", "invalid_message",
           "forbidden_message", "aggregate", "go_quote"]

"""What a file is, said when it is given to a flag that takes another kind of file.

The commands take five kinds of files: snapshots (--snapshot), traces (replay's TRACE, --trace),
KubeSchedulerConfigurations (--config), kube-batch's configuration (--scheduler-conf,
--batch-scheduler-conf) and manifests (-f, --priorityclasses, --proposed). Each reader names
what it got when that is one of the others, in one line: `examples/kube-batch.conf: is a kube-batch
configuration (actions and tiers), not a KubeSchedulerConfiguration`, instead of accepting it in
silence or failing on a field deep inside (`unknown action ""`).
"""
from __future__ import annotations

from typing import Any, Mapping

import orjson

from ..errors import InputError

TRACE = "a trace"
SNAPSHOT = "a snapshot"
CASE = "a conformance case"
SCHEDULER_CONFIG = "a KubeSchedulerConfiguration"
BATCH_CONFIG = "a kube-batch configuration (actions and tiers)"

# which flags read each kind of file, for the end of the line
TAKEN_BY = {TRACE: "replay TRACE and --trace read traces", SNAPSHOT: "--snapshot reads snapshots",
            CASE: "--snapshot reads it", SCHEDULER_CONFIG: "--config reads it",
            BATCH_CONFIG: "--scheduler-conf and --batch-scheduler-conf read it"}


def document_kind(doc: Any) -> str | None:
    """What a file's first document is, when it is one of the kinds above; None for anything else
    (a lone object, a manifest: the reader's own checks say what is wrong with it)."""
    if not isinstance(doc, Mapping):
        return None
    kind = doc.get("kind")
    if kind == "Trace" or (kind is None and "type" in doc and "object" in doc):
        return TRACE
    if kind == "KubeSchedulerConfiguration":
        return SCHEDULER_CONFIG
    if kind is None and ("actions" in doc or "tiers" in doc):
        # kube-batch's SchedulerConfiguration (pkg/scheduler/conf): `actions: "..."`, `tiers: [...]`,
        # written without apiVersion and kind
        return BATCH_CONFIG
    if kind is None and "objects" in doc:
        return CASE
    if isinstance(kind, str) and kind.endswith("List"):
        return SNAPSHOT
    return None


def first_line_kind(data: bytes) -> str | None:
    """What a JSON Lines file is from its first line (a trace's header, a watch event): read
    without parsing the rest, which as YAML would fail on the second line."""
    stripped = data.lstrip()
    if stripped[:1] != b"{":
        return None
    try:
        first = orjson.loads(stripped.partition(b"\n")[0])
    except orjson.JSONDecodeError:
        return None
    return document_kind(first)


def wrong_kind(what: str | None, expected: str, source: str, *, accepted: tuple[str, ...] = ()) -> None:
    """Refuse a file that is `what`, given where `expected` is wanted, in one line naming the file,
    what it is, and the flag that takes it; `accepted` are the kinds this reader takes as well."""
    if what is None or what == expected or what in accepted:
        return
    taken = TAKEN_BY.get(what)
    raise InputError(f"is {what}, not {expected}" + (f": {taken}" if taken else ""), source=source)

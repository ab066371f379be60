"""The live-cluster side of `explain`: reading the cluster, and who preempted a pod.

`explain` without --snapshot reads the cluster through io.live; for each pod named on the command
line it also reads what the cluster recorded if the scheduler preempted that pod (a
DisruptionTarget condition, a Preempted event), and when the preemptor is still pending or
nominated, it is explained too: what the offline scheduler decides for it now.
"""
from __future__ import annotations

import re
import sys
from typing import Any, Mapping, Optional, Sequence

from .. import api
from ..errors import ClusterError
from ..render.table import INDENT, columns, short_time
from .common import Progress, note


class LiveExplain:
    """What `explain` needs from the live cluster, read once: objects, and for every pod named on
    the command line, whether the scheduler preempted it (and by whom)."""

    def __init__(self, objects: list[dict], source: str, namespace: Optional[str], pods: list[str],
                 records: dict[str, dict[str, Any]], record_only: dict[str, bool],
                 nodes_refused: Optional[ClusterError]) -> None:
        self.objects = objects
        self.source = source
        self.namespace = namespace      # -n, else the context's when pods are named, as kubectl
        self.pods = pods                # the POD arguments to explain
        self.records = records          # key -> preemption record
        # preempted pods that are gone (False) or still on their node (True): what the cluster
        # recorded is the answer; explaining the victim as if it were pending again is not
        self.record_only = record_only
        self.nodes_refused = nodes_refused
        self.all_gone = bool(record_only) and not pods
        self.server_version: Optional[str] = None   # the API server's gitVersion, when asked for

    def with_preemptors(self, keys: list[str], present: Mapping[str, Any]) -> list[str]:
        extra = [k for k in preemptors_to_explain(self.records, keys) if k in present]
        for k in extra:
            note(f"{k} preempted {', '.join(v for v, r in self.records.items() if r.get('preemptor') == k)} "
                 "and is still pending: explained as it stands now")
        return keys + extra

    def render(self, docs: Sequence[Mapping[str, Any]], output: str) -> str:
        from ..render import render

        if output in ("table", "wide"):
            text = "".join(record_lines(k, r) + "\n" for k, r in self.records.items())
            return text + (render(docs, output) if docs else "")
        out: list[Mapping[str, Any]] = [record_document(k, self.records[k], exists)
                                        for k, exists in self.record_only.items()]
        for d in docs:
            rec = self.records.get(d.get("pod"))
            out.append({**d, "preemptedBy": rec} if rec is not None else d)
        return render(out, output)

    def require_nodes(self, output: str) -> None:
        """No verdict is possible without nodes: show what was recorded, then say which read was
        refused (exit 3), in the words `capture` uses for the same refusal."""
        if self.nodes_refused is None:
            return
        if self.records:
            sys.stdout.write(self.render([], output))
        raise self.nodes_refused


def read_live(context: Optional[str], kubeconfig: Optional[str], request_timeout: Optional[str],
              namespace: Optional[str], all_namespaces: bool, pods: Sequence[str],
              manifests: Sequence[str], *, server_version: bool = False,
              current_namespace: bool = False) -> LiveExplain:
    """Read the cluster and the preemption records of the named pods (api.live_explain_read).

    Refusals (403) and kinds the server does not serve become notes on stderr; an unreachable
    server, rejected credentials or a timeout end the command (exit 3)."""
    progress = Progress() if sys.stderr.isatty() else None
    read = api.live_explain_read(context, kubeconfig, request_timeout, namespace, all_namespaces, pods, manifests,
                                 server_version=server_version, current_namespace=current_namespace,
                                 progress=progress, progress_done=progress.clear if progress is not None else None,
                                 note=note)
    out = LiveExplain(read.objects, read.source, read.namespace, read.pods, read.records, read.record_only,
                      read.nodes_refused)
    out.server_version = read.server_version
    return out


def snapshot_records(objects: list[dict], source: str, namespace: Optional[str], pods: list[str],
                     cluster: Any) -> Optional[LiveExplain]:
    """For pods named on the command line and found in a snapshot: what it recorded about the
    scheduler preempting them (condition, captured Preempted events). None when nothing was."""
    records: dict[str, dict[str, Any]] = {}
    for arg in pods:
        key = api.pod_arg_key(arg, namespace) or arg
        if key not in cluster.pods:
            continue
        rec = api.who_preempted(objects, key)
        if rec is not None:
            records[key] = rec
    if not records:
        return None
    return LiveExplain(objects, source, namespace, pods, records, {}, None)


def preemptors_to_explain(records: Mapping[str, Mapping[str, Any]], already: Sequence[str]) -> list[str]:
    """Preemptors still pending or nominated: what the scheduler decides for them now is the rest
    of the answer to "who preempted my pod"."""
    out: list[str] = []
    for rec in records.values():
        p = rec.get("preemptor")
        if p and rec.get("preemptorState") in ("Pending", "Nominated") and p not in already and p not in out:
            out.append(p)
    return out


def record_lines(key: str, rec: Mapping[str, Any]) -> str:
    """`explain`'s table section for one preempted pod."""
    when = re.sub(r"\.\d+", "", str(rec.get("time") or ""))
    head = [f"Pod        {key}",
            "Preempted  by the scheduler" + (f" at {short_time(when)}" if when else "")
            + (f" on {rec['node']}" if rec.get("node") else "")]
    rows: list[list[str]] = []
    preemptor = rec.get("preemptor")
    uid = rec.get("preemptorUID")
    who = preemptor or "a pod no longer in the cluster"
    if uid:
        who += f" (uid {uid})"
    if rec.get("preemptorPriority") is not None:
        who += f", priority {rec['preemptorPriority']}"
    rows.append(["by", who])
    state = rec.get("preemptorState")
    if state == "Nominated":
        rows.append(["preemptor now", f"pending, nominated to {rec.get('preemptorNode')}: explained below"])
    elif state == "Pending":
        rows.append(["preemptor now", "pending: explained below"])
    elif state == "Scheduled":
        rows.append(["preemptor now", f"running on {rec.get('preemptorNode')}"])
    elif state == "Gone":
        rows.append(["preemptor now", "no longer in the cluster" + (" (name from the event)" if preemptor else "")])
    elif state == "Unknown" and rec.get("preemptorUnreadable"):
        rows.append(["preemptor now", f"unknown: {rec['preemptorUnreadable']}"])
    elif state in ("Succeeded", "Failed"):
        rows.append(["preemptor now", f"finished ({state})"])
    sources = []
    if "condition" in (rec.get("sources") or ()):
        sources.append(f"condition DisruptionTarget/PreemptionByScheduler: {rec.get('conditionMessage', '')}".rstrip(": "))
    if "event" in (rec.get("sources") or ()):
        ev = f"event Preempted: {rec.get('eventMessage', '')}"
        if rec.get("earlierPodUID"):
            ev += f" (an earlier pod of this name, uid {rec['earlierPodUID']})"
        sources.append(ev)
    for i, s in enumerate(sources):
        rows.append(["recorded" if i == 0 else "", s])
    return "\n".join(head + columns(None, rows, indent=INDENT)) + "\n"


def record_document(key: str, rec: Mapping[str, Any], exists: bool) -> dict[str, Any]:
    """-o json/yaml for a preempted pod that is gone, or still terminating on its node."""
    return {"pod": key, "exists": exists, "preemptedBy": dict(rec)}

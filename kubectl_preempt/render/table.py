"""-o table and -o wide: an explanation a person reads top to bottom.

Each part answers one question in the order people ask them: which pod, what happens to it,
who is evicted and what that frees, who is kept, why this node over the others, why not every
other node, and the scheduler's own words. `wide` adds every node's and every plugin's detail.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

from ..model.quantity import format_bytes, format_milli_cpu
from ..preemption.decision import CHAIN, SUM_STEP
from . import width
from .wording import cell

INDENT = "  "
GAP = "  "
# the table shows at most this many candidate nodes in the choice chain and score rows; wide shows all
MAX_CHAIN_COLUMNS = 6
MAX_SCORE_ROWS = 5
MAX_NODE_NAMES = 8
MAX_KEPT_ROWS = 10
# a group's node names longer than this go on a line of their own, under its reason
MAX_NAMES_WIDTH = 40

_BYTE_RESOURCES = ("memory", "ephemeral-storage")


# --- small text helpers ------------------------------------------------------------------------

def columns(header: Sequence[str] | None, rows: Iterable[Sequence[Any]], indent: str = INDENT,
            names: Sequence[str] | None = None) -> list[str]:
    """Left-aligned columns; data rows are indented under a header that starts at the margin.
    `names` name the columns when the header does not (which ones are names, never cut, and the
    line that says what a terminal cut: render/width.py `layout`)."""
    rows = [[cell(c) for c in r] for r in rows]
    ncol = max([len(r) for r in rows] + [len(header) if header else 0])
    # a title alone over several columns heads the block without setting the first column's width
    title_only = bool(header) and len(header) == 1 and ncol > 1
    out = [header[0]] if title_only else []
    if not rows and (title_only or not header):
        return out
    with_header = bool(header) and not title_only
    if names is None:
        if with_header:
            names = list(header)  # type: ignore[arg-type]
        else:
            title = re.sub(r" \(\d+\)$", "", header[0]) if header else ""
            names = [title] * ncol
    body = [[indent + _first(r)] + list(r[1:]) for r in rows]
    widths, table = width.layout(list(header) if with_header else None, body, names=names, gap=len(GAP))
    for lines in table:
        for cells in lines:
            out.append(width.table_line(GAP.join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()))
    return out


def _first(row: Sequence[width.Cell]) -> str:
    return width.LIST_SEPARATOR.join(row[0]) if row and not isinstance(row[0], str) else (row[0] if row else "")


def _label(name: str, text: str, width: int = 10) -> str:
    return f"{name:<{width}} {text}".rstrip()


def _order_resources(names: Iterable[str]) -> list[str]:
    first = ("cpu", "memory", "ephemeral-storage", "pods")
    names = list(names)
    return [n for n in first if n in names] + sorted(n for n in names if n not in first)


def format_requests(requests: Mapping[str, Any] | None) -> str:
    if not requests:
        return "nothing"
    return ", ".join(f"{k} {requests[k]}" for k in _order_resources(requests))


# the names of requests_dict's numbers, as a pod spec names the resources
_RAW_NAMES = {"milliCPU": "cpu", "memory": "memory", "ephemeralStorage": "ephemeral-storage"}


def sum_requests(requests: Iterable[Mapping[str, int] | None]) -> dict[str, str]:
    """The total of several pods' requests, given as numbers (a victim's `rawRequests`: milli-CPU,
    bytes, counts), as Kubernetes quantities."""
    totals: dict[str, int] = {}
    for req in requests:
        for k, n in (req or {}).items():
            name = _RAW_NAMES.get(k, k)
            totals[name] = totals.get(name, 0) + n
    out: dict[str, str] = {}
    for k in _order_resources(totals):
        n = totals[k]
        if k == "cpu":
            out[k] = format_milli_cpu(n)
        elif k in _BYTE_RESOURCES or k.startswith("hugepages-"):
            out[k] = format_bytes(n)
        else:
            out[k] = str(n)
    return out


def short_time(t: Any) -> str:
    if not t:
        return "-"
    return str(t).replace("T", " ").replace("Z", "")


_NUM_SUFFIX = re.compile(r"^(.*?)(\d+)$")


def compact_names(names: Sequence[str], limit: int | None = MAX_NODE_NAMES) -> str:
    """node-00 node-01 node-02 node-07 -> "node-00..node-02 node-07"; long lists end in "+N more"."""
    tokens: list[str] = []
    i = 0
    while i < len(names):
        m = _NUM_SUFFIX.match(names[i])
        j = i
        if m:
            prefix, digits = m.groups()
            n = int(digits)
            while j + 1 < len(names):
                m2 = _NUM_SUFFIX.match(names[j + 1])
                if not m2 or m2.group(1) != prefix or len(m2.group(2)) != len(digits) or int(m2.group(2)) != n + (j + 1 - i):
                    break
                j += 1
        if j - i >= 2:
            tokens.append(f"{names[i]}..{names[j]}")
        else:
            tokens.extend(names[i:j + 1])
        i = j + 1
    if limit is not None and len(tokens) > limit:
        rest = len(tokens) - limit
        tokens = tokens[:limit] + [f"+{rest} more"]
    return " ".join(tokens)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- sections ----------------------------------------------------------------------------------

def _pod_line(doc: Mapping[str, Any]) -> str:
    parts = [str(doc.get("pod", "?"))]
    prio = f"priority {doc.get('priority', 0)}"
    if doc.get("priorityClassName"):
        prio += f" ({doc['priorityClassName']})"
    parts.append(prio)
    if doc.get("preemptionPolicy") == "Never":
        parts.append("preemptionPolicy Never")
    sched = doc.get("schedulerName")
    if sched and sched != "default-scheduler":
        parts.append(f"scheduler {sched}")
    parts.append(f"requests {format_requests(doc.get('requests'))}")
    return _label("Pod", "   ".join(parts))


def _outcome_lines(doc: Mapping[str, Any]) -> list[str]:
    outcome = doc.get("outcome")
    if outcome == "Scheduled":
        node = doc.get("node")
        best = [n for n in doc.get("bestNodes") or [] if n != node]
        text = f"SCHEDULED on {node}"
        if best:
            text += (f"   (tied on the top score with {compact_names(best)}; the scheduler picks one of "
                     f"them at random)")
        return [_label("Outcome", text)] + _permit_lines(doc)
    if outcome == "Preempted":
        node = doc.get("nominatedNode")
        victims = doc.get("victims") or []
        text = f"PREEMPTS on {node}, evicting {_plural(len(victims), 'pod')}"
        tied = [n for n in doc.get("nominatedNodes") or [] if n != node]
        lines = [_label("Outcome", text)]
        if tied:
            lines.append(_label("", f"tied with {compact_names(tied)} after the whole choice chain; the "
                                    f"scheduler picks one of them at random"))
        return lines
    lines = [_label("Outcome", "UNSCHEDULABLE" if outcome == "Unschedulable" else str(outcome).upper())]
    why = doc.get("preemptionIneligible")
    held = doc.get("heldAtPreEnqueue")
    if held:
        lines.append(_label("", f"held before scheduling ({held.get('plugin')} PreEnqueue): it does not enter the "
                                f"scheduling queue, so no cycle (and no preemption) runs for it"))
    elif why:
        lines.append(_label("", f"preemption not attempted: {why}"))
    elif doc.get("postFilterCode") == "Error":
        msg = str(doc.get("postFilterMessage") or "")
        text = f"PostFilter ended in an error: {msg}"
        if doc.get("preFilterRejection") and msg == "not found":
            # the v1.34.1 quirk: DynamicResources' PostFilter reads PreFilter state that was never written
            text += (" (DynamicResources' PostFilter finds no PreFilter state when an earlier PreFilter "
                     f"plugin rejected the pod; kube-scheduler {doc.get('schedulerVersion') or 'v1.34.1'} "
                     "says the same)")
        lines.append(_label("", text))
    elif doc.get("postFilterMessage"):
        msg = str(doc["postFilterMessage"]).removeprefix("preemption: ")
        lines.append(_label("", f"preemption cannot make room: {msg}"))
    return lines


def _victim_lines(doc: Mapping[str, Any], wide: bool) -> list[str]:
    node = doc.get("nominatedNode")
    details = doc.get("victimDetails")
    if details is None:
        details = [{"pod": v} for v in doc.get("victims") or []]
    if not details:
        return [f"Victims on {node}: none (nothing is evicted)"]
    header = [f"Victims on {node}", "PRIORITY", "CPU", "MEMORY", "PDB", "STARTED"]
    if wide:
        header.append("BLOCKING")
    rows = []
    for v in details:
        req = v.get("requests") or {}
        name = v.get("pod", "?") + (" (terminating)" if v.get("terminating") else "")
        pdbs = v.get("pdbs") or []
        pdb = ", ".join(pdbs) if pdbs else "-"
        if v.get("pdbViolation"):
            pdb += " (violated)"
        row = [name, v.get("priority", ""), req.get("cpu", "-"), req.get("memory", "-"), pdb,
               short_time(v.get("startTime"))]
        if wide:
            row.append("; ".join(v.get("blocking") or []) or "-")
        rows.append(row)
    lines = columns(header, rows)
    frees = sum_requests(v.get("rawRequests") for v in details)
    violations = sum(1 for v in details if v.get("pdbViolation"))
    frees_text = format_requests(frees) if frees else "no requested resources"
    tail = f"-> frees {frees_text}; {_plural(violations, 'PDB violation')}"
    if any(v.get("terminating") for v in details):
        tail += "; terminating victims get no delete call (already going)"
    lines.append(INDENT + tail)
    return lines


def _reprieved_lines(doc: Mapping[str, Any], wide: bool) -> list[str]:
    kept = doc.get("reprieved") or []
    if not kept:
        return []
    shown = kept if wide else kept[:MAX_KEPT_ROWS]
    header = [f"Kept on {doc.get('nominatedNode')} (reprieved)", "PRIORITY", "WHY"]
    lines = columns(header, [[k.get("pod", "?"), k.get("priority", ""), k.get("reason", "")] for k in shown])
    if len(kept) > len(shown):
        lines.append(INDENT + f"(+{_plural(len(kept) - len(shown), 'more pod')} kept; -o wide shows all)")
    return lines


def _chain_value(c: Mapping[str, Any], field: str) -> str:
    v = c.get(field)
    if field == "latestStartTime":
        return short_time(v)
    return "-" if v is None else str(v)


def _chain_lines(doc: Mapping[str, Any], wide: bool) -> list[str]:
    cands = list(doc.get("candidates") or [])
    node = doc.get("nominatedNode")
    if not cands:
        return []
    if len(cands) == 1:
        return [f"Why {node}: the only candidate node for preemption"]
    tie = doc.get("tieBreak") or {}
    tied = set(tie.get("tied") or doc.get("nominatedNodes") or [node])
    # the winner, the tied, then the longest survivors of the chain, in candidate order
    order = {c.get("node"): i for i, c in enumerate(cands)}

    def rank(c: Mapping[str, Any]) -> tuple:
        n = c.get("node")
        step = c.get("eliminatedAt")
        return (n != node, n not in tied, -(step or 99), order[n])

    cands.sort(key=rank)
    if wide:
        lines = _chain_rows(node, cands)
    else:
        lines = _chain_columns(node, cands)
    step_names = list(tie.get("steps") or [])
    decided = tie.get("decidedAt")
    runner = tie.get("runnerUp")
    if len(tied) > 1:
        lines.append(INDENT + f"-> tie after every step: {compact_names(sorted(tied, key=lambda n: order.get(n, 0)))}")
    elif decided:
        label = step_names[decided - 1] if len(step_names) >= decided else (
            CHAIN[decided - 1].label if decided <= len(CHAIN) else f"step {decided}")
        vs = f" over {runner}" if runner else ""
        lines.append(INDENT + f"-> {node}{vs}, decided at step {decided} ({label})")
    if not wide and len(cands) > MAX_CHAIN_COLUMNS:
        hidden = len(cands) - MAX_CHAIN_COLUMNS
        lines.append(INDENT + f"(+{_plural(hidden, 'more candidate')}, eliminated earlier; -o wide shows all)")
    winner = next((c for c in cands if c.get("node") == node), None)
    if winner is not None and any(c.get("eliminatedAt") == SUM_STEP
                                  and (c.get("victimPrioritySum") or 0) <= (winner.get("victimPrioritySum") or 0)
                                  for c in cands):
        lines.append(INDENT + "(step 3 adds 2147483648 to each victim's priority before summing, as the "
                              "scheduler does, so more victims weigh more)")
    return lines


def _chain_rows(node: str, cands: Sequence[Mapping[str, Any]]) -> list[str]:
    header = [f"Why {node}", "PDB VIOLATIONS", "HIGHEST PRIORITY", "PRIORITY SUM", "VICTIMS",
              "START OF TOP VICTIMS", "LOST AT STEP"]
    rows = []
    for c in cands:
        step = c.get("eliminatedAt")
        rows.append([c.get("node", "?")] + [_chain_value(c, s.field) for s in CHAIN]
                    + ["-" if step is None else str(step)])
    return columns(header, rows)


def _chain_columns(node: str, cands: list[Mapping[str, Any]]) -> list[str]:
    if len(cands) > MAX_CHAIN_COLUMNS:
        cands = cands[:MAX_CHAIN_COLUMNS]
    names = [c.get("node", "?") for c in cands]
    rows = []
    for i, chain_step in enumerate(CHAIN, start=1):
        field = chain_step.field
        row = [f"{i} {chain_step.label}"]
        for c in cands:
            step = c.get("eliminatedAt")
            if step is not None and i > step:
                row.append("")
            elif step == i:
                row.append(_chain_value(c, field) + " x")
            else:
                row.append(_chain_value(c, field))
        rows.append(row)
    # a column per candidate node, headed by its name: names, never cut
    return columns([f"Why {node}"] + names, rows, names=[f"Why {node}"] + [f"NODE {n}" for n in names])


def _candidate_note(c: Mapping[str, Any], detail: bool = True) -> str:
    n = c.get("victimCount")
    text = "candidate" + (f" with {_plural(n, 'victim')}" if isinstance(n, int) and detail else "")
    step = c.get("eliminatedAt")
    if isinstance(step, int) and 1 <= step <= len(CHAIN):
        chain_step = CHAIN[step - 1]
        value = f" {_chain_value(c, chain_step.field)}" if detail else ""
        text += f", lost at step {step} ({chain_step.short}{value})"
    elif step is None:
        text += ", tied to the end of the choice chain"
    return text


def _status_text(st: Mapping[str, Any], candidate: Mapping[str, Any] | None = None, detail: bool = True) -> str:
    text = "; ".join(st.get("reasons") or []) or st.get("code", "")
    pre = st.get("preemption")
    if candidate is not None:
        text += f"; {_candidate_note(candidate, detail)}"
    elif pre:
        text += f"; {pre}"
    elif st.get("code") == "UnschedulableAndUnresolvable":
        text += " (preemption cannot help)"
    return text


def _node_lines(doc: Mapping[str, Any], title: str, skip: str | None, wide: bool) -> list[str]:
    statuses: Mapping[str, Mapping[str, Any]] = doc.get("nodeStatuses") or {}
    names = [n for n in statuses if n != skip]
    if not names:
        return []
    cands = {c.get("node"): c for c in doc.get("candidates") or []}
    if wide:
        rows = [[n, statuses[n].get("code", ""), statuses[n].get("plugin", ""),
                 "; ".join(statuses[n].get("reasons") or []),
                 _candidate_note(cands[n]) if n in cands else statuses[n].get("preemption") or "-"]
                for n in names]
        return columns([f"{title} ({len(names)})", "CODE", "PLUGIN", "REASONS", "PREEMPTION"], rows)
    # candidates are grouped by the step they lost at; a node alone in its group keeps its values
    coarse: dict[str, list[str]] = {}
    for n in names:
        coarse.setdefault(_status_text(statuses[n], cands.get(n), detail=False), []).append(n)
    groups: list[tuple[str, list[str]]] = []
    for text, nodes in coarse.items():
        if len(nodes) == 1:
            text = _status_text(statuses[nodes[0]], cands.get(nodes[0]))
        groups.append((text, nodes))
    groups.sort(key=lambda kv: -len(kv[1]))  # stable: ties keep node order
    named = [(compact_names(nodes), text, len(nodes)) for text, nodes in groups]
    if max(len(n) for n, _, _ in named) <= MAX_NAMES_WIDTH:
        return columns([f"{title} ({len(names)})"], [[n, text] for n, text, _ in named])
    lines = [f"{title} ({len(names)})"]
    for nodes, text, count in named:
        lines.append(INDENT + text)
        lines.append(INDENT * 2 + (f"{count} nodes: " if count > 1 else "") + nodes)
    return lines


def _scores_lines(doc: Mapping[str, Any], wide: bool) -> list[str]:
    feasible = list(doc.get("feasibleNodes") or [])
    scores: Mapping[str, int] = doc.get("scores") or {}
    num = doc.get("numNodes")
    of = f" of {num}" if num is not None else ""
    if not scores:
        if len(feasible) <= 1:
            return [f"Feasible nodes: {len(feasible)}{of} (no scoring needed)"]
        return [f"Feasible nodes: {len(feasible)}{of}"]
    order = {n: i for i, n in enumerate(feasible or scores)}
    ranked = sorted(scores, key=lambda n: (-scores[n], order.get(n, 0)))
    plugin_scores: Mapping[str, Mapping[str, int]] = doc.get("pluginScores") or {}
    lines = [f"Feasible nodes: {len(feasible) or len(scores)}{of}"]
    if wide:
        plugins: list[str] = []
        for n in ranked:
            for p in plugin_scores.get(n, {}):
                if p not in plugins:
                    plugins.append(p)
        rows = [[n, scores[n]] + [plugin_scores.get(n, {}).get(p, "-") for p in plugins] for n in ranked]
        lines += columns(["Scores", "TOTAL"] + plugins, rows)
        return lines
    shown = ranked[:MAX_SCORE_ROWS]
    # the plugins that tell the shown nodes apart; one that scores them all the same explains nothing
    plugins: list[str] = []
    for n in shown:
        for p in plugin_scores.get(n, {}):
            if p not in plugins:
                plugins.append(p)
    differing = [p for p in plugins if len({plugin_scores.get(n, {}).get(p) for n in shown}) > 1]
    rows = [[n, scores[n]] + [plugin_scores.get(n, {}).get(p, "-") for p in differing] for n in shown]
    lines += columns(["Top scores", "TOTAL"] + differing, rows)
    same = len(plugins) - len(differing)
    more = len(ranked) - len(shown)
    notes = []
    if same:
        notes.append(f"{_plural(same, 'plugin')} scoring these nodes alike left out")
    if more:
        notes.append(f"+{_plural(more, 'more feasible node')}")
    if notes:
        lines.append(INDENT + f"({'; '.join(notes)}; -o wide shows all)")
    return lines


def _nominated_lines(doc: Mapping[str, Any]) -> list[str]:
    nom: Mapping[str, Sequence[str]] = doc.get("nominatedPods") or {}
    rows = [[n, list(p)] for n, p in nom.items() if p]
    if not rows:
        return []
    return columns(["Pods nominated to nodes (counted as if already there)"], rows)


def _cleared_lines(doc: Mapping[str, Any]) -> list[str]:
    cleared = doc.get("clearedNominations") or []
    if not cleared:
        return []
    return columns([f"Nominations cleared on {doc.get('nominatedNode')} (lower priority)"], [[p] for p in cleared])


def _decided_by(doc: Mapping[str, Any]) -> list[str]:
    # last: the outcome comes first, and which release decided is worth a glance at the end
    v = doc.get("schedulerVersion")
    return [f"Decided by kube-scheduler {v}"] if v else []


def _permit_lines(doc: Mapping[str, Any]) -> list[str]:
    """A pod its cycle placed that Permit holds: a v1.35 gang member waits there for its gang."""
    permit = doc.get("permit")
    if not permit:
        return []
    from ..model.workload import go_duration
    gang = permit.get("gang")
    reason = "; ".join(r for r in permit.get("reasons") or [] if r)
    by = permit.get("plugin") or "a Permit plugin"
    if permit.get("code") != "Wait":
        return [_label("Permit", f"REJECTED by {by}: {reason}")]
    if gang:
        by, reason = gang.get("plugin") or by, gang.get("reason") or reason
    lines = [_label("Permit", f"WAITS at Permit ({by}): {reason}")]
    if gang:
        lines.append(_label("", f"gang {gang['podGroup']}: {gang['assumedOrAssigned']} of minCount "
                                f"{gang['minCount']} assumed or bound, this pod included"))
    lines.append(_label("", f"none binds before minCount do; after "
                            f"{go_duration(permit.get('timeoutSeconds') or 0.0)} the waiting ones are rejected"))
    return lines


def explanation_table(doc: Mapping[str, Any], *, wide: bool = False) -> str:
    """One pod's explanation as text."""
    from .podgroup import is_pod_group_doc, pod_group_explanation
    if is_pod_group_doc(doc):
        # a pod group, or a member of one: its group's cycle (render/podgroup.py)
        return pod_group_explanation(doc, wide=wide)
    sections: list[list[str]] = [[_pod_line(doc)] + _outcome_lines(doc)]
    outcome = doc.get("outcome")
    if outcome == "Scheduled":
        sections.append(_scores_lines(doc, wide))
        sections.append(_node_lines(doc, "Infeasible nodes", None, wide))
        sections.append(_nominated_lines(doc))
    elif outcome == "Preempted":
        node = doc.get("nominatedNode")
        sections.append(_victim_lines(doc, wide))
        sections.append(_reprieved_lines(doc, wide))
        sections.append(_cleared_lines(doc))
        sections.append(_chain_lines(doc, wide))
        sections.append(_node_lines(doc, "Other nodes", node, wide))
        sections.append(_nominated_lines(doc))
    else:
        nodes = _node_lines(doc, "Why not, by node", None, wide)
        rejection = doc.get("preFilterRejection")
        if rejection:
            nodes = [f"Rejected before filtering any node, by {rejection.get('plugin') or 'a PreFilter plugin'} "
                     f"({rejection.get('code', '')})", INDENT + str(rejection.get("message", ""))] + nodes
        elif not nodes and doc.get("message"):
            nodes = ["No node was filtered: the pod was rejected before filtering (see the message)"]
        sections.append(nodes)
        sections.append(_nominated_lines(doc))
    if doc.get("error"):
        sections.append(["Scheduler error", INDENT + str(doc["error"])])
    if outcome != "Scheduled" and doc.get("message"):
        sections.append(["Scheduler message", INDENT + str(doc["message"])])
    sections.append(_decided_by(doc))
    return "\n\n".join("\n".join(s) for s in sections if s) + "\n"


SUMMARY_HEADER = ["POD", "OUTCOME", "NODE", "VICTIMS"]
# the OUTCOME column says what the pod does, as the pod's own table says it (PREEMPTS on node-a):
# the document's outcome "Preempted" (the scheduler's PostFilter result) read as if the pod had been
# evicted; -o json keeps the document's word
OUTCOME_WORDS = {"Preempted": "Preempts"}


def summary_rows(docs: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """One row a pod: what --no-headers prints, and the summary over several pods' tables."""
    rows = []
    for d in docs:
        outcome = d.get("outcome", "?")
        if outcome == "Scheduled":
            where, victims = d.get("node", ""), ""
        elif outcome == "Preempted":
            where, victims = d.get("nominatedNode", ""), str(len(d.get("victims") or []))
        else:
            # kube-batch's story of a pod names the node it was bound to or evicted from
            where, victims = d.get("node") or "-", ""
        name = d.get("pod") or (f"podgroup/{d['podGroup']}" if d.get("kind") == "PodGroupExplanation" else "?")
        rows.append([name, OUTCOME_WORDS.get(outcome, outcome), where or "-", victims or "-"])
    return rows


def _summary(docs: Sequence[Mapping[str, Any]]) -> str:
    lines = columns(SUMMARY_HEADER, summary_rows(docs), indent="")
    versions = ", ".join(dict.fromkeys(str(d["schedulerVersion"]) for d in docs if d.get("schedulerVersion")))
    by = f", by kube-scheduler {versions}" if versions else ""
    lines.append(f"({_plural(len(docs), 'pod')}, each explained alone against the same cluster state{by})")
    return "\n".join(lines) + "\n"


def render_table(docs: Sequence[Mapping[str, Any]], *, wide: bool = False) -> str:
    """The table for one pod, or a summary followed by each pod's table. On a terminal, `table`
    fits its width (render/width.py); `wide` never is cut."""
    if wide:
        with width.unlimited(wide=True):
            return _render_table(docs, wide=True)
    return width.finish(_render_table(docs, wide=False))


def _render_table(docs: Sequence[Mapping[str, Any]], *, wide: bool) -> str:
    if not docs:
        return ""
    if len(docs) == 1:
        return explanation_table(docs[0], wide=wide)
    parts = [_summary(docs)] + [explanation_table(d, wide=wide) for d in docs]
    rule = "-" * min(72, width.limit() or 72)
    return ("\n" + rule + "\n\n").join(parts)

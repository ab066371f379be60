"""The backfill action (pkg/scheduler/actions/backfill): tasks that request nothing go on the first
node that passes the predicates."""
from __future__ import annotations

from ..api.node_info import NodeError
from ..api.types import PENDING
from ..framework.session import Session

ACTION_NAME = "backfill"


def execute(ssn: Session) -> None:
    for job in ssn.ranged(ssn.jobs):
        # job.TaskStatusIndex[Pending], ranged (the first task takes the first node that fits)
        pending = job.task_status_index.get(PENDING)
        for task in ssn.ranged(pending) if pending is not None else ():
            if not task.init_resreq.is_empty():
                continue
            reasons: dict[str, str] = {}
            for node in ssn.ranged(ssn.nodes):
                err = ssn.predicate_fn(task, node)
                if err is not None:
                    reasons[node.name] = err
                    continue
                try:
                    ssn.allocate(task, node.name)
                except (NodeError, LookupError):
                    continue
                break
            ssn.task_node_reasons.setdefault(task.key, reasons)

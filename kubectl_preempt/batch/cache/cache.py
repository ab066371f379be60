"""SchedulerCache (pkg/scheduler/cache): kube-batch's view of the cluster, filled as its informer
handlers fill it, and what a session asks of it: bind, evict, status updates. Binds and evictions
are recorded, never sent anywhere."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from ...errors import InputError, quote
from ...model.objects import Node, Pod
from ...model.schema import describe, object_label
from ..api.job_info import (GROUP_MIN_MEMBER_ANNOTATION_KEY, GROUP_NAME_ANNOTATION_KEY, JobInfo, PodGroup,
                            PodGroupStatus, TaskInfo, job_id_of)
from ..api.node_info import NodeError, NodeInfo
from ..api.queue_info import QueueInfo
from ..api.types import (ALLOCATED, BINDING, FAILED, PENDING, POD_REASON_UNSCHEDULABLE, RELEASING, SUCCEEDED,
                         status_name)
from ..util.gomap import GoMap

DEFAULT_SCHEDULER_NAME = "kube-batch"
DEFAULT_QUEUE = "default"
# the kinds kube-batch reads besides kube-scheduler's (its informers on Queues and PodGroups)
BATCH_KINDS = ("Queue", "PodGroup")
SHADOW_POD_GROUP_KEY = "volcano/shadow-pod-group"

# the API groups whose Queues and PodGroups kube-batch (and Volcano, which grew from it) serve
BATCH_API_GROUPS = ("scheduling.incubator.k8s.io", "scheduling.sigs.dev", "scheduling.volcano.sh")


def is_batch_kind(obj: Mapping[str, Any], kind: str) -> bool:
    return obj.get("kind") == kind and str(obj.get("apiVersion") or "").split("/")[0] in BATCH_API_GROUPS


def _controller_uid(pod: Pod) -> str:
    for ref in pod.metadata.get("ownerReferences") or ():
        if ref.get("controller"):
            return ref.get("uid") or ""
    return ""


def _min_member(raw: Any, where: str) -> int:
    if raw is None:
        return 0
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise InputError(f"minMember must be an integer, got {quote(raw)}", field=where)
    return raw


# what kube-batch's informers decode of a Queue and a PodGroup (v1alpha1 / v1alpha2 / Volcano's
# v1beta1): a value of another JSON type fails the decode, as it would there
_STR, _INT, _MAP, _LIST = "a string", "an integer", "an object", "a list"
_BATCH_FIELDS: dict[str, dict[tuple[str, ...], str]] = {
    "Queue": {("spec",): _MAP, ("spec", "weight"): _INT},
    "PodGroup": {("spec",): _MAP, ("spec", "minMember"): _INT, ("spec", "queue"): _STR,
                 ("spec", "priorityClassName"): _STR, ("spec", "minResources"): _MAP,
                 ("status",): _MAP, ("status", "phase"): _STR, ("status", "running"): _INT,
                 ("status", "succeeded"): _INT, ("status", "failed"): _INT, ("status", "conditions"): _LIST},
}
_META_FIELDS: dict[tuple[str, ...], str] = {
    ("metadata", "namespace"): _STR, ("metadata", "uid"): _STR, ("metadata", "creationTimestamp"): _STR,
    ("metadata", "resourceVersion"): _STR, ("metadata", "labels"): _MAP, ("metadata", "annotations"): _MAP,
}
_CONDITION_FIELDS = ("type", "status", "reason", "message", "transitionID", "lastTransitionTime")


def _is_mapping(value: Any) -> bool:
    # a dict first: the Mapping ABC's check is slow, and the objects are dicts nearly always
    return type(value) is dict or isinstance(value, Mapping)


def _is(value: Any, want: str) -> bool:
    if want == _STR:
        return isinstance(value, str)
    if want == _INT:  # int32 in the Go types
        return isinstance(value, int) and not isinstance(value, bool) and -2**31 <= value < 2**31
    if want == _MAP:
        return _is_mapping(value)
    return isinstance(value, list)


def check_batch_object(obj: Mapping[str, Any], where: str | None = None) -> None:
    """InputError naming the field when a Queue or PodGroup holds a value of the wrong type;
    `where` names the object (default: its kind and name, as `Queue research`)."""
    kind = obj.get("kind") or ""
    # "line 3 (Queue research).spec.weight" as the schema check words it, or, without a place in a
    # file, "Queue research: spec.weight" as this package's other errors
    where = f"{where}." if where else f"{object_label(obj)}: "
    md = obj.get("metadata")
    if not _is_mapping(md):
        raise InputError(f"must be {_MAP}, got {describe(md)}", field=f"{where}metadata")
    for path, want in {**_META_FIELDS, **_BATCH_FIELDS.get(kind, {})}.items():
        value: Any = obj
        for step in path:
            value = value.get(step) if _is_mapping(value) else None
        if value is not None and not _is(value, want):
            raise InputError(f"must be {want}, got {describe(value)}", field=f"{where}{'.'.join(path)}")
    if kind != "PodGroup":
        return
    for i, c in enumerate((obj.get("status") or {}).get("conditions") or ()):
        if not _is_mapping(c):
            raise InputError(f"must be {_MAP}, got {describe(c)}", field=f"{where}status.conditions[{i}]")
        for k in _CONDITION_FIELDS:
            if c.get(k) is not None and not isinstance(c[k], str):
                raise InputError(f"must be {_STR}, got {describe(c[k])}", field=f"{where}status.conditions[{i}].{k}")


class SchedulerCache:
    def __init__(self, scheduler_name: str = DEFAULT_SCHEDULER_NAME, default_queue: str = DEFAULT_QUEUE) -> None:
        self.scheduler_name = scheduler_name
        self.default_queue = default_queue
        self.jobs: GoMap[str, JobInfo] = GoMap()
        self.nodes: GoMap[str, NodeInfo] = GoMap()
        self.queues: GoMap[str, QueueInfo] = GoMap()
        self.priority_classes: dict[str, int] = {}
        self.default_priority = 0
        # what the session did through the cache, in order
        self.binds: list[tuple[TaskInfo, str]] = []
        self.evicts: list[tuple[TaskInfo, str]] = []
        self.pod_conditions: dict[str, dict[str, str]] = {}
        self.pod_group_updates: dict[str, PodGroup] = {}

    # --- informer handlers --------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        ni = self.nodes.get(node.name)
        if ni is not None:
            ni.set_node(node)
        else:
            self.nodes[node.name] = NodeInfo(node)

    def add_queue(self, raw: Mapping[str, Any]) -> None:
        check_batch_object(raw)
        md = raw.get("metadata") or {}
        weight = (raw.get("spec") or {}).get("weight") or 0
        q = QueueInfo(md.get("name") or "", weight, md.get("creationTimestamp") or "", dict(raw))
        self.queues[q.uid] = q

    def add_priority_class(self, raw: Mapping[str, Any]) -> None:
        name = (raw.get("metadata") or {}).get("name") or ""
        value = raw.get("value") or 0
        if raw.get("globalDefault"):
            self.default_priority = value
        self.priority_classes[name] = value

    def add_pod_group(self, raw: Mapping[str, Any]) -> None:
        """mirrors setPodGroup: the job "namespace/name" takes the group's spec."""
        check_batch_object(raw)
        md = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        name, ns = md.get("name") or "", md.get("namespace") or "default"
        where = f"PodGroup {ns}/{name}: spec.minMember"
        pg = PodGroup(name, ns, _min_member(spec.get("minMember"), where), spec.get("queue") or "",
                      spec.get("priorityClassName") or "", md.get("creationTimestamp") or "",
                      PodGroupStatus(raw.get("status")), shadow=SHADOW_POD_GROUP_KEY in (md.get("annotations") or {}),
                      raw=dict(raw))
        uid = f"{ns}/{name}"
        job = self.jobs.get(uid)
        if job is None:
            job = self.jobs[uid] = JobInfo(uid)
        job.set_pod_group(pg)
        if not pg.queue:
            job.queue = self.default_queue

    def _shadow_pod_group(self, pod: Pod) -> PodGroup:
        # mirrors createShadowPodGroup: a pod without a group is a job of one, named by its
        # controller's UID (or its own)
        job_id = _controller_uid(pod) or pod.metadata.get("uid") or pod.key
        min_member = 1
        ann = (pod.metadata.get("annotations") or {}).get(GROUP_MIN_MEMBER_ANNOTATION_KEY)
        if ann is not None:
            try:
                min_member = int(ann)
            except ValueError:
                pass
        return PodGroup(job_id, pod.namespace, min_member, "", pod.priority_class_name,
                        pod.metadata.get("creationTimestamp") or "", PodGroupStatus(), shadow=True)

    def add_pod(self, pod: Pod) -> None:
        """mirrors the pod informer's filter and addPod"""
        if pod.phase == "Pending" and pod.scheduler_name != self.scheduler_name:
            return
        ti = TaskInfo(pod)
        job = None
        if not ti.job:
            if pod.scheduler_name == self.scheduler_name:
                pg = self._shadow_pod_group(pod)
                ti.job = pg.name
                job = self.jobs.get(ti.job)
                if job is None:
                    job = self.jobs[ti.job] = JobInfo(ti.job)
                    job.set_pod_group(pg)
                    job.queue = self.default_queue
        else:
            job = self.jobs.get(ti.job)
            if job is None:
                job = self.jobs[ti.job] = JobInfo(ti.job)
        if job is not None:
            job.add_task_info(ti)
        if ti.node_name:
            node = self.nodes.get(ti.node_name)
            if node is None:
                node = NodeInfo(None)
                node.name = ti.node_name
                self.nodes[ti.node_name] = node
            if ti.status not in (SUCCEEDED, FAILED):
                try:
                    node.add_task(ti)
                except NodeError:
                    pass  # kube-batch logs "Failed to add pod into cache" and goes on

    # --- what a session asks of the cache -------------------------------------------------
    def snapshot(self, ranged: Callable[[Any], list]
                 ) -> tuple[GoMap[str, JobInfo], GoMap[str, NodeInfo], GoMap[str, QueueInfo]]:
        """mirrors Snapshot: ready nodes, queues, and jobs with a PodGroup whose queue exists, each
        copied by ranging over the cache's maps (`ranged` gives the order Go's range would)."""
        nodes: GoMap[str, NodeInfo] = GoMap()
        for n in ranged(self.nodes):
            if n.ready():
                nodes[n.name] = n.clone(ranged)
        queues: GoMap[str, QueueInfo] = GoMap()
        for q in ranged(self.queues):
            queues[q.uid] = q.clone()
        jobs: GoMap[str, JobInfo] = GoMap()
        for job in ranged(self.jobs):
            if job.pod_group is None or job.queue not in queues:
                continue
            job.priority = self.priority_classes.get(job.pod_group.priority_class_name, self.default_priority)
            jobs[job.uid] = job.clone(ranged)
        return jobs, nodes, queues

    def _find(self, task: TaskInfo) -> tuple[JobInfo, TaskInfo]:
        job = self.jobs.get(task.job)
        if job is None:
            raise LookupError(f"failed to find Job {task.job} for Task {task.uid}")
        t = job.tasks.get(task.uid)
        if t is None:
            raise LookupError(f"failed to find task in status {status_name(task.status)} by id {task.uid}")
        return job, t

    def bind(self, task_info: TaskInfo, hostname: str) -> None:
        job, task = self._find(task_info)
        node = self.nodes.get(hostname)
        if node is None:
            raise LookupError(f"failed to bind Task {task.uid} to host {hostname}, host does not exist")
        _set_status_then(job, task, BINDING, node.add_task)
        self.binds.append((task, hostname))

    def evict(self, task_info: TaskInfo, reason: str) -> None:
        job, task = self._find(task_info)
        node = self.nodes.get(task.node_name)
        if node is None:
            raise LookupError(f"failed to bind Task {task.uid} to host {task.node_name}, host does not exist")
        _set_status_then(job, task, RELEASING, node.update_task)
        self.evicts.append((task, reason))

    def record_job_status_event(self, job: JobInfo) -> None:
        """mirrors RecordJobStatusEvent: every allocated or pending task of the job gets the
        PodScheduled=False condition with the job's fit error."""
        msg = job.fit_error()
        for status in (ALLOCATED, PENDING):
            for t in job.tasks_in(status):
                self.pod_conditions[t.key] = {"type": "PodScheduled", "status": "False",
                                              "reason": POD_REASON_UNSCHEDULABLE, "message": msg}

    def update_job_status(self, job: JobInfo) -> None:
        if job.pod_group is not None and not job.pod_group.shadow:
            self.pod_group_updates[job.uid] = job.pod_group
        self.record_job_status_event(job)


def build_cache(objects: Iterable[Mapping[str, Any]], scheduler_name: str = DEFAULT_SCHEDULER_NAME,
                default_queue: str = DEFAULT_QUEUE, strict: bool = True) -> SchedulerCache:
    """The cache after its informers have listed these objects: nodes, queues, priority classes
    and pod groups first, then pods, each kind in the order given."""
    cache = SchedulerCache(scheduler_name, default_queue)
    objects = [o for o in objects if _is_mapping(o)]
    for o in objects:
        if o.get("kind") == "Node":
            cache.add_node(Node(o))
    for o in objects:
        if is_batch_kind(o, "Queue"):
            cache.add_queue(o)
        elif o.get("kind") == "PriorityClass":
            cache.add_priority_class(o)
    groups = set()
    for o in objects:
        if is_batch_kind(o, "PodGroup"):
            check_batch_object(o)
            md = o.get("metadata") or {}
            ns, name = md.get("namespace") or "default", md.get("name") or ""
            queue = (o.get("spec") or {}).get("queue") or ""
            if strict and queue and queue not in cache.queues:
                raise InputError(f"names queue {quote(queue)}, which is not in the snapshot",
                                 field=f"PodGroup {ns}/{name}: spec.queue")
            cache.add_pod_group(o)
            groups.add(f"{ns}/{name}")
    for o in objects:
        if o.get("kind") == "Pod":
            pod = Pod(o)
            if strict and pod.scheduler_name == scheduler_name:
                jid = job_id_of(pod)
                if jid and jid not in groups:
                    raise InputError(f"names PodGroup {quote(jid)}, which is not in the snapshot",
                                     field=f"Pod {pod.key}: metadata.annotations[{GROUP_NAME_ANNOTATION_KEY}]")
            cache.add_pod(pod)
    return cache


def _set_status_then(job: JobInfo, task: TaskInfo, status: int, on_node: Callable[[TaskInfo], Any]) -> None:
    """cache.go Bind and Evict: the task takes its new status in its job, then the node is told;
    a node that refuses puts the task's old status back, and the error goes up."""
    original = task.status
    job.update_task_status(task, status)
    try:
        on_node(task)
    except NodeError:
        job.update_task_status(task, original)
        raise

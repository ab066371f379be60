"""DynamicResources: ResourceClaims of a pod must exist, be usable, and be allocatable on the
node (framework/plugins/dynamicresources).

v1.34 behaviour that every pod sees, claims or not:
- PreFilter stores its state first, then returns Skip for a pod without claims;
- PostFilter runs before DefaultPreemption and, for such a pod, returns Unschedulable
  "no new claims to deallocate", which joins the FitError message;
- when a PreFilter plugin before it rejected the pod (UnschedulableAndUnresolvable), its
  PreFilter never ran, and PostFilter fails with the CycleState's error "not found".

For pods with claims: claim lookup and ownership, "in use", allocated claims' node selectors,
device class checks, and an allocator for unallocated claims that understands a subset of CEL
(see allocator.py); beyond that subset the Filter reports an error instead of guessing.

Since v1.35 (kubernetes/kubernetes#134711) the plugin also scores (weight 2 in the default
profile): a node where a claim's firstAvailable request gets an earlier subrequest scores higher.
Every pod gets the score, 0 for a pod without claims.
"""
from __future__ import annotations

from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod, metadata_of
from .. import names
from ..feature import QueueingHintFeatures, for_release
from ..helper.normalize_score import DefaultNormalized
from ..helper.nodeaffinity import NodeSelector
from ...framework.claims import ClaimTracker, claim_uid
from .allocator import AllocationError, Allocator, AllocatorFeatures, TimedOut, Unsupported
from ...framework import batch as signers

NAME = names.DYNAMIC_RESOURCES
STATE_KEY = NAME

# the CycleState's ErrNotFound text, which PostFilter returns when PreFilter never ran
ERR_STATE_NOT_FOUND = "not found"
ERR_NO_NEW_CLAIMS = "no new claims to deallocate"
ERR_DEALLOCATION_COMPLETED = "deallocation of ResourceClaim completed"
ERR_STILL_NOT_SCHEDULABLE = "still not schedulable"
ERR_CLAIM_IN_USE = "resourceclaim in use"
ERR_CLAIM_NOT_AVAILABLE = "resourceclaim not available on the node"
ERR_CANNOT_ALLOCATE = "cannot allocate all claims"
ERR_TIMED_OUT = "timed out trying to allocate devices"
ERR_CLAIM_NOT_FOUND = 'could not find ResourceClaim "{}/{}"'
ERR_CLAIM_DELETING = 'resourceclaim "{}" is being deleted'
ERR_NOT_CREATED_YET = 'pod "{}/{}": ResourceClaim not created yet'
ERR_API_UNSUPPORTED = 'pod "{}/{}", spec.resourceClaim "{}": none of the supported fields are set'
ERR_NOT_OWNER = "ResourceClaim {}/{} was not created for pod {}/{} (pod is not owner)"
ERR_CLASS_MISSING = "request {}: device class {} does not exist"
ERR_UNSUPPORTED_REQUEST = "request {}: unsupported request type"
ERR_UNKNOWN_REQUEST = "resource claim {}, request {}: unknown request type"
ERR_UNSUPPORTED_HERE = "kubectl-preempt cannot evaluate this claim offline: {}"
ERR_BEING_ALLOCATED = "resource claim {} is in the process of being allocated"
ERR_NO_ALLOCATION_FOR_NODE = "claim allocation not found for node"

RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE = 256
_SUCCESS = SUCCESS  # statuses are immutable: one shared answer for the hot path
# resourceapi.FirstAvailableDeviceRequestMaxSize: subrequest i of a firstAvailable request scores 8 - i
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("status") or {}


class _Rejected(Exception):
    pass


def node_allocation(results: list[dict[str, str]], node_name: str) -> dict[str, Any]:
    """A claim's status.allocation for devices of one node: the device results, and a node
    selector of that node (the structured allocator's for node-local devices)."""
    return {"devices": {"results": results},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}


class StateData:
    """Shared across clones, as upstream's Clone returns the same pointer."""

    __slots__ = ("claims", "available_on", "unavailable_claims", "allocator", "node_allocations")

    def __init__(self) -> None:
        self.claims: list[Mapping[str, Any]] = []
        self.available_on: list[NodeSelector | None] = []
        self.unavailable_claims: set[int] = set()
        self.allocator: Allocator | None = None
        # node name -> the alternative each pending claim's requests got there (Filter's result)
        self.node_allocations: dict[str, list[int]] = {}


class DynamicResources(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors DynamicResources.SignPod (v1.35+): a pod with resource claims is not signable."""
        if pod.spec.get("resourceClaims"):
            return signers.not_signable("pods with dra resource claims are not signable")
        return [], SUCCESS

    # v1.33 only: PostFilter's fast path for a pod without resource claims (new())
    no_claims_fast_path = False

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # mirrors DynamicResources.EventsToRegister; its hints are not modelled: every registered
        # event requeues. Nodes: Add and UpdateNodeLabel, UpdateNodeTaint too without queueing
        # hints (kubernetes#109437), UpdateNodeAllocatable from v1.34.1
        node = ev.ADD | ev.UPDATE_NODE_LABEL
        if not self.enable_scheduling_queue_hint:
            node |= ev.UPDATE_NODE_TAINT
        if self.minor >= 34:
            node |= ev.UPDATE_NODE_ALLOCATABLE
        return [ClusterEventWithHint(ClusterEvent(ev.NODE, node)),
                ClusterEventWithHint(ClusterEvent(ev.RESOURCE_CLAIM, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.POD, ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM)),
                ClusterEventWithHint(ClusterEvent(ev.DEVICE_CLASS, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.RESOURCE_SLICE, ev.ADD | ev.UPDATE))]

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        # the allocator's features from the release's DRA gates (new())
        self.allocator_features = AllocatorFeatures()

    def _extra(self, kind: str) -> list:
        cluster = getattr(self.handle, "cluster", None)
        return list(((getattr(cluster, "extra", None) or {}).get(kind)) or ())

    def _claim(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        found = None
        for c in self._extra("ResourceClaim"):
            if (metadata_of(c).get("namespace") or "default") == namespace and metadata_of(c).get("name") == name:
                found = c
        return found

    def pod_claims(self, pod: Pod) -> list[Mapping[str, Any]]:
        """mirrors foreachPodResourceClaim; raises _Rejected with upstream's error text."""
        out = []
        statuses = pod.status.get("resourceClaimStatuses") or []
        for rc in pod.spec.get("resourceClaims") or ():
            # mirrors resourceclaim.Name
            must_check_owner = False
            if rc.get("resourceClaimName") is not None:
                claim_name = rc["resourceClaimName"]
            elif rc.get("resourceClaimTemplateName") is not None:
                for st in statuses:
                    if st.get("name") == rc.get("name"):
                        claim_name = st.get("resourceClaimName")
                        must_check_owner = True
                        break
                else:
                    raise _Rejected(ERR_NOT_CREATED_YET.format(pod.namespace, pod.name))
            else:
                raise _Rejected(ERR_API_UNSUPPORTED.format(pod.namespace, pod.name, rc.get("name") or ""))
            if claim_name is None:
                continue  # intentionally not created
            claim = self._claim(pod.namespace, claim_name)
            if claim is None:
                raise _Rejected(ERR_CLAIM_NOT_FOUND.format(pod.namespace, claim_name))
            if metadata_of(claim).get("deletionTimestamp"):
                raise _Rejected(ERR_CLAIM_DELETING.format(metadata_of(claim).get("name")))
            if must_check_owner:
                owned = any(ref.get("controller") and ref.get("uid") == pod.uid
                            for ref in metadata_of(claim).get("ownerReferences") or ())
                ns = metadata_of(claim).get("namespace") or "default"
                if ns != pod.namespace or not owned:
                    raise _Rejected(ERR_NOT_OWNER.format(ns, metadata_of(claim).get("name"), pod.namespace, pod.name))
            out.append(claim)
        return out

    def allocation_on(self, pod: Pod, node: Any, shared: frozenset[str] = frozenset()
                      ) -> list[tuple[Mapping[str, Any], list[dict[str, str]] | None]]:
        """Each of the pod's claims with the device results its allocation on `node` gets (as
        Filter found them: the allocator over the claims not allocated yet), None for a claim
        allocated already or whose allocation in flight the pod shares (`shared`, claim UIDs: a
        v1.36 pod-group cycle's); [] when the pod has none, or they cannot be allocated there."""
        try:
            claims = self.pod_claims(pod)
        except _Rejected:
            return []
        pending = [c for c in claims if _status(c).get("allocation") is None and claim_uid(c) not in shared]
        got: dict[int, list[dict[str, str]]] = {}
        if pending:
            classes = {metadata_of(c).get("name"): c for c in self._extra("DeviceClass")}
            allocator = Allocator(self._extra("ResourceSlice"), classes, self._allocated_devices(),
                                  self.allocator_features)
            try:
                if not allocator.allocate(node, pending) or allocator.last_results is None:
                    return []
            except (AllocationError, TimedOut, Unsupported):
                return []
            got = {id(c): r for c, r in zip(pending, allocator.last_results)}
        return [(c, got.get(id(c))) for c in claims]

    def _allocated_devices(self) -> set[tuple[str, str, str]]:
        """The devices of allocated claims and of allocations in flight (ListAllAllocatedDevices)."""
        allocated = set()
        for c in self._extra("ResourceClaim"):
            for r in ((_status(c).get("allocation") or {}).get("devices") or {}).get("results") or ():
                allocated.add((r.get("driver") or "", r.get("pool") or "", r.get("device") or ""))
        allocated.update(self._tracker.allocated_devices())
        return allocated

    @property
    def _tracker(self) -> ClaimTracker:
        tracker = getattr(self.handle, "claim_tracker", None)
        if tracker is None:
            # a handle of its own (a plugin built alone, in a test): a tracker of its own
            tracker = self.__dict__.setdefault("_own_tracker", ClaimTracker())
        return tracker

    def _shared_in_cycle(self, state: Any) -> set[str] | None:
        """The claims whose allocation the pods of this v1.36 pod-group cycle share
        (podGroupStateData.pendingAllocations), None outside such a cycle."""
        cycle = getattr(state, "pod_group_cycle", None)
        if cycle is None or self.minor < 36:
            return None
        return cycle.data.setdefault(NAME, set())

    # ------------------------------------------------------------------ PreEnqueue
    def pre_enqueue(self, pod: Pod) -> Status:
        try:
            self.pod_claims(pod)
        except _Rejected as e:
            return Status(Code.UnschedulableAndUnresolvable, str(e))
        return SUCCESS

    # ------------------------------------------------------------------ PreFilter
    def pre_filter_reads_labels(self, pod: Pod) -> bool:
        """A pod with claims has them named after itself (templates) and reserved for it
        (scheduler/memo/failed_cycles.py)."""
        return bool(pod.spec.get("resourceClaims"))

    def pre_filter(self, state: Any, pod: Pod, nodes: list) -> tuple[None, Status]:
        s = StateData()
        state.write(STATE_KEY, s)
        if not pod.spec.get("resourceClaims"):
            return None, Status(Code.Skip)
        try:
            claims = self.pod_claims(pod)
        except _Rejected as e:
            return None, Status(Code.UnschedulableAndUnresolvable, str(e))
        if not claims:
            return None, Status(Code.Skip)
        classes = {metadata_of(c).get("name"): c for c in self._extra("DeviceClass")}
        to_allocate = 0
        available_on: list[NodeSelector | None] = []
        shared = self._shared_in_cycle(state)
        for i, claim in enumerate(claims):
            allocation = _status(claim).get("allocation")
            if allocation is None:
                uid = claim_uid(claim)
                pending = self._tracker.get_pending_allocation(uid)
                if pending is not None and shared is not None and uid in shared:
                    # another pod of this pod-group cycle reserved its allocation: this pod
                    # shares it, as if the claim were allocated (no allocator for it)
                    claim = claims[i] = {**claim, "status": {**_status(claim), "allocation": pending}}
                    sel = pending.get("nodeSelector")
                    available_on.append(NodeSelector(sel) if sel is not None else None)
                    continue
                if pending is not None:
                    # an allocation in flight for another pod: better wait for it
                    md = metadata_of(claim)
                    return None, Status(Code.UnschedulableAndUnresolvable, ERR_BEING_ALLOCATED.format(
                        f"{md.get('namespace') or 'default'}/{md.get('name')}"))
            reserved = _status(claim).get("reservedFor") or []
            if allocation is not None:
                if (len(reserved) >= RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE
                        and not any(r.get("uid") == pod.uid for r in reserved)):
                    return None, Status(Code.UnschedulableAndUnresolvable, ERR_CLAIM_IN_USE)
                sel = allocation.get("nodeSelector")
                available_on.append(NodeSelector(sel) if sel is not None else None)
                continue
            available_on.append(None)
            to_allocate += 1
            key = f"{metadata_of(claim).get('namespace') or 'default'}/{metadata_of(claim).get('name')}"
            for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
                rname = req.get("name") or ""
                if req.get("exactly") is not None:
                    st = self._validate_class(classes, req["exactly"].get("deviceClassName") or "", rname)
                elif req.get("firstAvailable"):
                    st = None
                    for sub in req["firstAvailable"]:
                        st = self._validate_class(classes, sub.get("deviceClassName") or "", f"{rname}/{sub.get('name') or ''}")
                        if st is not None:
                            break
                else:
                    st = Status(Code.UnschedulableAndUnresolvable, ERR_UNKNOWN_REQUEST.format(key, rname))
                if st is not None:
                    return None, st
        if to_allocate:
            s.allocator = Allocator(self._extra("ResourceSlice"), classes, self._allocated_devices(),
                                    self.allocator_features)
        s.available_on = available_on
        s.claims = claims
        return None, SUCCESS

    @staticmethod
    def _validate_class(classes: Mapping[str, Any], class_name: str, request: str) -> Status | None:
        if not class_name:
            return Status.as_error(ERR_UNSUPPORTED_REQUEST.format(request))
        if class_name not in classes:
            return Status(Code.UnschedulableAndUnresolvable, ERR_CLASS_MISSING.format(request, class_name))
        return None

    # ------------------------------------------------------------------ Filter
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status:
        s = state.get(STATE_KEY)
        if not isinstance(s, StateData):
            return Status.as_error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return SUCCESS
        node = node_info.node
        unavailable = [i for i, sel in enumerate(s.available_on)
                       if sel is not None and not sel.matches(node)]
        if s.allocator is not None:
            pending = [c for c in s.claims if _status(c).get("allocation") is None]
            try:
                ok = s.allocator.allocate(node, pending)
            except TimedOut:
                if self.minor >= 36:
                    # v1.36: a timeout may be transient, so an Error (backoff, not the
                    # unschedulable pool), naming the node
                    return Status.as_error(f"node {node.name}: {ERR_TIMED_OUT}")
                return Status(Code.UnschedulableAndUnresolvable, ERR_TIMED_OUT)
            except AllocationError as e:
                return Status.as_error(str(e))
            except Unsupported as e:
                return Status.as_error(ERR_UNSUPPORTED_HERE.format(e))
            if not ok:
                return Status(Code.UnschedulableAndUnresolvable, ERR_CANNOT_ALLOCATE)
        if unavailable:
            s.unavailable_claims.update(unavailable)
            return Status(Code.UnschedulableAndUnresolvable, ERR_CLAIM_NOT_AVAILABLE)
        if s.allocator is not None:
            s.node_allocations[node.name] = list(s.allocator.last_choice or ())
        return SUCCESS

    # ------------------------------------------------------------------ Reserve
    def reserve(self, state: Any, pod: Pod, node_name: str) -> Status:
        """mirrors Reserve: the allocation found on the node for each claim not allocated yet is
        signalled in flight (SignalClaimPendingAllocation), its devices held for every other pod
        until PreBind writes it or Unreserve drops it; in a v1.36 pod-group cycle the claim joins
        the cycle's shared ones, and a pod sharing one adds a share. Found again here, as the
        allocator over the same cluster finds it: Filter found it so a moment ago."""
        if not pod.spec.get("resourceClaims"):
            return SUCCESS
        try:
            claims = self.pod_claims(pod)
        except _Rejected:
            return SUCCESS
        tracker = self._tracker
        shared = self._shared_in_cycle(state)
        joined = frozenset(c for c in map(claim_uid, claims)
                           if shared is not None and c in shared and tracker.get_pending_allocation(c) is not None)
        if all(_status(c).get("allocation") is not None for c in claims):
            return SUCCESS
        node = (getattr(self.handle.cluster, "nodes", None) or {}).get(node_name)
        found = self.allocation_on(pod, node, joined) if node is not None else []
        if not found:
            return Status.as_error(ERR_NO_ALLOCATION_FOR_NODE)
        for claim, results in found:
            uid = claim_uid(claim)
            if uid in joined:
                tracker.signal_claim_pending_allocation(uid, claim)
                continue
            if results is None:
                continue  # allocated already
            tracker.signal_claim_pending_allocation(uid, {**claim, "status": {
                **_status(claim), "allocation": node_allocation(results, node_name)}})
            if shared is not None:
                shared.add(uid)
        return SUCCESS

    def unreserve(self, state: Any, pod: Pod, node_name: str) -> None:
        """mirrors Unreserve: each claim's share of an allocation in flight goes (the allocation
        with its last share, MaybeRemoveClaimPendingAllocation)."""
        if not pod.spec.get("resourceClaims"):
            return
        try:
            claims = self.pod_claims(pod)
        except _Rejected:
            return
        for claim in claims:
            self._tracker.maybe_remove_claim_pending_allocation(claim_uid(claim))

    def allocations_to_bind(self, pod: Pod, node: Any) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """What PreBind (bindClaim) writes for each of the pod's claims bound to `node`: the
        allocation Reserve signalled in flight, else the one the allocator finds there now (a pod
        bound without this scheduler's Reserve); None for a claim allocated already. Each claim's
        share in flight goes (MaybeRemoveClaimPendingAllocation): the claim holds it now."""
        try:
            claims = self.pod_claims(pod)
        except _Rejected:
            return []
        tracker = self._tracker
        uids = [claim_uid(c) for c in claims]
        pending = {u: tracker.get_pending_allocation(u) for u in uids}
        found = {id(c): r for c, r in self.allocation_on(pod, node, frozenset(u for u, a in pending.items() if a))}
        out: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]] = []
        for claim, uid in zip(claims, uids):
            if pending[uid] is not None:
                out.append((claim, pending[uid]))
                tracker.maybe_remove_claim_pending_allocation(uid)
            elif _status(claim).get("allocation") is not None or id(claim) not in found:
                out.append((claim, None))
            else:
                results = found[id(claim)]
                out.append((claim, node_allocation(results, node.name) if results is not None else None))
        return out

    # ------------------------------------------------------------------ PostFilter
    def repeatable_post_filter(self, state: Any, pod: Pod) -> bool:
        """For a pod without claims the answer is always the same (scheduler/memo/failed_cycles.py
        FailedCycles); with claims it reads them and who they are reserved for."""
        s = state.get(STATE_KEY)
        return isinstance(s, StateData) and not s.claims

    def same_answer_after_change(self, state: Any, pod: Pod, record: Any, node_info: Any, status: Status) -> bool:
        """Without claims its answer reads no node (scheduler/memo/failed_cycles.py)."""
        return self.repeatable_post_filter(state, pod)

    def post_filter(self, state: Any, pod: Pod, node_to_status: Any) -> tuple[None, Status]:
        if self.no_claims_fast_path and not pod.spec.get("resourceClaims"):
            # v1.33's PostFilter: a pod without claims is Unschedulable, with no reason, before the
            # state is read (v1.32's and v1.34's read it first: "no new claims to deallocate")
            return None, Status(Code.Unschedulable)
        s = state.get(STATE_KEY)
        if not isinstance(s, StateData):
            return None, Status.as_error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return None, Status(Code.Unschedulable, ERR_NO_NEW_CLAIMS)
        # upstream picks one unavailable claim at random; the outcome text is the same
        for i in sorted(s.unavailable_claims):
            reserved = _status(s.claims[i]).get("reservedFor") or []
            if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == pod.uid):
                return None, Status(Code.Unschedulable, ERR_DEALLOCATION_COMPLETED)
        return None, Status(Code.Unschedulable, ERR_STILL_NOT_SCHEDULABLE)


def _first_available_score(claim: Mapping[str, Any], allocated_subrequests: set[str] | None,
                           choice: list[int], at: int) -> tuple[int, int]:
    """(score, next index into `choice`) of one claim, as computeScore: an allocated claim's
    results name their subrequests ("request/subrequest"); a claim allocated in this cycle
    has the allocator's choice for each of its requests."""
    score = 0
    for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        subs = req.get("firstAvailable") or []
        if allocated_subrequests is None:
            i = choice[at] if at < len(choice) else None
            at += 1
            if req.get("exactly") is None and subs and i is not None:
                score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - i
            continue
        if req.get("exactly") is not None:
            continue
        for i, sub in enumerate(subs):
            if f"{req.get('name') or ''}/{sub.get('name') or ''}" in allocated_subrequests:
                score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - i
    return score, at


class ScoringDynamicResources(DefaultNormalized, DynamicResources):
    """DynamicResources as v1.35 and later build it: with Score and NormalizeScore."""

    # DRAPrioritizedList (beta, on): with it off Score answers 0 before reading anything, and the
    # plugin still scores every node (its weight-2 entry stays in the profile)
    prioritized_list = True

    def score(self, state: Any, pod: Pod, node_info: Any) -> tuple[int, Status]:
        # mirrors Score
        if not self.prioritized_list:
            return 0, _SUCCESS
        s = state.get(STATE_KEY)
        if s.__class__ is not StateData:
            return 0, Status.as_error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            # every pod without claims, on every node: on the hot scoring path
            return 0, _SUCCESS
        choice = s.node_allocations.get(node_info.node.name)
        if choice is None:
            return 0, SUCCESS
        score = at = 0
        for claim in s.claims:
            allocation = _status(claim).get("allocation")
            if allocation is not None:
                results = (allocation.get("devices") or {}).get("results") or ()
                subs = {r.get("request") or "" for r in results if "/" in (r.get("request") or "")}
                got, at = _first_available_score(claim, subs, choice, at)
            else:
                got, at = _first_available_score(claim, None, choice, at)
            score += got
        return score, SUCCESS

    def scores_nothing(self, state: Any, pod: Pod) -> bool:
        """For a pod without claims Score returns 0 on every node before looking at it, and
        NormalizeScore keeps all zeros: the framework need not ask node by node (nor for any pod
        with DRAPrioritizedList off)."""
        if not self.prioritized_list:
            return True
        s = state.get(STATE_KEY)
        return s.__class__ is StateData and not s.claims



def scores_nodes(version: KubernetesVersion) -> bool:
    """Whether the release's DynamicResources has a Score extension: kubernetes/kubernetes#134711
    (v1.35, KEP-4816) added dynamicresources.go (*DynamicResources).Score and ScoreExtensions, and
    default_plugins.go applyDynamicResources gives it weight 2 (v1.35.6 and v1.36.2; not v1.34.1),
    whatever DRAPrioritizedList says (Score then answers 0)."""
    return version.at_least(35)


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> DynamicResources:
    if scores_nodes(version):
        plugin = ScoringDynamicResources(handle)
        plugin.prioritized_list = version.features.enable_dra_prioritized_list
        plugin.allocator_features = AllocatorFeatures(version)
        return for_release(plugin, version)
    plugin = DynamicResources(handle)
    plugin.no_claims_fast_path = version.minor == 33
    plugin.allocator_features = AllocatorFeatures(version)
    return for_release(plugin, version)

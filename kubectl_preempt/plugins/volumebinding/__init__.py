"""VolumeBinding: a pod's PersistentVolumeClaims must be bound, or bindable on the node
(framework/plugins/volumebinding: volume_binding.go and binder.go).

PreFilter rejects a pod whose claims are missing, lost, being deleted, or unbound with
Immediate binding; Filter checks bound volumes' node affinity, finds a matching available
volume for each unbound WaitForFirstConsumer claim, and otherwise checks dynamic provisioning:
the class's allowed topologies and, for CSI drivers that publish it, storage capacity.
Every Filter rejection is UnschedulableAndUnresolvable: preemption cannot help.

Score: storage-capacity scoring is behind the StorageCapacityScoring gate, alpha and off in
v1.34, so PreScore always skips and the plugin never scores.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...framework.podinfo import derived
from ...framework.interface import PreFilterResult
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod
from ...model.quantity import parse_quantity
from .. import names
from ..volumeutil import csitranslation
from ..volumeutil.helpers import (ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, CLAIM_LOST,
                                  NOT_SUPPORTED_PROVISIONER, VOLUME_AVAILABLE, VOLUME_BINDING_WAIT,
                                  annotations, check_access_modes, check_volume_mode_mismatches,
                                  claim_class, compile_label_selector, ephemeral_claim_name,
                                  label_selector_matches,
                                  match_topology_selector_terms, name_of, namespace_of, pv_capacity,
                                  pv_class, storage_request, volume_is_for_pod)
from ..volumeutil.index import PVC_RESOURCE, StorageIndex, not_found, storage_index
from ..feature import QueueingHintFeatures, for_release
from ...framework import batch as signers

NAME = names.VOLUME_BINDING
STATE_KEY = NAME

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
# the wording before v1.33 (binder.go ErrReasonNodeConflict, changed by kubernetes/kubernetes#129887)
ERR_REASON_NODE_CONFLICT_V1_32 = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

# PreFilter's error texts (podHasPVCs, IsDelayBindingMode)
ERR_WAITING_EPHEMERAL = 'waiting for ephemeral volume controller to create the persistentvolumeclaim "{}"'
ERR_CLAIM_LOST = 'persistentvolumeclaim "{}" bound to non-existent persistentvolume "{}"'
ERR_CLAIM_DELETING = 'persistentvolumeclaim "{}" is being deleted'
ERR_BINDING_MODE_NOT_SET = 'VolumeBindingMode not set for StorageClass "{}"'
# Filter's error texts (binder.go); these abort the cycle as errors
ERR_NO_CLASS = 'no class for claim "{}"'
ERR_NO_STORAGE_CLASS = 'failed to find storage class "{}"'
ERR_SELECTOR = "error creating internal label selector for claim: {}: invalid selector"
ERR_TRANSLATE = "could not translate pv: {}"

# in-tree plugins whose CSI migration is on in v1.34 (isCSIMigrationOnForPlugin; Portworx's
# gate is GA and locked on)
_MIGRATION_ON = {csitranslation.AWS_EBS, csitranslation.GCE_PD, csitranslation.AZURE_DISK,
                 csitranslation.CINDER, csitranslation.PORTWORX}


class _FilterError(Exception):
    pass


class PodVolumeClaims:
    """mirrors PodVolumeClaims."""

    __slots__ = ("bound_claims", "unbound_claims_delay_binding", "unbound_claims_immediate",
                 "unbound_volumes_delay_binding")

    def __init__(self) -> None:
        self.bound_claims: list[Mapping[str, Any]] = []
        self.unbound_claims_delay_binding: list[Mapping[str, Any]] = []
        self.unbound_claims_immediate: list[Mapping[str, Any]] = []
        self.unbound_volumes_delay_binding: dict[str, list[Mapping[str, Any]]] = {}


class StateData:
    """What PreFilter found; shared, not copied, by CycleState.clone (as upstream's Clone)."""

    __slots__ = ("pod_volume_claims", "candidates", "ordered")

    def __init__(self, claims: PodVolumeClaims | None = None) -> None:
        self.pod_volume_claims = claims
        # per claim (by identity): the PVs that pass FindMatchingVolume's node-independent checks
        self.candidates: dict[int, list[tuple[Mapping[str, Any], bool, Fraction]]] = {}
        # claims to match, smallest request first, per set of claims
        self.ordered: dict[tuple[int, ...], list[Mapping[str, Any]]] = {}


def _pvc_volumes(pod: Pod) -> list[tuple[str, bool]]:
    """(claim name, is ephemeral) of each volume backed by a claim, in spec order (kept in the
    pod's PodInfo)."""
    return derived(pod, "volume_claims", pvc_volumes_of)


def pvc_volumes_of(pod: Pod) -> list[tuple[str, bool]]:
    """(claim name, is ephemeral) of each volume backed by a claim, in spec order: the claim of a
    generic ephemeral volume is named after the pod (ephemeral.VolumeClaimName)."""
    claims = []
    for v in pod.spec.get("volumes") or ():
        if v.get("persistentVolumeClaim") is not None:
            claims.append((v["persistentVolumeClaim"].get("claimName") or "", False))
        elif v.get("ephemeral") is not None:
            claims.append((ephemeral_claim_name(pod.name, v.get("name") or ""), True))
    return claims


def _claim_key(pvc: Mapping[str, Any]) -> str:
    return f"{namespace_of(pvc)}/{name_of(pvc)}"


def is_pvc_fully_bound(pvc: Mapping[str, Any]) -> bool:
    """mirrors isPVCFullyBound: a volume name and the bind-completed annotation."""
    return bool((pvc.get("spec") or {}).get("volumeName")) and ANN_BIND_COMPLETED in annotations(pvc)


def _storage_quantity(obj: Mapping[str, Any], field: str) -> Fraction | None:
    q = obj.get(field)
    if q is None:
        return None
    return parse_quantity(q, field=f"CSIStorageCapacity {namespace_of(obj)}/{name_of(obj)} {field}")


class VolumeBinding(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors VolumeBinding.SignPod (v1.35+): the pod's volumes (VolumesSigner)."""
        return [(signers.VOLUMES_SIGNER, signers.volumes_signer(pod))], SUCCESS

    # a bound PV's node affinity conflict, as the release words it (new())
    node_conflict_reason = ERR_REASON_NODE_CONFLICT
    # before v1.32 PreFilter narrows the nodes to those a bound local PV's hostname affinity names
    # (volumeBinder.GetEligibleNodes; removed by kubernetes/kubernetes#127584)
    narrows_to_local_pv_nodes = False

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors VolumeBinding.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.STORAGE_CLASS, ev.ADD | ev.UPDATE)),
                    ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD | ev.UPDATE)),
                    ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE)),
                    ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT)),
                    ClusterEventWithHint(ClusterEvent(ev.CSI_NODE, ev.ADD | ev.UPDATE)),
                    ClusterEventWithHint(ClusterEvent(ev.CSI_DRIVER, ev.ADD | ev.UPDATE)),
                    ClusterEventWithHint(ClusterEvent(ev.CSI_STORAGE_CAPACITY, ev.ADD | ev.UPDATE))]
        # mirrors VolumeBinding.EventsToRegister (SchedulerQueueingHints on); its hints are not
        # modelled: every registered event requeues
        return [ClusterEventWithHint(ClusterEvent(ev.STORAGE_CLASS, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL)),
                ClusterEventWithHint(ClusterEvent(ev.CSI_NODE, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.CSI_DRIVER, ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.CSI_STORAGE_CAPACITY, ev.ADD | ev.UPDATE))]

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    # ------------------------------------------------------------------ PreFilter
    def _pod_has_pvcs(self, index: StorageIndex, pod: Pod) -> tuple[bool, str | None]:
        """mirrors podHasPVCs: whether the pod uses claims, and the first problem with one."""
        has = False
        for claim, ephemeral in _pvc_volumes(pod):
            has = True
            pvc = index.pvc(pod.namespace, claim)
            if pvc is None:
                return has, ERR_WAITING_EPHEMERAL.format(claim) if ephemeral else not_found(PVC_RESOURCE, claim)
            if (pvc.get("status") or {}).get("phase") == CLAIM_LOST:
                return has, ERR_CLAIM_LOST.format(name_of(pvc), (pvc.get("spec") or {}).get("volumeName") or "")
            if (pvc.get("metadata") or {}).get("deletionTimestamp"):
                return has, ERR_CLAIM_DELETING.format(name_of(pvc))
            if ephemeral:
                err = volume_is_for_pod(pod, pvc)
                if err:
                    return has, err
        return has, None

    def _pod_volume_claims(self, index: StorageIndex, pod: Pod) -> PodVolumeClaims:
        """mirrors GetPodVolumeClaims (the claims all exist: podHasPVCs ran first)."""
        out = PodVolumeClaims()
        for claim, _ephemeral in _pvc_volumes(pod):
            pvc = index.pvc(pod.namespace, claim)
            if pvc is None:
                continue
            if is_pvc_fully_bound(pvc):
                out.bound_claims.append(pvc)
                continue
            # mirrors volume.IsDelayBindingMode: no class, or a missing one, is Immediate
            delay = False
            class_name = claim_class(pvc)
            if class_name:
                sc = index.storage_class(class_name)
                if sc is not None:
                    mode = sc.get("volumeBindingMode")
                    if mode is None:
                        raise _FilterError(ERR_BINDING_MODE_NOT_SET.format(class_name))
                    delay = mode == VOLUME_BINDING_WAIT
            # a claim pre-bound to a volume but not yet bound counts as Immediate
            if delay and not (pvc.get("spec") or {}).get("volumeName"):
                out.unbound_claims_delay_binding.append(pvc)
            else:
                out.unbound_claims_immediate.append(pvc)
        for pvc in out.unbound_claims_delay_binding:
            cls = claim_class(pvc)
            out.unbound_volumes_delay_binding[cls] = index.pvs_of_class(cls)
        return out

    def pre_filter_reads_labels(self, pod: Any) -> bool:
        """A pod with volumes may name claims after itself (ephemeral volumes): its PreFilter then
        reads more than the spec (scheduler/memo/failed_cycles.py)."""
        return bool(pod.spec.get("volumes"))

    def pre_filter(self, state: Any, pod: Pod, nodes: list) -> tuple[PreFilterResult | None, Status]:
        if not _pvc_volumes(pod):
            state.write(STATE_KEY, StateData())
            return None, Status(Code.Skip)
        index = storage_index(state, self.handle)
        _, err = self._pod_has_pvcs(index, pod)
        if err is not None:
            return None, Status(Code.UnschedulableAndUnresolvable, err)
        try:
            claims = self._pod_volume_claims(index, pod)
        except _FilterError as e:
            return None, Status.as_error(str(e))
        if claims.unbound_claims_immediate:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_UNBOUND_IMMEDIATE)
        result = None
        if self.narrows_to_local_pv_nodes:
            eligible = _eligible_nodes(index, claims.bound_claims)
            if eligible is not None:
                result = PreFilterResult(eligible)
        state.write(STATE_KEY, StateData(claims))
        return result, SUCCESS

    # ------------------------------------------------------------------ Filter
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status:
        data = state.get(STATE_KEY)
        if not isinstance(data, StateData):
            return Status.as_error("not found")
        if data.pod_volume_claims is None:
            return SUCCESS
        index = storage_index(state, self.handle)
        try:
            reasons = self.find_pod_volumes(index, data, pod, node_info.node)
        except _FilterError as e:
            return Status.as_error(str(e))
        except csitranslation.TranslationError as e:
            return Status.as_error(ERR_TRANSLATE.format(e))
        if reasons:
            return Status(Code.UnschedulableAndUnresolvable, *reasons)
        return SUCCESS

    def find_pod_volumes(self, index: StorageIndex, data: StateData, pod: Pod, node: Any) -> list[str]:
        """mirrors FindPodVolumes: the conflict reasons for this node, in upstream's order."""
        claims = data.pod_volume_claims
        assert claims is not None
        bound_ok = unbound_ok = sufficient = pvs_found = True

        def reasons() -> list[str]:
            out = []
            if not bound_ok:
                out.append(self.node_conflict_reason)
            if not unbound_ok:
                out.append(ERR_REASON_BIND_CONFLICT)
            if not sufficient:
                out.append(ERR_REASON_NOT_ENOUGH_SPACE)
            if not pvs_found:
                out.append(ERR_REASON_PV_NOT_EXIST)
            return out

        if claims.bound_claims:
            bound_ok, pvs_found = self._check_bound_claims(index, claims.bound_claims, node)
        if claims.unbound_claims_delay_binding:
            to_match: list[Mapping[str, Any]] = []
            to_provision: list[Mapping[str, Any]] = []
            for pvc in claims.unbound_claims_delay_binding:
                ann = annotations(pvc)
                if ANN_SELECTED_NODE in ann:
                    if ann[ANN_SELECTED_NODE] != node.name:
                        unbound_ok = False  # provisioning already started for another node
                        return reasons()
                    to_provision.append(pvc)
                else:
                    to_match.append(pvc)
            if to_match:
                unbound_ok, unmatched = self._find_matching_volumes(index, data, to_match, node)
                to_provision.extend(unmatched)
            if to_provision:
                unbound_ok, sufficient = self._check_volume_provisions(index, to_provision, node)
        return reasons()

    def _check_bound_claims(self, index: StorageIndex, claims: list[Mapping[str, Any]], node: Any) -> tuple[bool, bool]:
        """mirrors checkBoundClaims: (node affinity satisfied, all bound PVs exist)."""
        csi_node = index.csi_node(node.name)
        labels = node.labels
        for pvc in claims:
            pv = index.pv((pvc.get("spec") or {}).get("volumeName") or "")
            if pv is None:
                return True, False
            translated = False
            if csitranslation.is_pv_migratable(pv):
                # mirrors tryTranslatePVToCSI
                plugin = csitranslation.plugin_name_of_pv(pv)
                translated = plugin in _MIGRATION_ON and plugin in csitranslation.migrated_plugins(csi_node)
            affinity = index.pv_node_affinity(pv, translated)
            if affinity is not None and not affinity.matches(labels):
                return False, True
        return True, True

    def _candidates(self, data: StateData, pvc: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], bool, Fraction]]:
        """The PVs that pass FindMatchingVolume's node-independent checks, in listing order:
        (pv, pre-bound to this claim, capacity). Computed once per claim per cycle."""
        cached = data.candidates.get(id(pvc))
        if cached is not None:
            return cached
        key = _claim_key(pvc)
        claims = data.pod_volume_claims
        assert claims is not None
        ps = pvc.get("spec") or {}
        pmd = pvc.get("metadata") or {}
        pvc_name, pvc_ns, pvc_uid = pmd.get("name") or "", pmd.get("namespace") or "default", pmd.get("uid") or ""
        requested = storage_request(ps, f"PersistentVolumeClaim {key} spec.resources.requests.storage")
        requested_class = claim_class(pvc)
        claim_vac = ps.get("volumeAttributesClassName") or ""
        selector = None
        if ps.get("selector") is not None:
            selector = compile_label_selector(ps["selector"])
            if selector is None:
                raise _FilterError(ERR_SELECTOR.format(key))
        out = []
        for pv in claims.unbound_volumes_delay_binding.get(requested_class, ()):
            vs = pv.get("spec") or {}
            ref = vs.get("claimRef")
            # mirrors IsVolumeBoundToClaim, inline: most volumes are bound to other claims
            prebound = False
            if ref is not None:
                if (ref.get("name") != pvc_name or (ref.get("namespace") or "") != pvc_ns
                        or (ref.get("uid") and ref.get("uid") != pvc_uid)):
                    continue
                prebound = True
            qty = pv_capacity(pv)
            if qty < requested:
                continue
            if check_volume_mode_mismatches(ps, vs):
                continue
            if claim_vac != (vs.get("volumeAttributesClassName") or ""):
                continue
            if (pv.get("metadata") or {}).get("deletionTimestamp"):
                continue
            if prebound:
                out.append((pv, True, qty))
                continue
            if (pv.get("status") or {}).get("phase") != VOLUME_AVAILABLE:
                continue
            if selector is not None and not label_selector_matches(selector, (pv.get("metadata") or {}).get("labels") or {}):
                continue
            if pv_class(pv) != requested_class:
                continue
            if not check_access_modes(pvc, pv):
                continue
            out.append((pv, False, qty))
        data.candidates[id(pvc)] = out
        return out

    def _find_matching_volume(self, index: StorageIndex, data: StateData, pvc: Mapping[str, Any],
                              node: Any, excluded: set[str]) -> Mapping[str, Any] | None:
        """mirrors volume.FindMatchingVolume for the scheduler (a node, delayed binding)."""
        smallest = None
        smallest_qty = Fraction(0)
        for pv, prebound, qty in self._candidates(data, pvc):
            if name_of(pv) in excluded:
                continue
            affinity = index.pv_node_affinity(pv)
            valid = affinity is None or affinity.matches(node.labels)
            if prebound:
                # a volume pre-bound to the claim is the only match, if it fits the node
                return pv if valid else None
            if not valid:
                continue
            if smallest is None or smallest_qty > qty:
                smallest, smallest_qty = pv, qty
        return smallest

    def _find_matching_volumes(self, index: StorageIndex, data: StateData, claims: list[Mapping[str, Any]],
                               node: Any, matched: list[tuple[Mapping[str, Any], Mapping[str, Any]]] | None = None
                               ) -> tuple[bool, list[Mapping[str, Any]]]:
        """mirrors findMatchingVolumes: smallest claims first, each PV chosen at most once;
        `matched` gets each (PV, claim) chosen (the static bindings)."""
        memo_key = tuple(id(c) for c in claims)
        ordered = data.ordered.get(memo_key)
        if ordered is None:
            ordered = data.ordered[memo_key] = sorted(claims, key=lambda c: storage_request(
                c.get("spec") or {}, f"PersistentVolumeClaim {_claim_key(c)} spec.resources.requests.storage"))
        chosen: set[str] = set()
        found = True
        unmatched = []
        for pvc in ordered:
            pv = self._find_matching_volume(index, data, pvc, node, chosen)
            if pv is None:
                unmatched.append(pvc)
                found = False
                continue
            chosen.add(name_of(pv))
            if matched is not None:
                matched.append((pv, pvc))
        return found, unmatched

    # ------------------------------------------------------------------ Reserve
    def reserve(self, state: Any, pod: Pod, node_name: str) -> Status:
        """mirrors Reserve (AssumePodVolumes): the volumes FindPodVolumes chose on the node for the
        pod's unbound WaitForFirstConsumer claims are assumed bound to them, and the claims left to
        provisioning assumed annotated with the node (framework/volumeassume.py); a pod whose
        claims are all bound assumes nothing. Found again here as Filter found them a moment ago."""
        if not _pvc_volumes(pod):
            return SUCCESS
        try:
            found = self.volumes_on(pod, node_name)
        except (_FilterError, csitranslation.TranslationError) as e:
            return Status.as_error(str(e))
        if found is not None:
            self.handle.volume_assumptions.assume(pod.uid, *found)
        return SUCCESS

    def unreserve(self, state: Any, pod: Pod, node_name: str) -> None:
        """mirrors Unreserve (RevertAssumedPodVolumes)."""
        self.handle.volume_assumptions.revert(pod.uid)

    def volumes_to_bind(self, pod: Pod, node_name: str
                        ) -> tuple[dict[str, Mapping[str, Any]], dict[str, Mapping[str, Any]]] | None:
        """volumes_on for a pod placed without this scheduler's Reserve (a replay binds most pods
        at once): None where the volumes cannot be found (Filter would have refused the node)."""
        try:
            return self.volumes_on(pod, node_name)
        except (_FilterError, csitranslation.TranslationError):
            return None

    def volumes_on(self, pod: Pod, node_name: str
                   ) -> tuple[dict[str, Mapping[str, Any]], dict[str, Mapping[str, Any]]] | None:
        """(PV name -> the PV bound to its claim, namespace/name -> the claim annotated with the
        node) for the pod on `node_name`, as AssumePodVolumes makes them from FindPodVolumes'
        static bindings and dynamic provisions; None when every claim is bound already."""
        index = storage_index(None, self.handle)
        claims = self._pod_volume_claims(index, pod)
        if not claims.unbound_claims_delay_binding:
            return None  # arePodVolumesBound
        node = (getattr(self.handle.cluster, "nodes", None) or {}).get(node_name)
        if node is None:
            return None
        data = StateData(claims)
        to_match, to_provision = [], []
        for pvc in claims.unbound_claims_delay_binding:
            (to_provision if ANN_SELECTED_NODE in annotations(pvc) else to_match).append(pvc)
        matched: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
        if to_match:
            _, unmatched = self._find_matching_volumes(index, data, to_match, node, matched)
            to_provision.extend(unmatched)
        pvs: dict[str, Mapping[str, Any]] = {}
        for pv, pvc in matched:
            bound, dirty = bind_volume_to_claim(pv, pvc)
            if dirty:
                pvs[name_of(pv)] = bound
        pvcs = {_claim_key(pvc): {**pvc, "metadata": {**(pvc.get("metadata") or {}), "annotations": {
            **annotations(pvc), ANN_SELECTED_NODE: node_name}}} for pvc in to_provision}
        return pvs, pvcs

    def _check_volume_provisions(self, index: StorageIndex, claims: list[Mapping[str, Any]], node: Any) -> tuple[bool, bool]:
        """mirrors checkVolumeProvisions: (provisioning possible, enough storage)."""
        for pvc in claims:
            class_name = claim_class(pvc)
            if not class_name:
                raise _FilterError(ERR_NO_CLASS.format(_claim_key(pvc)))
            sc = index.storage_class(class_name)
            if sc is None:
                raise _FilterError(ERR_NO_STORAGE_CLASS.format(class_name))
            provisioner = sc.get("provisioner") or ""
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True
            if not match_topology_selector_terms(sc.get("allowedTopologies"), node.labels):
                return False, True
            if not self._has_enough_capacity(index, provisioner, pvc, class_name, node):
                return True, False
        return True, True

    def _has_enough_capacity(self, index: StorageIndex, provisioner: str, pvc: Mapping[str, Any],
                             class_name: str, node: Any) -> bool:
        """mirrors hasEnoughCapacity: only for CSI drivers that publish storage capacity."""
        ps = pvc.get("spec") or {}
        if "storage" not in ((ps.get("resources") or {}).get("requests") or {}):
            return True
        driver = index.csi_driver(provisioner)
        if driver is None or (driver.get("spec") or {}).get("storageCapacity") is not True:
            return True
        size = storage_request(ps, f"PersistentVolumeClaim {_claim_key(pvc)} spec.resources.requests.storage")
        size_bytes = -((-size.numerator) // size.denominator)  # Quantity.Value() rounds up
        for cap in index.storage_capacities():
            if cap.get("storageClassName") != class_name:
                continue
            limit = _storage_quantity(cap, "maximumVolumeSize")
            if limit is None:
                limit = _storage_quantity(cap, "capacity")
            if limit is None or -((-limit.numerator) // limit.denominator) < size_bytes:
                continue
            topology = cap.get("nodeTopology")
            if topology is None:
                continue
            reqs = compile_label_selector(topology)
            if reqs is not None and label_selector_matches(reqs, node.labels):
                return True
        return False

    # ------------------------------------------------------------------ Score
    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status:
        # the capacity scorer exists only with the StorageCapacityScoring gate (alpha, off)
        return Status(Code.Skip)

    def score(self, state: Any, pod: Pod, node_info: Any) -> tuple[int, Status]:
        return 0, SUCCESS


def bind_volume_to_claim(pv: Mapping[str, Any], pvc: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """mirrors volume.GetBindVolumeToClaim: the PV with its claimRef on the claim (and the
    bound-by-controller annotation when the binder set it), and whether anything changed."""
    spec = pv.get("spec") or {}
    md = pvc.get("metadata") or {}
    ref = spec.get("claimRef")
    if ref is not None and ref.get("name") == md.get("name") and (ref.get("namespace") or "") == (
            md.get("namespace") or "default") and ref.get("uid") == md.get("uid"):
        return pv, False
    claim_ref = {"kind": "PersistentVolumeClaim", "namespace": md.get("namespace") or "default",
                 "name": md.get("name") or "", "uid": md.get("uid") or "", "apiVersion": "v1"}
    if md.get("resourceVersion"):
        claim_ref["resourceVersion"] = md["resourceVersion"]
    pmd = pv.get("metadata") or {}
    new_md = dict(pmd)
    if ref is None:
        new_md["annotations"] = {**annotations(pv), ANN_BOUND_BY_CONTROLLER: "yes"}
    return {**pv, "metadata": new_md, "spec": {**spec, "claimRef": claim_ref}}, True


def _local_pv_node_names(pv: Mapping[str, Any]) -> set[str]:
    """mirrors volume/util GetLocalPersistentVolumeNodeNames (v1.31): per required term, the
    intersection of its `kubernetes.io/hostname In` values; the union over the terms (a term
    without such an expression adds nothing)."""
    required = (((pv.get("spec") or {}).get("nodeAffinity") or {}).get("required")) or {}
    result: set[str] = set()
    for term in required.get("nodeSelectorTerms") or ():
        nodes: set[str] | None = None
        for expr in (term or {}).get("matchExpressions") or ():
            if expr.get("key") == "kubernetes.io/hostname" and expr.get("operator") == "In":
                values = set(expr.get("values") or ())
                nodes = values if nodes is None else nodes & values
        result |= nodes or set()
    return result


def _eligible_nodes(index: StorageIndex, bound_claims: list[Mapping[str, Any]]) -> set[str] | None:
    """mirrors volumeBinder.GetEligibleNodes (v1.31): the nodes every bound local PV's hostname
    affinity allows, None when no PV narrows them or a PV is missing."""
    eligible: set[str] | None = None
    for pvc in bound_claims:
        pv = index.pv((pvc.get("spec") or {}).get("volumeName") or "")
        if pv is None:
            return None
        names = _local_pv_node_names(pv)
        if names:
            eligible = set(names) if eligible is None else eligible & names
    return eligible


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> VolumeBinding:
    plugin = VolumeBinding(handle)
    plugin.narrows_to_local_pv_nodes = not version.at_least(32)
    for_release(plugin, version)
    if not version.at_least(33):
        plugin.node_conflict_reason = ERR_REASON_NODE_CONFLICT_V1_32
    return plugin

"""PodInfo: what the scheduler derives from a pod lives in one typed object per Pod object, and a
changed pod (a new Pod object) never sees what was derived from its old version."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.podinfo import PodInfo, pod_info
from kubectl_preempt.framework.types import NodeInfo, host_ports
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins.defaultpreemption import filter_pods_with_pdb_violation
from kubectl_preempt.plugins.noderesources.fit import compute_pod_resource_request


def _pod(name: str, cpu: str = "100m", labels: dict | None = None, port: int = 0) -> Pod:
    container: dict = {"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}
    if port:
        container["ports"] = [{"containerPort": port, "hostPort": port}]
    return Pod({"kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": name,
                                            "labels": labels or {}},
                "spec": {"containers": [container]}})


def _pdb(name: str, app: str, allowed: int) -> dict:
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": app}}}, "status": {"disruptionsAllowed": allowed}}


def test_a_pod_info_is_typed_and_slotted_and_a_pod_keeps_no_dict_of_derived_data() -> None:
    p = _pod("a")
    assert not hasattr(p, "cache")
    pi = pod_info(p)
    assert pi is pod_info(p) and pi.pod is p
    with pytest.raises(AttributeError):
        pi.anything_else = 1  # type: ignore[attr-defined]
    assert not hasattr(PodInfo(p), "__dict__")


def test_a_changed_pod_is_a_new_object_and_gets_its_own_pod_info() -> None:
    old = _pod("a", cpu="100m", port=80)
    assert compute_pod_resource_request(old).milli_cpu == 100 and host_ports(old) == [("0.0.0.0", "TCP", 80)]
    new = _pod("a", cpu="2", port=8080)  # the same pod after an update: a new object
    assert pod_info(new) is not pod_info(old)
    assert compute_pod_resource_request(new).milli_cpu == 2000 and host_ports(new) == [("0.0.0.0", "TCP", 8080)]
    assert compute_pod_resource_request(old).milli_cpu == 100


def test_a_node_info_holds_pod_infos_and_counts_their_ports() -> None:
    node = Node({"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}})
    a, b = _pod("a", port=80), _pod("b")
    ni = NodeInfo(node, [a, b])
    assert [pi.pod for pi in ni.pods] == [a, b] and all(type(pi) is PodInfo for pi in ni.pods)
    assert ni.used_ports.check_conflict("0.0.0.0", "TCP", 80)
    # removal goes by uid: a newer object of the same pod removes the one held
    assert ni.remove_pod(_pod("a", port=80))
    assert [pi.pod for pi in ni.pods] == [b] and not ni.used_ports.check_conflict("0.0.0.0", "TCP", 80)


def test_pdb_matches_follow_the_pdb_list_not_the_list_object() -> None:
    cluster = Cluster.from_objects([_pdb("guard", "web", 0)])
    web = _pod("w", labels={"app": "web"})
    gen = cluster.pdb_generation
    violating, _, matched = filter_pods_with_pdb_violation([web], cluster.pdbs, gen)
    assert violating == [web] and matched == {"default/w": ["default/guard"]}
    # the PDB now selects other pods: a new list, a new generation, the pod's matches recomputed
    # (the same length and, possibly, a recycled list address: neither may keep the old answer)
    cluster.pdbs = [Cluster.from_objects([_pdb("guard", "db", 0)]).pdbs[0]]
    assert cluster.pdb_generation != gen
    violating, non_violating, matched = filter_pods_with_pdb_violation([web], cluster.pdbs, cluster.pdb_generation)
    assert violating == [] and non_violating == [web] and matched == {}
    # a PDB listed later (loading appends) moves the generation on as well
    before = cluster.pdb_generation
    cluster.add_object(_pdb("second", "web", 1))
    assert cluster.pdb_generation != before
    _, _, matched = filter_pods_with_pdb_violation([web], cluster.pdbs, cluster.pdb_generation)
    assert matched == {"default/w": ["default/second"]}


def test_a_pod_the_replay_drops_is_freed_with_its_pod_info_even_when_loaded_in_bulk() -> None:
    import gc
    import weakref

    from kubectl_preempt.framework.config import default_config
    from kubectl_preempt.replay.state import ReplayState, build_cluster

    node = {"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}}
    gc.collect()
    was = gc.isenabled()
    gc.disable()  # reference counting alone must free the pair
    try:
        st = ReplayState(build_cluster([node, {**_pod("a").raw, "spec": {**_pod("a").spec, "nodeName": "n1"}}]),
                         default_config())
        pod = st.cluster.pods["default/a"]
        assert pod_info(pod).pod is pod and st.snapshot.get("n1").pods[0].pod is pod
        gc.freeze()  # as bulk loading leaves the initial pods: out of the collector's reach
        gone = weakref.ref(pod)
        st.remove_pod(pod)
        assert pod.info is None
        del pod
        assert gone() is None
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


# --- the derived slots: declared in PodInfo, filled by one function of their owner ---------------

_PACKAGE = __import__("pathlib").Path(__file__).resolve().parents[2] / "kubectl_preempt"


def test_every_derived_slot_is_declared_with_a_type_and_starts_unset() -> None:
    from kubectl_preempt.framework.podinfo import DERIVED, UNSET

    # declared in the class body after the constructor's fields, in DERIVED's order, and slotted
    annotated = list(PodInfo.__annotations__)
    assert annotated[annotated.index("host_ports") + 1:] == list(DERIVED)
    assert set(DERIVED) <= set(PodInfo.__slots__) and len(set(DERIVED)) == len(DERIVED)
    # each declaration has its line saying what it caches, then the one naming its owner
    source = (_PACKAGE / "framework" / "podinfo.py").read_text()
    for name in DERIVED:
        above = source[:source.index(f"\n    {name}: ")].rsplit("\n", 2)
        assert above[-2].strip().startswith("# ") and not above[-2].strip().startswith("# <-"), name
        assert _declared_owner(name)
    pi = PodInfo(_pod("a"))
    assert all(getattr(pi, name) is UNSET for name in DERIVED)
    assert repr(UNSET) == "UNSET"


def _slot_reads_guarded_by_attribute_error(tree: "ast.AST", names: set[str]) -> list[int]:
    import ast

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        catches = any(h.type is not None and "AttributeError" in ast.unparse(h.type) for h in node.handlers)
        reads = any(isinstance(n, ast.Attribute) and n.attr in names for s in node.body for n in ast.walk(s))
        if catches and reads:
            found.append(node.lineno)
    return found


def _declared_owner(name: str) -> tuple[str, str]:
    """The `<- module function` line above the slot's declaration in PodInfo's body."""
    source = (_PACKAGE / "framework" / "podinfo.py").read_text()
    line = source[:source.index(f"\n    {name}: ")].rsplit("\n", 1)[-1].strip()
    assert line.startswith("# <- "), (name, line)
    module, function = line.removeprefix("# <- ").split()[:2]
    return module, function.rstrip(",")


def test_no_derived_slot_is_filled_by_catching_attribute_error_and_each_has_one_owner() -> None:
    import ast
    import importlib

    from kubectl_preempt.framework.podinfo import DERIVED

    names = set(DERIVED)
    owners: dict[str, set[str]] = {name: set() for name in DERIVED}
    for path in sorted(_PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        rel = str(path.relative_to(_PACKAGE))
        assert not _slot_reads_guarded_by_attribute_error(tree, names), rel
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and t.attr in names and isinstance(t.value, ast.Name) \
                            and t.value.id == "pi":
                        owners[t.attr].add(rel)
            # the one-call accessor: derived(pod, "slot", compute)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "derived" \
                    and len(node.args) == 3 and isinstance(node.args[1], ast.Constant):
                assert node.args[1].value in names, (rel, node.args[1].value)
                owners[node.args[1].value].add(rel)
    # the declaration's `<- module function` line names that module and a function it has
    for name, where in owners.items():
        assert len(where) == 1, (name, where)
        module, function = _declared_owner(name)
        assert {module, module + "/__init__.py", module + ".py"} & where, (name, module, where)
        dotted = "kubectl_preempt." + module.removesuffix(".py").replace("/", ".")
        assert callable(getattr(importlib.import_module(dotted), function)), (name, module, function)
    # the check above can fail: a slot filled the old way is found
    bad = ast.parse("def f(pi):\n    try:\n        return pi.images\n    except AttributeError:\n        pass\n")
    assert _slot_reads_guarded_by_attribute_error(bad, names) == [2]


def test_each_owner_fills_its_slot_once_per_pod_object() -> None:
    from kubectl_preempt.framework.podinfo import UNSET
    from kubectl_preempt.plugins.imagelocality import _pod_images
    from kubectl_preempt.plugins.tainttoleration import _prefer_no_schedule_tolerations
    from kubectl_preempt.scheduler.memo.equivalence import node_shape, pod_shape

    p = _pod("a")
    pi = pod_info(p)
    assert pi.images is UNSET
    images = _pod_images(p)
    # the containers' images, then the image volumes' (none here)
    assert images == (("app:latest",), ()) and pi.images is images and _pod_images(p) is images
    assert _prefer_no_schedule_tolerations(p) == [] and pi.prefer_no_schedule_tolerations == []
    shape = pod_shape(p)
    assert pi.node_shape == node_shape(p) and pi.cycle_shape is shape and pod_shape(p) is shape
    # a new object of the same pod derives afresh
    q = _pod("a")
    assert pod_info(q).images is UNSET and _pod_images(q) == images and _pod_images(q) is not images


def test_pdb_matches_of_a_pod_without_a_generation_are_not_kept() -> None:
    from kubectl_preempt.framework.podinfo import UNSET

    cluster = Cluster.from_objects([_pdb("guard", "web", 0)])
    web = _pod("w", labels={"app": "web"})
    violating, _, _ = filter_pods_with_pdb_violation([web], cluster.pdbs, None)
    assert violating == [web] and pod_info(web).pdb_matches is UNSET
    filter_pods_with_pdb_violation([web], cluster.pdbs, cluster.pdb_generation)
    assert pod_info(web).pdb_matches == (cluster.pdb_generation, [0])


def test_fit_request_keeps_the_default_answer_and_computes_the_gated_one_each_time() -> None:
    from kubectl_preempt.framework.podinfo import UNSET

    raw = _pod("a", cpu="100m").raw
    p = Pod({**raw, "spec": {**raw["spec"], "resources": {"requests": {"cpu": "2"}}}})
    assert compute_pod_resource_request(p, pod_level=False).milli_cpu == 100
    assert pod_info(p).fit_request is UNSET  # PodLevelResources off: not kept
    assert compute_pod_resource_request(p).milli_cpu == 2000
    assert pod_info(p).fit_request.milli_cpu == 2000
    assert compute_pod_resource_request(p, pod_level=False).milli_cpu == 100


START_TIMES = {
    "a start time in metav1.Time's own form": ("2026-01-01T10:00:05Z", 1767261605 * 10**9),
    "a start time with a fraction and an offset": ("2026-01-01T11:00:05.5+01:00", 1767261605 * 10**9 + 500_000_000),
    "no start time (counts as starting after every pod that has)": (None, None),
    "a start time that is not one (counts as not started)": ("yesterday", None),
}


@pytest.mark.parametrize("name", list(START_TIMES))
def test_a_pods_start_time_is_parsed_once_kept_with_its_value_and_read_again_after_an_in_place_write(name: str) -> None:
    from kubectl_preempt.framework.podinfo import UNSET
    from kubectl_preempt.model.memory import MEMORY
    from kubectl_preempt.preemption.decision import NOT_STARTED_NANOS, pod_start_nanos

    text, want = START_TIMES[name]
    want = NOT_STARTED_NANOS if want is None else want
    p = _pod("a")
    if text is not None:
        p.status["startTime"] = text
    assert pod_start_nanos(p) == want and p.info is None  # no PodInfo made for a pod without one
    pi = pod_info(p)
    assert pi.start_text is UNSET and pi.start_nanos is UNSET
    with MEMORY.off():  # the parse itself, none of the process's memories
        assert pod_start_nanos(p) == want
    assert pi.start_text is p.status.get("startTime") and pi.start_nanos == want
    pi.start_nanos = -1  # a kept value is read, not parsed again
    assert pod_start_nanos(p) == -1
    # the replay's binding writes the start time in place: the kept value is of the old string
    p.status["startTime"] = "2026-01-02T00:00:00Z"
    assert pod_start_nanos(p) == 1767312000 * 10**9


def test_the_start_times_of_many_pods_read_together_are_each_pods_own_and_kept_as_one_at_a_time() -> None:
    from kubectl_preempt.framework.podinfo import UNSET
    from kubectl_preempt.preemption.decision import NOT_STARTED_NANOS, pod_start_nanos, pods_start_nanos
    from kubectl_preempt.preemption.evaluator import importance_key, importance_keys

    pods = []
    for i, (text, _) in enumerate(START_TIMES.values()):
        p = _pod(f"p{i}")
        if text is not None:
            p.status["startTime"] = text
        pods.append(p)
    bare = pods[0]  # no PodInfo: parsed, none made
    for p in pods[1:]:
        pod_info(p)
    kept = pods[1]
    kept.info.start_text, kept.info.start_nanos = kept.status["startTime"], -7  # a kept value is read
    want = [NOT_STARTED_NANOS if w is None else w for _, w in START_TIMES.values()]
    want[1] = -7
    assert pods_start_nanos(pods) == want
    assert bare.info is None
    assert [p.info.start_nanos for p in pods[2:]] == want[2:]
    assert all(p.info.start_text is p.status.get("startTime") for p in pods[2:])
    pods[2].info.start_nanos = UNSET
    pods[2].info.start_text = UNSET
    assert importance_keys(pods) == [importance_key(p) for p in pods] == [(-p.priority, pod_start_nanos(p)) for p in pods]

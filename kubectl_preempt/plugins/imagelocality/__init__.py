"""ImageLocality: favour nodes that already hold the pod's images, scaled by how widely each
image is spread so that an image on every node does not pull pods together (mirrors
imagelocality/image_locality.go)."""
from __future__ import annotations

from typing import Any, Mapping

from ...framework.cycle_state import CycleState
from ...framework.interface import MAX_NODE_SCORE
from ...framework.status import SUCCESS, Status
from ...framework.types import ImageStateSummary, NodeInfo
from ...framework.versions import DEFAULT, KubernetesVersion
from ...framework.podinfo import UNSET, pod_info
from ...model.objects import Pod
from .. import names
from ...framework import batch as signers

NAME = names.IMAGE_LOCALITY
MB = 1024 * 1024
# below minThreshold the image counts as absent; maxContainerThreshold is per container
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """mirrors normalizedImageName: no tag (or digest) means ":latest"."""
    if name.rfind(":") <= name.rfind("/"):
        name += ":latest"
    return name


def _pod_images(pod: Pod) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(normalized_images, volume_images) of the pod, kept in its PodInfo. Read on every node
    Score visits: the slot is read here without derived()'s call (framework/podinfo.py)."""
    pi = pod.info or pod_info(pod)
    got = pi.images
    if got is UNSET:
        got = pi.images = (normalized_images(pod), volume_images(pod))
    return got


def volume_images(pod: Pod) -> tuple[str, ...]:
    """The normalized references of the pod's image volumes (spec.volumes[].image.reference)."""
    out = []
    for v in pod.spec.get("volumes") or ():
        image = v.get("image") if isinstance(v, dict) else None
        if isinstance(image, dict):
            out.append(normalized_image_name(image.get("reference") or ""))
    return tuple(out)


def normalized_images(pod: Pod) -> tuple[str, ...]:
    """The normalized image names of the pod's init containers, then its containers."""
    return tuple(normalized_image_name(c.get("image") or "")
                 for c in list(pod.spec.get("initContainers") or ()) + list(pod.spec.get("containers") or ()))


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """mirrors scaledImageScore, in float64 as upstream"""
    spread = float(state.num_nodes) / float(total_num_nodes)
    return int(float(state.size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """mirrors calculatePriority"""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    if max_threshold == MIN_THRESHOLD:  # a pod without containers; upstream would divide by zero
        return 0
    # both factors are non-negative here, so // truncates as Go's int64 division does
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality:
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors ImageLocality.SignPod (v1.35+): the normalized names of the pod's images, once each, sorted."""
        return [(signers.IMAGE_NAMES_SIGNER, sorted(set(normalized_images(pod))))], SUCCESS

    # besides the pod and its NodeInfo it reads the node count: a snapshot rebuilt with another
    # count gives every node holding images a new generation (Snapshot.from_cluster)
    node_local = frozenset({"score"})

    def __init__(self, handle: Any, version: KubernetesVersion = DEFAULT) -> None:
        self.handle = handle
        # v1.36: sumImageScores also counts the pod's image volumes (calculatePriority's divisor
        # still counts the containers alone)
        self.image_volumes = version.at_least(36)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        total = len(self.handle.snapshot.list())
        images, volumes = _pod_images(pod)
        states = node_info.image_states
        total_score = 0
        if states:
            for name in images + volumes if self.image_volumes and volumes else images:
                st = states.get(name)
                if st is not None:
                    total_score += scaled_image_score(st, total)
        return calculate_priority(total_score, len(images)), SUCCESS

    def score_extensions(self) -> None:
        return None


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> ImageLocality:
    return ImageLocality(handle, version)

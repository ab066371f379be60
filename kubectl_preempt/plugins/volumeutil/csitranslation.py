"""The part of k8s.io/csi-translation-lib that the volume plugins call: which in-tree volume
sources migrate to which CSI driver, the volume handle a migrated volume gets, and the
PersistentVolume node affinity after translation (zone labels become the driver's topology key).
"""
from __future__ import annotations

import copy
from typing import Any, Mapping
from urllib.parse import urlparse

from ...errors import quote
from .helpers import MIGRATED_PLUGINS_ANNOTATION, annotations

GCE_PD = "kubernetes.io/gce-pd"
AWS_EBS = "kubernetes.io/aws-ebs"
CINDER = "kubernetes.io/cinder"
AZURE_DISK = "kubernetes.io/azure-disk"
AZURE_FILE = "kubernetes.io/azure-file"
VSPHERE = "kubernetes.io/vsphere-volume"
PORTWORX = "kubernetes.io/portworx-volume"
RBD = "kubernetes.io/rbd"

# in-tree volume source field -> (in-tree plugin name, CSI driver name)
IN_TREE_SOURCES: dict[str, tuple[str, str]] = {
    "gcePersistentDisk": (GCE_PD, "pd.csi.storage.gke.io"),
    "awsElasticBlockStore": (AWS_EBS, "ebs.csi.aws.com"),
    "cinder": (CINDER, "cinder.csi.openstack.org"),
    "azureDisk": (AZURE_DISK, "disk.csi.azure.com"),
    "azureFile": (AZURE_FILE, "file.csi.azure.com"),
    "vsphereVolume": (VSPHERE, "csi.vsphere.vmware.com"),
    "portworxVolume": (PORTWORX, "pxd.portworx.com"),
    "rbd": (RBD, "rbd.csi.ceph.com"),
}
_CSI_NAME = {plugin: driver for plugin, driver in IN_TREE_SOURCES.values()}

# the zonal topology key each translator moves zone labels to (those that translate topology)
_TOPOLOGY_KEY = {
    GCE_PD: "topology.gke.io/zone",
    AWS_EBS: "topology.ebs.csi.aws.com/zone",
    CINDER: "topology.cinder.csi.openstack.org/zone",
}

ZONE_GA, REGION_GA = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
ZONE_BETA, REGION_BETA = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
LABEL_MULTI_ZONE_DELIMITER = "__"
UNSPECIFIED = "UNSPECIFIED"


class TranslationError(Exception):
    pass


def _source_of(obj_spec: Mapping[str, Any]) -> str | None:
    for key in IN_TREE_SOURCES:
        if obj_spec.get(key) is not None:
            return key
    return None


def is_pv_migratable(pv: Mapping[str, Any]) -> bool:
    """mirrors CSITranslator.IsPVMigratable."""
    return _source_of(pv.get("spec") or {}) is not None


def is_inline_migratable(volume: Mapping[str, Any]) -> bool:
    """mirrors CSITranslator.IsInlineMigratable."""
    return _source_of(volume) is not None


def plugin_name_of_pv(pv: Mapping[str, Any]) -> str:
    src = _source_of(pv.get("spec") or {})
    if src is None:
        raise TranslationError(f"could not find in-tree plugin name from persistent volume {(pv.get('metadata') or {}).get('name')}")
    return IN_TREE_SOURCES[src][0]


def plugin_name_of_volume(volume: Mapping[str, Any]) -> str:
    src = _source_of(volume)
    if src is None:
        raise TranslationError(f"could not find in-tree plugin name from volume {volume.get('name')}")
    return IN_TREE_SOURCES[src][0]


def is_migratable_plugin_by_name(name: str) -> bool:
    return name in _CSI_NAME


def csi_name_from_in_tree_name(name: str) -> str:
    driver = _CSI_NAME.get(name)
    if driver is None:
        raise TranslationError(f"could not find CSI Driver name for plugin {name}")
    return driver


def migrated_plugins(csi_node: Mapping[str, Any] | None) -> set[str]:
    """The in-tree plugins a CSINode's annotation says are migrated on that node."""
    if csi_node is None:
        return set()
    mpa = annotations(csi_node).get(MIGRATED_PLUGINS_ANNOTATION) or ""
    return set(mpa.split(",")) if mpa else set()


def ebs_volume_id(kubernetes_id: str) -> str:
    """mirrors KubernetesVolumeIDToEBSVolumeID."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    aws_id = urlparse(kubernetes_id).path.strip("/")
    if not aws_id.startswith("vol-") or "/" in aws_id:
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _gce_region(zones: list[str]) -> str:
    # mirrors getRegionFromZones of the GCE PD translator
    regions = set()
    if not zones:
        raise TranslationError("no zones specified")
    for z in zones:
        parts = z.split("-")
        if len(parts) != 3:
            raise TranslationError(f"zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {z}")
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return regions.pop()


def inline_volume_handle(volume: Mapping[str, Any]) -> tuple[str, str]:
    """(driver, volume handle) of an inline in-tree volume, as TranslateInTreeInlineVolumeToCSI
    makes them for the plugins whose migration the scheduler counts."""
    src = _source_of(volume)
    if src is None:
        raise TranslationError(f"could not find in-tree plugin translation logic for {quote(volume.get('name'))}")
    s = volume[src] or {}
    driver = IN_TREE_SOURCES[src][1]
    if src == "gcePersistentDisk":
        return driver, f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{s.get('pdName') or ''}"
    if src == "awsElasticBlockStore":
        try:
            return driver, ebs_volume_id(s.get("volumeID") or "")
        except TranslationError as e:
            raise TranslationError(f"failed to translate Kubernetes ID to EBS Volume ID {e}") from None
    if src == "azureDisk":
        return driver, s.get("diskURI") or ""
    if src in ("cinder", "portworxVolume"):
        return driver, s.get("volumeID") or ""
    if src == "vsphereVolume":
        return driver, s.get("volumePath") or ""
    # azureFile and rbd handles need secrets or pool details; their migration is never on
    # in the scheduler's eyes (isCSIMigrationOn), so no caller asks for them
    raise TranslationError(f"translation of {src} volumes is not supported")


def pv_volume_handle(pv: Mapping[str, Any]) -> tuple[str, str]:
    """(driver, volume handle) of an in-tree PV after TranslateInTreePVToCSI."""
    ps = pv.get("spec") or {}
    src = _source_of(ps)
    if src is None:
        raise TranslationError("could not find in-tree plugin translation logic")
    s = ps[src] or {}
    driver = IN_TREE_SOURCES[src][1]
    if src == "gcePersistentDisk":
        labels = (pv.get("metadata") or {}).get("labels") or {}
        zones_label = labels.get(ZONE_BETA) or labels.get(ZONE_GA) or ""
        zones = zones_label.split(LABEL_MULTI_ZONE_DELIMITER)
        pd = s.get("pdName") or ""
        if len(zones) == 1 and zones[0]:
            return driver, f"projects/{UNSPECIFIED}/zones/{zones[0]}/disks/{pd}"
        if len(zones) > 1:
            try:
                region = _gce_region(zones)
            except TranslationError as e:
                raise TranslationError(f"failed to get region from zones: {e}") from None
            return driver, f"projects/{UNSPECIFIED}/regions/{region}/disks/{pd}"
        return driver, f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{pd}"
    # the other sources' handles read the source alone, as an inline volume's do
    return inline_volume_handle({src: s})


# ------------------------------------------------------------------ topology
def _topology_key_exists(key: str, affinity: Mapping[str, Any] | None) -> bool:
    for term in ((affinity or {}).get("required") or {}).get("nodeSelectorTerms") or ():
        if any(e.get("key") == key for e in term.get("matchExpressions") or ()):
            return True
    return False


def _topology_labels(pv: Mapping[str, Any]) -> tuple[str, str]:
    # mirrors getTopologyLabel: node affinity first, then labels; GA before beta
    aff = (pv.get("spec") or {}).get("nodeAffinity")
    labels = (pv.get("metadata") or {}).get("labels") or {}
    if _topology_key_exists(ZONE_GA, aff):
        return ZONE_GA, REGION_GA
    if _topology_key_exists(ZONE_BETA, aff):
        return ZONE_BETA, REGION_BETA
    if ZONE_GA in labels:
        return ZONE_GA, REGION_GA
    if ZONE_BETA in labels:
        return ZONE_BETA, REGION_BETA
    return ZONE_GA, REGION_GA


def _topology_values(spec: Mapping[str, Any], key: str) -> list[str]:
    values: set[str] = set()
    for term in ((spec.get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms") or ():
        for e in term.get("matchExpressions") or ():
            if e.get("key") == key:
                values.update(e.get("values") or ())
    return sorted(values)


def _replace_topology(spec: dict[str, Any], old: str, new: str) -> None:
    for term in ((spec.get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms") or ():
        for e in term.get("matchExpressions") or ():
            if e.get("key") == old:
                e["key"] = new


def _add_topology(spec: dict[str, Any], key: str, zones: list[str]) -> None:
    clean = sorted({z.strip() for z in zones if z.strip()})
    if not clean:
        return  # upstream returns an error here that its caller ignores
    aff = spec.setdefault("nodeAffinity", {}) or {}
    spec["nodeAffinity"] = aff
    req = aff.setdefault("required", {}) or {}
    aff["required"] = req
    terms = req.get("nodeSelectorTerms") or [{}]
    req["nodeSelectorTerms"] = terms
    for term in terms:
        term.setdefault("matchExpressions", [])
        if term["matchExpressions"] is None:
            term["matchExpressions"] = []
        term["matchExpressions"].append({"key": key, "operator": "In", "values": clean})


def translated_pv(pv: Mapping[str, Any]) -> Mapping[str, Any]:
    """The PV as TranslateInTreePVToCSI leaves it, for node affinity checks (the source itself
    is not rewritten: only the node affinity is read afterwards)."""
    plugin = plugin_name_of_pv(pv)
    if plugin in (GCE_PD, AWS_EBS):
        pv_volume_handle(pv)  # malformed zones or volume IDs fail translation
    csi_key = _TOPOLOGY_KEY.get(plugin)
    if csi_key is None:
        return pv
    out = {"metadata": pv.get("metadata") or {}, "spec": copy.deepcopy(dict(pv.get("spec") or {}))}
    ps = out["spec"]
    zone_label, region_label = _topology_labels(pv)
    zones = _topology_values(ps, zone_label)
    if zones:
        _replace_topology(ps, zone_label, csi_key)
    else:
        label = ((pv.get("metadata") or {}).get("labels") or {}).get(zone_label)
        if label is not None:
            _add_topology(ps, csi_key, label.split(LABEL_MULTI_ZONE_DELIMITER))
    if region_label == REGION_BETA and _topology_values(ps, region_label):
        _replace_topology(ps, region_label, REGION_GA)
    return out

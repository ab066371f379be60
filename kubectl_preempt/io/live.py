"""The live cluster: kubeconfig resolved as kubectl does, paginated lists, and who preempted a pod.

This and cli/ are the only modules that import `kubernetes`. Every request it sends is a GET.

Lists go through the official client's generated methods with `_preload_content=False`, so the
body is parsed once by orjson instead of into the client's model classes (150,000 pods in
seconds, not minutes). List items come without `kind`/`apiVersion`, as from any API server; they
are put back, so the objects read here are the objects a snapshot file holds.
"""
from __future__ import annotations

import gzip
import logging
import os
import re
import stat
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, Mapping

import orjson
import yaml

from ..errors import ClusterError, InputError, quote
from ..model.limits import GO_LONGEST_DURATION_SECONDS, format_size, too_long_for_go
from ..model.limits import current as current_limits
from ..model.rfc3339 import parse_seconds
from ..model.schema import BOOL, STR, STRINGS, STRING_MAP, check_shape, list_of, map_of, obj
from ..model.bulk import bulk_allocation
from ..model.who_preempted import EVENT_REASON_PREEMPTED, event_time, pod_key, preemption_record

Progress = Callable[[str], None]

# annotation keys `capture` writes on the List it produces
ANN_CONTEXT = "kubectl-preempt/context"
ANN_SERVER_VERSION = "kubectl-preempt/server-version"
ANN_CAPTURED_AT = "kubectl-preempt/captured-at"
ANN_REDACTED = "kubectl-preempt/redacted"
ANN_NAMESPACE = "kubectl-preempt/namespace"
ANN_NOTES = "kubectl-preempt/notes"
ANN_TOOL_VERSION = "kubectl-preempt/version"

# what kube-scheduler v1.34.1 writes when it preempts a victim (preemption.go, PreemptPod)

DEFAULT_CHUNK_SIZE = 500  # kubectl's --chunk-size default
DEFAULT_CONNECT_TIMEOUT = 30.0  # client-go's dial timeout when --request-timeout is unset
DEFAULT_READ_SILENCE = 3600.0

# where a pod finds its service account; module constants so tests can point them elsewhere
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


@dataclass(frozen=True)
class ListSpec:
    """One kind the plugin lists: where it lives and how the official client names its list call."""

    kind: str
    api_version: str
    plural: str
    namespaced: bool
    required: bool  # capture fails without it; explain says what it could not read
    api: str        # the generated API class
    stem: str       # list_<stem>, list_<stem>_for_all_namespaces, list_namespaced_<stem>
    field_selector: str = ""  # lists and watches only the objects it selects
    # a custom resource most clusters lack (kube-batch's Queues and PodGroups): not served or
    # refused, it is left out without a note
    quiet: bool = False

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]


CUSTOM_OBJECTS_API = "CustomObjectsApi"

# every kind a scheduling decision reads (DESIGN.md, issue 6); order = order in the snapshot
LIST_SPECS: tuple[ListSpec, ...] = (
    ListSpec("Node", "v1", "nodes", False, True, "CoreV1Api", "node"),
    ListSpec("Pod", "v1", "pods", True, True, "CoreV1Api", "pod"),
    ListSpec("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets", True, True, "PolicyV1Api",
             "pod_disruption_budget"),
    ListSpec("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses", False, True, "SchedulingV1Api",
             "priority_class"),
    ListSpec("Namespace", "v1", "namespaces", False, False, "CoreV1Api", "namespace"),
    ListSpec("Service", "v1", "services", True, False, "CoreV1Api", "service"),
    ListSpec("ReplicationController", "v1", "replicationcontrollers", True, False, "CoreV1Api",
             "replication_controller"),
    ListSpec("ReplicaSet", "apps/v1", "replicasets", True, False, "AppsV1Api", "replica_set"),
    ListSpec("StatefulSet", "apps/v1", "statefulsets", True, False, "AppsV1Api", "stateful_set"),
    ListSpec("PersistentVolumeClaim", "v1", "persistentvolumeclaims", True, False, "CoreV1Api",
             "persistent_volume_claim"),
    ListSpec("PersistentVolume", "v1", "persistentvolumes", False, False, "CoreV1Api", "persistent_volume"),
    ListSpec("StorageClass", "storage.k8s.io/v1", "storageclasses", False, False, "StorageV1Api", "storage_class"),
    ListSpec("CSINode", "storage.k8s.io/v1", "csinodes", False, False, "StorageV1Api", "csi_node"),
    ListSpec("CSIDriver", "storage.k8s.io/v1", "csidrivers", False, False, "StorageV1Api", "csi_driver"),
    ListSpec("CSIStorageCapacity", "storage.k8s.io/v1", "csistoragecapacities", True, False, "StorageV1Api",
             "csi_storage_capacity"),
    ListSpec("VolumeAttachment", "storage.k8s.io/v1", "volumeattachments", False, False, "StorageV1Api",
             "volume_attachment"),
    ListSpec("ResourceClaim", "resource.k8s.io/v1", "resourceclaims", True, False, "ResourceV1Api",
             "resource_claim"),
    ListSpec("DeviceClass", "resource.k8s.io/v1", "deviceclasses", False, False, "ResourceV1Api", "device_class"),
    ListSpec("ResourceSlice", "resource.k8s.io/v1", "resourceslices", False, False, "ResourceV1Api",
             "resource_slice"),
    # kube-batch's Queues and PodGroups, and Volcano's (same fields), for `session` and the pods
    # kube-batch schedules (issue 15)
    ListSpec("Queue", "scheduling.incubator.k8s.io/v1alpha1", "queues", False, False, CUSTOM_OBJECTS_API, "",
             quiet=True),
    ListSpec("PodGroup", "scheduling.incubator.k8s.io/v1alpha1", "podgroups", True, False, CUSTOM_OBJECTS_API, "",
             quiet=True),
    ListSpec("Queue", "scheduling.volcano.sh/v1beta1", "queues", False, False, CUSTOM_OBJECTS_API, "", quiet=True),
    ListSpec("PodGroup", "scheduling.volcano.sh/v1beta1", "podgroups", True, False, CUSTOM_OBJECTS_API, "",
             quiet=True),
    # workload-aware scheduling (issue 32): v1.36's Workloads and PodGroups, v1.35's Workloads; alpha
    # APIs a cluster serves only with --runtime-config, left out quietly where not served
    ListSpec("Workload", "scheduling.k8s.io/v1alpha2", "workloads", True, False, CUSTOM_OBJECTS_API, "",
             quiet=True),
    ListSpec("PodGroup", "scheduling.k8s.io/v1alpha2", "podgroups", True, False, CUSTOM_OBJECTS_API, "",
             quiet=True),
    ListSpec("Workload", "scheduling.k8s.io/v1alpha1", "workloads", True, False, CUSTOM_OBJECTS_API, "",
             quiet=True),
)
SPECS_BY_KIND = {s.kind: s for s in LIST_SPECS if not s.quiet}

# why LiveCluster.skipped names an optional kind
SKIPPED_FORBIDDEN = "forbidden"
SKIPPED_NOT_SERVED = "not served"


@dataclass
class KindList:
    """One kind as read_kinds listed it."""

    spec: ListSpec
    items: list[dict]
    version: str              # the list's resourceVersion: where a watch of the kind continues
    namespace: str | None     # where it was read: None for every namespace (or a cluster-scoped kind)
_EVENT_SPEC = ListSpec("Event", "v1", "events", True, False, "CoreV1Api", "event")
# the scheduler's Preempted events ("Preempted by pod <uid> on node <node>"): record and capture
# keep them so that follow mode and explain attribute each victim to its preemptor. The scheduler
# writes them through events.k8s.io/v1; the API server serves the same objects as core/v1 Events,
# where `reason` can be selected on. Not read by explain against a live cluster (it asks for one
# pod's events when it needs them).
PREEMPTED_EVENTS = ListSpec("Event", "v1", "events", True, False, "CoreV1Api", "event",
                            field_selector=f"reason={EVENT_REASON_PREEMPTED}")
# kinds read only when asked for by name (record, capture)
EXTRA_SPECS = (PREEMPTED_EVENTS,)


# --- errors ------------------------------------------------------------------------------------

class Forbidden(ClusterError):
    """The API server refused a verb on a resource (403): names both, and the scope."""

    def __init__(self, verb: str, resource: str, namespace: str | None, server: str, detail: str = "") -> None:
        self.verb = verb
        self.resource = resource
        self.namespace = namespace
        self.server = server
        self.detail = detail
        where = f'in namespace "{namespace}"' if namespace else "at the cluster scope"
        msg = f"{server}: forbidden: cannot {verb} {resource} {where}"
        super().__init__(f"{msg} ({detail})" if detail else msg)

    @property
    def short(self) -> str:
        where = f'in namespace "{self.namespace}"' if self.namespace else "at the cluster scope"
        return f"cannot {self.verb} {self.resource} {where} (forbidden)"


class NotFound(ClusterError):
    """A GET of one named object found nothing (404)."""


class NotServed(ClusterError):
    """The server does not serve this group/version or resource (404 on a list)."""

    def __init__(self, resource: str, api_version: str, server: str) -> None:
        self.resource = resource
        self.api_version = api_version
        super().__init__(f"{server}: the server does not serve {api_version} {resource}")


# --- kubeconfig ----------------------------------------------------------------------------------

def parse_request_timeout(value: str | float | int | None, field: str = "--request-timeout") -> float | None:
    """kubectl's --request-timeout: "0" or empty means none; else a duration ("30s", "1m30s", "5").
    `field` names the flag in errors (record's --duration reads the same durations)."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        text = str(value).strip()
        if re.fullmatch(r"\d+(\.\d+)?", text):
            seconds = float(text)
        else:
            parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text)
            if not parts or "".join(n + u for n, u in parts) != text:
                raise InputError(f"invalid duration {quote(value)} (use e.g. 30s, 1m, 500ms or 0 for none)",
                                 field=field)
            unit = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
            seconds = sum(float(n) * unit[u] for n, u in parts)
    if seconds < 0:
        raise InputError("must not be negative", field=field)
    if seconds > GO_LONGEST_DURATION_SECONDS:
        # time.ParseDuration refuses it (an int64 of nanoseconds), and so does kubectl; a socket
        # timeout this long overflowed the platform's time_t with a traceback
        raise InputError(too_long_for_go(str(value)), field=field)
    return seconds or None


def kubeconfig_paths(kubeconfig: str | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The files kubectl would read: --kubeconfig alone, else every file in $KUBECONFIG, else ~/.kube/config."""
    env = os.environ if environ is None else environ
    if kubeconfig:
        return [os.path.expanduser(kubeconfig)]
    if env.get("KUBECONFIG"):
        return [os.path.expanduser(p) for p in env["KUBECONFIG"].split(os.pathsep) if p]
    return [os.path.expanduser(os.path.join("~", ".kube", "config"))]


# A kubeconfig's shape, as client-go's strict decoding into clientcmd/api/v1 reads it (types.go:
# Config, NamedCluster, NamedAuthInfo, NamedContext), as far as a connection reads it: a field of
# another type is one error naming it, not a failure inside the client (it raised TypeError and
# AttributeError on `users: true` or `context: ""`)
_EXEC_ENV = obj(name=STR, value=STR)
KUBECONFIG_SHAPE = obj(**{
    "apiVersion": STR, "kind": STR, "current-context": STR,
    "clusters": list_of(obj(name=STR, cluster=obj(**{
        "server": STR, "tls-server-name": STR, "insecure-skip-tls-verify": BOOL, "certificate-authority": STR,
        "certificate-authority-data": STR, "proxy-url": STR, "disable-compression": BOOL}))),
    "users": list_of(obj(name=STR, user=obj(**{
        "client-certificate": STR, "client-certificate-data": STR, "client-key": STR, "client-key-data": STR,
        "token": STR, "tokenFile": STR, "as": STR, "as-uid": STR, "as-groups": STRINGS,
        "as-user-extra": map_of(STRINGS), "username": STR, "password": STR,
        "auth-provider": obj(name=STR, config=STRING_MAP),
        "exec": obj(command=STR, args=STRINGS, env=list_of(_EXEC_ENV), apiVersion=STR, installHint=STR,
                    provideClusterInfo=BOOL, interactiveMode=STR)}))),
    "contexts": list_of(obj(name=STR, context=obj(cluster=STR, user=STR, namespace=STR))),
})


def _load_yaml_file(path: str) -> Mapping[str, Any]:
    from ..model.limits import check_yaml_depth
    from .snapshot import read_within_limit

    try:
        # bounded as every input file is (--max-input-size): `--kubeconfig /dev/zero` read until
        # the machine ran out of memory
        with open(path, "rb") as f:
            text = read_within_limit(f, path).decode("utf-8")
        check_yaml_depth(text, path)
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InputError(f"not a valid kubeconfig: {e}", source=path) from None
    except UnicodeDecodeError as e:
        raise InputError(f"not a valid kubeconfig: not UTF-8 text ({e.reason} at byte {e.start})", source=path) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", source=path) from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise InputError("not a valid kubeconfig: expected a mapping", source=path)
    try:
        check_shape(KUBECONFIG_SHAPE, data)
    except InputError as e:
        raise InputError(f"not a valid kubeconfig: {e.detail}", source=path, field=e.field) from None
    return data


@dataclass
class Connection:
    """An API client for one context, and what to say about it in messages and snapshots."""

    api_client: Any
    server: str
    context: str | None
    namespace: str  # the context's namespace (or the pod's own, in-cluster), else "default"
    in_cluster: bool = False
    request_timeout: float | None = None
    auth_problem: str = ""  # what the credential plugin said when it failed

    @property
    def timeout(self) -> Any:
        # an unset --request-timeout still bounds connecting, as client-go's dialer does; a read
        # timeout is per socket read (silence), so an hour is "none" without disabling it
        if self.request_timeout is None:
            return (DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_SILENCE)
        return self.request_timeout

    def close(self) -> None:
        try:
            self.api_client.close()
        except Exception:  # noqa: BLE001 - closing a pool must never mask the real outcome
            pass


def _client_configuration() -> Any:
    import urllib3
    from kubernetes import client

    cfg = client.Configuration()
    # nothing is retried, as kubectl: a refused connection is reported at once, and a read that
    # timed out is not sent again (--request-timeout means what it says)
    cfg.retries = urllib3.util.Retry(total=0, redirect=0)
    return cfg


def connect(kubeconfig: str | None = None, context: str | None = None,
            request_timeout: str | float | None = None, *, environ: Mapping[str, str] | None = None) -> Connection:
    """Resolve credentials as kubectl does and return a Connection (no request is sent yet).

    Precedence: --kubeconfig; else the files in $KUBECONFIG, merged (the first file to name a
    cluster, user, context or current-context wins); else ~/.kube/config; and when none of them
    exists, the pod's service account (in-cluster).
    """
    from kubernetes import config
    from kubernetes.config.config_exception import ConfigException

    env = os.environ if environ is None else environ
    timeout = parse_request_timeout(request_timeout)
    paths = kubeconfig_paths(kubeconfig, env)
    existing = [p for p in paths if os.path.exists(p)]
    if kubeconfig and not existing:
        raise InputError("no such file", source=kubeconfig, field="--kubeconfig")
    cfg = _client_configuration()

    if not existing:
        if env.get("KUBERNETES_SERVICE_HOST") and env.get("KUBERNETES_SERVICE_PORT"):
            if context:
                raise InputError(f'context "{context}" not found: running in-cluster without a kubeconfig',
                                 field="--context")
            return _connect_in_cluster(cfg, env, timeout)
        looked = f"looked at {', '.join(paths)}" if paths else f"$KUBECONFIG={quote(env.get('KUBECONFIG', ''))} names no file"
        raise ClusterError(f"no kubeconfig found ({looked}) and not running inside a cluster; pass --kubeconfig or "
                           "set KUBECONFIG")

    files = [(p, _load_yaml_file(p)) for p in existing]
    source = os.pathsep.join(existing)
    current = next((d.get("current-context") for _, d in files if d.get("current-context")), None)
    active = context or current
    contexts: dict[str, Mapping[str, Any]] = {}
    for _, d in files:
        for c in d.get("contexts") or ():
            if isinstance(c, Mapping) and c.get("name") and c["name"] not in contexts:
                contexts[c["name"]] = c.get("context") or {}
    if not active:
        raise InputError("no current-context is set; pass --context NAME", source=source)
    if active not in contexts:
        raise InputError(f'context "{active}" not found', source=source,
                         field="--context" if context else "current-context")
    _check_credential_files(files, contexts[active])
    # the client logs a failing credential plugin (exec) and goes on without credentials: keep
    # its words for the 401 that follows instead of letting them reach stderr on their own
    collected = _Collect()
    root = logging.getLogger()
    root.addHandler(collected)
    try:
        # the client merges the same files (first wins by name); the active context is passed
        # explicitly because its own current-context choice is the last file's, not kubectl's first
        config.load_kube_config(config_file=source, context=active, client_configuration=cfg,
                                persist_config=False)
    except ConfigException as e:
        raise InputError(f'context "{active}": {e}', source=source) from None
    except (OSError, ValueError) as e:
        raise InputError(f'context "{active}": {e}', source=source) from None
    finally:
        root.removeHandler(collected)
    api_client = _api_client(cfg)
    conn = Connection(api_client, server=cfg.host, context=active,
                      namespace=contexts[active].get("namespace") or "default",
                      request_timeout=timeout)
    conn.auth_problem = "; ".join(collected.messages)
    return conn


# the files a context's user and cluster name, which the client reads whole (client-go's
# os.ReadFile): (section, entry key, the reference to it in a context, fields naming a file)
_CREDENTIAL_FILES = (("users", "user", "user", ("tokenFile", "client-certificate", "client-key")),
                     ("clusters", "cluster", "cluster", ("certificate-authority",)))


def _check_credential_files(files: list[tuple[str, Mapping[str, Any]]], context: Mapping[str, Any]) -> None:
    """InputError naming the kubeconfig and the field when a file the context's credentials name
    is not a regular file, or holds more than the input limit: the client reads it whole, and
    `tokenFile: /dev/zero` read until the machine ran out of memory. A file that does not exist
    is left to the client, which says so. Relative paths are the kubeconfig's directory's, as
    client-go resolves them. The first file naming an entry holds it, as the client merges them."""
    from ..model.limits import current, format_size

    limit = current().max_input_bytes
    for section, key, ref, fields in _CREDENTIAL_FILES:
        name = context.get(ref)
        found = next(((path, i, entry.get(key) or {}) for path, doc in files
                      for i, entry in enumerate(doc.get(section) or ()) if entry.get("name") == name), None)
        if found is None:
            continue
        path, i, body = found
        for f in fields:
            value = body.get(f)
            if not value:
                continue
            target = os.path.join(os.path.dirname(path), os.path.expanduser(value))
            try:
                st = os.stat(target)
            except OSError:
                continue
            where = f"{section}[{i}].{key}.{f}"
            if not stat.S_ISREG(st.st_mode):
                raise InputError(f"{quote(value)} is not a regular file (the client would read it without end)",
                                 source=path, field=where)
            if st.st_size > limit:
                raise InputError(f"{quote(value)} holds more than {format_size(limit)}, the most this reads "
                                 "(--max-input-size raises it)", source=path, field=where)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(" ".join(record.getMessage().split()))


def _connect_in_cluster(cfg: Any, env: Mapping[str, str], timeout: float | None) -> Connection:
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.incluster_config import InClusterConfigLoader

    token = os.path.join(SERVICE_ACCOUNT_DIR, "token")
    ca = os.path.join(SERVICE_ACCOUNT_DIR, "ca.crt")
    try:
        InClusterConfigLoader(token_filename=token, cert_filename=ca, environ=env).load_and_set(cfg)
    except ConfigException as e:
        raise ClusterError(f"in-cluster configuration: {e} ({SERVICE_ACCOUNT_DIR})") from None
    namespace = "default"
    try:
        with open(os.path.join(SERVICE_ACCOUNT_DIR, "namespace")) as f:
            namespace = f.read().strip() or "default"
    except OSError:
        pass
    api_client = _api_client(cfg)
    return Connection(api_client, server=cfg.host, context=None, namespace=namespace, in_cluster=True,
                      request_timeout=timeout)


def _api_client(cfg: Any) -> Any:
    from kubernetes import client

    from ..version import __version__

    api_client = client.ApiClient(cfg)
    api_client.user_agent = f"kubectl-preempt/{__version__}"
    # lists of 150,000 pods are ~10x smaller compressed; urllib3 inflates them transparently
    api_client.set_default_header("Accept-Encoding", "gzip")
    return api_client


# --- reading -------------------------------------------------------------------------------------

class LiveCluster:
    """Reads one cluster through a Connection. Only GETs; every failure becomes a ClusterError."""

    def __init__(self, conn: Connection, *, chunk_size: int = DEFAULT_CHUNK_SIZE,
                 progress: Progress | None = None) -> None:
        self.conn = conn
        self.chunk_size = chunk_size
        self.progress = progress
        self._apis: dict[str, Any] = {}
        # per kind, what the last read_all covered: None all namespaces, "ns" one, False nothing
        self.scope: dict[str, str | None | bool] = {}
        # per optional kind the last read_all could not read at all: "forbidden" or "not served"
        self.skipped: dict[str, str] = {}
        # per kind the last read_all was refused (403), the refusal as the server gave it
        self.refusals: dict[str, Forbidden] = {}
        # watch streams being read, so that a recording can end them instead of leaving threads
        # blocked in a read while the interpreter shuts down
        self._streams: set[Any] = set()
        self._streams_closed = False
        self._streams_lock = threading.Lock()

    def close_streams(self) -> None:
        """End every open watch stream: its reader sees the stream end; a watch whose request is
        still on its way ends as soon as its answer comes."""
        with self._streams_lock:
            self._streams_closed = True
            streams = list(self._streams)
        for resp in streams:
            try:
                resp.shutdown() if hasattr(resp, "shutdown") else None
                resp.close()
            except Exception:  # noqa: BLE001 - best effort: the stream may be ending by itself
                pass

    # the generated API object, or None when this client release does not know the group
    def _api(self, name: str) -> Any:
        if name not in self._apis:
            from kubernetes import client

            cls = getattr(client, name, None)
            self._apis[name] = cls(self.conn.api_client) if cls is not None else None
        return self._apis[name]

    def _call(self, fn: Callable[..., Any], verb: str, resource: str, namespace: str | None,
              api_version: str, *args: Any, **kwargs: Any) -> Any:
        """One GET; returns the parsed JSON body; maps every failure to a ClusterError."""
        from kubernetes.client.exceptions import ApiException
        import urllib3

        server = self.conn.server
        what = f"{verb} {resource}" + (f' in namespace "{namespace}"' if namespace else "")
        for attempt in (1, 2):
            try:
                resp = fn(*args, _preload_content=False, _request_timeout=self.conn.timeout, **kwargs)
                try:
                    data = _read_answer(resp, server, what)
                finally:
                    resp.release_conn()
                break
            except ApiException as e:
                raise self._api_error(e, verb, resource, namespace, api_version) from None
            except urllib3.exceptions.MaxRetryError as e:
                # a kept-alive connection the server had closed: the GET is sent once more on a new
                # one, as Go's transport does for an idempotent request; refusals and timeouts are not
                if attempt == 1 and isinstance(e.reason, urllib3.exceptions.ProtocolError):
                    continue
                raise self._transport_error(e.reason, what) from None
            except urllib3.exceptions.ProtocolError as e:
                if attempt == 1:
                    continue
                raise self._transport_error(e, what) from None
            except (urllib3.exceptions.HTTPError, OSError) as e:
                raise self._transport_error(e, what) from None
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            raise ClusterError(f"{server}: {what}: the answer is not JSON") from None

    def _api_error(self, e: Any, verb: str, resource: str, namespace: str | None, api_version: str) -> ClusterError:
        server = self.conn.server
        message = ""
        try:
            body = orjson.loads(e.body) if e.body else {}
            if isinstance(body, dict):
                message = body.get("message") or ""
        except (orjson.JSONDecodeError, TypeError):
            message = (e.body.decode(errors="replace") if isinstance(e.body, bytes) else str(e.body or "")).strip()
        status = e.status
        if status == 401:
            who = f'context "{self.conn.context}"' if self.conn.context else "the service account"
            if self.conn.auth_problem:
                return ClusterError(f"{server}: unauthorized (401) to {verb} {resource}: the credential plugin of "
                                    f"{who} failed: {self.conn.auth_problem}")
            return ClusterError(f"{server}: unauthorized (401) to {verb} {resource}: the credentials of {who} "
                                "were not accepted (expired token or certificate?)")
        if status == 403:
            return Forbidden(verb, resource, namespace, server, message)
        if status == 404 and verb == "list":
            return NotServed(resource, api_version, server)
        if status == 404:
            return NotFound(f"{server}: {verb} {resource}: {message or 'not found'}")
        if status == 410:
            err = ClusterError(f"{server}: {verb} {resource}: {message or 'continue token expired (410 Gone)'}")
            err.status = 410  # type: ignore[attr-defined]
            return err
        text = f" {message}" if message else ""
        return ClusterError(f"{server}: {verb} {resource} failed: {status} {e.reason or ''}.{text}".replace(" .", "."))

    def _transport_error(self, reason: Any, what: str) -> ClusterError:
        import urllib3

        server = self.conn.server
        timeout = self.conn.request_timeout
        if isinstance(reason, urllib3.exceptions.ReadTimeoutError) or (
                isinstance(reason, urllib3.exceptions.TimeoutError)
                and not isinstance(reason, urllib3.exceptions.ConnectTimeoutError)):
            limit = f"within {timeout:g}s (--request-timeout)" if timeout else "in time"
            return ClusterError(f"{server}: the API server did not answer {what} {limit}")
        # urllib3 2 derives NewConnectionError (refused, unknown host) from ConnectTimeoutError
        if isinstance(reason, urllib3.exceptions.ConnectTimeoutError) and \
                not isinstance(reason, urllib3.exceptions.NewConnectionError):
            return ClusterError(f"{server}: timed out connecting to the API server")
        if isinstance(reason, urllib3.exceptions.SSLError):
            return ClusterError(f"{server}: TLS handshake with the API server failed: {reason}")
        text = str(reason)
        if "Connection refused" in text or "Errno 111" in text:
            text = "connection refused"
        elif "Name or service not known" in text or "nodename nor servname" in text or "Errno -2" in text:
            text = "unknown host"
        else:
            text = re.sub(r"^<[^>]+>: ", "", text)
        return ClusterError(f"cannot reach the Kubernetes API server at {server}: {text}")

    # --- lists ---------------------------------------------------------------------------------
    def _list_call(self, spec: ListSpec, namespace: str | None) -> tuple[Callable[..., Any], tuple]:
        api = self._api(spec.api)
        if api is None:
            raise NotServed(spec.plural, spec.api_version + " (not known to the installed kubernetes client)",
                            self.conn.server)
        if spec.api == CUSTOM_OBJECTS_API:
            group, version = spec.api_version.split("/")
            if spec.namespaced and namespace is not None:
                return api.list_namespaced_custom_object, (group, version, namespace, spec.plural)
            return api.list_cluster_custom_object, (group, version, spec.plural)
        if not spec.namespaced:
            return getattr(api, f"list_{spec.stem}"), ()
        if namespace is None:
            return getattr(api, f"list_{spec.stem}_for_all_namespaces"), ()
        return getattr(api, f"list_namespaced_{spec.stem}"), (namespace,)

    def list(self, spec: ListSpec, namespace: str | None = None, *, field_selector: str | None = None) -> list[dict]:
        """Every object of one kind (in one namespace, for a namespaced kind and a namespace),
        page by page, each with kind and apiVersion put back."""
        with bulk_allocation():
            return self._list(spec, namespace, field_selector)[0]

    def list_with_version(self, spec: ListSpec, namespace: str | None = None) -> tuple[list[dict], str]:
        """Like list, and the list's resourceVersion (where a watch continues from)."""
        return self._list(spec, namespace, None, show_progress=False)

    def _list(self, spec: ListSpec, namespace: str | None, field_selector: str | None, *,
              show_progress: bool = True) -> tuple[list[dict], str]:
        fn, args = self._list_call(spec, namespace if spec.namespaced else None)
        ns = namespace if spec.namespaced else None
        items: list[dict] = []
        token: str | None = None
        version = ""
        restarted = False
        while True:
            kwargs: dict[str, Any] = {"limit": self.chunk_size}
            if token:
                kwargs["_continue"] = token
            if field_selector or spec.field_selector:
                kwargs["field_selector"] = field_selector or spec.field_selector
            try:
                body = self._call(fn, "list", spec.plural, ns, spec.api_version, *args, **kwargs)
            except ClusterError as e:
                if getattr(e, "status", None) == 410 and not restarted:
                    # the continue token outlived etcd's compaction: start over for a consistent list
                    restarted, token, items = True, None, []
                    continue
                raise
            page, meta = _list_page(body, self.conn.server, f"list {spec.plural}")
            av, kind = spec.api_version, spec.kind
            items.extend({"apiVersion": av, "kind": kind, **it} for it in page)
            version = str(meta.get("resourceVersion") or version)
            token = meta.get("continue") or None
            if show_progress and self.progress is not None:
                remaining = meta.get("remainingItemCount")
                total = f" of {len(items) + remaining:,}" if isinstance(remaining, int) and token else ""
                self.progress(f"listing {spec.plural}: {len(items):,}{total}")
            if not token:
                return items, version

    def server_version(self) -> str:
        api = self._api("VersionApi")
        try:
            body = self._call(api.get_code, "get", "version", None, "")
        except (Forbidden, NotFound):
            # some proxies in front of an API server hide /version; the snapshot says so
            return "unknown"
        version = body.get("gitVersion") if isinstance(body, dict) else None
        # a /version of another shape (a proxy's page) names no release: as when it is hidden
        return version if isinstance(version, str) and version else "unknown"

    def version_info(self) -> dict:
        """The server's /version document as it answers it (gitVersion, platform, ...): what
        `kubectl preempt version` shows. Every failure is a ClusterError, refusals included."""
        api = self._api("VersionApi")
        body = self._call(api.get_code, "get", "version", None, "")
        return dict(body) if isinstance(body, dict) else {}

    def get_pod(self, namespace: str, name: str) -> dict | None:
        api = self._api("CoreV1Api")
        try:
            body = self._call(api.read_namespaced_pod, "get", "pods", namespace, "v1", name, namespace)
        except NotFound:
            return None
        if not isinstance(body, dict) or not isinstance(body.get("metadata") or {}, dict):
            raise ClusterError(f"{self.conn.server}: get pods: the answer is not a pod (a JSON object with metadata)")
        return {"apiVersion": "v1", "kind": "Pod", **{k: v for k, v in body.items() if k not in ("apiVersion", "kind")}}

    def read_all(self, namespace: str | None = None, *, strict: bool = False,
                 kinds: Iterable[str] | None = None) -> tuple[list[dict], list[str]]:
        """Every kind the scheduler reads, and notes on what could not be read (see read_kinds)."""
        reads, notes = self.read_kinds(namespace, strict=strict, kinds=kinds)
        objects: list[dict] = []
        for r in reads:
            objects.extend(r.items)
        return objects, notes

    def read_kinds(self, namespace: str | None = None, *, strict: bool = False,
                   kinds: Iterable[str] | None = None) -> tuple[list["KindList"], list[str]]:
        """Each kind the scheduler reads (in LIST_SPECS order) as listed, with the list's
        resourceVersion and where it was read; and notes on what could not be read.

        `namespace`: namespaced kinds are read there only (cluster-scoped kinds in full). Without
        it they are read in all namespaces, and when that is forbidden, in the context's namespace.
        `strict` (capture, record): a required kind that cannot be read is an error; otherwise
        (explain) refusals become notes, and only an unreachable server, bad credentials or a
        timeout stop it. Optional kinds refused or not served are left out either way, named in
        `self.skipped`.
        """
        wanted = set(kinds) if kinds is not None else None
        reads: list[KindList] = []
        notes: list[str] = []
        minor: dict[str, list[str]] = {}  # refusals that change no verdict here, said in one line each
        self.scope = {}
        self.skipped = {}
        self.refusals = {}
        extra = tuple(s for s in EXTRA_SPECS if wanted is not None and s.kind in wanted)
        for spec in LIST_SPECS + extra:
            if wanted is not None and spec.kind not in wanted:
                continue
            ns = namespace if spec.namespaced else None
            try:
                reads.append(self._read_kind(spec, ns))
                self.scope[spec.kind] = ns
                continue
            except Forbidden as e:
                refused: ClusterError = e
            except NotServed as e:
                refused = e
            if spec.quiet:
                continue
            if isinstance(refused, NotServed):
                if spec.required:
                    raise refused
                self.skipped[spec.kind] = SKIPPED_NOT_SERVED
                minor.setdefault(f"{spec.api_version} is not served by this cluster: {{}} not read", []).append(
                    spec.plural)
                continue
            # 403: a namespaced kind may still be readable in the fallback namespace
            assert isinstance(refused, Forbidden)
            self.refusals[spec.kind] = refused
            fallback = self.conn.namespace
            if strict and spec.required:
                if spec.namespaced and ns is None and fallback:
                    raise Forbidden(refused.verb, refused.resource, None, refused.server,
                                    (refused.detail + "; " if refused.detail else "")
                                    + f"with access to one namespace only, pass -n {fallback}")
                raise refused
            if spec.namespaced and ns is None and fallback:
                try:
                    reads.append(self._read_kind(spec, fallback))
                except Forbidden:
                    pass
                else:
                    self.scope[spec.kind] = fallback
                    if spec.kind in _PARTIAL_CONSEQUENCE:
                        notes.append(f"{refused.short}: read {spec.plural} in namespace \"{fallback}\" only; "
                                     + _PARTIAL_CONSEQUENCE[spec.kind])
                    else:
                        minor.setdefault(f'cannot list {{}} at the cluster scope (forbidden): read in namespace '
                                         f'"{fallback}" only', []).append(spec.plural)
                    continue
            self.scope[spec.kind] = False
            self.skipped[spec.kind] = SKIPPED_FORBIDDEN
            if spec.kind in _MISSING_CONSEQUENCE:
                notes.append(f"{refused.short}: none read; {_MISSING_CONSEQUENCE[spec.kind]}")
            else:
                where = f'in namespace "{ns}"' if ns else "at the cluster scope"
                minor.setdefault(f"cannot list {{}} {where} (forbidden): none read", []).append(spec.plural)
        for template, plurals in minor.items():
            notes.append(template.format(", ".join(plurals)))
        if namespace is not None:
            notes.insert(0, f'namespaced objects read in namespace "{namespace}" only: pods of other namespaces '
                            "that use the same nodes are missing, so nodes look emptier than they are")
        return reads, notes

    def _read_kind(self, spec: ListSpec, namespace: str | None) -> "KindList":
        with bulk_allocation():
            items, version = self._list(spec, namespace, None)
        return KindList(spec, items, version, namespace)

    def pods_visible(self, namespace: str) -> bool:
        """Whether the last read_all listed the pods of `namespace` (so a pod not found is gone)."""
        if "Pod" not in self.scope:
            return False
        scope = self.scope["Pod"]
        return scope is None or scope == namespace

    # --- who preempted my pod ------------------------------------------------------------------
    def preemption_events(self, namespace: str, name: str) -> tuple[list[dict], str | None]:
        """Preempted events recorded for a pod, oldest first; and a note if they could not be read."""
        selector = f"involvedObject.kind=Pod,involvedObject.name={name},reason={EVENT_REASON_PREEMPTED}"
        try:
            events = self.list(_EVENT_SPEC, namespace, field_selector=selector)
        except (Forbidden, NotServed) as e:
            return [], f"{e.short if isinstance(e, Forbidden) else e}: the Preempted event could not be read"
        events.sort(key=event_time)
        return events, None

    def watch(self, spec: ListSpec, resource_version: str, namespace: str | None = None, *,
              timeout_seconds: int | None = None) -> Iterator[dict]:
        """Watch events ({"type", "object"}) after `resource_version`, objects with their kind,
        until the server ends the stream."""
        from kubernetes.client.exceptions import ApiException
        import urllib3

        fn, args = self._list_call(spec, namespace if spec.namespaced else None)
        kwargs: dict[str, Any] = {"watch": True, "resource_version": resource_version,
                                  "allow_watch_bookmarks": True}
        if spec.field_selector:
            kwargs["field_selector"] = spec.field_selector
        if timeout_seconds:
            kwargs["timeout_seconds"] = timeout_seconds
        what = f"watch {spec.plural}"
        try:
            resp = fn(*args, _preload_content=False, _request_timeout=self.conn.timeout, **kwargs)
        except ApiException as e:
            raise self._api_error(e, "watch", spec.plural, namespace, spec.api_version) from None
        except urllib3.exceptions.MaxRetryError as e:
            raise self._transport_error(e.reason, what) from None
        except (urllib3.exceptions.HTTPError, OSError) as e:
            raise self._transport_error(e, what) from None
        buf = b""
        with self._streams_lock:
            self._streams.add(resp)
            closed = self._streams_closed
        if closed:  # the recording ended while this request was on its way
            with self._streams_lock:
                self._streams.discard(resp)
            resp.close()
            return
        limit = current_limits().max_input_bytes
        try:
            for chunk in resp.stream(65536):
                buf += chunk
                if len(buf) > limit and b"\n" not in buf:
                    raise ClusterError(f"{self.conn.server}: {what}: an event of more than {format_size(limit)}, "
                                       "the most this reads of one event")
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        yield _watch_event(spec, orjson.loads(line))
            if buf.strip():
                yield _watch_event(spec, orjson.loads(buf))
        except ValueError:  # orjson's JSONDecodeError too
            raise ClusterError(f"{self.conn.server}: {what}: the answer is not a stream of JSON watch events") from None
        except (urllib3.exceptions.HTTPError, OSError) as e:
            raise self._transport_error(e, what) from None
        finally:
            with self._streams_lock:
                self._streams.discard(resp)
            resp.release_conn()


def _watch_event(spec: ListSpec, event: Any) -> dict:
    if not isinstance(event, dict) or not isinstance(event.get("object"), (dict, type(None))):
        raise ValueError("a watch event is a JSON object with an object")  # worded by the caller
    obj = event.get("object")
    if isinstance(obj, dict) and event.get("type") != "ERROR" and "kind" not in obj:
        event["object"] = {"apiVersion": spec.api_version, "kind": spec.kind, **obj}
    return event


def _read_answer(resp: Any, server: str, what: str) -> bytes:
    """The body of one answer, read no further than the input limit (io/snapshot.py
    read_within_limit): a server, or a proxy before it, that never ends its answer would
    otherwise fill the memory."""
    from .snapshot import read_within_limit

    def too_big(limit: int) -> ClusterError:
        return ClusterError(f"{server}: {what}: an answer of more than {format_size(limit)}, the most this "
                            "reads of one answer")
    return read_within_limit(resp, server, too_big)


def _list_page(body: Any, server: str, what: str) -> tuple[list[dict], Mapping[str, Any]]:
    """A list answer's items and metadata, when it has a list's shape (a JSON object whose items
    are objects, as every List the API server writes): else a ClusterError, since it is the
    server's (or a proxy's) answer that is wrong, not the user's input."""
    if not isinstance(body, dict):
        raise ClusterError(f"{server}: {what}: the answer is not a list (a JSON object with items)")
    page = body.get("items") or []
    meta = body.get("metadata") or {}
    if not isinstance(page, list) or not isinstance(meta, dict):
        raise ClusterError(f"{server}: {what}: the answer is not a list (its items or metadata are of another type)")
    for i, it in enumerate(page):
        if not isinstance(it, dict) or not isinstance(it.get("metadata") or {}, dict):
            raise ClusterError(f"{server}: {what}: the answer's items[{i}] is not an object with metadata")
    return page, meta


# why a missing kind matters to a verdict, said once in the note
_MISSING_CONSEQUENCE = {
    "Node": "no node can be considered, so there is no verdict",
    "Pod": "nodes look empty and no victims can be chosen",
    "PodDisruptionBudget": "PDB violations are not counted when choosing victims",
    "PriorityClass": "priorities come from the pods' spec.priority only",
    "Namespace": "namespaceSelector terms in pod affinity match no namespace",
    "Service": "default topology spreading is not applied",
    "ReplicaSet": "default topology spreading is not applied to ReplicaSet pods",
    "StatefulSet": "default topology spreading is not applied to StatefulSet pods",
    "PersistentVolumeClaim": "pods with volume claims are reported as missing their claims",
    "PersistentVolume": "bound claims cannot be checked against node affinity and zones",
}
_PARTIAL_CONSEQUENCE = {
    "Pod": "pods of other namespaces on the same nodes are missing, so nodes look emptier than they are",
    "PodDisruptionBudget": "PDBs of other namespaces are not counted when choosing victims",
}


# --- entry points --------------------------------------------------------------------------------

@dataclass
class LiveSession:
    """A connection held open for several reads: explain, then who preempted each pod."""

    conn: Connection
    cluster: LiveCluster
    objects: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        return self.conn.namespace

    def fetch(self, fallback_namespace: str | None = None) -> tuple[list[dict], list[str]]:
        if fallback_namespace:
            self.conn.namespace = fallback_namespace
        self.objects, self.notes = self.cluster.read_all(None, strict=False)
        return self.objects, self.notes

    def has_nodes(self) -> bool:
        return any(o.get("kind") == "Node" for o in self.objects)

    def nodes_refused(self) -> Forbidden | None:
        """The refusal to list nodes, when the last fetch read none because of it."""
        return None if self.has_nodes() else self.cluster.refusals.get("Node")

    def who_preempted(self, key: str) -> tuple[dict[str, Any] | None, list[str]]:
        """The preemption record of `key` ("namespace/name") and notes; reads the pod itself
        when the lists did not hold it (namespace-only access) and its events."""
        namespace, _, name = key.partition("/")
        notes: list[str] = []
        pod = next((o for o in self.objects if o.get("kind") == "Pod" and pod_key(o) == key), None)
        if pod is None:
            try:
                pod = self.cluster.get_pod(namespace, name)
            except Forbidden as e:
                notes.append(f"{e.short}: the pod's own status could not be read")
        events, note = self.cluster.preemption_events(namespace, name)
        if note:
            notes.append(note)
        return preemption_record(pod, events, self.objects, self.cluster.pods_visible), notes

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "LiveSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_session(kubeconfig: str | None = None, context: str | None = None,
                 request_timeout: str | float | None = None, *, progress: Progress | None = None,
                 chunk_size: int = DEFAULT_CHUNK_SIZE) -> LiveSession:
    conn = connect(kubeconfig, context, request_timeout)
    return LiveSession(conn, LiveCluster(conn, progress=progress, chunk_size=chunk_size))


# capture: every kind the scheduler reads, and the Preempted events of the last hour (the API
# server's default event TTL is one hour too; older ones say nothing a snapshot shows)
CAPTURED_KINDS = tuple(s.kind for s in LIST_SPECS) + ("Event",)
EVENTS_KEPT_SECONDS = 3600


def _within(event: Mapping[str, Any], now: datetime, seconds: float) -> bool:
    t = parse_seconds(event_time(event))
    return t is None or t >= now.timestamp() - seconds


def capture(kubeconfig: str | None = None, context: str | None = None, namespace: str | None = None,
            request_timeout: str | float | None = None, *, redact: bool = True,
            progress: Progress | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE,
            now: datetime | None = None) -> tuple[dict[str, Any], list[str]]:
    """A snapshot of the live cluster: a List whose annotations say where and when it was taken.

    `namespace` limits namespaced kinds to one namespace (cluster-scoped kinds are read in full).
    A required kind (nodes, pods, PDBs, PriorityClasses) that cannot be read is a ClusterError.
    """
    from ..version import __version__
    from .redact import keeps_event, redact_objects

    conn = connect(kubeconfig, context, request_timeout)
    try:
        reader = LiveCluster(conn, progress=progress, chunk_size=chunk_size)
        version = reader.server_version()
        objects, notes = reader.read_all(namespace, strict=True, kinds=CAPTURED_KINDS)
    finally:
        conn.close()
    taken = now or datetime.now(timezone.utc)
    objects = [o for o in objects if o.get("kind") != "Event" or _within(o, taken, EVENTS_KEPT_SECONDS)]
    if redact:
        # only the Events the product reads; their list asks for those alone (a field selector),
        # but an API server or proxy that ignores the selector must not slip others in
        objects = [o for o in objects if o.get("kind") != "Event" or keeps_event(o)]
        redact_objects(objects, in_place=True)
    when = taken.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    annotations = {
        ANN_CONTEXT: conn.context or "in-cluster",
        ANN_SERVER_VERSION: version,
        ANN_CAPTURED_AT: when,
        ANN_REDACTED: "true" if redact else "false",
        ANN_TOOL_VERSION: __version__,
    }
    if namespace:
        annotations[ANN_NAMESPACE] = namespace
    if notes:
        annotations[ANN_NOTES] = "\n".join(notes)
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations}, "items": objects}
    return doc, notes


# --- writing -------------------------------------------------------------------------------------

STDOUT = "-"


def serialize(doc: Mapping[str, Any], path: str) -> bytes:
    """JSON (or YAML for .yaml/.yml), gzipped when the name ends in .gz."""
    base = path[:-3] if path.endswith(".gz") else path
    if base.endswith((".yaml", ".yml")):
        try:
            from yaml import CSafeDumper as Dumper
        except ImportError:  # pragma: no cover - PyYAML without libyaml
            from yaml import SafeDumper as Dumper  # type: ignore[assignment]
        data = yaml.dump(doc, Dumper=Dumper, default_flow_style=False, sort_keys=False).encode()
    else:
        data = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    if path.endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    return data


def write_document(doc: Mapping[str, Any], path: str, *, private: bool = False) -> None:
    """Write atomically (files.write_atomic), so a reader never sees half a snapshot and an
    interrupted capture leaves the old file as it was; a symbolic link is refused.
    `private` (an unredacted snapshot) makes the file readable by its owner only."""
    from .files import write_atomic

    write_atomic(path, serialize(doc, path), private=private)


# --- history (issue 25): the records of recent preemptions -------------------------------------

# The scheduler writes its Events through events.k8s.io/v1 and the API server serves the same
# objects as core/v1 Events: both groups are read (RBAC may grant one and not the other) and the
# join keeps each Event once, by UID. `reason` is a field selector in both groups
# (pkg/registry/core/event/strategy.go, pkg/apis/events/v1 field label conversion).
HISTORY_EVENT_SPECS = (
    ListSpec("Event", "events.k8s.io/v1", "events", True, False, "EventsV1Api", "event"),
    ListSpec("Event", "v1", "events", True, False, "CoreV1Api", "event"),
)
# kube-scheduler's Preempted (on the victim) and kube-batch's Evict (on the victim's PodGroup,
# kube-batch cache.go SchedulerCache.Evict)
HISTORY_EVENT_REASONS = (EVENT_REASON_PREEMPTED, "Evict")


@dataclass
class HistoryRead:
    """What `history` read live: Events and pods as objects, and what it could not read."""

    objects: list[dict]
    notes: list[str]
    events_read: bool
    pods_read: bool
    events_refused: str = ""  # which permission is missing, when no Event could be read
    pods_refused: str = ""
    pods_namespace: str | None = None  # where pods were listed: None for every namespace

    def pods_visible(self, namespace: str) -> bool:
        """Whether every pod of `namespace` ("" for all) was read, so that one not found is gone."""
        return self.pods_read and (self.pods_namespace is None or namespace == self.pods_namespace)


def _group_name(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def read_history(cluster: LiveCluster, namespace: str | None) -> HistoryRead:
    """The Preempted and Evict Events (both API groups) and the pods, in `namespace` or every
    namespace; and the preemptors that Events name in other namespaces, each by a GET. GETs only."""
    objects: list[dict] = []
    notes: list[str] = []
    refused: list[Forbidden] = []
    events_read = False
    for spec in HISTORY_EVENT_SPECS:
        try:
            for reason in HISTORY_EVENT_REASONS:
                objects.extend(cluster.list(spec, namespace, field_selector=f"reason={reason}"))
            events_read = True
        except Forbidden as e:
            refused.append(e)
        except NotServed:
            notes.append(f"{spec.api_version} events are not served by this cluster: read through the other group")
    events_refused = ""
    if not events_read:
        where = f'in namespace "{namespace}"' if namespace else "at the cluster scope"
        if refused:
            groups = " nor ".join(f'"{_group_name(s.api_version)}"' for s in HISTORY_EVENT_SPECS)
            events_refused = (f"{cluster.conn.server}: forbidden: cannot list events {where} (API group {groups}): "
                              "the Preempted Events could not be read; grant list on events in either group")
        else:
            events_refused = f"{cluster.conn.server}: events are not served by this cluster"
    pods_read = False
    pods_refused = ""
    pods: list[dict] = []
    try:
        pods = cluster.list(SPECS_BY_KIND["Pod"], namespace)
        pods_read = True
    except Forbidden as e:
        pods_refused = str(e)
    objects.extend(pods)
    if pods_read and namespace is not None:
        # a preemptor may be in another namespace than its victims: the Event's `related` names it
        have = {(o.get("metadata") or {}).get("uid") for o in pods}
        wanted: dict[tuple[str, str], str] = {}
        for ev in objects:
            rel = ev.get("related") if ev.get("kind") == "Event" else None
            if isinstance(rel, Mapping) and rel.get("name") and rel.get("uid") not in have:
                wanted.setdefault((rel.get("namespace") or "default", rel["name"]), rel.get("uid") or "")
        for (ns, name), uid in sorted(wanted.items()):
            try:
                pod = cluster.get_pod(ns, name)
            except Forbidden:
                continue
            if pod is not None and (not uid or (pod.get("metadata") or {}).get("uid") == uid):
                objects.append(pod)
    return HistoryRead(objects, notes, events_read, pods_read, events_refused, pods_refused, namespace)

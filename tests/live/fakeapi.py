"""A loopback Kubernetes API server for tests: just enough REST for the plugin's reads.

It serves fixture objects the way a real API server does: list responses carry `kind: PodList`
and `metadata.resourceVersion`, their items have no kind or apiVersion, and `limit` pages are
joined by opaque `continue` tokens (with `remainingItemCount`). Single GETs return the object
with its kind. `?watch=1` streams scripted events as chunked JSON lines. Field selectors work on
any dotted path (`involvedObject.name=web-0,reason=Preempted`).

Tests steer it with `fail(...)` (401/403/404/410/500 by resource and scope), `answer(...)` (a 200
whose body is given as it is), `delay(...)` (slow answers), `authorize` (an RBAC stand-in: `(verb, resource, namespace) -> bool`) and
`disable_group(...)` (an API group the server does not serve). Every request is recorded in
`requests`, so a test can assert that nothing but GET was ever sent.
"""
from __future__ import annotations

import base64
import gzip
import copy
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import parse_qs, urlsplit

import yaml

# (group/version, plural) -> (kind, namespaced)
RESOURCES: dict[tuple[str, str], tuple[str, bool]] = {
    ("v1", "nodes"): ("Node", False),
    ("v1", "pods"): ("Pod", True),
    ("v1", "namespaces"): ("Namespace", False),
    ("v1", "events"): ("Event", True),
    # the same kind through its own group (an object added with this apiVersion is served here only)
    ("events.k8s.io/v1", "events"): ("Event", True),
    ("v1", "services"): ("Service", True),
    ("v1", "replicationcontrollers"): ("ReplicationController", True),
    ("v1", "persistentvolumeclaims"): ("PersistentVolumeClaim", True),
    ("v1", "persistentvolumes"): ("PersistentVolume", False),
    ("policy/v1", "poddisruptionbudgets"): ("PodDisruptionBudget", True),
    ("scheduling.k8s.io/v1", "priorityclasses"): ("PriorityClass", False),
    ("apps/v1", "replicasets"): ("ReplicaSet", True),
    ("apps/v1", "statefulsets"): ("StatefulSet", True),
    ("storage.k8s.io/v1", "storageclasses"): ("StorageClass", False),
    ("storage.k8s.io/v1", "csinodes"): ("CSINode", False),
    ("storage.k8s.io/v1", "csidrivers"): ("CSIDriver", False),
    ("storage.k8s.io/v1", "csistoragecapacities"): ("CSIStorageCapacity", True),
    ("storage.k8s.io/v1", "volumeattachments"): ("VolumeAttachment", False),
    ("resource.k8s.io/v1", "resourceclaims"): ("ResourceClaim", True),
    ("resource.k8s.io/v1", "deviceclasses"): ("DeviceClass", False),
    ("resource.k8s.io/v1", "resourceslices"): ("ResourceSlice", False),
    # kube-batch's and Volcano's custom resources
    ("scheduling.incubator.k8s.io/v1alpha1", "queues"): ("Queue", False),
    ("scheduling.incubator.k8s.io/v1alpha1", "podgroups"): ("PodGroup", True),
    ("scheduling.volcano.sh/v1beta1", "queues"): ("Queue", False),
    ("scheduling.volcano.sh/v1beta1", "podgroups"): ("PodGroup", True),
    # workload-aware scheduling's alpha APIs (v1.36, v1.35)
    ("scheduling.k8s.io/v1alpha2", "workloads"): ("Workload", True),
    ("scheduling.k8s.io/v1alpha2", "podgroups"): ("PodGroup", True),
    ("scheduling.k8s.io/v1alpha1", "workloads"): ("Workload", True),
}
KIND_TO_RESOURCE: dict[str, tuple[str, str]] = {}
for (_gv, _plural), (_kind, _) in RESOURCES.items():
    KIND_TO_RESOURCE.setdefault(_kind, (_gv, _plural))

VERSION_INFO = {"major": "1", "minor": "34", "gitVersion": "v1.34.1", "gitCommit": "0" * 40,
                "gitTreeState": "clean", "buildDate": "2025-09-09T00:00:00Z", "goVersion": "go1.24.6",
                "compiler": "gc", "platform": "linux/amd64"}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]

    @property
    def resource(self) -> str | None:
        return parse_path(self.path)[1] if parse_path(self.path) else None


@dataclass
class Rule:
    """Answer matching requests with `status` (and optionally wait `delay` seconds first)."""

    resource: str | None = None          # plural, e.g. "pods"; None matches every path
    namespace: str | None | bool = True  # True: any scope; None: cluster scope only; "ns": that one
    status: int | None = None
    delay: float = 0.0
    times: int | None = None             # how many requests it applies to; None: all
    when: Callable[["Request"], bool] | None = None
    body: bytes | None = None            # answer 200 with these bytes instead (a server gone wrong)
    used: int = 0

    def matches(self, req: Request, parsed: tuple | None) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.resource is not None:
            if parsed is None or parsed[1] != self.resource:
                if not (self.resource == "version" and req.path.rstrip("/") == "/version"):
                    return False
        if self.namespace is not True and parsed is not None:
            if parsed[2] != self.namespace:
                return False
        if self.when is not None and not self.when(req):
            return False
        return True


def parse_path(path: str) -> tuple[str, str, str | None, str | None] | None:
    """(group/version, plural, namespace, name) of an API path, or None."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        return None
    if parts[0] == "api" and len(parts) >= 3:
        gv, rest = parts[1], parts[2:]
    elif parts[0] == "apis" and len(parts) >= 4:
        gv, rest = f"{parts[1]}/{parts[2]}", parts[3:]
    else:
        return None
    ns = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        ns, rest = rest[1], rest[2:]
    if len(rest) == 1:
        return gv, rest[0], ns, None
    if len(rest) == 2:
        if rest[0] == "namespaces" and ns is None:
            return gv, "namespaces", None, rest[1]
        return gv, rest[0], ns, rest[1]
    return None


def _lookup(obj: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = obj
    for part in dotted.split("."):
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(part)
    return cur


def field_selector_matches(obj: Mapping[str, Any], selector: str) -> bool:
    for term in filter(None, (t.strip() for t in selector.split(","))):
        if "!=" in term:
            k, v = term.split("!=", 1)
            if str(_lookup(obj, k) or "") == v:
                return False
        else:
            k, v = term.split("==", 1) if "==" in term else term.split("=", 1)
            if str(_lookup(obj, k) or "") != v:
                return False
    return True


def status_body(code: int, reason: str, message: str, details: Mapping[str, Any] | None = None) -> dict:
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}
    if details:
        body["details"] = dict(details)
    return body


_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
            410: "Expired", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable"}


class _QuietServer(ThreadingHTTPServer):
    """A client that gave up (--request-timeout) closes its end while a delayed answer is still to
    be written: socketserver would print that BrokenPipeError's traceback to sys.stderr, where the
    test of the client's one-line error reads it. The client's behaviour is what is tested."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class FakeAPIServer:
    """Start with `with FakeAPIServer(objects) as api:`; `api.url`, `api.kubeconfig(path)`."""

    def __init__(self, objects: Iterable[Mapping[str, Any]] = (), *, token: str = "t0ken",
                 user: str = "jane", tls: tuple[str, str] | None = None) -> None:
        self.tls = tls  # (certfile, keyfile): serve HTTPS, as an in-cluster client insists on
        self.token = token
        self.user = user
        self.store: dict[tuple[str, str], list[dict]] = {}
        self.requests: list[Request] = []
        self.rules: list[Rule] = []
        self.disabled_groups: set[str] = set()
        self.authorize: Callable[[str, str, str | None], bool] = lambda verb, resource, ns: True
        self.watch_events: dict[str, list[tuple[Any, str, Mapping[str, Any]]]] = {}
        self.sent: dict[str, int] = {}  # scripted watch events written, per plural
        self._sent_cond = threading.Condition()
        self.resource_version = 1000
        self.version_info = dict(VERSION_INFO)
        self.expire_continue = False
        self._lock = threading.Lock()
        self._sorted: dict[tuple, list[dict]] = {}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        for obj in objects:
            self.add(obj)

    # --- fixture -----------------------------------------------------------------------------
    def add(self, obj: Mapping[str, Any]) -> None:
        kind = obj["kind"]
        gv, plural = KIND_TO_RESOURCE[kind]
        # a kind served by several groups (Queue, PodGroup) goes where its apiVersion says
        if (obj.get("apiVersion"), plural) in RESOURCES:
            gv = obj["apiVersion"]
        o = copy.deepcopy(dict(obj))
        md = o.setdefault("metadata", {})
        self.resource_version += 1
        md.setdefault("resourceVersion", str(self.resource_version))
        md.setdefault("uid", f"uid-{kind.lower()}-{md.get('namespace', '')}-{md['name']}")
        if RESOURCES[(gv, plural)][1]:
            md.setdefault("namespace", "default")
        self.store.setdefault((gv, plural), []).append(o)
        self._sorted.clear()

    def fail(self, resource: str | None, status: int, *, namespace: str | None | bool = True,
             times: int | None = None, when: Callable[[Request], bool] | None = None) -> Rule:
        rule = Rule(resource=resource, namespace=namespace, status=status, times=times, when=when)
        self.rules.append(rule)
        return rule

    def answer(self, resource: str | None, body: bytes, *, times: int | None = None) -> Rule:
        """Answer 200 with `body` as it is (a proxy's page, a list of another shape, ...)."""
        rule = Rule(resource=resource, body=body, times=times)
        self.rules.append(rule)
        return rule

    def delay(self, resource: str | None, seconds: float, *, namespace: str | None | bool = True,
              times: int | None = None) -> Rule:
        rule = Rule(resource=resource, namespace=namespace, delay=seconds, times=times)
        self.rules.append(rule)
        return rule

    def disable_group(self, group_version: str) -> None:
        self.disabled_groups.add(group_version)

    def namespace_only(self, *namespaces: str) -> None:
        """RBAC as a RoleBinding in `namespaces` grants: namespaced reads there, nothing else."""
        allowed = set(namespaces)
        self.authorize = lambda verb, resource, ns: ns is not None and ns in allowed

    def script_watch(self, plural: str, events: Iterable[tuple[Any, str, Mapping[str, Any]]]) -> None:
        """Events a `?watch=1` on `plural` streams: (seconds to wait first, type, object). The wait
        may instead be a callable that returns when the event may go, for an order between two
        watches that must not depend on when each watch happened to start. A type of None sends
        the object (bytes) as it is."""
        self.watch_events[plural] = list(events)

    def after_sent(self, plural: str, count: int = 1, then: float = 0.3, timeout: float = 10.0) -> Callable[[], None]:
        """A watch wait: until `count` scripted events of `plural` have been written, then `then` seconds."""
        def wait() -> None:
            with self._sent_cond:
                self._sent_cond.wait_for(lambda: self.sent.get(plural, 0) >= count, timeout)
            time.sleep(then)
        return wait

    @property
    def methods(self) -> set[str]:
        return {r.method for r in self.requests}

    def requests_for(self, resource: str) -> list[Request]:
        return [r for r in self.requests if r.resource == resource]

    # --- lifecycle ---------------------------------------------------------------------------
    def __enter__(self) -> "FakeAPIServer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        server = self

        class Handler(_Handler):
            api = server

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        if self.tls is not None:
            import ssl

            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*self.tls)
            self._httpd.socket = ctx.wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def kubeconfig(self, path: str | Path, *, context: str = "fake", namespace: str | None = None,
                   token: str | None = None, server: str | None = None,
                   extra_contexts: Iterable[str] = ()) -> Path:
        """Write a kubeconfig whose current context points at this server."""
        ctx: dict[str, Any] = {"cluster": "fake-cluster", "user": "fake-user"}
        if namespace:
            ctx["namespace"] = namespace
        cfg = {
            "apiVersion": "v1", "kind": "Config", "current-context": context,
            "clusters": [{"name": "fake-cluster", "cluster": {"server": server or self.url}}],
            "users": [{"name": "fake-user", "user": {"token": token or self.token}}],
            "contexts": [{"name": context, "context": ctx}]
                        + [{"name": c, "context": dict(ctx)} for c in extra_contexts],
        }
        p = Path(path)
        p.write_text(yaml.safe_dump(cfg))
        return p

    # --- serving -----------------------------------------------------------------------------
    def next_rv(self) -> str:
        with self._lock:
            self.resource_version += 1
            return str(self.resource_version)

    def list_items(self, gv: str, plural: str, ns: str | None, selector: str | None) -> list[dict]:
        key = (gv, plural, ns)
        with self._lock:
            items = self._sorted.get(key)
            if items is None:
                items = self.store.get((gv, plural), [])
                if ns is not None:
                    items = [o for o in items if o["metadata"].get("namespace") == ns]
                # etcd returns keys in order: /registry/<plural>/<namespace>/<name>
                items = sorted(items, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
                self._sorted[key] = items
        if selector:
            items = [o for o in items if field_selector_matches(o, selector)]
        return items


def _strip_type(obj: Mapping[str, Any]) -> dict:
    return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}


def _encode_continue(rv: str, offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"rv": rv, "start": offset}).encode()).decode()


def _decode_continue(token: str) -> tuple[str, int]:
    d = json.loads(base64.urlsafe_b64decode(token.encode()))
    return d["rv"], int(d["start"])


class _Handler(BaseHTTPRequestHandler):
    api: FakeAPIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without this, Nagle's algorithm and the client's
        # delayed ACK hold every answer back 40 ms
        import socket

        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # every method lands here, so that tests can see a write if one were ever sent
    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _send_json(self, code: int, body: Any, content_type: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        if "gzip" in (self.headers.get("Accept-Encoding") or "") and len(data) > 128:
            # as the API server does for large answers when the client accepts it
            data = gzip.compress(data)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_status(self, code: int, message: str, details: Mapping[str, Any] | None = None) -> None:
        self._send_json(code, status_body(code, _REASONS.get(code, "Unknown"), message, details))

    def _serve(self, method: str) -> None:
        api = self.api
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        split = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        req = Request(method, split.path, query, {k: v for k, v in self.headers.items()})
        with api._lock:
            api.requests.append(req)
        parsed = parse_path(split.path)

        scheme, _, credential = (self.headers.get("Authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or credential.strip() != api.token:
            self._send_status(401, "Unauthorized")
            return

        for rule in api.rules:
            if rule.matches(req, parsed):
                rule.used += 1
                if rule.delay:
                    time.sleep(rule.delay)
                if rule.body is not None:
                    self._send_json(200, rule.body)
                    return
                if rule.status is not None:
                    plural = parsed[1] if parsed else split.path
                    self._send_status(rule.status, f"injected {rule.status} for {plural}", {"kind": plural})
                    return

        if method != "GET":
            self._send_status(405, f"the fake API server serves only GET, not {method}")
            return

        if split.path.rstrip("/") == "/version":
            self._send_json(200, api.version_info)
            return
        if parsed is None or parsed[0] in api.disabled_groups or (parsed[0], parsed[1]) not in RESOURCES:
            # what a real API server answers for a group/version it does not serve
            self._send_json(404, b"404 page not found\n", "text/plain; charset=utf-8")
            return

        gv, plural, ns, name = parsed
        kind, namespaced = RESOURCES[(gv, plural)]
        group = gv.split("/")[0] if "/" in gv else ""
        watching = query.get("watch") in ("1", "true")
        verb = "get" if name else ("watch" if watching else "list")
        if not api.authorize(verb, plural, ns if namespaced else None):
            scope = f'in the namespace "{ns}"' if ns else "at the cluster scope"
            what = f'resource "{plural}"'
            msg = (f'{plural} "{name}" is forbidden: ' if name else f"{plural} is forbidden: ") + \
                  f'User "{api.user}" cannot {verb} {what} in API group "{group}" {scope}'
            details = {"kind": plural, **({"name": name} if name else {})}
            self._send_status(403, msg, details)
            return

        if name:
            for o in api.list_items(gv, plural, ns if namespaced else None, None):
                if o["metadata"]["name"] == name:
                    self._send_json(200, {"apiVersion": gv, "kind": kind, **_strip_type(o)})
                    return
            self._send_status(404, f'{plural} "{name}" not found', {"name": name, "kind": plural})
            return

        if watching:
            self._stream_watch(gv, kind, plural, ns)
            return

        items = api.list_items(gv, plural, ns, query.get("fieldSelector"))
        rv = str(api.resource_version)
        start = 0
        if query.get("continue"):
            if api.expire_continue:
                api.expire_continue = False
                self._send_status(410, "The provided continue parameter is too old to display a consistent "
                                       "list result. You can start a new list without the continue parameter.")
                return
            rv, start = _decode_continue(query["continue"])
        limit = int(query.get("limit") or 0)
        end = len(items) if limit <= 0 else min(len(items), start + limit)
        meta: dict[str, Any] = {"resourceVersion": rv}
        if end < len(items):
            meta["continue"] = _encode_continue(rv, end)
            meta["remainingItemCount"] = len(items) - end
        body = {"kind": f"{kind}List", "apiVersion": gv, "metadata": meta,
                "items": [_strip_type(o) for o in items[start:end]]}
        self._send_json(200, body)

    def _stream_watch(self, gv: str, kind: str, plural: str, ns: str | None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        try:
            for wait, etype, obj in self.api.watch_events.get(plural, []):
                if callable(wait):
                    wait()
                elif wait:
                    time.sleep(wait)
                if etype is None:  # bytes sent as they are (a stream gone wrong)
                    chunk(obj)
                    continue
                o = {"apiVersion": gv, "kind": kind, **_strip_type(obj)}
                if ns is not None and (o.get("metadata") or {}).get("namespace") != ns:
                    continue
                chunk(json.dumps({"type": etype, "object": o}).encode() + b"\n")
                with self.api._sent_cond:
                    self.api.sent[plural] = self.api.sent.get(plural, 0) + 1
                    self.api._sent_cond.notify_all()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

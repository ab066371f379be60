"""Entry points of the library: plain data in, plain data out, nothing printed.

Each command's request lives in its own package (explain/, replay/, check/, plan/, history/,
batch/ for kube-batch's session, io/ for capture, record and the live cluster's small reads);
this module is the short list of their doors, the one place the process's garbage-collector
policy is applied to long requests, and what the command line may import (tests/test_layering.py:
cli/ imports nothing of the package but api, render and errors).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Mapping

from .model.bulk import decision_work, long_work


def _long_work(request: Callable[..., Any]) -> Callable[..., Any]:
    """A request that may run long, under the process's one garbage-collector policy
    (model/bulk.py long_work): applied here, once, and nowhere below."""
    @functools.wraps(request)
    def run(*args: Any, **kwargs: Any) -> Any:
        with long_work():
            return request(*args, **kwargs)
    return run


def _decision_work(request: Callable[..., Any]) -> Callable[..., Any]:
    """An explain request, under the same policy for a heap its loader froze (model/bulk.py
    decision_work)."""
    @functools.wraps(request)
    def run(*args: Any, **kwargs: Any) -> Any:
        with decision_work():
            return request(*args, **kwargs)
    return run


# --- the library's requests: plain data in, the document out --------------------------------------

from .explain.request import explain as _explain, explain_pods as _explain_pods, pending_pods  # noqa: E402,F401
explain = _decision_work(_explain)  # explain(cluster, pod, ...) -> document, see explain/request.py
explain_pods = _decision_work(_explain_pods)  # several pods in one scheduler, see explain/request.py
from .explain.live import who_preempted  # noqa: E402,F401 - who preempted a pod, from what the cluster recorded
from .batch.request import batch_session, batch_session_runs, explain_batch  # noqa: E402,F401 - kube-batch's session
from .history.request import preemption_history  # noqa: E402,F401 - what got preempted, see history/request.py
from .replay.api import replay as _replay  # noqa: E402
from .check.api import check as _check  # noqa: E402
from .plan.api import plan as _plan  # noqa: E402
from .plan.capacity import plan_max as _plan_max  # noqa: E402

replay = _long_work(_replay)  # replay(events, ...) -> report, see replay/api.py
check = _long_work(_check)  # check(traces, proposed, ...) -> gate result, see check/api.py
plan = _long_work(_plan)  # plan(objects, manifests, scale, ...) -> report, see plan/api.py
plan_max = _long_work(_plan_max)  # plan_max(objects, manifest, ...) -> report, see plan/capacity.py


def replay_html(report: Mapping[str, Any], trace: Any, activity: Any = None, *, label: str = "") -> str:
    """The HTML page of one replay: `trace` is what replay() replayed, `activity` the
    replay.activity.ActivityRecorder it was given as listener (simulate mode)."""
    from .render.html import render_html
    from .replay.view import build_view

    return render_html([(label, report, build_view(report, trace, activity))])


def check_html(check_report: Mapping[str, Any], traces: Mapping[str, Any], proposed: Any, *,
               sources: Any = None, baseline: Any = None, config: Any = None, seed: int = 0,
               kubernetes_version: Any = None, feature_gates: Any = None) -> str:
    """The HTML page of a `check`: per trace, the baseline replay above the proposed one."""
    from .check.page import check_page_runs
    from .render.html import render_html

    runs, title = check_page_runs(check_report, traces, proposed, sources=sources, baseline=baseline,
                                  config=config, seed=seed, kubernetes_version=kubernetes_version,
                                  feature_gates=feature_gates)
    return render_html(runs, title=title)


# --- the command line's requests: each command's inputs read, the release resolved once ----------

from .explain.inputs import (NOTHING_TO_EXPLAIN, ExplainInputs, check_requests, explain_inputs,  # noqa: E402,F401
                             other_type, pods_to_explain, strip_pod_prefix, workload_notes)
from .explain.live import LiveExplainRead, live_explain_read, pod_arg_key  # noqa: E402,F401
from .explain.door import ExplainResult, explain_request as _explain_request  # noqa: E402,F401
explain_request = _decision_work(_explain_request)  # explain's one door
from .batch.request import read_scheduler_conf, require_batch_pods, session_request  # noqa: E402,F401
from .batch.cache.cache import BATCH_KINDS  # noqa: E402,F401 - the kinds kube-batch reads besides the scheduler's
from .replay.request import (ReplayResult, bundled_file, bundled_trace, decision_case_writer,  # noqa: E402,F401
                             load_priority_class_files, read_replay_trace)
from .replay.request import replay_request as _replay_request  # noqa: E402
from .check.request import CheckInputs, CheckResult, check_inputs  # noqa: E402,F401
from .check.request import check_request as _check_request  # noqa: E402
from .history.request import history_request  # noqa: E402,F401
from .plan.request import PlanInputs, PlanResult, plan_inputs  # noqa: E402,F401
from .plan.request import plan_request as _plan_request  # noqa: E402
from .io.release import data_server_version, scheduler_version  # noqa: E402,F401
from .io.requests import (BundledDemo, Captured, bundled_demo, capture_snapshot,  # noqa: E402,F401
                          default_snapshot_filename, kubeconfig_paths, live_namespace_names, live_pod_names,
                          record_duration, record_summary, record_trace, server_version_document,
                          server_version_info, snapshot_context, snapshot_summary)
from .io.record import record  # noqa: E402,F401 - record(...) a trace from the live cluster, see io/record.py

# --- what the command line names beside the requests: flags' vocabularies, defaults, files --------

from .check.policy import DEFAULT_FAIL_ON, FAIL_ON, Policy  # noqa: E402,F401 - check's --fail-on rules
from .framework.versions import (DEFAULT, SUPPORTED, KubernetesVersion, Resolved,  # noqa: E402,F401
                                 parse_feature_gates, resolve_kubernetes_version)
from .io import bundled, live  # noqa: E402,F401 - traces/ and examples/ in every install; the live cluster
from .io.files import STDOUT, is_private, prepare_directory, refuse_link, write_atomic  # noqa: E402,F401
from .io.snapshot import (display_name, load_config, load_config_document, load_manifests,  # noqa: E402,F401
                          load_objects, pod_key, read_bytes)
from .io.trace import Trace, read_trace  # noqa: E402,F401
from .model import limits  # noqa: E402,F401 - the input limits the flags override (--max-input-size, ...)
from .model.cluster import Cluster  # noqa: E402,F401
from .model.rfc3339 import format_seconds, parse_seconds  # noqa: E402,F401
from .model.selectors import LabelSelector, parse_selector  # noqa: E402,F401
from .scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY  # noqa: E402,F401 - --api-latency's default
from .version import KUBERNETES_VERSION, KUBERNETES_VERSIONS, __version__  # noqa: E402,F401

def _paged(request: Callable[..., Any], page: Callable[[Any], str]) -> Callable[..., Any]:
    """A command's request whose result renders its HTML page on demand (`result.page()`): the
    request's package may not import render, api may."""
    @functools.wraps(request)
    def run(*args: Any, **kwargs: Any) -> Any:
        result = request(*args, **kwargs)
        result.page = functools.partial(page, result)
        return result
    return run


check_request = _paged(_long_work(_check_request), lambda r: check_html(
    r.report, r.inputs.traces, r.inputs.classes, sources=r.inputs.sources, baseline=r.inputs.baseline,
    config=r.inputs.config, seed=r.seed, kubernetes_version=r.kubernetes_version, feature_gates=r.feature_gates))
replay_request = _paged(_long_work(_replay_request), lambda r: replay_html(r.report, r.trace))
plan_request = _paged(_long_work(_plan_request), lambda r: replay_html(r.report, r.trace))

# --- the doors: the one call each command of the CLI makes (tests/test_cli_doors.py) --------------

DOORS = ("explain_request", "replay_request", "check_request", "plan_request", "history_request",
         "session_request", "capture_snapshot", "record_trace", "server_version_document", "bundled_demo")
# what a command may call besides its door: parsing its flags, and writing a finished output
HELPERS = ("parse_feature_gates", "parse_selector", "strip_pod_prefix", "limits.parse_span", "limits.too_long_for_go",
           "parse_seconds", "format_seconds", "write_atomic")

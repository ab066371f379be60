"""kubectl preempt version: the plugin's version, the kube-scheduler releases it imitates, and
the cluster's, as `kubectl version` shows client and server (kubectl pkg/cmd/version/version.go:
"Client Version: ...", "Server Version: ...", -o json|yaml, --client)."""
from __future__ import annotations

import json
import platform
import sys
from typing import Annotated, Any, Optional

import typer
import yaml

from ..errors import ClusterError, UsageError, quote
from .. import api
from ..api import DEFAULT, SUPPORTED, __version__
from . import options
from .common import guard, write_output

FORMATS = ("json", "yaml")   # as kubectl version's -o
# the CPU as Go names it (runtime.GOARCH), as kubectl's platform field does
_ARCH = {"x86_64": "amd64", "AMD64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i686": "386", "armv7l": "arm"}

HELP = """Print the version of kubectl-preempt, the kube-scheduler releases it imitates, and the
version of the cluster's API server with the release `explain` imitates for it.

Without a cluster (--client), only the first two; a cluster that cannot be reached ends the
command with exit 3 after the client's part is printed, as kubectl version does."""

EPILOG = """\b
Examples:
  # client and server
  kubectl preempt version
\b
  # the plugin alone, as data
  kubectl preempt version --client -o json"""


def register(app: typer.Typer) -> None:
    app.command("version", help=HELP, epilog=EPILOG)(version)


def client_document() -> dict[str, Any]:
    return {
        "clientVersion": {
            "gitVersion": __version__,
            "pythonVersion": platform.python_version(),
            "platform": f"{platform.system().lower()}/{_ARCH.get(platform.machine(), platform.machine().lower())}",
        },
        "kubeSchedulerVersions": [v.name for v in SUPPORTED],
        "defaultKubeSchedulerVersion": DEFAULT.name,
    }


def _text(doc: dict[str, Any]) -> str:
    releases = ", ".join(v + (" (default)" if v == doc["defaultKubeSchedulerVersion"] else "")
                         for v in doc["kubeSchedulerVersions"])
    lines = [f"Client Version: {doc['clientVersion']['gitVersion']}",
             f"Kube-scheduler Versions: {releases}"]
    if "serverVersion" in doc:
        lines.append(f"Server Version: {doc['serverVersion'].get('gitVersion') or 'unknown'}")
        imitated = f"Imitated Kube-scheduler Version: {doc['imitatedKubeSchedulerVersion']}"
        note = doc.get("imitatedKubeSchedulerNote")
        if note:
            imitated += f" ({note.rpartition(', ')[2]})"
        lines.append(imitated)
    return "\n".join(lines) + "\n"


def _render(doc: dict[str, Any], output: Optional[str]) -> str:
    if output == "json":
        return json.dumps(doc, indent=2) + "\n"
    if output == "yaml":
        return yaml.safe_dump(doc, sort_keys=False)
    return _text(doc)


def _output(value: Optional[str]) -> Optional[str]:
    if value is not None and value not in FORMATS:
        raise typer.BadParameter(f"{quote(value)} is not one of {', '.join(FORMATS)}")
    return value


@guard
def version(
    client: Annotated[bool, typer.Option("--client", help="The plugin's versions only; no cluster is read.")] = False,
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", metavar="|".join(FORMATS), callback=_output, show_default=False,
        help="Output format: json or yaml (default: text lines, as kubectl version).")] = None,
    context: options.Context = None,
    kubeconfig: options.Kubeconfig = None,
    request_timeout: options.RequestTimeout = None,
) -> None:
    if client and (context is not None or kubeconfig is not None or request_timeout is not None):
        raise UsageError("--context, --kubeconfig and --request-timeout are for the cluster; they do not apply "
                         "to --client")
    doc = client_document()
    failure: Optional[ClusterError] = None
    if not client:
        try:
            doc.update(api.server_version_document(context, kubeconfig, request_timeout))
        except ClusterError as err:
            failure = err
    write_output(_render(doc, output))
    if failure is not None:
        sys.stdout.flush()
        raise failure

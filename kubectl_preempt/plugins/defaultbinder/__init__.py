"""DefaultBinder: binding is what replay does when it places a pod; nothing to decide here."""
from __future__ import annotations

from typing import Any, Mapping

from ...framework.status import SUCCESS, Status

NAME = "DefaultBinder"


class DefaultBinder:
    name = NAME

    def bind(self, state: Any, pod: Any, node_name: str) -> Status:
        return SUCCESS


def new(args: Mapping[str, Any], handle: Any) -> DefaultBinder:
    return DefaultBinder()

"""mirrors kube-batch's framework/interface.go: what every plugin is (Plugin) and is made from
(its tier's arguments)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .session import Session


class Plugin:
    """mirrors framework.Plugin: Name, OnSessionOpen, OnSessionClose. Each plugin's New keeps
    its arguments (pluginArguments); OnSessionClose does nothing unless a plugin says otherwise."""

    name: str

    def __init__(self, arguments: dict[str, str]) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: "Session") -> None:
        raise NotImplementedError

    def on_session_close(self, ssn: "Session") -> None:
        pass

"""What a plugin reads of the release it is built for (plugins/feature/feature.go's Features,
which each plugin's New receives): here SchedulerQueueingHints, which changes the events the
plugins register (EventsToRegister) in v1.30 and v1.31, and the release's minor."""
from __future__ import annotations

from typing import TypeVar

from ..framework.versions import DEFAULT, KubernetesVersion

T = TypeVar("T")


class QueueingHintFeatures:
    """feature.Features.EnableSchedulingQueueHint and the release's minor, at the default
    release's values until for_release sets the plugin's own."""

    enable_scheduling_queue_hint = DEFAULT.features.enable_scheduling_queue_hint
    minor = DEFAULT.minor


def for_release(plugin: T, version: KubernetesVersion) -> T:
    """The plugin, told the release's SchedulerQueueingHints and minor (as New reads fts)."""
    plugin.enable_scheduling_queue_hint = version.features.enable_scheduling_queue_hint  # type: ignore[attr-defined]
    plugin.minor = version.minor  # type: ignore[attr-defined]
    return plugin

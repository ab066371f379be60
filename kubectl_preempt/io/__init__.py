"""The only I/O of the library: snapshot files in every form, traces, the live cluster.

Imported lazily by submodule (io.live pulls in the kubernetes client; snapshots do not need it).
"""
from __future__ import annotations

from .snapshot import ignored_note, load_config, load_manifests, load_objects

__all__ = ["ignored_note", "load_config", "load_manifests", "load_objects"]

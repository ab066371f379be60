"""PriorityClass manifests as a pull request holds them, and the traces a check replays.

`--proposed` and `--baseline` take files or directories: every YAML or JSON file under a
directory is read (sorted, recursively), each document may be one object or a List, and objects
of other kinds (Deployments beside the classes, kustomization files) are counted and left out.
`--trace` takes trace files or directories of them.
"""
from __future__ import annotations

import os
from typing import Any, Iterator, Mapping

from ..errors import InputError
from .snapshot import STDIN, decode_documents, display_name, read_bytes

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json", ".yaml.gz", ".yml.gz", ".json.gz")
TRACE_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")
PRIORITY_CLASS = "PriorityClass"


def expand(paths: list[str], suffixes: tuple[str, ...], what: str, *, recursive: bool = True) -> list[str]:
    """Files named, and under directories the files with one of `suffixes`, sorted."""
    out: list[str] = []
    for path in paths:
        if path != STDIN and os.path.isdir(path):
            found = []
            if recursive:
                for root, dirs, files in os.walk(path):
                    dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                    found += [os.path.join(root, f) for f in files if f.endswith(suffixes)]
            else:
                found = [os.path.join(path, f) for f in os.listdir(path)
                         if f.endswith(suffixes) and os.path.isfile(os.path.join(path, f))]
            if not found:
                raise InputError(f"no {what} in this directory (files ending in {', '.join(suffixes)})",
                                 source=path)
            out += sorted(found)
        elif path != STDIN and not os.path.exists(path):
            raise InputError("no such file or directory", source=path)
        else:
            out.append(path)
    return out


def _items(doc: Any, where: str) -> Iterator[tuple[str, Any]]:
    if doc is None:
        return
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            yield f"{where}[{i}]" if where else f"[{i}]", item
        return
    if isinstance(doc, Mapping):
        kind = doc.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list):
            base = f"{where}.items" if where else "items"
            for i, item in enumerate(doc["items"]):
                if isinstance(item, dict) and "kind" not in item and kind != "List":
                    item["kind"] = kind[:-4]
                yield f"{base}[{i}]", item
            return
    yield where, doc


def load_priority_classes(paths: list[str]) -> tuple[list[dict[str, Any]], list[str], dict[str, int]]:
    """(classes, where each is, other kinds skipped with their counts) from files and directories.

    A class is kept as written: whether the API server would take it is check's business.
    """
    classes: list[dict[str, Any]] = []
    sources: list[str] = []
    skipped: dict[str, int] = {}
    for path in expand(paths, MANIFEST_SUFFIXES, "YAML or JSON manifests"):
        name = display_name(path)
        for where, doc in decode_documents(read_bytes(path), name):
            for item_where, obj in _items(doc, where):
                kind = obj.get("kind") if isinstance(obj, Mapping) else None
                if kind != PRIORITY_CLASS:
                    label = kind if isinstance(kind, str) and kind else "objects without kind"
                    skipped[label] = skipped.get(label, 0) + 1
                    continue
                classes.append(obj)
                sources.append(f"{name}: {item_where}" if item_where else name)
    return classes, sources, dict(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0])))


__all__ = ["expand", "load_priority_classes", "MANIFEST_SUFFIXES", "TRACE_SUFFIXES"]

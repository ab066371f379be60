#!/usr/bin/env python3
"""Copy the shared fidelity corpus (../shared) into tests/corpus, or say how the two differ.

usage: python scripts/sync_corpus.py [--check] [--shared DIR]

What is carried: ../shared/conformance and ../shared/realcluster whole, and
../shared/tools/realcluster_report.py (whose follow_agreement is the real-cluster tests' rule).
Every file keeps its path under ../shared. A `.json` file under conformance/ (the cases and the
releases' verdicts, 30 MB as text) is stored gzipped as `<name>.json.gz` (level 9, no name, no
time: the same bytes on every sync); every other file byte for byte (the traces are gzipped
already; the truth files, READMEs and scripts stay readable and runnable where they are).
tests/corpus/MANIFEST.json lists each file as ../shared holds it: its path, size and sha256.

Without --check: where ../shared differs from the copy (a file added, changed or gone), the copy
is made equal to it and the manifest rewritten; prints what changed. With --check: changes
nothing, prints the differences and exits 1 if there are any. Exit 2 when ../shared is absent.
Standard library only.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "corpus"
MANIFEST = CORPUS / "MANIFEST.json"
TREES = ("conformance", "realcluster")
FILES = ("tools/realcluster_report.py",)
COMMAND = "python3 scripts/sync_corpus.py"


def shared_dir() -> Path:
    """The workspace's shared corpus: ../shared beside the repository."""
    return REPO.parent / "shared"


def stored_name(name: str) -> str:
    """Where the copy keeps ../shared's `name` (relative to tests/corpus)."""
    return name + ".gz" if name.startswith("conformance/") and name.endswith(".json") else name


def stored_bytes(name: str, data: bytes) -> bytes:
    """The bytes the copy stores for ../shared's `name` holding `data`."""
    return gzip.compress(data, compresslevel=9, mtime=0) if stored_name(name) != name else data


def content(path: Path) -> bytes:
    """A stored file's content (a path under tests/corpus) as ../shared holds it: gunzipped where
    the copy gzipped it."""
    data = path.read_bytes()
    rel = path.relative_to(CORPUS).as_posix()
    return gzip.decompress(data) if stored_name(rel[:-3]) == rel else data


def _entry(data: bytes) -> dict[str, object]:
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def shared_files(shared: Path) -> dict[str, Path]:
    """../shared's files the copy carries, by their path under ../shared."""
    out: dict[str, Path] = {}
    for tree in TREES:
        for path in sorted((shared / tree).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                out[path.relative_to(shared).as_posix()] = path
    for name in FILES:
        if (shared / name).is_file():
            out[name] = shared / name
    return out


def manifest_of(shared: Path) -> dict[str, dict[str, object]]:
    """What the manifest says for ../shared as it is now."""
    return {name: _entry(path.read_bytes()) for name, path in sorted(shared_files(shared).items())}


def read_manifest() -> dict[str, dict[str, object]]:
    if not MANIFEST.is_file():
        return {}
    return json.loads(MANIFEST.read_text())["files"]


def stored_files() -> dict[str, Path]:
    """The copy's files, by their path under ../shared."""
    out: dict[str, Path] = {}
    for top in (*TREES, *sorted({f.split("/")[0] for f in FILES})):
        for path in sorted((CORPUS / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                rel = path.relative_to(CORPUS).as_posix()
                out[rel[:-3] if stored_name(rel[:-3]) == rel else rel] = path
    return out


def copy_differences() -> list[str]:
    """Where the copy is not what its manifest lists: a file missing, extra or changed."""
    want = read_manifest()
    have = stored_files()
    diffs = [f"missing from tests/corpus: {n}" for n in sorted(set(want) - set(have))]
    diffs += [f"not in the manifest: tests/corpus/{stored_name(n)}" for n in sorted(set(have) - set(want))]
    for name in sorted(set(want) & set(have)):
        if _entry(content(have[name])) != want[name]:
            diffs.append(f"changed in tests/corpus (not by a sync): {stored_name(name)}")
    return diffs


def shared_differences(shared: Path) -> list[str]:
    """Where ../shared is not what the copy's manifest lists."""
    want = manifest_of(shared)
    have = read_manifest()
    diffs = [f"new in ../shared: {n}" for n in sorted(set(want) - set(have))]
    diffs += [f"gone from ../shared: {n}" for n in sorted(set(have) - set(want))]
    diffs += [f"changed in ../shared: {n}" for n in sorted(set(want) & set(have)) if want[n] != have[n]]
    return diffs


def sync(shared: Path) -> list[str]:
    """Make the copy equal to ../shared; what changed, one line a file."""
    files = shared_files(shared)
    have = stored_files()
    changed = []
    for name, src in files.items():
        data = src.read_bytes()
        dest = CORPUS / stored_name(name)
        if name in have and content(have[name]) == data:
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".tmp")
        tmp.write_bytes(stored_bytes(name, data))
        os.replace(tmp, dest)
        changed.append(("changed: " if name in have else "added: ") + stored_name(name))
    for name in sorted(set(have) - set(files)):
        have[name].unlink()
        changed.append(f"removed: {stored_name(name)}")
    manifest = {"source": "../shared (scripts/sync_corpus.py)", "files": manifest_of(shared)}
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    if not MANIFEST.is_file() or MANIFEST.read_text() != text:
        MANIFEST.write_text(text)
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if the copy differs")
    ap.add_argument("--shared", type=Path, default=None, help="the shared corpus (default: ../shared)")
    a = ap.parse_args(argv)
    shared = a.shared or shared_dir()
    if not (shared / "conformance").is_dir():
        print(f"sync_corpus: {shared}/conformance is not there", file=sys.stderr)
        return 2
    if a.check:
        diffs = shared_differences(shared) + copy_differences()
        for d in diffs:
            print(d)
        print(f"tests/corpus {'differs from' if diffs else 'is'} {shared}" + (f": run {COMMAND}" if diffs else ""))
        return 1 if diffs else 0
    changed = sync(shared)
    for line in changed:
        print(line)
    print(f"tests/corpus: {len(changed)} files changed from {shared}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The corpus carried in the repository (tests/corpus) is whole, unedited, and the same as the
workspace's ../shared where that is beside the repository (scripts/sync_corpus.py keeps it so)."""
from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from tests.corpus import (CONFORMANCE, ROOT, case_files, case_key, case_name, corpus_path, expects,
                          load_json, trace_of, truth_files)

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "sync_corpus.py"
RELEASES = ("v1.30", "v1.31", "v1.32", "v1.33", "v1.35", "v1.36")


def _sync():
    spec = importlib.util.spec_from_file_location("sync_corpus", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_the_copy_is_its_manifest_and_the_shared_corpus_where_that_is_beside_the_repository() -> None:
    sync = _sync()
    diffs = sync.copy_differences()
    shared = sync.shared_dir()
    if (shared / "conformance").is_dir():
        diffs = sync.shared_differences(shared) + diffs
    assert not diffs, (f"tests/corpus differs from {shared}: run `{sync.COMMAND}` and commit\n  "
                       + "\n  ".join(diffs[:20]) + (f"\n  ... {len(diffs) - 20} more" if len(diffs) > 20 else ""))


def test_the_manifest_lists_every_part_of_the_corpus() -> None:
    names = set(json.loads((ROOT / "MANIFEST.json").read_text())["files"])
    assert {"conformance/compare.py", "conformance/batch/compare_many.py", "tools/realcluster_report.py",
            "conformance/README.md", "realcluster/README.md", "realcluster/v2/README.md",
            "realcluster/v136/README.md"} <= names
    assert {f"conformance/{r}/expects.json" for r in RELEASES} <= names
    assert {f"conformance/{r}/README.md" for r in RELEASES} <= names


def test_every_release_has_a_verdict_for_every_case() -> None:
    cases = case_files("cases", "cases-real")
    assert len(cases) == 484
    for release in RELEASES:
        assert set(expects(release)) == {case_key(p) for p in cases}, release


def test_every_kube_batch_case_carries_its_2000_sessions() -> None:
    cases = case_files("batch/cases")
    assert len(cases) == 60
    assert all(load_json(p)["expectMany"]["runs"] == 2000 for p in cases)


@pytest.mark.parametrize("folder,count", [("", 3), ("v2", 3), ("v136", 3)],
                         ids=["the first round", "v2: recorded from the start", "v136: kube-scheduler v1.36.2"])
def test_every_real_cluster_truth_has_its_trace(folder: str, count: int) -> None:
    truths = truth_files(folder)
    assert len(truths) == count
    assert all(trace_of(t).is_file() for t in truths)


@pytest.mark.parametrize("name,stored", [
    ("conformance/v1.35/expects.json", "conformance/v1.35/expects.json.gz"),
    ("conformance/cases/0002-spread.json", "conformance/cases/0002-spread.json.gz"),
    ("realcluster/v136/s9-gang-nowap.truth.json", "realcluster/v136/s9-gang-nowap.truth.json"),
    ("realcluster/v136/s9-gang-nowap.jsonl.gz", "realcluster/v136/s9-gang-nowap.jsonl.gz"),
    ("realcluster/v136", "realcluster/v136"),
], ids=["a release's verdicts are stored gzipped", "a case is stored gzipped",
        "a truth file is stored as it is", "a trace is stored as it is (gzipped already)", "a folder"])
def test_a_name_under_shared_finds_its_stored_file(name: str, stored: str) -> None:
    assert corpus_path(name) == ROOT / stored


def test_a_name_the_corpus_lacks_says_how_to_get_it() -> None:
    with pytest.raises(FileNotFoundError, match="sync_corpus.py"):
        corpus_path("conformance/v1.99/expects.json")


def test_a_gzipped_case_reads_as_the_json_it_holds() -> None:
    path = CONFORMANCE / "cases" / "0002-spread.json.gz"
    assert load_json(path) == json.loads(gzip.decompress(path.read_bytes()))
    assert load_json("conformance/cases/0002-spread.json") == load_json(path)
    assert (case_name(path), case_key(path)) == ("0002-spread", "cases/0002-spread")

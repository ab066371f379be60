"""The fidelity corpus, carried in the repository (README.md beside this file): paths, readers and
the corpus's own comparison rules, for the tests.

Name a file as it is named under ../shared: `corpus_path("conformance/v1.35/expects.json")`,
`corpus_path("realcluster/v136")`. The cases and the verdicts are stored gzipped (`.json.gz`);
`load_json` reads a name or a path either way.

    from tests.corpus import case_files, case_key, compare, expects, load_json
    for path in case_files("cases", "cases-real"):
        case = load_json(path)
        diffs = compare(expects("v1.35")[case_key(path)], result)
"""
from __future__ import annotations

import functools
import gzip
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent
CONFORMANCE = ROOT / "conformance"
REALCLUSTER = ROOT / "realcluster"
GZ = ".gz"


def corpus_path(name: str) -> Path:
    """The file (or folder) `name` of ../shared, as the repository stores it: a `.json` under
    conformance/ is `<name>.json.gz`."""
    path = ROOT / name
    if not path.exists() and (ROOT / (name + GZ)).is_file():
        return ROOT / (name + GZ)
    if not path.exists():
        raise FileNotFoundError(f"tests/corpus has no {name} (run python3 scripts/sync_corpus.py beside ../shared)")
    return path


def read_bytes(where: str | Path) -> bytes:
    """A corpus file's content as ../shared holds it (gunzipped where stored gzipped, except the
    traces, which are gzipped in ../shared too: read_trace reads them)."""
    path = where if isinstance(where, Path) else corpus_path(where)
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".json" + GZ) else data


def load_json(where: str | Path) -> Any:
    """A case, a release's verdicts or a truth file: by its name under ../shared or its path."""
    return json.loads(read_bytes(where))


def case_name(path: Path) -> str:
    """"0123-pdb" for .../cases/0123-pdb.json.gz."""
    return path.name.removesuffix(GZ).removesuffix(".json")


def case_key(path: Path) -> str:
    """The key of a case in a release's expects.json: "cases/0123-pdb", "cases-real/0019-volumes"."""
    return f"{path.parent.name}/{case_name(path)}"


def case_files(*folders: str) -> list[Path]:
    """The case files of these folders of conformance/ ("cases", "cases-real", "batch/cases"), each
    folder's in name order."""
    return [p for f in folders for p in sorted((CONFORMANCE / f).glob("*.json" + GZ))]


@functools.cache
def expects(release: str) -> dict[str, Any]:
    """A release's verdicts over the cases ("v1.35": conformance/v1.35/expects.json), by case_key."""
    return load_json(f"conformance/{release}/expects.json")


def truth_files(folder: str = "") -> list[Path]:
    """The real-cluster truth files of realcluster/ (the first round) or one of its folders
    ("v2", "v136"), in name order."""
    return sorted((REALCLUSTER / folder).glob("*.truth.json"))


def trace_of(truth_path: Path) -> Path:
    """The trace a truth file describes (beside it)."""
    return truth_path.with_name(load_json(truth_path)["trace"])


@functools.cache
def _module(name: str) -> ModuleType:
    """One of the corpus's scripts (conformance/compare.py, ...), imported from its file."""
    path = corpus_path(name)
    spec = importlib.util.spec_from_file_location("corpus_" + path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# the corpus's rules, as code (COMPARE: conformance/compare.py as a module): compare(expect,
# result) and compare_batch(expect, result) return the differences; compare_many(port_outcomes,
# case) returns (ok, reason); follow_agreement(truth, report) returns (agreeing decisions, misses)
COMPARE = _module("conformance/compare.py")
compare: Callable[[Any, Any], list[str]] = COMPARE.compare
compare_batch: Callable[[Any, Any], list[str]] = COMPARE.compare_batch
compare_many: Callable[..., tuple[bool, str]] = _module("conformance/batch/compare_many.py").compare_many
follow_agreement: Callable[[Any, Any], tuple[int, list[str]]] = \
    _module("tools/realcluster_report.py").follow_agreement


def realcluster_report() -> ModuleType:
    """tools/realcluster_report.py as a module (follow_counts, decisions, ...)."""
    return _module("tools/realcluster_report.py")

"""The example data every install carries: the repository's traces/ (the demo trace and the other
bundled recordings, with what they need) and examples/ (the README's snapshots and manifests).

They stay at the repository's top level, where the design card puts them; a build copies them into
the package as `kubectl_preempt/_bundled/{traces,examples}` (setup.py for the wheel and the sdist's
wheel, scripts/build.py for the single file, and so krew's archive). A source checkout and an
editable install read them where they are.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from ..errors import InputError
from .bundled_layout import PACKAGED, bundled_files
from .files import refuse_link, write_atomic


def root() -> Path:
    """Where traces/ and examples/ are: inside the package when built, else beside it."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / PACKAGED
    return packaged if packaged.is_dir() else package.parent


def path(relative: str) -> Path:
    """A bundled file by its path in the repository (`traces/demo.jsonl.gz`), refused in one line
    when this install does not carry it."""
    where = root() / relative
    if not where.is_file():
        raise InputError(f"the bundled {relative} is not in this install ({where})", source=relative)
    return where


def files() -> Iterator[tuple[str, Path]]:
    """(path in the repository, where it is here) of every bundled file, sorted."""
    base = root()
    for relative in bundled_files(base):
        yield relative, base / relative


def copy_to(directory: str) -> list[str]:
    """Write every bundled file into `directory` under its repository path (traces/..., examples/...),
    so that the README's examples run from there; refuses to replace a file that exists. Returns
    the paths written."""
    todo = list(files())
    clash = [rel for rel, _ in todo if os.path.lexists(os.path.join(directory, rel))]
    if clash:
        raise InputError(f"{clash[0]} exists already there (and {len(clash) - 1} more); give a new or empty "
                         "directory", source=directory, field="--copy-to")
    written = []
    for rel, src in todo:
        target = os.path.join(directory, rel)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
        except OSError as e:
            raise InputError(f"cannot create {os.path.dirname(target)}: {e.strerror or e}", source=directory,
                             field="--copy-to") from None
        refuse_link(target, "--copy-to")
        write_atomic(target, src.read_bytes(), field="--copy-to")
        written.append(target)
    return written

"""The example data every install carries: the repository's traces/ (the demo trace and the other
bundled recordings, with what they need) and examples/ (the README's snapshots and manifests).

They stay at the repository's top level, where the design card puts them; a build copies them into
the package as `kubectl_preempt/_bundled/{traces,examples}` (setup.py for the wheel and the sdist's
wheel, scripts/build.py for the single file, and so krew's archive). A source checkout and an
editable install read them where they are.
"""
from __future__ import annotations

import contextlib
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
    if not directory.strip():
        # an empty name is a slip (an unset variable), not the current directory
        raise InputError("an empty directory name: give the directory to write into", field="--copy-to")
    todo = list(files())
    clash = [rel for rel, _ in todo if os.path.lexists(os.path.join(directory, rel))]
    if clash:
        raise InputError(f"{clash[0]} exists already there (and {len(clash) - 1} more); give a new or empty "
                         "directory", source=directory, field="--copy-to")
    written: list[str] = []
    made: list[str] = []
    try:
        for rel, src in todo:
            target = os.path.join(directory, rel)
            _make_dirs(os.path.dirname(target), directory, made)
            refuse_link(target, "--copy-to")
            write_atomic(target, src.read_bytes(), field="--copy-to")
            written.append(target)
    except BaseException:
        # nothing left half-way (a full disk, Ctrl-C): what this call wrote goes again
        for path in written:
            with contextlib.suppress(OSError):
                os.unlink(path)
        for path in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(path)
        raise
    return written


def _make_dirs(path: str, directory: str, made: list[str]) -> None:
    """os.makedirs of `path`, noting in `made` each directory it creates (outermost first)."""
    missing: list[str] = []
    head = path
    while head and not os.path.isdir(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    for d in reversed(missing):
        try:
            os.mkdir(d)
        except FileExistsError:
            if not os.path.isdir(d):
                raise InputError(f"cannot create {path}: Not a directory", source=directory,
                                 field="--copy-to") from None
            continue
        except OSError as e:
            raise InputError(f"cannot create {path}: {e.strerror or e}", source=directory,
                             field="--copy-to") from None
        made.append(d)

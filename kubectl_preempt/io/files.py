"""Files the plugin writes (snapshots, HTML pages, decision cases, JUnit): atomically, never
through a symbolic link, and no more readable than the data they were made from.

Atomically: the bytes go to a new temporary file beside the target (created exclusively, so no
link planted under its name is followed), then a rename puts it in place; a full disk or an
interrupt leaves the old file as it was, never half a page. A rename replaces a link rather than
writing where it points, and a target that already is a link is refused outright: the plugin
writes only files it creates. A device or a pipe (/dev/null, a FIFO) is written into, as a shell's
`>` writes: there is no file to replace, and a rename would replace the node itself.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile

from ..errors import InputError, output_error

STDOUT = "-"


def is_private(path: str | None) -> bool:
    """Whether the file at `path` is readable by its owner only (an unredacted capture or
    recording is written so): what is made from it is written so too."""
    if not path or path == STDOUT:
        return False
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and not mode & 0o077


def refuse_link(path: str, field: str | None = None) -> None:
    """InputError when `path` is a symbolic link: writing would land wherever it points."""
    if os.path.islink(path):
        raise InputError("is a symbolic link: refused, the plugin writes only files it creates "
                         "(remove the link, or name the file it points to)", source=path, field=field)


def write_atomic(path: str, data: bytes | str, *, private: bool = False, field: str | None = None) -> None:
    """Write `data` to `path` ("-": standard output) atomically, refusing a symbolic link;
    `private` makes the file readable by its owner only, else it is as the umask makes new files."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path == STDOUT:
        if sys.stdout is None:  # started with stdout closed (`>&-`)
            raise output_error()
        try:
            sys.stdout.flush()
            buffer = getattr(sys.stdout, "buffer", None)
            if buffer is None:  # a text stream without bytes beneath (captured output)
                sys.stdout.write(raw.decode("utf-8", "replace"))
            else:
                buffer.write(raw)
                buffer.flush()
        except BrokenPipeError:
            raise  # the reader went away (| head): the CLI ends quietly
        except OSError as e:
            raise output_error(e) from None
        return
    refuse_link(path, field)
    if os.path.isdir(path):
        raise InputError("is a directory, not a file", source=path, field=field)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        _write_into(path, raw, field)
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        # mkstemp: O_CREAT | O_EXCL, mode 0600 from the start
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    except OSError as e:
        raise output_error(e, path=path, field=field) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        if not private:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException as e:
        # a full disk, or Ctrl-C in the middle: the temporary file goes, the target is untouched
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise output_error(e, path=path, field=field) from None
        raise


def _write_into(path: str, raw: bytes, field: str | None) -> None:
    """Write into a device or a pipe (/dev/null, a terminal, a FIFO), as a shell's `>` does:
    there is no file to replace atomically, and a rename would put a file in the node's place
    (run as root, `--junit /dev/null` replaced /dev/null)."""
    try:
        with open(path, "wb") as f:
            f.write(raw)
    except OSError as e:
        raise output_error(e, path=path, field=field) from None


def prepare_directory(directory: str, *, overwrite: bool, private: bool, field: str | None = None) -> None:
    """A directory to write files into: created (0700 when `private`) if missing; one that holds
    anything already is refused unless `overwrite`, so that files of an earlier run are never
    taken for this one's; a symbolic link is refused."""
    refuse_link(directory.rstrip("/") or directory, field)
    if os.path.isdir(directory):
        try:
            entries = os.listdir(directory)
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror or e}", source=directory, field=field) from None
        if entries and not overwrite:
            raise InputError(f"not empty ({len(entries)} entr{'ies' if len(entries) != 1 else 'y'}): files of an "
                             "earlier run would mix with this one's; name an empty or new directory, or give "
                             "--overwrite", source=directory, field=field)
        return
    try:
        os.makedirs(directory, mode=0o700 if private else 0o777)
    except OSError as e:
        raise InputError(f"cannot create: {e.strerror or e}", source=directory, field=field) from None

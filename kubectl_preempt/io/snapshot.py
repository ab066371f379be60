"""Snapshot files in every form DESIGN.md lists, scheduler configurations, and -f manifests.

A snapshot is a Kubernetes List (JSON or YAML), a stream of YAML documents (or one object), a
conformance case file (its "objects"), any of these gzipped, or "-" for standard input. Every
problem with a file becomes one InputError that names the file and where in it.
"""
from __future__ import annotations

import codecs
import json
import math
import os
import stat
import sys
import zlib
from typing import Any, Callable, Iterator, Mapping

import orjson
import yaml

from ..errors import InputError
from ..model.bulk import bulk_allocation
from ..model import limits
from ..model.cluster import KNOWN_KINDS, read_pod
from ..model.schema import KINDS, basics_ok, check_object, describe, typed_decoder, typed_pod_reader, typed_shells
from . import kinds
from .beside import ask_beside

try:  # the C loader is several times faster on large YAML snapshots
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

GZIP_MAGIC = b"\x1f\x8b"
STDIN = "-"

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_BOOL_WORDS = frozenset(("true", "True", "TRUE", "false", "False", "FALSE"))


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe YAML that keeps timestamps as strings, as the API server's JSON does, and reads only
    true/false as booleans (a label value `on` or `no` stays a string, never a dict key True)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP_TAG]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def _construct_bool(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    value = loader.construct_scalar(node)
    if value in _BOOL_WORDS:
        return value.lower() == "true"
    return value


_Loader.add_constructor(_BOOL_TAG, _construct_bool)

_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    # YAML 1.1's base 60 (`1:30` is 90) is read by no Kubernetes reader: sigs.k8s.io/yaml's
    # go-yaml takes `1:30` for a string, as the API server then would
    value = loader.construct_scalar(node)
    if isinstance(value, str) and ":" in value:
        return value
    return _BaseLoader.construct_yaml_int(loader, node)


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    value = loader.construct_scalar(node)
    if isinstance(value, str) and ":" in value:
        return value
    return _BaseLoader.construct_yaml_float(loader, node)


_Loader.add_constructor(_INT_TAG, _construct_int)
_Loader.add_constructor(_FLOAT_TAG, _construct_float)

_KNOWN = frozenset(KNOWN_KINDS)


# --- reading bytes -------------------------------------------------------------------------------

def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def _too_big(name: str, what: str) -> InputError:
    limit = limits.format_size(limits.current().max_input_bytes)
    return InputError(f"{what} more than {limit}, the most this reads (--max-input-size raises it)", source=name)


# what one read asks of a stream whose size is not known (a pipe): a read of `limit + 1` bytes
# would ask the allocator for all of them at once (a limit of 100T fails with MemoryError)
_CHUNK = 1 << 24


def read_within_limit(f: Any, name: str, too_big: Callable[[int], Exception] | None = None) -> bytes:
    """The stream's bytes, up to its end; an InputError naming `name` as soon as it holds more
    than the input limit (`too_big(limit)` instead, when given: an API server's answer is the
    cluster's fault, not the user's). A regular file is read in one call of its size (one buffer,
    no copy); a pipe, a device, a socket or a file that grows as it is read, a chunk at a time, so
    that no read asks for more memory than the bytes it can return, and /dev/zero costs the
    limit, not the machine."""
    limit = limits.current().max_input_bytes
    if too_big is None:
        def too_big(_limit: int) -> Exception:
            return _too_big(name, "holds")
    try:
        st = os.fstat(f.fileno())
        size = st.st_size if stat.S_ISREG(st.st_mode) else 0
    except (OSError, AttributeError, ValueError):  # a stream without a file descriptor
        size = 0
    first = f.read(min(limit, size if size else _CHUNK) + 1)
    if len(first) > limit:
        raise too_big(limit)
    if not first:
        return first
    chunks = [first]
    total = len(first)
    while True:
        chunk = f.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise too_big(limit)
        chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_raw_bytes(path: str) -> bytes:
    """The file's bytes as stored ("-": standard input); one that cannot be read is an InputError,
    and so is one larger than the input limit (read no further than the limit)."""
    name = display_name(path)
    try:
        if path == STDIN:
            return read_within_limit(sys.stdin.buffer, name)
        with open(path, "rb") as f:
            return read_within_limit(f, name)
    except FileNotFoundError:
        raise InputError("no such file", source=name) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=name) from None
    except PermissionError:
        raise InputError("permission denied", source=name) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", source=name) from None


def gunzip(data: bytes, name: str, notes: list[str] | None = None) -> bytes:
    """Inflate gzip data (every member of it), a megabyte at a time, refusing to go past the input
    limit: a small file that inflates to gigabytes fails early with bounded memory. With `notes`,
    a stream cut short (a recorder killed mid-write) keeps what was flushed, up to its last
    complete line, and says so; without, it is an error."""
    limit = limits.current().max_input_bytes
    out = bytearray()
    rest = data
    while True:
        d = zlib.decompressobj(wbits=31)
        buf = rest
        try:
            while True:
                chunk = d.decompress(buf, 1 << 20)
                out += chunk
                if len(out) > limit:
                    raise _too_big(name, "inflates to")
                buf = d.unconsumed_tail
                if d.eof or not (buf or chunk):
                    break
        except zlib.error as e:
            raise InputError(f"corrupt gzip data: {one_line(str(e))}", source=name) from None
        if not d.eof:
            if notes is None:
                raise InputError("truncated gzip data (the compressed stream ends early)", source=name)
            cut = out.rfind(b"\n")
            del out[cut + 1 if cut != -1 else 0:]
            notes.append(f"{name}: the gzip stream ends early (the recording was cut short); read up to its last "
                         "complete line")
            break
        rest = d.unused_data
        if rest[:2] != GZIP_MAGIC:  # gzip allows several members one after another; padding is ignored
            break
    return bytes(out)


def read_bytes(path: str) -> bytes:
    """The file's bytes, gunzipped when they start with gzip's magic number."""
    data = read_raw_bytes(path)
    if data[:2] == GZIP_MAGIC:
        data = gunzip(data, display_name(path))
    return data


# --- decoding documents ---------------------------------------------------------------------------

def one_line(text: object) -> str:
    """An error text on one line: a message that spans lines would read as several."""
    return " ".join(str(text).split())


def _first_char(data: bytes) -> bytes:
    for i in range(min(len(data), 4096)):
        c = data[i:i + 1]
        if not c.isspace():
            return c
    return data.lstrip()[:1]


# a JSON document this large is decoded by msgspec (_decode_large); smaller ones by orjson alone
LARGE_JSON = 8 << 20
# every byte to "x" but the digits, to "0": a run of 19 digits is a number that may not fit 64 bits
_DIGITS_ONLY = bytes(0x30 if 0x30 <= i <= 0x39 else 0x78 for i in range(256))
_NINETEEN_DIGITS = b"0" * 19


def _decode_large(data: bytes) -> Any:
    """A large JSON document decoded by msgspec, or None to let orjson decode it.

    orjson parses the whole document into a tree of its own before it makes the Python objects
    (for a 150,000-pod snapshot, a quarter of a gigabyte more at the peak than the objects);
    msgspec makes them as it reads, a little faster. Both read every JSON document alike (the
    same objects; the same refusals, tests/test_io_snapshot.py) but for integers beyond 64 bits,
    which orjson makes floats and msgspec keeps whole: a document with 19 digits in a row
    anywhere goes to orjson, and so does every document msgspec refuses, so that each error is
    orjson's, worded as before. Without msgspec (it is a C extension), orjson decodes everything."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a platform without msgspec's wheel
        return None
    if data.translate(_DIGITS_ONLY).find(_NINETEEN_DIGITS) != -1:
        return None
    try:
        return msgspec.json.decode(data)
    except Exception:  # noqa: BLE001 - whatever msgspec refuses, orjson refuses and words
        return None


def _decode_json(data: bytes, name: str) -> list[tuple[str, Any]]:
    if len(data) >= LARGE_JSON:
        got = _decode_large(data)
        if got is not None:
            return [("", got)]
    try:
        return [("", orjson.loads(data))]
    except orjson.JSONDecodeError as e:
        err = e
    # several JSON values one after another (kubectl get ... -o json per resource, JSON Lines)
    msg = err.msg.lower()
    if "trailing" in msg or "after document" in msg:
        return _decode_json_stream(data, name)
    raise InputError(one_line(err.msg), source=name, field=f"line {err.lineno} column {err.colno}")


def json_number_error(text: str, pos: int, name: str) -> InputError:
    """A JSON document whose number has too many digits to be any Kubernetes field's value."""
    line = text.count("\n", 0, pos) + 1
    return InputError(f"a number with more than {sys.get_int_max_str_digits()} digits: no field of a Kubernetes "
                      "object holds one", source=name, field=f"document at line {line}")


def _decode_json_stream(data: bytes, name: str) -> list[tuple[str, Any]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", source=name) from None
    dec = json.JSONDecoder()
    out: list[tuple[str, Any]] = []
    pos, n = 0, len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            return out
        try:
            value, pos_end = dec.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise InputError(one_line(e.msg), source=name, field=f"line {e.lineno} column {e.colno}") from None
        except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
            raise json_number_error(text, pos, name) from None
        line = text.count("\n", 0, pos) + 1
        out.append((f"document {len(out) + 1} (line {line})", value))
        pos = pos_end


def _decode_yaml(data: bytes, name: str) -> list[tuple[str, Any]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", source=name) from None
    limits.check_yaml_depth(text, name)
    loader = _Loader(text)
    out: list[tuple[str, Any]] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            line = node.start_mark.line + 1 if node.start_mark else 0
            out.append((f"document {len(out) + 1} (line {line})", loader.construct_document(node)))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else None
        what = one_line(" ".join(p for p in (e.context, e.problem) if p)) or "malformed YAML"
        raise InputError(f"malformed YAML: {what}", source=name, field=where) from None
    except yaml.YAMLError as e:
        raise InputError(f"malformed YAML: {one_line(str(e))}", source=name) from None
    finally:
        loader.dispose()
    # a single document needs no "document 1" in its field paths
    if len(out) == 1:
        out = [("", out[0][1])]
    return out


def decode_documents(data: bytes, name: str) -> list[tuple[str, Any]]:
    """(where, value) for each top-level document: JSON first (fast), else YAML."""
    if _first_char(data) in (b"{", b"["):
        return _decode_json(data, name)
    return _decode_yaml(data, name)


# --- from documents to objects ---------------------------------------------------------------------

def _join(where: str, field: str) -> str:
    return f"{where}.{field}" if where else field


def _collection(doc: Any, where: str, name: str) -> tuple[str | None, list]:
    """The objects a top-level document holds: (path of the list in the file, its items), or
    (None, [doc]) for a document that is one object."""
    if doc is None:  # an empty YAML document ("---" twice)
        return where, []
    if isinstance(doc, list):
        return where, doc
    if not isinstance(doc, Mapping):
        raise InputError(f"expected a List, a conformance case or Kubernetes objects, got {describe(doc)}",
                         source=name, field=where or None)
    kind = doc.get("kind")
    if "objects" in doc and kind is None:  # conformance case file
        objects = doc["objects"]
        if not isinstance(objects, list):
            raise InputError(f"expected a list, got {describe(objects)}", source=name,
                             field=_join(where, "objects"))
        return _join(where, "objects"), objects
    if isinstance(kind, str) and kind.endswith("List"):
        items = doc.get("items")
        if items is None:
            return where, []
        if not isinstance(items, list):
            raise InputError(f"expected a list, got {describe(items)}", source=name, field=_join(where, "items"))
        if kind != "List":
            # a typed list from the API (PodList) leaves kind off its items
            item_kind = kind[:-4]
            for item in items:
                if isinstance(item, dict) and "kind" not in item:
                    item["kind"] = item_kind
        return _join(where, "items"), items
    if kind == "Trace" or ("type" in doc and "object" in doc and kind is None):
        raise InputError("this is a trace, not a snapshot (replay reads traces)", source=name, field=where or None)
    return None, [doc]


def _items(doc: Any, where: str, name: str) -> Iterator[tuple[str, Any]]:
    """The objects a top-level document holds, each with where it sits in the file."""
    label, items = _collection(doc, where, name)
    if label is None:
        yield where, items[0]
        return
    for i, item in enumerate(items):
        yield f"{label}[{i}]", item


def _check_object(obj: Any, where: str, name: str) -> None:
    if not isinstance(obj, dict):
        raise InputError(f"expected a Kubernetes object, got {describe(obj)}", source=name, field=where or None)
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise InputError("missing kind" if kind is None else f"kind must be a non-empty string, got {describe(kind)}",
                         source=name, field=_join(where, "kind"))
    md = obj.get("metadata")
    if not isinstance(md, dict) or not isinstance(md.get("name"), str) or not md.get("name"):
        raise InputError(f"{kind} without metadata.name", source=name, field=_join(where, "metadata.name"))


# the List annotation `capture` writes with the API server's version (live.ANN_SERVER_VERSION)
ANN_SERVER_VERSION = "kubectl-preempt/server-version"


class SnapshotObjects(list):
    """The objects of a snapshot, and the server version it names (a captured List's
    kubectl-preempt/server-version annotation), None when it names none. `checked`: how many of
    the first objects passed model/schema.py's checks as they were read (load_objects' `lean`
    read), which Cluster.from_objects then does not repeat; `pods` then holds, beside each object,
    its Pod view when it is a pod, made as it was read (a view beside every Pod object, or no
    `pods` at all), and `pods_by_key` the same views by namespace/name, keyed as they were made."""

    server_version: str | None = None
    checked: int = 0
    # beside each checked object, its Pod view when it is a pod (model/cluster.py read_pod)
    pods: list[Any] | None = None
    # those views by namespace/name, in file order, when no two share one (else None)
    pods_by_key: dict[str, Any] | None = None
    # with `pods`: whether any of them sets pod-level resources (Cluster.has_pod_level_resources)
    pod_level_resources: bool | None = None


def _server_version(doc: Any) -> str | None:
    """The release a document names: a captured List's annotation, or a conformance case's
    kubernetesVersion (the release whose code recorded its `expect`)."""
    if isinstance(doc, Mapping) and "objects" in doc and doc.get("kind") is None:
        v = doc.get("kubernetesVersion")
        return v if isinstance(v, str) else None
    if isinstance(doc, Mapping) and isinstance(doc.get("kind"), str) and doc["kind"].endswith("List"):
        ann = (doc.get("metadata") or {}).get("annotations") or {}
        if isinstance(ann, Mapping) and isinstance(ann.get(ANN_SERVER_VERSION), str):
            return ann[ANN_SERVER_VERSION]
    return None


def objects_from_bytes(data: bytes, name: str, *, expected: str = kinds.SNAPSHOT,
                       accepted: tuple[str, ...] = (kinds.CASE,)) -> SnapshotObjects:
    """The objects of a snapshot's bytes; a file that is another kind of input than `expected`
    (a trace, a scheduler configuration) is refused saying what it is (io/kinds.py)."""
    out = SnapshotObjects()
    for i, (where, doc) in enumerate(decode_documents(data, name)):
        if i == 0:
            kinds.wrong_kind(kinds.document_kind(doc), expected, name, accepted=accepted)
        if out.server_version is None:
            out.server_version = _server_version(doc)
        label, items = _collection(doc, where, name)
        if not basics_ok(items):  # the whole list at C speed; the walk below only words the error
            for i, obj in enumerate(items):
                _check_object(obj, where if label is None else f"{label}[{i}]", name)
        out.extend(items)
    return out


# --- the typed read: a large JSON List decoded and checked in one pass -----------------------------

# _skipped_text_ok's view of a document: a byte per byte, digits as "0", e and E as "e", + and - as
# "s", "." as "p", what may stand beside a JSON value (whitespace, ":", ",", brackets and braces) as
# "d", anything else (letters, quotes) as "x"
_NUMBER_SCAN = bytes(0x30 if 0x30 <= i <= 0x39 else 0x65 if i in b"eE" else 0x73 if i in b"+-" else
                     0x70 if i == 0x2E else 0x64 if i in b" \t\r\n:,[]{}" else 0x78 for i in range(256))
# a number with an exponent of three digits or more: a digit before the e, as JSON's grammar has it
_EXPONENT_3, _SIGNED_EXPONENT_3 = b"0e000", b"0es000"
# an integer of 19 digits or more may not fit 64 bits, where msgspec keeps it whole and orjson makes a
# float; as many digits as 10**308 has are no double at all, which orjson refuses
_DIGITS_19, _DIGITS_309 = b"0" * 19, b"0" * 309
_DELIMITER, _DIGIT, _SIGN, _POINT = 0x64, 0x30, 0x73, 0x70


def _starts_value(scan: bytes, start: int) -> bool:
    """Whether the digits from `start` (its sign before it, if any) stand where a JSON value does."""
    if start > 0 and scan[start - 1] == _SIGN:
        start -= 1
    return start > 0 and scan[start - 1] == _DELIMITER


def _overflows_at(data: bytes, scan: bytes, pos: int) -> bool:
    """Whether the number whose exponent starts at `pos` (an "e" of `scan`) is a JSON value no
    double holds: digits (a "." among them) after an optional sign, after a delimiter, then the
    exponent, then a delimiter. Text inside a string that reads so counts too (the caller then
    reads the file the careful way); hex digits (UIDs, digests) fail the first step."""
    start = pos
    while start > 0 and scan[start - 1] in b"0p":
        start -= 1
    if not _starts_value(scan, start):
        return False
    end = pos + 1
    if end < len(scan) and scan[end] == _SIGN:
        end += 1
    while end < len(scan) and scan[end] == _DIGIT:
        end += 1
    if end < len(scan) and scan[end] != _DELIMITER:
        return False
    if start > 0 and scan[start - 1] == _SIGN:
        start -= 1
    try:
        return math.isinf(float(data[start:end]))
    except ValueError:  # not a number after all ("1.2.3e400"): msgspec refuses it itself
        return False


def _long_integer_at(scan: bytes, pos: int) -> tuple[bool, int]:
    """Whether the run of digits at `pos` (19 or more) is a JSON integer, and where the run ends."""
    end = pos
    while end < len(scan) and scan[end] == _DIGIT:
        end += 1
    start = pos
    while start > 0 and scan[start - 1] == _DIGIT:
        start -= 1
    return _starts_value(scan, start) and (end == len(scan) or scan[end] == _DELIMITER), end


def _plain_text(data: bytes) -> bool:
    """Whether msgspec's typed decoders read `data` as orjson reads it. msgspec reads past a field
    no type names checking its syntax, escapes and surrogates, but neither its strings' UTF-8 nor
    its numbers' range, which orjson refuses when they fail; and it keeps an integer beyond 64 bits
    whole where orjson makes a float. A document where any of these might happen is read the
    careful way: one that is not ASCII is decoded as UTF-8 (and dropped), and one pass over a
    view of the bytes (_NUMBER_SCAN), a piece at a time, finds every number that is long or has a
    long exponent."""
    if not data.isascii():
        decoder = codecs.getincrementaldecoder("utf-8")()
        view = memoryview(data)
        try:
            for i in range(0, len(data), 1 << 20):
                decoder.decode(view[i:i + (1 << 20)])
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    # an exponent after "-" makes a number too small to be refused, never one too large: the signed
    # exponents that matter are those after "+", and a document without one (most snapshots) needs
    # no search for them (a byte found at C speed)
    needles = (_EXPONENT_3, _SIGNED_EXPONENT_3) if b"+" in data else (_EXPONENT_3,)
    # the document a piece at a time, each cut just after a '"' (_numbers_plain)
    end = len(data)
    start = 0
    while start < end:
        cut = data.find(b'"', start + _PIECE)
        stop = end if cut == -1 else cut + 1
        if not _numbers_plain(data[start:stop], needles):
            return False
        start = stop
    return True


# _plain_text's pieces: about this many bytes each, so that a piece and its view (_NUMBER_SCAN) stay
# in the processor's own cache while the view is made and searched (one view of the whole document
# is written to memory and read back once per search; pieces of 256 KiB, twice that with their
# views, spilled out of a core's share of a 1 MiB L2: 82 MB scanned in 0.24 s, in 0.16 s by 64 KiB)
_PIECE = 1 << 16


def _numbers_plain(piece: bytes, needles: tuple[bytes, ...]) -> bool:
    """_plain_text's look at the numbers of one piece of a document: whether it holds none that is
    long or has a long exponent (`needles`: the exponents to look for). A piece ends just after a
    '"' (or where the document ends): no number and no run of digits holds a '"', so each lies
    whole in one piece with what stands before and after it, and a run at a piece's start stands
    after a '"', which no value does (the helpers read the start of a piece so): every piece is
    judged as the whole document would be."""
    scan = piece.translate(_NUMBER_SCAN)
    pos = scan.find(_DIGITS_19)
    # a run of 309 digits starts a run of 19: without one, no second pass over the bytes
    if pos != -1 and scan.find(_DIGITS_309, pos) != -1:
        return False
    while pos != -1:
        integer, end = _long_integer_at(scan, pos)
        if integer:
            return False
        pos = scan.find(_DIGITS_19, end)
    for needle in needles:
        pos = scan.find(needle)
        while pos != -1:
            if _overflows_at(piece, scan, pos + 1):
                return False
            pos = scan.find(needle, pos + 1)
    return True


def _typed_list(data: bytes) -> SnapshotObjects | None:
    """The objects of a JSON document that is one List of objects each naming its kind, decoded by
    the typed decoders (model/schema.py typed_decoder): checked as the tables check them and
    holding only the fields the tables name (an object of a kind without a table of its own is
    kept whole, as orjson reads it). None when anything is not so plain (another shape, a refusal,
    a value the decoders do not take): the caller reads the file the careful way, which words any
    error. With every memory off, or without msgspec, always None."""
    read_pod_json = typed_pod_reader()
    if read_pod_json is None:
        return None
    import msgspec

    head_type, kind_type = typed_shells()
    # msgspec's refusals: a value or a syntax it does not take, nesting past its depth
    errors = (msgspec.DecodeError, RecursionError)
    # whether msgspec reads the document as orjson does, asked on the other core while this one
    # decodes (io/beside.py); a document that is not plain text is then read the careful way
    with ask_beside(lambda: _plain_text(data)) as plain:
        try:
            head = msgspec.json.decode(data, type=head_type)
        except errors:
            return None
        if head.kind != "List" or head.items is None:
            return None
        # answered here (no other core): asked before any object is decoded, as it always was
        if not plain.beside and not plain.get():
            return None
        try:
            out = _typed_items(head, read_pod_json, kind_type, errors)
        except Exception:
            # what a plain document could not raise is the careful read's to word
            if not plain.get():
                return None
            raise
        if out is None or not plain.get():
            return None
    return out


def _typed_items(head: Any, read_pod_json: Any, kind_type: Any, errors: tuple[type, ...]) -> SnapshotObjects | None:
    """_typed_list's objects of the List `head`, or None where the decoders refuse one."""
    import msgspec

    out = SnapshotObjects()
    if head.metadata is not None:
        out.server_version = _server_version({"kind": "List", "metadata": orjson.loads(memoryview(head.metadata))})
    append = out.append
    views: list[Any] | None = []
    view = views.append
    decode_kind = msgspec.json.Decoder(kind_type).decode
    # a listing holds its objects by kind (all nodes, then all pods): the decoder of the last kind
    # is tried first, and its refusal of another kind costs one look at the object's kind
    decode = None
    pods = False
    # the requests of the pods of this read whose requests are their containers' alone, by the
    # container list they share (read_pod)
    requests: dict[int, Any] = {}
    # the views by namespace/name, keyed as each is made: the key's hash is taken while the string
    # is in the processor's cache, not in a later pass over 150,000 pods (Cluster.from_objects)
    by_key: dict[str, Any] = {}
    # the objects without a view (not pods): a listing holds far fewer of them than pods
    unviewed = 0
    # whether a pod sets pod-level resources, looked at while its spec is in the processor's cache
    pod_level = False
    for raw in head.items:
        if decode is not None:
            try:
                obj = decode(raw)
            except errors:
                decode = None
        if decode is None:
            try:
                kind = decode_kind(raw).kind
                # pods share the repeating parts of their specs, decoded once (typed_pod_reader)
                decode = read_pod_json if kind == "Pod" else typed_decoder(kind)
                obj = decode(raw)
            except errors:
                return None
            pods = kind == "Pod"
            if kind not in KINDS:
                # a kind the scheduler does not read, kept whole for those who do (Events, PodGroups)
                obj = orjson.loads(memoryview(raw))
                decode = None
        append(obj)
        # a pod's view is made now, while its dicts are in the processor's cache
        if pods:
            pod = read_pod(obj, requests)
            if pod is None:
                # its requests do not compute: Cluster.from_objects reads every pod again, in
                # file order, and names what is wrong after whatever is wrong before it
                views = None
            else:
                by_key[pod.key] = pod
                if not pod_level and pod.spec.get("resources"):
                    pod_level = True
            view(pod)
        else:
            view(None)
            unviewed += 1
    out.checked = len(out)
    out.pods = views
    if views is not None:
        out.pod_level_resources = pod_level
    if views is not None and len(by_key) == len(views) - unviewed:
        out.pods_by_key = by_key
    return out


def load_objects(path: str, *, lean: bool = False) -> SnapshotObjects:
    """Every Kubernetes object in a snapshot file ("-" for standard input), in file order; its
    `server_version` is the version a captured snapshot names.

    `lean`: the objects as explain reads them. A large JSON List is then decoded and checked in one
    pass (_typed_list), and its objects of the kinds the scheduler reads hold only the fields
    model/schema.py's tables name (those every reader of a snapshot reads: no managedFields' fields,
    probes, volume mounts, ...); other kinds are kept whole. `checked` then says that every object
    has passed the tables' checks. Without `lean`, every object as the file holds it."""
    data = read_bytes(path)
    with bulk_allocation():
        objects = None
        if lean and len(data) >= LARGE_JSON and _first_char(data) == b"{":
            objects = _typed_list(data)
        if objects is None:
            objects = objects_from_bytes(data, display_name(path))
    if not objects:
        # a failed `kubectl get ... > snapshot.json` leaves an empty file, not an empty cluster
        raise InputError("no Kubernetes objects in the file (an empty snapshot: did the command that wrote it fail?)",
                         source=display_name(path))
    return objects


def ignored_kinds(objects: list[Mapping[str, Any]]) -> dict[str, int]:
    """Kinds the scheduler does not read, with how many objects of each (most first)."""
    counts: dict[str, int] = {}
    for o in objects:
        k = o.get("kind")
        if k not in _KNOWN:
            counts[k] = counts.get(k, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def ignored_note(objects: list[Mapping[str, Any]]) -> str | None:
    """One line for stderr about the kinds left out, or None when every object is read."""
    counts = ignored_kinds(objects)
    if not counts:
        return None
    total = sum(counts.values())
    kinds = ", ".join(f"{k} ({n})" for k, n in counts.items())
    return f"ignored {total} object{'s' if total != 1 else ''} of kind{'s' if len(counts) != 1 else ''} {kinds}"


# --- configuration and manifests ---------------------------------------------------------------

def _config_document(path: str) -> tuple[str, Mapping[str, Any]]:
    name = display_name(path)
    docs = [d for d in decode_documents(read_bytes(path), name) if d[1] is not None]
    if not docs:
        raise InputError("empty file: expected a KubeSchedulerConfiguration", source=name)
    # a kube-batch configuration has no kind, and would pass for a KubeSchedulerConfiguration
    # that sets nothing: say what it is, as for a snapshot or a trace
    kinds.wrong_kind(kinds.document_kind(docs[0][1]), kinds.SCHEDULER_CONFIG, name)
    if len(docs) > 1:
        raise InputError(f"expected one KubeSchedulerConfiguration, found {len(docs)} documents", source=name)
    raw = docs[0][1]
    if not isinstance(raw, Mapping):
        raise InputError(f"expected a KubeSchedulerConfiguration object, got {describe(raw)}", source=name)
    return name, raw


def load_config(path: str):  # -> SchedulerConfig
    """A KubeSchedulerConfiguration file (YAML or JSON), with v1 defaults applied."""
    from ..framework.config import parse_config

    name, raw = _config_document(path)
    return parse_config(raw, source=name)


def load_config_document(path: str) -> Mapping[str, Any]:
    """A KubeSchedulerConfiguration file's object as written (what replays take, and decision
    cases carry), once load_config's checks have passed: a bad file fails naming the field."""
    from ..framework.config import parse_config

    name, raw = _config_document(path)
    parse_config(raw, source=name)
    return raw


MANIFEST_KINDS = ("Pod",)


def load_manifests(path: str, namespace: str | None = None) -> list[dict]:
    """Pods to explain that need not exist yet (-f): as if created now, pending and unnominated.

    A pod without a namespace takes `namespace` (-n), else "default", as kubectl create does.
    """
    from ..model.objects import Pod

    name = display_name(path)
    pods: list[dict] = []
    for where, doc in decode_documents(read_bytes(path), name):
        for item_where, obj in _items(doc, where, name):
            field = item_where or None
            if not isinstance(obj, dict):
                raise InputError(f"expected a Pod, got {describe(obj)}", source=name, field=field)
            kind = obj.get("kind")
            if kind not in MANIFEST_KINDS:
                what = f"kind {kind}" if isinstance(kind, str) and kind else "an object without kind"
                raise InputError(f"{what} cannot be explained: give a Pod manifest",
                                 source=name, field=_join(item_where, "kind"))
            # its shape first, as a snapshot's objects are checked (model/schema.py): a field of
            # the wrong type is named, not tripped over below
            try:
                check_object(obj)
            except InputError as e:
                raise e.located(source=name, field_prefix=item_where or None) from None
            md = obj.get("metadata")
            if not isinstance(md, dict):
                md = obj["metadata"] = {}
            if not md.get("name"):
                if md.get("generateName"):
                    md["name"] = f"{md['generateName']}new"
                else:
                    raise InputError("Pod without metadata.name", source=name, field=_join(item_where, "metadata.name"))
            if not md.get("namespace"):
                md["namespace"] = namespace or "default"
            spec = obj.get("spec")
            if not isinstance(spec, dict):
                raise InputError("Pod without spec", source=name, field=_join(item_where, "spec"))
            # not yet created: the scheduler sees it pending with no history
            spec.pop("nodeName", None)
            obj["status"] = {"phase": "Pending"}
            md.pop("deletionTimestamp", None)
            try:
                Pod(obj).resource  # noqa: B018 - bad quantities fail here, naming the manifest
            except InputError as e:
                raise e.located(source=name, field_prefix=item_where or None) from None
            pods.append(obj)
    if not pods:
        raise InputError("no Pod in the file", source=name)
    return pods


def pod_key(obj: Mapping[str, Any]) -> str:
    md = obj.get("metadata") or {}
    return f"{md.get('namespace') or 'default'}/{md.get('name')}"

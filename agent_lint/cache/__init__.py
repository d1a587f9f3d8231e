"""The cache of per-file outcomes: what a file gives the run, kept until it changes.

A file's outcome (its findings, and the facts repo-wide checks need) is a
pure function of its path, its bytes and the run's settings (see
:mod:`agent_lint.filestep`). The cache keeps one document per *run key*
(agent-lint's version and code, Python and the parsing libraries, the
profile, the whole configuration, the schemas' contents, the repository) in
``.agent_lint_cache/`` at the repository root, or ``--cache-dir``; in it, each
file's outcome under its path and content hash. Repo-wide checks run on
every run, over the merged facts; the places of findings in a file may be
kept too. Entries no run used are dropped when the document is written.

Outcomes are kept in *batches* of at most :data:`BATCH_ROWS`, a column per
field of each type and each distinct string once (:mod:`agent_lint.cache.columns`):
a warm run rebuilds tens of thousands of facts with a few loops in C instead of
a Python call per value, one batch at a time, and drops each batch's text once
decoded, so it holds about what a run without the cache holds. A run that
changes nothing writes nothing; one that checked files again writes the batches
still used back as they were read (read again, each checked against its hash),
plus batches of its new outcomes; when too many rows of a document's batches
are of files no longer used, they are written again.

The repository may be hostile (a fork's pull request), so the cache is
JSON read field by field (:mod:`agent_lint.cache.codec`), never code;
a document is trusted only when its HMAC, made with a key kept outside the
repository, checks out; and the folder is never reached through a link
(:mod:`agent_lint.cache.files`). Anything unexpected means the file is
ignored and rewritten; a place that cannot be written means no cache.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import importlib.util
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from agent_lint import __version__
from agent_lint.cache.codec import (
    CacheFormatError,
    Codec,
    Unencodable,
    outcome_modules,
    registry,
)
from agent_lint.cache.columns import Columns, Table
from agent_lint.cache.files import (
    DEFAULT_DIR,
    DIR_VARIABLE,
    OFF_VARIABLE,
    CacheDir,
    Unavailable,
    open_cache_dir,
    secret_key,
)
from agent_lint.fileio import content_digest
from agent_lint.frozen import replace

if TYPE_CHECKING:
    from agent_lint.config import Config
    from agent_lint.discovery import Target
    from agent_lint.filestep import FileOutcome
    from agent_lint.profile import Profile
    from agent_lint.schemas import SchemaStore

__all__ = [
    "DEFAULT_DIR",
    "DIR_VARIABLE",
    "OFF_VARIABLE",
    "Cache",
    "RunCache",
    "content_digest",
]

#: The layout of a cache document; a document of another layout is ignored.
FORMAT = 4
_MAGIC = b"agent-lint-cache"
_NAME = re.compile(r"[0-9a-f]{32}\.cache")
_DIGEST = re.compile(r"[0-9a-f]{32}")
#: Cache documents kept per folder (one per run key: configurations, repositories).
KEEP_DOCUMENTS = 8
#: A temporary file older than this was left by a run that was killed.
STALE_TEMPORARY_SECONDS = 3600
#: The libraries whose behaviour shapes findings (parsing, schema messages).
_LIBRARIES = ("jsonschema", "jsonschema_rs", "ruamel.yaml", "yaml")
_NOT_KEPT = object()
#: A file changed this close to a run's start may change again within the same
#: time stamp (file systems keep times as coarsely as two seconds): its stamp is
#: not kept, so the next run reads and hashes it (git's "racily clean" rule).
RACY_NANOSECONDS = 3_000_000_000
_NO_STAMP = b"null"
#: The first batch of the outcomes a run checked, until the document is written (the
#: next are -2, -3, ...).
PENDING = -1
#: Outcomes a batch holds at most: a warm run decodes one batch at a time, so the JSON
#: values of a batch being decoded stay small beside the outcomes they make.
BATCH_ROWS = 4096
#: Rows no entry uses that a document may keep (besides a quarter of the used ones),
#: and batches it may hold (besides one per BATCH_ROWS used), before its outcomes are
#: written again.
COMPACT_ROWS = 64
MAX_BATCHES = 64

Span = tuple[int, int, int | None, int | None]
#: A file's size, modification time, inode and change time (ns), as the walk saw them.
Stamp = tuple[int, int, int, int]


def stamp_text(stamp: Stamp) -> bytes:
    """How a stamp is kept in an entry (compared as bytes, never parsed)."""
    return b"[%d,%d,%d,%d]" % stamp


def _code_fingerprint() -> str:
    """agent-lint's own code: a development checkout's edits change the key too."""
    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pending = [package]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                pending.append(entry.path)
            elif entry.name.endswith((".py", ".json")):
                info = entry.stat()
                line = f"{os.path.relpath(entry.path, package)}\0{info.st_size}\0{info.st_mtime_ns}"
                digest.update(line.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _library_versions() -> str:
    """Where the parsing and schema libraries are installed, and when: an upgrade changes it.

    Asking package metadata for versions costs a scan of every installed
    distribution (a quarter of a second on a large environment); the file
    each library is loaded from, its size and time, change with every install.
    """
    found = []
    for name in _LIBRARIES:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None)
        if origin is None:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            origin = spec.origin if spec is not None else None
        try:
            info = os.stat(origin) if origin else None
        except OSError:
            info = None
        stamp = f"{info.st_size}:{info.st_mtime_ns}" if info is not None else "none"
        found.append(f"{name}={origin}:{stamp}")
    return ",".join(found)


def run_key(target: Target, profile: Profile, config: Config, schemas: SchemaStore) -> str:
    """Everything a file's outcome depends on besides its path and bytes, as one digest."""
    parts = [
        f"format={FORMAT}",
        f"agent-lint={__version__}",
        _code_fingerprint(),
        sys.version,
        _library_versions(),
        profile.name,
        repr(replace(config, source=None)),
        schemas.fingerprint(),
        os.path.abspath(target.root),
        os.path.abspath(target.agent_dir),
    ]
    text = "\n".join(parts).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).hexdigest()


class _Entry:
    """One file's entry once this run changed it: where its outcome is, its spans.

    A document holds its outcomes in *batches* (see :mod:`agent_lint.cache.columns`),
    then one line per entry, ``name TAB charge TAB place TAB spans TAB stamp``:
    the name, spans and stamp are JSON texts (JSON never holds a raw tab or
    newline), the place is ``batch:row``, the outcome's row in a batch. The
    name is the content hash (32 hexadecimal digits) then the path. In memory
    an entry is kept by its path, as the *rest* of its line (the content hash
    in place of the name) while nothing of it changes; it is parsed into an
    :class:`_Entry` only when it does. The stamp (see :data:`Stamp`) lets a
    later run take the entry without reading the file while the file's stamp
    is the same.
    """

    __slots__ = ("batch", "charge", "digest", "read", "row", "spans", "spans_text", "stamp")

    def __init__(
        self, digest: bytes, charge: int, batch: int, row: int, spans_text: bytes, stamp: bytes
    ) -> None:
        self.digest = digest
        self.charge = charge
        self.batch = batch  # PENDING or below: the batches this run writes
        self.row = row
        self.spans_text: bytes | None = spans_text
        self.spans: dict[str, Any] | None = None
        self.stamp = stamp
        self.read: bytes | None = None  # the rest of the line as read, while nothing changed

    @classmethod
    def parse(cls, rest: bytes) -> _Entry:
        """The entry of a line's rest; :class:`CacheFormatError` if it is not one."""
        digest, charge, place, spans, stamp = rest.split(b"\t")
        if not charge.isdigit():
            raise CacheFormatError("an entry's YAML charge is a number")
        batch, row = _place(place)
        entry = cls(digest, int(charge), batch, row, spans, stamp)
        entry.read = rest
        return entry

    def rest(self) -> bytes:
        """The entry's line with its content hash in place of its name."""
        if self.read is not None:
            return self.read
        if self.spans_text is None:
            self.spans_text = _dump(self.spans)
        place = b"%d:%d" % (self.batch, self.row)
        return b"\t".join((self.digest, b"%d" % self.charge, place, self.spans_text, self.stamp))


#: A file's entry: the rest of the line it was read from, or an :class:`_Entry` once parsed.
Kept = _Entry | bytes
#: A path JSON writes as it is (printable ASCII, no quote or backslash).
_PLAIN_PATH = re.compile(r"[ !#-\[\]-~]*")


def _digest_of(kept: Kept) -> bytes:
    """The content hash an entry is kept under."""
    return kept[:32] if type(kept) is bytes else kept.digest  # type: ignore[union-attr]


def _place_of(kept: Kept) -> tuple[int, int]:
    """An entry's batch and row."""
    if type(kept) is bytes:
        return _place(kept.split(b"\t", 3)[2])
    return kept.batch, kept.row  # type: ignore[union-attr]


def _placed(kept: Kept, batch: int, row: int) -> Kept:
    """The entry at ``batch`` and ``row`` (parsed only when that is not where it was)."""
    if _place_of(kept) == (batch, row):
        return kept
    entry = _Entry.parse(kept) if type(kept) is bytes else kept
    entry.batch, entry.row, entry.read = batch, row, None  # type: ignore[union-attr]
    return entry


def _line(path: str, kept: Kept) -> bytes:
    """The document's line of the entry of ``path`` (with its newline)."""
    rest = kept if type(kept) is bytes else kept.rest()  # type: ignore[union-attr]
    if _PLAIN_PATH.fullmatch(path):
        name = b'"%s%s"' % (rest[:32], path.encode("ascii"))
    else:
        name = _dump(rest[:32].decode("ascii") + path)
    return name + rest[32:] + b"\n"


def _place(text: bytes) -> tuple[int, int]:
    """An entry's ``batch:row``."""
    batch, colon, row = text.partition(b":")
    if not colon or not batch.isdigit() or not row.isdigit():
        raise CacheFormatError("an entry's place is batch:row")
    return int(batch), int(row)


def _dump(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.encode("ascii")


def _name(text: bytes) -> str:
    """An entry's name from its JSON string: a content hash (32 hexadecimal digits), a path."""
    if text[:1] == b'"' and text[-1:] == b'"' and b"\\" not in text and len(text) > 33:
        value = text[1:-1].decode("ascii")
    else:
        value = json.loads(text)
        if type(value) is not str:
            raise CacheFormatError("an entry's name is a string")
    if not _DIGEST.fullmatch(value, 0, 32):
        raise CacheFormatError("an entry's name starts with a content hash")
    return value


class _Entries:
    """Entries by path (a path's further entries, rare, by content hash and path).

    A file has one entry in all but a command that lints it twice with other
    contents (``--fix``); keyed by its path, an entry needs no name string of its own.
    """

    __slots__ = ("first", "more")

    def __init__(self) -> None:
        self.first: dict[str, Kept] = {}
        self.more: dict[str, Kept] = {}

    def __len__(self) -> int:
        return len(self.first) + len(self.more)

    def find(self, path: str, digest: str) -> Kept | None:
        """The entry of ``path`` with content ``digest``."""
        found = self.first.get(path)
        if found is not None and _digest_of(found) == digest.encode("ascii"):
            return found
        return self.more.get(digest + path) if self.more else None

    def keep(self, path: str, digest: str, kept: Kept) -> None:
        """Keep (or replace) the entry of ``path`` with content ``digest``."""
        found = self.first.get(path)
        if found is None or _digest_of(found) == digest.encode("ascii"):
            self.first[path] = kept
        else:
            self.more[digest + path] = kept

    def take(self, path: str, digest: str) -> None:
        """Forget the entry of ``path`` with content ``digest``."""
        found = self.first.get(path)
        if found is not None and _digest_of(found) == digest.encode("ascii"):
            del self.first[path]
        else:
            self.more.pop(digest + path, None)

    def items(self) -> Iterator[tuple[str, Kept]]:
        """Every entry with its path."""
        yield from self.first.items()
        for name, kept in self.more.items():
            yield name[32:], kept


class RunCache:
    """The entries of one run key: outcomes and spans of files, by path and content hash.

    :meth:`get` and :meth:`put` serve the lint loop; :meth:`spans` and
    :meth:`put_spans` the step that places findings. Entries are validated
    when used; one that is not what agent-lint writes makes the whole
    document untrusted.
    """

    def __init__(
        self, folder: CacheDir, run: str, key: bytes, codec: Codec, config: Config
    ) -> None:
        self.folder = folder
        self.run = run
        self.name = f"{run}.cache"
        self._key = key
        self._codec = codec
        self._yaml_total = config.limits.max_yaml_total_bytes
        self._yaml_document = config.limits.max_yaml_bytes
        self._loaded = _Entries()  # the document's entries, as read
        self._used = _Entries()  # the entries this run used or made
        # Files modified after this (see RACY_NANOSECONDS) get no stamp in their entry.
        self._racy_from = time.time_ns() - RACY_NANOSECONDS
        from agent_lint.filestep import FileOutcome

        self._outcome_type = FileOutcome
        self._changed = False
        self._columns = Columns(codec)
        self._root = codec.types.index(FileOutcome)
        # The batches as read, each dropped once decoded (read again, checked, if needed).
        self._batches: list[bytes | None] = []
        self._places: list[tuple[int, int, bytes]] = []  # each batch's offset, size, hash
        self._decoded: dict[int, list[Any]] = {}  # rows of a decoded batch, None once served
        # The batches of outcomes this run checked: the one being filled as tables, each
        # full one as its text (a few bytes per value, where tables take tens), and their rows.
        self._pending: list[dict[int, Table] | bytes] = []
        self._pending_rows: list[int] = []
        self._last_stamp: tuple[Stamp | None, bytes] = (None, _NO_STAMP)
        #: Whether a decoded batch is frozen out of the cyclic collector's reach: set by a
        #: run that manages the collector and unfreezes it when it ends (see
        #: agent_lint.linter.lint_target).
        self.freeze_decoded = False

    # --- reading and writing the document ------------------------------------------------------

    def load(self) -> None:
        """Read the document of this run key; anything but a valid one is ignored."""
        try:
            data = self.folder.read(self.name)
        except OSError:
            data = None
        if data is None:
            self._changed = True
            return
        try:
            self._parse(data)
        except (CacheFormatError, ValueError, UnicodeDecodeError, RecursionError):
            self._loaded = _Entries()
            self._batches, self._places = [], []
            self._changed = True

    def _mac(self, body: bytes | memoryview) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).hexdigest().encode("ascii")

    def _head(self, mac: bytes) -> bytes:
        return b"%s %d %s\n" % (_MAGIC, FORMAT, mac)

    def signed(self, data: bytes) -> bool:
        """Whether ``data`` is a cache document written with this run's key (any format)."""
        first = data.find(b"\n")
        fields = data[: max(first, 0)].split(b" ")
        if first < 0 or len(fields) != 3 or fields[0] != _MAGIC:
            return False
        with memoryview(data) as view:
            return hmac.compare_digest(fields[2], self._mac(view[first + 1 :]))

    def _header(self) -> bytes:
        return _dump({"format": FORMAT, "run-key": self.run, **self._codec.table}) + b"\n"

    def _parse(self, data: bytes) -> None:
        """Take the entries and batches of a document; none is parsed yet.

        After the header, a line gives the number of batches, one line each.
        Each batch is kept as read until it is decoded, with its place and hash,
        so that it can be read again (and checked) when the document is written.
        """
        first = data.find(b"\n")
        fields = data[: max(first, 0)].split(b" ")
        if first < 0 or len(fields) != 3 or fields[0] != _MAGIC or fields[1] != b"%d" % FORMAT:
            raise CacheFormatError("not an agent-lint cache document of this format")
        with memoryview(data) as view:
            mac = self._mac(view[first + 1 :])
        if not hmac.compare_digest(fields[2], mac):
            raise CacheFormatError("the document's MAC does not match")
        header = self._header()
        start = first + 1 + len(header)
        if data[first + 1 : start] != header:
            raise CacheFormatError("another format, run key or set of types")
        end = data.find(b"\n", start)
        count = data[start:end]
        if end < 0 or not count.isdigit():
            raise CacheFormatError("the number of batches follows the header")
        start = end + 1
        batches: list[bytes | None] = []
        places = []
        for _ in range(int(count)):
            end = data.find(b"\n", start)
            if end < 0:
                raise CacheFormatError("a batch is one line")
            text = data[start:end]
            batches.append(text)
            places.append((start, end - start, _batch_hash(text)))
            start = end + 1
        if data[-1:] not in (b"", b"\n"):
            raise CacheFormatError("a document ends with a newline")
        entries = _Entries()
        first_entries, more = entries.first, entries.more
        for line in data[start:-1].split(b"\n") if start < len(data) else ():
            if line.count(b"\t") != 4:
                raise CacheFormatError("an entry is five JSON texts separated by tabs")
            tab = line.find(b"\t")
            name = _name(line[:tab])
            rest = name[:32].encode("ascii") + line[tab:]
            path = name[32:]
            if path in first_entries:
                more[name] = rest
            else:
                first_entries[path] = rest
        self._loaded = entries
        self._batches, self._places = batches, places

    def save(self) -> None:
        """Write the document if anything changed: the entries this run used, no others.

        The batches still used are written back as they were read (read again
        from the document and checked against their hashes), the outcomes this
        run checked as batches more; when more than a quarter of the rows would
        be of files no longer used (or there would be too many batches), all are
        written again. The document is written a piece at a time, never whole
        in memory; when the document read changed meanwhile, nothing is written.
        """
        if not self._changed and not self._loaded:  # every entry read was used, as it was
            return
        kept = list(self._used.items())
        places = [_place_of(entry) for _, entry in kept]
        sources: list[bytes | int] | None = None
        if self._wasteful(places):
            try:
                sources, places = self._compacted(places)
            except (CacheFormatError, Unencodable, ValueError, RecursionError):
                sources = None  # written back as they are instead
        if sources is None:
            sources, places = self._kept(places)
        moved = zip(kept, places, strict=True)
        kept = [(path, _placed(entry, *place)) for (path, entry), place in moved]
        written: list[tuple[int, int, bytes]] = []

        def write(handle: BinaryIO) -> None:
            mac = hmac.new(self._key, digestmod=hashlib.sha256)
            head = len(self._head(mac.hexdigest().encode("ascii")))
            offset = head
            handle.write(b"\n".rjust(head))  # the head, once the MAC is known
            for is_batch, piece in self._pieces(sources, kept):
                if is_batch:  # the batch's line: where it is, and its hash
                    written.append((offset, len(piece) - 1, _batch_hash(piece[:-1])))
                mac.update(piece)
                handle.write(piece)
                offset += len(piece)
            handle.seek(0)
            handle.write(self._head(mac.hexdigest().encode("ascii")))

        try:
            self.folder.replace(self.name, write)
        except CacheFormatError:
            return  # another run wrote the document since: it stands
        self._changed = False
        self._loaded = _Entries()
        for path, entry in kept:
            rest = entry if type(entry) is bytes else entry.rest()  # type: ignore[union-attr]
            self._loaded.keep(path, rest[:32].decode("ascii"), rest)
        self._used = _Entries()
        self._batches, self._places = [None] * len(written), written
        self._decoded = {}
        self._pending, self._pending_rows = [], []

    def _pieces(
        self, sources: list[bytes | int], kept: list[tuple[str, Kept]]
    ) -> Iterator[tuple[bool, bytes]]:
        """The document after its head, a piece at a time: the header, each batch (a text
        written again, or the number of a batch read), the entries; whether it is a batch."""
        yield False, self._header() + b"%d\n" % len(sources)
        for source in sources:
            yield True, (source if isinstance(source, bytes) else self._text(source)) + b"\n"
        for start in range(0, len(kept), BATCH_ROWS):
            yield (
                False,
                b"".join(_line(path, entry) for path, entry in kept[start : start + BATCH_ROWS]),
            )

    def _rows(self, batch: int) -> int:
        """How many outcomes ``batch`` holds (below zero: this run's)."""
        if batch < 0:
            return self._pending_rows[PENDING - batch]
        return len(self._decoded.get(batch) or ())

    def _wasteful(self, places: list[tuple[int, int]]) -> bool:
        """Whether the batches still used would hold too many rows no entry uses."""
        batches = {batch for batch, _ in places}
        rows = sum(self._rows(batch) for batch in batches)
        most = MAX_BATCHES + len(places) // BATCH_ROWS
        return rows - len(places) > max(COMPACT_ROWS, len(places) // 4) or len(batches) > most

    def _kept(
        self, places: list[tuple[int, int]]
    ) -> tuple[list[bytes | int], list[tuple[int, int]]]:
        """The batches the entries at ``places`` point into (those read in their order, then
        this run's), and the entries' places in the document being written: an edit that
        leaves every batch read in use changes no other entry's place."""
        used = {batch for batch, _ in places}
        order = sorted(b for b in used if b >= 0) + sorted((b for b in used if b < 0), reverse=True)
        numbers = {batch: number for number, batch in enumerate(order)}
        return list(order), [(numbers[batch], row) for batch, row in places]

    def _compacted(
        self, places: list[tuple[int, int]]
    ) -> tuple[list[bytes | int], list[tuple[int, int]]]:
        """The outcomes at ``places``, decoded afresh (one batch at a time) and written again
        in full batches; the places they get."""
        by_batch: dict[int, list[int]] = {}
        for position, (batch, _) in enumerate(places):
            by_batch.setdefault(batch, []).append(position)
        texts: list[bytes | int] = []
        moved = list(places)
        tables: dict[int, Table] = {}
        count = 0
        for batch, positions in by_batch.items():
            rows = self._decoded_batch(batch)
            for position in positions:
                if count == BATCH_ROWS:
                    texts.append(_dump(self._columns.batch(tables)))
                    tables, count = {}, 0
                row = self._columns.add(tables, self._root, rows[places[position][1]])
                moved[position] = (len(texts), row)
                count += 1
        if tables:
            texts.append(_dump(self._columns.batch(tables)))
        return texts, moved

    def _text(self, batch: int) -> bytes:
        """A batch as the document holds it (read again if it was dropped)."""
        if batch < 0:
            pending = self._pending[PENDING - batch]
            return pending if isinstance(pending, bytes) else _dump(self._columns.batch(pending))
        text = self._batches[batch]
        if text is None:
            offset, size, digest = self._places[batch]
            try:
                text = self.folder.read_range(self.name, offset, size)
            except OSError:
                text = None
            if text is None or len(text) != size or _batch_hash(text) != digest:
                raise CacheFormatError("the document changed since it was read")
        return text

    def _decoded_batch(self, batch: int) -> list[Any]:
        """The outcomes of ``batch``, built afresh; :class:`CacheFormatError` if it is not one.

        A batch of the document is dropped once decoded: its outcomes are what
        the run needs, and it is read again only if the document is written.
        """
        if not (0 <= batch < len(self._batches) or 0 <= PENDING - batch < len(self._pending)):
            raise CacheFormatError("an entry's batch is not in the document")
        if self.freeze_decoded and gc.isenabled():
            # Its outcomes live to the end of the run: no collection walks them again,
            # and none runs while they are made (only young garbage is collected first).
            gc.collect(0)
            gc.disable()
            try:
                rows = self._columns.decode(json.loads(self._text(batch)), self._root)
            finally:
                gc.freeze()
                gc.enable()
        else:
            rows = self._columns.decode(json.loads(self._text(batch)), self._root)
        if batch >= 0:
            self._batches[batch] = None
        return rows

    def _outcome(self, batch: int, row: int) -> Any:
        """The outcome at ``row`` of ``batch``: each is handed out once per decoding, so
        no two runs of one command share a value (a second asks for a fresh decoding)."""
        rows = self._decoded.get(batch)
        if rows is None or row >= len(rows) or rows[row] is None:
            rows = self._decoded[batch] = self._decoded_batch(batch)
        if row >= len(rows):
            raise CacheFormatError("an entry's row is not in its batch")
        value = rows[row]
        rows[row] = None
        return value

    def _untrusted(self) -> None:
        """An entry is not what agent-lint writes: drop the document's other entries too."""
        self._loaded = _Entries()
        self._used = _Entries()
        self._batches, self._places = [], []
        self._decoded = {}
        self._changed = True

    # --- file outcomes -------------------------------------------------------------------------

    def _stamp_of(self, stamp: Stamp | None) -> bytes:
        """What an entry keeps of a file's stamp: nothing when it is absent or racy.

        The lint loop asks for the same stamp twice in a row (:meth:`unchanged`,
        then :meth:`get`): the last one is remembered.
        """
        if stamp is None or stamp[1] >= self._racy_from or stamp[3] >= self._racy_from:
            return _NO_STAMP
        last = self._last_stamp
        if last[0] is stamp:
            return last[1]
        text = stamp_text(stamp)
        self._last_stamp = (stamp, text)
        return text

    def unchanged(self, path: str, stamp: Stamp | None) -> str | None:
        """The content hash of ``path`` when its stamp is the one kept with it, else None.

        Like git's index: a file whose size, modification and change times
        and inode are those of the run that hashed it is not read again. A
        stamp is kept only for a file older than its run's start by
        :data:`RACY_NANOSECONDS`, so an edit within one time stamp of the
        run that hashed it is still seen.
        """
        if stamp is None:
            return None
        found = self._loaded.first.get(path)
        if found is None:
            found = self._used.first.get(path)  # a second run of one command
            if found is None:
                return None
        kept = self._stamp_of(stamp)
        if type(found) is bytes:
            if kept == _NO_STAMP or found.rpartition(b"\t")[2] != kept:
                return None
            return found[:32].decode("ascii")
        entry: _Entry = found  # type: ignore[assignment]
        if kept == _NO_STAMP or entry.stamp != kept:
            return None
        return entry.digest.decode("ascii")

    def fresh(
        self, path: str, stamp: Stamp | None, yaml_spent: int
    ) -> tuple[str, FileOutcome] | None:
        """The content hash and outcome of ``path`` when its stamp is the one kept with it.

        What :meth:`unchanged` then :meth:`get` give, in one step for a warm
        run's usual file: an entry as the document holds it, of a path this run
        has not used yet. Any other case takes those two steps.
        """
        found = self._loaded.first.get(path)
        if type(found) is not bytes or path in self._used.first or self._used.more:
            known = self.unchanged(path, stamp)
            served = None if known is None else self.get(path, known, yaml_spent, stamp)
            return None if known is None or served is None else (known, served)
        kept = self._stamp_of(stamp)
        if kept == _NO_STAMP:
            return None
        try:
            digest, charge, place, _, stamp_read = found.split(b"\t")
            if stamp_read != kept:
                return None
            if not charge.isdigit():
                raise CacheFormatError("an entry's YAML charge is a number")
            batch, row = _place(place)
            spent = yaml_spent + int(charge)
            if spent > self._yaml_total:
                return None
            outcome = self._file_outcome(batch, row)
        except (CacheFormatError, ValueError, RecursionError):
            self._untrusted()
            return None
        del self._loaded.first[path]  # the entry moves to those this run uses
        self._used.first[path] = found
        return digest.decode("ascii"), self._charged(outcome, spent)

    def holds(self, path: str, digest: str) -> bool:
        """Whether an entry for ``path`` with content ``digest`` is kept (read only: a worker
        process asks it before checking a file whose outcome :meth:`get` may give)."""
        return (
            self._used.find(path, digest) is not None or self._loaded.find(path, digest) is not None
        )

    def get(
        self, path: str, digest: str, yaml_spent: int, stamp: Stamp | None = None
    ) -> FileOutcome | None:
        """The outcome of ``path`` with content ``digest``, when it is still valid here.

        ``yaml_spent`` is the run's YAML budget spent before this file: an
        entry serves only when the YAML it charged still fits in the budget.
        ``stamp`` is the file's stamp as the walk saw it, kept with the entry
        (None, for a file read without one, leaves the entry's stamp as it is).
        No two calls hand out the same value (see :meth:`_outcome`).
        """
        found = self._used.find(path, digest)
        read = found is None
        if read:
            found = self._loaded.find(path, digest)
            if found is None:
                return None
        try:
            if type(found) is bytes:
                _, charge, place, _, stamp_read = found.split(b"\t")
                if not charge.isdigit():
                    raise CacheFormatError("an entry's YAML charge is a number")
                batch, row = _place(place)
                charged = int(charge)
            else:
                entry: _Entry = found  # type: ignore[assignment]
                batch, row, charged, stamp_read = entry.batch, entry.row, entry.charge, entry.stamp
            if yaml_spent + charged > self._yaml_total:
                return None
            outcome = self._file_outcome(batch, row)
        except (CacheFormatError, ValueError, RecursionError):
            self._untrusted()
            return None
        # A file read without a stamp (from git's objects, or just written by --fix) says
        # nothing of the file on disk now: the stamp kept with its content stays.
        kept = stamp_read if stamp is None else self._stamp_of(stamp)
        if stamp_read != kept:
            if type(found) is bytes:
                found = _Entry.parse(found)
            found.stamp, found.read = kept, None  # type: ignore[union-attr]
            self._changed = True
        if read:  # the entry moves to those this run uses
            self._loaded.take(path, digest)
        self._used.keep(path, digest, found)  # type: ignore[arg-type]
        return self._charged(outcome, yaml_spent + charged)

    def _file_outcome(self, batch: int, row: int) -> FileOutcome:
        """The outcome stored at ``row`` of ``batch``; CacheFormatError when it is not one."""
        outcome = self._outcome(batch, row)
        if type(outcome) is not self._outcome_type:
            raise CacheFormatError("an entry does not hold a file's outcome")
        return outcome

    def _charged(self, outcome: FileOutcome, spent: int) -> FileOutcome:
        """``outcome`` with the run's YAML budget spent up to and including its file."""
        if spent == outcome.yaml_spent:  # kept as 0: no YAML spent yet, and none charged
            return outcome
        diagnostics, facts, title, shows, _, parsed = outcome
        return self._outcome_type(diagnostics, facts, title, shows, spent, parsed)

    def put(
        self,
        path: str,
        digest: str,
        yaml_spent: int,
        outcome: FileOutcome,
        stamp: Stamp | None = None,
    ) -> None:
        """Keep ``outcome``, checked with ``yaml_spent`` of the YAML budget spent before it.

        An outcome is kept only when the budget could not have changed it: its
        YAML was charged, or no YAML document could have gone past the budget.
        """
        charge = outcome.yaml_spent - yaml_spent
        if charge <= 0 and yaml_spent + self._yaml_document > self._yaml_total:
            return
        pending, rows = self._pending, self._pending_rows
        if not pending or rows[-1] >= BATCH_ROWS:
            if pending:
                pending[-1] = self._text(PENDING - len(pending) + 1)  # full: kept as its text
            pending.append({})
            rows.append(0)
        batch = PENDING - len(pending) + 1
        tables = pending[-1]
        assert isinstance(tables, dict)  # the batch being filled
        try:
            row = self._columns.add(tables, self._root, outcome._replace(yaml_spent=0))
        except (Unencodable, ValueError, RecursionError):
            return
        rows[-1] = row + 1
        entry = _Entry(
            digest.encode("ascii"), max(charge, 0), batch, row, b"{}", self._stamp_of(stamp)
        )
        self._loaded.take(path, digest)
        self._used.keep(path, digest, entry)
        self._changed = True

    # --- places of findings --------------------------------------------------------------------

    def _spans_of(self, path: str, digest: str) -> _Entry | None:
        """The entry of ``path`` this run used, parsed, its spans read; None without one."""
        found = self._used.find(path, digest)
        if found is None:
            return None
        try:
            entry = _Entry.parse(found) if isinstance(found, bytes) else found
            if entry.spans is None:
                spans = json.loads(entry.spans_text or b"{}")
                if type(spans) is not dict:
                    raise CacheFormatError("an entry's spans are an object")
                entry.spans = spans
        except (CacheFormatError, ValueError, RecursionError):
            self._untrusted()
            return None
        if entry is not found:
            self._used.keep(path, digest, entry)
        return entry

    def spans(
        self, path: str, digest: str, wanted: list[tuple[str, str]]
    ) -> list[Span | None] | None:
        """Where each ``(pointer, target)`` is in the file (None: nowhere); None unless all kept."""
        entry = self._spans_of(path, digest)
        if entry is None or entry.spans is None:
            return None
        kept = entry.spans
        found: list[Span | None] = []
        for pointer, target in wanted:
            span = kept.get(f"{pointer}\0{target}", _NOT_KEPT)
            if span is _NOT_KEPT:
                return None
            if span is not None and not _is_span(span):
                self._untrusted()
                return None
            found.append(None if span is None else (span[0], span[1], span[2], span[3]))
        return found

    def put_spans(
        self, path: str, digest: str, wanted: list[tuple[str, str]], spans: list[Span | None]
    ) -> None:
        """Keep where each ``(pointer, target)`` is in the file with content ``digest``."""
        entry = self._spans_of(path, digest)
        if entry is None or entry.spans is None:
            return
        for (pointer, target), span in zip(wanted, spans, strict=True):
            entry.spans[f"{pointer}\0{target}"] = None if span is None else list(span)
        entry.spans_text = entry.read = None
        self._changed = True


def _batch_hash(text: bytes) -> bytes:
    """What a batch read again is checked against."""
    return hashlib.blake2b(text, digest_size=16).digest()


def _is_span(value: Any) -> bool:
    """``[line, column, end line or null, end column or null]``."""
    return (
        type(value) is list
        and len(value) == 4
        and all(type(v) is int for v in value[:2])
        and all(v is None or type(v) is int for v in value[2:])
    )


class Cache:
    """The cache of one command: the run caches of every repository and run key it lints.

    ``directory`` is ``--cache-dir`` (or ``$AGENT_LINT_CACHE_DIR``); by
    default each repository keeps its own ``.agent_lint_cache/``. Nothing is
    written before :meth:`save`. ``notices`` says why the cache was not used
    (at most one line is shown).
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self.notices: list[str] = []
        self._runs: dict[tuple[str, str], RunCache] = {}
        self._folders: dict[str, CacheDir | None] = {}

    def for_run(
        self, target: Target, profile: Profile, config: Config, schemas: SchemaStore
    ) -> RunCache | None:
        """The run cache of this repository and configuration; None when there can be none."""
        root = os.path.abspath(target.root)
        folder = self._folder(target.root)
        if folder is None:
            return None
        run = run_key(target, profile, config, schemas)
        found = self._runs.get((root, run))
        if found is None:
            try:
                key = secret_key(target.root)
            except Unavailable as exc:
                self._notice(str(exc))
                return None
            collectors = [type(c).__module__ for c in profile.collectors]
            collectors += [c.store.__module__ for c in profile.collectors]
            codec = Codec(*registry(outcome_modules(collectors)))
            found = self._runs[(root, run)] = RunCache(folder, run, key, codec, config)
            found.load()
        return found

    def _folder(self, root: Path) -> CacheDir | None:
        where = os.path.abspath(root)
        if where not in self._folders:
            try:
                self._folders[where] = open_cache_dir(root, self.directory)
            except Unavailable as exc:
                self._notice(f"no cache: {exc}")
                self._folders[where] = None
        return self._folders[where]

    def _notice(self, message: str) -> None:
        if message not in self.notices:
            self.notices.append(message)

    def save(self) -> None:
        """Write every run cache that changed, drop old documents, and close the folders."""
        for run in self._runs.values():
            try:
                run.save()
            except OSError as exc:
                self._notice(f"cache not written in {run.folder.path}: {exc.strerror or exc}")
        for folder in self._folders.values():
            if folder is not None:
                runs = [r for r in self._runs.values() if r.folder is folder]
                if runs:
                    _prune(folder, {r.name for r in runs}, runs[0].signed)
                folder.close()
        self._folders = {}
        self._runs = {}


def _prune(folder: CacheDir, current: set[str], signed: Callable[[bytes], bool]) -> None:
    """Keep the newest documents (and the ones this command used); drop leftovers.

    Only a document agent-lint wrote with this user's key (``signed``) is
    ever deleted: a file someone committed under a cache-like name stays.
    """
    try:
        listed = list(folder.files())
    except OSError:
        return
    documents = sorted(
        ((mtime, name) for name, mtime in listed if _NAME.fullmatch(name)), reverse=True
    )
    kept = 0
    for _, name in documents:
        if name in current or kept < KEEP_DOCUMENTS:
            kept += 1
            continue
        data = folder.read(name)
        if data is not None and signed(data):
            folder.remove(name)
    now = time.time()
    for name, mtime in listed:
        if name.endswith(".tmp") and name.startswith(".") and now - mtime > STALE_TEMPORARY_SECONDS:
            folder.remove(name)


def from_environment(no_cache: bool, directory: Path | None) -> Cache | None:
    """The command's cache: off with ``--no-cache`` or ``$AGENT_LINT_NO_CACHE``, else on.

    ``directory`` is ``--cache-dir``; without it, ``$AGENT_LINT_CACHE_DIR``.
    """
    if no_cache or os.environ.get(OFF_VARIABLE, "") not in ("", "0", "false"):
        return None
    if directory is None and os.environ.get(DIR_VARIABLE):
        directory = Path(os.environ[DIR_VARIABLE])
    return Cache(directory)

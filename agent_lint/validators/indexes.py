"""AL304-AL307: index files agree with the records they list."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterator

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.frozen import record
from agent_lint.index import IndexEntry, ListedRecord, RepoIndex
from agent_lint.jsontext import clip, escape_token, quote
from agent_lint.kinds import NameRule
from agent_lint.profile import Profile
from agent_lint.schemas import parse_timestamp
from agent_lint.selection import is_selected
from agent_lint.validators.identity import renamed_files, renamed_folders
from agent_lint.validators.references import DANGLING_REFERENCE, Absent, resolver_of
from agent_lint.validators.schema import MISSING_FIELD

UNRESOLVED_ENTRY = Rule(
    "AL304",
    "index-entry-unresolved",
    "An index entry points at a missing record or one with another id",
    "Reports an entry of `decisions/index.json`, `waitpoints/index.json`, "
    "`inbox/index.json`, `runs/index.json`, `sessions/index.json` or `tasks/index.json` "
    "whose `path` names no record of the kind, or whose record carries a different id. "
    "Agents that read the index instead of scanning the folder are sent nowhere. With "
    '`completeness = "partial"` entries whose record file is absent are summed up in one '
    "info finding per index. An index the profile regenerates (Astrion's "
    "`conversations/index.json`) is repaired by `agent-lint --fix`.",
    '{"decision_id": "D-002", "path": ".agent/decisions/D-2.json", …}',
    '{"decision_id": "D-002", "path": ".agent/decisions/D-002.json", …}',
)
INDEX_FIELD_MISMATCH = Rule(
    "AL305",
    "index-field-mismatch",
    "An index entry repeats a field that disagrees with its record",
    "Reports an index entry whose `status`, `type`, `updated_at` or other repeated field "
    "differs from the record it points at. The record was updated and its index entry was "
    "not, so a dashboard or an agent reading the index sees stale state. An index the "
    "profile regenerates (Astrion's `conversations/index.json`) is repaired by "
    "`agent-lint --fix`.",
    'index: {"decision_id": "D-001", "status": "open"}; record: "status": "approved"',
    'index: {"decision_id": "D-001", "status": "approved"}',
)
NOT_INDEXED = Rule(
    "AL306",
    "record-not-indexed",
    "A record is missing from its kind's index",
    "Reports a record of a kind that has an index file (decisions, waitpoints, inbox, runs, "
    "sessions, tasks) that the index does not list. Every record must be listed exactly "
    "once when the index exists. The runtime ships `runs/index.json` and "
    "`sessions/index.json` empty and never writes them: while such an index lists nothing "
    "it is not taken as maintained, and its records are reported only with `strict = true`. "
    "An index the profile regenerates (Astrion's `conversations/index.json`) is repaired by "
    "`agent-lint --fix`.",
    "decisions/D-005.json exists but decisions/index.json does not list it",
    "an entry for D-005 in decisions/index.json",
)
DUPLICATE_ENTRY = Rule(
    "AL307",
    "duplicate-index-entry",
    "An index lists the same record twice",
    "Reports an index entry for a record that an earlier entry of the same index already "
    "lists. Readers may take either entry.",
    "two entries with path .agent/decisions/D-001.json",
    "one entry per record",
)

RULES = (UNRESOLVED_ENTRY, INDEX_FIELD_MISMATCH, NOT_INDEXED, DUPLICATE_ENTRY)
_CODES = frozenset(rule.code for rule in RULES)


def _show(value: object) -> str:
    return quote(value)


def _strict_fields(entries: list[IndexEntry]) -> Iterator[Diagnostic]:
    """With ``strict = true``: entry fields the runtime's writer omits, once per (index, field)."""
    missing: dict[tuple[str, str], list[IndexEntry]] = defaultdict(list)
    for entry in entries:
        for name in entry.missing:
            missing[(entry.path, name)].append(entry)
    for (path, name), owners in sorted(missing.items()):
        first = owners[0]
        count = len(owners) - 1
        more = f" (and {count} more entr{'y' if count == 1 else 'ies'})" if count else ""
        array, position = first.pointer.strip("/").split("/")
        yield MISSING_FIELD.at(
            path,
            f'missing required field "{name}" (strict) in {array}[{position}]{more}',
            pointer=first.pointer,
            key=f"{name} (strict)",
        )


def check_indexes(index: RepoIndex) -> Iterator[Diagnostic]:
    """Index entries resolve, agree with their records, and list every record once.

    The findings on an index the profile's ``--fix`` regenerates are fixable.
    """
    assert index.profile is not None
    derived = set()
    for record_kind, path in index.index_files.items():
        listing = index.profile.index_of(record_kind)
        if listing is not None and listing.index is not None and listing.index.derived:
            derived.add(path)
    for diagnostic in _index_findings(index):
        if diagnostic.path in derived and diagnostic.code in _CODES:
            diagnostic = diagnostic.with_fixable(True)
        yield diagnostic


class _RecordTypos:
    """Tells an index entry that disagrees with its record because the record mistyped an id.

    ``"decision_id": "D-0004"`` in a waitpoint whose index entry has ``"D-004"`` is one
    fact: the record's reference dangles (AL301, with its "did you mean"), and the
    index, which names an existing record, is right. The record's references are
    looked up by place only when an entry disagrees (rarely), once per run.
    """

    def __init__(self, index: RepoIndex) -> None:
        self.index = index
        self._by_place: dict[tuple[str, str], tuple[str, str]] | None = None

    def in_record(self, record: ListedRecord, name: str, listed: object) -> bool:
        """Whether ``record``'s value of the index field ``name`` is a reference that
        names nothing (and AL301 reports it there) while the index's ``listed`` value
        names a record."""
        index = self.index
        assert index.profile is not None
        listing = index.profile.index_of(record.kind)
        steps = dict(listing.index.fields).get(name) if listing and listing.index else None
        if not steps or not isinstance(listed, str):
            return False
        if self._by_place is None:
            self._by_place = {(r.path, r.pointer): (r.namespace, r.scope) for r in index.references}
        pointer = "".join(f"/{escape_token(step)}" for step in steps)
        where = self._by_place.get((record.path, pointer))
        if where is None or not is_selected(DANGLING_REFERENCE.code, index.config, record.path):
            return False
        if index.config.partial and where[1] == "":
            return False  # AL301 sums such references up as records maybe not committed
        resolver = resolver_of(index)
        written = dict(record.values)[name]
        return (
            isinstance(written, str)
            and not resolver.exists(*where, written)
            and resolver.exists(*where, listed)
        )


def _index_findings(index: RepoIndex) -> Iterator[Diagnostic]:
    assert index.profile is not None
    profile = index.profile
    records: dict[str, ListedRecord] = {record.path: record for record in index.listed}
    # An index keyed by id names its records by their file or folder name.
    by_name = {(record.kind, record.stem): record.path for record in index.listed}
    # A folder renamed away from its record's id is still listed by that id (its AL202).
    renamed_folder = renamed_folders(index)
    renamed = renamed_files(index)
    for listed_record in index.listed:
        named = renamed_folder.get(posixpath.dirname(listed_record.path))
        if named is not None:
            by_name.setdefault((listed_record.kind, posixpath.basename(named)), listed_record.path)
    listed: dict[str, set[str]] = defaultdict(set)
    listed_ids: dict[str, set[str]] = defaultdict(set)  # the ids each index lists
    absent = Absent()
    holders = None  # built at the first entry naming no record
    typos = _RecordTypos(index)
    if index.config.strict:
        yield from _strict_fields(index.index_entries)
    for entry in index.index_entries:
        title = profile.kind(entry.record_kind).title
        if entry.record_path is None:
            if not _keyed(profile, entry) or entry.id is None:
                continue
            keyed = by_name.get((entry.record_kind, entry.id))
            if keyed is None:
                yield from _unnamed(index, entry)
                continue
            entry = entry._replace(record_path=keyed)
        assert entry.record_path is not None
        if entry.id is not None:
            listed_ids[entry.path].add(entry.id)
        target = posixpath.normpath(index.in_repository(entry.record_path))
        index.lookups += 1
        if target in listed[entry.path]:
            yield DUPLICATE_ENTRY.at(
                entry.path,
                f"{target} is listed more than once in this index",
                pointer=entry.pointer,
            )
            continue
        listed[entry.path].add(target)
        if target in index.unparsed_paths or target in index.unclassified_paths:
            continue  # the record file's own finding (AL001, AL205) says what is wrong
        if target in renamed:
            continue  # the record holds its id under another name: its AL202
        record = records.get(target)
        if record is None or record.kind != entry.record_kind:
            if holders is None:
                holders = _holders(index)
            moved = holders.get((entry.record_kind, entry.id))
            moved = moved if moved != target else None
            finding = UNRESOLVED_ENTRY.at(
                entry.path,
                f"entry path {quote(entry.record_path)} names no {title} record"
                + (f"; {title} {quote(entry.id)} is at {moved}" if moved else ""),
                pointer=f"{entry.pointer}/path",
            )
            if index.config.partial and record is None:
                absent.add(posixpath.dirname(target), entry.id or target, finding)
            else:
                yield finding
            continue
        if entry.id is not None and record.id is not None and entry.id != record.id:
            if record.stem == entry.id or record.stem.startswith(entry.id + "-"):
                continue  # the index agrees with the file name; AL201/AL202 report the record
            yield UNRESOLVED_ENTRY.at(
                entry.path,
                f"entry id {quote(entry.id)} but {target} is {title} {quote(record.id)}",
                pointer=entry.pointer,
            )
            continue
        values = dict(record.values)
        for name, value in entry.fields:
            if name in values and not same_value(values[name], value):
                if typos.in_record(record, name, value):
                    continue  # the record's AL301 is the finding: the index has it right
                if not record.clean:
                    continue  # the record's own error (a status "opne") comes first
                yield INDEX_FIELD_MISMATCH.at(
                    entry.path,
                    f"{name} {_show(value)} disagrees with {target}, which has "
                    f"{_show(values[name])}",
                    pointer=f"{entry.pointer}/{name}",
                )
            elif name not in values and record.clean:
                yield INDEX_FIELD_MISMATCH.at(
                    entry.path,
                    f"{name} {_show(value)} is not in {target}",
                    pointer=f"{entry.pointer}/{name}",
                )
    yield from absent.summaries()
    for record in index.listed:
        index_path = index.index_files.get(record.kind)
        if index_path is None or record.path in listed[index_path]:
            continue
        if index_path not in index.index_sizes:
            continue  # no listing (a wrong key, an unreadable entry): its findings say so
        if record.id is not None and record.id in listed_ids[index_path]:
            continue  # listed at another file: a stale path (AL304) or a copy (AL203)
        listing = profile.index_of(record.kind)
        spec = listing.index if listing is not None else None
        assert spec is not None
        if (
            not spec.maintained
            and not index.index_sizes.get(index_path)
            and not index.config.strict
        ):
            continue  # shipped empty and never written by the runtime
        named = f" ({clip(record.id)})" if record.id else ""
        yield NOT_INDEXED.at(
            index_path,
            f"{record.path}{named} is not listed in this index",
            pointer=f"/{spec.array}" if spec.array else "",
        )


def same_value(held: object, listed: object) -> bool:
    """Whether an index entry's value is the record's: equal, or the same moment written
    two ways (``08:00:00Z`` and ``09:00:00+01:00``, ``08:00:00.000Z``)."""
    if held == listed:
        return True
    if not (isinstance(held, str) and isinstance(listed, str)):
        return False
    moment = parse_timestamp(held)
    return moment is not None and moment == parse_timestamp(listed)


def _holders(index: RepoIndex) -> dict[tuple[str, str | None], str | None]:
    """The path of the record of each (kind, id), None where several hold it: where an
    index entry whose path names no record should point (the record was renamed)."""
    holders: dict[tuple[str, str | None], str | None] = {}
    for listed in index.listed:
        if listed.id is not None:
            key = (listed.kind, listed.id)
            holders[key] = None if key in holders else listed.path
    return holders


def _unnamed(index: RepoIndex, entry: IndexEntry) -> Iterator[Diagnostic]:
    """AL304 for an entry of an index keyed by id whose key names no record.

    A record file or folder of that name that was not read (it does not
    parse) has a finding of its own, so the entry is not reported again.
    """
    assert index.profile is not None and entry.id is not None
    kind = index.profile.kind(entry.record_kind)
    namespace = index.namespaces.get(kind.namespace or "")
    if namespace is None or (kind.namespace, "", entry.id) in index.names:
        return
    folder = posixpath.join(index.agent_prefix, namespace.folder, entry.id)
    if kind.name_rule is NameRule.DIR and folder in _folders(index):
        return  # the folder is there; what it lacks is not the index's to say
    what = "folder" if kind.name_rule is NameRule.DIR else f"{kind.title} record"
    yield UNRESOLVED_ENTRY.at(
        entry.path,
        f"entry {clip(entry.id)} names no {what} under {namespace.folder}/",
        pointer=entry.pointer,
    )


@record
class _Folders:
    """The folders that hold a file of the walk, built once per run when needed."""

    present: set[str] | None = None


def _folders(index: RepoIndex) -> set[str]:
    store = index.store(_Folders)
    if store.present is None:
        store.present = set()
        for path in index.walked:
            folder = posixpath.dirname(path)
            while folder and folder not in store.present:
                store.present.add(folder)
                folder = posixpath.dirname(folder)
    return store.present


def _keyed(profile: Profile, entry: IndexEntry) -> bool:
    """Whether ``entry`` names its record by id: an object keyed by id, or entries by id."""
    listing = profile.index_of(entry.record_kind)
    spec = listing.index if listing is not None else None
    return spec is not None and (not spec.array or spec.by_id)

"""AL2xx: record ids, their patterns, their file or folder names, and uniqueness."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import PurePosixPath

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.frozen import record
from agent_lint.index import FileContext, Identity, RepoIndex
from agent_lint.jsontext import INTEGER, clip, quote
from agent_lint.kinds import Kind, NameRule, shown, whole
from agent_lint.profile import Profile
from agent_lint.selection import reported_as_error

INVALID_ID = Rule(
    "AL201",
    "invalid-id",
    "A record id does not match its kind's id pattern",
    "Reports an id that does not have its kind's shape: decisions are `D-…`, waitpoints "
    "`WP-…`, missions `M-…`, milestones `MS-…`, conversations `C-…`, conversation handoffs "
    "`H-` followed by three or more digits. Reference checks and humans find records by these "
    "prefixes.",
    '{"handoff_id": "H-2"}  (in conversations/C-1/handoffs/)',
    '{"handoff_id": "H-002"}',
)
ID_NAME_MISMATCH = Rule(
    "AL202",
    "id-name-mismatch",
    "A record id differs from its file or folder name",
    "Reports a record whose id is not the name it is stored under: a handoff file `H-002.json` "
    "whose `handoff_id` is `H-2`, a conversation folder `C-7` whose `meta.json` says `C-8`, or "
    "a turn file `0004.yaml` whose `turn` is 3. Agents look records up by file name, so a "
    "drifted id points them at the wrong record. Decisions, waitpoints, inbox messages, "
    "memory, runs and sessions may add a `-slug` to the id in the file name "
    '(`file-name-rule = "prefix"`, the default) or must match it exactly (`"exact"`). A '
    "handoff named by its time as the runtime writes it (`20260804-200000-<focus>.json`) "
    'carries any id; with `strict = true` its id must be "H-" + the file name.',
    'decisions/D-2.json containing {"decision_id": "D-1"}',
    'decisions/D-1.json (or decisions/D-1-choose-db.json) containing {"decision_id": "D-1"}',
)
DUPLICATE_ID = Rule(
    "AL203",
    "duplicate-id",
    "Two records share an id within their scope",
    "Reports a record whose id is already used by another record of the same kind in the same "
    "scope: the conversation for conversation handoffs, the mission for milestones, the whole "
    "repository for everything else. A reference to that id would be ambiguous.",
    "decisions/D-1.json and decisions/D-1-old.json both with decision_id D-1",
    "one record per id; give the second record its own id",
    covers=("AL202",),  # the copy's id then disagrees with its name too: one fact
)
INVALID_FILE_NAME = Rule(
    "AL204",
    "invalid-file-name",
    "A turn file name is not a zero-padded number",
    "Reports a file in a conversation's `turns/` folder whose name is not a number of at "
    "least four digits (`0001.yaml`). Turns are ordered by file name; `12.yaml` sorts before "
    "`2.yaml`.",
    "conversations/C-1/turns/12.yaml",
    "conversations/C-1/turns/0012.yaml",
)

UNCLASSIFIED_FILE = Rule(
    "AL205",
    "unclassified-file",
    "A data file in a record folder matches no record kind",
    "Reports a `.json` or `.yaml` file inside a record folder (`decisions/`, `memory/`, "
    "`conversations/<C>/turns/`, …) whose name matches no record kind, so no schema, id or "
    "reference check reads it: a lower-case prefix (`d-foo.json`), an upper-case extension "
    "(`D-foo.JSON`), a nested folder (`decisions/sub/D-001.json`), a turn saved as JSON. "
    "The message names the kind the file resembles and the name it should have. Files the "
    "runtime ships beside records (`*.schema.json`, `sample.json`) are not records and are "
    "not reported; `agent-lint --show-files` lists how every file was read.",
    "decisions/d-foo.json",
    "decisions/D-foo.json",
)
RULES = (
    INVALID_ID,
    ID_NAME_MISMATCH,
    DUPLICATE_ID,
    INVALID_FILE_NAME,
    UNCLASSIFIED_FILE,
)


#: A name that is a number (a turn file's stem).
_NUMBER = whole("[0-9]+")


def _check_numbered(ctx: FileContext) -> Iterator[Diagnostic]:
    """A file named by a number (:attr:`NameRule.TURN`): four digits or more, equal to its id."""
    kind, stem = ctx.kind, ctx.groups["stem"]
    number = int(stem) if _NUMBER.match(stem) else None
    if number is None or len(stem) < 4:
        file_name = PurePosixPath(ctx.path).name
        yield INVALID_FILE_NAME.at(
            ctx.path,
            f'{kind.title} file name "{file_name}" must be a number of at least 4 digits, '
            f"such as {stem.zfill(4) if number is not None else '0001'}.yaml",
            line=1,
            column=1,
        )
        return
    if kind.id_field is None or not isinstance(ctx.data, dict):
        return
    value = ctx.data.get(kind.id_field)
    if isinstance(value, INTEGER) and not isinstance(value, bool) and value != number:
        name = PurePosixPath(ctx.path)
        # Which of the two is wrong the file alone cannot tell: a file renamed out of its
        # place (a gap where it belongs) or a turn number copied with the file.
        small = 0 <= value < 10**20  # a number a file name can carry
        renamed = f"{str(int(value)).zfill(len(stem))}{name.suffix}" if small else None
        rename = f"; or, if this is {kind.id_field} {value}, rename the file to {renamed}"
        # Keyed by the name it would take: a repo-wide step drops the advice where a file
        # of that name exists (rename_targets_taken), and the fingerprint stays the same.
        yield ID_NAME_MISMATCH.at(
            ctx.path,
            f"{kind.id_field} {quote(value)} does not match its file name {name.name} "
            f"(expected {kind.id_field}: {number}{rename if renamed else ''})",
            pointer=f"/{kind.id_field}",
            key=str(name.with_name(renamed)) if renamed else "",
        )


def _name_mismatch(ctx: FileContext, value: str, integer: bool = False) -> str | None:
    """Describe how ``value`` disagrees with the file or folder name, if it does.

    Renaming is suggested only when ``value`` itself is a well-formed id. An
    ``integer`` id is written as the record writes it, without quotes.
    """
    kind, field = ctx.kind, ctx.kind.id_field
    renamable = kind.id_pattern is None or bool(kind.id_pattern.match(value))
    if kind.name_rule is NameRule.DIR and kind.folder:
        folder = ctx.groups[kind.folder]
        if folder == value:
            return None
        rename = f", or rename the folder to {clip(value)}" if renamable else ""
        said, expected = (value, folder) if integer else (quote(value), f'"{folder}"')
        if integer and not folder.isdigit():  # no integer id matches this folder
            return f"{field} {said} does not match its folder name {folder} ({rename[5:]})"
        return (
            f"{field} {said} does not match its folder name {folder} "
            f"(expected {field} {expected}{rename})"
        )
    stem = ctx.groups.get("stem")
    if stem is None or stem == value:
        return None
    exact = ctx.config.file_name_rule == "exact"
    if kind.name_rule is NameRule.SLUG and not exact and stem.startswith(value + "-"):
        return None  # the id and a slug: the name agents give these records
    name = PurePosixPath(ctx.path)
    file_name, suffix = name.name, name.suffix
    prefix = kind.timed_prefix
    if kind.name_rule is NameRule.TIMED and not stem.startswith(prefix):
        # The runtime names a record by its time and never ties the id to that name;
        # only strict mode asks for the prefix + the file name.
        if value == prefix + stem or not ctx.config.strict:
            return None
        return (
            f"{field} {quote(value)} does not match its file name {file_name} "
            f"(expected {field} {quote(prefix + stem)})"
        )
    if kind.name_rule in (NameRule.STEM, NameRule.TIMED) or (
        kind.name_rule is NameRule.SLUG and exact
    ):
        if renamable and kind.id_pattern is not None and not kind.id_pattern.match(stem):
            return (
                f"{field} {quote(value)} does not match its file name {file_name}, which is not "
                f"a valid {kind.title} id ({shown(kind.id_pattern)}); rename the file to "
                f"{clip(value + suffix)}"
            )
        rename = f", or rename the file to {clip(value + suffix)}" if renamable else ""
        return (
            f"{field} {quote(value)} does not match its file name {file_name} "
            f'(expected {field} "{stem}"{rename})'
        )
    if kind.name_rule is NameRule.SLUG and not stem.startswith(value + "-"):
        return (
            f"{field} {quote(value)} does not match its file name {file_name} "
            f"(expected a file named {clip(value + suffix)} or {clip(value)}-<slug>{suffix})"
        )
    return None


def check_identity(ctx: FileContext) -> Iterator[Diagnostic]:
    """Check the record's id pattern and its agreement with the file or folder name."""
    kind = ctx.kind
    if kind.name_rule is NameRule.TURN:
        yield from _check_numbered(ctx)
        return
    if not isinstance(ctx.data, dict) or kind.id_field is None:
        return
    value = ctx.data.get(kind.id_field)
    integer = kind.integer_id and isinstance(value, int) and not isinstance(value, bool)
    if integer:
        value = str(value)  # an integer id is named in decimal
    if isinstance(value, str):
        mismatch = _name_mismatch(ctx, value, integer)
        if kind.id_pattern and not kind.id_pattern.match(value):
            name = ctx.groups.get(kind.folder or "stem")
            adoptable = kind.name_rule in (NameRule.STEM, NameRule.DIR, NameRule.TIMED)
            if mismatch and name and adoptable and kind.id_pattern.match(name):
                # The file name is a valid id: adopting it fixes both problems.
                yield ID_NAME_MISMATCH.at(ctx.path, mismatch, pointer=f"/{kind.id_field}")
            else:
                yield INVALID_ID.at(
                    ctx.path,
                    f"{kind.id_field} {quote(value)} does not match the {kind.title} id pattern "
                    f"{shown(kind.id_pattern)}",
                    pointer=f"/{kind.id_field}",
                )
        elif mismatch:
            yield ID_NAME_MISMATCH.at(ctx.path, mismatch, pointer=f"/{kind.id_field}")
    for sub in kind.sub_ids:
        entries = ctx.data.get(sub.array)
        if not isinstance(entries, list):
            continue
        for position, entry in enumerate(entries):
            sub_value = entry.get(sub.id_field) if isinstance(entry, dict) else None
            if isinstance(sub_value, str) and not sub.pattern.match(sub_value):
                yield INVALID_ID.at(
                    ctx.path,
                    f"{sub.id_field} {quote(sub_value)} does not match the {sub.title} id pattern "
                    f"{shown(sub.pattern)}",
                    pointer=f"/{sub.array}/{position}/{sub.id_field}",
                )


@record
class _Renamed:
    """The run's renamed record folders and files, found once (:func:`renamed_folders`,
    :func:`renamed_files`)."""

    folders: dict[str, str] | None = None
    files: dict[str, str] | None = None


def renamed_files(index: RepoIndex) -> dict[str, str]:
    """Record files named away from their id, by the path their id names (none exists):
    ``decisions/D-009.json`` holding ``D-003`` gives ``decisions/D-003.json`` ->
    ``decisions/D-009.json``.

    A renamed file (or a mistyped id) is one fact, its AL202 ("or rename the file to
    D-003.json"): the index entry and the links that name ``D-003.json`` are judged by it,
    not each on its own. Only a record whose id is well formed counts, and only while
    AL202 is reported on it.
    """
    found = index.store(_Renamed)
    if found.files is not None:
        return found.files
    found.files = {}
    profile = index.profile
    if profile is None:
        return found.files
    prefix = f"{index.agent_prefix}/" if index.agent_prefix else ""
    by_file = {k.namespace for k in profile.kinds if k.name_rule in (NameRule.STEM, NameRule.SLUG)}
    for identity in index.identities:
        if identity.namespace not in by_file:
            continue  # a record named by its folder (a mission's mission.json)
        value, name = identity.id, posixpath.basename(identity.path)
        if name.startswith(value) and name[len(value) : len(value) + 1] in (".", "-"):
            continue  # named by its id (nearly every record): nothing renamed
        if identity.pointer.count("/") != 1:
            continue  # an id inside the record (a milestone's): no file is named by it
        match = profile.classify(identity.path.removeprefix(prefix))
        kind = match.kind if match is not None else None
        if kind is None or kind.name_rule not in (NameRule.STEM, NameRule.SLUG):
            continue
        assert match is not None
        if identity.pointer != f"/{kind.id_field}" or not _one_name(identity.id):
            continue
        folder, name = posixpath.split(identity.path)
        stem = match.groups.get("stem")
        if stem is None or not name.startswith(stem) or identity.id == stem:
            continue
        if stem.startswith(f"{identity.id}-"):
            continue
        if kind.id_pattern is not None and not kind.id_pattern.match(identity.id):
            continue
        named = posixpath.join(folder, identity.id + name[len(stem) :])
        if named in index.walked or not reported_as_error(
            ID_NAME_MISMATCH.code, index.config, identity.path
        ):
            continue
        found.files[named] = identity.path
    return found.files


def renamed_folders(index: RepoIndex) -> dict[str, str]:
    """Record folders whose record carries another id: each folder's repository path,
    with the path of the folder its id names (none exists).

    ``missions/M-001-payments/`` whose ``mission.json`` says ``M-001`` is one fact, its
    AL202 ("or rename the folder to M-001"): a renamed folder, or a mistyped id. The
    paths into ``missions/M-001/`` that the folder now holds, and the files inside
    that name either id, are judged by it, not each on its own; ``--fix`` keeps
    whichever id a derived file holds. Only a record whose id is well formed counts,
    and only while AL202 is reported on it (a covering rule turned off covers nothing).
    """
    found = index.store(_Renamed)
    if found.folders is not None:
        return found.folders
    found.folders = {}
    profile = index.profile
    prefix = f"{index.agent_prefix}/" if index.agent_prefix else ""
    kinds = profile.kinds if profile is not None else ()
    named_by_folder = {k.namespace for k in kinds if k.name_rule is NameRule.DIR and k.folder}
    present: set[str] | None = None  # the folders holding walked files, when first needed
    for identity in index.identities:
        if identity.namespace not in named_by_folder:
            continue  # a record named by its file (most of them): no folder to rename
        match = profile.classify(identity.path.removeprefix(prefix)) if profile else None
        kind = match.kind if match is not None else None
        if kind is None or kind.name_rule is not NameRule.DIR or not kind.folder:
            continue
        assert match is not None
        folder, name = posixpath.dirname(identity.path), match.groups.get(kind.folder)
        if identity.pointer != f"/{kind.id_field}" or posixpath.basename(folder) != name:
            continue
        if identity.id == name or (kind.id_pattern and not kind.id_pattern.match(identity.id)):
            continue
        if not _one_name(identity.id):
            continue  # an id that is no folder name (a path) names no folder to rename to
        named = posixpath.join(posixpath.dirname(folder), identity.id)
        if present is None:
            present = _folders_of(index.walked)
        if named in present:
            continue  # that folder exists: a copy or a clash, not a rename
        if reported_as_error(ID_NAME_MISMATCH.code, index.config, identity.path):
            found.folders[folder] = named
    return found.folders


def _one_name(value: str) -> bool:
    """Whether ``value`` can be one folder's name: no separator, not ``.`` or ``..``."""
    return bool(value) and value not in (".", "..") and "/" not in value and "\\" not in value


def _folders_of(paths: set[str]) -> set[str]:
    """Every folder that holds one of ``paths``, at any depth."""
    folders: set[str] = set()
    for path in paths:
        folder = posixpath.dirname(path)
        while folder and folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    return folders


def check_unique_ids(index: RepoIndex) -> Iterator[Diagnostic]:
    """Report every record whose id an earlier record (by path) already uses in its scope."""
    groups: dict[tuple[str, str, str], list[Identity]] = defaultdict(list)
    for identity in index.identities:
        groups[(identity.namespace, identity.scope, identity.id)].append(identity)
    for (_, _scope, value), owners in groups.items():
        if len(owners) < 2:
            continue
        # The original is the record named by its id (D-003.json beside D-003-copy.json),
        # then the first by path: the finding goes to the copy.
        owners.sort(
            key=lambda owner: (PurePosixPath(owner.path).stem != value, owner.path, owner.pointer)
        )
        first = owners[0]
        namespace = index.namespaces.get(first.namespace)
        part = namespace.unique_within if namespace is not None else ""
        scope_text = f" in {part}" if part else ""
        for other in owners[1:]:
            where = f"{first.path} at {first.pointer}" if first.path == other.path else first.path
            yield DUPLICATE_ID.at(
                other.path,
                f"{other.title} id {quote(value)} is already used by {where}{scope_text}",
                pointer=other.pointer,
            )


def _renamings(profile: Profile, relpath: str, data: object) -> Iterator[str]:
    """Names a misnamed record file may have been meant to have, closest first."""
    folder, _, name = relpath.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot:
        return
    ext = ext.lower()
    head, dash, rest = stem.partition("-")
    stems = [stem]
    if dash and head.isalpha() and head.isascii() and head != head.upper():
        # An id prefix written in lower case (``d-001``): the kind's pattern decides.
        stems.append(f"{head.upper()}-{rest}")
    if isinstance(data, dict):
        for kind in profile.kinds:
            value = data.get(kind.id_field) if kind.id_field else None
            if isinstance(value, str) and value and "/" not in value and value not in stems:
                stems.append(value)
    exts = [ext, *(e for e in ("json", "yaml") if e != ext)]
    folders = [folder]
    if "/" in folder:
        folders.append(folder.rpartition("/")[0])
    folders.extend(f for f in _named_folders(profile, relpath, data) if f not in folders)
    for extension in exts:
        for where in folders:
            for candidate in stems:
                yield f"{where}/{candidate}.{extension}"


_PLACEHOLDER = re.compile(r"<([a-z_]+)>")
_SAFE_COMPONENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _named_folders(profile: Profile, relpath: str, data: object) -> Iterator[str]:
    """Folders a record's own fields name, as its kind's example spells its path: a memory
    of ``"type": "semantic"`` belongs in ``memory/semantic/`` (``memory/<type>/…``)."""
    if not isinstance(data, dict):
        return
    top = relpath.split("/", 1)[0]
    for kind in profile.kinds:
        folder = kind.example.rpartition("/")[0]
        if not folder.startswith(f"{top}/") or "<" not in folder:
            continue
        parts = folder.split("/")
        for position, part in enumerate(parts):
            named = _PLACEHOLDER.fullmatch(part)
            value = data.get(named.group(1)) if named else part
            if not isinstance(value, str) or not _SAFE_COMPONENT.fullmatch(value):
                break
            parts[position] = value
        else:
            yield "/".join(parts)


def resemblance(profile: Profile, relpath: str, data: object) -> tuple[Kind, str] | None:
    """The record kind a misnamed file resembles and the path it should have."""
    for candidate in _renamings(profile, relpath, data):
        if candidate == relpath:
            continue
        match = profile.classify(candidate)
        if match is not None and match.kind.id_field and match.kind.example:
            return match.kind, candidate
    return None


def _carried_id(profile: Profile, relpath: str, data: object) -> tuple[Kind, str] | None:
    """The kind of this folder whose id field the file carries, with the id."""
    if not isinstance(data, dict):
        return None
    top = relpath.split("/", 1)[0]
    for kind in profile.kinds:
        value = data.get(kind.id_field) if kind.id_field else None
        if kind.example.startswith(f"{top}/") and isinstance(value, str):
            return kind, value
    return None


_RENAME_ADVICE = re.compile(r"; or, if this is [^;()]*, rename the file to [^;()]*(?=\)$)")


def rename_targets_taken(findings: list[Diagnostic], index: RepoIndex) -> list[Diagnostic]:
    """AL205's advice to rename a file to a name another file already has, said as the
    clash it is: renaming would overwrite that record (a repo-wide view of the
    per-file finding)."""
    prefix = f"{index.agent_prefix}/" if index.agent_prefix else ""
    kept = []
    for finding in findings:
        if finding.code == ID_NAME_MISMATCH.code and finding.key in index.walked:
            # A numbered file's other fix, renaming it, would overwrite a file there.
            message = _RENAME_ADVICE.sub("", finding.message)
            finding = finding._replace(message=message)
        elif finding.code == UNCLASSIFIED_FILE.code and finding.key:
            target = prefix + finding.key
            advice = f": rename it to {prefix}{clip(finding.key)}"
            taken = target != finding.path and target in index.walked
            if taken and finding.message.endswith(advice):
                message = (
                    finding.message.removesuffix(advice)
                    + f"; its name would be {target}, which exists already: merge the "
                    "two records, or give this one an id of its own"
                )
                finding = finding._replace(message=message)
        kept.append(finding)
    return kept


def mirrored_ids_once(findings: list[Diagnostic], index: RepoIndex) -> list[Diagnostic]:
    """A folder name that a record and the file repeating its id (``Kind.id_of``) both
    disagree with, alike, is one AL202: the record's (a renamed Astrion folder is one fact,
    not one per file that carries its id)."""
    profile = index.profile
    mismatched = {(d.path, d.message) for d in findings if d.code == ID_NAME_MISMATCH.code}
    if profile is None or len(mismatched) < 2:
        return findings
    prefix = f"{index.agent_prefix}/" if index.agent_prefix else ""
    kept = []
    for finding in findings:
        if finding.code == ID_NAME_MISMATCH.code and finding.path.startswith(prefix):
            match = profile.classify(finding.path[len(prefix) :])
            if match is not None and match.kind.id_of:
                record = posixpath.join(posixpath.dirname(finding.path), match.kind.id_of)
                if (record, finding.message) in mismatched:
                    continue
        kept.append(finding)
    return kept


def names_a_kind(finding: Diagnostic) -> bool:
    """Whether an AL205 finding names the record name its file should have (one that
    classifies as a kind, from the file's name or the id it holds): the file shows the
    profile's state, misnamed as it is. A file that merely carries a field of a kind's
    id name (``session_id`` in another tool's file) shows nothing."""
    return finding.code == UNCLASSIFIED_FILE.code and bool(finding.key)


def check_unclassified(
    profile: Profile, path: str, relpath: str, data: object
) -> Iterator[Diagnostic]:
    """A data file in a record folder that matches no kind (AL205).

    ``path`` is repository-relative, ``relpath`` relative to the agent dir;
    ``data`` is the parsed content (or None), whose id field may say what the
    file should be called.
    """
    prefix = path[: len(path) - len(relpath)]
    name = PurePosixPath(path).name
    found = resemblance(profile, relpath, data)
    if found is not None:
        kind, candidate = found
        yield UNCLASSIFIED_FILE.at(
            path,
            f"{name} matches no record kind, so it is not checked; it looks like a "
            f"{kind.title} ({kind.example}): rename it to {prefix}{clip(candidate)}",
            line=1,
            column=1,
            key=candidate,
        )
        return
    carried = _carried_id(profile, relpath, data)
    if carried is not None:
        kind, value = carried
        yield UNCLASSIFIED_FILE.at(
            path,
            f"{name} holds a {kind.title} ({kind.id_field} {quote(value)}) but matches no record "
            f"name, so it is not checked: {kind.title} files are named {prefix}{kind.example} "
            f"and their id has that prefix; rename the file and its id",
            line=1,
            column=1,
        )
        return
    top = relpath.split("/", 1)[0]
    names = sorted({kind.example for kind in profile.kinds if kind.example.startswith(f"{top}/")})
    expected = ", ".join(f"{prefix}{example}" for example in names) or "record files"
    yield UNCLASSIFIED_FILE.at(
        path,
        f"{name} matches no record kind, so it is not checked; {prefix}{top}/ holds {expected}",
        line=1,
        column=1,
    )

"""The compact repository index built during the one pass over files.

Per-file checks see a file's parsed data; repo-wide checks see only this
index: identities and the few facts cross-file rules need. Parsed documents
are dropped as soon as their file has been checked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from agent_lint.config import Config
from agent_lint.kinds import Kind
from agent_lint.schemas import SchemaStore


@dataclass(frozen=True)
class Identity:
    """One record id: which namespace and scope it lives in, and where it is written."""

    namespace: str
    scope: str
    id: str
    path: str
    pointer: str
    title: str


@dataclass(frozen=True)
class FileContext:
    """What a per-file check sees: one parsed file and the run's settings."""

    path: str
    relpath: str
    kind: Kind
    groups: dict[str, str]
    data: Any
    config: Config
    schemas: SchemaStore


@dataclass
class RepoIndex:
    """Facts from every file, for the repo-wide checks."""

    identities: list[Identity] = field(default_factory=list)
    files_by_kind: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def add_file(self, ctx: FileContext) -> None:
        """Record the identities of a parsed file (its own id and nested ids)."""
        kind, data = ctx.kind, ctx.data
        self.files_by_kind[kind.name].append(ctx.path)
        if not isinstance(data, dict):
            return
        if kind.id_field and kind.namespace:
            value = data.get(kind.id_field)
            if isinstance(value, str):
                scope = ctx.groups.get(kind.scope, "") if kind.scope else ""
                self.identities.append(
                    Identity(
                        kind.namespace, scope, value, ctx.path, f"/{kind.id_field}", kind.title
                    )
                )
        for sub in kind.sub_ids:
            entries = data.get(sub.array)
            if not isinstance(entries, list):
                continue
            for position, entry in enumerate(entries):
                if isinstance(entry, dict) and isinstance(entry.get(sub.id_field), str):
                    self.identities.append(
                        Identity(
                            sub.namespace,
                            ctx.path,
                            entry[sub.id_field],
                            ctx.path,
                            f"/{sub.array}/{position}/{sub.id_field}",
                            sub.title,
                        )
                    )

"""AL206, AL316: a Cortex conversation folder's meta.json, and its relations.yaml.

Both checks read the conversations the Cortex collector gathers
(:mod:`agent_lint.profiles.cortex.facts`).
"""

from __future__ import annotations

from collections.abc import Iterator

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.index import RepoIndex
from agent_lint.jsontext import clip
from agent_lint.profiles.cortex.facts import facts_of

MISSING_META = Rule(
    "AL206",
    "conversation-without-meta",
    "A conversation folder has handoffs or turns but no meta.json",
    "Reports a folder under `conversations/` that holds handoffs or turns but no "
    "`meta.json`. The conversation has no id, no active agent and no state for the next "
    "agent to resume from, and references to it cannot be resolved.",
    "conversations/C-7/handoffs/H-001.json without conversations/C-7/meta.json",
    "conversations/C-7/meta.json beside its handoffs/ and turns/",
)
RELATIONS_MISMATCH = Rule(
    "AL316",
    "relations-mismatch",
    "relations.yaml disagrees with meta.json relations",
    "Reports a conversation whose `relations.yaml` and `meta.json` `relations` list "
    "different missions, tasks or conversations (compared as sets). One of the two was "
    "updated and the other was not, so agents see different bindings.",
    "relations.yaml: mission_ids [M-001, M-002]; meta.json relations.mission_ids: [M-001]",
    "the same set of ids in both files",
)

RULES = (MISSING_META, RELATIONS_MISMATCH)


def check_conversation_folders(index: RepoIndex) -> Iterator[Diagnostic]:
    """Every conversation folder with handoffs or turns has a meta.json (AL206)."""
    conversations = facts_of(index).conversations
    for name in sorted(conversations):
        conversation = conversations[name]
        if conversation.meta_path is not None:
            continue
        files = sorted(
            [p for _, p in conversation.handoff_files] + [p for _, p in conversation.turn_files]
        )
        if not files:
            continue
        yield MISSING_META.at(
            files[0],
            f"conversation folder {conversation.folder}/ has handoffs or turns but no meta.json "
            f'(expected {conversation.folder}/meta.json with conversation_id "{name}")',
            line=1,
            column=1,
        )


_RELATION_KEYS = ("mission_ids", "task_ids", "conversation_ids")


def _ids(values: object) -> set[str]:
    return {v for v in values if isinstance(v, str)} if isinstance(values, list) else set()


def check_relations(index: RepoIndex) -> Iterator[Diagnostic]:
    """relations.yaml equals meta.json ``relations`` as sets (AL316)."""
    cortex = facts_of(index)
    for conversation in sorted(cortex.relations):
        sides = cortex.relations[conversation]
        if "yaml" not in sides:
            continue
        if "meta" not in sides:
            # meta.json did not parse, was not read, or is missing: that is its finding
            # (AL001, AL206), and there is nothing to compare with.
            continue
        yaml_path, yaml_data = sides["yaml"]
        meta_path, meta_data = sides["meta"]
        for key in _RELATION_KEYS:
            in_yaml, in_meta = _ids(yaml_data.get(key)), _ids(meta_data.get(key))
            if in_yaml == in_meta:
                continue
            parts = []
            if in_yaml - in_meta:
                parts.append(
                    f"lists {clip(', '.join(sorted(in_yaml - in_meta)))}, which "
                    f"meta.json relations.{key} does not"
                )
            if in_meta - in_yaml:
                parts.append(
                    f"lacks {clip(', '.join(sorted(in_meta - in_yaml)))}, which "
                    f"meta.json relations.{key} lists"
                )
            yield RELATIONS_MISMATCH.at(
                yaml_path,
                f"relations.yaml {key} {' and '.join(parts)} ({meta_path})",
                pointer=f"/{key}" if key in yaml_data else "",
            )

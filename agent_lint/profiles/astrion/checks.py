"""AL801-AL809: the Astrion store's own rules, beyond schemas, ids and the index.

A conversation's roster (``agent_count``, ``agent_ids``, the sub-agent
folders), agreement between a sub-agent's two files, message ids within a
file, references to agents and tool calls, and the global ``state.json``.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence

from agent_lint.config import Config
from agent_lint.diagnostics import Diagnostic, Fix, Rule
from agent_lint.index import FileContext, RepoIndex
from agent_lint.jsontext import escape_token, listed, quote
from agent_lint.profiles.astrion.facts import AstrionFacts, Conversation, facts_of
from agent_lint.selection import reported_as_error
from agent_lint.validators.identity import renamed_folders
from agent_lint.validators.references import resolver_of

AGENT_COUNT_MISMATCH = Rule(
    "AL801",
    "agent-count-mismatch",
    "A conversation's `agent_count` is not the number of its `agent_ids`",
    "Reports `conversations/<id>/metadata.json` whose `agent_count` differs from the length "
    "of `agent_ids`. The count is what the conversation list shows; a wrong one hides or "
    "invents sub-agents.",
    '{"agent_count": 2, "agent_ids": [1, 2, 3], …}',
    '{"agent_count": 3, "agent_ids": [1, 2, 3], …}',
)
AGENT_FOLDER_MISMATCH = Rule(
    "AL802",
    "agent-folders-mismatch",
    "A conversation's sub-agent folders are not exactly its `agent_ids`",
    "Reports a sub-agent folder `conversations/<id>/agents/<n>/` whose number is not in the "
    "conversation's `agent_ids`, and an `agent_ids` entry with no such folder. The runtime "
    "restores sub-agents from both; when they disagree an agent is lost or resurrected.",
    '"agent_ids": [4] with folders agents/4/ and agents/5/',
    '"agent_ids": [4, 5] with folders agents/4/ and agents/5/',
)
SUB_AGENT_FILES_DISAGREE = Rule(
    "AL803",
    "sub-agent-files-disagree",
    "A sub-agent's `messages.json` disagrees with its `metadata.json`",
    "Reports a sub-agent `messages.json` whose `display_name` or `role_id` differs from the "
    "same field of the sub-agent's `metadata.json`. The runtime writes both on every save; "
    "a difference means one of them is stale. A file with an error of its own is not compared.",
    'metadata.json: "role_id": "code-reviewer"; messages.json: "role_id": "researcher"',
    'metadata.json: "role_id": "code-reviewer"; messages.json: "role_id": "code-reviewer"',
)
DUPLICATE_MESSAGE_ID = Rule(
    "AL804",
    "duplicate-message-id",
    "A `message_id` is used twice in one `messages.json`",
    "Reports a message whose `message_id` an earlier message of the same `messages.json` "
    "already uses. Ids are unique per file: the data model's own example reuses ids across "
    "the Team Leader's and a sub-agent's files, so that is not reported.",
    '[{"message_id": "msg_assistant_001", …}, {"message_id": "msg_assistant_001", …}]',
    '[{"message_id": "msg_assistant_001", …}, {"message_id": "msg_assistant_002", …}]',
)
UNKNOWN_AGENT = Rule(
    "AL805",
    "unknown-agent",
    "A message or queued message names an agent that is not in the conversation",
    "Reports a sub-agent's `pending_messages[].source_agent_id` (null is the Team Leader) "
    "and a Team Leader message's `metadata.agent_id` that are not agents of the "
    "conversation. The agents are `agent_ids` together with the sub-agent folders; "
    "membership is per conversation.",
    '"source_agent_id": 5 in a conversation with agents 1, 2, 3',
    '"source_agent_id": 2 in a conversation with agents 1, 2, 3',
)
UNKNOWN_TOOL_CALL = Rule(
    "AL806",
    "unknown-tool-call",
    "A pending tool call matches no tool call in the sub-agent's messages",
    "Reports `pending_tool_calls[].tool_call_id` of a sub-agent's `metadata.json` that is "
    "the `id` of no `tool_calls[]` entry in the same sub-agent's `messages.json`. The "
    "runtime answers the pending call into that conversation; a dangling id is never answered.",
    '"tool_call_id": "tc_ask_002" with only tc_ask_001 in messages.json',
    '"tool_call_id": "tc_ask_001"',
)
COUNTER_BEHIND = Rule(
    "AL807",
    "agent-counter-behind",
    "`state.json` `agent_id_counter` is below an agent id in use",
    "Reports the global `state.json` when `agent_id_counter` is lower than an agent id of "
    "any conversation (`agent_ids` or a sub-agent folder). The next sub-agent would reuse an "
    "id. `agent-lint --fix` raises the counter.",
    '"agent_id_counter": 4 with agent 5 in use',
    '"agent_id_counter": 5 with agent 5 in use',
    fix=Fix.SAFE,
)
MISSING_LAST_CONVERSATION = Rule(
    "AL808",
    "last-conversation-missing",
    "`state.json` `last_conversation_id` names no conversation folder",
    "Reports the global `state.json` whose `last_conversation_id` names no folder under "
    "`conversations/`: the runtime reopens a conversation that is gone. `agent-lint --fix` "
    "sets it to the most recently updated conversation, or null.",
    '"last_conversation_id": "conv_20260714_090000_004" (no such folder)',
    '"last_conversation_id": "conv_20260713_140500_003"',
    fix=Fix.SAFE,
)
MISSING_METADATA = Rule(
    "AL809",
    "missing-metadata",
    "A conversation or sub-agent folder has files but no `metadata.json`",
    "Reports a folder under `conversations/` (or a sub-agent folder `agents/<n>/` in one) "
    "that holds files such as `messages.json` but no `metadata.json`. Without it the "
    "conversation or agent has no id, status or roster, and the runtime cannot reopen it.",
    "conversations/conv_20260713_140500_003/messages.json alone",
    "conversations/conv_20260713_140500_003/metadata.json beside its messages.json",
)
RULES = (
    AGENT_COUNT_MISMATCH,
    AGENT_FOLDER_MISMATCH,
    SUB_AGENT_FILES_DISAGREE,
    DUPLICATE_MESSAGE_ID,
    UNKNOWN_AGENT,
    UNKNOWN_TOOL_CALL,
    COUNTER_BEHIND,
    MISSING_LAST_CONVERSATION,
    MISSING_METADATA,
)


_LISTED = 5  # items a message names before it says how many more there are


def _listed(items: Sequence[str], empty: str) -> str:
    """``items`` for a message: the first few, each cut short, then a count of the rest."""
    return listed(items, most=_LISTED) if items else empty


def _agents(ids: Iterable[int]) -> str:
    return _listed([str(i) for i in sorted(ids)], "none")


def check_message_ids(ctx: FileContext) -> Iterator[Diagnostic]:
    """Each ``message_id`` of a ``messages.json`` is used once in that file (AL804)."""
    if ctx.kind.name not in ("conversation-messages", "sub-agent-messages"):
        return
    messages = ctx.data.get("messages") if isinstance(ctx.data, dict) else None
    seen: dict[str, int] = {}
    for position, message in enumerate(messages if isinstance(messages, list) else ()):
        value = message.get("message_id") if isinstance(message, dict) else None
        if not isinstance(value, str):
            continue
        if value in seen:
            yield DUPLICATE_MESSAGE_ID.at(
                ctx.path,
                f"message_id {quote(value)} is already used by /messages/{seen[value]} "
                "in this file",
                pointer=f"/messages/{position}/message_id",
            )
        else:
            seen[value] = position


def check_rosters(index: RepoIndex) -> Iterator[Diagnostic]:
    """``agent_count`` equals ``len(agent_ids)``; the sub-agent folders are ``agent_ids``."""
    facts, renamed = facts_of(index), renamed_folders(index)
    for name in sorted(facts.conversations):
        conversation = facts.conversations[name]
        ids = conversation.agent_ids()
        if conversation.meta_path is None or ids is None:
            continue
        count = (conversation.meta or {}).get("agent_count")
        if isinstance(count, int) and not isinstance(count, bool) and count != len(ids):
            yield AGENT_COUNT_MISMATCH.at(
                conversation.meta_path,
                f"agent_count is {count} but agent_ids lists {len(ids)} agents "
                f"({_agents(ids)}); expected {len(ids)}",
                pointer="/agent_count",
            )
        # A folder renamed away from its agent's id (its AL202) stands for either.
        stands_for = conversation.agent_names(renamed)
        phantoms = phantom_agents(conversation, renamed)
        listed = {str(i) for i in ids}
        for folder in sorted(stands_for, key=_number):
            if folder in listed or stands_for[folder] in listed:
                continue
            yield AGENT_FOLDER_MISMATCH.at(
                conversation.agent_folders[folder],
                f"the sub-agent folder agents/{folder}/ is not listed in the conversation's "
                f"agent_ids [{', '.join(str(i) for i in ids)}]",
            )
        for position, agent in enumerate(ids):
            if agent in phantoms:
                yield AGENT_FOLDER_MISMATCH.at(
                    conversation.meta_path,
                    f"agent {agent} is listed in agent_ids but the conversation has no "
                    f"folder agents/{agent}/",
                    pointer=f"/agent_ids/{position}",
                )


def check_metadata_files(index: RepoIndex) -> Iterator[Diagnostic]:
    """Every conversation and sub-agent folder with files has its ``metadata.json`` (AL809)."""
    facts = facts_of(index)
    for name in sorted(facts.conversations):
        conversation = facts.conversations[name]
        files = sorted(conversation.present)
        by_folder: dict[str, list[str]] = defaultdict(list)
        for path in files:
            by_folder[path.rpartition("/")[0]].append(path)
        folders = [(conversation.folder, f"the conversation folder {name}", f'id "{name}"', files)]
        for agent in sorted(conversation.agent_folders, key=_number):
            folder = conversation.agent_folders[agent]
            label = f"the sub-agent folder agents/{agent}"
            folders.append((folder, label, f"agent_id {agent}", by_folder.get(folder, [])))
        for folder, label, identity, inside in folders:
            if not inside or f"{folder}/metadata.json" in conversation.present:
                continue
            names = [path[len(folder) + 1 :] for path in inside]
            yield MISSING_METADATA.at(
                inside[0],
                f"{label}/ holds {_listed(names, 'no files')} but no metadata.json "
                f"(expected {label.rpartition(' ')[2]}/metadata.json with {identity})",
                line=1,
                column=1,
            )


def _number(name: str) -> tuple[int, str]:
    return (int(name) if name.isascii() and name.isdigit() else -1, name)


def check_sub_agent_files(index: RepoIndex) -> Iterator[Diagnostic]:
    """A sub-agent's ``messages.json`` repeats ``display_name`` and ``role_id`` of its metadata."""
    facts = facts_of(index)
    resolver = resolver_of(index)

    def is_role(value: object) -> bool:
        return isinstance(value, str) and resolver.exists("role", "", value)

    for name in sorted(facts.conversations):
        agents = facts.conversations[name].agents
        for agent in sorted(agents, key=_number):
            meta, messages = agents[agent].get("metadata"), agents[agent].get("messages")
            if meta is None or messages is None or not (meta.clean and messages.clean):
                continue
            for key in ("display_name", "role_id"):
                said, stored = messages.data.get(key), meta.data.get(key)
                if key == "role_id" and not is_role(stored) and is_role(said):
                    continue  # metadata.json names no role: its AL301, messages.json is right
                if said != stored and isinstance(said, str) and isinstance(stored, str):
                    yield SUB_AGENT_FILES_DISAGREE.at(
                        messages.path,
                        f"{key} is {quote(said)} but metadata.json says {quote(stored)}",
                        pointer=f"/{key}",
                    )


def _member_findings(conversation: Conversation) -> Iterator[Diagnostic]:
    members = conversation.members()
    where = f"{conversation.name} (agents {_agents(members)})"
    for agent in sorted(conversation.agents, key=_number):
        meta = conversation.agents[agent].get("metadata")
        if meta is None:
            continue
        queue = meta.data.get("pending_messages")
        for position, entry in enumerate(queue if isinstance(queue, list) else ()):
            source = entry.get("source_agent_id") if isinstance(entry, dict) else None
            if isinstance(source, int) and not isinstance(source, bool) and source not in members:
                yield UNKNOWN_AGENT.at(
                    meta.path,
                    f"source_agent_id {source} is not an agent of {where}; expected one of "
                    "them, or null for the Team Leader",
                    pointer=f"/pending_messages/{position}/source_agent_id",
                )
        messages = conversation.agents[agent].get("messages")
        calls = meta.data.get("pending_tool_calls")
        if messages is None:
            continue
        known = set(messages.tool_call_ids)
        for position, entry in enumerate(calls if isinstance(calls, list) else ()):
            call = entry.get("tool_call_id") if isinstance(entry, dict) else None
            if isinstance(call, str) and call not in known:
                has = _listed(messages.tool_call_ids, "no tool calls")
                yield UNKNOWN_TOOL_CALL.at(
                    meta.path,
                    f"tool_call_id {quote(call)} matches no tool call in "
                    f"agents/{agent}/messages.json (it has {has})",
                    pointer=f"/pending_tool_calls/{position}/tool_call_id",
                )
    if conversation.leader is not None:
        for pointer, agent_id in conversation.leader.agent_refs:
            if agent_id not in members:
                yield UNKNOWN_AGENT.at(
                    conversation.leader.path,
                    f"metadata.agent_id {agent_id} is not an agent of {where}",
                    pointer=pointer,
                )


def check_agent_references(index: RepoIndex) -> Iterator[Diagnostic]:
    """Queued messages, Team Leader messages and pending tool calls name what exists."""
    facts = facts_of(index)
    for name in sorted(facts.conversations):
        yield from _member_findings(facts.conversations[name])


def phantom_agents(conversation: Conversation, renamed: Mapping[str, str]) -> set[int]:
    """The ids ``agent_ids`` lists that no sub-agent folder stands for (each its AL802)."""
    stands_for = conversation.agent_names(renamed)
    held = {*stands_for, *stands_for.values()}
    return {agent for agent in conversation.agent_ids() or () if str(agent) not in held}


def disputed_count(
    conversation: Conversation, renamed: Mapping[str, str], config: Config | None = None
) -> bool:
    """Whether the conversation's ``agent_count`` is in doubt: it is not the number of its
    ``agent_ids`` (AL801), or one of those has no folder (AL802), and (given ``config``)
    that rule reports it as an error. The index entry's count is then not judged against
    it, nor made to copy it."""
    ids = conversation.agent_ids()
    path = conversation.meta_path
    if ids is None or path is None:
        return False

    def reports(rule: Rule) -> bool:
        return config is None or reported_as_error(rule.code, config, path)

    count = (conversation.meta or {}).get("agent_count")
    if count != len(ids) and reports(AGENT_COUNT_MISMATCH):
        return True
    return bool(phantom_agents(conversation, renamed)) and reports(AGENT_FOLDER_MISMATCH)


def count_readings(conversation: Conversation, renamed: Mapping[str, str]) -> tuple[object, ...]:
    """The numbers of agents a conversation whose count is in doubt may have: its
    ``agent_count``, the length of its ``agent_ids``, and those less the ids no folder
    stands for. An index entry holding one of them is the doubt's finding; one holding
    none is stale whichever is right."""
    ids = conversation.agent_ids() or []
    count = (conversation.meta or {}).get("agent_count")
    # A tuple, compared by ==: an index may hold any JSON value there, hashable or not.
    return (len(ids), len(ids) - len(phantom_agents(conversation, renamed)), count)


def agents_in_use(facts: AstrionFacts, renamed: Mapping[str, str] | None = None) -> dict[int, str]:
    """Every agent id in use (``agent_ids`` and sub-agent folders) and one conversation using
    it; an id listed with no folder (its AL802) is left out: it is that finding's, not one
    to raise the counter to."""
    used: dict[int, str] = {}
    for name in sorted(facts.conversations):
        conversation = facts.conversations[name]
        phantoms = phantom_agents(conversation, renamed or {})
        for agent in sorted(conversation.members() - phantoms):
            used.setdefault(agent, name)
    return used


def counts_once(findings: list[Diagnostic], index: RepoIndex) -> list[Diagnostic]:
    """An index entry's ``agent_count`` that disagrees with a conversation whose own count
    is in doubt (:func:`disputed_count`), holding one of its readings
    (:func:`count_readings`), is that conversation's AL801 or AL802, not also an AL305 on
    the index."""
    facts, renamed = facts_of(index), renamed_folders(index)
    if facts.index is None:
        return findings
    entries = facts.index.data
    disputed = {
        f"/{escape_token(name)}/agent_count"
        for name, conversation in facts.conversations.items()
        if disputed_count(conversation, renamed, index.config)
        and isinstance(entries.get(name), dict)
        and entries[name].get("agent_count") in count_readings(conversation, renamed)
    }
    return [
        d
        for d in findings
        if not (d.code == "AL305" and d.path == facts.index.path and d.pointer in disputed)
    ]


def own_ids(index: RepoIndex) -> dict[str, str]:
    """Each conversation folder's id as its metadata carries it, where that differs from
    its name (a renamed folder or a mistyped id: that file's AL202), by the id."""
    renamed = renamed_folders(index)
    return {
        posixpath.basename(renamed[conversation.folder]): name
        for name, conversation in facts_of(index).conversations.items()
        if conversation.folder in renamed
    }


def check_state(index: RepoIndex) -> Iterator[Diagnostic]:
    """``state.json``: the counter is not below an id in use; the last conversation exists."""
    facts = facts_of(index)
    state = facts.state
    if state is None:
        return
    counter = state.data.get("agent_id_counter")
    used = agents_in_use(facts, renamed_folders(index))
    if isinstance(counter, int) and not isinstance(counter, bool) and used:
        highest = max(used)
        if highest > counter:
            yield COUNTER_BEHIND.at(
                state.path,
                f"agent_id_counter is {counter} but agent id {highest} is in use "
                f"({used[highest]}); expected at least {highest}",
                pointer="/agent_id_counter",
            )
    last = state.data.get("last_conversation_id")
    if isinstance(last, str) and last not in facts.conversations and last not in own_ids(index):
        yield MISSING_LAST_CONVERSATION.at(
            state.path,
            f"last_conversation_id {quote(last)} names no folder under conversations/",
            pointer="/last_conversation_id",
        )

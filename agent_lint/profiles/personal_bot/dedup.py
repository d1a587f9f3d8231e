"""AL9xx: what the Personal Bot storage document says is recorded once.

The document names two de-duplication keys without giving the records'
structure: a post (in ``team.json``) and an inbox message carry an
``operationId``, and a completion reply in ``completions.json`` carries the
``requestId`` it answers. A retried operation that is appended a second time
would be delivered twice, so each key is unique within its file, wherever it
sits in the document. ``requestId`` repeats across files (a team's requests,
its batches and the agents' completions all name one request) and in the other
records of a file; only completions are de-duplicated by it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.index import FileContext
from agent_lint.jsontext import quote
from agent_lint.positions import pointer_of

DUPLICATE_OPERATION = Rule(
    "AL901",
    "duplicate-operation-id",
    "An operationId is used twice in one file",
    "Personal Bot gives every post to a team and every inbox message an `operationId` so "
    "that a retried operation is recorded once. Reports the second occurrence of an "
    "`operationId` in `team.json` or `inbox.json` (anywhere in the document), with the "
    "pointer of the first: the operation was appended twice and would be delivered twice. "
    "Remove the repeated entry.",
    '{"messages": [{"operationId": "parent:call_01"}, {"operationId": "parent:call_01"}]}',
    '{"messages": [{"operationId": "parent:call_01"}, {"operationId": "parent:call_02"}]}',
)
DUPLICATE_COMPLETION = Rule(
    "AL902",
    "duplicate-completion",
    "A request is completed twice in completions.json",
    "Personal Bot records one completion reply per request: `completions.json` is "
    "de-duplicated by `requestId`. Reports the second completion of a `requestId` in one "
    "file, with the pointer of the first. A `requestId` that a team's `requests` and "
    "`batches` repeat is one request seen from several records and is not reported.",
    '{"completions": [{"requestId": "req-1", "cycle": 1}, {"requestId": "req-1", "cycle": 2}]}',
    '{"completions": [{"requestId": "req-1", "cycle": 1}, {"requestId": "req-2", "cycle": 2}]}',
)
RULES = (DUPLICATE_OPERATION, DUPLICATE_COMPLETION)

#: Which key is unique in which kind of record, and the rule that reports a repeat.
_KEYS = {
    "team": ("operationId", DUPLICATE_OPERATION),
    "inbox": ("operationId", DUPLICATE_OPERATION),
    "completions": ("requestId", DUPLICATE_COMPLETION),
}


def _occurrences(data: Any, key: str, path: tuple[str | int, ...] = ()) -> Iterator[Any]:
    """Each ``(path, value)`` of a string ``key`` anywhere in ``data``, in document order."""
    if isinstance(data, dict):
        for name, value in data.items():
            if name == key and isinstance(value, str):
                yield (*path, name), value
            else:
                yield from _occurrences(value, key, (*path, name))
    elif isinstance(data, list):
        for position, item in enumerate(data):
            yield from _occurrences(item, key, (*path, position))


def check_unique_keys(ctx: FileContext) -> Iterator[Diagnostic]:
    """AL901/AL902: an ``operationId`` or a completion ``requestId`` repeated in one file."""
    entry = _KEYS.get(ctx.kind.name)
    if entry is None:
        return
    key, rule = entry
    first: dict[str, str] = {}
    for path, value in _occurrences(ctx.data, key):
        pointer = pointer_of(path)
        earlier = first.setdefault(value, pointer)
        if earlier == pointer:
            continue
        if rule is DUPLICATE_COMPLETION:
            message = (
                f"requestId {quote(value)} is already completed at {earlier}: a completion "
                "reply is recorded once per request"
            )
        else:
            message = f"operationId {quote(value)} is already used at {earlier}"
            if ctx.kind.name == "team":
                message += ": a post was appended twice"
        yield rule.at(ctx.path, message, pointer=pointer, key=f"{key}={value}")

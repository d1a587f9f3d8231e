"""AL0xx: file-level problems found while reading a file.

These rules come from what discovery and loading met (:mod:`agent_lint.discovery`,
:mod:`agent_lint.loading`) rather than from a pass over parsed data: a file that
cannot be read or parsed has no data for later checks. Those modules return
typed problems (:mod:`agent_lint.problems`); :func:`diagnose` and
:func:`diagnose_entry` make them findings.
"""

from __future__ import annotations

from agent_lint.diagnostics import Diagnostic, Rule, Severity
from agent_lint.problems import EntryIssue, EntryProblem, GateProblem, ParseIssue, ParseProblem
from agent_lint.validators import storage

INVALID_JSON = Rule(
    "AL001",
    "invalid-json",
    "A JSON record file does not parse",
    "Reports a `.json` file under a record folder of the agent dir that is not valid JSON "
    "(RFC 8259): a syntax error, a trailing comma, `NaN`/`Infinity`, or data after the "
    "document. The next agent cannot read a record that does not parse, and every other "
    "check of the file is skipped.",
    '{"decision_id": "D-1",}',
    '{"decision_id": "D-1"}',
)
INVALID_YAML = Rule(
    "AL002",
    "invalid-yaml",
    "A YAML file (or Markdown front matter) does not parse",
    "Reports a YAML record (a turn, `turn_resumed.yaml`, `relations.yaml`) or the YAML front "
    "matter of a Markdown note that is not valid YAML. Files are read with a safe loader: "
    "tags that would construct objects are errors too.",
    "turn: 1\nrole: [user",
    "turn: 1\nrole: user",
)
DUPLICATE_KEY = Rule(
    "AL003",
    "duplicate-key",
    "An object or mapping repeats a key",
    "Reports a key that appears twice in the same JSON object or YAML mapping. Readers "
    "disagree on which value wins (most keep the last silently), so two agents can resume "
    "from different states of the same file.",
    '{"status": "open", "status": "approved"}',
    '{"status": "approved"}',
)
INVALID_UTF8 = Rule(
    "AL004",
    "invalid-utf8",
    "A file is not valid UTF-8",
    "Reports a record or note whose bytes are not valid UTF-8. JSON exchanged between "
    "systems must be UTF-8 (RFC 8259 §8.1), and agents on other platforms would read "
    "different text.",
    "a file saved as Latin-1 or UTF-16",
    "the same file saved as UTF-8",
)
BYTE_ORDER_MARK = Rule(
    "AL005",
    "byte-order-mark",
    "A file starts with a UTF-8 byte order mark",
    "Reports a file that begins with U+FEFF. RFC 8259 forbids a BOM in JSON texts and many "
    "parsers (Node.js `JSON.parse` among them) reject it. agent-lint strips it and still "
    "checks the file, so this is a warning.",
    '\\ufeff{"decision_id": "D-1"}',
    '{"decision_id": "D-1"}',
    severity=Severity.WARNING,
)
EMPTY_FILE = Rule(
    "AL006",
    "empty-file",
    "A JSON or YAML record file is empty",
    "Reports a record file that is empty or only whitespace, the typical result of an "
    "interrupted write. An empty record is no record: delete it or restore its content.",
    "(a zero-byte decisions/D-1.json)",
    '{"schema_version": 1, "decision_id": "D-1", ...}',
)
SYMLINK_ESCAPE = Rule(
    "AL007",
    "symlink-escape",
    "A symbolic link leads outside the repository or nowhere",
    "Reports a symbolic link in the agent dir whose target is outside the repository, inside "
    "a `.git` folder (git's configuration, with the checkout's credentials on CI runners), "
    "or does not exist (a dangling link, or a loop of links). agent-lint never follows such "
    "a link: on a pull request from a fork it could expose files of the machine running the "
    "check.",
    "decisions/D-1.json -> /etc/passwd",
    "a regular file, or a link to a file inside the repository",
)
NOT_A_REGULAR_FILE = Rule(
    "AL008",
    "not-a-regular-file",
    "An entry of the agent dir is a device, socket or pipe",
    "Reports a FIFO, socket or device node inside the agent dir. Such entries cannot be "
    "committed meaningfully and reading one could block; agent-lint does not open it.",
    "mkfifo .agent/decisions/D-1.json",
    "a regular file",
)
FILE_TOO_LARGE = Rule(
    "AL009",
    "file-too-large",
    "A record file is larger than agent-lint reads",
    "Reports a record file over 16 MiB (the `max-file-bytes` limit). Agent records are small; "
    "a huge file is usually a misplaced log or data dump, and is not parsed so that one file "
    "cannot exhaust memory.",
    "a 200 MB runs/R-1.json with a full transcript inlined",
    "a small run record whose transcript is referenced by path",
)
UNREADABLE = Rule(
    "AL010",
    "unreadable",
    "A file or folder of the agent dir cannot be read",
    "Reports a file that cannot be opened or a folder that cannot be listed (permissions, a "
    "broken mount). Nothing in it is checked, so a clean report would be a false promise: "
    "the run names the path and goes on with the rest.",
    "chmod 000 .agent/decisions",
    "chmod 755 .agent/decisions (folders) and 644 (files)",
)
LIMIT_EXCEEDED = Rule(
    "AL011",
    "limit-exceeded",
    "A document or value exceeds one of agent-lint's limits and is not checked",
    "Reports a JSON or YAML document nested deeper than `max-depth`, a YAML document larger "
    "than `max-yaml-bytes` (YAML is parsed in pure Python, far slower than JSON), one whose "
    'aliases repeat more than `max-yaml-alias-nodes` nodes (a "billion laughs" bomb), or a '
    "path reference whose brace list expands to more than `max-brace-alternatives` paths. "
    "These bounds keep every run fast and small whatever a file holds; the finding names "
    "the limit and the setting in the `[limits]` table that raises it.",
    "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]  (… ten levels deep)",
    "write the values out, or use a few aliases of small nodes",
)

#: The findings that a file's text is no document: a derived file written anew has none.
UNPARSED = frozenset({INVALID_JSON.code, INVALID_YAML.code, INVALID_UTF8.code, EMPTY_FILE.code})

RULES = (
    INVALID_JSON,
    INVALID_YAML,
    DUPLICATE_KEY,
    INVALID_UTF8,
    BYTE_ORDER_MARK,
    EMPTY_FILE,
    SYMLINK_ESCAPE,
    NOT_A_REGULAR_FILE,
    FILE_TOO_LARGE,
    UNREADABLE,
    LIMIT_EXCEEDED,
)

_BY_ISSUE: dict[ParseIssue, Rule] = {
    ParseIssue.INVALID_UTF8: INVALID_UTF8,
    ParseIssue.BYTE_ORDER_MARK: BYTE_ORDER_MARK,
    ParseIssue.EMPTY_FILE: EMPTY_FILE,
    ParseIssue.INVALID_JSON: INVALID_JSON,
    ParseIssue.INVALID_YAML: INVALID_YAML,
    ParseIssue.DUPLICATE_KEY: DUPLICATE_KEY,
    ParseIssue.LIMIT_EXCEEDED: LIMIT_EXCEEDED,
}


def diagnose(problem: ParseProblem) -> Diagnostic:
    """The finding a problem met reading a file is (AL001-AL006, AL011)."""
    return _BY_ISSUE[problem.issue].at(
        problem.path,
        problem.message,
        pointer=problem.pointer,
        target=problem.target,
        line=problem.line,
        column=problem.column,
        end_line=problem.end_line,
        end_column=problem.end_column,
    )


_BY_ENTRY_ISSUE: dict[EntryIssue, Rule] = {
    EntryIssue.SYMLINK_ESCAPE: SYMLINK_ESCAPE,
    EntryIssue.NOT_A_REGULAR_FILE: NOT_A_REGULAR_FILE,
    EntryIssue.FILE_TOO_LARGE: FILE_TOO_LARGE,
    EntryIssue.UNREADABLE: UNREADABLE,
    **storage.BY_ISSUE,
}


def diagnose_entry(problem: EntryProblem) -> Diagnostic:
    """The finding a problem the walk met at an entry of the store is (AL007-AL010, AL7xx)."""
    return finding(_BY_ENTRY_ISSUE[problem.issue], problem)


def finding(rule: Rule, problem: EntryProblem | GateProblem) -> Diagnostic:
    """``problem`` as a finding of ``rule``, in its words and at its place."""
    return rule.at(
        problem.path,
        problem.message,
        pointer=problem.pointer,
        line=problem.line,
        column=problem.column,
    )

"""Untrusted text never escapes its sink: terminal, workflow commands, job summary, SARIF.

The job summary is rendered with cmarkgfm (GitHub's own cmark-gfm), and lines
on stdout and stderr are parsed the way the Actions runner parses them.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import cmarkgfm
import pytest
from conftest import FIXTURES

from agent_lint.cli import main
from agent_lint.escaping import markdown, sarif, terminal, workflow

HOSTILE = [
    "::error file=x,line=1::forged",
    "  ::add-mask::secret",
    "::stop-commands::token",
    "ok\n::error::next line",
    "ok\r::warning::carriage return",
    "legacy ##[error]old syntax",
    "\x1b[31mred\x1b[0m \x1b]8;;http://evil/\x07link\x1b]8;;\x07",
    "bidi \u202eevil\u202c",
    "100% %0A %25",
    "![image](http://evil.example/i.png) [link](http://evil.example)",
    "autolinks http://evil.example www.evil.example evil@example.com",
    "<img src=x onerror=alert(1)> <script>alert(1)</script>",
    "# heading\n## another",
    "```\n# Injected\n```",
    "`` ` ``` | pipe | `x`",
    'quote " and ] } ) -->|x| ; #35;',
]


def runner_command(line: str) -> str | None:
    """The workflow command the GitHub Actions runner would run for one line, if any."""
    text = line.lstrip()
    if text.startswith("::") and text.find("::", 2) > 2:
        return text[2:].split("::", 1)[0].split(" ", 1)[0]
    start = line.find("##[")
    if start >= 0 and line.find("]", start) > 0:
        return line[start + 3 : line.find("]", start)].split(" ", 1)[0]
    return None


@pytest.mark.parametrize("value", HOSTILE)
def test_terminal_text_is_one_visible_line(value):
    shown = terminal.visible(value)
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in shown)
    assert "\u202e" not in shown
    assert len(shown.splitlines()) <= 1


@pytest.mark.parametrize("value", HOSTILE)
def test_inert_lines_are_never_workflow_commands(value):
    line = workflow.inert(value)
    assert runner_command(line) is None
    assert "\n" not in line and "\r" not in line
    assert runner_command(workflow.inert(f"agent-lint: error: {value}")) is None


def test_workflow_command_parts():
    assert workflow.data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert workflow.prop("a:b,c%") == "a%3Ab%2Cc%25"
    assert workflow.message("x\n::error::y") == "x\\n::error::y"


@pytest.mark.parametrize("value", HOSTILE)
def test_markdown_code_spans_render_as_plain_code(value):
    table = f"| a | b |\n|---|---|\n| {markdown.code(value)} | {markdown.code('x')} |\n"
    html = cmarkgfm.github_flavored_markdown_to_html(table)
    assert html.count("<tr>") == 2 and html.count("<td>") == 2
    cell = re.search(r"<td>(.*?)</td>", html, flags=re.S)
    assert cell and cell.group(1).startswith("<code>") and cell.group(1).endswith("</code>")
    assert not re.search(r"<(a|img|h\d|script|pre)\b", html)
    paragraph = cmarkgfm.github_flavored_markdown_to_html(f"### Chain of {markdown.code(value)}\n")
    assert paragraph.count("<h3>") == 1 and not re.search(r"<(a|img|script|pre)\b", paragraph)


@pytest.mark.parametrize("value", HOSTILE)
def test_mermaid_labels_keep_only_safe_characters(value):
    label = markdown.mermaid_label(value)
    assert re.fullmatch(r"(?:[A-Za-z0-9 _.\-]|#\d+;)*", label)


def test_sarif_uris_are_percent_encoded():
    assert sarif.uri(".agent/a b/c%d#e?f.json") == ".agent/a%20b/c%25d%23e%3Ff.json"
    assert sarif.uri("x:y/z") == "x%3Ay/z"  # never read as a URI scheme
    assert unquote(sarif.uri(".agent/caf\u00e9\n.json")) == ".agent/caf\u00e9\n.json"


def test_sarif_message_text_forges_no_embedded_link():
    """``[text](target)`` in a message is an embedded link to SARIF viewers: one quoted
    from the repository is escaped as the format defines; other brackets stay."""
    assert sarif.message("handoffs[2].timestamp differs") == "handoffs[2].timestamp differs"
    forged = 'link target "[Approve](https://evil.example)" does not exist'
    assert (
        sarif.message(forged) == 'link target "\\[Approve\\](https://evil.example)" does not exist'
    )
    # A backslash already before a bracket is doubled: it stays a literal backslash.
    assert sarif.message("a \\[b](c)") == "a \\\\\\[b\\](c)"


# --- End to end: a repository full of hostile names and values -------------------------

NAMES = ["::error title=forged::pwned.json", "line\nbreak.json", "cr\rreturn.json",
         "esc\x1b[2J.json", "100%25.json", "![x](http%3A).json", "`tick`|pipe.json",
         "##[error]legacy.json"]  # fmt: skip


@pytest.fixture
def hostile_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    decisions = repo / ".agent" / "decisions"
    for name in NAMES:
        (decisions / name).write_text("{ not json", encoding="utf-8")
    handoff = repo / ".agent/conversations/C-payments-refactor/handoffs/H-003.json"
    record = json.loads(handoff.read_text(encoding="utf-8"))
    record["to_agent"]["agent_id"] = (
        'x"]\n```\n# Injected heading\n[link](http://evil.example)\n```'
    )
    handoff.write_text(json.dumps(record, indent=2), encoding="utf-8")
    decision = repo / ".agent/decisions/D-002.json"
    data = json.loads(decision.read_text(encoding="utf-8"))
    data["key\x1b[2J\n::error::forged"] = 1  # an unknown key, quoted in the finding
    decision.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return repo


def test_text_output(hostile_repo, capsys):
    assert main([str(hostile_repo), "--no-color"]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert all(runner_command(line) is None for line in lines)
    assert "\x1b" not in out and "\r" not in out
    assert sum(1 for line in lines if "AL001" in line) == len(NAMES)
    assert ".agent/decisions/line\\nbreak.json:1:3: AL001" in out
    assert ".agent/decisions/esc\\x1b[2J.json:1:3: AL001" in out
    # The key is rendered as JSON (its control characters escaped as JSON escapes them).
    assert 'AL102 unknown field "key\\u001b[2J\\n::error::forged"' in out


def test_github_output(hostile_repo, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(hostile_repo))
    assert main([str(hostile_repo), "--select", "AL001"]) == 1
    out = capsys.readouterr().out
    commands = [runner_command(line) for line in out.splitlines()]
    assert set(commands) <= {"error", "warning", "notice"} and None not in commands
    assert "\x1b" not in out and "\r" not in out
    assert "file=.agent/decisions/line\\nbreak.json," in out
    assert "file=.agent/decisions/%3A%3Aerror title=forged%3A%3Apwned.json," in out


def test_job_summary(hostile_repo, tmp_path, capsys):
    summary = tmp_path / "summary.md"
    main([str(hostile_repo), "--output-format", "json", "--summary-file", str(summary)])
    capsys.readouterr()
    text = summary.read_text(encoding="utf-8")
    rendered = cmarkgfm.github_flavored_markdown_to_html(text)
    assert not re.search(r"<(a|img|script|h1|h4)\b", rendered)
    assert re.findall(r"<h\d>", rendered) == ["<h2>", "<h3>", "<h3>"]  # title and two chains
    blocks = re.findall(r'<pre lang="mermaid"><code>(.*?)</code></pre>', rendered, flags=re.S)
    assert len(blocks) == 2
    for block in blocks:
        for line in html.unescape(block).splitlines()[1:]:
            assert re.fullmatch(
                r'  (a\d+\["[^"\n]*"\]|a\d+ -(\.)?->(\|"[^"\n]*"\|)? a\d+|linkStyle \d+ \S+)', line
            ), line
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert all(line.endswith(" |") for line in rows)


def test_sarif_and_json_output(hostile_repo, tmp_path, capsys):
    log_path = tmp_path / "out.sarif"
    main([str(hostile_repo), "--output-format", "json", "--sarif-file", str(log_path)])
    out = capsys.readouterr().out
    assert "##[" not in out and all(runner_command(line) is None for line in out.splitlines())
    paths = {d["path"] for d in json.loads(out)["diagnostics"]}
    log_text = log_path.read_text(encoding="utf-8")
    assert "##[" not in log_text
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(log_text)["runs"][0]["results"]
    }
    assert {unquote(u) for u in uris} == paths
    assert all(re.fullmatch(r"[A-Za-z0-9/%._~-]+", u) for u in uris)


@pytest.mark.parametrize(
    "config",
    [
        '"x\\n::error title=forged::pwned" = 1\n',
        '[per-file-ignores]\n"\\n::add-mask::secret" = ["AL1", "nope"]\n',
        '"\\u001b[2J\\u001b]0;title\\u0007" = true\n',
        '"a ##[error]legacy" = 1\n',
    ],
    ids=["key", "glob", "escape-sequences", "legacy"],
)
def test_configuration_errors_on_stderr(tmp_path, capsys, monkeypatch, config):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".agent-lint.toml").write_text(config, encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main([str(repo)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert runner_command(err) is None and "\x1b" not in err and "\x07" not in err


def test_argument_errors_on_stderr(capsys):
    with pytest.raises(SystemExit):
        main(["--select", "\n::error::forged"])
    err = capsys.readouterr().err
    assert all(runner_command(line) is None for line in err.splitlines())


def test_diff_and_fix_output_paths(tmp_path, capsys):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    os.remove(repo / ".agent/conversations/C-payments-refactor/handoffs/state.json")
    assert main([str(repo), "--fix", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert all(runner_command(line) is None for line in out.splitlines())

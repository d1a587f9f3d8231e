"""``sarif`` output: SARIF 2.1.0 for code-scanning upload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_lint import __version__, baseline
from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.escaping import sarif as escape
from agent_lint.escaping import workflow
from agent_lint.reporters.paths import workspace_path
from agent_lint.result import LintResult
from agent_lint.rules import all_rules

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def fingerprint(d: Diagnostic) -> str:
    """A fingerprint stable across line moves: the baseline's (see :mod:`agent_lint.baseline`)."""
    return baseline.fingerprint(d)


def _rule(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.explanation},
        "help": {
            "text": f"{rule.explanation}\n\nExample:\n{rule.bad}\n\nUse instead:\n{rule.good}",
            "markdown": (
                f"{rule.explanation}\n\n**Example**\n\n```\n{rule.bad}\n```\n\n"
                f"**Use instead**\n\n```\n{rule.good}\n```"
            ),
        },
        "defaultConfiguration": {"level": _LEVELS[rule.severity]},
    }


def _result(d: Diagnostic, rule_index: dict[str, int], path: str) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": d.line or 1, "startColumn": d.column or 1}
    if d.end_line is not None:
        region["endLine"] = d.end_line
    if d.end_column is not None:
        region["endColumn"] = d.end_column
    return {
        "ruleId": d.code,
        "ruleIndex": rule_index[d.code],
        "level": _LEVELS[d.severity],
        "message": {"text": escape.message(d.message)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": escape.uri(path), "uriBaseId": "%SRCROOT%"},
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {"agentLint/v1": fingerprint(d)},
        "properties": {"fixable": d.fixable, "name": d.name, "pointer": d.pointer},
    }


def _driver() -> dict[str, Any]:
    return {
        "name": "agent-lint",
        "version": __version__,
        "informationUri": "https://pypi.org/project/agent-lint/",
        "rules": [_rule(rule) for rule in all_rules()],
    }


def _notification(text: str, level: str) -> dict[str, Any]:
    return {"level": level, "message": {"text": escape.message(text)}}


def as_dict(result: LintResult, workspace: Path | None = None) -> dict[str, Any]:
    """The SARIF log as a Python mapping: one run, every rule, every result.

    With ``workspace`` (the checkout on GitHub Actions), URIs are relative to
    it, so code scanning places results in the repository; otherwise they are
    relative to the linted root. Notices of the run are tool notifications.
    """
    rule_index = {rule.code: position for position, rule in enumerate(all_rules())}
    base = workspace if workspace is not None else result.root
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": _driver()},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": [
                            _notification(text, "note") for text in result.all_notices
                        ],
                    }
                ],
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base.resolve().as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": [
                    _result(d, rule_index, workspace_path(d.path, result.root, workspace))
                    for d in result.diagnostics
                ],
            }
        ],
    }


def render(result: LintResult, workspace: Path | None = None) -> str:
    """Render the SARIF log as indented JSON."""
    return workflow.dumps(as_dict(result, workspace)) + "\n"


def render_failure(message: str) -> str:
    """A SARIF log for a run that could not lint (exit code 2): no results, one notification.

    Written wherever a SARIF file was asked for, so an upload step that
    follows still finds a valid log that says what went wrong.
    """
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": _driver()},
                "invocations": [
                    {
                        "executionSuccessful": False,
                        "exitCode": 2,
                        "toolExecutionNotifications": [_notification(message, "error")],
                    }
                ],
                "results": [],
            }
        ],
    }
    return workflow.dumps(log) + "\n"

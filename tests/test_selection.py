"""Selection decides what runs, and what counts as clean is decided after configuration."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import FIXTURES
from conversation import tree

from agent_lint import validators


def _broken_handoff() -> dict[str, Any]:
    """A handoff with an unknown field and a wrong checksum."""
    files = tree()
    name = "conversations/C-1/handoffs/H-002.json"
    files[name] = {**files[name], "note": "extra", "checksum": "sha256:" + "0" * 64}
    return files


@pytest.mark.parametrize(
    ("options", "config"),
    [
        ({"ignore": ["AL1"]}, None),
        ({"select": ["AL5"]}, None),
        ({}, '[severity]\nAL1 = "warning"\n'),
        ({}, '[per-file-ignores]\n".agent/conversations/*" = ["AL102"]\n'),
    ],
)
def test_checksum_is_checked_when_the_schema_finding_is_not_an_error(lint_tree, options, config):
    found = lint_tree(_broken_handoff(), config=config, **options).diagnostics
    assert "AL501" in {d.code for d in found}


def test_a_handoff_with_its_own_error_is_not_used_to_judge_others(lint_tree):
    found = [d.code for d in lint_tree(_broken_handoff()).diagnostics]
    assert found == ["AL102"]


def test_a_check_whose_codes_are_all_deselected_does_not_run():
    from agent_lint.discovery import find_target
    from agent_lint.frozen import replace
    from agent_lint.linter import lint_target

    calls: list[str] = []
    checks = []
    target = find_target(FIXTURES / "valid")
    assert target.profile is not None
    for check in target.profile.repo_checks:

        def spy(index: Any, check: validators.RepoCheck = check) -> Any:
            calls.append(check.name)
            return check.run(index)

        checks.append(validators.Check(spy, check.codes))
    profile = replace(target.profile, repo_checks=tuple(checks))
    config = target.config.with_cli(["AL501"], None)
    lint_target(replace(target, profile=profile, config=config))
    assert calls == ["agent_lint.profiles.cortex.agreement.check_agreement"]


def test_checks_emit_only_the_codes_they_declare():
    from agent_lint.discovery import find_target
    from agent_lint.index import FileContext, RepoIndex
    from agent_lint.linter import lint_target

    undeclared: list[tuple[str, str]] = []

    def watch(check: Any) -> Any:
        def run(value: FileContext | RepoIndex) -> Any:
            for diagnostic in check.run(value):
                if diagnostic.code not in check.codes:
                    undeclared.append((check.name, diagnostic.code))
                yield diagnostic

        return validators.Check(run, check.codes)

    from agent_lint.frozen import replace

    def watched(target: Any) -> Any:
        profile = target.profile
        file_checks = tuple(watch(c) for c in profile.file_checks)
        repo_checks = tuple(watch(c) for c in profile.repo_checks)
        profile = replace(profile, file_checks=file_checks, repo_checks=repo_checks)
        return replace(target, profile=profile)

    fixtures = [*sorted(FIXTURES.glob("broken-*")), *sorted(FIXTURES.parent.glob("*/broken-*"))]
    for fixture in fixtures:
        lint_target(watched(find_target(fixture)))
    for strict in (True, False):
        target = find_target(FIXTURES / "broken-references")
        lint_target(watched(replace(target, config=replace(target.config, strict=strict))))
    assert undeclared == []

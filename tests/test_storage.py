"""AL7xx storage hygiene, AL010 unreadable entries, and the agent dir that leaves the repository."""

from __future__ import annotations

import errno
import os
import unicodedata
from pathlib import Path

import pytest
from conftest import codes
from records import decision

from agent_lint.cli import main
from agent_lint.linter import lint_paths
from agent_lint.validators.storage import temporary_kind, unportable_reason


@pytest.mark.parametrize(
    "name",
    [
        "messages.json.tmp",
        ".state.json.k2j4h1.tmp",
        "state.json.tmp.1234",
        "D-001.json.TEMP",
        ".D-001.json.swp",
        ".D-001.json.swo",
        "D-001.json~",
        "#D-001.json#",
        ".#D-001.json",
    ],
)
def test_temporary_and_editor_files_are_reported_not_read(lint_tree, name):
    result = lint_tree({f"decisions/{name}": "{broken", "decisions/D-001.json": decision()})
    [d] = result.diagnostics
    assert (d.code, d.path) == ("AL701", f".agent/decisions/{name}")
    assert d.severity.value == "warning"
    assert result.files_checked == 1


@pytest.mark.parametrize("name", ["D-001.json", "template.md", "temporal.json", "swap.json"])
def test_ordinary_names_are_not_temporary(name):
    assert temporary_kind(name) is None


def test_lock_folder_is_reported_once_and_not_walked(lint_tree):
    files = {
        "decisions/D-001.json": decision(),  # Cortex state: a lock alone is a foreign layout
        "subagents/.control/owner.json": "{broken",
        "subagents/.control/x.tmp": "",
    }
    [d] = lint_tree(files).diagnostics
    assert (d.code, d.path) == ("AL702", ".agent/subagents/.control")
    assert "stop the agents" in d.message


def test_case_twins_are_reported_once_per_group(lint_tree):
    files = {
        "decisions/D-003.json": decision(decision_id="D-003"),
        "decisions/d-003.json": decision(decision_id="D-003"),
        "decisions/D-003.JSON": "{}",
    }
    found = [d for d in lint_tree(files).diagnostics if d.code == "AL703"]
    [d] = found
    assert d.path == ".agent/decisions/D-003.JSON"
    assert '"D-003.json"' in d.message and '"d-003.json"' in d.message
    assert "differ only in case" in d.message


def test_nfc_and_nfd_twins_are_reported(lint_tree):
    composed = unicodedata.normalize("NFC", "T-café")
    decomposed = unicodedata.normalize("NFD", "T-café")
    files = {f"tasks/{composed}.json": "{}", f"tasks/{decomposed}.json": "{}"}
    found = [d for d in lint_tree(files).diagnostics if d.code == "AL703"]
    [d] = found
    assert "Unicode normalisation (NFC/NFD)" in d.message and "case" not in d.message


def test_folder_twins_are_reported_at_their_parent(lint_tree):
    files = {"decisions/D-001.json": decision(), "Decisions/D-002.json": "{}"}
    found = [d for d in lint_tree(files).diagnostics if d.code == "AL703"]
    assert [d.path for d in found] == [".agent/Decisions"]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("approve:release-1.2.json", "contains `:`"),
        ("a\\b.json", "contains `\\`"),
        ("notes.", "ends with a dot or a space"),
        ("notes ", "ends with a dot or a space"),
        ("CON", "is the reserved device name CON"),
        ("nul.json", "is the reserved device name NUL"),
        ("com1.txt.json", "is the reserved device name COM1"),
        ("tab\there.json", 'contains "\\t"'),
    ],
)
def test_names_windows_refuses(name, reason):
    assert unportable_reason(name) == reason


@pytest.mark.parametrize("name", ["D-001.json", "console.json", "LPT10.json", "con-x.json"])
def test_portable_names(name):
    assert unportable_reason(name) is None


def test_unportable_name_is_a_warning_and_the_record_is_still_read(lint_tree):
    record = decision(decision_id="approve:release-1.2")
    result = lint_tree({"decisions/approve:release-1.2.json": record})
    assert "AL704" in codes(result) and result.files_checked == 1
    [d] = [d for d in result.diagnostics if d.code == "AL704"]
    assert d.severity.value == "warning" and "cannot be checked out on Windows" in d.message


def test_symlink_to_a_folder_inside_the_repository_is_an_error_not_walked(lint_tree, tmp_path):
    shared = tmp_path / "repo" / "shared"
    shared.mkdir(parents=True)
    (shared / "D-001.json").write_text("{broken")
    (tmp_path / "repo" / ".agent").mkdir(parents=True)
    os.symlink(shared, tmp_path / "repo" / ".agent" / "decisions")
    [d] = lint_tree({}).diagnostics
    assert d.code == "AL707" and "neither walked nor checked" in d.message


def test_symlink_whose_target_cannot_be_resolved(lint_tree, tmp_path, monkeypatch):
    folder = tmp_path / "repo" / ".agent" / "decisions"
    folder.mkdir(parents=True)
    os.symlink("/proc/1/cwd/secret.json", folder / "D-001.json")
    real = os.path.realpath

    def denied(path: object, *args: object, **kwargs: object) -> str:
        if str(path).endswith("D-001.json"):
            raise PermissionError(errno.EACCES, "Permission denied", "/proc/1/cwd")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os.path, "realpath", denied)
    [d] = lint_tree({}).diagnostics
    assert d.code == "AL007" and "cannot be resolved" in d.message


@pytest.mark.parametrize("target", ["outside", "/"])
def test_agent_dir_leading_outside_the_repository_is_never_walked(tmp_path, capsys, target):
    outside = tmp_path / "outside"
    (outside / "decisions").mkdir(parents=True)
    (outside / "decisions" / "D-001.json").write_text('{"secret": "do-not-print"}')
    repo = tmp_path / "repo"
    repo.mkdir()
    os.symlink(outside if target == "outside" else target, repo / ".agent")
    for path in (repo, repo / ".agent"):
        assert main([str(path), "--output-format", "json"]) == 1
        out = capsys.readouterr().out
        assert '"AL706"' in out and '"files_checked": 0' in out
        assert "do-not-print" not in out and str(outside) not in out


def test_configured_agent_dir_leading_outside_is_refused(tmp_path):
    outside = tmp_path / "outside"
    (outside / "decisions").mkdir(parents=True)
    repo = tmp_path / "repo"
    (repo / "state").mkdir(parents=True)
    os.symlink(outside, repo / "state" / "agent")
    (repo / ".agent-lint.toml").write_text('agent-dir = "state/agent"\n')
    result = lint_paths([repo])
    assert codes(result) == ["AL706"] and result.files_checked == 0


def test_agent_dir_symlink_inside_the_repository_is_a_warning(tmp_path):
    repo = tmp_path / "repo"
    (repo / "state" / "decisions").mkdir(parents=True)
    (repo / "state" / "decisions" / "D-001.json").write_text('{"x": 1')
    os.symlink(repo / "state", repo / ".agent")
    result = lint_paths([repo])
    assert codes(result) == ["AL705", "AL001"]


def _deny(monkeypatch: pytest.MonkeyPatch, name: str, function: str) -> None:
    """Make ``os.<function>`` raise PermissionError for paths ending in ``name``."""
    original = getattr(os, function)

    def denied(path: object, *args: object, **kwargs: object) -> object:
        if str(getattr(path, "path", path)).endswith(name):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(os, function, denied)


def test_unreadable_folder_is_a_finding_and_the_run_goes_on(lint_tree, monkeypatch):
    _deny(monkeypatch, "/decisions", "scandir")
    result = lint_tree({"decisions/D-001.json": "{broken", "missions/M-1/mission.json": "{oops"})
    assert [(d.code, d.path) for d in result.diagnostics] == [
        ("AL010", ".agent/decisions"),
        ("AL001", ".agent/missions/M-1/mission.json"),
    ]
    assert "Permission denied" in result.diagnostics[0].message


@pytest.mark.parametrize(
    "name",
    [
        "decisions/D-001.json",
        "conversations/C-1/meta.json",
        "conversations/C-1/handoffs/state.json",
    ],
)
def test_unreadable_file_is_a_finding_and_the_run_goes_on(lint_tree, monkeypatch, name):
    from conversation import tree

    files = {**tree(), "decisions/D-001.json": decision()}
    _deny(monkeypatch, name, "open")
    result = lint_tree(files)
    assert [(d.code, d.path) for d in result.diagnostics] == [("AL010", f".agent/{name}")]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files whatever their mode"
)
def test_unreadable_file_by_its_mode(lint_tree, tmp_path):
    folder = tmp_path / "repo" / ".agent" / "decisions"
    folder.mkdir(parents=True)
    path = folder / "D-001.json"
    path.write_text("{}")
    path.chmod(0)
    try:
        assert codes(lint_tree({})) == ["AL010"]
    finally:
        path.chmod(0o644)


def test_storage_rules_are_explained(capsys):
    for code in ("AL701", "AL702", "AL703", "AL704", "AL705", "AL706", "AL010", "AL011"):
        assert main(["--explain", code]) == 0
        assert "What it does" in capsys.readouterr().out


def test_walk_reports_every_regular_file_once(lint_tree, tmp_path):
    files = {f"decisions/D-{n:03d}.json": decision(decision_id=f"D-{n:03d}") for n in range(1, 30)}
    result = lint_tree(files)
    assert result.diagnostics == [] and result.files_checked == 29
    assert Path(tmp_path / "repo" / ".agent" / "decisions").is_dir()

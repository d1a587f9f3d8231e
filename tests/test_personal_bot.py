"""The Personal Bot profile's own checks: each broken fixture matches its golden file.

Each fixture's ``expected.md`` states the findings it must give; ``expected.txt`` is the
tool's output for it, compared byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO
from gitrepo import commit_all, git

from agent_lint.cli import main

FIXTURES = REPO / "fixtures" / "personal_bot"
STORE = Path(".pi/agent/pbot")


def lint(repo: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    """Lint ``repo`` with the Personal Bot profile, from inside it (paths shown from its
    root); the exit code and the output."""
    here = os.getcwd()
    os.chdir(repo)
    try:
        code = main([str(repo), "--profile", "personal_bot", "--no-color", *options])
    finally:
        os.chdir(here)
    return code, capsys.readouterr().out


def matches_golden(fixture: Path, out: str, update: bool) -> None:
    """``out`` equals the fixture's ``expected.txt`` (rewritten with --update-goldens)."""
    golden = fixture / "expected.txt"
    if update:
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")


def expected_rows(fixture: Path) -> list[str]:
    """The files of the findings table(s) in the fixture's ``expected.md``."""
    rows = []
    for line in (fixture / "expected.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| `") and not line.startswith("| `-"):
            rows.append(line.split("`")[1])
    return rows


def test_valid_fixture_is_clean(capsys):
    code, out = lint(FIXTURES / "valid", capsys)
    assert code == 0 and out.startswith("All checks passed"), out


@pytest.mark.parametrize("name", ["broken-dedup", "broken-schema"])
def test_broken_fixture_matches_golden(name, capsys, update_goldens):
    fixture = FIXTURES / name
    code, out = lint(fixture, capsys)
    matches_golden(fixture, out, update_goldens)
    assert code == 1
    reported = sorted(line.split(":", 1)[0] for line in out.splitlines()[:-1])
    assert reported == sorted(expected_rows(fixture))


@pytest.mark.skipif(os.name == "nt", reason="symbolic links and FIFOs need a POSIX file system")
def test_broken_files_fixture_with_links_and_a_fifo_matches_golden(
    tmp_path, capsys, update_goldens
):
    """The committed findings, plus a symlink to a file outside, a folder alias and a FIFO."""
    fixture = FIXTURES / "broken-files"
    repo = tmp_path / "work"
    shutil.copytree(fixture, repo)
    store = repo / STORE
    outside = store / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/descriptor.json"
    outside.unlink()
    outside.symlink_to("/etc/hostname")
    (store / "teams/atlas").symlink_to("atlas-launch", target_is_directory=True)
    os.mkfifo(store / "subagents/0198a1c2-7d3e-7b41-9f0a-2c4d6e8f1a01/inbox.json.fifo")
    code, out = lint(repo, capsys)
    matches_golden(fixture, out, update_goldens)
    assert code == 1
    codes = sorted(line.split(" ")[1] for line in out.splitlines()[:-1])
    assert codes == ["AL001", "AL007", "AL008", "AL701", "AL701", "AL702", "AL707"]
    reported = {line.split(":", 1)[0] for line in out.splitlines()[:-1]}
    assert reported == set(expected_rows(fixture)) | {
        outside.relative_to(repo).as_posix(),
        (STORE / "teams/atlas").as_posix(),
        (STORE / "subagents/0198a1c2-7d3e-7b41-9f0a-2c4d6e8f1a01/inbox.json.fifo").as_posix(),
    }


def test_broken_files_fixture_as_committed_gives_its_four_findings(capsys):
    code, out = lint(FIXTURES / "broken-files", capsys)
    assert code == 1
    reported = [line.split(":", 1)[0] for line in out.splitlines()[:-1]]
    assert reported == expected_rows(FIXTURES / "broken-files")[:4]


def test_git_history_fixture_matches_golden(tmp_path, capsys, update_goldens):
    """session-ref.json is write-once against the base: re-pointed, cleared, deleted."""
    fixture = FIXTURES / "git-history"
    repo = tmp_path / "work"
    shutil.copytree(fixture / "base", repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "Personal Bot state before the change")
    shutil.rmtree(repo / ".pi")
    shutil.copytree(fixture / "change" / ".pi", repo / ".pi")
    code, out = lint(repo, capsys, "--base", "main")
    matches_golden(fixture, out, update_goldens)
    assert code == 1
    assert out.count("AL606") == 3
    lines = out.splitlines()
    assert lines[0].endswith(
        're-pointed to "/home/ana/.pi/agent/sessions/--home-ana-atlas--/'
        '2026-11-03T08-00-00-000Z_0198a1c2-7d3e-7b41-9f0a-2c4d6e8f1a01.jsonl"'
    )
    assert lines[1].endswith("it was changed: cleared to null")
    assert lines[2].endswith("it was deleted")
    reported = [line.split(":", 1)[0] for line in out.splitlines()[:-1]]
    assert reported == expected_rows(fixture)[:3]


def test_a_pin_is_named_by_the_commit_that_set_it(tmp_path, capsys):
    """AL606 names where the reference was pinned, not the commit that added it as null."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "git-history" / "base", repo)
    ref = repo / STORE / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/session-ref.json"
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "added unpinned")
    write_json(ref, {"file": "/home/ana/.pi/agent/sessions/a.jsonl"})
    pinned = commit_all(repo, "the pin")
    write_json(ref, {"file": "/home/ana/.pi/agent/sessions/b.jsonl"})
    code, out = lint(repo, capsys, "--base", "main", "--select", "AL6")
    assert code == 1
    assert f'in {pinned[:7]} ("the pin") and is write-once' in out


def _pinned(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose session-ref.json is pinned on ``main``, and that file."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "git-history" / "base", repo)
    ref = repo / STORE / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/session-ref.json"
    write_json(ref, {"file": "/home/ana/.pi/agent/sessions/a.jsonl"})
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "pinned")
    return repo, ref


def test_a_pin_written_again_with_the_same_value_is_no_change(tmp_path, capsys):
    """Another writer's formatting of the same reference is not a re-pointing."""
    repo, ref = _pinned(tmp_path)
    ref.write_text('{"file":"/home/ana/.pi/agent/sessions/a.jsonl"}', encoding="utf-8")
    code, out = lint(repo, capsys, "--base", "main", "--select", "AL6")
    assert code == 0, out


@pytest.mark.parametrize(
    "written",
    [
        b'{"file": "/evil", "file": "/home/ana/.pi/agent/sessions/a.jsonl"}',
        '{"file": "/home/ana/.pi/agent/sessions/a.jsonl"}'.encode("utf-16"),
    ],
)
def test_a_pin_read_another_way_by_another_parser_is_a_change(tmp_path, capsys, written):
    """Only a strictly read, equal value is the same pin: a repeated key or another
    encoding is a change of the file (what another reader takes from it may differ)."""
    repo, ref = _pinned(tmp_path)
    ref.write_bytes(written)
    code, out = lint(repo, capsys, "--base", "main", "--select", "AL6")
    assert code == 1 and "AL606" in out


def write_json(path: Path, data: object) -> None:
    """Write ``data`` as indented JSON at ``path``."""
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the valid fixture to change."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    return repo


def test_an_operation_id_repeated_in_an_inbox_is_reported_once_at_the_second(workspace, capsys):
    inbox = workspace / STORE / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/inbox.json"
    message = {"seq": 1, "operationId": "parent:op-7", "text": "hi"}
    write_json(inbox, {"messages": [message, {**message, "seq": 2}, {**message, "seq": 3}]})
    code, out = lint(workspace, capsys, "--select", "AL9")
    assert code == 1
    lines = out.splitlines()[:-1]
    assert [line.split(" ", 2)[1] for line in lines] == ["AL901", "AL901"]
    assert lines[0].endswith('operationId "parent:op-7" is already used at /messages/0/operationId')
    assert lines[1].endswith('operationId "parent:op-7" is already used at /messages/0/operationId')


def test_a_request_completed_twice_is_reported_but_a_request_named_by_other_records_is_not(
    workspace, capsys
):
    completions = (
        workspace / STORE / "subagents/0198a1c2-8a4f-7c52-a01b-3d5e7f9a2b02/completions.json"
    )
    data = json.loads(completions.read_text(encoding="utf-8"))
    entries = data["completions"]
    assert entries, "the valid fixture completes a request here"
    code, out = lint(workspace, capsys, "--select", "AL902")
    assert code == 0, out  # requestIds also in team.json's requests and batches
    entries.append({**entries[0], "cycle": 99})
    write_json(completions, data)
    code, out = lint(workspace, capsys, "--select", "AL902")
    assert code == 1
    [line] = out.splitlines()[:-1]
    assert " AL902 " in line
    assert "already completed at /completions/0/requestId" in line
    assert line.split(":", 1)[0].endswith("completions.json")


def test_an_operation_id_may_repeat_across_files_and_as_another_key(workspace, capsys):
    inbox = workspace / STORE / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/inbox.json"
    team = json.loads((workspace / STORE / "teams/atlas-launch/team.json").read_text())
    used = next(m["operationId"] for m in team["messages"] if "operationId" in m)
    write_json(inbox, {"messages": [{"seq": 1, "operationId": used, "note": used}]})
    code, out = lint(workspace, capsys, "--select", "AL901")
    assert code == 0, out


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("sessions/a.jsonl", "is relative"),
        ("C:sessions/a.jsonl", "is relative"),
        ("/home/ana/./sessions/a.jsonl", "has `.` segments"),
        ("C:\\Users\\ana\\..\\a.jsonl", "has `..` segments"),
        ("/home/ana//a.jsonl", "has an empty segment"),
    ],
)
def test_a_session_reference_that_is_not_a_normalised_absolute_path_says_why(
    workspace, capsys, value, problem
):
    ref = workspace / STORE / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/session-ref.json"
    write_json(ref, {"file": value})
    code, out = lint(workspace, capsys)
    assert code == 1
    [line] = out.splitlines()[:-1]
    assert " AL105 " in line and f"{problem}; expected null or" in line
    assert "pattern" not in line


@pytest.mark.parametrize("value", [None, "/home/ana/.pi/agent/sessions/a.jsonl", "D:\\pi\\a.jsonl"])
def test_a_session_reference_that_is_null_or_absolute_is_clean(workspace, capsys, value):
    ref = workspace / STORE / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/session-ref.json"
    write_json(ref, {"file": value})
    code, out = lint(workspace, capsys)
    assert code == 0, out


def test_a_staged_write_once_change_is_placed_in_the_staged_bytes(tmp_path, capsys):
    """--staged judges the index: the finding's place is that of the staged `file` key."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "git-history" / "base", repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "Personal Bot state before the change")
    [ref] = [
        p
        for p in sorted((repo / STORE / "subagents").glob("*/session-ref.json"))
        if json.loads(p.read_text())["file"]
    ][:1]
    ref.write_text('{"file": "/home/ana/other.jsonl"}')
    git(repo, "add", "-A")
    ref.write_text('{\n\n\n  "file": "/home/ana/third.jsonl"\n}\n')  # not staged
    code, out = lint(repo, capsys, "--staged", "--base", "main", "--select", "AL6")
    assert code == 1
    [finding] = out.splitlines()[:-1]
    assert ":1:2: AL606 " in finding and 're-pointed to "/home/ana/other.jsonl"' in finding


def test_a_write_once_file_replaced_by_a_link_is_named_write_once(tmp_path, capsys):
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "Personal Bot state before the change")
    ref = repo / STORE / "subagents/0198a1c3-0b61-7d63-b12c-4e6f8a0b3c03/session-ref.json"
    ref.unlink()
    ref.symlink_to("inbox.json")
    code, out = lint(repo, capsys, "--base", "main", "--select", "AL6")
    assert code == 1
    [line] = [line for line in out.splitlines() if "AL607" in line]
    assert "AL607 session-ref.json was merged in " in line
    assert line.endswith("as a regular file and is write-once; in the change it is a symbolic link")


@pytest.mark.skipif(os.name == "nt", reason="needs symbolic links")
@pytest.mark.parametrize(
    ("link", "target"), [(".pi/agent/pbot", "../../pbstore"), (".pi", "pistore")]
)
def test_a_store_folder_reached_through_a_link_is_one_error(tmp_path, capsys, link, target):
    """The store behind a link is not read (AL707, once, on the link), so a later change
    to the write-once files behind it cannot pass for a store the gate protects."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    moved = (repo / link).parent / target
    (repo / link).rename(moved)
    (repo / link).symlink_to(target)
    for ref in moved.rglob("session-ref.json"):
        ref.write_text('{"file": "/home/evil/other.jsonl"}')
    code, out = lint(repo, capsys)
    assert code == 1
    [line] = out.splitlines()[:-1]
    assert line.startswith(f"{link}:1:1: AL707 symbolic link to the folder ")


@pytest.mark.skipif(os.name == "nt", reason="needs symbolic links")
def test_the_gate_meets_the_links_the_walk_would_and_no_others(tmp_path, capsys):
    """The store's agent dir is the repository root; only its store folders are walked."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / "docs" / "v2").mkdir(parents=True)
    (repo / "docs" / "v2" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "Personal Bot state before the change")
    (repo / "docs" / "latest").symlink_to("v2")  # not the store's: no finding
    teams = repo / STORE / "teams"
    shutil.move(teams, repo / "teams-kept")
    teams.symlink_to("../../../teams-kept")  # the store's, merged as a folder: AL707
    (repo / STORE / "more").symlink_to("../../../docs/v2")  # new in the store: AL707
    git(repo, "add", "-A")
    for mode in ([], ["--staged"]):
        code, out = lint(repo, capsys, "--base", "main", *mode)
        assert code == 1
        assert [line.split(" ")[:2] for line in out.splitlines()[:-1]] == [
            [f"{STORE.as_posix()}/more:1:1:", "AL707"],
            [f"{STORE.as_posix()}/teams:1:1:", "AL707"],
        ], out

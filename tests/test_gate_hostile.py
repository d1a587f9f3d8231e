"""What a hostile change, or an odd local set-up, cannot do to the append-only gate.

Each test reproduces a way the gate was once fooled or blocked normal work, and
runs in both modes where both apply: the work tree, and the index (``--staged``).
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from conftest import codes
from gitrepo import CONV, ENV, add_conversation_handoff, commit_all, edit, git, make_repo
from records import conversation

from agent_lint import gitgate, gitplumbing
from agent_lint.baseline import fingerprint
from agent_lint.cli import main
from agent_lint.gitgate import snapshots
from agent_lint.linter import lint_paths

MODES = ["worktree", "staged"]
H001_JSON = f"{CONV}/handoffs/H-001.json"
H001_MD = f"{CONV}/handoffs/H-001.md"
H002_JSON = f"{CONV}/handoffs/H-002.json"


def gate(repo: Path, capsys, mode: str, *args: str, base: str = "main") -> tuple[int, dict, str]:
    """Run agent-lint with the gate on ``repo``; exit code, JSON report and stderr."""
    extra = ["--staged"] if mode == "staged" else []
    if mode == "staged":
        git(repo, "add", "-A")
    code = main([str(repo), "--base", base, "--output-format", "json", *extra, *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def found(report: dict) -> list[tuple[str, str]]:
    """The gate's findings: (code, path)."""
    return [(d["code"], d["path"]) for d in report.get("diagnostics", []) if d["code"][:3] == "AL6"]


def message(report: dict, code: str) -> str:
    [finding] = [d for d in report["diagnostics"] if d["code"] == code]
    return str(finding["message"])


# --- A fake repository in the tree is not the repository ---------------------------------


def _fake_repository(folder: Path, repo: Path) -> None:
    """Plain files that make ``folder`` look like a git repository whose HEAD is the first
    commit, sharing the real object store: the shape of a hostile pull request."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "HEAD").write_text("ref: refs/heads/x\n")
    (folder / "objects" / "info").mkdir(parents=True)
    objects = os.path.relpath(repo / ".git" / "objects", folder / "objects")
    (folder / "objects" / "info" / "alternates").write_text(objects + "\n")
    (folder / "refs" / "heads").mkdir(parents=True)
    (folder / "refs" / "heads" / "x").write_text(git(repo, "rev-parse", "HEAD") + "\n")
    (folder / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
    )


def _monorepo(tmp_path: Path) -> Path:
    """A repository whose agent state lives in services/pay/.agent."""
    repo = tmp_path / "mono"
    shutil.copytree(make_repo(tmp_path, name="seed") / ".agent", repo / "services/pay/.agent")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "agent state in a subfolder")
    return repo


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("where", [".agent", "services", "services/pay/.agent"])
def test_a_fake_repository_committed_by_the_change_is_ignored(tmp_path, capsys, mode, where):
    repo = make_repo(tmp_path) if where == ".agent" else _monorepo(tmp_path)
    root = repo if where == ".agent" else repo / "services/pay"
    git(repo, "checkout", "-q", "-b", "change")
    _fake_repository(repo / where, repo)
    (root / ".agent-lint.toml").write_text('ignore = ["AL6"]\n')  # the change's: not used
    edit(root / H001_MD, "#", "# rewritten")
    commit_all(repo, "innocent change")
    code, report, _ = gate(root, capsys, mode)
    assert code == 1
    assert found(report) == [("AL601", H001_MD)]


def _tracked_folder_with_git(tmp_path: Path, how: str) -> Path:
    repo = make_repo(tmp_path)
    if how == "gitfile":  # a .git file whose gitdir: names another repository
        other = make_repo(tmp_path, name="other")
        (repo / ".agent" / ".git").write_text(f"gitdir: {other / '.git'}\n")
        return repo
    env = {**os.environ, **ENV, "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q"], cwd=repo / ".agent", check=True, env=env)
    return repo


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", ["git-init", "gitfile"])
def test_a_git_folder_in_an_agent_dir_the_project_tracks_does_not_hide_it(
    tmp_path, capsys, mode, how
):
    repo = _tracked_folder_with_git(tmp_path, how)
    edit(repo / H002_JSON, '"task_complete"', '"timeout"')
    code, report, _ = gate(repo, capsys, mode)
    assert code == 1
    assert found(report) == [("AL601", H002_JSON)]


def test_git_dir_in_the_environment_names_the_repository(tmp_path, capsys, monkeypatch):
    repo = make_repo(tmp_path)
    other = make_repo(tmp_path, name="other")
    edit(repo / H002_JSON, '"task_complete"', '"timeout"')
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo))
    code, report, _ = gate(repo, capsys, "worktree")
    assert (code, found(report)) == (1, [("AL601", H002_JSON)])
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert main([str(repo), "--base", "main"]) == 2
    assert "GIT_DIR names the repository at" in capsys.readouterr().err


def test_discovery_never_takes_a_folder_for_a_bare_repository(tmp_path):
    repo = make_repo(tmp_path)
    _fake_repository(repo / ".agent", repo)
    found_repo = gitplumbing.Repository.discover(repo / ".agent")
    assert found_repo is not None and found_repo.top == repo.resolve()
    assert found_repo.git_dir == (repo / ".git").resolve()
    alone = tmp_path / "alone"
    _fake_repository(alone, repo)
    assert gitplumbing.Repository.discover(alone) is None


# --- A baseline never hides the gate ----------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_baseline_in_the_change_cannot_waive_the_gate(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    baseline = repo / ".agent-lint-baseline.json"
    edit(repo / H001_MD, "#", "# rewritten")
    if mode == "staged":
        git(repo, "add", "-A")
    args = [str(repo), "--base", "main", *(["--staged"] if mode == "staged" else [])]
    assert main([*args, "--write-baseline", str(baseline)]) == 0
    capsys.readouterr()
    assert json.loads(baseline.read_text())["findings"] == []  # the gate is never recorded
    # An entry written by hand (or by an older agent-lint) hides nothing either.
    result = lint_paths([repo], base="main", staged=mode == "staged")
    [finding] = [d for d in result.diagnostics if d.code == "AL601"]
    entry = {"fingerprint": fingerprint(finding), "code": "AL601", "path": H001_MD}
    baseline.write_text(json.dumps({"version": 1, "findings": [entry]}))
    code, report, _ = gate(repo, capsys, mode, "--baseline", str(baseline))
    assert code == 1
    assert found(report) == [("AL601", H001_MD)]


# --- Twins of merged names --------------------------------------------------------------


def _rewritten(path: Path) -> str:
    return path.read_text().replace('"user_switched_tool"', '"timeout"')


@pytest.mark.parametrize("mode", MODES)
def test_a_case_twin_of_a_merged_handoff(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    twin = repo / CONV / "handoffs/h-001.json"
    twin.write_text(_rewritten(repo / H001_JSON))
    (repo / ".agent-lint.toml").write_text('ignore = ["AL703", "AL205", "AL610"]\n')
    code, report, _ = gate(repo, capsys, mode)
    assert code == 1
    assert found(report) == [("AL610", f"{CONV}/handoffs/h-001.json")]
    text = message(report, "AL610")
    assert "differs from the merged H-001.json" in text and "only in letter case" in text
    assert "AL703" not in codes_of(report)  # one fact, one finding


def codes_of(report: dict) -> list[str]:
    return [d["code"] for d in report["diagnostics"]]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "folder",
    [".agent/conversations/C-Payments-Refactor", ".Agent"],
    ids=["conversation-folder", "agent-dir"],
)
def test_a_case_twin_of_a_folder_holding_merged_handoffs(tmp_path, capsys, mode, folder):
    repo = make_repo(tmp_path)
    twin = (
        repo
        / folder
        / H001_JSON[len(".agent/") :].removeprefix(
            "conversations/C-payments-refactor/" if folder != ".Agent" else ""
        )
    )
    twin.parent.mkdir(parents=True)
    twin.write_text(_rewritten(repo / H001_JSON))
    code, report, _ = gate(repo, capsys, mode, "--select", "AL6")
    assert code == 1
    assert found(report) == [("AL610", folder)]
    # The agent dir also holds a write-once session-ref.json; a conversation folder does not.
    held = "append-only and write-once" if folder == ".Agent" else "append-only"
    assert f"which holds {held} files merged on main" in message(report, "AL610")
    assert "so the merged files in it can change unseen" in message(report, "AL610")


def test_a_normalisation_twin_of_a_conversation_folder(tmp_path, capsys):
    repo = make_repo(tmp_path)
    composed = unicodedata.normalize("NFC", ".agent/conversations/C-café")
    shutil.copytree(repo / CONV, repo / composed)
    commit_all(repo, "a conversation with an accent")
    git(repo, "branch", "-f", "base")
    decomposed = unicodedata.normalize("NFD", composed)
    shutil.copytree(repo / composed / "handoffs", repo / decomposed / "handoffs")
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6", base="base")
    assert code == 1
    assert found(report) == [("AL610", decomposed)]
    assert "only in Unicode normalisation (NFC/NFD)" in message(report, "AL610")


def test_renaming_to_a_case_twin_is_a_rename_not_a_twin(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "mv", H001_MD, f"{CONV}/handoffs/h-001.md")
    _, report, _ = gate(repo, capsys, "staged")
    assert found(report) == [("AL603", H001_MD)]


def test_a_twin_merged_before_the_change_is_not_the_change_s(tmp_path, capsys):
    repo = make_repo(tmp_path)
    shutil.copy(repo / H001_MD, repo / CONV / "handoffs/h-001.md")
    commit_all(repo, "a twin, merged long ago")
    git(repo, "branch", "-f", "base")
    add_conversation_handoff(repo, 4)
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6", base="base")
    assert (code, found(report)) == (0, [])


# --- A moved agent dir, with the hook's settings ----------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_moved_agent_dir_is_a_finding_not_a_usage_error(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(repo, "mv", ".agent", "state")
    code, report, _ = gate(repo, capsys, mode, "--select", "AL6", base="auto")
    assert code == 1
    assert found(report) == [("AL608", ".agent")]


def test_no_agent_dir_and_no_gate_is_one_notice(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "mv", ".agent", "state")
    assert main([str(repo)]) == 0
    assert "no profile's markers match in ./; nothing checked" in capsys.readouterr().err


# --- Encodings git converts with iconv --------------------------------------------------


def _encoded_notes(tmp_path: Path, encoding: str, codec: str, mark: bytes) -> Path:
    repo = make_repo(tmp_path)
    (repo / ".gitattributes").write_text(f"H-*.md working-tree-encoding={encoding}\n")
    for note in repo.glob(".agent/**/handoffs/H-*.md"):
        note.write_bytes(mark + note.read_text(encoding="utf-8").encode(codec))
    commit_all(repo, f"notes in {encoding}")
    git(repo, "branch", "-f", "base")
    return repo


@pytest.mark.parametrize(
    "encoding, codec, mark",
    [
        ("UTF-16LE-BOM", "utf-16-le", codecs.BOM_UTF16_LE),  # git's own name
        ("utf16le-bom", "utf-16-le", codecs.BOM_UTF16_LE),
        ("UTF-16", "utf-16-be", codecs.BOM_UTF16_BE),
        ("UCS-2LE", "utf-16-le", b""),  # iconv's name; Python has no such codec
        ("SHIFT-JIS", "shift_jis", b""),
    ],
)
def test_touched_files_in_a_working_tree_encoding_are_not_modified(
    tmp_path, capsys, encoding, codec, mark
):
    repo = _encoded_notes(tmp_path, encoding, codec, mark)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    for note in clone.glob(".agent/**/*.md"):
        os.utime(note, (1_000_000_000, 1_000_000_000))  # touched: hashed, not trusted
    code, report, _ = gate(clone, capsys, "worktree", "--select", "AL6", base="origin/base")
    assert (code, found(report)) == (0, [])
    note = clone / H001_MD
    text = note.read_bytes().removeprefix(mark).decode(codec)
    note.write_bytes(mark + text.replace("\n\n", "\n\nrewritten\n\n", 1).encode(codec))
    code, report, _ = gate(clone, capsys, "worktree", "--select", "AL6", base="origin/base")
    assert (code, found(report)) == (1, [("AL601", H001_MD)])


def test_an_encoding_git_cannot_hash_is_not_compared(tmp_path, capsys, monkeypatch):
    repo = _encoded_notes(tmp_path, "UTF-16LE-BOM", "utf-16-le", codecs.BOM_UTF16_LE)
    os.utime(repo / H001_MD, (1_000_000_000, 1_000_000_000))
    monkeypatch.setattr(gitplumbing.Repository, "hash_work_file", lambda *_: None)
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6", base="base")
    assert (code, found(report)) == (1, [("AL611", H001_MD)])
    assert "cannot be converted from its working-tree-encoding UTF-16LE-BOM" in message(
        report, "AL611"
    )


@pytest.mark.parametrize(
    "name, codec, mark",
    [
        ("UTF-16LE-BOM", "utf-16-le", codecs.BOM_UTF16_LE),
        ("UTF16BE-BOM", "utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32le-bom", "utf-32-le", codecs.BOM_UTF32_LE),
        ("UTF-32BE-BOM", "utf-32-be", codecs.BOM_UTF32_BE),
        ("UTF-32", "utf-32-be", codecs.BOM_UTF32_BE),
        ("UTF-16", "utf-16-be", b""),  # iconv reads big-endian without a mark
    ],
)
def test_git_and_iconv_names_decode_like_git(name, codec, mark):
    text = "# note\nné\n"
    data = mark + text.encode(codec)
    assert snapshots.from_working_tree_encoding(data, name) == text.encode("utf-8")


def test_an_encoding_python_does_not_know_is_left_to_git():
    assert snapshots.from_working_tree_encoding(b"x", "UCS-2LE") is None


# --- The index git commits --------------------------------------------------------------


def test_a_hook_judges_the_index_git_commits_wherever_it_is(tmp_path):
    repo = make_repo(tmp_path)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -m agent_lint --staged --base main --select AL6\n'
    )
    hook.chmod(0o755)
    alternate = tmp_path / "alternate-index"
    shutil.copy(repo / ".git" / "index", alternate)
    edit(repo / H001_MD, "#", "# rewritten")
    env = {**os.environ, **ENV, "HOME": str(tmp_path), "GIT_INDEX_FILE": str(alternate)}
    env.pop("GIT_DIR", None)
    subprocess.run(["git", "add", H001_MD], cwd=repo, env=env, check=True)
    git(repo, "checkout", "-q", "--", H001_MD)
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "from an alternate index"],
        cwd=repo, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "AL601" in done.stderr  # git shows a hook's output on stderr
    assert git(repo, "rev-list", "--count", "HEAD") == "1"


# --- Gitlinks the base already has ------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_submodule_merged_before_the_change_is_a_notice(tmp_path, capsys, mode):
    sub = tmp_path / "shared"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    (sub / "notes.md").write_text("shared memory\n")
    commit_all(sub, "shared")
    repo = make_repo(tmp_path)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(sub),
        ".agent/memory/shared")  # fmt: skip
    commit_all(repo, "agent state with a shared-memory submodule")
    git(repo, "branch", "-f", "base")
    (repo / "README.md").write_text("# docs only\n")
    code, report, _ = gate(repo, capsys, mode, "--select", "AL6", base="base")
    assert (code, found(report)) == (0, [])
    [notice] = report["notices"]
    assert notice.startswith(".agent/memory/shared: a submodule inside the agent dir")
    # Pointing it at another commit is the change's doing.
    (repo / ".agent/memory/shared/notes.md").write_text("rewritten\n")
    commit_all(repo / ".agent/memory/shared", "rewrite")
    git(repo, "add", ".agent/memory/shared")
    code, report, _ = gate(repo, capsys, "staged", "--select", "AL6", base="base")
    assert found(report) == [("AL609", ".agent/memory/shared")]


# --- The work tree as git sees it -------------------------------------------------------


def test_a_same_size_edit_with_its_time_put_back_is_seen(tmp_path, capsys):
    repo = make_repo(tmp_path)
    handoff = repo / H001_JSON
    before = handoff.stat()
    text = handoff.read_text()
    assert "user_switched_tool" in text
    rewritten = text.replace("user_switched_tool", "user_switched_TOOL")
    handoff.unlink()  # a new inode, as editors that write a copy do
    handoff.write_text(rewritten)
    os.utime(handoff, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert handoff.stat().st_size == before.st_size
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6")
    assert (code, found(report)) == (1, [("AL601", H001_JSON)])


def test_untouched_compares_what_git_compares(tmp_path):
    repo = gitplumbing.Repository.discover(make_repo(tmp_path))
    assert repo is not None
    [entry] = repo.ls_index([H001_JSON]).values()
    info = (repo.top / H001_JSON).stat()
    assert snapshots.untouched(entry, info)
    for field in ("ctime_ns", "ino", "dev", "uid", "gid", "size", "mtime_ns"):
        changed = {field: getattr(entry, field) + 1}
        assert not snapshots.untouched(entry._replace(**changed), info), field
    assert not snapshots.untouched(entry._replace(mode="100755"), info)
    assert snapshots.untouched(entry._replace(ino=0, dev=0, ctime_ns=0), info)  # not recorded


def _deny(monkeypatch: pytest.MonkeyPatch, suffix: str, function: str) -> None:
    """Make ``os.<function>`` raise PermissionError for paths ending in ``suffix``."""
    original = getattr(os, function)

    def denied(path: object, *args: object, **kwargs: object) -> object:
        if str(getattr(path, "path", path)).endswith(suffix):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(os, function, denied)


def test_an_unreadable_folder_is_not_compared_not_deleted(tmp_path, capsys, monkeypatch):
    repo = make_repo(tmp_path)
    _deny(monkeypatch, "C-payments-refactor/handoffs", "scandir")
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6")
    assert code == 1
    assert found(report) == [("AL611", f"{CONV}/handoffs")]
    text = message(report, "AL611")
    assert "holds 6 append-only files" in text and "cannot be read (Permission denied)" in text


def test_an_unreadable_touched_handoff_is_not_compared_not_deleted(tmp_path, capsys, monkeypatch):
    repo = make_repo(tmp_path)
    os.utime(repo / H002_JSON, (1_000_000_000, 1_000_000_000))
    _deny(monkeypatch, "handoffs/H-002.json", "open")
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6")
    assert code == 1
    assert found(report) == [("AL611", H002_JSON)]
    assert "H-002.json was merged in" in message(report, "AL611")


def test_a_merged_handoff_whose_stat_fails_is_not_compared_not_deleted(
    tmp_path, capsys, monkeypatch
):
    # The walk lists a regular file by its entry's type; its stat data is read when the
    # gate compares it. A file that lists but cannot be stat'ed (a folder without the
    # search bit) is one the gate cannot compare: AL611, never taken for unchanged.
    repo = make_repo(tmp_path)
    _deny(monkeypatch, "handoffs/H-002.json", "lstat")
    _deny(monkeypatch, "handoffs/H-002.json", "open")
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6")
    assert code == 1
    assert found(report) == [("AL611", H002_JSON)]


def test_names_in_a_folder_that_lists_but_cannot_be_searched_are_still_judged(
    tmp_path, capsys, monkeypatch
):
    # A folder readable but not searchable lists its names, and no file in it can be
    # looked at: the merged handoffs are not compared (AL611), and a new name is judged
    # by its name alone (here a number out of turn, AL605).
    repo = make_repo(tmp_path)
    folder = repo / CONV / "handoffs"
    (folder / "H-009.json").write_bytes((folder / "H-003.json").read_bytes())
    for function in ("lstat", "open", "stat"):
        original = getattr(os, function)

        def denied(path, *args, original=original, **kwargs):  # type: ignore[no-untyped-def]
            if f"{CONV}/handoffs/" in str(getattr(path, "path", path)):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return original(path, *args, **kwargs)

        monkeypatch.setattr(os, function, denied)
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6", "--jobs", "1")
    assert code == 1
    codes = sorted(code for code, _ in found(report))
    assert codes == ["AL605"] + ["AL611"] * 6, found(report)


def test_an_executable_bit_alone_does_not_modify_a_merged_handoff(tmp_path, capsys):
    # The work tree's stat data no longer matches the index (another mode): the file is
    # hashed, and the same bytes are the same blob.
    repo = make_repo(tmp_path)
    (repo / H002_JSON).chmod(0o755)
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6")
    assert (code, found(report)) == (0, [])
    edit(repo / H002_JSON, '"reason"', '"reason" ')
    code, report, _ = gate(repo, capsys, "worktree", "--select", "AL6")
    assert (code, found(report)) == (1, [("AL601", H002_JSON)])


def test_the_changed_files_are_listed_only_for_the_job_summary(tmp_path, capsys):
    repo = make_repo(tmp_path)
    add_conversation_handoff(repo, 4)
    plain = lint_paths([repo], base="main")
    asked = lint_paths([repo], base="main", list_changed=True)
    assert plain.changed is None
    assert asked.changed == {f"{CONV}/handoffs/H-004.json", f"{CONV}/handoffs/H-004.md"}
    assert plain.diagnostics == asked.diagnostics
    # The summary shows the handoff chains of the conversations the change touched.
    summary = tmp_path / "summary.md"
    main([str(repo), "--base", "main", "--summary-file", str(summary), "--output-format", "json"])
    capsys.readouterr()
    text = summary.read_text()
    assert "### Handoff chain of `C-payments-refactor`" in text
    assert "C-onboarding" not in text


# --- Links that leave the repository ----------------------------------------------------


def test_a_link_through_a_symlink_out_of_the_repository_is_no_probe(lint_tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "there.md").write_text("# there\n")
    root = tmp_path / "repo"
    root.mkdir()
    os.symlink(outside, root / "docs")
    note = "# Notes\n\n[there](../../../docs/there.md) and [gone](../../../docs/gone.md)\n"
    record = conversation(artifact_refs=["docs/there.md", "docs/gone.md"])
    result = lint_tree(
        {"conversations/C-1/meta.json": record, "conversations/C-1/artifacts.md": note}
    )
    shown = [(d.code, d.message.replace("there", "X").replace("gone", "X"))
             for d in result.diagnostics if d.code in ("AL302", "AL303", "AL314")]  # fmt: skip
    assert codes(result).count("AL303") == 4, shown
    assert shown[0][1] == shown[1][1]  # the same words whether or not the target exists


# --- A handoff kept as a symbolic link -----------------------------------------------------


def _handoff_as_link(repo: Path) -> None:
    """H-004 and its note written to store/ and linked into the conversation."""
    written = add_conversation_handoff(repo, 4)
    store = repo / "store"
    store.mkdir(exist_ok=True)
    for suffix in (".json", ".md"):
        path = written.with_suffix(suffix)
        shutil.move(path, store / f"h4{suffix}")
        os.symlink(f"../../../../store/h4{suffix}", path)


@pytest.mark.parametrize("mode", MODES)
def test_a_handoff_added_as_a_symbolic_link_is_refused(tmp_path, capsys, mode):
    """Once merged, git would record the link, not the handoff behind it: the change that
    adds it is AL607, whatever its own settings say of AL705."""
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "change")
    _handoff_as_link(repo)
    (repo / ".agent-lint.toml").write_text('ignore = ["AL705"]\n')
    code, report, _ = gate(repo, capsys, mode)
    assert code == 1
    assert found(report) == [
        ("AL607", f"{CONV}/handoffs/H-004.json"),
        ("AL607", f"{CONV}/handoffs/H-004.md"),
    ]
    assert all(
        "is append-only and a symbolic link (the change adds it as one)" in d["message"]
        for d in report["diagnostics"]
        if d["code"] == "AL607"
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_merged_handoff_kept_as_a_link_cannot_be_compared(tmp_path, capsys, mode):
    """A link merged before the gate stood: what it leads to may have been rewritten, which
    the gate cannot see (AL611) until the link is replaced with the file."""
    repo = make_repo(tmp_path)
    _handoff_as_link(repo)
    commit_all(repo, "H-004 kept in store/")
    git(repo, "checkout", "-q", "-b", "change")
    edit(repo / "store/h4.md", "# H-004", "# H-004, rewritten")
    code, report, _ = gate(repo, capsys, mode)
    assert code == 1
    assert found(report) == [
        ("AL611", f"{CONV}/handoffs/H-004.json"),
        ("AL611", f"{CONV}/handoffs/H-004.md"),
    ]
    git(repo, "checkout", "-q", "HEAD", "--", "store/h4.md")
    for suffix in (".json", ".md"):
        link = repo / f"{CONV}/handoffs/H-004{suffix}"
        link.unlink()
        shutil.copy(repo / f"store/h4{suffix}", link)
    code, report, _ = gate(repo, capsys, mode)
    assert found(report) == []


def test_a_merged_handoff_whose_commit_holds_other_bytes_is_modified_whatever_the_work_tree(
    tmp_path, capsys
):
    """The change commits H-001.md with CRLF, then a `text` attribute: the work tree, once
    hashed (its stamp no longer the index's), converts back to the merged blob, but what the
    commit records, the index's blob, is not the merged one: AL601."""
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "change")
    note = repo / H001_MD
    note.write_bytes(note.read_bytes().replace(b"\n", b"\r\n"))
    commit_all(repo, "CRLF")
    (repo / ".gitattributes").write_text("*.md text\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    assert git(repo, "rev-parse", f"HEAD:{H001_MD}") != git(repo, "rev-parse", f"main:{H001_MD}")
    later = note.stat().st_mtime + 100
    os.utime(note, (later, later))  # as after a checkout in another second: hashed again
    code, report, _ = gate(repo, capsys, "worktree")
    assert code == 1 and found(report) == [("AL601", H001_MD)]
    assert "the index (what the change's commit records) holds other bytes" in message(
        report, "AL601"
    )


def test_a_merged_handoff_replaced_by_a_gitlink_is_its_al607_alone(tmp_path, capsys):
    """state.json, meta.json and the resume marker still name H-003 as merged: restoring it
    clears what they would say, so the replacement is one finding, as a deletion is."""
    repo = make_repo(tmp_path)
    handoff = f"{CONV}/handoffs/H-003.json"
    git(repo, "rm", "-q", "--cached", handoff)
    (repo / handoff).unlink()
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},{handoff}")
    code = main([str(repo), "--base", "main", "--staged", "--output-format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(d["code"], d["path"]) for d in report["diagnostics"]] == [("AL607", handoff)]


@pytest.mark.parametrize("mode", MODES)
def test_a_merged_link_replaced_by_a_rewritten_file_is_modified(tmp_path, capsys, mode):
    """The file that replaces a merged link must hold what the link led to on the base."""
    repo = make_repo(tmp_path)
    _handoff_as_link(repo)
    commit_all(repo, "H-004 kept in store/")
    git(repo, "checkout", "-q", "-b", "change")
    link = repo / f"{CONV}/handoffs/H-004.md"
    link.unlink()
    link.write_text("# H-004, rewritten\n")
    code, report, _ = gate(repo, capsys, mode)
    assert code == 1
    assert ("AL601", f"{CONV}/handoffs/H-004.md") in found(report)
    assert "as a symbolic link to store/h4.md" in message(report, "AL601")


# --- Several merge-bases --------------------------------------------------------------


def _criss_cross(tmp_path: Path) -> tuple[Path, str, str]:
    """A change with two merge-bases with main, made on purpose: main merged the change's
    first commit B (a new conversation) after an older commit A, and the change then
    merged A itself, not main. The repository (on the change), A and B."""
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "feature")
    shutil.copytree(
        repo / ".agent/conversations/C-onboarding", repo / ".agent/conversations/C-newconv"
    )
    feature = commit_all(repo, "B: a new conversation")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("a\n")
    older = commit_all(repo, "A: something else", date="2026-11-06T12:00:00+00:00")
    git(repo, "merge", "-q", "--no-edit", "feature", "-m", "T: merge the conversation")
    git(repo, "checkout", "-q", "-b", "pr", feature)
    git(repo, "merge", "-q", "--no-edit", older, "-m", "P: merge A, not T")
    return repo, older, feature


@pytest.mark.parametrize("mode", MODES)
def test_a_handoff_merged_in_any_of_several_merge_bases_is_protected(tmp_path, capsys, mode):
    """A change that makes a second merge-base on purpose (it merges an older commit of
    main itself) still meets the handoff main merged from it: git names one merge-base,
    the gate compares with each."""
    repo, older, feature = _criss_cross(tmp_path)
    # git's own choice is the merge-base without the conversation.
    assert git(repo, "merge-base", "--all", "HEAD", "main").split() == [older, feature]
    handoff = repo / ".agent/conversations/C-newconv/handoffs/H-001.json"
    handoff.write_text(handoff.read_text().replace('"session_archive"', '"timeout"'))
    code, report, _err = gate(repo, capsys, mode)
    assert found(report) == [("AL601", ".agent/conversations/C-newconv/handoffs/H-001.json")]
    assert code == 1
    assert any("have 2 merge-bases (criss-cross merges)" in n for n in report["notices"])


def test_a_change_with_more_merge_bases_than_the_gate_compares_is_refused(
    tmp_path, capsys, monkeypatch
):
    """Each merge-base costs a full comparison: past the cap the run is refused (exit 2),
    never judged against only some of them."""
    monkeypatch.setattr(gitgate, "MAX_MERGE_BASES", 1)
    repo, _, _ = _criss_cross(tmp_path)
    assert main([str(repo), "--base", "main", "--no-cache"]) == 2
    assert "have 2 merge-bases (criss-cross merges)" in capsys.readouterr().err

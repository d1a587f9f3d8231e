"""One symbolic link, one finding per fact, with and without the append-only gate.

A link to a file inside the repository is AL705 (a warning); a link to a folder
inside the agent dir is AL707 (an error: nothing behind it is read, and the
change cannot waive it); a link that leads out is AL007 (or AL706 for the agent
dir itself); a link in place of a merged handoff or of a folder holding some is
the gate's AL607, which then stands for AL705 or AL707 too. Files behind a
linked folder are present without being read, so the link is not reported again
by every reference to them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from gitrepo import CONV, git, make_linked_repo, make_repo

from agent_lint import baseline
from agent_lint.cli import main
from agent_lint.linter import lint_paths

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")

H001 = f"{CONV}/handoffs/H-001.json"


def findings(repo: Path, **options: Any) -> list[tuple[str, str]]:
    return [(d.code, d.path) for d in lint_paths([repo], **options).diagnostics]


def test_a_linked_folder_inside_the_agent_dir_is_one_error(tmp_path):
    """Nothing behind it is read: the link is the finding, and the only one."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    handoffs = repo / CONV / "handoffs"
    shutil.move(handoffs, repo / "kept-handoffs")
    (repo / "kept-handoffs" / "H-001.json").write_text('{"garbage": true}')
    os.symlink("../../../kept-handoffs", handoffs)
    [found] = lint_paths([repo]).diagnostics
    assert (found.code, found.path, found.severity.value) == ("AL707", f"{CONV}/handoffs", "error")
    assert "kept-handoffs: the files behind it are neither walked" in found.message


def _linked_conversation(repo: Path) -> str:
    """A change that adds a conversation as a link to a folder outside the agent dir."""
    conversation = ".agent/conversations/C-linked"
    shutil.copytree(repo / CONV, repo / "docs" / "C-linked")
    (repo / "docs" / "C-linked" / "handoffs" / "H-001.json").write_text('{"garbage": true}')
    os.symlink("../../docs/C-linked", repo / conversation)
    return conversation


@pytest.mark.parametrize("staged", [False, True], ids=["worktree", "staged"])
def test_a_change_cannot_waive_a_linked_folder(tmp_path, capsys, staged):
    """The change's own configuration ignores AL7: with the gate, the merge-base's settings
    decide AL707, as they decide AL6xx (the link would take the handoffs out of its reach)."""
    repo = make_repo(tmp_path)
    conversation = _linked_conversation(repo)
    (repo / ".agent-lint.toml").write_text('ignore = ["AL707", "AL7"]\n', encoding="utf-8")
    if staged:
        git(repo, "add", "-A")
    assert findings(repo, base="main", staged=staged) == [("AL707", conversation)]
    assert findings(repo) == []  # without the gate, the change's settings are the ones
    assert main([str(repo), "--base", "main", *(["--staged"] if staged else [])]) == 1
    err = capsys.readouterr().err
    assert "until it is merged, the gate (AL6xx, and AL707) follows the configuration" in err


@pytest.mark.parametrize("staged", [False, True], ids=["worktree", "staged"])
@pytest.mark.parametrize("setting", ['agent-dir = "docs"', 'profile = "personal_bot"'])
def test_a_change_that_walks_elsewhere_still_meets_a_linked_folder(tmp_path, staged, setting):
    """The gate sees the link in the merge-base's agent dir, whatever the change's settings
    make the walk read: once, when the walk sees it too."""
    repo = make_repo(tmp_path)
    conversation = _linked_conversation(repo)
    (repo / ".agent-lint.toml").write_text(f"{setting}\n", encoding="utf-8")
    if staged:
        git(repo, "add", "-A")
    assert findings(repo, base="main", staged=staged) == [("AL707", conversation)]


def test_a_link_staged_and_gone_from_the_work_tree_is_judged_as_staged(tmp_path):
    repo = make_repo(tmp_path)
    conversation = _linked_conversation(repo)
    git(repo, "add", "-A")
    os.unlink(repo / conversation)
    assert findings(repo, base="main", staged=True) == [("AL707", conversation)]
    assert findings(repo, base="main") == []  # the work tree has no link


def _staged_only(repo: Path, links: dict[str, str]) -> None:
    """Stage links (path: target) and take them from the work tree again."""
    for link, target in links.items():
        os.symlink(target, repo / link)
    git(repo, "add", "-A")
    for link in links:
        os.unlink(repo / link)


def test_a_staged_link_is_followed_through_the_index_own_links(tmp_path):
    """A chain of links, and a folder named but for letter case, as a checkout follows them."""
    repo = make_repo(tmp_path)
    shutil.copytree(repo / CONV, repo / "stash" / "C-x")
    os.symlink("stash/C-x", repo / "hop")
    _staged_only(
        repo,
        {
            ".agent/conversations/C-x": "../../hop",
            ".agent/conversations/C-y": "../../Stash/C-x",  # so on macOS and Windows
        },
    )
    assert findings(repo, base="main", staged=True) == [
        ("AL707", ".agent/conversations/C-x"),
        ("AL707", ".agent/conversations/C-y"),
    ]


def test_two_links_to_one_folder_are_two_findings(tmp_path):
    repo = make_repo(tmp_path)
    os.symlink(".", repo / ".agent/conversations/dot")
    os.symlink("../conversations", repo / ".agent/conversations/up")
    expected = [("AL707", ".agent/conversations/dot"), ("AL707", ".agent/conversations/up")]
    assert findings(repo, base="main") == expected
    git(repo, "add", "-A")
    assert findings(repo, base="main", staged=True) == expected


def test_a_staged_link_no_file_system_can_make_is_not_followed(tmp_path):
    repo = make_repo(tmp_path)
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo, input=b"../../docs\0x", capture_output=True, check=True,
    ).stdout.decode().strip()  # fmt: skip
    git(repo, "update-index", "--add", "--cacheinfo", f"120000,{blob},.agent/conversations/C-nul")
    assert findings(repo, base="main", staged=True) == []  # no internal error either


def test_a_link_is_followed_as_the_system_follows_it(tmp_path):
    """``y/..`` is where ``y`` leads, then up: not the text with ``y/..`` taken away."""
    repo = make_repo(tmp_path)
    (repo / "deep" / "er").mkdir(parents=True)
    shutil.copytree(repo / CONV, repo / "deep" / "C-real")
    os.symlink("deep/er", repo / "y")
    os.symlink("../../y/../C-real", repo / ".agent/conversations/C-x")
    (repo / "notes.md").mkdir()
    (repo / "notes.md" / "a").write_text("", encoding="utf-8")
    (repo / "deep" / "notes.md").write_text("x\n", encoding="utf-8")
    os.symlink("../y/../notes.md", repo / ".agent/notes.md")  # the file deep/notes.md
    (repo / "other").mkdir()
    (repo / ".agent-lint.toml").write_text('agent-dir = "other"\n', encoding="utf-8")
    assert findings(repo, base="main") == [("AL707", ".agent/conversations/C-x")]


def _plain_link(repo: Path, link: str, target: str) -> None:
    """A link as a checkout with ``core.symlinks`` false holds it (Git for Windows): the
    index records a link, the work tree a plain file of its target."""
    (repo / link).write_text(target, encoding="utf-8")
    blob = git(repo, "hash-object", "-w", "--", link)
    git(repo, "update-index", "--add", "--cacheinfo", f"120000,{blob},{link}")


@pytest.mark.parametrize("staged", [False, True], ids=["worktree", "staged"])
def test_a_link_a_windows_checkout_holds_as_a_file_is_a_link_for_the_gate(tmp_path, staged):
    """Git takes the file for the link the index records, and so does the gate: the work
    tree's gate meets the link a checkout that makes links would follow, chains included."""
    repo = make_repo(tmp_path)
    git(repo, "config", "core.symlinks", "false")
    shutil.copytree(repo / CONV, repo / "docs" / "C-x")
    _plain_link(repo, "hop", "docs/C-x")
    _plain_link(repo, ".agent/conversations/C-x", "../../docs/C-x")
    _plain_link(repo, ".agent/conversations/C-y", "../../hop")
    _plain_link(repo, ".agent/conversations/C-z", "../../../outside")  # leaves the repository
    git(repo, "add", "docs")
    assert findings(repo, base="main", staged=staged) == [
        ("AL707", ".agent/conversations/C-x"),
        ("AL707", ".agent/conversations/C-y"),
    ]
    git(repo, "config", "core.symlinks", "true")  # a checkout that makes links: files stay files
    assert findings(repo, base="main") == []


def test_a_merged_link_a_windows_checkout_holds_as_a_file_is_unchanged(tmp_path):
    """Normal work passes: the merge-base's link, checked out as a file, is the same link."""
    repo = make_repo(tmp_path)
    shutil.copytree(repo / CONV, repo / "docs" / "C-x")
    os.symlink("../../docs/C-x", repo / ".agent/conversations/C-x")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a conversation kept behind a link")
    clone = tmp_path / "windows"
    git(tmp_path, "-c", "core.symlinks=false", "clone", "-q", str(repo), str(clone))
    git(clone, "config", "core.symlinks", "false")
    assert (clone / ".agent/conversations/C-x").is_file()
    assert findings(clone, base="origin/main") == []
    (clone / ".agent/conversations/C-x").write_text("../../docs/C-y", encoding="utf-8")
    shutil.copytree(clone / "docs" / "C-x", clone / "docs" / "C-y")
    assert findings(clone, base="origin/main") == [("AL707", ".agent/conversations/C-x")]


@pytest.mark.parametrize("staged", [False, True], ids=["worktree", "staged"])
def test_a_link_in_an_agent_dir_kept_as_a_link_is_one_finding(tmp_path, staged):
    """The gate names agentstate/..., the walk .agent/...: one place, one finding."""
    repo = make_linked_repo(tmp_path)
    conversations = repo / "agentstate" / "conversations"
    shutil.copytree(conversations / "C-onboarding", repo / "docs" / "C-x")
    os.symlink("../../docs/C-x", conversations / "C-x")
    git(repo, "mv", "agentstate/conversations/C-onboarding", "docs/C-onboarding")
    os.symlink("../../docs/C-onboarding", conversations / "C-onboarding")
    if staged:
        git(repo, "add", "-A")
    assert findings(repo, base="main", staged=staged) == [
        ("AL705", ".agent"),  # the agent dir kept as a link: a warning of its own
        ("AL707", ".agent/conversations/C-x"),
        ("AL607", "agentstate/conversations/C-onboarding"),
    ]


def test_a_baseline_never_hides_a_linked_folder(tmp_path, capsys):
    repo = make_repo(tmp_path)
    conversation = _linked_conversation(repo)
    known = tmp_path / "baseline.json"
    assert main([str(repo), "--write-baseline", str(known)]) == 0
    assert json.loads(known.read_text(encoding="utf-8"))["findings"] == []
    assert "recorded 0 findings (1 left out: a baseline never hides" in capsys.readouterr().err
    forged = {"code": "AL707", "path": conversation, "message": "", "fingerprint": ""}
    entries = [forged]
    for d in lint_paths([repo]).diagnostics:  # the entry --write-baseline would write
        entries.append({"fingerprint": baseline.fingerprint(d), "code": d.code, "path": d.path})
    known.write_text(json.dumps({"version": 1, "findings": entries}), encoding="utf-8")
    assert main([str(repo), "--baseline", str(known)]) == 1
    assert f"{conversation}:1:1: AL707" in capsys.readouterr().out


@pytest.mark.parametrize("staged", [False, True], ids=["worktree", "staged"])
def test_a_merged_handoff_replaced_by_a_link_is_the_gates_finding_alone(tmp_path, staged):
    repo = make_repo(tmp_path)
    handoff = repo / H001
    shutil.copy(handoff, repo / "copy.json")
    handoff.unlink()
    os.symlink("../../../../copy.json", handoff)
    if staged:
        git(repo, "add", "-A")
    assert findings(repo, base="main", staged=staged) == [("AL607", H001)]
    assert findings(repo) == [("AL705", H001)]  # without the gate, the link is the finding


def test_a_merged_folder_replaced_by_a_link_is_the_gates_finding_alone(tmp_path):
    repo = make_repo(tmp_path)
    handoffs = repo / CONV / "handoffs"
    shutil.move(handoffs, repo / "kept")
    os.symlink("../../../kept", handoffs)
    assert findings(repo, base="main") == [("AL607", f"{CONV}/handoffs")]
    assert findings(repo) == [("AL707", f"{CONV}/handoffs")]


@pytest.mark.parametrize("staged", [False, True], ids=["worktree", "staged"])
def test_an_agent_dir_moved_behind_a_link(tmp_path, staged):
    repo = make_repo(tmp_path)
    git(repo, "mv", ".agent", "state")
    os.symlink("state", repo / ".agent")
    if staged:
        git(repo, "add", "-A")
    assert findings(repo, base="main", staged=staged) == [("AL607", ".agent")]


def test_an_agent_dir_linked_outside_meets_the_gate(tmp_path, capsys):
    """Not a usage error: the gate reads the repository, never the link's target."""
    repo = make_repo(tmp_path)
    shutil.move(repo / ".agent", tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", repo / ".agent")
    assert findings(repo, base="main") == [("AL607", ".agent"), ("AL706", ".agent")]
    assert main([str(repo), "--base", "main", "--output-format", "json"]) == 1
    assert str(tmp_path / "elsewhere") not in capsys.readouterr().out


def test_a_merged_handoff_linked_outside_is_two_facts(tmp_path):
    """The link leaves the repository (not read) and replaces a merged handoff."""
    repo = make_repo(tmp_path)
    handoff = repo / H001
    shutil.copy(handoff, tmp_path / "outside.json")
    handoff.unlink()
    os.symlink(tmp_path / "outside.json", handoff)
    assert findings(repo, base="main") == [("AL007", H001), ("AL607", H001)]


@pytest.mark.parametrize(
    ("link", "target"),
    [
        (".agent/decisions/D-500.json", "../../.git/config"),
        (".agent/memory/notes.md", "../../.git/config"),
        (f"{CONV}/notes.md", "../../../.git/config"),
        (".agent/memory/git", "../../.git"),
    ],
)
def test_a_link_into_the_git_folder_is_not_followed(tmp_path, capsys, link, target):
    # On CI runners .git/config holds the checkout's credentials (http.extraheader):
    # a pull request's link to it must not get a byte of it read, let alone quoted.
    repo = make_repo(tmp_path)
    git(repo, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic SECRET")
    os.symlink(target, repo / link)
    assert main([str(repo), "--output-format", "json"]) == 1
    out = capsys.readouterr().out
    assert "SECRET" not in out and "core" not in out
    assert findings(repo) == [("AL007", link)]
    assert findings(repo, base="main") == [("AL007", link)]  # not also the gate's AL707


def test_a_markdown_anchor_in_the_git_folder_is_not_read(tmp_path):
    repo = make_repo(tmp_path)
    (repo / ".git" / "notes.md").write_text("# secret heading\n", encoding="utf-8")
    note = repo / CONV / "summary.md"
    note.write_text("[a](../../../.git/notes.md#nope) [b](../../../.git/notes.md#secret-heading)\n")
    # Neither read (no finding about the anchor) nor quoted: links into .git are AL303.
    assert [code for code, *_ in findings(repo)] == ["AL303", "AL303"]
    assert all("points into a .git folder" in d.message for d in lint_paths([repo]).diagnostics)


@pytest.mark.parametrize(
    ("links", "message"),
    [
        ({"D-500.json": "D-501.json", "D-501.json": "D-500.json"}, "symbolic link loop"),
        ({"D-500.json": "D-500.json"}, "symbolic link loop"),
        ({"D-500.json": "D-999.json"}, "points to a path that does not exist"),
    ],
    ids=["two-links", "self", "dangling"],
)
def test_a_link_that_leads_nowhere_says_why(tmp_path, links, message):
    repo = make_repo(tmp_path)
    for name, target in links.items():
        os.symlink(target, repo / ".agent" / "decisions" / name)
    found = lint_paths([repo]).diagnostics
    assert [(d.code, d.path) for d in found] == [
        ("AL007", f".agent/decisions/{name}") for name in sorted(links)
    ]
    assert all(message in d.message for d in found)


def test_the_index_links_are_followed_as_a_file_system_follows_them():
    from agent_lint.gitgate.snapshots import IndexLinks

    links = {"a": "1", "b": "2", "d/e": "3", "p": "4", "q": "5", "n": "6", "up": "7"}
    targets = {
        "1": b"b",
        "2": b"real",
        "3": b"../a/sub",  # a chain, then a folder through it
        "4": b"q",
        "5": b"p",
        "6": b"x\0y",
        "7": b"../../out",  # loop, NUL, escape
    }
    followed = IndexLinks(links, targets)
    assert [followed.resolve(p) for p in ("a", "d/e/x", "x/../a", "p", "n", "up")] == [
        "real", "real/sub/x", "real", None, None, None,
    ]  # fmt: skip
    # 45 links in a row: 40 are followed, 41 are not, whichever is asked first.
    chain = {f"k{i}": str(i) for i in range(45)}
    ends = {str(i): f"k{i + 1}".encode() for i in range(44)} | {"44": b"dir"}
    for order in (["k0", "k4", "k5"], ["k5", "k4", "k0"]):
        followed = IndexLinks(chain, ends)
        assert {p: followed.resolve(p) for p in order} == {"k0": None, "k4": None, "k5": "dir"}


@pytest.mark.parametrize("options", [[], ["--fix"], ["--base", "main"]])
def test_a_named_folder_that_links_out_of_its_repository_is_not_read(tmp_path, capsys, options):
    """``services/pay`` committed as a link to a folder of the machine: a usage error, with
    nothing there read, quoted or written (by the lint, ``--fix`` or the gate)."""
    outside = tmp_path / "outside"
    shutil.copytree(FIXTURES / "valid", outside)
    state = outside / CONV / "handoffs/state.json"
    state.unlink()  # --fix would write it
    repo = tmp_path / "repo"
    (repo / "services").mkdir(parents=True)
    (repo / "README").write_text("x\n")
    os.symlink(outside, repo / "services/pay")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link out")
    assert main([str(repo / "services/pay"), *options]) == 2
    out, err = capsys.readouterr()
    assert "leads outside the repository" in err and out == ""
    assert not state.exists()
    assert main([str(outside), "--no-cache"]) == 1  # named as itself, it is linted
    assert "AL502" in capsys.readouterr().out


def test_a_folder_on_the_way_that_links_out_is_not_read(tmp_path, capsys):
    """``services`` committed as a link to another checkout that has ``pay/.agent``: that
    checkout's ``.git`` does not make the path inside (a usage error, nothing written)."""
    sibling = tmp_path / "sibling"
    shutil.copytree(FIXTURES / "valid", sibling / "pay")
    git(sibling, "init", "-q", "-b", "main")
    state = sibling / "pay" / CONV / "handoffs/state.json"
    state.unlink()
    repo = tmp_path / "repo"
    repo.mkdir()
    os.symlink(sibling, repo / "services")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "services is a link out")
    assert main([str(repo / "services/pay"), "--fix"]) == 2
    assert "leads outside the repository" in capsys.readouterr().err
    assert not state.exists()


def test_a_users_own_link_to_a_checkout_from_a_folder_kept_in_git_is_followed(tmp_path, capsys):
    """A home folder kept in git (dotfiles) and ``~/work/proj`` an untracked link to a
    checkout elsewhere: the user named it, no repository commits it, it is linted."""
    home, data = tmp_path / "home", tmp_path / "data"
    shutil.copytree(FIXTURES / "valid", data / "proj")
    git(data / "proj", "init", "-q", "-b", "main")
    (home / "work").mkdir(parents=True)
    git(home, "init", "-q", "-b", "main")
    os.symlink(data / "proj", home / "work/proj")
    assert main([str(home / "work/proj"), "--no-cache"]) == 0


def test_an_agent_dir_or_a_path_that_leads_into_git_through_a_link_is_not_read(tmp_path):
    repo = make_repo(tmp_path)
    os.symlink(".git", repo / "gitdir")
    note = repo / CONV / "summary.md"
    note.write_text("[a](../../../gitdir/HEAD) [b](../../../gitdir/refs/heads/no-such)\n")
    found = lint_paths([repo]).diagnostics
    assert [d.code for d in found] == ["AL303", "AL303"]
    assert all("points into a .git folder" in d.message for d in found)
    (repo / ".agent-lint.toml").write_text('agent-dir = "gitdir"\n')
    [finding] = lint_paths([repo]).diagnostics
    assert finding.code == "AL706" and "resolves into a .git folder" in finding.message


def test_a_link_out_is_refused_through_a_linked_workspace_too(tmp_path, capsys):
    """Named through a link to the workspace (``lnk/repo/services/pay``), a tracked link
    out of the repository is still a usage error, not a run of the other checkout."""
    sibling = tmp_path / "sibling"
    shutil.copytree(FIXTURES / "valid", sibling)
    git(sibling, "init", "-q", "-b", "main")
    repo = tmp_path / "real" / "repo"
    (repo / "services").mkdir(parents=True)
    os.symlink(sibling, repo / "services/pay")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link out")
    os.symlink(tmp_path / "real", tmp_path / "lnk")
    assert main([str(tmp_path / "lnk/repo/services/pay"), "--no-cache"]) == 2
    assert "leads outside the repository" in capsys.readouterr().err

"""What the append-only gate reads: git processes that do not grow with the change, and
batched reads that say exactly what one read per file says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import git

from agent_lint import gitplumbing
from agent_lint.cli import main
from agent_lint.gitgate import _MergedIn
from agent_lint.gitgate.checks import Comparison
from agent_lint.kinds import History
from agent_lint.profiles import get, names

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.generate import generate  # noqa: E402


def _revise(root: Path, relpath: str) -> None:
    """Rewrite a merged handoff as an agent revising it would."""
    path = root / relpath
    record = json.loads(path.read_text(encoding="utf-8"))
    record["next_action"] = f"{record.get('next_action', 'Continue')} (revised)"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A generated repository committed in two commits (its handoffs added by either)."""
    repo = generate(tmp_path_factory.mktemp("gate") / "repo", 150)
    git(repo.root, "init", "-q", "-b", "main")
    first = repo.handoffs[::2]
    git(repo.root, "add", "--", *first)
    git(repo.root, "commit", "-q", "-m", "the first handoffs")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "-m", "the rest of the agent state")
    return repo.root, repo.handoffs


def _gate(
    root: Path, capsys: pytest.CaptureFixture[str], base: str = "main"
) -> list[tuple[str, str, str]]:
    # One process: the gate's git processes are started by this one, where they are counted.
    main([str(root), "--jobs", "1", "--select", "AL6", "--output-format", "json", "--base", base])
    report = json.loads(capsys.readouterr().out)
    return [(d["code"], d["path"], d["message"]) for d in report["diagnostics"]]


def _processes(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record every process agent-lint starts from now on."""
    started: list[list[str]] = []
    real = subprocess.Popen

    def counted(args: list[str], *rest: object, **options: object) -> object:
        started.append(list(args))
        return real(args, *rest, **options)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "Popen", counted)
    return started


def _subcommand(args: list[str]) -> str:
    """The git command of a git process's arguments (after git's own options)."""
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-c":
            next(rest)
        elif not arg.startswith("-"):
            return arg
    return ""


@pytest.mark.parametrize("committed", [False, True], ids=["work-tree", "committed"])
def test_git_processes_do_not_grow_with_modified_handoffs(
    merged: tuple[Path, list[str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    committed: bool,
) -> None:
    root, handoffs = merged
    counts = []
    for modified in (2, 12):
        git(root, "checkout", "-q", "-B", "change", "main")
        for relpath in handoffs[:modified]:
            _revise(root, relpath)
        if committed:
            git(root, "commit", "-q", "-a", "-m", "agents revise handoffs")
        with monkeypatch.context() as patch:
            started = _processes(patch)
            found = _gate(root, capsys)
        git(root, "checkout", "-q", "-f", "main")
        assert [code for code, _, _ in found] == ["AL601"] * modified
        # A file git may see as racily clean (written in the index's own tick) makes the gate
        # ask for attributes and core.autocrlf once per run: a fixed cost set by the clock.
        commands = [_subcommand(args) for args in started]
        assert commands.count("check-attr") <= 1
        assert "config" not in commands  # core.autocrlf matters only to a file holding a CR
        commands = [c for c in commands if c != "check-attr"]
        counts.append(len(commands))
        # Finding the repository tells HEAD, and HEAD's walk of its own commits (when it has
        # any) the merge-base; one cat-file reads both sides' blobs, one log names the
        # commits that added them.
        walk = ["rev-list"] if committed else []  # the work tree's HEAD is the base itself
        assert commands == [
            "rev-parse", "rev-parse", *walk,
            "ls-tree", "ls-tree", "ls-files", "log", "cat-file",
        ]  # fmt: skip
    assert counts[0] == counts[1]


@pytest.mark.parametrize("base", ["HEAD", "head-id", "main"])
def test_a_base_that_is_head_needs_no_walk(
    merged: tuple[Path, list[str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    base: str,
) -> None:
    root, handoffs = merged
    git(root, "checkout", "-q", "-B", "change", "main")
    try:
        _revise(root, handoffs[0])
        if base == "head-id":
            base = git(root, "rev-parse", "HEAD").strip()
        with monkeypatch.context() as patch:
            started = _processes(patch)
            found = _gate(root, capsys, base)
    finally:
        git(root, "checkout", "-q", "-f", "main")
    assert [code for code, _, _ in found] == ["AL601"]
    commands = [_subcommand(args) for args in started]
    # Finding the repository resolved HEAD: neither HEAD nor its commit id is asked again.
    assert commands.count("rev-parse") == (2 if base == "main" else 1)
    assert "rev-list" not in commands and "merge-base" not in commands


def test_batched_reads_say_what_one_read_per_file_says(
    merged: tuple[Path, list[str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, handoffs = merged
    git(root, "checkout", "-q", "-B", "change", "main")
    try:
        for relpath in handoffs[:6]:
            _revise(root, relpath)
        (root / handoffs[6]).unlink()
        batched = _gate(root, capsys)
        with monkeypatch.context() as patch:
            patch.setattr(_MergedIn, "prefetch", lambda self, paths: None)
            one_by_one = _gate(root, capsys)
    finally:
        git(root, "checkout", "-q", "-f", "main")
    assert batched == one_by_one
    assert sorted(code for code, _, _ in batched) == ["AL601"] * 6 + ["AL602"]
    named = {message.split(" merged in ")[1].split(" and is ")[0] for _, _, message in batched}
    assert len(named) == 2  # added by either commit, each named with its subject
    assert any('("the first handoffs")' in name for name in named)


def test_index_records_read_fast_say_what_the_field_reader_says(
    merged: tuple[Path, list[str]],
) -> None:
    root, handoffs = merged
    repo = gitplumbing.Repository.discover(root)
    assert repo is not None
    git(root, "update-index", "--skip-worktree", handoffs[0])
    try:
        out = repo.run("ls-files", "-s", "-z", "--debug")
    finally:
        git(root, "update-index", "--no-skip-worktree", handoffs[0])
    fast = gitplumbing._index_records(out)
    # Modes and skip-worktree flags are told without building an entry, and agree with it.
    told = {path: (fast.mode(path), fast.skips_worktree(path)) for path in fast}
    assert told == {path: (e.mode, e.skip_worktree) for path, e in fast.items()}
    assert told == {path: (fast.mode(path), fast.skips_worktree(path)) for path in fast}
    assert fast == gitplumbing._index_records_by_field(out)
    assert len(fast) == out.count(b"\0") and fast[handoffs[0]].skip_worktree
    # Output laid out otherwise (another git's spacing) is read field by field.
    spaced = out.replace(b"  ctime: ", b"   ctime: ")
    assert gitplumbing._index_records(spaced) == fast


#: Names that come close to the append-only and write-once kinds without being of them.
_NEAR_MISSES = [
    "conversations/C-1/handoffs/state.json",
    "conversations/C-1/handoffs/H-001.yaml",
    "conversations/C-1/handoffs/notes/H-001.json",
    "conversations/C-1/H-001.json",
    "handoffs/H-001.json",
    "handoffs/20261103-120000-focus.md",
    "handoffs/H-20261103-120000-x.JSON",
    "missions/M-1/handoffs/H-20261103-120000-x.json",
    "missions/M-1/handoffs/state.json",
    "deep/er/session-ref.json",
    "session-ref.json.bak",
    "pbot/subagents/a/session-ref.json",
]


@pytest.mark.parametrize("profile", names())
def test_the_gates_protected_kinds_are_the_profiles_own(
    merged: tuple[Path, list[str]], profile: str
) -> None:
    # The gate classifies only paths some append-only or write-once kind's pattern
    # matches; every path gets the kind the profile itself gives it, when that kind is one.
    root, _ = merged
    chosen = get(profile)
    stored = [p.removeprefix(".agent/") for p in git(root, "ls-files").splitlines()]
    examples = [kind.example.replace("<", "x").replace(">", "") for kind in chosen.kinds]
    paths = sorted({*stored, *examples, *_NEAR_MISSES} - {""})
    comparison = Comparison(
        base_name="main",
        prefix=".agent",
        change_prefix=".agent",
        base=None,  # type: ignore[arg-type]
        fork=None,  # type: ignore[arg-type]
        change=None,  # type: ignore[arg-type]
        profile=chosen,
        display=str,
        merged_in=None,  # type: ignore[arg-type]
    )
    protected = 0
    for path in paths:
        match = chosen.classify(path)
        expected = match if match is not None and match.kind.history is not History.FREE else None
        assert comparison.protected_kind(f".agent/{path}") == expected, path
        protected += expected is not None
    assert protected > 0 or all(kind.history is History.FREE for kind in chosen.kinds)

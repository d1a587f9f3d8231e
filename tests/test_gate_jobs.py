"""The append-only gate run by a forked child reports exactly what one process reports.

With ``--base``, when a run forks processes to check its files, the gate
(AL6xx) runs in the first of them once its share of the files is checked;
with ``--jobs auto`` on two cores or more and a pass of one process, in a
child of its own, forked once the walk is done, while the pass over files runs.
Differential tests compare ``--jobs 1`` (the gate in the run's own process)
with ``--jobs 2`` and ``auto`` on a generated repository under git with
modified, deleted, renamed and new handoffs, in every output format, for the
work tree, for ``--staged`` and with ``--new-only``; the outputs must be
byte-identical. A usage error of the gate is the same error, and a child that
fails leaves the gate to the run's own process. Unit tests cover
:class:`agent_lint.workers.InChild` itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import no_children_left
from gitrepo import ENV

from agent_lint import cli, gitgate, workers
from benchmarks.generate import generate

FORMATS = ("text", "json", "sarif", "github")
IDENTITY = {name: value for name, value in ENV.items() if name != "HOME"}

pytestmark = pytest.mark.skipif(not workers.can_fork(), reason="this system cannot fork")


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (its own identity and dates); its output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(IDENTITY, HOME=str(root.parent))
    done = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated repository on ``main`` whose work tree and index change merged handoffs.

    Staged: one handoff modified, one deleted. Only in the work tree: one more
    modified, one renamed, and a new handoff numbered out of turn.
    """
    root = tmp_path_factory.mktemp("gated") / "repo"
    repo = generate(root, 300, 1, seed=3)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated agent state")
    handoffs = [root / relpath for relpath in repo.handoffs]
    _revise(handoffs[0])
    handoffs[1].unlink()
    git(root, "add", "-A")
    _revise(handoffs[2])
    handoffs[3].rename(handoffs[3].with_name("renamed-" + handoffs[3].name))
    numbered = [p for p in handoffs if p.stem[2:].isdigit()]  # a conversation's H-001.json
    folder = numbered[-1].parent
    newest = max(int(p.stem[2:]) for p in folder.glob("H-*.json") if p.stem[2:].isdigit())
    (folder / f"H-{newest + 5:03d}.json").write_bytes(numbered[-1].read_bytes())
    return root


def _revise(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    record["next_action"] = f"{record.get('next_action', 'Continue')} (revised)"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def settle() -> None:
    """Wait for threads an earlier run left to end (a git blob reader's watcher ends
    within a second of its process): a process with other threads never forks."""
    deadline = time.monotonic() + 5
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    if threading.active_count() > 1:
        pytest.skip("another thread runs in this process, so it cannot fork")


@pytest.fixture(autouse=True)
def one_thread() -> None:
    """Each test starts in a process that can fork."""
    settle()


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each gate a run started in a child came back from it (False: it failed)."""
    monkeypatch.setattr(workers, "available_cores", lambda: 2)
    monkeypatch.setattr(workers, "MIN_FILES_PER_PROCESS", 50)  # auto forks for these repositories
    seen: list[bool] = []
    real = workers.InChild.result

    def result(self: workers.InChild[Any]) -> Any:
        found = real(self)
        seen.append(found is not None)
        return found

    monkeypatch.setattr(workers.InChild, "result", result)
    return seen


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line (once the process can fork); its exit code, stdout and stderr."""
    settle()
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "extra", [[], ["--staged"], ["--new-only"]], ids=["work-tree", "staged", "new-only"]
)
def test_the_gate_in_a_child_reports_what_one_process_reports(
    changed: Path, capsys: pytest.CaptureFixture[str], children: list[bool], extra: list[str]
) -> None:
    staged = "--staged" in extra
    reports = {}
    for fmt in FORMATS:
        args = ["--no-cache", "--output-format", fmt, "--base", "main", *extra, str(changed)]
        single = lint(capsys, "--jobs", "1", *args)
        assert children == []  # one process: the gate ran in it
        for jobs in ("2", "auto"):
            assert lint(capsys, "--jobs", jobs, *args) == single, (fmt, jobs)
        assert children == [True, True]  # both runs took the child's outcome
        children.clear()
        reports[fmt] = single[1]
    codes = {d["code"] for d in json.loads(reports["json"])["diagnostics"]}
    wanted = {"AL601", "AL602"} if staged else {"AL601", "AL602", "AL603", "AL605"}
    assert wanted <= codes  # the gate found what the change did


def test_a_pass_that_forks_hands_the_gate_to_its_first_checker(
    changed: Path,
    capsys: pytest.CaptureFixture[str],
    children: list[bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run's own process merges every outcome: the child that checks files has time
    to spare, and runs the gate once its share is sent; no child is forked for it alone."""
    forks: list[int] = []
    real = workers._fork

    def counted(*args: Any) -> Any:
        forks.append(1)
        return real(*args)

    monkeypatch.setattr(workers, "_fork", counted)
    args = ["--no-cache", "--output-format", "json", "--base", "main", str(changed)]
    single = lint(capsys, "--jobs", "1", *args)
    assert forks == []
    assert lint(capsys, "--jobs", "2", *args) == single
    assert (len(forks), children) == (1, [True])
    assert lint(capsys, "--jobs", "3", *args) == single
    assert (len(forks), children) == (3, [True, True])
    # With a core left free, the gate has a child of its own there, from the start.
    monkeypatch.setattr(workers, "available_cores", lambda: 4)
    assert lint(capsys, "--jobs", "2", *args) == single
    assert (len(forks), children) == (5, [True, True, True])
    assert no_children_left()


def test_a_usage_error_of_the_gate_is_the_same_from_the_child(
    changed: Path, capsys: pytest.CaptureFixture[str], children: list[bool]
) -> None:
    args = ["--no-cache", "--base", "no-such-branch", str(changed)]
    single = lint(capsys, "--jobs", "1", *args)
    assert single[0] == 2 and "no-such-branch" in single[2]
    assert lint(capsys, "--jobs", "2", *args) == single
    assert children == [True]  # the child's outcome was the error


@pytest.mark.parametrize("how", ["raise", "kill"])
def test_a_child_that_fails_leaves_the_gate_to_the_run(
    changed: Path,
    capsys: pytest.CaptureFixture[str],
    children: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    args = ["--no-cache", "--output-format", "json", "--base", "main", str(changed)]
    single = lint(capsys, "--jobs", "1", *args)
    run, parent = gitgate.run, os.getpid()

    def failing_in_a_child(*given: Any) -> Any:
        if os.getpid() != parent:
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            raise RuntimeError("the gate failed in the child")
        return run(*given)

    monkeypatch.setattr(gitgate, "run", failing_in_a_child)
    assert lint(capsys, "--jobs", "2", *args) == single
    assert children == [False]  # the child failed and the run's own process ran the gate
    assert no_children_left()


def test_one_process_runs_the_gate_itself(
    changed: Path,
    capsys: pytest.CaptureFixture[str],
    children: list[bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(workers, "available_cores", lambda: 1)  # auto on one core
    lint(capsys, "--no-cache", "--base", "main", str(changed))
    monkeypatch.setattr(workers, "available_cores", lambda: 2)
    lint(capsys, "--no-cache", "--jobs", "1", "--base", "main", str(changed))
    assert children == []


def test_on_two_cores_the_gate_runs_beside_a_pass_of_one_process(
    changed: Path,
    capsys: pytest.CaptureFixture[str],
    children: list[bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Too few files to fork checkers: the gate alone runs in a child, with the same output."""
    monkeypatch.setattr(workers, "MIN_FILES_PER_PROCESS", 10**6)
    assert workers.processes_for(None, 10**5) == 1
    for fmt in FORMATS:
        args = ["--no-cache", "--output-format", fmt, "--base", "main", str(changed)]
        single = lint(capsys, "--jobs", "1", *args)
        assert lint(capsys, *args) == single, fmt
    assert children == [True] * len(FORMATS)


# --- InChild ------------------------------------------------------------------------------------


def test_the_child_computes_the_result() -> None:
    child = workers.InChild(lambda: ("from", os.getpid()))
    found = child.result()
    assert found is not None and found[0] == "from" and found[1] != os.getpid()
    assert child.result() is None  # taken once
    assert no_children_left()


@pytest.mark.parametrize("how", ["raise", "exit", "kill", "unpicklable"])
def test_a_failing_child_gives_none(how: str) -> None:
    def work() -> Any:
        if how == "raise":
            raise RuntimeError("the work failed")
        if how == "exit":
            os._exit(0)  # exits cleanly without sending anything
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        return lambda: None  # cannot be pickled

    assert workers.InChild(work).result() is None
    assert no_children_left()


def test_closing_ends_a_child_that_is_still_working() -> None:
    def work() -> int:
        signal.pause()  # would wait forever
        return 1

    child = workers.InChild(work)
    child.close()
    assert child.result() is None
    assert no_children_left()


def test_a_process_with_threads_computes_nothing_in_a_child() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert workers.InChild(lambda: 1).result() is None
    finally:
        stop.set()
        thread.join()


def test_a_closed_blob_reader_leaves_no_thread(changed: Path) -> None:
    from agent_lint.gitplumbing import Repository

    repo = Repository.discover(changed)
    assert repo is not None
    sha = git(changed, "rev-parse", "HEAD:.agent/decisions/index.json")
    with repo.blob_reader() as reader:
        assert reader.read(sha) is not None
        assert threading.active_count() == 2  # the watcher of a read that would hang
    assert threading.active_count() == 1 and workers.can_fork()  # gone at once

"""``--fix`` checks again only what its writes can change, and reports exactly what a fresh
run after the fix reports (a differential test on every fixture and on generated
repositories with injected defects)."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from gitrepo import git

from agent_lint import linter
from agent_lint.cli import main

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.generate import generate  # noqa: E402

FIXTURE_ROOT = REPO / "fixtures"


def _fixture_repos() -> Iterator[str]:
    for profile in sorted(FIXTURE_ROOT.iterdir()):
        for case in sorted(profile.iterdir()):
            if case.name == "fix":
                for fixed in sorted(case.iterdir()):
                    yield f"{profile.name}/fix/{fixed.name}/before"
            elif case.is_dir() and case.name != "git-history":
                yield f"{profile.name}/{case.name}"


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    main(["--output-format", "json", "--exit-zero", *argv])
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the path of every file the run checks."""
    checked: list[str] = []
    real = linter.check_file

    def spy(*args: object, **options: object) -> object:
        checked.append(str(args[4]))
        return real(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(linter, "check_file", spy)
    return checked


def _fix_then_fresh(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *flags: str
) -> tuple[dict[str, object], dict[str, object], list[str]]:
    """The report of ``--fix`` and of a fresh run after it, and the files the fix run read."""
    with monkeypatch.context() as patch:
        checked = _reads(patch)
        fixed = _report(capsys, str(repo), "--fix", *flags)
    fresh = _report(capsys, str(repo), *flags)
    return fixed, fresh, checked


def _files(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*") if p.is_file()}


def _written(repo: Path, before: dict[str, bytes]) -> set[str]:
    return {path for path, data in _files(repo).items() if before.get(path) != data}


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("name", list(_fixture_repos()))
def test_fix_reports_what_a_fresh_run_after_it_reports(
    name: str,
    unsafe: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE_ROOT / name, repo, symlinks=True)
    flags = ["--unsafe-fixes"] if unsafe else []
    before = _files(repo)
    fixed, fresh, checked = _fix_then_fresh(repo, capsys, monkeypatch, *flags)
    assert fixed == fresh
    written = _written(repo, before)
    first_pass = checked[: fixed["files_checked"]]  # type: ignore[misc]
    again = checked[len(first_pass) :]
    # A rewritten file that was read before is read again, alone; a new file needs a full pass.
    if written and all(path in first_pass for path in written):
        assert sorted(again) == sorted(written)
    elif not written:
        assert again == []


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated repository with one injected defect of every family."""
    return generate(tmp_path_factory.mktemp("fix") / "repo", 400, 1).root


@pytest.fixture
def repo(generated: Path, tmp_path: Path) -> Path:
    """A copy of the generated repository to fix."""
    return Path(shutil.copytree(generated, tmp_path / "repo"))


def _stale(repo: Path, count: int) -> list[str]:
    """Make ``count`` state.json files stale (their latest turn one behind)."""
    states = sorted(repo.glob(".agent/conversations/*/handoffs/state.json"))[-count:]
    for path in states:
        state = json.loads(path.read_text(encoding="utf-8"))
        state["latest_turn"] -= 1
        path.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    return [p.relative_to(repo).as_posix() for p in states]


def test_fix_on_a_generated_repository_reads_only_what_it_wrote(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = _stale(repo, 3)
    fixed, fresh, checked = _fix_then_fresh(repo, capsys, monkeypatch)
    assert fixed == fresh
    codes = {d["code"] for d in fresh["diagnostics"]}  # type: ignore[attr-defined]
    assert {"AL102", "AL202", "AL306", "AL408"} <= codes  # the other injected defects stay
    assert "AL503" not in codes
    again = checked[fixed["files_checked"] :]  # type: ignore[misc]
    assert set(stale) <= set(again) and len(again) == len(set(again)) <= len(stale) + 1


def test_a_fix_that_creates_a_file_checks_everything_again(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    [missing] = _stale(repo, 1)
    (repo / missing).unlink()
    fixed, fresh, checked = _fix_then_fresh(repo, capsys, monkeypatch)
    assert (repo / missing).is_file()
    assert fixed == fresh
    assert len(checked) == 2 * fixed["files_checked"] - 1  # type: ignore[operator]


def test_fix_and_new_only_report_what_a_fresh_run_reports(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent state")
    _stale(repo, 2)
    flags = ("--base", "main", "--new-only")
    fixed, fresh, _ = _fix_then_fresh(repo, capsys, monkeypatch, *flags)
    assert fixed == fresh


def test_fix_with_nothing_to_write_reads_each_file_once(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A second --fix: the pass over files stands; the repo-wide checks run once, after
    # the (empty) plan.
    _report(capsys, str(repo), "--fix")
    before = _files(repo)
    fixed, fresh, checked = _fix_then_fresh(repo, capsys, monkeypatch)
    assert _written(repo, before) == set()
    assert fixed == fresh
    assert len(checked) == fixed["files_checked"]


@pytest.mark.parametrize("stale", [0, 1], ids=["nothing-to-write", "one-stale-state"])
def test_fix_asks_git_history_as_a_fresh_run_does(
    stale: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A merged handoff's path broken by a later rename is looked up in git's history, by
    # the repo-wide checks that run after the plan: the run's own history, never a closed one.
    from gitrepo import commit_all, make_repo

    work = make_repo(tmp_path)
    git(work, "mv", "docs/payments/design.md", "docs/payments/design-v2.md")
    commit_all(work, "rename the design document")
    _stale(work, stale)
    fixed, fresh, _ = _fix_then_fresh(work, capsys, monkeypatch)
    assert fixed == fresh
    assert any("design.md" in d["message"] for d in fresh["diagnostics"])  # type: ignore[attr-defined]


@pytest.mark.parametrize("stale", [0, 2], ids=["nothing-to-write", "two-stale-states"])
def test_fix_runs_the_repo_wide_stage_once(
    stale: int,
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first pass goes over the files and stops: the repo-wide checks, the gate and
    # placing the findings run once, on the repository as the fix leaves it.
    _report(capsys, str(repo), "--fix")  # the injected stale state is fixed first
    _stale(repo, stale)
    concluded: list[int] = []
    real = linter._locate

    def spy(*args: Any, **options: Any) -> Any:
        concluded.append(1)
        return real(*args, **options)

    monkeypatch.setattr(linter, "_locate", spy)
    _report(capsys, str(repo), "--fix")
    assert len(concluded) == 1


def test_fix_with_a_warm_cache_checks_what_it_wrote_again(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cache keeps each file's stamp from the run before; the files the fix writes are
    # read again, never served by the stamps the first pass saw (every stamp is old
    # enough to keep here, as on a file edited more than a few seconds before the run).
    import agent_lint.cache

    monkeypatch.delenv("AGENT_LINT_NO_CACHE")
    monkeypatch.setattr(agent_lint.cache, "RACY_NANOSECONDS", -(10**15))
    stale = _stale(repo, 2)
    warm = _report(capsys, str(repo))
    assert sum(d["code"] == "AL503" for d in warm["diagnostics"]) >= 2  # type: ignore[attr-defined]
    fixed, fresh, checked = _fix_then_fresh(repo, capsys, monkeypatch)
    assert fixed == fresh == _report(capsys, str(repo), "--no-cache")
    assert "AL503" not in {d["code"] for d in fixed["diagnostics"]}  # type: ignore[attr-defined]
    assert set(stale) <= set(checked)

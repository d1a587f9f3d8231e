"""``--jobs``: forked worker processes report exactly what one process does.

Differential tests lint every fixture and generated repositories with
injected defects (the benchmark's generator) with ``--jobs 1`` and with two
and three processes, in every output format, with and without the cache,
and with a YAML budget that runs out part-way; the outputs must be
byte-identical. Unit tests cover the pool itself: order, per-slice state,
failing and killed children, and when a run forks at all.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import no_children_left

import agent_lint.cache
from agent_lint import cli, linter, workers
from agent_lint.diagnostics import Severity
from agent_lint.discovery import find_target, profile_for
from agent_lint.filesystem import DISK
from agent_lint.profile import extend
from agent_lint.schemas import SchemaStore
from benchmarks.generate import generate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FORMATS = ("text", "json", "sarif", "github")

pytestmark = pytest.mark.skipif(not workers.can_fork(), reason="this system cannot fork")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated repository of about 300 records with two defects per family."""
    root = tmp_path_factory.mktemp("generated") / "repo"
    generate(root, 300, 2, seed=7)
    return root


@pytest.fixture
def repo(generated: Path, tmp_path: Path) -> Path:
    """A fresh copy of the generated repository."""
    copy = tmp_path / "repo"
    shutil.copytree(generated, copy)
    return copy


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of processes each run checked its files with (1: no fork)."""
    # A run forks only while one thread runs: let the watchers of git processes an earlier
    # test closed (they look once a second) end first.
    for thread in threading.enumerate():
        if thread.name.endswith("(_watch)"):  # see agent_lint.gitplumbing
            thread.join(timeout=3)
    seen: list[int] = []
    real = workers.processes_for

    def counting(jobs: int | None, files: int) -> int:
        count = real(jobs, files)
        seen.append(count)
        return count

    monkeypatch.setattr(workers, "processes_for", counting)
    return seen


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line; its exit code, stdout and stderr."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def same_for_any_jobs(
    capsys: pytest.CaptureFixture[str], root: Path, *args: str, counts: Sequence[str] = ("2", "3")
) -> str:
    """Every output format is the same with one process and with ``counts``; the JSON one."""
    reports = {}
    for fmt in FORMATS:
        single = lint(capsys, "--output-format", fmt, "--jobs", "1", *args, str(root))
        for jobs in counts:
            several = lint(capsys, "--output-format", fmt, "--jobs", jobs, *args, str(root))
            assert several == single, (fmt, jobs)
        reports[fmt] = single[1]
    return reports["json"]


# --- differential: one process and several give the same output -------------------------------


#: Every fixture repository: a folder holding a profile's agent dir (the profiles' own
#: fixtures, the states before and after ``--fix``, the two sides of a git history).
REPOSITORIES = sorted(
    {
        p.parent.relative_to(FIXTURES).as_posix()
        for p in FIXTURES.rglob(".*")
        if p.name in (".agent", ".astrion", ".pi") and p.is_dir()
    }
)


@pytest.mark.parametrize("fixture", REPOSITORIES)
def test_every_fixture_is_reported_the_same_by_several_processes(
    fixture: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    forks: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copy = tmp_path / "fixture"
    shutil.copytree(FIXTURES / fixture, copy, symlinks=True)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    same_for_any_jobs(capsys, copy, counts=("2",))
    assert 2 in forks  # the two-process runs really forked


@pytest.mark.slow
def test_generated_repository_with_defects(
    repo: Path, capsys: pytest.CaptureFixture[str], forks: list[int]
) -> None:
    report = same_for_any_jobs(capsys, repo)
    assert '"code": "AL1' in report and '"code": "AL3' in report  # the defects are found
    assert 3 in forks


def test_show_files_and_statistics(
    repo: Path, capsys: pytest.CaptureFixture[str], forks: list[int]
) -> None:
    for option in ("--show-files", "--statistics"):
        single = lint(capsys, "--jobs", "1", option, str(repo))
        assert lint(capsys, "--jobs", "2", option, str(repo)) == single
    assert 2 in forks


def test_yaml_budget_running_out_part_way(
    repo: Path, capsys: pytest.CaptureFixture[str], forks: list[int]
) -> None:
    """Each process spends its own budget; what the run's budget refuses is refused alike."""
    yaml_files = sorted(p.stat().st_size for p in (repo / ".agent").rglob("*.yaml"))
    budget = sum(yaml_files) // 2
    (repo / ".agent-lint.toml").write_text(
        f"[limits]\nmax-yaml-total-bytes = {budget}\nmax-yaml-bytes = {min(budget, 4096)}\n"
    )
    report = same_for_any_jobs(capsys, repo, counts=("2",))
    assert '"code": "AL011"' in report  # the budget did run out
    assert 2 in forks


def test_fix_with_several_processes(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    shutil.copytree(repo, other)
    single = lint(capsys, "--jobs", "1", "--fix", "--output-format", "json", str(repo))
    several = lint(capsys, "--jobs", "2", "--fix", "--output-format", "json", str(other))
    assert several == (single[0], single[1].replace(str(repo), str(other)), single[2])
    for path in sorted(p for p in (repo / ".agent").rglob("*") if p.is_file()):
        assert (other / path.relative_to(repo)).read_bytes() == path.read_bytes()


# --- the cache: workers check only what it does not hold ---------------------------------------


@pytest.fixture
def cache_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache on (the suite turns it off elsewhere), its key in a folder of the test's own."""
    monkeypatch.delenv("AGENT_LINT_NO_CACHE", raising=False)
    monkeypatch.delenv("AGENT_LINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


@pytest.mark.usefixtures("cache_on")
def test_with_the_cache_only_files_it_misses_go_to_workers(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    forks: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(agent_lint.cache, "RACY_NANOSECONDS", -(10**15))  # stamps decide
    cold = lint(capsys, "--no-cache", "--jobs", "1", "--output-format", "json", str(repo))
    # A first run with the cache and two processes writes it, and reports the same.
    assert lint(capsys, "--jobs", "2", "--output-format", "json", str(repo)) == cold
    assert forks == [2]  # (--jobs 1 does not even ask)
    forks.clear()
    # Nothing changed: every file is taken from the cache, none is left to check.
    assert lint(capsys, "--jobs", "2", "--output-format", "json", str(repo)) == cold
    assert forks == [1]
    forks.clear()
    edited = [repo / ".agent" / "agents" / name for name in ("cortex-main.json", "codex-main.json")]
    for path in edited:
        path.write_text(path.read_text().replace('"agent_id"', '"agent_id" ', 1))
    fresh = lint(capsys, "--no-cache", "--jobs", "1", "--output-format", "json", str(repo))
    assert lint(capsys, "--jobs", "2", "--output-format", "json", str(repo)) == fresh
    assert forks == [2]  # the two edited files, one per process


@pytest.mark.usefixtures("cache_on")
def test_workers_skip_files_whose_content_the_cache_holds(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file touched but not changed (a fresh checkout) is hashed, not checked again."""
    cold = lint(capsys, "--jobs", "1", "--output-format", "json", str(repo))
    for path in (repo / ".agent").rglob("*"):
        if path.is_file():
            os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    checked: list[str] = []
    real = linter.check_file
    monkeypatch.setattr(linter, "check_file", lambda *a, **k: checked.append(a[4]) or real(*a, **k))
    # Counted in this process only: its own slice shows what every slice does.
    assert lint(capsys, "--jobs", "2", "--output-format", "json", str(repo)) == cold
    assert checked == []


# --- the pool ---------------------------------------------------------------------------------


def _numbered(items: Sequence[int]) -> Iterator[tuple[int, int, int]]:
    """Each item with its place in the slice and the process that computed it."""
    for place, item in enumerate(items):
        yield item, place, os.getpid()


def _all(ahead: workers.Ahead[Any], count: int) -> list[Any]:
    with ahead:
        return [ahead.take() for _ in range(count)]


def test_results_come_back_in_order_with_state_per_slice() -> None:
    items = list(range(301))
    got = _all(workers.Ahead(_numbered, items, 3), len(items))
    for item, result in enumerate(got):
        if item % 3 == 0:
            assert result is None  # the calling process's own share: it checks these itself
        else:
            assert result[:2] == (item, item // 3)  # dealt out in turn, in order
            assert result[2] != os.getpid()
    assert len({result[2] for result in got if result is not None}) == 2
    assert no_children_left()


def test_one_process_forks_nothing() -> None:
    assert _all(workers.Ahead(_numbered, [1, 2, 3], 1), 3) == [None, None, None]
    assert workers.Ahead(_numbered, [], 4).processes == 1


def _failing(how: str, after: int) -> Any:
    def work(items: Sequence[int]) -> Iterator[Any]:
        for place, item in enumerate(items):
            if place == after:
                if how == "raise":
                    raise RuntimeError("a worker failed")
                if how == "exit":
                    os._exit(0)  # exits cleanly without sending the rest
                if how == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                if how == "unpicklable":
                    yield lambda: None
                    continue
            yield item

    return work


@pytest.mark.parametrize("how", ["raise", "exit", "kill", "unpicklable"])
def test_what_a_failing_child_did_not_send_is_left_to_the_caller(how: str) -> None:
    after = workers.CHUNK + 5  # one whole chunk is sent before the failure
    items = list(range(4 * workers.CHUNK))
    got = _all(workers.Ahead(_failing(how, after), items, 2), len(items))
    sent = [result for result in got[1::2] if result is not None]
    assert sent == items[1::2][: workers.CHUNK]
    assert got[1::2][workers.CHUNK :] == [None] * (len(items) // 2 - workers.CHUNK)
    assert no_children_left()


def test_the_first_child_computes_then_once_its_share_is_sent() -> None:
    items = list(range(3 * workers.CHUNK + 7))  # the first child's last chunk is not full
    ahead = workers.Ahead(_numbered, items, 3, then=lambda: ("then", os.getpid()))
    later = ahead.later()
    assert later is not None and ahead.later() is None  # handed out once
    got = [ahead.take() for _ in items]
    ahead.close()  # ends the second child; the first is the later value's
    found = later.result()
    assert found is not None and found[0] == "then"
    first = {result[2] for result in got[1::3]}
    assert first == {found[1]} and found[1] != os.getpid()  # the first child computed it
    assert [result[0] for result in got[1::3]] == items[1::3]  # every result came first
    assert later.result() is None  # taken once
    assert no_children_left()


def test_then_is_given_even_when_the_results_were_not_taken() -> None:
    ahead = workers.Ahead(_numbered, list(range(100)), 2, then=lambda: 42)
    later = ahead.later()
    ahead.close()
    assert later is not None and later.result() == 42  # the results are passed over
    assert no_children_left()


@pytest.mark.parametrize("how", ["raise", "kill", "results"])
def test_a_then_that_fails_gives_none_and_the_results_still_come(how: str) -> None:
    def then() -> int:
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError("then failed")

    items = list(range(2 * workers.CHUNK + 3))
    work = _failing("raise", workers.CHUNK) if how == "results" else _numbered
    ahead = workers.Ahead(work, items, 2, then=then if how != "results" else lambda: 1)
    later = ahead.later()
    got = [ahead.take() for _ in items]
    ahead.close()
    assert later is not None and later.result() is None  # the caller computes it itself
    if how != "results":
        assert [result[0] for result in got[1::2]] == items[1::2]
    assert no_children_left()


def test_a_child_that_sends_fewer_results_than_items_leaves_the_rest_to_the_caller() -> None:
    def short(items: Sequence[int]) -> Iterator[int]:
        yield from items[:3]  # a broken work: three results, whatever the share

    items = list(range(20))
    ahead = workers.Ahead(short, items, 2, then=lambda: "then")
    later = ahead.later()
    got = [ahead.take() for _ in items]
    ahead.close()
    assert got[1::2] == [1, 3, 5] + [None] * 7  # never the value sent after the results
    assert later is not None and later.result() == "then"
    assert no_children_left()


def test_one_process_has_no_then() -> None:
    assert workers.Ahead(_numbered, [1, 2, 3], 1, then=lambda: 1).later() is None


def test_closing_ends_children_that_are_still_working() -> None:
    def work(items: Sequence[int]) -> Iterator[int]:
        signal.pause()  # a child would wait forever
        yield from items

    ahead = workers.Ahead(work, list(range(8)), 4)
    assert ahead.take() is None
    ahead.close()
    assert no_children_left()


def test_a_crash_in_a_check_is_reported_as_one_process_reports_it(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = linter.check_file

    def crashing(*args: Any, **kwargs: Any) -> Any:
        if args[4].endswith("agents/codex-main.json"):
            raise RuntimeError("the check of codex-main.json crashed")
        return real(*args, **kwargs)

    monkeypatch.setattr(linter, "check_file", crashing)
    single = lint(capsys, "--jobs", "1", str(repo))
    assert single[0] == 2 and "codex-main.json crashed" in single[2]
    for jobs in ("2", "3"):
        assert lint(capsys, "--jobs", jobs, str(repo)) == single
    assert no_children_left()


def test_how_many_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "available_cores", lambda: 4)
    least = workers.MIN_FILES_PER_PROCESS
    assert workers.processes_for(1, 10**6) == 1
    assert workers.processes_for(3, 10**6) == 3
    assert workers.processes_for(3, 2) == 2  # never more processes than files
    assert workers.processes_for(None, 2 * least - 1) == 1  # auto: small runs do not fork
    assert workers.processes_for(None, 2 * least) == 2
    assert workers.processes_for(None, 100 * least) == 4  # at most one per core
    monkeypatch.setattr(workers, "can_fork", lambda: False)  # Windows, or threads running
    assert workers.processes_for(3, 10**6) == 1
    assert workers.processes_for(None, 10**6) == 1


def test_a_process_with_threads_does_not_fork() -> None:
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not workers.can_fork()
        assert workers.processes_for(2, 100) == 1
    finally:
        stop.set()
        thread.join()


# --- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "-1", "two", ""])
def test_bad_jobs_value_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["--jobs", value, "."])
    assert exited.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def test_jobs_auto_is_the_default(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    asked: list[Any] = []
    real = linter.lint_paths
    monkeypatch.setattr(
        linter, "lint_paths", lambda *a, **k: asked.append(k["jobs"]) or real(*a, **k)
    )
    for args in ([], ["--jobs", "auto"], ["--jobs", "AUTO"], ["--jobs", "2"]):
        cli.main(["-q", *args, str(repo)])
    assert asked == [None, None, None, 2]


@dataclass(frozen=True)
class _Normalised:
    """A dataclass whose constructor changes its value: pickled the usual way."""

    text: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", self.text.strip())


def test_results_are_sent_as_they_were_built(generated: Path, tmp_path: Path) -> None:
    """Dataclasses are rebuilt by their constructors, other values as pickle does: all equal."""
    target = find_target(generated, None, None)
    profile = extend(profile_for(target), target.config.kinds)
    schemas = SchemaStore(target.config.schema_dirs, folder=profile.schema_folder)
    check = linter._FileChecker(profile, target.config, schemas, profile.file_checks, None)
    steps = [s for s in linter._steps(target, DISK, profile, None) if check.wanted(s)]
    values: list[Any] = [Severity.ERROR, _Normalised(" padded "), int, {"a": (1, 2.5)}]
    values.extend(check(steps))
    with (tmp_path / "stream").open("wb") as stream:
        workers._send(iter(values), stream)
    back: list[Any] = []
    with (tmp_path / "stream").open("rb") as stream:
        while stream.peek(1):
            back.extend(pickle.load(stream))
    assert back == values
    assert back[1].text == "padded"
    facts = [f for value in back[4:] if value.outcome for f in value.outcome.facts]
    assert any(f.references for f in facts) and any(f.identities for f in facts)
    # A tuple equals a named tuple of the same items: the types must come back too.
    assert [_types(value) for value in back] == [_types(value) for value in values]


def _types(value: Any) -> Any:
    """The types of ``value`` and of every tuple, list and dict item in it, nested alike."""
    if isinstance(value, (tuple, list)):
        return (type(value), [_types(item) for item in value])
    if isinstance(value, dict):
        return (type(value), {key: _types(item) for key, item in value.items()})
    return type(value)


class _Pair(NamedTuple):
    """A named tuple, rebuilt by its constructor."""

    left: str
    right: int = 0


class _OrderedPair(_Pair):
    """A subclass of a named tuple: pickled the usual way."""

    def __new__(cls, left: str, right: int = 0) -> _OrderedPair:
        return super().__new__(cls, min(left, str(right)), right)


class _Counted(NamedTuple):
    """A named tuple that says how it is pickled: that way is kept."""

    count: int

    def __reduce__(self) -> tuple[Any, ...]:
        return _Counted, (self.count + 1,)


def test_named_tuples_are_rebuilt_by_their_constructors(tmp_path: Path) -> None:
    values: list[Any] = [_Pair("a", 1), _Pair("b"), _OrderedPair("z", 3), _Counted(1)]
    values.append((_Pair("c", 2), [_Pair("d", 3)], {"e": _Pair("e")}))
    with (tmp_path / "stream").open("wb") as stream:
        workers._send(iter(values), stream)
    with (tmp_path / "stream").open("rb") as stream:
        back = pickle.load(stream)
    assert [_types(value) for value in back] == [_types(value) for value in values]
    assert back[:3] == [("a", 1), ("b", 0), ("3", 3)]
    assert back[3] == (2,)  # its own __reduce__ was used
    assert back[4] == values[4]
    assert workers._is_named_tuple(_Pair)
    assert not workers._is_named_tuple(_OrderedPair) and not workers._is_named_tuple(_Counted)
    assert not workers._is_named_tuple(tuple)

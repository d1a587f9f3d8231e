"""The cache: a warm run reports exactly what a cold one does, and nothing it reads is trusted.

Differential tests lint generated repositories with injected defects (the
benchmark's generator) with ``--no-cache`` and with the cache, after edits,
renames, deletions and changes of configuration, schemas and version, and
compare the whole output. Hostile tests forge, corrupt and redirect the cache.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import shutil
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import agent_lint.cache
from agent_lint import cli, linter
from agent_lint.cache import codec, columns
from agent_lint.cache.files import DEFAULT_DIR, key_path
from benchmarks.generate import generate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def cache_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache on (the suite turns it off elsewhere), its key in a folder of the test's own."""
    monkeypatch.delenv("AGENT_LINT_NO_CACHE", raising=False)
    monkeypatch.delenv("AGENT_LINT_CACHE_DIR", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


@pytest.fixture(params=["racy", "kept"])
def stamps(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A test twice: under the racy rule as these just-written files meet it (no stamp is
    kept, every file is hashed), and with every stamp kept, as for files last written
    more than a few seconds before the run (the stamp alone says a file is unchanged)."""
    if request.param == "kept":
        monkeypatch.setattr(agent_lint.cache, "RACY_NANOSECONDS", -(10**15))
    return str(request.param)


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the per-file step really checks (cache misses), in order."""
    called: list[str] = []
    real = linter.check_file

    def counting(*args: Any, **kwargs: Any) -> Any:
        called.append(args[4])
        return real(*args, **kwargs)

    monkeypatch.setattr(linter, "check_file", counting)
    return called


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated repository of about 150 records with one defect per family."""
    root = tmp_path_factory.mktemp("generated") / "repo"
    generate(root, 150, 1)
    return root


@pytest.fixture
def repo(generated: Path, tmp_path: Path) -> Path:
    """A fresh copy of the generated repository."""
    copy = tmp_path / "repo"
    shutil.copytree(generated, copy)
    return copy


def lint(capsys: pytest.CaptureFixture[str], *args: str, fmt: str = "json") -> tuple[int, str, str]:
    """Run the command line; its exit code, stdout and stderr."""
    code = cli.main(["--output-format", fmt, *args])
    out, err = capsys.readouterr()
    return code, out, err


def same_both_ways(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> str:
    """Cold and warm runs agree in the JSON and text reports; returns the JSON report."""
    reports = []
    for fmt in ("json", "text"):
        cold = lint(capsys, "--no-cache", *args, str(root), fmt=fmt)
        warm = lint(capsys, *args, str(root), fmt=fmt)
        assert warm == cold
        reports.append(cold[1])
    return reports[0]


def document(root: Path) -> Path:
    """The one cache document of the default run key."""
    found = sorted((root / DEFAULT_DIR).glob("*.cache"), key=lambda p: p.stat().st_mtime)
    assert found, "no cache document was written"
    return found[-1]


def sections(data: bytes) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """A document's first two lines (MAC and header), its batches and its entry lines."""
    lines = data.split(b"\n")[:-1]
    count = int(lines[2])
    return lines[:2], lines[3 : 3 + count], lines[3 + count :]


def assemble(header: bytes, batches: list[bytes], lines: list[bytes]) -> bytes:
    """A document's body from its header, batches and entry lines (see :func:`sections`)."""
    parts = [header, b"%d" % len(batches), *batches, *lines]
    return b"".join(part + b"\n" for part in parts)


def entries(root: Path) -> list[str]:
    """The names (content hash and path) of the latest document's entries."""
    lines = sections(document(root).read_bytes())[2]
    return [json.loads(line.split(b"\t")[0]) for line in lines]


def primed(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[tuple[int, str, str], Path]:
    """A cold run's result, after which a warm run has written the cache document."""
    cold = lint(capsys, "--no-cache", str(root))
    lint(capsys, str(root))
    return cold, document(root)


def sign(path: Path, body: bytes, key: bytes) -> None:
    """Write a cache document of ``body`` with its HMAC under ``key``."""
    mac = hmac.new(key, body, hashlib.sha256).hexdigest().encode()
    path.write_bytes(b"agent-lint-cache %d " % agent_lint.cache.FORMAT + mac + b"\n" + body)


def codes(report: str) -> list[str]:
    return [d["code"] for d in json.loads(report)["diagnostics"]]


# --- cold and warm agree -----------------------------------------------------------------------


def test_warm_run_checks_nothing_again_and_reports_the_same(
    stamps: str, repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    cold = lint(capsys, "--no-cache", str(repo))
    checks.clear()
    first = lint(capsys, str(repo))
    read = len(checks)
    assert read > 100
    checks.clear()
    warm = lint(capsys, str(repo))
    assert checks == []
    assert warm == first == cold
    assert cold[0] == 1 and len(codes(cold[1])) >= 5  # the injected defects are found
    assert len(entries(repo)) == read


def test_edits_renames_and_deletions(
    stamps: str, repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    agent = repo / ".agent"
    same_both_ways(capsys, repo)
    decision = sorted((agent / "decisions").glob("D-*.json"))[3]
    data = json.loads(decision.read_text())
    data["title"] = 7  # a schema error in an edited file
    decision.write_text(json.dumps(data, indent=2))
    checks.clear()
    report = same_both_ways(capsys, repo)
    assert "AL101" in codes(report) or "AL102" in codes(report)
    # Checked by the two cold runs and by the first warm one (new content), not the second.
    assert checks.count(f".agent/decisions/{decision.name}") == 3
    # A rename: the file is checked under its new name; references to the old one dangle.
    memory = sorted((agent / "decisions").glob("D-*.json"))[1]
    memory.rename(memory.with_name(memory.stem + "-renamed.json"))
    same_both_ways(capsys, repo)
    # A deletion: its entry is dropped from the cache when the document is written.
    turn = sorted(agent.glob("conversations/*/turns/*.yaml"))[-1]
    turn.unlink()
    same_both_ways(capsys, repo)
    names = entries(repo)
    assert not any(name.endswith(turn.relative_to(repo).as_posix()) for name in names)
    assert not any(name.endswith(memory.relative_to(repo).as_posix()) for name in names)


def test_a_run_adds_one_batch_and_stale_rows_are_compacted(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    checks: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An edit keeps the batch already written and adds one for the file checked again;
    too many batches are written again as one, and every way reads the same."""
    cold, path = primed(capsys, repo)
    (first,) = sections(path.read_bytes())[1]
    decisions = sorted((repo / ".agent" / "decisions").glob("D-*.json"))
    for number, decision in enumerate(decisions[:2]):
        decision.write_text(decision.read_text() + "\n")
        assert lint(capsys, str(repo)) == cold
        batches = sections(document(repo).read_bytes())[1]
        assert len(batches) == number + 2
        assert batches[0] == first  # written back as it was read
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []
    monkeypatch.setattr(agent_lint.cache, "MAX_BATCHES", 1)
    decisions[2].write_text(decisions[2].read_text() + "\n")
    assert lint(capsys, str(repo)) == cold
    assert len(sections(document(repo).read_bytes())[1]) == 1  # compacted
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []
    same_both_ways(capsys, repo)


def test_a_compaction_that_fails_keeps_the_batches(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    checks: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cold, path = primed(capsys, repo)
    monkeypatch.setattr(agent_lint.cache, "MAX_BATCHES", 1)

    def failing(self: Any, used: list[Any]) -> list[bytes]:
        raise codec.Unencodable("for the test")

    monkeypatch.setattr(agent_lint.cache.RunCache, "_compacted", failing)
    decision = sorted((repo / ".agent" / "decisions").glob("D-*.json"))[0]
    decision.write_text(decision.read_text() + "\n")
    assert lint(capsys, str(repo)) == cold
    assert len(sections(path.read_bytes())[1]) == 2
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []


def test_a_warm_run_that_changes_nothing_writes_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    cold, path = primed(capsys, repo)
    before = path.stat()
    data = path.read_bytes()
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert path.read_bytes() == data


def test_many_batches_an_edit_adds_one_and_keeps_every_other_place(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    checks: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Batches of a few outcomes each: an edit writes every batch read back as it was, in
    its place, and one batch more; no entry but the edited file's changes."""
    monkeypatch.setattr(agent_lint.cache, "BATCH_ROWS", 16)
    cold, path = primed(capsys, repo)
    (_, header), batches, lines = sections(path.read_bytes())
    assert len(batches) > 5 and all(len(json.loads(b)["strings"]) for b in batches)
    decision = sorted((repo / ".agent" / "decisions").glob("D-*.json"))[2]
    decision.write_text(decision.read_text() + "\n")
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == [decision.relative_to(repo).as_posix()]
    (_, again), later, after = sections(document(repo).read_bytes())
    assert again == header and later[:-1] == batches and len(later) == len(batches) + 1
    changed = [line for line in after if line not in lines]
    assert len(changed) == 1 and changed[0].split(b"\t")[2] == b"%d:0" % len(batches)
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []
    # Too many batches: all are written again, full, one batch read at a time.
    monkeypatch.setattr(agent_lint.cache, "MAX_BATCHES", 1)
    decision.write_text(decision.read_text() + "\n")
    assert lint(capsys, str(repo)) == cold
    compacted = sections(document(repo).read_bytes())[1]
    assert len(compacted) == -(-len(after) // 16)
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []
    same_both_ways(capsys, repo)


def test_every_outcome_read_back_equals_the_one_checked(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Differential: each file's outcome as a warm run decodes it (columns, strings by
    number, objects, tuples, values of any type) equals the outcome the cold run checked,
    field by field and type by type, across many batches."""
    monkeypatch.setattr(agent_lint.cache, "BATCH_ROWS", 16)
    checked: dict[str, Any] = {}
    served: dict[str, Any] = {}
    real_put, real_get = agent_lint.cache.RunCache.put, agent_lint.cache.RunCache.get

    def put(self: Any, path: str, digest: str, spent: int, outcome: Any, *rest: Any) -> None:
        checked[path] = outcome
        real_put(self, path, digest, spent, outcome, *rest)

    def get(self: Any, path: str, *args: Any) -> Any:
        outcome = real_get(self, path, *args)
        if outcome is not None:
            served[path] = outcome
        return outcome

    monkeypatch.setattr(agent_lint.cache.RunCache, "put", put)
    monkeypatch.setattr(agent_lint.cache.RunCache, "get", get)
    cold = lint(capsys, str(repo))
    assert lint(capsys, str(repo)) == cold
    assert served.keys() == checked.keys() and len(served) > 100

    def shape(value: Any) -> Any:
        """A value with the type of every part spelled out."""
        if isinstance(value, (set, frozenset)):  # in any order
            return type(value), sorted((shape(item) for item in value), key=repr)
        if isinstance(value, (list, tuple)):
            return type(value), [shape(item) for item in value]
        if isinstance(value, dict):
            return type(value), {key: shape(item) for key, item in value.items()}
        if dataclasses.is_dataclass(value):
            return type(value), [shape(getattr(value, f.name)) for f in dataclasses.fields(value)]
        return type(value), value

    for path, outcome in checked.items():
        assert served[path] == outcome, path
        assert shape(served[path]) == shape(outcome), path


def test_a_document_changed_while_a_run_read_it_is_not_written_over(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    checks: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A batch read again to be written back is checked against the hash it was read with:
    when another run replaced the document meanwhile, that document stands."""
    monkeypatch.setattr(agent_lint.cache, "BATCH_ROWS", 16)
    cold, path = primed(capsys, repo)
    real = agent_lint.cache.RunCache.save
    other = b"written by another run\n"

    def save(self: Any) -> None:
        path.write_bytes(other)
        real(self)

    monkeypatch.setattr(agent_lint.cache.RunCache, "save", save)
    decision = sorted((repo / ".agent" / "decisions").glob("D-*.json"))[0]
    decision.write_text(decision.read_text() + "\n")
    assert lint(capsys, str(repo)) == cold
    assert path.read_bytes() == other
    monkeypatch.setattr(agent_lint.cache.RunCache, "save", real)
    assert lint(capsys, str(repo)) == cold  # not trusted: checked again, and written anew
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []


@pytest.mark.parametrize(
    "path",
    [
        ".agent/D-1.json",
        'a "quoted" name',
        "back\\slash",
        "caf\u00e9/\u2603",
        "tab\there",
        "del\x7f",
    ],
)
def test_entry_names_are_written_as_json_writes_them(path: str) -> None:
    digest = "0123456789abcdef" * 2
    rest = digest.encode() + b"\t0\t1:2\t{}\tnull"
    expected = agent_lint.cache._dump(digest + path) + rest[32:] + b"\n"
    assert agent_lint.cache._line(path, rest) == expected
    assert agent_lint.cache._name(expected.split(b"\t")[0]) == digest + path


def test_two_runs_of_one_command_share_no_value(repo: Path) -> None:
    """A cache serving two runs (``--fix``, ``--new-only``) hands each its own facts."""
    cache = agent_lint.cache.Cache()
    first = linter.lint_paths([repo], cache=cache)
    cache.save()
    cache = agent_lint.cache.Cache()
    runs = [linter.lint_paths([repo], cache=cache) for _ in range(2)]
    assert runs[0].diagnostics == runs[1].diagnostics == first.diagnostics
    facts = [run.indexes[0].references for run in runs]
    assert facts[0] == facts[1] and facts[0]
    assert not any(a is b for a, b in zip(*facts, strict=True))


def test_full_batches_of_a_cold_run_serve_a_second_run_of_the_command(
    repo: Path, checks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch this run filled is kept as its text (not its tables) and still serves."""
    monkeypatch.setattr(agent_lint.cache, "BATCH_ROWS", 16)
    cache = agent_lint.cache.Cache()
    first = linter.lint_paths([repo], cache=cache)
    assert len(checks) > 3 * 16
    checks.clear()
    second = linter.lint_paths([repo], cache=cache)
    assert checks == [] and second.diagnostics == first.diagnostics
    facts = [run.indexes[0].references for run in (first, second)]
    assert facts[0] == facts[1] and not any(a is b for a, b in zip(*facts, strict=True))


# --- the stamp shortcut: unchanged files are not read again ------------------------------------


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the lint loop reads from disk, in order."""
    called: list[str] = []
    real = linter.read_file

    def counting(*args: Any, **kwargs: Any) -> Any:
        called.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(linter, "read_file", counting)
    return called


def _same_size_edit(path: Path) -> None:
    """Break ``path``'s JSON without changing its size, then set its times back."""
    before = path.stat()
    raw = path.read_bytes()
    path.write_bytes(b"[" + raw[1:])
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size


def test_unchanged_files_are_not_read_and_edits_keeping_size_and_time_are_seen(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    checks: list[str],
    reads: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No file is racy here: the stamp alone decides, and its change time sees the edit."""
    monkeypatch.setattr(agent_lint.cache, "RACY_NANOSECONDS", -(10**15))
    cold, _ = primed(capsys, repo)
    reads.clear()
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert reads == [] and checks == []
    decision = sorted((repo / ".agent" / "decisions").glob("D-*.json"))[2]
    _same_size_edit(decision)
    reads.clear()
    report = same_both_ways(capsys, repo)
    assert "AL001" in codes(report) and report != cold[1]
    # Read by the two cold runs and the first warm one (its stamp changed), not the second.
    assert reads.count(f".agent/decisions/{decision.name}") == 3


def test_racy_edit_is_seen_though_the_stamp_is_the_same(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    reads: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file system too coarse to tell two edits apart: only the racy rule sees the second."""
    decision = sorted((repo / ".agent" / "decisions").glob("D-*.json"))[2]
    real_walk = linter.walk
    fake: list[tuple[int, int, int, int]] = []

    def one_stamp(*args: Any, **kwargs: Any) -> Any:
        for entry in real_walk(*args, **kwargs):
            yield entry._replace(stamp=fake[0]) if entry.stamp else entry

    monkeypatch.setattr(linter, "walk", one_stamp)
    now = time.time_ns()
    # Not older than the runs' start (the same coarse time stamp): racy, never kept.
    fake.append((1, now + 10**12, 1, now + 10**12))
    cold, _ = primed(capsys, repo)
    _same_size_edit(decision)
    assert same_both_ways(capsys, repo) != cold[1]
    # The same edit under a stamp old enough to keep is trusted: the stamp is the proof.
    fake[0] = (1, now - 10**10, 1, now - 10**10)
    lint(capsys, str(repo))
    decision.write_bytes(b"{" + decision.read_bytes()[1:])
    reads.clear()
    assert lint(capsys, str(repo))[1] != cold[1]
    assert reads == []


def test_one_step_of_an_unchanged_file_is_unchanged_then_get(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Differential: :meth:`RunCache.fresh` (the warm loop's one step) gives every file the
    content hash and outcome that :meth:`RunCache.unchanged` then :meth:`RunCache.get` give,
    over many batches, with a YAML budget that does and does not fit, and in a second run
    of one command (the files it took are then its own)."""
    monkeypatch.setattr(agent_lint.cache, "RACY_NANOSECONDS", -(10**15))
    monkeypatch.setattr(agent_lint.cache, "BATCH_ROWS", 16)
    primed(capsys, repo)
    lint(capsys, str(repo))  # every entry now holds its file's stamp
    real = agent_lint.cache.RunCache.fresh

    def reference(self: Any, path: str, stamp: Any, spent: int) -> Any:
        digest = self.unchanged(path, stamp)
        outcome = None if digest is None else self.get(path, digest, spent, stamp)
        return None if outcome is None else (digest, outcome)

    def served(form: Any, spent: int) -> list[Any]:
        given: list[Any] = []

        def recording(self: Any, path: str, stamp: Any, _: int) -> Any:
            given.append((path, form(self, path, stamp, spent)))
            return given[-1][1]

        monkeypatch.setattr(agent_lint.cache.RunCache, "fresh", recording)
        cache = agent_lint.cache.Cache()
        results = [linter.lint_paths([repo], cache=cache) for _ in range(2)]
        assert results[0].diagnostics == results[1].diagnostics
        return given

    for spent in (0, 10**15):  # a YAML budget spent: nothing kept fits
        fast, slow = served(real, spent), served(reference, spent)
        assert fast == slow and len(fast) > 200
        kept = [found for _, found in fast if found is not None]
        assert len(kept) == (len(fast) if spent == 0 else 0)


def test_a_warm_pass_runs_without_collections_and_a_check_with_them(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command's pass keeps the cyclic collector off while it only takes outcomes from
    the cache, turns it on before it checks a file, and the run leaves it as it found it."""
    import gc

    states: list[tuple[str, bool]] = []
    real_fresh, real_check = agent_lint.cache.RunCache.fresh, linter.check_file

    def fresh(self: Any, *args: Any) -> Any:
        states.append(("fresh", gc.isenabled()))
        return real_fresh(self, *args)

    def check(*args: Any, **kwargs: Any) -> Any:
        states.append(("check", gc.isenabled()))
        return real_check(*args, **kwargs)

    monkeypatch.setattr(agent_lint.cache.RunCache, "fresh", fresh)
    monkeypatch.setattr(linter, "check_file", check)
    monkeypatch.setattr(agent_lint.cache, "RACY_NANOSECONDS", -(10**15))
    for jobs in ("1", "auto"):
        lint(capsys, "--jobs", jobs, str(repo))
        states.clear()
        assert gc.isenabled() and gc.get_freeze_count() == 0
        lint(capsys, "--jobs", jobs, str(repo))  # warm: nothing is checked
        assert states and set(states) == {("fresh", False)}
        decision = sorted((repo / ".agent" / "decisions").glob("D-*.json"))[-1]
        decision.write_bytes(decision.read_bytes() + b"\n")
        states.clear()
        lint(capsys, "--jobs", jobs, str(repo))  # one file checked, with the collector on
        assert ("check", True) in states and ("check", False) not in states
        assert gc.isenabled() and gc.get_freeze_count() == 0


def test_configuration_change(
    repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    same_both_ways(capsys, repo)
    (repo / ".agent-lint.toml").write_text('ignore = ["AL3"]\n[severity]\nAL101 = "warning"\n')
    checks.clear()
    report = same_both_ways(capsys, repo)
    assert not any(code.startswith("AL3") for code in codes(report))
    assert len(checks) > 100  # another configuration: everything is checked again
    checks.clear()
    lint(capsys, str(repo))
    assert checks == []
    # The same command line with --select is yet another run key, kept beside the first.
    same_both_ways(capsys, repo, "--select", "AL1,AL2")
    assert len(list((repo / DEFAULT_DIR).glob("*.cache"))) == 3


def test_schema_change(repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]) -> None:
    bundled = Path(agent_lint.__file__).parent.parent / "schemas" / "cortex"
    schemas = repo / "schemas"
    schemas.mkdir()
    shutil.copy(bundled / "decision.schema.json", schemas)
    (repo / ".agent-lint.toml").write_text('schema-dirs = ["schemas"]\n')
    same_both_ways(capsys, repo)
    schema = json.loads((schemas / "decision.schema.json").read_text())
    schema["required"] = [*schema.get("required", []), "x_reviewed_by"]
    (schemas / "decision.schema.json").write_text(json.dumps(schema))
    checks.clear()
    report = same_both_ways(capsys, repo)
    assert len(checks) > 100
    assert "x_reviewed_by" in report


def test_change_of_a_shadowed_schema_that_is_referenced(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema file another folder's same-named file shadows is still reachable by its
    ``$id``: editing it changes findings, so it is part of the run key too."""
    bundled = Path(agent_lint.__file__).parent.parent / "schemas" / "cortex"
    first, second = repo / "first", repo / "second"
    first.mkdir()
    second.mkdir()
    schema = json.loads((bundled / "decision.schema.json").read_text())
    schema["$id"] = "urn:example:decision"
    schema["allOf"] = [*schema.get("allOf", []), {"$ref": "urn:example:extra"}]
    (first / "decision.schema.json").write_text(json.dumps(schema))
    (first / "extra.schema.json").write_text(json.dumps({"$id": "urn:example:extra-first"}))
    (second / "extra.schema.json").write_text(json.dumps({"$id": "urn:example:extra"}))
    (repo / ".agent-lint.toml").write_text('schema-dirs = ["first", "second"]\n')
    same_both_ways(capsys, repo)
    shadowed = {"$id": "urn:example:extra", "required": ["x_reviewed_by"]}
    (second / "extra.schema.json").write_text(json.dumps(shadowed))
    assert "x_reviewed_by" in same_both_ways(capsys, repo)


def test_version_change(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    checks: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    same_both_ways(capsys, repo)
    monkeypatch.setattr(agent_lint.cache, "__version__", "99.0")
    checks.clear()
    same_both_ways(capsys, repo)
    assert len(checks) > 100


def test_fix_then_warm_run(
    stamps: str, repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    state = sorted(repo.glob(".agent/conversations/*/handoffs/state.json"))[-1]
    data = json.loads(state.read_text())
    data["latest_turn"] -= 1
    state.write_text(json.dumps(data, indent=2))
    before = lint(capsys, str(repo))
    assert "AL503" in codes(before[1])
    fixed = lint(capsys, "--fix", str(repo))
    assert "AL503" not in codes(fixed[1])
    assert fixed[1] != before[1]
    checks.clear()
    again = same_both_ways(capsys, repo)
    assert json.loads(again)["diagnostics"] == json.loads(fixed[1])["diagnostics"]
    checks.clear()
    assert lint(capsys, "--diff", str(repo))[1] == ""  # a second fix has nothing to write
    assert checks == []


def test_positions_are_kept(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cold = lint(capsys, "--no-cache", str(repo))
    lint(capsys, str(repo))
    spans = [line.split(b"\t")[3] for line in sections(document(repo).read_bytes())[2]]
    assert any(span != b"{}" for span in spans)  # places of findings are kept
    assert lint(capsys, str(repo)) == cold


# --- the YAML budget --------------------------------------------------------------------------


def test_places_found_in_a_file_changed_since_the_pass_are_not_kept(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that changes between the pass and the placing of its findings: the places
    found in its new bytes are not kept for the content the pass checked."""
    cold = lint(capsys, "--no-cache", str(repo))
    report = json.loads(cold[1])
    target = next(d["path"] for d in report["diagnostics"] if d["path"].endswith(".json"))
    real = linter.read_file
    reads: list[str] = []

    def shifted(*args: Any, **kwargs: Any) -> Any:
        raw, problem = real(*args, **kwargs)
        if args[1] == target:
            reads.append(target)
            if len(reads) == 2 and raw is not None:  # the placing's read: two lines more
                raw = b"\n\n" + raw
        return raw, problem

    with monkeypatch.context() as patch:
        patch.setattr(linter, "read_file", shifted)
        moved = lint(capsys, str(repo))
    assert len(reads) == 2 and moved != cold  # placed in the bytes it read then
    assert lint(capsys, str(repo)) == cold
    assert lint(capsys, str(repo)) == cold


def test_yaml_budget_is_charged_in_order(
    stamps: str, repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    yaml_files = sorted((p for p in (repo / ".agent").rglob("*.yaml")), key=lambda p: p.as_posix())
    sizes = [p.stat().st_size for p in yaml_files]
    budget = sum(sizes[:3]) + 1
    (repo / ".agent-lint.toml").write_text(
        f"[limits]\nmax-yaml-total-bytes = {budget}\nmax-yaml-bytes = {min(budget, 1024)}\n"
    )
    report = same_both_ways(capsys, repo)
    assert "AL011" in codes(report)
    # The first YAML file grows: a file after it that fitted no longer does, and one
    # that did not fit stays out; cached charges must not hide either.
    first = yaml_files[0]
    first.write_text(first.read_text() + "\n# " + "x" * 20 + "\n")
    grown = same_both_ways(capsys, repo)
    assert grown != report
    first.write_text(first.read_text()[:-24])
    assert same_both_ways(capsys, repo) == report


# --- a cache nobody should trust ---------------------------------------------------------------


def _corrupt_ways(raw: bytes) -> Iterator[tuple[str, bytes]]:
    head, _, body = raw.partition(b"\n")
    yield "truncated", raw[: len(raw) // 2]
    yield "empty", b""
    yield "foreign", b'{"some": "other tool"}\n'
    yield "binary", bytes(range(256)) * 4
    this = agent_lint.cache.FORMAT
    other = head.replace(b" %d " % this, b" %d " % (this + 1), 1)
    assert other != head
    yield "other format", other + b"\n" + body
    flipped = bytearray(body)
    flipped[len(flipped) // 2] ^= 0x01
    yield "one bit flipped", head + b"\n" + bytes(flipped)
    yield "no MAC", body


@pytest.mark.slow
def test_corrupt_cache_files_are_ignored_and_rewritten(
    repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    cold, path = primed(capsys, repo)
    good = path.read_bytes()
    for name, data in _corrupt_ways(good):
        path.write_bytes(data)
        checks.clear()
        assert lint(capsys, str(repo)) == cold, name
        assert len(checks) > 100, name  # nothing taken from it
        checks.clear()
        assert lint(capsys, str(repo)) == cold, name
        assert checks == [], name  # rewritten, and trusted once it is agent-lint's own


def test_forged_entry_with_a_foreign_key_hides_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    """A change commits a cache whose entries claim its broken files are clean."""
    cold, path = primed(capsys, repo)
    (_, header), batches, lines = sections(path.read_bytes())
    root = json.loads(header)["types"].index("agent_lint.filestep.FileOutcome")
    forged = []
    for batch in batches:
        tables = json.loads(batch)
        for table in tables["tables"]:
            if table[0] == root:
                table[2][0] = [0] * len(table[2][0])  # every file's findings: an empty slice
        forged.append(json.dumps(tables).encode())
    body = assemble(header, forged, lines)
    # Signed with the forger's own key (the real one never leaves the user's cache folder).
    sign(path, body, b"k" * 32)
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert len(checks) > 100


def _wrong_shapes(batch: bytes, root: int) -> Iterator[tuple[str, bytes | None, bytes | None]]:
    """Ways to break a document's batch or an entry's place: (name, batch, place).

    ``root`` is the type of the files' outcomes, whose first two columns are slices
    of the tables of findings and facts.
    """
    tables = json.loads(batch)
    strings = tables["strings"]
    yield "row outside its batch", None, b"0:99999999"
    yield "batch outside the document", None, b"7:0"
    yield "place not numbers", None, b"0:-1"
    yield "not a batch", json.dumps(tables["tables"]).encode(), None
    yield (
        "not a table",
        json.dumps({"strings": [], "tables": [[0, "not", "a table"]]}).encode(),
        None,
    )
    unknown = {"strings": strings, "tables": [[99999, 0, []], *tables["tables"]]}
    yield "unknown type", json.dumps(unknown).encode(), None
    yield (
        "strings not strings",
        json.dumps({**tables, "strings": [1] * len(strings)}).encode(),
        None,
    )
    yield "strings missing", json.dumps({**tables, "strings": strings[:1]}).encode(), None
    for what, change in (
        ("slice past its table", lambda column: [10**6 for _ in column]),
        ("negative slice", lambda column: [-2 for _ in column]),
        ("slice ending before it starts", lambda column: [1, 0] * (len(column) // 2)),
        ("column too short", lambda column: column[1:]),
        ("string for a number", lambda column: ["0" for _ in column]),
    ):
        broken = json.loads(batch)
        for table in broken["tables"]:
            if table[0] == root:
                table[2][1] = change(table[2][1])
        yield what, json.dumps(broken).encode(), None


def test_wrong_shape_inside_a_valid_mac_is_not_a_traceback(
    repo: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    """Even a document signed with the right key is read field by field."""
    cold, path = primed(capsys, repo)
    (_, header), batches, lines = sections(path.read_bytes())
    root = json.loads(header)["types"].index("agent_lint.filestep.FileOutcome")
    for name, batch, place in _wrong_shapes(batches[0], root):
        entry = lines[0].split(b"\t")
        if place is not None:
            entry[2] = place
        changed = [batch or batches[0], *batches[1:]]
        body = assemble(header, changed, [b"\t".join(entry), *lines[1:]])
        sign(path, body, key_path().read_bytes())
        checks.clear()
        assert lint(capsys, str(repo)) == cold, name
        assert checks, name  # not taken from the cache
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []  # the document was rewritten, and is trusted
    assert lint(capsys, str(repo)) == cold
    checks.clear()
    assert lint(capsys, str(repo)) == cold
    assert checks == []


def test_symlinked_cache_folder_is_not_written_through(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / DEFAULT_DIR).symlink_to(outside, target_is_directory=True)
    cold = lint(capsys, "--no-cache", str(repo))
    code, out, err = lint(capsys, str(repo))
    assert (code, out) == cold[:2]
    assert "symbolic link" in err and err.count("agent-lint: note:") == 1
    assert list(outside.iterdir()) == []


def test_symlinked_document_is_replaced_not_followed(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lint(capsys, str(repo))
    path = document(repo)
    target = tmp_path / "victim.txt"
    target.write_text("keep me")
    path.unlink()
    path.symlink_to(target)
    lint(capsys, str(repo))
    assert target.read_text() == "keep me"
    assert not path.is_symlink()


def test_unwritable_cache_folder_means_no_cache(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cold = lint(capsys, "--no-cache", str(repo))
    code, out, err = lint(capsys, "--cache-dir", str(blocker / "cache"), str(repo))
    assert (code, out) == cold[:2]
    assert err.count("agent-lint: note:") == 1 and "no cache" in err
    assert lint(capsys, "-q", "--cache-dir", str(blocker / "cache"), str(repo))[2] == ""


def test_key_inside_the_repository_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo / "keys"))
    cold = lint(capsys, "--no-cache", str(repo))
    code, out, err = lint(capsys, str(repo))
    assert (code, out) == cold[:2]
    assert "inside the repository" in err
    assert not (repo / "keys").exists()


def test_key_is_private_and_folder_is_ignored_by_git(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lint(capsys, str(repo))
    assert key_path().stat().st_mode & 0o777 == 0o600
    assert len(key_path().read_bytes()) == 32
    folder = repo / DEFAULT_DIR
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (
        (folder / "CACHEDIR.TAG")
        .read_bytes()
        .startswith(b"Signature: 8a477f597d28d172789f06886806bc55")
    )


def test_cache_dir_option_and_environment(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = tmp_path / "elsewhere" / "cache"
    lint(capsys, "--cache-dir", str(chosen), str(repo))
    assert list(chosen.glob("*.cache")) and not (repo / DEFAULT_DIR).exists()
    monkeypatch.setenv("AGENT_LINT_CACHE_DIR", str(tmp_path / "from-env"))
    lint(capsys, str(repo))
    assert list((tmp_path / "from-env").glob("*.cache"))
    monkeypatch.setenv("AGENT_LINT_NO_CACHE", "1")
    lint(capsys, str(repo))
    assert not (repo / DEFAULT_DIR).exists()
    assert "--no-cache" in cli.build_parser().format_help()


def test_configuration_cannot_choose_the_cache_folder(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".agent-lint.toml").write_text('cache-dir = "/tmp/elsewhere"\n')
    code, _, err = lint(capsys, str(repo))
    assert code == 2 and "--cache-dir" in err


def test_no_cache_writes_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lint(capsys, "--no-cache", str(repo))
    assert not (repo / DEFAULT_DIR).exists()
    assert not key_path().exists()


def test_cache_at_the_root_of_a_store_is_not_walked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store kept at the repository root (Astrion's) never sees the cache as its own file."""
    store = tmp_path / "store"
    shutil.copytree(FIXTURES / "astrion" / "valid" / ".astrion", store)
    cold = lint(capsys, "--no-cache", "--show-files", str(store), fmt="text")
    assert "state.json" in cold[1]
    lint(capsys, str(store))
    assert (store / DEFAULT_DIR).is_dir()
    assert DEFAULT_DIR not in cold[1]
    assert lint(capsys, "--show-files", str(store), fmt="text") == cold


# --- the codec ---------------------------------------------------------------------------------


def _codec() -> codec.Codec:
    import agent_lint.filestep  # noqa: F401  (registers the outcome's modules)

    return codec.Codec(*codec.registry(codec.outcome_modules([])))


@pytest.mark.parametrize(
    "value",
    [
        ("a", 1, 2.5, None, True),
        {"k": [1, {"x": (1, 2)}]},
        {1, 2, 3},
        frozenset({"a"}),
        Decimal("1" * 5000),
        [[], (), {}, -0.0],
    ],
)
def test_codec_round_trip(value: Any) -> None:
    coder = _codec()
    encoded = json.loads(json.dumps(coder.encode(value)))
    assert coder.decode(encoded) == value
    assert type(coder.decode(encoded)) is type(value)


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), {1: "a"}, object(), Path("x"), 2**20_000],
    ids=["nan", "inf", "int-keys", "object", "path", "huge-int"],
)
def test_codec_refuses_what_it_cannot_keep_faithfully(value: Any) -> None:
    with pytest.raises(codec.Unencodable):
        _codec().encode(value)


@pytest.mark.parametrize(
    "value",
    [
        {"x": 1},
        {"c": [9999]},
        {"c": [0, 1]},
        {"t": 1, "s": 2},
        {"e": [0, "no such member"]},
        {"n": "12a"},
        {"s": [[1]]},
        {"j": 1},
    ],
)
def test_codec_refuses_unexpected_shapes(value: Any) -> None:
    with pytest.raises(codec.CacheFormatError):
        _codec().decode(value)


@dataclasses.dataclass(frozen=True)
class Tree:
    """A type that holds itself: kept in the codec's form where it recurs."""

    label: str
    children: tuple[Tree, ...] = ()


class Leaf(NamedTuple):
    """A named tuple with a value of any kind."""

    name: str
    value: Any = None


@dataclasses.dataclass(frozen=True)
class Holder:
    """Fields of every kind of column: scalars, rows, optional rows, slices, values and
    objects of any type."""

    title: str
    leaf: Leaf
    maybe: Leaf | None
    leaves: tuple[Leaf, ...]
    listed: list[Leaf]
    tree: Tree | None = None
    pairs: tuple[tuple[str, int], ...] = ()
    extra: tuple[object, ...] = ()


_NONE = [[0, 0], [], [], []]  # a Holder's extra: no objects
_PAIRS = [[0, 0], [], []]  # a Holder's pairs: none


def _one(kind: int, row: int) -> list[Any]:
    """A Holder's extra of one object: of type ``kind``, at ``row`` in its table."""
    return [[0, 1], [kind], [row], []]


def _holder(pairs: Any, extra: Any) -> list[Any]:
    """The tables of one Holder ("t", Leaf("x")) with these columns of pairs and extra."""
    return [
        [1, 1, [["x"], [None]]],
        [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], pairs, extra]],
    ]


def _columns() -> tuple[columns.Columns, int]:
    coder = codec.Codec([Holder, Leaf, Tree], [])
    return columns.Columns(coder), 0


def _holders() -> list[Holder]:
    tree = Tree("root", (Tree("a"), Tree("b", (Tree("c"),))))
    return [
        Holder("one", Leaf("x", 1), None, (Leaf("y"), Leaf("z", [1, {"k": (2,)}])), [], tree),
        Holder("two", Leaf("x", {"a", "b"}), Leaf("m"), (), [Leaf("l", 2.5)], None, (("p", 1),)),
        Holder("three", Leaf("", None), Leaf("n", True), (Leaf("w"),), [Leaf("v"), Leaf("u")]),
        Holder(
            "four",
            Leaf("x"),
            None,
            (),
            [],
            extra=(
                Leaf("e", 1),
                "text",
                None,
                Tree("t", (Tree("u"),)),
                Holder("in", Leaf("i"), None, (), []),
            ),
        ),
        Holder("five", Leaf("x"), None, (), [], extra=(Leaf("f"),)),
    ]


def test_columns_round_trip() -> None:
    table, root = _columns()
    tables: dict[int, Any] = {}
    rows = [table.add(tables, root, holder) for holder in _holders()]
    assert rows == [0, 1, 2, 3, 4]
    batch = table.batch(tables)
    decoded = table.decode(json.loads(json.dumps(batch)), root)
    assert decoded == _holders()
    assert [type(h.leaves) for h in decoded] == [tuple] * 5
    assert [type(h.listed) for h in decoded] == [list] * 5
    assert [type(h.extra) for h in decoded] == [tuple] * 5
    assert decoded[1].listed is not decoded[2].listed
    fresh = table.decode(json.loads(json.dumps(batch)), root)
    assert fresh == decoded and fresh[0].leaf is not decoded[0].leaf
    # Each distinct string is written once, and the values decoded share it.
    assert sorted(batch["strings"]) == sorted(set(batch["strings"]))
    assert decoded[0].leaf.name is decoded[1].leaf.name


def test_columns_build_every_registered_type_as_its_constructor_does() -> None:
    """The types built field by field (named tuples, dataclasses of slots) equal what
    calling them builds, for every type an outcome of any profile may hold."""
    from agent_lint.profiles import builtin

    modules = ["agent_lint.filestep"]
    for profile in builtin():
        modules += [type(c).__module__ for c in profile.collectors]
        modules += [c.store.__module__ for c in profile.collectors]
    table = columns.Columns(codec.Codec(*codec.registry(codec.outcome_modules(modules))))
    for cls, make, names in zip(table.codec.types, table.makers, table.codec._names, strict=True):
        rows = [[f"{name}-{row}" for name in names] for row in range(3)]
        if not names:
            continue
        built = make([list(column) for column in zip(*rows, strict=True)], 3)
        expected = [cls(*row) for row in rows]
        assert built == expected, cls
        assert [type(value) for value in built] == [cls] * 3
        if cls.__hash__ is not None:
            assert list(map(hash, built)) == list(map(hash, expected)), cls


class Fields(NamedTuple):
    """Pairs of a name and a value of any type; a value of any type."""

    fields: tuple[tuple[str, Any], ...]
    loose: Any = None


def test_columns_of_values_of_any_type_are_scalars_when_they_can_be() -> None:
    table = columns.Columns(codec.Codec([Fields], []))
    values = [
        Fields((("a", 1), ("b", "x"), ("c", [1, {"d": (2,)}])), "s"),
        Fields((), {"a set"}),
        Fields((("b", None),), 3),
    ]
    tables: dict[int, Any] = {}
    for value in values:
        table.add(tables, 0, value)
    batch = json.loads(json.dumps(table.batch(tables)))
    assert table.decode(batch, 0) == values
    ((_, _, (fields, loose)),) = batch["tables"]
    assert fields[0] == [0, 3, 3, 3, 3, 4]
    assert set(fields[1]) == {"s"} and set(fields[2]) == {"v"} and set(loose) == {"v"}
    plain = [Fields((("a", "x"), ("b", 2)), "y")]
    tables = {}
    table.add(tables, 0, plain[0])
    batch = json.loads(json.dumps(table.batch(tables)))
    assert table.decode(batch, 0) == plain
    ((_, _, (fields, loose)),) = batch["tables"]
    assert fields[2] == ["x", 2] and set(loose) == {"s"}


def test_columns_keep_objects_of_their_own_tables_in_them() -> None:
    """Items of a registered type that is written first are rows of its table; others
    (strings, the type being written) are in the codec's form."""
    table, root = _columns()
    tables: dict[int, Any] = {}
    for holder in _holders():
        table.add(tables, root, holder)
    written = {index: columns for index, _, columns in table.batch(tables)["tables"]}
    slices, kinds, rows, values = written[root][-1]
    assert slices == [0, 0, 0, 0, 0, 0, 0, 5, 5, 6]
    assert kinds == [1, -1, -1, 2, -1, 1]
    assert rows[1:3] == [0, 1] and rows[4] == 2  # the values' own places
    assert values[:2] == ["text", None] and values[2]["c"][0] == root


def test_columns_value_that_cannot_be_kept_leaves_no_partial_row() -> None:
    table, root = _columns()
    tables: dict[int, Any] = {}
    good, other, *_ = _holders()
    table.add(tables, root, good)
    bad = dataclasses.replace(other, leaves=(Leaf("fine"), Leaf("nan", float("nan"))))
    with pytest.raises(codec.Unencodable):
        table.add(tables, root, bad)
    with pytest.raises(codec.Unencodable):
        table.add(tables, root, dataclasses.replace(other, leaves=[Leaf("a list")]))
    assert table.add(tables, root, other) == 1
    decoded = table.decode(json.loads(json.dumps(table.batch(tables))), root)
    assert decoded == [good, other]


def test_columns_read_a_batch_written_by_hand() -> None:
    """The shapes the refused batches above break, when they are whole."""
    table, root = _columns()
    batch = {"strings": ["t", "x"], "tables": _holder([[0, 1], {"s": [1]}, [2]], _one(1, 0))}
    (holder,) = table.decode(batch, root)
    assert holder == Holder("t", Leaf("x"), None, (), [], None, (("x", 2),), (Leaf("x"),))


@pytest.mark.parametrize(
    "batch",
    [
        {"not": "a batch"},
        [],
        {"strings": [1], "tables": []},
        {"strings": [], "tables": {}},
        [[0, 1]],
        [[0, -1, []]],
        [[5, 0, []]],
        [[1, 0, [[], []]], [1, 0, [[], []]]],
        [[0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, _NONE]]],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-1], [0, 2], [0, 0], [-1], _PAIRS, _NONE]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-2], [0, 0], [0, 0], [-1], _PAIRS, _NONE]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [[["t"]], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, _NONE]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [True], [-1], [0, 0], [0, 0], [-1], _PAIRS, _NONE]],
        ],
        # Strings by number: outside the strings, not a number, another shape.
        [[1, 1, [{"s": [2]}, [None]]]],
        [[1, 1, [{"s": [-2]}, [None]]]],
        [[1, 1, [{"s": ["0"]}, [None]]]],
        [[1, 1, [{"s": [True]}, [None]]]],
        [[1, 1, [{"s": [0, 0]}, [None]]]],
        [[1, 1, [{"s": [0], "t": [0]}, [None]]]],
        [[1, 1, [{"t": [0]}, [None]]]],
        # Values of any type: not one per row, not the codec's form, two forms at once.
        [[1, 1, [["x"], {"v": [1, 2]}]]],
        [[1, 1, [["x"], {"v": [{"q": 1}]}]]],
        [[1, 1, [["x"], {"v": [1], "s": [0]}]]],
        [[1, 1, [["x"], [[1]]]]],
        # Tuples: a slice past the items, positions of other lengths, too few positions,
        # an item that is not a scalar, a string number outside the strings.
        _holder([[0, 1], [], []], _NONE),
        _holder([[0, 1], ["p"], []], _NONE),
        _holder([[0, 0], []], _NONE),
        _holder([[0, 1], [["p"]], [1]], _NONE),
        _holder([[0, 1], {"s": [5]}, [1]], _NONE),
        _holder([[0, 1], 7, [1]], _NONE),
        # Objects: an item past its table, of an unknown type, of a type not yet read.
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, _one(1, 1)]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, _one(9, 0)]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, _one(-1, 0)]],
        ],
        [
            [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, _one(1, 0)]],
            [1, 1, [["x"], [None]]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, [[0, 2], [1], [0], []]]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, [[0, 1], [1], [0]]]],
        ],
        [
            [1, 1, [["x"], [None]]],
            [0, 1, [["t"], [0], [-1], [0, 0], [0, 0], [-1], _PAIRS, [[0, 1], [1], ["0"], []]]],
        ],
    ],
)
def test_columns_refuse_unexpected_shapes(batch: Any) -> None:
    table, root = _columns()
    if type(batch) is list and batch and type(batch[0]) is list:
        batch = {"strings": ["t", "x"], "tables": batch}
    with pytest.raises(codec.CacheFormatError):
        table.decode(batch, root)


@pytest.mark.parametrize(
    "fixture",
    sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("*/*") if p.is_dir()),
)
def test_every_fixture_warm_equals_cold_and_is_kept_whole(
    fixture: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    checks: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each fixture's outcomes are all cached (new fact types must be ones the codec
    knows), and cold and warm runs of it agree."""
    copy = tmp_path / "fixture"
    shutil.copytree(FIXTURES / fixture, copy, symlinks=True)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    refused: list[str] = []
    real = agent_lint.cache.RunCache.put

    def put(self: Any, path: str, digest: str, spent: int, outcome: Any, *rest: Any) -> None:
        before = len(self._used)
        real(self, path, digest, spent, outcome, *rest)
        if len(self._used) == before:
            refused.append(path)

    monkeypatch.setattr(agent_lint.cache.RunCache, "put", put)
    cold = lint(capsys, "--no-cache", str(copy))
    assert lint(capsys, str(copy)) == cold
    assert refused == []
    checks.clear()
    assert lint(capsys, str(copy)) == cold
    assert checks == []


# --- --base and --new-only ---------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_new_only_lints_the_merge_base_from_the_same_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], checks: list[str]
) -> None:
    """The merge-base's tree is served by content too; the gate's findings are the same."""
    from gitrepo import git, make_repo

    repo = make_repo(tmp_path, "valid")
    git(repo, "checkout", "-q", "-b", "change")
    handoff = sorted(repo.glob(".agent/conversations/*/handoffs/H-*.json"))[0]
    data = json.loads(handoff.read_text())
    data["reason"] = "rewritten after the merge"
    handoff.write_text(json.dumps(data, indent=2) + "\n")
    decision = sorted(repo.glob(".agent/decisions/D-*.json"))[0]
    decision.write_text(decision.read_text() + "\n")
    args = ("--base", "main", "--new-only", str(repo))
    cold = lint(capsys, "--no-cache", *args)
    assert any(code.startswith("AL6") for code in codes(cold[1]))
    assert lint(capsys, *args) == cold
    checks.clear()
    assert lint(capsys, *args) == cold
    assert checks == []  # both trees served from the cache
    assert (
        lint(capsys, "--base", "main", str(repo))[1]
        == lint(capsys, "--no-cache", "--base", "main", str(repo))[1]
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_new_only_keeps_the_stamps_of_the_work_tree(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reads: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The merge-base's files, read from git, have no stamp: serving them leaves the stamps
    the work tree's files keep, so the next run reads none of them again."""
    from gitrepo import git, make_repo

    monkeypatch.setattr(agent_lint.cache, "RACY_NANOSECONDS", -(10**15))
    repo = make_repo(tmp_path, "valid")
    git(repo, "checkout", "-q", "-b", "change")
    lint(capsys, str(repo))
    reads.clear()
    lint(capsys, str(repo))
    assert reads == []  # every file is served by its stamp
    lint(capsys, "--base", "main", "--new-only", str(repo))
    reads.clear()
    lint(capsys, str(repo))
    assert reads == []


def test_only_documents_written_with_the_users_key_are_pruned(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Old documents of agent-lint's own go; files committed under cache-like names stay."""
    import os

    _, path = primed(capsys, repo)
    key = key_path().read_bytes()
    folder = path.parent
    old = []
    for n in range(agent_lint.cache.KEEP_DOCUMENTS + 2):
        own, foreign = folder / f"{n:032x}.cache", folder / f"{n + 100:032x}.cache"
        sign(own, b"{}\n", key)
        sign(foreign, b"{}\n", b"k" * 32)
        os.utime(own, (1_000_000 + n, 1_000_000 + n))
        os.utime(foreign, (1_000_000 + n, 1_000_000 + n))
        old += [own, foreign]
    path.write_bytes(b"not a cache document\n")  # rewritten by the next run, which then prunes
    lint(capsys, str(repo))
    own_left = [p for p in old[0::2] if p.exists()]
    foreign_left = [p for p in old[1::2] if p.exists()]
    assert len(foreign_left) == agent_lint.cache.KEEP_DOCUMENTS + 2
    assert len(own_left) < agent_lint.cache.KEEP_DOCUMENTS + 2
    assert own_left == old[0::2][-len(own_left) :]  # the newest of agent-lint's own stay

"""The benchmark: generated repositories are what they claim, and the harness runs end to end."""

from __future__ import annotations

import os
import stat
import sys
from collections import Counter
from pathlib import Path

import check_jsonschema
import pytest

from agent_lint.kinds import Format
from agent_lint.linter import lint_paths
from agent_lint.profiles import get as get_profile
from agent_lint.profiles.cortex.kinds import KINDS

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bareparse, report  # noqa: E402
from benchmarks import run as harness  # noqa: E402
from benchmarks.defects import FAMILIES, VARIANTS  # noqa: E402
from benchmarks.generate import Repository, generate  # noqa: E402
from benchmarks.generate import main as generate_main  # noqa: E402
from benchmarks.measure import Sample, Series  # noqa: E402

FAMILY_DIGIT = dict(zip(FAMILIES, "12345", strict=True))
JSON_SCHEMAS = {kind.schema for kind in KINDS if kind.schema and kind.format is Format.JSON}


def _findings(repo: Repository) -> Counter[tuple[str, str]]:
    result = lint_paths([repo.root])
    return Counter((d.code, d.path) for d in result.diagnostics)


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_clean_repository_lints_clean_and_holds_every_kind(tmp_path: Path) -> None:
    repo = generate(tmp_path / "repo", 300)
    assert repo.clusters == 5 and not repo.defects
    assert _findings(repo) == Counter()
    agent_files = [p for p in repo.agent_dir.rglob("*") if p.is_file()]
    assert repo.files == len(agent_files)
    assert 250 <= repo.files <= 350
    kinds = set()
    for path in agent_files:
        match = get_profile("cortex").classify(path.relative_to(repo.agent_dir).as_posix())
        if match is not None:
            kinds.add(match.kind.name)
    assert kinds == {kind.name for kind in KINDS}


@pytest.mark.parametrize(("records", "per_family"), [(120, 1), (500, 6)])
def test_injected_defects_are_exactly_the_findings(
    tmp_path: Path, records: int, per_family: int
) -> None:
    repo = generate(tmp_path / "repo", records, per_family)
    assert len(repo.defects) == per_family * len(FAMILIES)
    for defect in repo.defects:
        assert defect.code.startswith("AL" + FAMILY_DIGIT[defect.family]), defect
    if per_family == 6:  # every kind of defect is exercised
        assert {d.code for d in repo.defects} == {
            v.code for variants in VARIANTS.values() for v in variants
        }
    assert _findings(repo) == repo.expected()


def test_defects_per_family_can_differ(tmp_path: Path) -> None:
    repo = generate(tmp_path / "repo", 600, {"references": 3, "agreement": 2})
    assert Counter(d.family for d in repo.defects) == {"references": 3, "agreement": 2}
    assert _findings(repo) == repo.expected()


def test_generation_is_deterministic(tmp_path: Path) -> None:
    first = generate(tmp_path / "a", 200, 1, seed=7)
    second = generate(tmp_path / "b", 200, 1, seed=7)
    other = generate(tmp_path / "c", 200, 1, seed=8)
    assert _files(first.root) == _files(second.root)
    assert first.defects == second.defects
    assert _files(first.root) != _files(other.root)


def test_too_many_defects_or_unknown_family_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="too many defects"):
        generate(tmp_path / "a", 100, 5)
    with pytest.raises(ValueError, match="unknown defect families: spelling"):
        generate(tmp_path / "b", 100, {"spelling": 1})
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty"):
        generate(tmp_path / "c", 100)


def test_check_jsonschema_accepts_the_generated_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = generate(tmp_path / "repo", 300)
    groups = harness.schema_groups(repo)
    assert set(groups) == JSON_SCHEMAS
    # Every generated JSON file is a record of some kind.
    assert sum(len(files) for files in groups.values()) == harness._kinds(repo)["json"]
    assert repo.clusters == 5
    monkeypatch.chdir(repo.root)
    for schema, files in groups.items():
        path = harness.SCHEMAS / f"{schema}.schema.json"
        harness.check_offline(path)
        with pytest.raises(SystemExit) as exit_info:
            check_jsonschema.main(["--schemafile", str(path), *files])
        assert exit_info.value.code == 0, (schema, capsys.readouterr().out)


def test_a_schema_that_would_be_fetched_is_refused(tmp_path: Path) -> None:
    schema = tmp_path / "remote.schema.json"
    schema.write_text('{"properties": {"a": {"$ref": "https://example.com/a.json"}}}')
    with pytest.raises(SystemExit, match="is not local"):
        harness.check_offline(schema)


def test_bare_parse_reads_and_parses_every_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = generate(tmp_path / "repo", 120)
    kinds = harness._kinds(repo)
    assert bareparse.main([str(repo.agent_dir)]) == 0
    out = capsys.readouterr().out
    assert f": {sum(kinds.values())} files, " in out and ", 0 failed" in out
    (repo.agent_dir / "decisions" / "broken.json").write_text("{")
    assert bareparse.main([str(repo.agent_dir)]) == 1
    assert ", 1 failed" in capsys.readouterr().out


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


#: agent-lint as it will be once it has a cache: ``--no-cache`` is accepted (and ignored).
WITH_CACHE_FLAG = """import sys
from agent_lint.cli import main
if "--help" in sys.argv:
    print("  --no-cache            do not read or write the cache")
sys.exit(main([a for a in sys.argv[1:] if a != "--no-cache"]))
"""


def test_cache_flag_is_detected_from_help(tmp_path: Path) -> None:
    with_flag = _script(tmp_path / "with-flag", WITH_CACHE_FLAG)
    assert harness.find_tools(with_flag).no_cache == ("--no-cache",)
    without = _script(tmp_path / "without", "print('usage: agent-lint [--fix]')\n")
    assert harness.find_tools(without).no_cache == ()


def test_the_note_is_no_part_of_the_command_to_reproduce() -> None:
    argv = ["--sizes", "100", "--note", "shared machine", "--repeat", "1", "--note=again"]
    assert harness._without_note(argv) == ["--sizes", "100", "--repeat", "1"]


def test_harness_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--repeat", "0"], ["--repeat-small", "0"], ["--sizes", "ten"], ["--sizes", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            harness.main(argv)
        assert exit_info.value.code == 2
    capsys.readouterr()


@pytest.mark.slow
def test_harness_end_to_end(tmp_path: Path) -> None:
    wrapper = _script(tmp_path / "agent-lint", WITH_CACHE_FLAG)
    output = tmp_path / "RESULTS.md"
    argv = ["--sizes", "100", "--repeat", "1", "--repeat-small", "1", "--workdir", str(tmp_path)]
    argv += ["--keep"]
    argv += ["--agent-lint", wrapper, "--output", str(output), "--locate-entries", "300"]
    args = harness.build_parser().parse_args(argv)
    results = harness.benchmark(args, "python -m benchmarks.run " + " ".join(argv))
    (size,) = results.sizes
    assert size.findings_as_injected and len(size.repo.defects) == len(FAMILIES)
    assert set(size.series) == {
        "cold",
        "cold-one",
        "warm",
        "warm-edit",
        "peer",
        "peer-one",
        "bare",
        "plain",
        "base-one",
        "base-many",
        "fix",
    }
    for series in size.series.values():
        assert len(series.samples) == 1 and series.wall > 0 and series.rss > 10_000_000
    assert size.series["peer"].code == 1  # the injected schema defect
    assert size.peer_as_injected and len(size.peer_flagged) == 1
    assert size.series["bare"].code == 0
    assert size.invocations == len(JSON_SCHEMAS)
    assert size.modified == len(size.repo.handoffs) == 16
    found = size.scenario_findings
    assert found["base-one"]["AL601"] == 1 and found["base-many"]["AL601"] == 16
    assert found["plain"]["AL601"] == 0
    assert found["plain"]["AL503"] == found["base-one"]["AL503"] == 2  # injected + stale
    # After the --fix runs, the tree is restored: only the one uncommitted handoff differs.
    status = harness._git(size.repo.root, "status", "--porcelain", "--untracked-files=all")
    assert status.splitlines() == [f" M {size.repo.handoffs[15]}"]
    assert results.imports is not None and results.imports.files > 100
    assert "jsonschema_rs" in dict(results.imports.packages)
    assert len(results.startup["agent-lint --version"].samples) == 2
    assert results.locate is not None and results.locate["entries"] == 300
    assert results.locate["span"] == [2094, 15, 2094, 47]  # /decisions/298/path

    text = report.render(results)
    headings = ("## Machine", "## Targets", "## By size", "## Start-up", "## Imports")
    for heading in (*headings, "## Placing a finding"):
        assert heading in text
    assert "### 100 records" in text and "exactly the injected defects" in text
    assert "check-jsonschema flags 1 file(s): those of the schema defects" in text
    assert "`--base`, 16 modified handoffs" in text and "agent-lint warm |" in text
    assert "agent-lint cold, one process (`--jobs 1`) |" in text
    assert "agent-lint warm, one file edited |" in text
    rows = {t.name: t for t in report.targets(results)}
    assert rows["100-record run / one check-jsonschema run"].met in ("met", "not met")
    assert rows["10k cold / bare parse"].met == "n/a"
    assert rows["`--fix` / plain run"].value is not None
    assert results.command in text and os.path.basename(wrapper) in text


def _series(wall: float, cpu: float) -> Series:
    series = Series("x", [])
    series.samples.append(Sample(wall, 50_000_000, 0, cpu))
    return series


def test_report_without_scenarios_or_cache(tmp_path: Path) -> None:
    """Targets and tables from given measurements, a size without git scenarios, no cache."""
    repo = generate(tmp_path / "repo", 100)
    size = harness.SizeResult(
        records=10_000,
        repo=repo,
        kinds=harness._kinds(repo),
        invocations=3,
        series={"cold": _series(2.0, 1.0), "peer": _series(4.0, 4.0), "bare": _series(1.0, 0.5)},
        findings=Counter(),
        parsers="orjson and yaml.CSafeLoader: 1 files",
        peer_flagged=set(),
    )
    tools = harness.Tools("python", "agent-lint", "check-jsonschema", ())
    results = harness.Results("cmd", 1, 1, 1, 0, 0, {"CPU": "x"}, {"agent-lint": "0"}, tools)
    results.sizes.append(size)
    text = report.render(results)
    assert "agent-lint has no cache yet" in text and "in git" not in text
    assert "scenarios were not run at this size" in text
    rows = {t.name: t for t in report.targets(results)}
    assert rows["10k cold / bare parse"].shown == "2.00× (CPU 2.00×)"
    assert rows["10k cold / bare parse"].met == "not met"
    assert rows["10k cold / check-jsonschema"].shown == "0.50× (CPU 0.25×)"
    assert rows["10k warm / check-jsonschema"].shown == "n/a (no cache)"
    assert rows["`--base` overhead, 1 modified handoff"].met == "n/a"
    assert rows["100k time / 10k time (cold)"].met == "n/a"
    row = "| 10,000 | 128 | 2.000 | 2.00× (2.00×) | 0.50× (0.25×) | n/a | n/a | n/a | n/a | 50 |"
    assert row in text
    size.series["warm"] = _series(0.2, 0.1)
    rows = {t.name: t for t in report.targets(results)}
    assert rows["10k warm / check-jsonschema"].shown == "0.05× (CPU 0.03×)"
    assert rows["10k warm / check-jsonschema"].met == "met"
    locate = "one finding in a 100k-entry index located"
    assert rows[locate].met == "n/a"
    results.locate = {
        "entries": 100_000,
        "bytes": 22_800_000,
        "pointer": "/decisions/99998/path",
        "locate_ms": 40.0,
        "parse_ms": 200.0,
        "locate_runs_ms": [40.0],
    }
    rows = {t.name: t for t in report.targets(results)}
    assert rows[locate].shown == "40 ms (0.20× a json.loads of the file)"
    assert rows[locate].met == "met"
    assert "## Placing a finding" in report.render(results)
    results.note = "The machine was shared with other work during this run."
    assert "\n\nThe machine was shared with other work during this run.\n\n" in report.render(
        results
    )


def test_generator_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert generate_main([str(tmp_path / "repo"), "--records", "120", "--defects", "1"]) == 0
    out = capsys.readouterr().out
    # 128 files less the handoff note an ordering defect removes.
    assert out.startswith("127 files in 2 clusters") and out.count("\n  AL") == 5

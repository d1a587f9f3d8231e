"""Start-up: a command imports only what it uses.

``--version`` and ``--help`` load no part of the engine; a run over clean
records never loads the detailed schema engine (jsonschema, referencing,
attrs), which only explains an invalid record.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_lint.cli import OUTPUT_FORMATS
from agent_lint.reporters import REPORTERS

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.generate import generate  # noqa: E402

#: Packages only the explaining path needs.
DETAILED = ("jsonschema", "referencing", "attr", "attrs", "rpds")

_PROBE = """
import json, sys
from agent_lint.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _imported(*argv: str) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"])


def test_output_formats_are_the_reporters() -> None:
    assert list(OUTPUT_FORMATS) == sorted(REPORTERS)


@pytest.mark.parametrize("option", ["--version", "--help"])
def test_version_and_help_load_nothing_of_the_engine(option: str) -> None:
    code, modules = _imported(option)
    assert code == 0
    ours = {m for m in modules if m.startswith("agent_lint")}
    assert ours == {"agent_lint", "agent_lint.cli"}
    assert not {m.split(".")[0] for m in modules} & {*DETAILED, "ruamel", "jsonschema_rs"}
    # Modules a bare interpreter does not load and parsing the command line does not need.
    assert not modules & {"pathlib", "typing", "shutil", "subprocess"}


def test_help_wraps_as_argparse_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """The width is found without shutil, exactly as argparse's default finds it."""
    import argparse

    from agent_lint import cli

    for columns in ("60", "120", "not a number"):
        monkeypatch.setenv("COLUMNS", columns)
        ours = cli.build_parser().format_help()
        with monkeypatch.context() as patch:
            patch.setattr(cli, "_formatter", argparse.HelpFormatter)
            theirs = cli.build_parser().format_help()
        assert ours == theirs
    assert max(len(line) for line in ours.splitlines()) <= 80


def test_a_clean_run_never_loads_the_detailed_schema_engine(tmp_path: Path) -> None:
    repo = generate(tmp_path / "repo", 120)
    code, modules = _imported(str(repo.root))
    assert code == 0
    assert not {m.split(".")[0] for m in modules} & set(DETAILED)


#: What a clean run in a git work tree does without: the append-only gate and git's
#: plumbing (no base, and no broken path asks git where a record stands), the fixer
#: and the profiles' fix planners (nothing to fix), the reporters of other formats,
#: the baseline (none given), the cache (``--no-cache``), the pure-Python YAML reader
#: (libyaml reads every document), a configuration reader (no configuration file),
#: did-you-mean matching (nothing is misspelt) and the modules only these need.
UNUSED_BY_A_CLEAN_RUN = (
    "agent_lint.baseline",
    "agent_lint.cache",
    "agent_lint.reporters.github",
    "agent_lint.reporters.json_format",
    "agent_lint.reporters.sarif",
    "agent_lint.fixer",
    "agent_lint.jsonedit",
    "agent_lint.profiles.cortex.fixes",
    "agent_lint.profiles.astrion.fixes",
    "agent_lint.gitgate",
    "agent_lint.gitgate.checks",
    "agent_lint.gitgate.snapshots",
    "agent_lint.gittree",
    "agent_lint.gitplumbing",
    "agent_lint.reporters.diff",
    "agent_lint.reporters.summary",
    "agent_lint.yamlpure",
    "ruamel",
    "ruamel.yaml",
    "tomllib",
    "tempfile",
    "subprocess",
    "importlib.resources",
    "difflib",
)


def test_a_clean_run_loads_nothing_it_does_not_use(tmp_path: Path) -> None:
    repo = generate(tmp_path / "repo", 120)
    subprocess.run(["git", "init", "-q", str(repo.root)], check=True)
    code, modules = _imported("--no-cache", str(repo.root))
    assert code == 0
    assert not modules & set(UNUSED_BY_A_CLEAN_RUN)


def test_a_cortex_run_loads_no_other_profile(tmp_path: Path) -> None:
    """Detection reads the other profiles' outlines only: none of their kinds, checks or facts."""
    repo = generate(tmp_path / "repo", 120, {"schema": 1, "agreement": 1})
    for argv in (["--no-cache", str(repo.root)], ["--output-format", "json", str(repo.root)]):
        code, modules = _imported(*argv)
        assert code == 1
        assert "agent_lint.profiles.cortex.profile" in modules
        others = {
            m
            for m in modules
            if m.startswith(("agent_lint.profiles.astrion.", "agent_lint.profiles.personal_bot."))
        }
        assert others == set()
    # The SARIF rules table lists every rule: there every profile is loaded.
    code, modules = _imported("--output-format", "sarif", str(repo.root))
    assert code == 1
    assert {
        "agent_lint.profiles.astrion.profile",
        "agent_lint.profiles.personal_bot.profile",
    } <= modules


def test_a_warm_run_loads_no_parser_or_schema_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files whose outcomes come from the cache are neither parsed nor validated: PyYAML and
    the fast schema engine are not even imported."""
    monkeypatch.delenv("AGENT_LINT_NO_CACHE", raising=False)
    repo = generate(tmp_path / "repo", 120)
    cache = str(tmp_path / "cache")
    assert _imported("--cache-dir", cache, str(repo.root))[0] == 0
    code, modules = _imported("--cache-dir", cache, str(repo.root))
    assert code == 0
    assert not {m.split(".")[0] for m in modules} & {"yaml", "jsonschema_rs", *DETAILED}


def test_a_run_loads_what_its_findings_need(tmp_path: Path) -> None:
    """A fixable finding loads the fixer; ``--diff`` its reporter; the lazy imports resolve."""
    repo = generate(tmp_path / "repo", 120, {"agreement": 1})
    code, modules = _imported("--no-cache", str(repo.root))
    assert code == 1
    assert {"agent_lint.fixer", "agent_lint.profiles.cortex.fixes"} <= modules
    assert "tempfile" not in modules  # planning a fix writes nothing
    code, modules = _imported("--no-cache", "--diff", str(repo.root))
    assert code == 1
    assert "agent_lint.reporters.diff" in modules


def test_a_fix_that_writes_loads_no_temporary_file_module(tmp_path: Path) -> None:
    """``--fix`` creates its temporary files itself: neither tempfile nor shutil is loaded."""
    repo = generate(tmp_path / "repo", 120, {"agreement": 1})
    code, modules = _imported("--no-cache", "--fix", str(repo.root))
    assert code == 0
    assert not modules & {"tempfile", "shutil"}
    assert _imported("--no-cache", str(repo.root))[0] == 0  # it was fixed


def test_only_the_configuration_keeps_a_repr_of_its_own() -> None:
    """The cache keys a run by ``repr`` of its configuration: those classes keep theirs.

    The values a run makes by the thousand skip the generated ``__repr__`` (and
    ``__eq__`` where nothing compares them): creating those methods was a good part
    of the engine's start-up.
    """
    from agent_lint.config import Config, Limits, UserIndex, UserKind, UserReference
    from agent_lint.diagnostics import Diagnostic

    for cls in (Config, Limits, UserIndex, UserKind, UserReference):
        assert vars(cls)["__repr__"] is not object.__repr__
    assert repr(Config()).startswith("Config(select=('AL',), ")
    assert "Limits(max_file_bytes=" in repr(Config())
    assert issubclass(Diagnostic, tuple)  # a named tuple: one per finding


def test_the_engine_compiles_the_methods_of_few_dataclasses() -> None:
    """``@frozen`` and ``@record`` classes share their methods: a plain run compiles the
    generated methods of the few dataclasses that are built per file or per finding."""
    code = (
        "import dataclasses, sys\n"
        "made = []\n"
        "real = dataclasses._process_class\n"
        "dataclasses._process_class = lambda cls, *a: made.append(cls) or real(cls, *a)\n"
        "from agent_lint import cli, linter\n"
        "from agent_lint.profiles import get\n"
        "get('cortex')\n"
        "print(len(made))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(done.stdout) <= 6, done.stdout


def test_an_invalid_record_is_explained_by_the_detailed_engine(tmp_path: Path) -> None:
    """A misspelt field alone is explained without it; any other fault loads it."""
    repo = generate(tmp_path / "repo", 120, {"schema": 1})
    code, modules = _imported("--no-cache", str(repo.root))
    assert code == 1
    assert not {m.split(".")[0] for m in modules} & set(DETAILED)
    decision = sorted((repo.root / ".agent" / "decisions").glob("D-*.json"))[0]
    record = json.loads(decision.read_text(encoding="utf-8"))
    decision.write_text(json.dumps({**record, "status": 7}), encoding="utf-8")
    code, modules = _imported("--no-cache", str(repo.root))
    assert code == 1
    assert "jsonschema" in modules


def test_the_collector_is_tuned_for_the_run_and_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from agent_lint import linter
    from agent_lint.discovery import find_target

    seen: list[tuple[int, ...]] = []
    real = linter._lint_target

    def spy(*args: object) -> linter.LintResult:
        seen.append(gc.get_threshold())
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(linter, "_lint_target", spy)
    before = gc.get_threshold()
    repo = generate(tmp_path / "repo", 120)
    result = linter.lint_target(find_target(repo.root))
    assert not result.diagnostics
    assert seen == [linter.RUN_GC_THRESHOLD]
    assert gc.get_threshold() == before


def test_the_engine_loads_with_the_collector_off_and_the_pass_collects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Start-up makes no garbage: the collector is off until the lint pass checks a file,
    and does not walk what start-up loaded (frozen); everything is restored when the
    command ends."""
    import gc

    from agent_lint import cli, linter

    seen: dict[str, object] = {}
    real_find, real_pass, real_check = linter.find_target, linter._lint_target, linter.check_file

    def find(*args: object) -> object:
        seen["start-up"] = gc.isenabled()
        return real_find(*args)  # type: ignore[arg-type]

    def lint_pass(*args: object) -> linter.LintResult:
        seen["pass"] = (gc.isenabled(), gc.get_freeze_count() > 0, gc.get_threshold())
        return real_pass(*args)  # type: ignore[arg-type]

    def check(*args: object, **kwargs: object) -> object:
        seen["check"] = gc.isenabled()
        return real_check(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(linter, "find_target", find)
    monkeypatch.setattr(linter, "_lint_target", lint_pass)
    monkeypatch.setattr(linter, "check_file", check)
    repo = generate(tmp_path / "repo", 120)
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    assert gc.isenabled()
    assert cli.main(["--no-cache", "-q", str(repo.root)]) == 0
    assert seen == {
        "start-up": False,
        "pass": (False, True, linter.RUN_GC_THRESHOLD),
        "check": True,
    }
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    assert gc.get_threshold() == threshold


def test_the_command_leaves_what_it_made_out_of_the_last_collection(tmp_path: Path) -> None:
    """Run as the command, the run's objects are frozen at its end (the collection at exit
    would only walk them); called with arguments, as a library or a test does, nothing is."""
    import gc

    from agent_lint.cli import main

    repo = generate(tmp_path / "repo", 20)
    probe = (
        "import gc, sys\n"
        "from agent_lint.cli import main\n"
        "code = main()\n"
        "print(gc.get_freeze_count() > 0, gc.isenabled(), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "--no-cache", "--quiet", str(repo.root)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.split() == ["True", "True"]
    frozen_before = gc.get_freeze_count()
    assert main(["--no-cache", "--quiet", str(repo.root)]) == 0
    assert gc.get_freeze_count() == frozen_before

"""Every command and configuration block of the README is run by a test.

The blocks are read from README.md itself, so the README cannot drift from
what agent-lint does. ``CHECKED`` names, for each block, the test that runs
it; a block added, removed or moved without its test fails
``test_every_block_is_run``.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import CACHE, FIXTURES, REPO, provisioned, write_tree

from agent_lint.cli import build_parser, main
from agent_lint.config import LIMITS, load_config

README = (REPO / "README.md").read_text(encoding="utf-8")
_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w*)\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
_HEADING = re.compile(r"^(#{2,3}) (.+)$", re.M)
_COPY = shutil.ignore_patterns(
    ".git", ".venv", ".cache", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
    "build", "dist", "*.egg-info", ".hypothesis",
)  # fmt: skip


@dataclass(frozen=True)
class Block:
    """A fenced block of the README: its section, language, place in the section and text."""

    section: str
    language: str
    number: int
    text: str

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.section, self.language, self.number)


def blocks() -> list[Block]:
    """Every fenced block, with the heading it stands under (numbered per section)."""
    headings = [(m.start(), m.group(2)) for m in _HEADING.finditer(README)]
    found: list[Block] = []
    counts: dict[tuple[str, str], int] = {}
    for match in _FENCE.finditer(README):
        section = [title for start, title in headings if start < match.start()][-1]
        language = match.group("lang")
        number = counts.get((section, language), 0) + 1
        counts[(section, language)] = number
        indent = len(match.group("indent"))
        text = "".join(line[indent:] + "\n" for line in match.group("body").splitlines())
        found.append(Block(section, language, number, text))
    return found


def block(section: str, language: str, number: int = 1) -> str:
    """The text of one block."""
    [found] = [b for b in blocks() if b.key == (section, language, number)]
    return found.text


#: Each block and the test that runs it ("illustration" for the one drawing).
CHECKED: dict[tuple[str, str, int], str] = {
    ("Quick start", "sh", 1): "test_readme::test_quick_start_installs_and_shows_findings",
    ("Quick start", "text", 1): "test_readme::test_quick_start_installs_and_shows_findings",
    ("Quick start", "sh", 2): "test_readme::test_pipx_installs_the_command",
    ("Quick start", "sh", 3): "test_readme::test_test_command_is_what_ci_runs",
    ("The merge gate", "text", 1): "illustration",
    ("pre-commit", "yaml", 1): "test_pre_commit::test_real_pre_commit_blocks_fixes_and_passes",
    ("pre-commit", "yaml", 2): "test_pre_commit::test_the_hooks_for_a_subfolder_store_check_it",
    ("GitHub Action", "yaml", 1): "test_action::test_actionlint_and_zizmor_are_clean",
    ("Configuration", "toml", 1): "test_readme::test_full_configuration_is_valid_and_useful",
    ("Configuration", "toml", 2): "test_readme::test_limits_example_shows_every_default",
    ("Configuration", "toml", 3): "test_readme::test_user_schema_example_extends_the_bundled_one",
    ("Configuration", "json", 1): "test_readme::test_user_schema_example_extends_the_bundled_one",
    ("Partial snapshots", "text", 1): "test_adoption::test_partial_snapshot_example_is_real_output",
    ("Layouts that are not this one", "text", 1): (
        "test_adoption::test_foreign_layout_notice_is_real_output"
    ),
    ("Adopting agent-lint on an existing repository", "sh", 1): (
        "test_adoption::test_new_only_route_works_when_copied"
    ),
    ("Adopting agent-lint on an existing repository", "sh", 2): (
        "test_adoption::test_adoption_section_works_when_copied"
    ),
    ("Command line", "text", 1): "test_readme::test_synopsis_lists_every_option",
    ("Output formats", "json", 1): "test_readme::test_json_example_has_the_real_fields",
    ("Project layout", "text", 1): "test_readme::test_project_layout_names_every_module",
    ("Speed", "sh", 1): "test_readme::test_speed_command_runs",
    ("Speed", "sh", 2): "test_readme::test_results_were_measured_by_the_readme_command",
}


def test_every_block_is_run():
    assert sorted(b.key for b in blocks()) == sorted(CHECKED)
    for test in set(CHECKED.values()) - {"illustration"}:
        module, _, name = test.partition("::")
        assert callable(getattr(importlib.import_module(module), name)), test


def _copy_of_this_repository(tmp_path: Path) -> Path:
    source = tmp_path / "agent-lint"
    shutil.copytree(REPO, source, ignore=_COPY, symlinks=True)
    return source


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a user's shell, installing from the provisioned wheels."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "GITHUB_ACTIONS")}
    env.update(
        HOME=str(tmp_path),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(provisioned("AGENT_LINT_WHEELHOUSE", CACHE / "wheelhouse")),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    return env


def _run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _shows(example: str, output: str) -> None:
    """Every line of an example output is in the real output, and the last line is the last."""
    lines = output.splitlines()
    shown = [line for line in example.splitlines() if line not in ("...", "…")]
    assert shown and all(line in lines for line in shown), output
    assert lines[-1] == shown[-1]


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="the block is a POSIX shell session")
def test_quick_start_installs_and_shows_findings(tmp_path):
    source = _copy_of_this_repository(tmp_path)
    done = _run(block("Quick start", "sh", 1), source, _offline_env(tmp_path))
    assert done.returncode == 1, done.stderr[-3000:]  # findings: the example is broken
    _shows(block("Quick start", "text", 1), done.stdout)
    assert (source / ".venv/bin/agent-lint").is_file()


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="the block is a POSIX shell session")
def test_pipx_installs_the_command(tmp_path):
    if shutil.which("pipx", path=str(Path(sys.executable).parent)) is None:
        pytest.fail("pipx is not installed (it comes with the test extras)")
    source = _copy_of_this_repository(tmp_path)
    env = _offline_env(tmp_path)
    home = tmp_path / "pipx"
    env.update(PIPX_HOME=str(home), PIPX_BIN_DIR=str(tmp_path / "bin"))
    env["PIPX_MAN_DIR"] = str(tmp_path / "man")
    # pipx keeps pip in a shared environment and upgrades it from the index on first
    # use; offline, that environment is made here (a fresh one is not upgraded).
    venv.create(home / "shared", with_pip=True)
    done = _run(block("Quick start", "sh", 2), source, env)
    assert done.returncode == 0, done.stdout + done.stderr
    run = subprocess.run(
        [str(tmp_path / "bin" / "agent-lint"), "fixtures/cortex/broken-schema", "--no-color"],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert run.stdout.splitlines()[-1] == block("Quick start", "text", 1).splitlines()[-1]


def test_test_command_is_what_ci_runs():
    command = block("Quick start", "sh", 3).strip()
    assert command == (
        "python -m pip install -e '.[test]' && python tests/provision.py "
        "&& python -m pytest -n auto --dist loadfile"
    )
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci  # .ci/run runs the README's test command, verbatim


def test_full_configuration_is_valid_and_useful(tmp_path, capsys):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".agent-lint.toml").write_text(block("Configuration", "toml", 1))
    config = load_config(repo)
    assert config.base is None  # a local run stays a local run
    assert config.schema_dirs == ()
    assert main([str(repo), "--no-color"]) == 0
    capsys.readouterr()
    # What it sets takes effect: AL005 is ignored, AL107 is a warning, M-legacy is spared AL1.
    decision = (repo / ".agent/decisions/D-002.json").read_bytes()
    (repo / ".agent/decisions/D-002.json").write_bytes(b"\xef\xbb\xbf" + decision)
    contract = json.loads((repo / ".agent/missions/M-001/validation-contract.json").read_text())
    contract.update(mission_id="M-legacy", reviewed_by="someone")  # an unknown field: AL102
    write_tree(repo / ".agent", {"missions/M-legacy/validation-contract.json": contract})
    waitpoint = json.loads((repo / ".agent/waitpoints/WP-002.json").read_text())
    waitpoint["relations"]["artifact_refs"] *= 2  # repeated items: AL107
    (repo / ".agent/waitpoints/WP-002.json").write_text(json.dumps(waitpoint, indent=2))
    main([str(repo), "--no-color", "--output-format", "json"])
    found = {(d["code"], d["severity"]) for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert found == {("AL107", "warning")}
    (repo / ".agent-lint.toml").unlink()  # without it, the same files give three findings
    main([str(repo), "--no-color", "--output-format", "json"])
    found = {(d["code"], d["severity"]) for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert found == {("AL005", "warning"), ("AL102", "error"), ("AL107", "error")}


def test_limits_example_shows_every_default(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".agent").mkdir(parents=True)
    (repo / ".agent-lint.toml").write_text(block("Configuration", "toml", 2))
    config = load_config(repo)
    shown = {key.replace("-", "_"): limit.default for key, limit in LIMITS.items()}
    assert config.limits.__dict__ == shown


def test_user_schema_example_extends_the_bundled_one(tmp_path, capsys):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".agent-lint.toml").write_text(block("Configuration", "toml", 3))
    write_tree(repo, {"tools/schemas/decision.schema.json": block("Configuration", "json", 1)})
    assert main([str(repo), "--no-color"]) == 0
    capsys.readouterr()
    path = repo / ".agent/decisions/D-002.json"
    path.write_text(path.read_text().replace('"cortex-main"', '"someone-else"', 1))
    assert main([str(repo), "--no-color"]) == 1
    [line] = [x for x in capsys.readouterr().out.splitlines() if "D-002.json" in x]
    assert "AL104" in line and "requested_by" in line


def test_synopsis_lists_every_option():
    shown = set(re.findall(r"\[(--[a-z-]+)", block("Command line", "text", 1)))
    parser = build_parser()
    options = {
        option
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and option not in ("--help", "--version")
    }
    assert shown == options


def test_json_example_has_the_real_fields(capsys):
    example = json.loads(block("Output formats", "json", 1).replace("…", ""))
    main([str(FIXTURES / "broken-schema"), "--output-format", "json"])
    real = json.loads(capsys.readouterr().out)
    assert set(example) <= set(real) and set(real) - set(example) <= {"notices"}
    assert set(example["diagnostics"][0]) == set(real["diagnostics"][0])
    assert set(example["summary"]) == set(real["summary"])


def test_project_layout_names_every_module():
    listed: set[str] = set()
    folder = ""
    for line in block("Project layout", "text", 1).splitlines():
        indent = len(line) - len(line.lstrip())
        if not line.strip() or indent > 2:
            continue  # a wrapped description
        name = line.split()[0]
        path = name if indent == 0 else folder + name
        if indent == 0 and name.endswith("/"):
            folder = name
        assert (REPO / path).exists(), path
        listed.add(path.rstrip("/"))
    modules = {
        f"agent_lint/{p.name}"
        for p in (REPO / "agent_lint").iterdir()
        if p.name not in ("__init__.py", "__main__.py", "__pycache__")
    }
    assert modules <= listed, modules - listed


@pytest.mark.slow
def test_speed_command_runs(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = _run(block("Speed", "sh", 1), tmp_path, env)
    assert done.returncode == 0, done.stderr[-3000:]
    report = (tmp_path / "speed.md").read_text(encoding="utf-8")
    assert "## By size" in report and "check-jsonschema" in report


def test_results_were_measured_by_the_readme_command():
    results = (REPO / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    command = block("Speed", "sh", 2).strip()
    assert f"```sh\npython -m pip install -e '.[test,bench]'\n{command}\n```" in results

"""The composite GitHub Action: its metadata, the README workflow, and its steps run locally."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from gitrepo import git, make_repo
from ruamel.yaml import YAML

ACTION = YAML(typ="safe").load((REPO / "action.yml").read_text(encoding="utf-8"))
README = (REPO / "README.md").read_text(encoding="utf-8")
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
CONV = ".agent/conversations/C-payments-refactor"


def readme_workflow() -> str:
    """The complete workflow example of the README (the yaml block that starts with name:)."""
    blocks = re.findall(r"```yaml\n(.*?)```", README, flags=re.S)
    [workflow] = [b for b in blocks if b.startswith("name: agent-lint") and "jobs:" in b]
    return workflow


def test_action_validates_against_the_published_schema():
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions",
         str(REPO / "action.yml")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_run_scripts_never_interpolate_expressions():
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]


def test_every_uses_is_pinned_to_a_commit():
    uses = [s["uses"] for s in ACTION["runs"]["steps"] if "uses" in s]
    uses += re.findall(r"uses: (\S+)", readme_workflow())
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u) for u in uses), uses


def test_readme_workflow_settings():
    workflow = YAML(typ="safe").load(readme_workflow())
    assert workflow["permissions"] == {}
    [job] = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    checkout = job["steps"][0]
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed (it comes with the test extras)")
    return found


def test_actionlint_and_zizmor_are_clean(tmp_path):
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "agent-lint.yml").write_text(readme_workflow())
    shutil.copy(REPO / "action.yml", tmp_path / "action.yml")
    lint = subprocess.run(
        [_tool("actionlint"), "-no-color", str(workflows / "agent-lint.yml")],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert lint.returncode == 0, lint.stdout + lint.stderr
    audit = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", str(tmp_path / "action.yml"),
         str(workflows / "agent-lint.yml")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "No findings" in audit.stdout


class Runner:
    """Runs the action's steps like GitHub does, with its environment files."""

    def __init__(self, tmp_path: Path, workspace: Path, inputs: dict[str, str]) -> None:
        self.tmp = tmp_path
        self.workspace = workspace
        self.inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
        self.inputs.update(inputs)
        self.outputs: dict[str, dict[str, str]] = {"python": {"python-path": sys.executable}}
        self.summary = tmp_path / "step-summary.md"
        self.summary.write_text("")
        (tmp_path / "runner").mkdir(exist_ok=True)

    def value(self, expression: str) -> str:
        scope, _, rest = expression.partition(".")
        if scope == "inputs":
            return self.inputs[rest]
        if scope == "github" and rest == "action_path":
            return str(REPO)
        if scope == "steps":
            step, _, output = rest.partition(".outputs.")
            return self.outputs.get(step, {}).get(output, "")
        raise AssertionError(f"unexpected expression {expression}")

    def run(
        self, step: dict[str, Any], extra_env: dict[str, str]
    ) -> subprocess.CompletedProcess[str]:
        output = self.tmp / f"output-{step['id']}"
        output.write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(
            GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(self.summary),
            GITHUB_BASE_REF="main", GITHUB_WORKSPACE=str(self.workspace),
            RUNNER_TEMP=str(self.tmp / "runner"), **extra_env,
        )  # fmt: skip
        for name, raw in step.get("env", {}).items():
            env[name] = EXPRESSION.sub(lambda m: self.value(m.group(1)), str(raw))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=self.workspace, env=env, capture_output=True, text=True,
        )  # fmt: skip
        self.outputs[step["id"]] = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        return done


def _pip_offline() -> dict[str, str]:
    location = os.environ.get("AGENT_LINT_WHEELHOUSE")
    if not location or not Path(location).is_dir():
        if os.environ.get("AGENT_LINT_REQUIRE_WHEELHOUSE"):
            pytest.fail("AGENT_LINT_WHEELHOUSE must name a folder of wheels (see .ci/run)")
        pytest.skip("set AGENT_LINT_WHEELHOUSE to a folder of dependency wheels (see .ci/run)")
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": location}


def test_action_steps_produce_annotations_summary_and_sarif(tmp_path):
    pip = _pip_offline()
    repo = make_repo(tmp_path)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    steps = {step["id"]: step for step in ACTION["runs"]["steps"]}
    runner = Runner(tmp_path, repo, {"sarif-file": "agent-lint.sarif"})

    installed = runner.run(steps["install"], pip)
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert Path(runner.outputs["install"]["bin"], "agent-lint").is_file()

    clean = runner.run(steps["lint"], {})
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert runner.outputs["lint"] == {"exit-code": "0"}
    assert "All checks passed" in runner.summary.read_text()

    # A pull request that rewrites a merged handoff and breaks the chain.
    handoff = repo / CONV / "handoffs/H-002.json"
    record = json.loads(handoff.read_text())
    record["from_agent"]["agent_id"] = "someone-else"
    handoff.write_text(json.dumps(record, indent=2) + "\n")
    runner.summary.write_text("")
    failed = runner.run(steps["lint"], {})
    assert failed.returncode == 1
    assert runner.outputs["lint"] == {"exit-code": "1"}
    annotations = failed.stdout.splitlines()
    assert any(
        a.startswith(f"::error file={CONV}/handoffs/H-002.json,line=") and "title=AL601" in a
        for a in annotations
    )
    assert any("title=AL404" in a for a in annotations)
    summary = runner.summary.read_text()
    assert "| AL601 | handoff-modified |" in summary and "| AL404 |" in summary
    assert "### Handoff chain of C-payments-refactor" in summary
    chain = summary.split("### Handoff chain of C-payments-refactor", 1)[1]
    assert "```mermaid" in chain and "chain broken before H-002" in chain and "linkStyle" in chain
    assert "C-onboarding" not in summary  # only changed conversations are drawn
    sarif = json.loads((repo / "agent-lint.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"AL601", "AL404"}

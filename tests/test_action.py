"""The composite GitHub Action: its metadata, the README workflow, and its steps run locally.

The steps' scripts run as GitHub runs them (bash, the environment files,
expressions only through ``env``), installing agent-lint offline from the
wheelhouse that ``tests/provision.py`` fills.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import CACHE, REPO, provisioned
from gitrepo import (
    CONV,
    ENV,
    add_conversation_handoff,
    change_meeting_an_old_commit_first,
    commit_all,
    edit,
    git,
    make_repo,
)
from ruamel.yaml import YAML

ACTION = YAML(typ="safe").load((REPO / "action.yml").read_text(encoding="utf-8"))
README = (REPO / "README.md").read_text(encoding="utf-8")
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
STEPS = {step.get("id", step["name"]): step for step in ACTION["runs"]["steps"]}


PLACEHOLDER = "agent-lint/agent-lint@<release-commit-sha>"


def readme_workflow() -> str:
    """The complete workflow example of the README (the yaml block that starts with name:)."""
    blocks = re.findall(r"```yaml\n(.*?)```", README, flags=re.S)
    [workflow] = [b for b in blocks if b.startswith("name: agent-lint") and "jobs:" in b]
    return str(workflow)


def pinned_workflow() -> str:
    """The README workflow as a user pins it: the placeholder replaced by a release commit."""
    return readme_workflow().replace(PLACEHOLDER, "agent-lint/agent-lint@" + "5" * 40)


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
    uses += re.findall(r"uses: (\S+)", pinned_workflow())
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u) for u in uses), uses


def test_the_readme_pins_agent_lint_with_an_obvious_placeholder():
    """Copied as is, the workflow names no commit that exists; the text says what to pin."""
    workflow = readme_workflow()
    assert re.findall(r"agent-lint/agent-lint@\S+", workflow) == [PLACEHOLDER]
    before = README[: README.index(workflow)]
    assert "Replace `<release-commit-sha>` with the full commit id of the" in before


def test_outputs():
    assert set(ACTION["outputs"]) == {"exit-code", "errors", "warnings", "sarif-file"}


def test_readme_workflow_settings():
    workflow = YAML(typ="safe").load(readme_workflow())
    assert set(workflow["on"]) == {"pull_request", "merge_group"}
    assert workflow["permissions"] == {}
    [job] = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    checkout = job["steps"][0]
    assert checkout["with"] == {"persist-credentials": False}  # the action fetches the rest
    # The report is uploaded from where the action wrote it ($RUNNER_TEMP), never from a
    # path in the checkout, where the change could plant forged results.
    lint, upload = job["steps"][1], job["steps"][2]
    assert "with" not in lint or "sarif-file" not in lint["with"]
    assert upload["with"]["sarif_file"] == f"${{{{ steps.{lint['id']}.outputs.sarif-file }}}}"


def test_constraints_pin_every_runtime_dependency():
    from packaging.requirements import Requirement

    pinned = {
        Requirement(line).name.lower().replace("_", "-")
        for line in (REPO / "constraints.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    pyproject = (REPO / "pyproject.toml").read_text()
    import tomllib

    project = tomllib.loads(pyproject)
    needed = [*project["project"]["dependencies"], *project["build-system"]["requires"]]
    names = {Requirement(r).name.lower().replace("_", "-") for r in needed}
    assert names <= pinned, names - pinned
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert re.match(r"^[\w.-]+==[\w.]+(; .+)?$", line), line


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed (it comes with the test extras)")
    return found


def test_actionlint_and_zizmor_are_clean(tmp_path):
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "agent-lint.yml").write_text(pinned_workflow())
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
    """Runs the action's ``run`` steps like GitHub does, with its environment files."""

    def __init__(
        self,
        tmp_path: Path,
        workspace: Path,
        inputs: dict[str, str] | None = None,
        event: dict[str, Any] | None = None,
        event_name: str = "pull_request",
    ) -> None:
        self.tmp = tmp_path
        self.workspace = workspace
        self.inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
        self.inputs.update(inputs or {})
        self.event = event or {}
        self.event_name = event_name
        self.outputs: dict[str, dict[str, str]] = {
            "python": {"python-path": sys.executable, "python-version": "3.x"}
        }
        self.summary = tmp_path / "step-summary.md"
        self.summary.write_text("")
        self.temp = tmp_path / "runner"
        self.temp.mkdir(exist_ok=True)

    def value(self, expression: str) -> str:
        scope, _, rest = expression.partition(".")
        if scope == "inputs":
            return EXPRESSION.sub(lambda m: self.value(m.group(1)), self.inputs[rest])
        if scope == "github":
            if rest == "action_path":
                return str(REPO)
            if rest == "token":
                return ""
            if rest == "event_name":
                return self.event_name
            value: Any = self.event
            for key in rest.removeprefix("event.").split("."):
                value = value.get(key, {}) if isinstance(value, dict) else {}
            return value if isinstance(value, str) else ""
        if scope == "runner":
            return {"temp": str(self.temp), "os": "Linux", "arch": "X64"}[rest]
        if scope == "steps":
            step, _, output = rest.partition(".outputs.")
            return self.outputs.get(step, {}).get(output, "")
        raise AssertionError(f"unexpected expression {expression}")

    def run(self, step_id: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
        step = STEPS[step_id]
        output = self.tmp / f"output-{step_id}"
        output.write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_"))}
        env.update(ENV, HOME=str(self.tmp))
        env.update(
            GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(self.summary),
            GITHUB_WORKSPACE=str(self.workspace), RUNNER_TEMP=str(self.temp), **extra_env,
        )  # fmt: skip
        for name, raw in step.get("env", {}).items():
            env[name] = EXPRESSION.sub(lambda m: self.value(m.group(1)), str(raw))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=self.workspace, env=env, capture_output=True, text=True,
        )  # fmt: skip
        self.outputs[step_id] = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        return done

    def install(self, **extra_env: str) -> None:
        prepared = self.run("prepare")
        assert prepared.returncode == 0, prepared.stderr
        assert re.fullmatch(r"[0-9a-f]{16}", self.outputs["prepare"]["constraints"])
        wheelhouse = provisioned("AGENT_LINT_WHEELHOUSE", CACHE / "wheelhouse")
        installed = self.run(
            "install", PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse), **extra_env
        )
        assert installed.returncode == 0, installed.stderr[-3000:]

    def lint(self) -> subprocess.CompletedProcess[str]:
        fetched = self.run("fetch")
        assert fetched.returncode == 0, fetched.stderr
        return self.run("lint")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, str]:
    """agent-lint installed by the action's own steps, offline; the install step's outputs."""
    tmp = tmp_path_factory.mktemp("action-install")
    runner = Runner(tmp, tmp)
    runner.install()
    return runner.outputs["install"]


def pull_request(repo: Path, base: str = "main") -> dict[str, Any]:
    """The part of a pull_request event the action reads."""
    return {
        "pull_request": {
            "base": {"sha": git(repo, "rev-parse", base)},
            "head": {"sha": git(repo, "rev-parse", "HEAD")},
        }
    }


def _runner(tmp_path, repo, installed, **kw: Any) -> Runner:
    runner = Runner(tmp_path, repo, **kw)
    runner.outputs["install"] = installed
    return runner


def _sarif_schema() -> dict[str, Any]:
    path = provisioned("AGENT_LINT_SARIF_SCHEMA", CACHE / "sarif-schema-2.1.0.json")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_pull_request_annotations_summary_sarif_and_outputs(tmp_path, installed):
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "change")
    clean = _runner(tmp_path, repo, installed, event=pull_request(repo))
    done = clean.lint()
    assert done.returncode == 0, done.stdout + done.stderr
    assert clean.outputs["lint"]["exit-code"] == "0"
    assert (clean.outputs["lint"]["errors"], clean.outputs["lint"]["warnings"]) == ("0", "0")
    assert "All checks passed" in clean.summary.read_text()

    # A pull request that rewrites a merged handoff and breaks the chain.
    handoff = repo / CONV / "handoffs/H-002.json"
    record = json.loads(handoff.read_text())
    record["from_agent"]["agent_id"] = "someone-else"
    handoff.write_text(json.dumps(record, indent=2) + "\n")
    commit_all(repo, "rewrite H-002")
    runner = _runner(tmp_path, repo, installed, event=pull_request(repo))
    failed = runner.lint()
    assert failed.returncode == 1
    outputs = runner.outputs["lint"]
    # One fact, one finding: the broken chain the rewrite causes (AL404) is its AL601.
    assert (outputs["exit-code"], outputs["errors"]) == ("1", "1")
    annotations = failed.stdout.splitlines()
    assert any(
        a.startswith(f"::error file={CONV}/handoffs/H-002.json,line=") and "title=AL601" in a
        for a in annotations
    )
    assert not any("title=AL404" in a for a in annotations)
    summary = runner.summary.read_text()
    assert "| AL601 | handoff-modified |" in summary and "| AL404 |" not in summary
    assert "### Handoff chain of `C-payments-refactor`" in summary
    chain = summary.split("### Handoff chain of `C-payments-refactor`", 1)[1]
    assert "```mermaid" in chain and "chain broken before H-002" in chain and "linkStyle" in chain
    assert "C-onboarding" not in summary  # only changed conversations are drawn
    sarif_path = Path(outputs["sarif-file"])
    assert sarif_path == tmp_path / "runner" / "agent-lint.sarif"
    sarif = json.loads(sarif_path.read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"AL601"}


@pytest.mark.slow
def test_pull_requests_report_only_what_they_add(tmp_path, installed):
    """A repository with drift: the pull request's new problem is the only annotation."""
    repo = make_repo(tmp_path, "real-world")
    git(repo, "checkout", "-q", "-b", "change")
    edit(repo / ".agent/missions/M-007/mission-plan.md", "# ", "[runbook](runbook.md)\n\n# ")
    commit_all(repo, "link a runbook")
    runner = _runner(tmp_path, repo, installed, event=pull_request(repo))
    done = runner.lint()
    assert done.returncode == 1
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert len(annotations) == 1 and "runbook.md" in annotations[0]
    assert "13 findings already present at the merge-base" in done.stdout  # a ::notice
    assert "13 findings already present at the merge-base" in runner.summary.read_text()
    assert runner.outputs["lint"]["errors"] == "1"
    everything = _runner(
        tmp_path, repo, installed, inputs={"new-only": "false"}, event=pull_request(repo)
    )
    done = everything.lint()
    assert everything.outputs["lint"]["errors"] == "10"
    assert "already present" not in done.stdout


@pytest.mark.slow
def test_merge_group_takes_its_base_from_the_event(tmp_path, installed):
    repo = make_repo(tmp_path)
    base = git(repo, "rev-parse", "HEAD")
    edit(repo / CONV / "handoffs/H-001.md", "#", "# rewritten")
    commit_all(repo, "queued change")
    event = {"merge_group": {"base_sha": base, "head_sha": git(repo, "rev-parse", "HEAD")}}
    runner = _runner(tmp_path, repo, installed, event=event, event_name="merge_group")
    done = runner.lint()
    assert done.returncode == 1 and "title=AL601" in done.stdout


@pytest.mark.slow
def test_no_gate_outside_pull_requests(tmp_path, installed):
    repo = make_repo(tmp_path)
    edit(repo / CONV / "handoffs/H-001.md", "#", "# rewritten")
    runner = _runner(tmp_path, repo, installed, event_name="push")
    assert runner.lint().returncode == 0


@pytest.mark.slow
def test_fix_fails_the_step_when_a_file_needed_fixing(tmp_path, installed):
    repo = make_repo(tmp_path)
    state = repo / CONV / "handoffs/state.json"
    state.unlink()
    commit_all(repo, "forgot state.json")
    runner = _runner(tmp_path, repo, installed, inputs={"fix": "true"}, event_name="push")
    done = runner.lint()
    assert done.returncode == 1, done.stdout + done.stderr
    assert runner.outputs["lint"]["exit-code"] == "1"
    assert state.is_file()  # fixed in the checkout only
    assert "::notice title=agent-lint --fix::" in done.stdout
    # Nothing to fix: the step passes.
    commit_all(repo, "state.json")
    again = _runner(tmp_path, repo, installed, inputs={"fix": "true"}, event_name="push")
    assert again.lint().returncode == 0


@pytest.mark.slow
def test_annotations_are_relative_to_the_workspace(tmp_path, installed):
    workspace = tmp_path / "monorepo"
    (workspace / "services").mkdir(parents=True)
    make_repo(tmp_path, name="pay").rename(workspace / "services" / "pay")
    shutil.rmtree(workspace / "services" / "pay" / ".git")
    git(workspace, "init", "-q", "-b", "main")
    commit_all(workspace, "monorepo")
    edit(workspace / "services/pay" / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    commit_all(workspace, "rewrite")
    event = {"pull_request": {"base": {"sha": git(workspace, "rev-parse", "HEAD~1")},
                              "head": {"sha": git(workspace, "rev-parse", "HEAD")}}}  # fmt: skip
    runner = _runner(tmp_path, workspace, installed, inputs={"path": "services/pay"}, event=event)
    done = runner.lint()
    assert done.returncode == 1
    assert f"::error file=services/pay/{CONV}/handoffs/H-002.json,line=17," in done.stdout
    sarif = json.loads(Path(runner.outputs["lint"]["sarif-file"]).read_text())
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert f"services/pay/{CONV}/handoffs/H-002.json" in uris


@pytest.mark.slow
def test_sarif_is_written_when_agent_lint_cannot_run(tmp_path, installed):
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text("no-such-setting = 1\n")
    sarif_path = tmp_path / "report.sarif"
    runner = _runner(
        tmp_path, repo, installed, inputs={"sarif-file": str(sarif_path)}, event_name="push"
    )
    done = runner.lint()
    assert done.returncode == 2
    assert runner.outputs["lint"] == {
        "exit-code": "2", "errors": "0", "warnings": "0", "sarif-file": str(sarif_path)
    }  # fmt: skip
    log = json.loads(sarif_path.read_text())
    schema = _sarif_schema()
    assert list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log)) == []
    [invocation] = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "no-such-setting" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    assert "could not run" in runner.summary.read_text()


def _depth_one_checkout(tmp_path: Path, origin: Path, ref: str) -> Path:
    """A checkout of ``ref`` of ``origin`` at depth 1, as actions/checkout makes it."""
    clone = tmp_path / "checkout"
    git(tmp_path, "init", "-q", str(clone))
    git(clone, "remote", "add", "origin", origin.as_uri())
    git(clone, "fetch", "-q", "--depth=1", "origin", ref)
    git(clone, "checkout", "-q", "--detach", "FETCH_HEAD")
    return clone


@pytest.mark.slow
def test_fetches_only_the_history_a_merge_base_needs(tmp_path, installed):
    """A depth-1 checkout of GitHub's test merge: the action deepens until the bases meet."""
    origin = make_repo(tmp_path, name="origin")
    for number in range(40):
        (origin / "log.txt").write_text(f"{number}\n")
        commit_all(origin, f"main {number}")
    git(origin, "checkout", "-q", "-b", "change")
    add_conversation_handoff(origin, 4)
    commit_all(origin, "H-004")
    edit(origin / CONV / "handoffs/H-001.md", "#", "# rewritten")
    commit_all(origin, "rewrite H-001")
    head = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "main")
    (origin / "log.txt").write_text("after the fork\n")
    base = commit_all(origin, "main moves on")
    git(origin, "checkout", "-q", "--detach", base)
    git(origin, "merge", "-q", "--no-ff", "--no-edit", head)
    git(origin, "update-ref", "refs/pull/1/merge", "HEAD")
    git(origin, "checkout", "-q", "main")
    clone = _depth_one_checkout(tmp_path, origin, "refs/pull/1/merge")
    event = {"pull_request": {"base": {"sha": base}, "head": {"sha": head}}}
    runner = _runner(tmp_path, clone, installed, event=event)
    done = runner.lint()
    assert done.returncode == 1, done.stderr
    assert [line.split(",")[0] for line in done.stdout.splitlines() if "title=AL6" in line] == [
        f"::error file={CONV}/handoffs/H-001.md"
    ]
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    assert int(git(clone, "rev-list", "--count", "--all")) < 40  # not the whole history


def test_fetch_goes_past_an_old_common_commit_to_the_real_merge_base(tmp_path, installed):
    """A checkout of the pull request's head whose change merged an old commit of main: the
    first common commit a shallow fetch meets is that old one; the action fetches on, to
    the merge-base that holds the handoff the change rewrites."""
    origin = make_repo(tmp_path, name="origin")
    head, main_tip = change_meeting_an_old_commit_first(origin)
    git(origin, "update-ref", "refs/pull/1/head", head)
    clone = _depth_one_checkout(tmp_path, origin, "refs/pull/1/head")
    event = {"pull_request": {"base": {"sha": main_tip}, "head": {"sha": head}}}
    runner = _runner(tmp_path, clone, installed, event=event, event_name="pull_request_target")
    done = runner.lint()
    assert done.returncode == 1, done.stdout + done.stderr
    new = ".agent/conversations/C-newconv/handoffs/H-001.json"
    assert [line.split(",")[0] for line in done.stdout.splitlines() if "title=AL6" in line] == [
        f"::error file={new}"
    ]


def _fake_windows_python(tmp_path: Path) -> Path:
    """A Python whose ``-m venv`` lays out a Windows environment (Scripts/python.exe)."""
    script = tmp_path / "windows-python"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "-I" ]; then shift; fi\n'
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then\n'
        f'  "{sys.executable}" -m venv "$3/real" || exit 1\n'
        '  mkdir -p "$3/Scripts"\n'
        '  printf \'#!/bin/sh\\nexec "%s" "$@"\\n\' "$3/real/bin/python" \\\n'
        '    > "$3/Scripts/python.exe"\n'
        '  chmod +x "$3/Scripts/python.exe"\n'
        "  exit 0\n"
        "fi\n"
        f'exec "{sys.executable}" "$@"\n'
    )
    script.chmod(0o755)
    return script


@pytest.mark.slow
def test_windows_virtual_environment_layout(tmp_path):
    runner = Runner(tmp_path, tmp_path)
    runner.outputs["python"]["python-path"] = str(_fake_windows_python(tmp_path))
    runner.install()
    python = Path(runner.outputs["install"]["python"])
    assert python == tmp_path / "runner" / "agent-lint-venv" / "Scripts" / "python.exe"
    repo = make_repo(tmp_path)
    lint = Runner(tmp_path, repo, event_name="push")
    lint.outputs["install"] = runner.outputs["install"]
    done = lint.lint()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lint.outputs["lint"]["exit-code"] == "0"


@pytest.mark.slow
def test_a_base_that_cannot_be_fetched_is_reported_with_sarif(tmp_path, installed):
    repo = make_repo(tmp_path)
    missing = "0123456789abcdef0123456789abcdef01234567"
    event = {"pull_request": {"base": {"sha": missing}, "head": {"sha": missing}}}
    runner = _runner(tmp_path, repo, installed, event=event)
    fetched = runner.run("fetch")
    assert fetched.returncode == 0, fetched.stderr
    assert "::warning title=agent-lint::could not fetch" in fetched.stdout
    done = runner.run("lint")
    assert done.returncode == 2 and runner.outputs["lint"]["exit-code"] == "2"
    log = json.loads(Path(runner.outputs["lint"]["sarif-file"]).read_text())
    [notification] = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert missing in notification["message"]["text"]


def _hostile_clone(tmp_path: Path, change) -> tuple[Path, dict[str, Any]]:
    """A checkout of a pull request whose commit ``change(repo)`` wrote, and its event."""
    origin = make_repo(tmp_path, name="origin")
    git(origin, "checkout", "-q", "-b", "change")
    change(origin)
    commit_all(origin, "innocent change")
    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--branch", "change", origin.as_uri(), str(workspace))
    event = {"pull_request": {"base": {"sha": git(origin, "rev-parse", "main")},
                              "head": {"sha": git(origin, "rev-parse", "change")}}}  # fmt: skip
    return workspace, event


def test_fetch_never_runs_git_in_a_folder_of_the_change(tmp_path):
    """A folder of plain files shaped like a repository, with a program in its config."""
    marker = tmp_path / "a-program-ran"

    def fake_repository(repo: Path) -> None:
        folder = repo / ".agent"
        (folder / "HEAD").write_text("ref: refs/heads/x\n")
        (folder / "objects" / "info").mkdir(parents=True)
        (folder / "objects" / "info" / ".keep").write_text("")
        (folder / "refs" / "heads").mkdir(parents=True)
        (folder / "refs" / "heads" / ".keep").write_text("")
        (folder / "config").write_text(
            "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
            f'\tsshCommand = "env > {marker}; echo"\n'
            '[remote "origin"]\n\turl = ssh://example.invalid/x\n'
        )

    workspace, event = _hostile_clone(tmp_path, fake_repository)
    runner = Runner(tmp_path, workspace, inputs={"path": ".agent", "token": "ghs_SECRET"},
                    event=event)  # fmt: skip
    done = runner.run("fetch")
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert runner.outputs["fetch"]["tip"] == event["pull_request"]["head"]["sha"]


@pytest.mark.slow
def test_no_module_is_ever_imported_from_the_workspace(tmp_path):
    """A pull request that adds agent_lint/, hashlib.py, json.py and venv/ at its root."""
    marker = tmp_path / "pull-request-code-ran"
    code = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"

    def shadows(repo: Path) -> None:
        edit(repo / CONV / "handoffs/H-001.md", "#", "# rewritten")
        (repo / "agent_lint").mkdir()
        (repo / "agent_lint" / "__init__.py").write_text(code)
        (repo / "agent_lint" / "__main__.py").write_text(code + "print('All checks passed')\n")
        (repo / "venv").mkdir()
        (repo / "venv" / "__init__.py").write_text(code)
        (repo / "venv" / "__main__.py").write_text(code)
        for module in ("hashlib", "json", "sitecustomize", "pip"):
            (repo / f"{module}.py").write_text(code)

    workspace, event = _hostile_clone(tmp_path, shadows)
    runner = Runner(tmp_path, workspace, inputs={"sarif-file": "report.sarif"}, event=event)
    runner.install()
    done = runner.lint()
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 1 and "title=AL601" in done.stdout
    outputs = runner.outputs["lint"]
    assert (outputs["exit-code"], outputs["errors"]) == ("1", "1")
    assert outputs["sarif-file"] == f"{workspace}/report.sarif"  # relative to the workspace
    assert (workspace / "report.sarif").is_file()


@pytest.mark.slow
def test_a_checkout_that_is_not_the_pull_request_is_refused(tmp_path, installed):
    """pull_request_target: actions/checkout checks out the base, not the pull request."""
    workspace, event = _hostile_clone(
        tmp_path, lambda repo: edit(repo / CONV / "handoffs/H-001.md", "#", "# rewritten")
    )
    git(workspace, "checkout", "-q", "main")
    runner = _runner(tmp_path, workspace, installed, event=event,
                     event_name="pull_request_target")  # fmt: skip
    done = runner.lint()
    assert done.returncode == 2, done.stdout + done.stderr
    log = json.loads(Path(runner.outputs["lint"]["sarif-file"]).read_text())
    [notification] = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    text = notification["message"]["text"]
    assert "the checkout is not the change under review" in text
    assert "pull_request_target" in text
    # Checking out the pull request's head, as the error says, runs the gate.
    git(workspace, "checkout", "-q", event["pull_request"]["head"]["sha"])
    again = _runner(tmp_path, workspace, installed, event=event,
                    event_name="pull_request_target")  # fmt: skip
    done = again.lint()
    assert done.returncode == 1 and "title=AL601" in done.stdout

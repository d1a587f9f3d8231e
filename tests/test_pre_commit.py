"""The pre-commit hooks, run by the real pre-commit on real commits."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CACHE, FIXTURES, REPO, provisioned
from gitrepo import ENV, git, make_repo
from ruamel.yaml import YAML

from agent_lint.profiles.cortex.checksum import compute

HOOKS = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
CONV = ".agent/conversations/C-payments-refactor"
_IGNORE = shutil.ignore_patterns(
    ".git", ".venv", ".cache", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
    "build", "dist", "*.egg-info", ".hypothesis",
)  # fmt: skip


README = (REPO / "README.md").read_text(encoding="utf-8")


def readme_config() -> str:
    """The README's recommended .pre-commit-config.yaml."""
    [config] = [b for b in re.findall(r"```yaml\n(.*?)```", README, flags=re.S) if "hooks:" in b]
    return str(config)


def test_the_readme_recommends_one_fixing_hook_and_the_gate():
    recommended = YAML(typ="safe").load(readme_config())["repos"][0]["hooks"]
    assert [hook["id"] for hook in recommended] == ["agent-lint", "agent-lint-handoffs"]
    assert [hook["id"] for hook in HOOKS] == [
        "agent-lint",
        "agent-lint-handoffs",
        "agent-lint-fix",
        "agent-lint-astrion",
        "agent-lint-personal-bot",
    ]
    by_id = {hook["id"]: hook for hook in HOOKS}
    assert "--fix" in by_id["agent-lint"]["entry"].split()
    assert "AL6" not in by_id["agent-lint"]["entry"]  # the gate is the other hook's
    assert by_id["agent-lint-handoffs"]["entry"].split()[1:3] == ["--select", "AL6"]
    for hook in HOOKS:
        assert f"`{hook['id']}`" in README


def test_hook_manifest_settings():
    from agent_lint.profiles import builtin

    declared = {hook.id: (profile, hook) for profile in builtin() for hook in profile.hooks}
    assert sorted(declared) == sorted(hook["id"] for hook in HOOKS)
    for hook in HOOKS:
        profile, declared_hook = declared[hook["id"]]
        assert hook["files"] == declared_hook.files
        if profile.name != "cortex":  # the Cortex profile is the one detected by default
            assert f"--profile {profile.name}" in hook["entry"]
        assert hook["pass_filenames"] is False and hook["require_serial"] is True
        assert hook["language"] == "python" and hook["minimum_pre_commit_version"]
    # pre-commit leaves deleted paths out of its file list: the gate runs on every commit.
    assert [h["id"] for h in HOOKS if h.get("always_run")] == ["agent-lint-handoffs"]


def _wheelhouse() -> Path:
    return provisioned("AGENT_LINT_WHEELHOUSE", CACHE / "wheelhouse")


def _pre_commit_env(tmp_path: Path, home: Path | None = None) -> dict[str, str]:
    env = {**os.environ, **ENV, "HOME": str(tmp_path)}
    env.update(
        PRE_COMMIT_HOME=str(home or tmp_path / "pre-commit-home"),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(_wheelhouse()),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        VIRTUALENV_NO_DOWNLOAD="1",
    )
    env.pop("GITHUB_ACTIONS", None)
    env.pop("VIRTUAL_ENV", None)
    return env


def _hook_repository(tmp_path: Path) -> tuple[Path, str]:
    """This checkout as it is now, committed into a throw-away repository."""
    hooks = tmp_path / "agent-lint-hooks"
    shutil.copytree(REPO, hooks, ignore=_IGNORE)
    git(hooks, "init", "-q", "-b", "main")
    git(hooks, "add", "-A")
    git(hooks, "commit", "-q", "-m", "agent-lint under test")
    return hooks, git(hooks, "rev-parse", "HEAD")


def _commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return subprocess.run(
        ["git", "commit", "-m", message], cwd=repo, env=env, capture_output=True, text=True
    )


def _append_handoff(repo: Path) -> None:
    template = json.loads((FIXTURES / "valid" / CONV / "handoffs/H-003.json").read_text())
    record = dict(template, handoff_id="H-004", timestamp="2026-11-04T09:00:00Z")
    record["from_agent"] = {"type": "cortex", "agent_id": "cortex-main", "session_id": "S-001",
                            "last_turn": 7}  # fmt: skip
    record["to_agent"] = {"type": "codex", "agent_id": "codex-main", "target_session": "S-002"}
    record["context_pointer"] = dict(template["context_pointer"], latest_turn=7)
    record["checksum"] = compute(record)
    (repo / CONV / "handoffs/H-004.json").write_text(json.dumps(record, indent=2) + "\n")
    (repo / CONV / "handoffs/H-004.md").write_text("# H-004: cortex-main -> codex-main\n")


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory) -> tuple[Path, str, Path]:
    """This checkout as a hook repository, and one pre-commit home for the module's tests."""
    tmp = tmp_path_factory.mktemp("hooks")
    hooks, rev = _hook_repository(tmp)
    return hooks, rev, tmp / "pre-commit-home"


def _install_hooks(
    repo: Path, env: dict[str, str], hooks: Path, rev: str, config: str | None = None
) -> None:
    """The README's configuration (or ``config``), pointing at the hook repository under test."""
    text = config if config is not None else readme_config()
    text = re.sub(r"(?m)^(\s*- repo: ).*$", lambda m: m.group(1) + hooks.as_uri(), text)
    text = re.sub(r"(?m)^(\s*rev: ).*$", lambda m: m.group(1) + rev, text)
    (repo / ".pre-commit-config.yaml").write_text(text)
    install = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env,
        capture_output=True, text=True,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr


@pytest.mark.slow
def test_real_pre_commit_blocks_fixes_and_passes(tmp_path, hook_repository):
    hooks, rev, home = hook_repository
    env = _pre_commit_env(tmp_path, home)
    repo = make_repo(tmp_path)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    _install_hooks(repo, env, hooks, rev)
    git(repo, "add", ".pre-commit-config.yaml")

    # A commit that rewrites a merged handoff is refused, with the findings shown.
    handoff = repo / CONV / "handoffs/H-002.json"
    handoff.write_text(handoff.read_text().replace('"task_complete"', '"AGENT"'))
    refused = _commit(repo, env, "rewrite H-002")
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert "AL104" in shown and "AL601" in shown
    assert "H-002.json was merged in" in shown
    git(repo, "checkout", "HEAD", "--", str(handoff))

    # Appending a handoff leaves state.json stale: the fix hook rewrites it and fails.
    _append_handoff(repo)
    stale = _commit(repo, env, "append H-004")
    assert stale.returncode != 0
    assert "files were modified by this hook" in stale.stdout + stale.stderr
    state = json.loads((repo / CONV / "handoffs/state.json").read_text())
    assert state["latest_handoff_id"] == "H-004"

    # With meta.json mirrors updated as well, the commit goes through.
    subprocess.run(
        [sys.executable, "-m", "agent_lint", str(repo), "--fix", "--unsafe-fixes", "--quiet"],
        env=env, check=True, capture_output=True,
    )  # fmt: skip
    passed = _commit(repo, env, "append H-004")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "agent-lint append-only handoffs" in passed.stdout + passed.stderr


@pytest.mark.slow
def test_first_commit_and_a_repository_without_a_remote_pass(tmp_path, hook_repository):
    """No base yet: the handoffs hook says so once and lets the commit through."""
    hooks, rev, home = hook_repository
    env = _pre_commit_env(tmp_path, home)
    repo = tmp_path / "new"
    shutil.copytree(FIXTURES / "valid", repo)
    git(repo, "init", "-q", "-b", "master")
    _install_hooks(repo, env, hooks, rev)
    first = _commit(repo, env, "first commit")
    shown = first.stdout + first.stderr
    assert first.returncode == 0, shown
    assert "agent-lint append-only handoffs" in shown and "Passed" in shown
    # Later commits on master, still without a remote: rewriting a handoff passes the
    # gate (nothing names a base), while the other hooks keep checking.
    handoff = repo / CONV / "handoffs/H-001.md"
    handoff.write_text(handoff.read_text() + "more\n")
    second = _commit(repo, env, "second commit")
    assert second.returncode == 0, second.stdout + second.stderr
    # Once origin/master exists, the gate protects what it has.
    git(repo, "update-ref", "refs/remotes/origin/master", "HEAD")
    handoff.write_text("rewritten\n")
    refused = _commit(repo, env, "rewrite")
    assert refused.returncode != 0
    assert "AL601" in refused.stdout + refused.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "how, code",
    [
        (["rm", "-q", f"{CONV}/handoffs/H-001.json"], "AL602"),
        (["mv", f"{CONV}/handoffs/H-001.md", "H-001.md"], "AL602"),
        (["mv", ".agent", "state"], "AL608"),
    ],
    ids=["delete", "move-out", "move-agent-dir"],
)
def test_commits_that_only_remove_handoffs_are_refused(tmp_path, hook_repository, how, code):
    """No file under .agent/ is left in such a commit's file list; the gate runs anyway."""
    hooks, rev, home = hook_repository
    env = _pre_commit_env(tmp_path, home)
    repo = make_repo(tmp_path)
    _install_hooks(repo, env, hooks, rev)
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "hooks")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(repo, *how)
    refused = _commit(repo, env, "tidy up")
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0, shown
    assert code in shown
    assert git(repo, "rev-list", "--count", "HEAD") == "2"


OLD_CONFIG = """repos:
  - repo: https://github.com/agent-lint/agent-lint
    rev: v0.1.0
    hooks:
      - id: agent-lint
      - id: agent-lint-fix
      - id: agent-lint-handoffs
"""


@pytest.mark.slow
def test_an_older_configuration_with_three_hooks_prints_no_finding_twice(tmp_path, hook_repository):
    hooks, rev, home = hook_repository
    env = _pre_commit_env(tmp_path, home)
    repo = make_repo(tmp_path)
    _install_hooks(repo, env, hooks, rev, OLD_CONFIG)
    git(repo, "add", ".pre-commit-config.yaml")
    state = repo / CONV / "handoffs/state.json"
    state.write_text(state.read_text().replace('"H-003"', '"H-002"'))
    meta = repo / CONV / "meta.json"
    meta.write_text(meta.read_text().replace('"turn_count": 7', '"turn_count": 6'))
    done = _commit(repo, env, "stale state, wrong count")
    shown = done.stdout + done.stderr
    assert done.returncode != 0
    assert shown.count("AL410") == 1  # reported by the agent-lint hook alone
    assert "AL503" not in shown  # fixed by the agent-lint hook; nothing left for agent-lint-fix
    assert json.loads(state.read_text())["latest_handoff_id"] == "H-003"


def readme_subfolder_hooks() -> str:
    """The README's hooks for an agent dir in a subfolder, in the recommended configuration."""
    [hooks] = [
        b
        for b in re.findall(r"```yaml\n(.*?)```", README, flags=re.S)
        if b.lstrip().startswith("- id: agent-lint") and "services/pay" in b
    ]
    head = readme_config().split("hooks:")[0]
    return f"{head}hooks:\n{hooks}"


@pytest.mark.slow
def test_the_hooks_for_a_subfolder_store_check_it(tmp_path, hook_repository):
    """``services/pay/.agent`` with the README's ``files`` and ``args``: the gate and the
    checks run on it (without the folder named, the hooks would find no store and pass)."""
    hooks, rev, home = hook_repository
    env = _pre_commit_env(tmp_path, home)
    repo = tmp_path / "mono"
    shutil.copytree(FIXTURES / "valid", repo / "services/pay")
    git(repo, "init", "-q", "-b", "main")
    _install_hooks(repo, env, hooks, rev, readme_subfolder_hooks())
    first = _commit(repo, env, "a service's agent state")
    assert first.returncode == 0, first.stdout + first.stderr
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    handoff = repo / "services/pay" / CONV / "handoffs/H-002.json"
    handoff.write_text(handoff.read_text().replace('"task_complete"', '"AGENT"'))
    refused = _commit(repo, env, "rewrite H-002")
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert "AL104" in shown and "AL601" in shown

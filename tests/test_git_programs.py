"""No program named by git configuration runs because agent-lint asked git for something."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gitrepo import CONV, ENV, edit, git, make_repo

from agent_lint.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="shell-script programs")

#: Configuration keys whose value is a program git would run.
PROGRAMS = {
    "core.fsmonitor": "{script}",
    "core.pager": "{script}",
    "pager.log": "{script}",
    "pager.ls-files": "{script}",
    "core.askPass": "{script}",
    "core.sshCommand": "{script}",
    "core.editor": "{script}",
    "credential.helper": "!{script}",
    "diff.external": "{script}",
    "diff.evil.textconv": "{script}",
    "diff.evil.command": "{script}",
    "filter.evil.clean": "{script}",
    "filter.evil.smudge": "{script}",
    "filter.evil.process": "{script}",
    "gpg.program": "{script}",
    "gpg.ssh.program": "{script}",
    "gpg.x509.program": "{script}",
    "log.showSignature": "true",
    "core.hooksPath": "{hooks}",
    "core.alternateRefsCommand": "{script}",
    "uploadpack.packObjectsHook": "{script}",
}

_SIGNED_COMMIT = """tree {tree}
author Agent Tester <agent@example.invalid> 1793966400 +0000
committer Agent Tester <agent@example.invalid> 1793966400 +0000
gpgsig -----BEGIN PGP SIGNATURE-----
 iQEzBAABCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAmAAAAAACgkQAAAAAAAA
 =AAAA
 -----END PGP SIGNATURE-----

A signed commit
"""


def _booby_trap(tmp_path: Path, repo: Path) -> Path:
    """Point every program setting, in the repository and the user's configuration, at a script."""
    marker = tmp_path / "a-program-ran"
    script = tmp_path / "program.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\ncat\n")
    script.chmod(0o755)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction",
                 "fsmonitor-watchman", "pre-auto-gc", "post-rewrite"):  # fmt: skip
        (hooks / hook).write_text(f"#!/bin/sh\necho hook >> '{marker}'\n")
        (hooks / hook).chmod(0o755)
        (repo / ".git" / "hooks" / hook).write_text(f"#!/bin/sh\necho hook >> '{marker}'\n")
        (repo / ".git" / "hooks" / hook).chmod(0o755)
    user_config = repo.parent / ".gitconfig"  # HOME is the repository's parent in these tests
    for key, value in PROGRAMS.items():
        setting = value.format(script=script, hooks=hooks)
        git(repo, "config", key, setting)
        git(repo, "config", "--file", str(user_config), key, setting)
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    # The commit that merged the handoffs is signed, so log.showSignature would have
    # gpg.program verify it when the finding names that commit.
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    signed = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        input=_SIGNED_COMMIT.format(tree=tree), text=True, cwd=repo,
        capture_output=True, check=True, env={**os.environ, **ENV, "HOME": str(repo.parent)},
    ).stdout.strip()  # fmt: skip
    git(repo, "update-ref", "refs/heads/main", signed)
    if marker.exists():
        marker.unlink()
    return marker


@pytest.mark.parametrize("mode", ["worktree", "staged"])
def test_no_configured_program_ever_runs(tmp_path, capsys, monkeypatch, mode):
    repo = make_repo(tmp_path)
    handoff = repo / CONV / "handoffs/H-002.json"
    edit(handoff, '"task_complete"', '"timeout"')
    if mode == "staged":
        subprocess.run(
            ["git", "-c", "core.hooksPath=/nonexistent", "add", "-A"], cwd=repo, check=True,
            env={**os.environ, **ENV, "HOME": str(repo.parent)},
        )  # fmt: skip
    later = time.time() + 5
    os.utime(repo / CONV / "handoffs/H-001.json", (later, later))  # hashed, with attributes
    marker = _booby_trap(tmp_path, repo)
    script = tmp_path / "program.sh"
    # Programs named by the environment git reads, too.
    for variable in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_ASKPASS", "SSH_ASKPASS",
                     "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_PROXY_COMMAND"):  # fmt: skip
        monkeypatch.setenv(variable, str(script))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor={script}'")
    monkeypatch.setenv("HOME", str(repo.parent))
    args = [str(repo), "--select", "AL6", "--base", "main", "--output-format", "json"]
    code = main([*args, "--staged"] if mode == "staged" else args)
    out = capsys.readouterr().out
    assert code == 1 and '"AL601"' in out and "A signed commit" in out
    assert not marker.exists(), marker.read_text()

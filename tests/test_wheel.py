"""A wheel built from the repository installs into a fresh environment and finds its schemas."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO


@pytest.mark.slow
def test_wheel_installs_and_runs(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    wheelhouse = tmp_path / "wheelhouse"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(wheelhouse),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    [wheel] = wheelhouse.glob("agent_lint-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [license_file] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_file) == (REPO / "LICENSE").read_bytes()

    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # The new environment installs the wheel alone; its dependencies come from
    # the test environment through a .pth entry placed after its own
    # site-packages, so nothing is downloaded.
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    Path(site, "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_ACTIONS")}
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import agent_lint, agent_lint.schemas as s; print(agent_lint.__file__); "
            "print(s.bundled_schema_dir())",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=clean_env,
    ).stdout.splitlines()
    assert where[0].startswith(site), where
    assert where[1].startswith(site) and Path(where[1], "decision.schema.json").is_file()

    run = subprocess.run(
        [str(env_dir / "bin" / "agent-lint"), str(FIXTURES / "broken-schema"), "--no-color"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env=clean_env,
    )
    assert run.returncode == 1, run.stderr
    assert run.stdout == (FIXTURES / "broken-schema" / "expected.txt").read_text()

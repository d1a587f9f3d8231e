"""The command ends without tearing the interpreter down, and loses nothing by it.

:func:`agent_lint.cli.run_command` (the installed ``agent-lint`` and ``python -m
agent_lint``) ends the process once :func:`~agent_lint.cli.main` returns: its
output, exit code and exit handlers are those of a program that ends as any
does, and a thread still running is waited for.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_lint.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "cortex"


def _command(*argv: str, before: str = "") -> subprocess.CompletedProcess[str]:
    """``run_command`` in a new interpreter, after the Python code ``before``."""
    script = f"import sys\n{before}\nfrom agent_lint.cli import run_command\nrun_command()\n"
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"AGENT_LINT_NO_CACHE": "1", "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_output_and_exit_code_are_those_of_main(
    fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every byte of the report is written and the exit code is main's."""
    monkeypatch.setenv("AGENT_LINT_NO_CACHE", "1")
    repo = next(p for p in sorted(FIXTURES.iterdir()) if p.is_dir())
    code = main(["--output-format", fmt, "--no-color", str(repo)])
    out, _ = capsys.readouterr()
    done = _command("--output-format", fmt, "--no-color", str(repo))
    assert (done.returncode, done.stdout) == (code, out)
    assert out


def test_exit_handlers_run_after_the_report() -> None:
    """An exit handler (a library's clean-up) runs, after the report is written."""
    before = "import atexit; atexit.register(print, 'handler ran')"
    done = _command("--version", before=before)  # --version ends through SystemExit
    assert done.stdout.endswith("handler ran\n") and done.returncode == 0
    repo = next(p for p in sorted(FIXTURES.iterdir()) if p.is_dir())
    done = _command("--output-format", "json", str(repo), before=before)
    assert done.stdout.endswith("}\nhandler ran\n"), done.stdout[-200:]


def test_a_thread_still_running_is_waited_for() -> None:
    """The process ends as any Python program does while another thread runs."""
    before = (
        "import threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.5), print('thread done'))).start()"
    )
    repo = next(p for p in sorted(FIXTURES.iterdir()) if p.is_dir())
    done = _command("--output-format", "json", str(repo), before=before)
    assert "thread done" in done.stdout


def test_a_profiler_still_writes_its_report(tmp_path: Path) -> None:
    """``python -m cProfile -m agent_lint`` writes its profile: a watched run ends as any does."""
    repo = next(p for p in sorted(FIXTURES.iterdir()) if p.is_dir())
    out = tmp_path / "run.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "agent_lint", str(repo)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"AGENT_LINT_NO_CACHE": "1", "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert out.stat().st_size > 0, done.stderr

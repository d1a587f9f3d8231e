"""The command ends without tearing the interpreter down, and loses nothing by it.

:func:`agent_lint.cli.run_command` (the installed ``agent-lint`` and ``python -m
agent_lint``) ends the process once :func:`~agent_lint.cli.main` returns: its
output, exit code and exit handlers are those of a program that ends as any
does, and a thread still running is waited for.
"""

from __future__ import annotations

import os
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


def _closed_pipe_run(script: str, *argv: str) -> tuple[int, str]:
    """Exit code and stderr of ``script`` run with its stdout a pipe nobody reads."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={"AGENT_LINT_NO_CACHE": "1", "PATH": "/usr/bin:/bin"},
            timeout=120,
        )
    finally:
        os.close(write)
    return done.returncode, done.stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_closed_stdout_ends_as_main_ends(fmt: str) -> None:
    """A report to a pipe whose reader is gone: the same exit code and message as a
    program that ends through ``SystemExit(main())``."""
    repo = next(p for p in sorted(FIXTURES.iterdir()) if p.is_dir())
    argv = ("--output-format", fmt, "--no-color", str(repo))
    usual = "from agent_lint.cli import main\nraise SystemExit(main())\n"
    quick = "from agent_lint.cli import run_command\nrun_command()\n"
    assert _closed_pipe_run(quick, *argv) == _closed_pipe_run(usual, *argv)


def test_exit_handlers_run_once() -> None:
    """Exit handlers run once, also when the process then ends as usual (a closed stdout)."""
    before = "import atexit, sys; atexit.register(lambda: sys.stderr.write('handler ran\\n'))"
    repo = next(p for p in sorted(FIXTURES.iterdir()) if p.is_dir())
    argv = ("--output-format", "json", str(repo))
    quick = f"{before}\nfrom agent_lint.cli import run_command\nrun_command()\n"
    usual = f"{before}\nfrom agent_lint.cli import main\nraise SystemExit(main())\n"
    code, err = _closed_pipe_run(quick, *argv)
    assert err.count("handler ran") == 1, err
    assert (code, err) == _closed_pipe_run(usual, *argv)

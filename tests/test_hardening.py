"""Hostile inputs that once hung a run, exhausted memory or buried one fact in many findings."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import write_tree
from records import decision

from agent_lint.cli import main


@contextmanager
def alarm(seconds: int) -> Iterator[None]:
    """Turn a hang into a failure (a generous guard, not a timing assertion)."""

    def _fail(signum: int, frame: object) -> None:
        raise AssertionError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, _fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- the baseline file is read like a record --------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path / "repo" / ".agent", {"decisions/D-001.json": decision(status="bogus")})
    return tmp_path / "repo"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_baseline_linking_to_a_device_is_refused(repo, capsys):
    known = repo / "baseline.json"
    known.symlink_to("/dev/zero")
    with alarm(60):
        assert main([str(repo), "--baseline", str(known)]) == 2
    err = capsys.readouterr().err
    assert "cannot read the baseline" in err and "symbolic link out of its folder" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_baseline_fifo_is_refused_without_blocking(repo, capsys):
    known = repo / "baseline.json"
    os.mkfifo(known)
    with alarm(60):
        assert main([str(repo), "--baseline", str(known)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_a_baseline_linking_out_of_its_folder_is_not_read(repo, tmp_path, capsys):
    outside = tmp_path / "elsewhere" / "baseline.json"
    outside.parent.mkdir()
    assert main([str(repo), "--write-baseline", str(outside)]) == 0
    known = repo / "baseline.json"
    known.symlink_to(outside)
    assert main([str(repo), "--baseline", str(known)]) == 2
    assert "symbolic link out of its folder" in capsys.readouterr().err


def test_a_baseline_past_the_size_limit_is_refused(repo, capsys, monkeypatch):
    from agent_lint import baseline

    known = repo / "baseline.json"
    assert main([str(repo), "--write-baseline", str(known)]) == 0
    monkeypatch.setattr(baseline, "MAX_BASELINE_BYTES", 16)
    assert main([str(repo), "--baseline", str(known)]) == 2
    assert "cannot read the baseline" in capsys.readouterr().err

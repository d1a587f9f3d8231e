"""Bounded reads: one read of the size the file has, limits kept when the size lies."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent_lint import fileio
from agent_lint.fileio import NotRead, read_regular


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes ``os.read`` is asked for while the test runs."""
    asked: list[int] = []
    real = os.read

    def counting(fd: int, size: int) -> bytes:
        asked.append(size)
        return real(fd, size)

    monkeypatch.setattr(fileio.os, "read", counting)
    return asked


@pytest.mark.parametrize("size", [0, 1, 4095, 65536, 300_000])
def test_a_file_is_read_whole_in_one_read_of_its_size(
    tmp_path: Path, reads: list[int], size: int
) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path = tmp_path / "f.json"
    path.write_bytes(data)
    assert read_regular(path, 1 << 24) == data
    # No buffer of the limit's size: exactly the file's size and one byte to see its end.
    assert reads == [size + 1]


def _lying_fstat(monkeypatch: pytest.MonkeyPatch, delta: int) -> None:
    """Make ``fstat`` report a size ``delta`` bytes off, as for a file changed meanwhile."""
    real = os.fstat

    def fstat(fd: int) -> Any:
        info = real(fd)
        fields = list(info)
        fields[6] = max(0, info.st_size + delta)
        return os.stat_result(fields)

    monkeypatch.setattr(fileio.os, "fstat", fstat)


def test_a_file_that_grew_after_fstat_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: list[int]
) -> None:
    data = b"y" * 200_000
    path = tmp_path / "f.json"
    path.write_bytes(data)
    _lying_fstat(monkeypatch, -150_000)
    assert read_regular(path, 1 << 24) == data
    assert max(reads) <= 1 << 16


def test_a_file_that_grew_past_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: list[int]
) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"z" * 5000)
    _lying_fstat(monkeypatch, -4900)
    with pytest.raises(NotRead) as caught:
        read_regular(path, 1000)
    assert caught.value.kind == "large"
    # Never more than one byte past the limit is read.
    assert sum(reads) <= 1001


def test_a_file_that_shrank_after_fstat_is_read_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"{}")
    _lying_fstat(monkeypatch, +100)
    assert read_regular(path, 1000) == b"{}"


def test_a_file_over_the_limit_is_not_read(tmp_path: Path, reads: list[int]) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"a" * 2000)
    with pytest.raises(NotRead) as caught:
        read_regular(path, 1000)
    assert (caught.value.kind, caught.value.size) == ("large", 2000)
    assert reads == []


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc")
def test_a_file_whose_size_is_unknown_is_read_whole() -> None:
    # Files of /proc report size 0 and still have content.
    text = read_regular("/proc/self/status", 1 << 20)
    assert b"Name:" in text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_never_read(tmp_path: Path, reads: list[int]) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(NotRead) as caught:
        read_regular(fifo, 1000)
    assert caught.value.kind == "special"
    assert reads == []

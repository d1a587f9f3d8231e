"""Time commands in fresh processes: wall time, CPU time and peak resident memory of each run.

Every run is a new child process, waited for with :func:`os.wait4`, whose
resource usage is that child's alone (``ru_maxrss`` of ``RUSAGE_CHILDREN``
would be the largest of every child so far). A :class:`Series` keeps the runs
of one contender; reports use the median wall and CPU times and the largest peak.
CPU time (user + system) is what other processes on a shared machine disturb
least, so it is reported beside the wall time the targets are stated in.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Sample:
    """One run: wall seconds, peak resident set in bytes, exit code, CPU seconds."""

    wall: float
    rss: int
    code: int
    cpu: float = 0.0


@dataclass(frozen=True)
class Command:
    """A command line, the folder it runs in, and where its output goes."""

    argv: tuple[str, ...]
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    stdout: Path | None = None
    stderr: Path | None = None


class CommandFailed(RuntimeError):
    """A measured command exited with a code the benchmark does not accept."""


def run(command: Command) -> Sample:
    """Run ``command`` once in a fresh process and measure it."""
    out = open(command.stdout, "wb") if command.stdout else subprocess.DEVNULL  # noqa: SIM115
    err = open(command.stderr, "wb") if command.stderr else subprocess.DEVNULL  # noqa: SIM115
    try:
        start = time.perf_counter()
        process = subprocess.Popen(
            command.argv,
            cwd=command.cwd,
            env=dict(command.env) if command.env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    finally:
        for handle in (out, err):
            if not isinstance(handle, int):
                handle.close()
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code  # already reaped; keeps Popen from waiting again
    return Sample(wall, usage.ru_maxrss * 1024, code, usage.ru_utime + usage.ru_stime)


@dataclass
class Series:
    """The runs of one contender, possibly each the sum of several commands."""

    name: str
    commands: Sequence[Command]
    accept: frozenset[int] = frozenset({0, 1})
    samples: list[Sample] = field(default_factory=list)

    def measure(self) -> Sample:
        """Run every command once; one sample: summed times, largest peak, worst exit code."""
        parts = [run(command) for command in self.commands]
        for command, part in zip(self.commands, parts, strict=True):
            if part.code not in self.accept:
                detail = ""
                if command.stderr is not None and command.stderr.exists():
                    detail = command.stderr.read_text(errors="replace")[-2000:]
                raise CommandFailed(
                    f"{self.name}: `{' '.join(command.argv[:4])} …` exited {part.code}\n{detail}"
                )
        sample = Sample(
            sum(p.wall for p in parts),
            max(p.rss for p in parts),
            max(p.code for p in parts),
            sum(p.cpu for p in parts),
        )
        self.samples.append(sample)
        return sample

    @property
    def wall(self) -> float:
        """Median wall seconds."""
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        """Median CPU seconds (user + system)."""
        return statistics.median(s.cpu for s in self.samples)

    @property
    def low(self) -> float:
        """Fastest run, seconds."""
        return min(s.wall for s in self.samples)

    @property
    def high(self) -> float:
        """Slowest run, seconds."""
        return max(s.wall for s in self.samples)

    @property
    def rss(self) -> int:
        """Largest peak resident set over the runs, bytes."""
        return max(s.rss for s in self.samples)

    @property
    def code(self) -> int:
        """Exit code of the last run."""
        return self.samples[-1].code


def rounds(
    series: Sequence[Series], repeat: int, between: Callable[[Series], object] | None = None
) -> None:
    """Measure every series ``repeat`` times, interleaved, so drift hits all of them alike.

    ``between``, if callable, runs before each measurement (to restore files a
    run changed); its time is not counted.
    """
    for _ in range(repeat):
        for one in series:
            if between is not None:
                between(one)
            one.measure()

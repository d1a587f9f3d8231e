"""Forked worker processes for the per-file step: the same results as one process, sooner.

A run with ``--jobs`` above 1 hands slices of the files to check to worker
processes forked from itself (the run's own process takes a slice too, so
its share of the results needs no transfer). Each worker inherits the run's
settings, schemas and the list of files through the fork, runs the per-file
step on its slice in order, and sends its results back as one pickle stream
on a pipe. Results are returned in the order of the items, whichever process
computed them, so a caller merges them exactly as one process would.

Pickle is used only between agent-lint's own processes: the parent unpickles
what a child it forked a moment earlier produced from values agent-lint
built (strings, numbers and agent-lint's own frozen records); nothing read
from the repository is ever unpickled, and no pickle crosses a file or a
network. A worker that fails (an exception, a signal, a stream cut short)
is not trusted: its slice is computed again by the parent, so the outcome,
or the error, is the one a single process gives.

Forking is only done where it is safe and cheap: a POSIX system with
:func:`os.fork` and a process with no other thread (a fork copies only the
calling thread). Elsewhere, as on Windows, a run uses one process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["MIN_FILES_PER_PROCESS", "available_cores", "can_fork", "map_slices", "processes_for"]

T = TypeVar("T")
R = TypeVar("R")

#: With ``--jobs auto``, each process gets at least this many files to check; below
#: twice this, a run uses one process (measured: see the README's ``--jobs``).
MIN_FILES_PER_PROCESS = 1_000


def available_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """Whether worker processes can be forked here: POSIX ``fork`` and one thread running."""
    return hasattr(os, "fork") and sys.platform != "win32" and threading.active_count() == 1


def processes_for(jobs: int | None, files: int) -> int:
    """How many processes check ``files`` files for ``--jobs`` (None: ``auto``).

    An explicit count is used as given (never more processes than files);
    ``auto`` uses one process per :data:`MIN_FILES_PER_PROCESS` files, at most
    one per available core. Without :func:`can_fork`, always one.
    """
    if jobs is None:
        wanted = min(available_cores(), files // MIN_FILES_PER_PROCESS)
    else:
        wanted = min(jobs, files)
    if wanted <= 1 or not can_fork():
        return 1
    return wanted


def map_slices(
    work: Callable[[Sequence[T]], list[R]], items: Sequence[T], processes: int
) -> list[R]:
    """``work`` applied to ``items`` in ``processes`` processes, results in the items' order.

    ``work`` takes a slice of the items, in order, and returns one result per
    item; it may keep state from one item to the next within its slice. Items
    are dealt out in turn (item ``i`` to slice ``i % processes``), so each
    slice gets the same mix of files. The calling process computes slice 0;
    forked children compute the others and send their results back. A child
    that fails has its slice computed here instead.
    """
    if processes <= 1 or len(items) < 2:
        return work(items)
    slices = [items[start::processes] for start in range(processes)]
    children: list[tuple[int, int]] = []  # (pid, read end of its pipe)
    # Buffered output would be written again by each child's exit otherwise.
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        for number in range(1, len(slices)):
            children.append(_fork(work, slices[number], [fd for _, fd in children]))
        results: list[list[R] | None] = [work(slices[0])]
        while children:
            results.append(_receive(*children.pop(0)))
    finally:
        for pid, fd in children:  # the parent's own slice raised: end the children
            _end(pid, fd)
    merged: list[R] = [None] * len(items)  # type: ignore[list-item]
    for number, got in enumerate(results):
        if got is None or len(got) != len(slices[number]):
            got = work(slices[number])
        merged[number :: len(slices)] = got
    return merged


def _fork(
    work: Callable[[Sequence[T]], list[R]], items: Sequence[T], inherited: list[int]
) -> tuple[int, int]:
    """Start a child that computes ``work(items)`` and pickles the results to a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read_end)
            for fd in inherited:
                os.close(fd)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            results = work(items)
            import pickle

            with os.fdopen(write_end, "wb") as stream:
                pickle.dump(results, stream, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        except BaseException:  # the parent computes this slice again
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _receive(pid: int, fd: int) -> list[R] | None:
    """A child's results, or None when it failed (its exit status is not 0)."""
    import pickle  # only a run that forks needs it

    results: list[R] | None = None
    status = 1
    reaped = False
    try:
        try:
            with os.fdopen(fd, "rb") as stream:
                results = pickle.load(stream)
        except Exception:  # a stream cut short: the slice is computed again
            results = None
        _, status = os.waitpid(pid, 0)
        reaped = True
    finally:
        if not reaped:  # interrupted while waiting: do not leave the child behind
            _end(pid, None)
    if status != 0 or not isinstance(results, list):
        return None
    return results


def _end(pid: int, fd: int | None) -> None:
    """Stop a child whose results are no longer wanted, close its pipe, and reap it."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    if fd is not None:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)

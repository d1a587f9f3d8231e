"""Forked worker processes for the per-file step: the same results as one process, sooner.

A run with ``--jobs`` above 1 deals the files it has to check out to its
processes in turn: item ``i`` goes to process ``i % processes``. Process 0
is the run's own: it checks its items itself, in its loop, as a run with
one process does. The others are children forked from it once the walk is
done; each inherits the run's settings, schemas and the list of files
through the fork, checks its items in order and streams the results back
on a pipe, a few at a time, while the run's loop merges what has arrived.
:meth:`Ahead.take` hands the loop the results in the items' order, so the
findings, facts and files are merged exactly as one process merges them.

Pickle is used only between agent-lint's own processes: the run unpickles
what a child it forked produced from values agent-lint built (strings,
numbers and agent-lint's own frozen records); nothing read from the
repository is ever unpickled, and no pickle crosses a file or a network. A
child that fails (an exception, a signal, a stream cut short) is not
trusted any further: its remaining items are left to the run's own loop,
so the outcome, or the error, is the one a single process gives.

:class:`InChild` computes one value in a forked child while the run goes on
(the ``--base`` gate beside the pass over files), with the same rules: a
child that fails leaves the work to the run. A value can also be asked of
the first child of :class:`Ahead`, computed once its share of the items is
sent (:meth:`Ahead.later`): the run's own process merges every result and
runs the repo-wide checks, so that child is the one with time to spare.

Forking is only done where it is safe: a POSIX system with :func:`os.fork`
and a process with no other thread (a fork copies only the calling thread).
Elsewhere, as on Windows, a run uses one process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, Generic, TypeVar

__all__ = [
    "MIN_FILES_PER_PROCESS",
    "Ahead",
    "InChild",
    "available_cores",
    "can_fork",
    "gate_beside",
    "processes_for",
]

T = TypeVar("T")
R = TypeVar("R")

#: With ``--jobs auto``, each process gets at least this many files to check; below
#: twice this, a run uses one process (measured: see the README's ``--jobs``).
MIN_FILES_PER_PROCESS = 1000
#: Results a child pickles and sends at once.
CHUNK = 32
#: The pipe buffer asked for (Linux), so a child can run this far ahead of the loop.
PIPE_BYTES = 1 << 20


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


def gate_beside(jobs: int | None, files: int) -> bool:
    """Whether the ``--base`` gate runs in a forked child beside the pass over ``files`` files.

    Whenever the run forks processes to check its files, and with ``auto`` on more than
    one core: the gate is mostly waiting on its git processes, a few milliseconds each,
    and its own work apart from the pass, so on a second core it adds little to the
    run's wall time, whatever the size (measured at 72 and 100 files: +21% and +17% of a
    plain run in the run's own process, +15% and +3% beside it, for 10-15 ms more CPU
    time). ``--jobs 1`` keeps everything in the run's own process.
    """
    if processes_for(jobs, files) >= 2:
        return True
    return jobs is None and available_cores() >= 2 and can_fork()


class _Child:
    """A forked child's end of the pipe: its results, read a chunk at a time."""

    def __init__(self, pid: int, stream: IO[bytes]) -> None:
        self.pid = pid
        self.stream: IO[bytes] | None = stream
        self.ready: deque[Any] = deque()
        #: Whether a value it sends after its results is wanted (see :meth:`last`).
        self.ends_later = False

    def next(self) -> Any:
        """The child's next result; None once it has failed (the loop checks the item itself)."""
        if not self.ready and self.stream is not None:
            import pickle

            try:
                chunk = pickle.load(self.stream)
                if type(chunk) is not list or not chunk:
                    raise ValueError("a chunk of results is a non-empty list")
                self.ready.extend(chunk)
            except Exception:  # a stream cut short: nothing more is taken from this child
                self.end()
        return self.ready.popleft() if self.ready else None

    def last(self) -> Any:
        """What the child computed after its results (:class:`_Last`), the results not
        taken passed over; None when it failed or sent none."""
        while self.stream is not None or self.ready:
            found = self.next()
            if type(found) is _Last:
                return found.value
        return None

    def end(self) -> None:
        """Stop the child (if it still runs), close its pipe and reap it."""
        stream, self.stream = self.stream, None
        if stream is None:
            return
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        stream.close()
        with contextlib.suppress(OSError):
            os.waitpid(self.pid, 0)


class _Last:
    """The value a child computed after its results (see :meth:`_Child.last`)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


class Ahead(Generic[R]):
    """Results of ``work`` on ``items``, computed by forked children, taken in the items' order.

    ``work`` takes a child's share of the items, in order, and yields one
    result per item; it may keep state from one item to the next. Items of
    the calling process's own share (and of a child that failed) have no
    result here: :meth:`take` gives None for them, and the caller checks
    them itself. With one process, nothing is forked and every result is None.

    ``then``, when given and a child is forked, is computed by the first child
    once its share is sent; :meth:`later` gives it.
    """

    def __init__(
        self,
        work: Callable[[Sequence[T]], Iterable[R]],
        items: Sequence[T],
        processes: int,
        then: Callable[[], object] | None = None,
    ) -> None:
        self.processes = max(1, min(processes, len(items)))
        self.taken = 0
        self.children: list[_Child] = []
        self._then: InChild[Any] | None = None
        if self.processes == 1:
            return
        try:
            for number in range(1, self.processes):
                last = then if number == 1 else None
                body = _streaming(work, items[number :: self.processes], last)
                self.children.append(_fork(body, self.children))
        except BaseException:
            self.close()
            raise
        if then is not None:
            self._then = InChild.taking(self.children[0])

    def later(self) -> InChild[Any] | None:
        """``then`` as the first child computes it (None when no child was forked). The
        child is then the returned value's: :meth:`close` leaves it running."""
        later, self._then = self._then, None
        return later

    def take(self) -> R | None:
        """The result of the next item, or None when the caller is to check it."""
        number = self.taken % self.processes
        self.taken += 1
        if number == 0:
            return None
        child = self.children[number - 1]
        result: R | None = child.next()
        if type(result) is _Last:  # fewer results than items: the rest is the caller's
            child.ready.appendleft(result)
            return None
        return result

    def close(self) -> None:
        """End every child and reap it (their results are no longer wanted); a child whose
        ``then`` was handed out (:meth:`later`) is left to that value."""
        for child in self.children:
            if not (child.ends_later and self._then is None):
                child.end()

    def __enter__(self) -> Ahead[R]:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _streaming(
    work: Callable[[Sequence[T]], Iterable[Any]],
    items: Sequence[T],
    then: Callable[[], object] | None,
) -> Callable[[IO[bytes]], None]:
    """What a child of :class:`Ahead` does with its pipe: send ``work(items)``, then ``then``."""
    return lambda stream: _send(work(items), stream, then)


def _fork(body: Callable[[IO[bytes]], None], siblings: Sequence[_Child] = ()) -> _Child:
    """Start a child that runs ``body`` on the write end of a new pipe; the child's end.

    The child closes the read ends of ``siblings`` (children forked before it) and exits
    0 once ``body`` returns, 1 if it raises; it never returns to the caller's code.
    """
    sys.stdout.flush()  # buffered output would be written by each child again
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    with contextlib.suppress(AttributeError, OSError):
        import fcntl

        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read_end)
            for sibling in siblings:
                if sibling.stream is not None:
                    sibling.stream.close()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            body(os.fdopen(write_end, "wb"))
            status = 0
        except BaseException:  # the parent does what was not sent itself
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    return _Child(pid, os.fdopen(read_end, "rb"))


class InChild(Generic[R]):
    """``work()`` computed by a forked child while the calling process goes on.

    :meth:`result` waits for the child and gives what ``work`` returned. It
    gives None when nothing was forked (:func:`can_fork` is false) and when
    the child failed (an exception, a signal, a stream cut short): the caller
    then calls ``work`` itself, so the outcome, or the error, is the one a
    single process gives. ``work`` must not return None.
    """

    def __init__(self, work: Callable[[], R]) -> None:
        self._child: _Child | None = None
        if can_fork():
            self._child = _fork(lambda stream: _send((), stream, work))

    @classmethod
    def taking(cls, child: _Child) -> InChild[R]:
        """The value ``child`` sends after its results (see :class:`Ahead`)."""
        later = cls.__new__(cls)
        later._child = child
        child.ends_later = True
        return later

    def result(self) -> R | None:
        """What ``work`` returned in the child (waiting for it), or None (see the class)."""
        child, self._child = self._child, None
        if child is None:
            return None
        try:
            result: R | None = child.last()
        finally:
            child.end()
        return result

    def close(self) -> None:
        """End the child if it still runs (its result is no longer wanted)."""
        child, self._child = self._child, None
        if child is not None:
            child.end()


def _send(
    results: Iterable[Any], stream: IO[bytes], then: Callable[[], object] | None = None
) -> None:
    """Pickle ``results`` to ``stream`` in chunks, each flushed as soon as it is full; then,
    with ``then``, every result sent, what it returns (as :class:`_Last`)."""
    import pickle

    with stream:
        pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dispatch_table = _Rebuilt()
        chunk: list[Any] = []
        for result in results:
            chunk.append(result)
            if len(chunk) == CHUNK:
                pickler.dump(chunk)
                pickler.clear_memo()
                stream.flush()
                chunk = []
        if chunk and then is not None:
            pickler.dump(chunk)
            pickler.clear_memo()
            stream.flush()  # the results are taken while ``then`` runs
            chunk = []
        if then is not None:
            chunk.append(_Last(then()))
        if chunk:
            pickler.dump(chunk)


class _Rebuilt(dict[type, Callable[[Any], tuple[Any, ...]]]):
    """How each dataclass and named tuple is pickled: as a call of the class with its field values.

    Unpickled the default way, an instance gets its ``__dict__`` filled in
    afterwards, a dictionary of its own that takes half as much memory again
    as the instance its constructor builds; at 100,000 files that was tens of
    megabytes. A dataclass whose constructor takes exactly its fields (and
    changes none: no ``__post_init__``) is rebuilt by its constructor; any
    other type is pickled as usual (by its ``__reduce_ex__``, as a pickler
    does without a table; classes, whose metaclass the pickler handles
    itself, are left to it).

    A named tuple's constructor takes exactly its fields too: giving them as
    a plain tuple spares the default path's ``__reduce_ex__`` and
    ``__getnewargs__`` calls, half the cost of sending a file's facts (tens
    of thousands of references, paths and ids at 10,000 files).
    """

    def __missing__(self, kind: type) -> Callable[[Any], tuple[Any, ...]]:
        import dataclasses
        import pickle

        if issubclass(kind, type):
            raise KeyError(kind)
        if _is_named_tuple(kind):

            def rebuilt(value: Any) -> tuple[Any, ...]:
                return kind, tuple(value)

            self[kind] = rebuilt
            return rebuilt
        fields = dataclasses.fields(kind) if dataclasses.is_dataclass(kind) else ()
        if fields and all(f.init for f in fields) and not hasattr(kind, "__post_init__"):
            names = tuple(field.name for field in fields)

            def reduce(value: Any) -> tuple[Any, ...]:
                return kind, tuple([getattr(value, name) for name in names])

        else:

            def reduce(value: Any) -> tuple[Any, ...]:
                return value.__reduce_ex__(pickle.HIGHEST_PROTOCOL)  # type: ignore[no-any-return]

        self[kind] = reduce
        return reduce


def _is_named_tuple(kind: type) -> bool:
    """Whether ``kind`` is a class ``namedtuple()`` or ``typing.NamedTuple`` made.

    Its constructor takes exactly its fields (neither lets a class body replace
    ``__new__``); a subclass of one, or one that changes how it is pickled, is
    pickled as usual.
    """
    own = vars(kind)
    return (
        kind.__bases__ == (tuple,)
        and "_fields" in own
        and "_make" in own
        and "__reduce__" not in own
        and "__reduce_ex__" not in own
    )

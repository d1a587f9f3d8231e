"""Time placing one finding in a large index file, as a run places it.

    python benchmarks/locate.py ENTRIES [--repeat 5]

Writes a decisions index of ``ENTRIES`` entries (about 200 bytes each, the
generator's shape) to a temporary folder, then times, in this process,
agent-lint's step that gives a finding its line and column: reading the file
again and locating the finding's JSON pointer (an entry near the end). For
scale, the same file is also read and parsed whole with ``json.loads``. Prints
one JSON object: entries, bytes, the span found, and the times in ms. The
``max-file-bytes`` limit is raised to the file's size (100,000 entries are
about 23 MB, over the default 16 MiB a run would refuse to read).
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import tempfile
import time
from pathlib import Path


def index_text(entries: int) -> str:
    """A decisions index of ``entries`` entries, as the generator writes one."""
    listed = [
        {
            "decision_id": f"D-{n:06d}",
            "title": f"Decision {n}: keep the ledger in one store",
            "status": "accepted",
            "path": f".agent/decisions/D-{n:06d}.json",
            "created_at": "2026-01-05T08:00:00Z",
        }
        for n in range(entries)
    ]
    return json.dumps({"schema_version": "1.0", "decisions": listed}, indent=2) + "\n"


def measure(entries: int, repeat: int) -> dict[str, object]:
    """Median and every time of locating one pointer, and of parsing the file whole."""
    from agent_lint import linter
    from agent_lint.config import Limits
    from agent_lint.kinds import Format

    text = index_text(entries)
    pointer = f"/decisions/{max(entries - 2, 0)}/path"
    locate = linter._locations
    parameters = inspect.signature(locate).parameters
    with tempfile.TemporaryDirectory(prefix="agent-lint-locate-") as folder:
        path = Path(folder) / "index.json"
        path.write_text(text, encoding="utf-8")
        full = str(path)
        limits = Limits(max_file_bytes=max(Limits().max_file_bytes, len(text.encode()) + 1))
        located, parsed, span = [], [], None
        for _ in range(repeat):
            started = time.perf_counter()
            if "raw" in parameters:  # the run reads the file again, then places the pointer
                raw, _ = linter.read_file(full, "index.json", limits.max_file_bytes)
                locations = locate(Format.JSON, raw, limits, wanted=[(pointer, "value")])
            elif "wanted" in parameters:  # agent-lint before the run read the file itself
                locations = locate(
                    "index.json", Format.JSON, full, limits, wanted=[(pointer, "value")]
                )
            else:  # agent-lint before it located only the pointers asked for
                locations = locate("index.json", Format.JSON, full, limits)
            span = locations.find(pointer)
            located.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            json.loads(path.read_bytes())
            parsed.append((time.perf_counter() - started) * 1000)
    return {
        "entries": entries,
        "bytes": len(text.encode("utf-8")),
        "pointer": pointer,
        "span": None if span is None else [span.line, span.column, span.end_line, span.end_column],
        "locate_ms": statistics.median(located),
        "parse_ms": statistics.median(parsed),
        "locate_runs_ms": located,
    }


def main(argv: list[str] | None = None) -> int:
    """Measure and print the result as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("entries", type=int)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.entries, max(args.repeat, 1))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

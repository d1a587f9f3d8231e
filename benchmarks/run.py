"""Speed and memory of agent-lint, as ratios against check-jsonschema in the same run.

    python benchmarks/run.py [--records 2000] [--repeat 3]

Generates a repository of decision records (the kind both tools can check: the peer
validates them against agent-lint's bundled decision schema; agent-lint runs every
check, references and indexes included), runs each tool ``--repeat`` times in fresh
processes, and prints the best wall time and the peak memory of each, with the ratios.
Nothing here is asserted: machines are noisy, so the numbers are for reading.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def generate(root: Path, records: int) -> list[Path]:
    """``records`` valid, cross-referenced decisions, with their index."""
    folder = root / ".agent" / "decisions"
    folder.mkdir(parents=True)
    paths, entries = [], []
    for n in range(records):
        record = {
            "schema_version": 1,
            "decision_id": f"D-{n:06d}",
            "type": "architecture",
            "status": "superseded" if n + 1 < records else "open",
            "requested_by": "cortex-main",
            "prompt": f"Decision number {n}?",
            "options": ["yes", "no"],
            "selected_option": None,
            "resolved_by": "interactive-user" if n + 1 < records else None,
            "resolved_at": "2026-11-02T10:00:00Z" if n + 1 < records else None,
            "gate": {"action": "architecture", "resource_ref": "proposal:docs/plan.md"},
            "superseded_by_decision_id": f"D-{n + 1:06d}" if n + 1 < records else None,
            "created_at": "2026-11-02T09:00:00Z",
            "updated_at": "2026-11-02T10:00:00Z",
        }
        path = folder / f"D-{n:06d}.json"
        path.write_text(json.dumps(record, indent=2) + "\n")
        paths.append(path)
        entries.append({
            "decision_id": record["decision_id"], "path": f".agent/decisions/{path.name}",
            "type": record["type"], "status": record["status"], "gate_action": "architecture",
            "resource_ref": "proposal:docs/plan.md", "updated_at": record["updated_at"],
        })  # fmt: skip
    (folder / "index.json").write_text(json.dumps({"decisions": entries}, indent=2) + "\n")
    return paths


def measure(command: list[str], repeat: int) -> tuple[float, int, int]:
    """Best wall seconds, peak resident KiB, and the exit code of ``command``."""
    best, peak, code = float("inf"), 0, 0
    for _ in range(repeat):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        best = min(best, time.perf_counter() - start)
        peak = max(peak, usage.ru_maxrss)
        code = os.waitstatus_to_exitcode(status)
    return best, peak, code


def main() -> int:
    """Generate, run both tools, print a table of ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    agent_lint = shutil.which("agent-lint")
    peer = shutil.which("check-jsonschema")
    if agent_lint is None or peer is None:
        sys.exit("install agent-lint and check-jsonschema first (pip install -e '.[test]')")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = generate(root, args.records)
        ours = measure([agent_lint, str(root), "--quiet"], args.repeat)
        theirs = measure(
            [peer, "--schemafile", str(ROOT / "schemas" / "decision.schema.json"),
             *map(str, files)],
            args.repeat,
        )  # fmt: skip
    print(f"{args.records} decision records, best of {args.repeat} runs\n")
    print("| tool | exit | wall s | peak MiB |")
    print("|---|---|---|---|")
    for name, (seconds, kib, code) in (("agent-lint (all checks)", ours),
                                        ("check-jsonschema (schema only)", theirs)):  # fmt: skip
        print(f"| {name} | {code} | {seconds:.2f} | {kib / 1024:.0f} |")
    print(f"\ntime ratio agent-lint / check-jsonschema: {ours[0] / theirs[0]:.2f}")
    print(f"memory ratio agent-lint / check-jsonschema: {ours[1] / theirs[1]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Speed and memory of agent-lint against its peers, measured in one run.

    python -m benchmarks.run [--sizes 100,1000,10000,100000] [--repeat 5] [--defects 1]

For each size, a repository of about that many records (files) is generated
(``benchmarks/generate.py``: every kind, cross-referenced, with ``--defects``
injected mistakes per family) and these contenders run, each in a fresh
process, interleaved round by round, ``--repeat`` times:

- agent-lint cold (``--no-cache`` when agent-lint has that flag), warm (a
  second run with its cache; "n/a" while agent-lint has no cache) and warm after
  one file was edited (a newline appended to one decision before each run);
- check-jsonschema on the same JSON files, one run per bundled schema (files
  grouped by kind), the times summed; offline (``--schemafile``, local ``$ref``s
  only, proxies pointed at a closed local port so a fetch would fail loudly);
- a bare walk, read and parse of the same files (``benchmarks/bareparse.py``);
- in a git repository of the same tree: a plain run, ``--base`` with 1 and with
  200 modified handoffs, and ``--fix`` with one stale ``state.json``.

Also ``--version`` and ``--help`` against bare ``python -c pass``, and
``python -X importtime`` of a plain run on a clean 100-record repository.
Writes ``benchmarks/RESULTS.md`` (``--output``). Nothing is asserted on time:
the machine is noisy, so results are medians and ratios within one run.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from benchmarks.generate import Repository, dump_json, generate
from benchmarks.measure import Command, Series, rounds, run

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas" / "cortex"
BAREPARSE = Path(__file__).resolve().parent / "bareparse.py"
LOCATE = Path(__file__).resolve().parent / "locate.py"
DEFAULT_SIZES = (100, 1000)
MODIFIED_HANDOFFS = 200
#: Above this many records, ``--repeat-large`` replaces ``--repeat``.
LARGE = 50_000
#: Up to this many records, ``--repeat-small`` replaces ``--repeat``: a round takes a few
#: seconds, and on a shared machine the median of a few runs of 0.1 s moves by a tenth.
SMALL = 1_000
#: Packages only some runs need (explaining a schema error, ``--base``, YAML without libyaml).
ON_DEMAND = ("jsonschema", "referencing", "attrs", "rpds", "ruamel", "git", "gitdb")
#: Keep each check-jsonschema command line well below the kernel's limit.
MAX_ARGS_BYTES = 1_000_000
#: A proxy nobody listens on: any network fetch by check-jsonschema fails at once.
NO_NETWORK = "http://127.0.0.1:9"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "agent-lint benchmark",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "agent-lint benchmark",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


@dataclass(frozen=True)
class Tools:
    """The executables measured, and how agent-lint is asked not to use a cache."""

    python: str
    agent_lint: str
    check_jsonschema: str
    no_cache: tuple[str, ...]
    has_jobs: bool = False

    @property
    def has_cache(self) -> bool:
        """True when agent-lint has a cache (detected from its ``--help``)."""
        return bool(self.no_cache)


def _executable(name: str, explicit: str | None) -> str:
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} not found: pip install -e '.[test,bench]' first")
    return found


def find_tools(agent_lint: str | None = None) -> Tools:
    """Locate agent-lint and check-jsonschema; detect ``--no-cache`` in ``agent-lint --help``."""
    tool = _executable("agent-lint", agent_lint)
    usage = subprocess.run(
        [tool, "--help"], capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL
    ).stdout
    no_cache = ("--no-cache",) if re.search(r"--no-cache\b", usage) else ()
    has_jobs = re.search(r"--jobs\b", usage) is not None
    return Tools(sys.executable, tool, _executable("check-jsonschema", None), no_cache, has_jobs)


@dataclass
class SizeResult:
    """Everything measured on one generated repository."""

    records: int
    repo: Repository
    kinds: dict[str, int]
    invocations: int
    series: dict[str, Series]
    findings: Counter[tuple[str, str]]
    parsers: str
    peer_flagged: set[str]
    modified: int = 0
    scenario_findings: dict[str, Counter[str]] = field(default_factory=dict)

    @property
    def findings_as_injected(self) -> bool:
        """True when agent-lint reported exactly the injected defects."""
        return self.findings == self.repo.expected()

    @property
    def peer_as_injected(self) -> bool:
        """True when check-jsonschema flagged exactly the files of the injected schema defects."""
        return self.peer_flagged == {d.path for d in self.repo.defects if d.family == "schema"}


@dataclass
class Imports:
    """What a plain run imports beyond bare start-up: self time per top-level package."""

    files: int
    total_us: int
    packages: list[tuple[str, int]]
    on_demand: list[str]


@dataclass
class Results:
    """One benchmark run: the machine, the versions, the command, and every measurement."""

    command: str
    repeat: int
    repeat_large: int
    repeat_small: int
    defects: int
    seed: int
    machine: dict[str, str]
    versions: dict[str, str]
    tools: Tools
    startup: dict[str, Series] = field(default_factory=dict)
    imports: Imports | None = None
    locate: dict[str, Any] | None = None
    note: str = ""
    sizes: list[SizeResult] = field(default_factory=list)


# --- environment ------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    """CPU model, cores, memory, Python and OS of this machine."""
    cpu = platform.processor() or platform.machine()
    memory = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
                break
    except OSError:
        pass
    return {
        "CPU": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "OS": platform.platform(),
    }


def _git_text(*args: str) -> str:
    """Output of a git command in this checkout, or "" when git cannot tell."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def versions(tools: Tools) -> dict[str, str]:
    """Versions of agent-lint (with its git commit), check-jsonschema, orjson and PyYAML."""
    found: dict[str, str] = {}
    for name in ("agent-lint", "check-jsonschema", "orjson", "PyYAML"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    measured = ("agent_lint", "schemas")
    commit = _git_text("log", "-1", "--format=%h", "--", *measured)
    if commit:
        dirty = (
            ", with uncommitted changes"
            if _git_text("status", "--porcelain", "--", *measured)
            else ""
        )
        found["agent-lint"] += f" (code of commit {commit}{dirty})"
    if tools.agent_lint != _executable("agent-lint", None):
        found["agent-lint"] += f", run as {tools.agent_lint}"
    return found


def compile_bytecode(tools: Tools) -> None:
    """Byte-compile agent-lint's modules first, as installing a wheel does.

    An editable install under ``PYTHONDONTWRITEBYTECODE`` would otherwise
    compile every module on every run, which no user of a regular install pays.
    """
    spec = importlib.util.find_spec("agent_lint")
    if spec is None or spec.origin is None:
        return
    package = str(Path(spec.origin).parent)
    subprocess.run([tools.python, "-m", "compileall", "-q", package], check=True)


# --- start-up and imports --------------------------------------------------------------------


def measure_startup(tools: Tools, repeat: int) -> dict[str, Series]:
    """``python -c pass``, ``agent-lint --version`` and ``agent-lint --help``."""
    series = {
        "python -c pass": Series("python -c pass", [Command((tools.python, "-c", "pass"))]),
        "agent-lint --version": Series(
            "agent-lint --version", [Command((tools.agent_lint, "--version"))]
        ),
        "agent-lint --help": Series("agent-lint --help", [Command((tools.agent_lint, "--help"))]),
    }
    rounds(list(series.values()), repeat)
    return series


_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+\d+ \|(\s*)(\S+)$")


def _imported(stderr: str) -> dict[str, int]:
    modules: dict[str, int] = {}
    for line in stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            modules[match.group(3)] = modules.get(match.group(3), 0) + int(match.group(1))
    return modules


def measure_imports(tools: Tools, workdir: Path) -> Imports:
    """``-X importtime`` of a plain agent-lint run on a clean 100-record repository.

    Set through ``PYTHONPROFILEIMPORTTIME``, so agent-lint starts exactly as users start it.
    """
    repo = generate(workdir / "imports", 100, 0)
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    bare = subprocess.run(
        [tools.python, "-c", "pass"], env=env, capture_output=True, text=True, check=True
    )
    baseline = set(_imported(bare.stderr))
    plain = subprocess.run(
        [tools.agent_lint, *tools.no_cache, str(repo.root)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if plain.returncode != 0:
        raise RuntimeError(
            f"agent-lint exited {plain.returncode} on a clean repository:\n"
            f"{plain.stdout}{plain.stderr[-2000:]}"
        )
    packages: Counter[str] = Counter()
    for module, self_us in _imported(plain.stderr).items():
        if module not in baseline:
            packages[module.split(".", 1)[0]] += self_us
    return Imports(
        files=repo.files,
        total_us=sum(packages.values()),
        packages=packages.most_common(),
        on_demand=[name for name in ON_DEMAND if name in packages],
    )


def measure_locate(tools: Tools, entries: int, repeat: int) -> dict[str, Any]:
    """Placing one finding in an index of ``entries`` entries (``benchmarks/locate.py``).

    Runs in the Python of the measured agent-lint when it sits beside it (else this one).
    """
    beside = Path(tools.agent_lint).parent / "python"
    python = str(beside) if beside.exists() else tools.python
    done = subprocess.run(
        [python, str(LOCATE), str(entries), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


# --- one size ---------------------------------------------------------------------------------


def schema_groups(repo: Repository) -> dict[str, list[str]]:
    """The repository's JSON files by the bundled schema of their kind (repo-relative)."""
    from agent_lint.profiles import get

    classify = get("cortex").classify

    groups: dict[str, list[str]] = {}
    agent = str(repo.agent_dir)
    for folder, dirs, names in os.walk(agent):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".json"):
                continue
            relpath = os.path.relpath(os.path.join(folder, name), agent).replace(os.sep, "/")
            match = classify(relpath)
            if match is not None and match.kind.schema is not None:
                groups.setdefault(match.kind.schema, []).append(f".agent/{relpath}")
    return groups


def check_offline(schema: Path) -> None:
    """Refuse a schema whose ``$ref`` would make check-jsonschema fetch something."""
    document = json.loads(schema.read_text(encoding="utf-8"))
    bundled = {
        json.loads(path.read_text(encoding="utf-8")).get("$id")
        for path in SCHEMAS.glob("*.schema.json")
    }

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    target = value.split("#", 1)[0]
                    if target and target not in bundled:
                        raise SystemExit(f"{schema.name}: $ref {value!r} is not local")
                visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(document)


def peer_commands(repo: Repository, tools: Tools, workdir: Path) -> list[Command]:
    """check-jsonschema runs, one per bundled schema (split only if a command line is huge)."""
    env = {**os.environ, "HTTP_PROXY": NO_NETWORK, "HTTPS_PROXY": NO_NETWORK, "NO_PROXY": ""}
    env.update({"http_proxy": NO_NETWORK, "https_proxy": NO_NETWORK, "no_proxy": ""})
    commands: list[Command] = []
    for schema, files in sorted(schema_groups(repo).items()):
        path = SCHEMAS / f"{schema}.schema.json"
        check_offline(path)
        chunk: list[str] = []
        size = 0
        for name in [*files, None]:
            if name is None or (chunk and size + len(name) + 1 > MAX_ARGS_BYTES):
                argv = (tools.check_jsonschema, "--schemafile", str(path), *chunk)
                log = workdir / f"check-jsonschema-{schema}-{len(commands)}.txt"
                commands.append(Command(argv, repo.root, env, log, log))
                chunk, size = [], 0
            if name is not None:
                chunk.append(name)
                size += len(name) + 1
    return commands


_PEER_OK = "ok -- validation done"
_PEER_ERRORS = "Schema validation errors were encountered."


def peer_flagged(commands: Sequence[Command]) -> set[str]:
    """Files check-jsonschema reported as invalid; raise if a run did not validate at all."""
    flagged: set[str] = set()
    for command in commands:
        assert command.stdout is not None
        lines = command.stdout.read_text(encoding="utf-8", errors="replace").splitlines()
        if not lines or lines[0] not in (_PEER_OK, _PEER_ERRORS):
            raise RuntimeError(
                f"check-jsonschema did not validate ({command.argv[2]}):\n" + "\n".join(lines[:20])
            )
        flagged.update(line.split("::", 1)[0].strip() for line in lines[1:] if "::" in line)
    return flagged


def _lint(tools: Tools, repo: Path, out: Path, *extra: str, cache: bool = False) -> Command:
    argv = (
        tools.agent_lint,
        *(() if cache else tools.no_cache),
        "--output-format",
        "json",
        *extra,
        str(repo),
    )
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    return Command(argv, repo, env, out, out.with_suffix(".err"))


def _edit_then(command: Command, repo: Repository) -> Command:
    """``command`` after appending a newline to one decision: each run finds one file changed."""
    edited = min((repo.agent_dir / "decisions").glob("D-*.json"))
    script = 'printf "\\n" >> "$0" && exec "$@"'
    return Command(
        ("/bin/sh", "-c", script, str(edited), *command.argv),
        command.cwd,
        command.env,
        command.stdout,
        command.stderr,
    )


def _findings(output: Path) -> Counter[tuple[str, str]]:
    document = json.loads(output.read_text(encoding="utf-8"))
    return Counter((d["code"], d["path"]) for d in document["diagnostics"])


def _kinds(repo: Repository) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for _, _, names in os.walk(repo.agent_dir):
        for name in names:
            suffix = name.rsplit(".", 1)[-1] if "." in name else ""
            counts[{"yml": "yaml"}.get(suffix, suffix)] += 1
    return {key: counts[key] for key in ("json", "yaml", "md")}


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, **GIT_IDENTITY}
    done = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _edit_handoff(root: Path, relpath: str) -> None:
    """Rewrite a handoff as an agent revising it would: its next action changes."""
    path = root / relpath
    record = json.loads(path.read_text(encoding="utf-8"))
    record["next_action"] = f"{record.get('next_action', 'Continue')} (revised)"
    path.write_bytes(dump_json(record))


_CONVERSATION = re.compile(r"^(\.agent/conversations/[^/]+)/")


def _stale_state(repo: Repository) -> str:
    """A state.json no injected defect touches, made stale: written before the last turn."""
    touched = {m.group(1) for d in repo.defects if (m := _CONVERSATION.match(d.path))}
    for relpath in repo.states:
        match = _CONVERSATION.match(relpath)
        if match and match.group(1) not in touched:
            path = repo.root / relpath
            state = json.loads(path.read_text(encoding="utf-8"))
            state["latest_turn"] -= 1
            path.write_bytes(dump_json(state))
            return relpath
    raise RuntimeError("no conversation without an injected defect for the --fix scenario")


def _restorer(root: Path, keep: str) -> Callable[[], None]:
    """Undo what ``--fix`` wrote: every change to the committed tree except ``keep``."""

    def restore() -> None:
        status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
        changed: list[str] = []
        added: list[str] = []
        for entry in status.split("\0"):
            if len(entry) < 4 or entry[3:] == keep:
                continue
            (added if entry[:2] == "??" else changed).append(entry[3:])
        if changed:
            _git(root, "checkout", "--", *changed)
        for relpath in added:
            (root / relpath).unlink()

    return restore


def scenarios(
    result: SizeResult, tools: Tools, workdir: Path, repeat: int, log: Callable[[str], None]
) -> None:
    """Plain run, ``--base`` with 1 and with up to 200 modified handoffs, ``--fix``.

    Commit A is the generated tree; commit B modifies all but one of the
    handoffs and makes one state.json stale; the work tree modifies one more
    handoff. So ``--base B`` sees 1 modified handoff, ``--base A`` sees them
    all, and the plain run is on the very same tree.
    """
    repo = result.repo
    root = repo.root
    many = min(MODIFIED_HANDOFFS, len(repo.handoffs))
    log(f"git repository, {many} modified handoffs")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "generated agent state")
    base_all = _git(root, "rev-parse", "HEAD").strip()
    for relpath in repo.handoffs[: many - 1]:
        _edit_handoff(root, relpath)
    stale = _stale_state(repo)
    _git(root, "commit", "-q", "-a", "-m", "agents revise handoffs")
    base_one = _git(root, "rev-parse", "HEAD").strip()
    last = repo.handoffs[many - 1]
    _edit_handoff(root, last)
    result.modified = many
    restore = _restorer(root, last)
    out = workdir / "out"
    named = {
        "plain": _lint(tools, root, out / "plain.json"),
        "base-one": _lint(tools, root, out / "base-one.json", "--base", base_one),
        "base-many": _lint(tools, root, out / "base-many.json", "--base", base_all),
        "fix": _lint(tools, root, out / "fix.json", "--fix"),
    }
    series = {name: Series(f"agent-lint {name}", [command]) for name, command in named.items()}
    plain = series["plain"]
    rounds(list(series.values()), repeat, lambda one: restore() if one is plain else None)
    restore()
    for name in ("plain", "base-one", "base-many"):
        codes = _findings(out / f"{name}.json")
        result.scenario_findings[name] = Counter(code for code, _ in codes.elements())
    result.series.update(series)
    result.scenario_findings["stale"] = Counter({stale: 1})


def measure_size(
    records: int, tools: Tools, workdir: Path, args: argparse.Namespace, log: Callable[[str], None]
) -> SizeResult:
    """Generate a repository of ``records`` records and measure every contender on it."""
    here = workdir / f"size-{records}"
    (here / "out").mkdir(parents=True)
    started = time.perf_counter()
    repo = generate(here / "repo", records, args.defects, args.seed)
    log(f"generated {repo.files} files in {time.perf_counter() - started:.1f} s")
    repeat = args.repeat_small if records <= SMALL else args.repeat
    repeat = repeat if records <= LARGE else args.repeat_large
    out = here / "out"
    peers = peer_commands(repo, tools, out)
    series = {
        "cold": Series("agent-lint cold", [_lint(tools, repo.root, out / "cold.json")]),
        "peer": Series("check-jsonschema", peers),
        "bare": Series(
            "bare parse",
            [Command((tools.python, str(BAREPARSE), str(repo.agent_dir)), stdout=out / "bare.txt")],
            accept=frozenset({0}),
        ),
    }
    if tools.has_jobs:
        series["cold-one"] = Series(
            "agent-lint cold, one process",
            [_lint(tools, repo.root, out / "cold-one.json", "--jobs", "1")],
        )
    if tools.has_cache:
        series["warm"] = Series(
            "agent-lint warm", [_lint(tools, repo.root, out / "warm.json", cache=True)]
        )
        series["warm-edit"] = Series(
            "agent-lint warm, one file edited",
            [_edit_then(_lint(tools, repo.root, out / "warm-edit.json", cache=True), repo)],
        )
        log("priming the cache")
        run(series["warm"].commands[0])
    if records == min(args.sizes):
        decisions = [c for c in peers if "decision.schema.json" in c.argv[2]][:1]
        series["peer-one"] = Series("one check-jsonschema run", decisions)
    log(f"measuring, {repeat} rounds")
    rounds(list(series.values()), repeat)
    result = SizeResult(
        records=records,
        repo=repo,
        kinds=_kinds(repo),
        invocations=len(peers),
        series=series,
        findings=_findings(out / "cold.json"),
        parsers=(out / "bare.txt").read_text().strip(),
        peer_flagged=peer_flagged(peers),
    )
    if tools.has_jobs and _findings(out / "cold-one.json") != result.findings:
        raise RuntimeError(f"{records} records: one process and several report different findings")
    if tools.has_cache and _findings(out / "warm.json") != result.findings:
        raise RuntimeError(f"{records} records: warm and cold runs report different findings")
    if tools.has_cache and _findings(out / "warm-edit.json") != result.findings:
        raise RuntimeError(f"{records} records: a warm run after an edit reports other findings")
    if args.scenarios_up_to is None or records <= args.scenarios_up_to:
        scenarios(result, tools, here, repeat, log)
    return result


def _prefixed(log: Callable[[str], None], records: int) -> Callable[[str], None]:
    return lambda message: log(f"{records:,} records: {message}")


# --- command line -----------------------------------------------------------------------------


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part.replace("_", "")) for part in text.split(",") if part.strip()})
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"sizes are numbers separated by commas: {exc}") from exc
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError("give at least one positive size")
    return sizes


def build_parser() -> argparse.ArgumentParser:
    """The harness's options."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--sizes",
        type=_sizes,
        default=list(DEFAULT_SIZES),
        help="record counts, comma-separated (default: 100,1000; the full set is "
        "100,1000,10000,100000)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per contender (default 5)")
    parser.add_argument(
        "--repeat-large",
        type=int,
        default=3,
        help=f"runs per contender above {LARGE:,} records (default 3)",
    )
    parser.add_argument(
        "--repeat-small",
        type=int,
        default=15,
        help=f"runs per contender up to {SMALL:,} records (default 15)",
    )
    parser.add_argument("--defects", type=int, default=1, help="injected defects per family")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated repositories")
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "RESULTS.md", help="report file"
    )
    parser.add_argument("--workdir", type=Path, help="where to generate (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated repositories")
    parser.add_argument(
        "--scenarios-up-to",
        type=int,
        metavar="RECORDS",
        help="run the --base and --fix scenarios only up to this size (default: every size; "
        "0: none)",
    )
    parser.add_argument("--agent-lint", help="the agent-lint executable to measure")
    parser.add_argument(
        "--note",
        default="",
        help="a sentence about the conditions of the run for the report (e.g. a shared machine)",
    )
    parser.add_argument(
        "--locate-entries",
        type=int,
        default=100_000,
        metavar="ENTRIES",
        help="time placing one finding in an index of this many entries (default 100,000; "
        "0: not measured)",
    )
    return parser


def benchmark(args: argparse.Namespace, command: str) -> Results:
    """Measure everything ``args`` asks for; ``command`` is how to reproduce it."""
    tools = find_tools(args.agent_lint)
    results = Results(
        command=command,
        repeat=args.repeat,
        repeat_large=args.repeat_large,
        repeat_small=args.repeat_small,
        defects=args.defects,
        seed=args.seed,
        machine=machine(),
        versions=versions(tools),
        tools=tools,
        note=args.note,
    )
    workdir = Path(tempfile.mkdtemp(prefix="agent-lint-bench-", dir=args.workdir))
    started = time.perf_counter()

    def log(message: str) -> None:
        sys.stderr.write(f"[{time.perf_counter() - started:7.1f} s] {message}\n")

    try:
        compile_bytecode(tools)
        log("start-up and imports")
        results.startup = measure_startup(tools, 2 * max(args.repeat, args.repeat_small))
        results.imports = measure_imports(tools, workdir)
        if args.locate_entries > 0:
            log(f"one finding in an index of {args.locate_entries:,} entries")
            results.locate = measure_locate(tools, args.locate_entries, args.repeat)
        for records in args.sizes:
            sized = _prefixed(log, records)
            results.sizes.append(measure_size(records, tools, workdir, args, sized))
    finally:
        if args.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return results


def _without_note(argv: list[str]) -> list[str]:
    """The command line without ``--note``: the note describes a run, not how to reproduce it."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--note":
            skip = True
        elif not arg.startswith("--note="):
            kept.append(arg)
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, write the report, print the targets."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if min(args.repeat, args.repeat_large, args.repeat_small) < 1:
        parser.error("--repeat, --repeat-large and --repeat-small must be at least 1")
    given = _without_note(list(sys.argv[1:] if argv is None else argv))
    results = benchmark(args, shlex.join(["python", "-m", "benchmarks.run", *given]))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(report.render(results), encoding="utf-8")
    sys.stderr.write(f"wrote {args.output}\n")
    sys.stdout.write(report.targets_text(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Render a benchmark run as Markdown: the machine, the targets, one table per size.

Targets are stated in wall time; each is also computed from CPU time (user +
system of the measured processes), which other load on a shared machine
disturbs far less, and shown in parentheses.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchmarks.measure import Series

if TYPE_CHECKING:
    from benchmarks.run import Results, SizeResult

WALL, CPU = "wall", "cpu"


@dataclass(frozen=True)
class Target:
    """A performance target: what is measured, the goal, and this run's value (wall and CPU)."""

    name: str
    goal: str
    limit: float
    unit: str
    value: float | None
    cpu: float | None = None
    where: str = ""
    text: str | None = None

    def _format(self, value: float) -> str:
        if self.unit == "×":
            return f"{value:.2f}×"
        if self.unit == "ms":
            return f"+{value:.0f} ms"
        if self.unit == "%":
            return f"{value:+.0f}%"
        return f"{value:.0f} {self.unit}".rstrip()

    @property
    def shown(self) -> str:
        """This run's value as the report shows it."""
        if self.text is not None:
            return self.text
        if self.value is None:
            return "n/a"
        shown = self._format(self.value)
        if self.cpu is not None:
            shown += f" (CPU {self._format(self.cpu)})"
        return f"{shown}, worst at {self.where}" if self.where else shown

    @property
    def met(self) -> str:
        """ "met", "not met", or "n/a" when this run did not measure it (judged on wall time)."""
        if self.value is None:
            return "n/a"
        return "met" if self.value <= self.limit else "not met"


def _size(results: Results, records: int) -> SizeResult | None:
    return next((s for s in results.sizes if s.records == records), None)


def _pick(result: SizeResult | None, name: str) -> Series | None:
    return result.series.get(name) if result is not None else None


def ratio(a: Series | None, b: Series | None, attr: str = WALL) -> float | None:
    """``a / b`` in median wall (or CPU) time; None when either was not measured."""
    if a is None or b is None or not a.samples or not b.samples:
        return None
    below = float(getattr(b, attr))
    return float(getattr(a, attr)) / below if below else None


def overhead(result: SizeResult, name: str, attr: str = WALL) -> float | None:
    """How much slower, in percent, run ``name`` is than the plain run on the same tree."""
    value = ratio(result.series.get(name), result.series.get("plain"), attr)
    return None if value is None else (value - 1) * 100


def _overhead_of(name: str) -> Callable[[SizeResult, str], float | None]:
    return lambda result, attr: overhead(result, name, attr)


def _worst(
    results: Results, measure: Callable[[SizeResult, str], float | None]
) -> tuple[float | None, float | None, str]:
    """Largest wall value of ``measure`` over the sizes, its CPU value, and where."""
    worst: tuple[float | None, float | None, str] = (None, None, "")
    for result in results.sizes:
        value = measure(result, WALL)
        if value is not None and (worst[0] is None or value > worst[0]):
            worst = (value, measure(result, CPU), f"{result.records:,} records")
    return worst


def _ratio_target(name: str, goal: str, limit: float, a: Series | None, b: Series | None) -> Target:
    return Target(name, goal, limit, "×", ratio(a, b), ratio(a, b, CPU))


def targets(results: Results) -> list[Target]:
    """The performance targets of agent-lint, evaluated on this run."""
    at100, at10k, at100k = (_size(results, n) for n in (100, 10_000, 100_000))
    cold10k, peer10k = _pick(at10k, "cold"), _pick(at10k, "peer")
    rows = [
        _ratio_target("10k cold / bare parse", "≤ 1.5×", 1.5, cold10k, _pick(at10k, "bare")),
        _ratio_target("10k cold / check-jsonschema", "about 0.2×", 0.2, cold10k, peer10k),
    ]
    warm = _ratio_target(
        "10k warm / check-jsonschema", "≤ 0.1×", 0.1, _pick(at10k, "warm"), peer10k
    )
    if at10k is not None and warm.value is None:
        warm = Target(warm.name, warm.goal, warm.limit, "×", None, text="n/a (no cache)")
    rows.append(warm)
    if at10k is not None and "warm-edit" in at10k.series:
        rows.append(
            _ratio_target(
                "10k warm, one file edited / warm",
                "about 1× (warm + that file)",
                1.2,
                _pick(at10k, "warm-edit"),
                _pick(at10k, "warm"),
            )
        )
    rows.append(
        _ratio_target(
            "100-record run / one check-jsonschema run",
            "≤ 0.5×",
            0.5,
            _pick(at100, "cold"),
            _pick(at100, "peer-one"),
        )
    )
    python = results.startup.get("python -c pass")
    for name in ("agent-lint --version", "agent-lint --help"):
        one = results.startup.get(name)
        wall = cpu = None
        if one is not None and python is not None:
            wall, cpu = (one.wall - python.wall) * 1000, (one.cpu - python.cpu) * 1000
        rows.append(Target(f"`{name[11:]}` over bare start-up", "≤ 50 ms", 50, "ms", wall, cpu))
    if results.imports is not None:
        on_demand = results.imports.on_demand
        name, text = "imports a clean run does not need", ", ".join(on_demand) or "none"
        rows.append(Target(name, "none", 0, "", float(len(on_demand)), text=text))
    rows.append(
        _ratio_target("100k time / 10k time (cold)", "≤ 10×", 10, _pick(at100k, "cold"), cold10k)
    )
    cold100k = _pick(at100k, "cold")
    rss = cold100k.rss / 1e6 if cold100k is not None else None
    rows.append(Target("100k peak RSS (cold)", "≤ 300 MB", 300, "MB", rss))
    for name, label in (("base-one", "1 modified handoff"), ("base-many", "200 modified handoffs")):
        wall, cpu, where = _worst(results, _overhead_of(name))
        rows.append(Target(f"`--base` overhead, {label}", "≤ +20%", 20, "%", wall, cpu, where))
    wall, cpu, where = _worst(
        results, lambda r, attr: ratio(_pick(r, "fix"), _pick(r, "plain"), attr)
    )
    rows.append(Target("`--fix` / plain run", "≤ 1.1×", 1.1, "×", wall, cpu, where))
    name = "one finding in a 100k-entry index located"
    located = results.locate
    if located is None or located["entries"] < 100_000:
        rows.append(Target(name, "≤ 50 ms", 50, "ms", None, text="not measured in this run"))
    else:
        took, parse = located["locate_ms"], located["parse_ms"]
        text = f"{took:.0f} ms ({took / parse:.2f}× a json.loads of the file)"
        rows.append(Target(name, "≤ 50 ms", 50, "ms", took, text=text))
    return rows


def targets_text(results: Results) -> str:
    """The targets as plain lines, for the terminal."""
    return "".join(f"{t.name}: {t.shown} (goal {t.goal}): {t.met}\n" for t in targets(results))


def _times(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}×"


def _both(a: Series | None, b: Series | None) -> str:
    """Wall-time ratio, with the CPU-time ratio in parentheses."""
    wall = ratio(a, b)
    return "n/a" if wall is None else f"{_times(wall)} ({_times(ratio(a, b, CPU))})"


def _percent(result: SizeResult, name: str) -> str:
    wall = overhead(result, name)
    if wall is None:
        return "n/a"
    return f"{wall:+.0f}% ({overhead(result, name, CPU) or 0:+.0f}%)"


def _mb(value: int) -> str:
    return f"{value / 1e6:.0f}"


def _seconds(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _row(series: Series, label: str, note: str = "") -> str:
    return (
        f"| {label} | {_seconds(series.wall)} | {_seconds(series.low)}–{_seconds(series.high)} "
        f"| {_seconds(series.cpu)} | {_mb(series.rss)} | {series.code} | {note} |"
    )


def _size_section(results: Results, result: SizeResult) -> Iterator[str]:
    repo, series, kinds = result.repo, result.series, result.kinds
    findings = ", ".join(sorted(code for code, _ in result.findings.elements())) or "nothing"
    verdict = (
        "exactly the injected defects"
        if result.findings_as_injected
        else f"**not** the injected defects ({', '.join(sorted(c for c, _ in repo.expected()))})"
    )
    peer_verdict = (
        "those of the schema defects"
        if result.peer_as_injected
        else f"**not** those of the schema defects ({', '.join(sorted(result.peer_flagged))})"
    )
    yield f"### {result.records:,} records"
    yield ""
    yield (
        f"{repo.files:,} files in the agent dir ({kinds['json']:,} JSON, {kinds['yaml']:,} YAML, "
        f"{kinds['md']:,} Markdown) in {repo.clusters:,} clusters. agent-lint reports "
        f"{findings}: {verdict}. check-jsonschema flags {len(result.peer_flagged)} "
        f"file(s): {peer_verdict}. Bare parse with {result.parsers}."
    )
    yield ""
    yield "| contender | median wall s | range s | median CPU s | peak RSS MB | exit | note |"
    yield "|---|---|---|---|---|---|---|"
    cold = series["cold"]
    flag = f"`{results.tools.no_cache[0]}`" if results.tools.no_cache else "no cache yet"
    yield _row(cold, f"agent-lint cold ({flag})")
    if "cold-one" in series:
        one = series["cold-one"]
        yield _row(one, "agent-lint cold, one process (`--jobs 1`)", f"{_both(one, cold)} cold")
    if "warm" in series:
        yield _row(series["warm"], "agent-lint warm", f"{_both(series['warm'], cold)} cold")
    if "warm-edit" in series:
        edited = series["warm-edit"]
        note = f"{_both(edited, series['warm'])} warm; {_both(edited, cold)} cold"
        yield _row(edited, "agent-lint warm, one file edited", note)
    else:
        yield "| agent-lint warm | n/a | | | | | agent-lint has no cache yet |"
    peer = series["peer"]
    label = f"check-jsonschema, {result.invocations} runs (one per schema), summed"
    yield _row(peer, label, f"cold is {_both(cold, peer)} this")
    if "peer-one" in series:
        one = series["peer-one"]
        label = "one check-jsonschema run (the decisions)"
        yield _row(one, label, f"cold is {_both(cold, one)} this")
    bare = series["bare"]
    yield _row(bare, "bare walk + read + parse", f"cold is {_both(cold, bare)} this")
    if "plain" in series:
        found = result.scenario_findings
        plain = series["plain"]
        yield _row(plain, "in git: agent-lint plain", f"{sum(found['plain'].values())} findings")
        for name, label in (
            ("base-one", "`--base`, 1 modified handoff"),
            ("base-many", f"`--base`, {result.modified} modified handoffs"),
        ):
            note = f"{_percent(result, name)} over plain; {found[name]['AL601']} AL601"
            yield _row(series[name], label, note)
        fix = series["fix"]
        yield _row(fix, "`--fix`, one stale state.json", f"{_both(fix, plain)} plain")
        if result.modified > 1:
            extra = (series["base-many"].cpu - series["base-one"].cpu) / (result.modified - 1)
            yield ""
            yield f"Each further modified handoff adds {extra * 1000:.1f} ms of CPU to `--base`."
    else:
        yield ""
        yield "The `--base` and `--fix` scenarios were not run at this size (`--scenarios-up-to`)."
    yield ""


def render(results: Results) -> str:
    """The whole ``RESULTS.md``."""
    lines = [
        "# agent-lint benchmark results",
        "",
        f"Measured on {datetime.date.today().isoformat()} with:",
        "",
        "```sh",
        "python -m pip install -e '.[test,bench]'",
        results.command,
        "```",
        "",
        f"Each contender runs in a fresh process, {results.repeat} times "
        f"({results.repeat_small} up to 1,000 records, {results.repeat_large} above 50,000), "
        "interleaved round by round. Wall "
        "and CPU (user + system) times are medians; peak RSS is the largest resident set "
        "of a run (`ru_maxrss` of that child, from `os.wait4`). Targets are judged on wall "
        "time; the same ratio in CPU time, which other load on a shared machine disturbs "
        "less, is in parentheses. agent-lint's modules are byte-compiled first, as a regular "
        "install is. The generated repositories carry "
        f"{results.defects} injected defect(s) per family (seed {results.seed}); see "
        "`benchmarks/generate.py`. No test asserts a time: these numbers are for reading.",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in results.machine.items()),
        *(f"| {key} | {value} |" for key, value in results.versions.items()),
        "",
        *([results.note, ""] if results.note else []),
        "## Targets",
        "",
        "| target | this run | goal | |",
        "|---|---|---|---|",
        *(f"| {t.name} | {t.shown} | {t.goal} | {t.met} |" for t in targets(results)),
        "",
        "## By size",
        "",
        "Wall-time ratios, CPU-time ratios in parentheses.",
        "",
        "| records | files | cold s | cold / bare parse | cold / check-jsonschema "
        "| warm / check-jsonschema | `--base` 1 | `--base` 200 | `--fix` / plain | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results.sizes:
        series = result.series
        cold = series["cold"]
        lines.append(
            f"| {result.records:,} | {result.repo.files:,} | {_seconds(cold.wall)} "
            f"| {_both(cold, series['bare'])} | {_both(cold, series['peer'])} "
            f"| {_both(series.get('warm'), series['peer'])} "
            f"| {_percent(result, 'base-one')} | {_percent(result, 'base-many')} "
            f"| {_both(series.get('fix'), series.get('plain'))} | {_mb(cold.rss)} |"
        )
    lines.append("")
    if results.startup:
        lines += ["## Start-up", "", "| command | median ms | CPU ms | peak RSS MB |"]
        lines.append("|---|---|---|---|")
        for name, one in results.startup.items():
            lines.append(
                f"| `{name}` | {one.wall * 1000:.0f} | {one.cpu * 1000:.0f} | {_mb(one.rss)} |"
            )
        lines.append("")
    if results.imports is not None:
        imports = results.imports
        top = ", ".join(f"{name} {us / 1000:.1f}" for name, us in imports.packages[:12])
        lines += [
            "## Imports",
            "",
            f"`python -X importtime` of a plain run on a clean repository of "
            f"{imports.files} files: {imports.total_us / 1000:.0f} ms of imports beyond bare "
            f"start-up. By top-level package (self time, ms): {top}.",
            "",
        ]
    if results.locate is not None:
        located = results.locate
        lines += [
            "## Placing a finding",
            "",
            f"One finding at `{located['pointer']}` of a decisions index of "
            f"{located['entries']:,} entries ({located['bytes'] / 1e6:.1f} MB), placed as a run "
            f"places it (read again, locate the pointer; `benchmarks/locate.py`), median of "
            f"{len(located['locate_runs_ms'])}: {located['locate_ms']:.0f} ms; reading and "
            f"parsing the same file whole with `json.loads`: {located['parse_ms']:.0f} ms.",
            "",
        ]
    lines += ["## Each size", ""]
    for result in results.sizes:
        lines.extend(_size_section(results, result))
    return "\n".join(lines).rstrip("\n") + "\n"

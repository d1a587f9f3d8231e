"""Render a benchmark run as Markdown: the machine, the targets, one table per size."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchmarks.measure import Series

if TYPE_CHECKING:
    from benchmarks.run import Results, SizeResult


@dataclass(frozen=True)
class Target:
    """A performance target of the project: what is measured, the goal, the value of this run."""

    name: str
    goal: str
    limit: float
    value: float | None
    shown: str

    @property
    def met(self) -> str:
        """ "met", "not met", or "n/a" when this run did not measure it."""
        if self.value is None:
            return "n/a"
        return "met" if self.value <= self.limit else "not met"


def _size(results: Results, records: int) -> SizeResult | None:
    return next((s for s in results.sizes if s.records == records), None)


def _ratio(a: Series | None, b: Series | None) -> float | None:
    return a.wall / b.wall if a is not None and b is not None and a.samples else None


def _times(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}×"


def _overhead(result: SizeResult, name: str) -> float | None:
    ratio = _ratio(result.series.get(name), result.series.get("plain"))
    return None if ratio is None else (ratio - 1) * 100


def _overhead_of(name: str) -> Callable[[SizeResult], float | None]:
    return lambda result: _overhead(result, name)


def _worst(
    results: Results, measure: Callable[[SizeResult], float | None]
) -> tuple[float | None, str]:
    """Largest value of ``measure(size)`` over the sizes, and where it was."""
    worst: tuple[float | None, str] = (None, "")
    for result in results.sizes:
        value = measure(result)
        if value is not None and (worst[0] is None or value > worst[0]):
            worst = (value, f"{result.records:,} records")
    return worst


def _pick(result: SizeResult | None, name: str) -> Series | None:
    return result.series.get(name) if result is not None else None


def targets(results: Results) -> list[Target]:
    """The targets of the performance work, evaluated on this run."""
    at100, at10k, at100k = (_size(results, n) for n in (100, 10_000, 100_000))
    cold10k = _pick(at10k, "cold")
    rows = []
    value = _ratio(cold10k, _pick(at10k, "bare"))
    rows.append(Target("10k cold / bare parse", "≤ 1.5×", 1.5, value, _times(value)))
    value = _ratio(cold10k, _pick(at10k, "peer"))
    rows.append(Target("10k cold / check-jsonschema", "about 0.2×", 0.2, value, _times(value)))
    value = _ratio(_pick(at10k, "warm"), _pick(at10k, "peer"))
    shown = "n/a (no cache)" if at10k is not None and value is None else _times(value)
    rows.append(Target("10k warm / check-jsonschema", "≤ 0.1×", 0.1, value, shown))
    value = _ratio(_pick(at100, "cold"), _pick(at100, "peer-one"))
    name = "100-record run / one check-jsonschema run"
    rows.append(Target(name, "≤ 0.5×", 0.5, value, _times(value)))
    python = results.startup.get("python -c pass")
    for name in ("agent-lint --version", "agent-lint --help"):
        series = results.startup.get(name)
        value = (series.wall - python.wall) * 1000 if series and python else None
        shown = "n/a" if value is None else f"+{value:.0f} ms"
        rows.append(Target(f"`{name[11:]}` over bare start-up", "≤ 50 ms", 50, value, shown))
    if results.imports is not None:
        on_demand = results.imports.on_demand
        shown = ", ".join(on_demand) or "none"
        rows.append(Target("imports a clean run does not need", "none", 0, len(on_demand), shown))
    value = _ratio(_pick(at100k, "cold"), cold10k)
    rows.append(Target("100k time / 10k time (cold)", "≤ 10×", 10, value, _times(value)))
    cold100k = _pick(at100k, "cold")
    value = cold100k.rss / 1e6 if cold100k is not None else None
    shown = "n/a" if value is None else f"{value:.0f} MB"
    rows.append(Target("100k peak RSS (cold)", "≤ 300 MB", 300, value, shown))
    for name, label in (("base-one", "1 modified handoff"), ("base-many", "200 modified handoffs")):
        value, where = _worst(results, _overhead_of(name))
        shown = "n/a" if value is None else f"{value:+.0f}% (worst: {where})"
        rows.append(Target(f"`--base` overhead, {label}", "≤ +20%", 20, value, shown))
    value, where = _worst(results, lambda r: _ratio(_pick(r, "fix"), _pick(r, "plain")))
    shown = "n/a" if value is None else f"{value:.2f}× (worst: {where})"
    rows.append(Target("`--fix` / plain run", "≤ 1.1×", 1.1, value, shown))
    name = "one finding in a 100k-entry index located"
    rows.append(Target(name, "≤ 50 ms", 50, None, "not measured by this harness"))
    return rows


def targets_text(results: Results) -> str:
    """The targets as plain lines, for the terminal."""
    return "".join(f"{t.name}: {t.shown} (goal {t.goal}): {t.met}\n" for t in targets(results))


def _mb(value: int) -> str:
    return f"{value / 1e6:.0f}"


def _seconds(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _row(series: Series, label: str, note: str = "") -> str:
    return (
        f"| {label} | {_seconds(series.wall)} | {_seconds(series.low)}–{_seconds(series.high)} "
        f"| {_mb(series.rss)} | {series.code} | {note} |"
    )


def _size_section(results: Results, result: SizeResult) -> Iterator[str]:
    repo, series = result.repo, result.series
    kinds = result.kinds
    yield f"### {result.records:,} records"
    yield ""
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
    yield (
        f"{repo.files:,} files in the agent dir ({kinds['json']:,} JSON, {kinds['yaml']:,} YAML, "
        f"{kinds['md']:,} Markdown) in {repo.clusters:,} clusters. agent-lint reports "
        f"{findings}: {verdict}. check-jsonschema flags {len(result.peer_flagged)} "
        f"file(s): {peer_verdict}. Bare parse with {result.parsers}."
    )
    yield ""
    yield "| contender | median s | range s | peak RSS MB | exit | note |"
    yield "|---|---|---|---|---|---|"
    cold = series["cold"]
    flag = f"`{results.tools.no_cache[0]}`" if results.tools.no_cache else "no cache yet"
    yield _row(cold, f"agent-lint cold ({flag})")
    if "warm" in series:
        yield _row(
            series["warm"], "agent-lint warm", f"{_times(_ratio(series['warm'], cold))} cold"
        )
    else:
        yield "| agent-lint warm | n/a | | | | agent-lint has no cache yet |"
    peer = series["peer"]
    yield _row(
        peer,
        f"check-jsonschema, {result.invocations} runs (one per schema), summed",
        f"cold is {_times(_ratio(cold, peer))} this",
    )
    if "peer-one" in series:
        yield _row(
            series["peer-one"],
            "one check-jsonschema run (the decisions)",
            f"cold is {_times(_ratio(cold, series['peer-one']))} this",
        )
    bare = series["bare"]
    yield _row(bare, "bare walk + read + parse", f"cold is {_times(_ratio(cold, bare))} this")
    if "plain" in series:
        found = result.scenario_findings
        plain = series["plain"]
        yield _row(plain, "in git: agent-lint plain", f"{sum(found['plain'].values())} findings")
        for name, label in (
            ("base-one", "`--base`, 1 modified handoff"),
            ("base-many", f"`--base`, {result.modified} modified handoffs"),
        ):
            overhead = _overhead(result, name)
            al601 = found[name]["AL601"]
            yield _row(series[name], label, f"{overhead:+.0f}% over plain; {al601} AL601")
        yield _row(
            series["fix"],
            "`--fix`, one stale state.json",
            f"{_times(_ratio(series['fix'], plain))} plain",
        )
        if result.modified > 1:
            extra = (series["base-many"].wall - series["base-one"].wall) / (result.modified - 1)
            yield ""
            yield f"Each further modified handoff adds {extra * 1000:.1f} ms to `--base`."
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
        f"({results.repeat_large} above 50,000 records), interleaved round by round; wall "
        "time is the median, peak RSS the largest resident set of a run (`ru_maxrss` of "
        "that child, from `os.wait4`). agent-lint's modules are byte-compiled first, as a "
        "regular install is. Ratios compare contenders of this one run. The "
        "generated repositories carry "
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
        "## Targets",
        "",
        "| target | this run | goal | |",
        "|---|---|---|---|",
        *(f"| {t.name} | {t.shown} | {t.goal} | {t.met} |" for t in targets(results)),
        "",
        "## By size",
        "",
        "| records | files | cold s | cold / bare parse | cold / check-jsonschema "
        "| warm / check-jsonschema | `--base` 1 | `--base` 200 | `--fix` / plain | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results.sizes:
        series = result.series
        base = [_overhead(result, name) for name in ("base-one", "base-many")]
        lines.append(
            f"| {result.records:,} | {result.repo.files:,} | {_seconds(series['cold'].wall)} "
            f"| {_times(_ratio(series['cold'], series['bare']))} "
            f"| {_times(_ratio(series['cold'], series['peer']))} "
            f"| {_times(_ratio(series.get('warm'), series['peer']))} "
            + "".join(f"| {'n/a' if b is None else f'{b:+.0f}%'} " for b in base)
            + f"| {_times(_ratio(series.get('fix'), series.get('plain')))} "
            f"| {_mb(series['cold'].rss)} |"
        )
    lines.append("")
    startup = results.startup
    if startup:
        lines += ["## Start-up", "", "| command | median ms | peak RSS MB |", "|---|---|---|"]
        lines += [
            f"| `{name}` | {one.wall * 1000:.0f} | {_mb(one.rss)} |"
            for name, one in startup.items()
        ]
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
    lines += ["## Each size", ""]
    for result in results.sizes:
        lines.extend(_size_section(results, result))
    return "\n".join(lines).rstrip("\n") + "\n"

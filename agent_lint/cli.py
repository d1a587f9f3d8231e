"""Command-line interface: parse options, run the linter, hand the result to a reporter.

Exit codes: 0 no error-level findings, 1 findings, 2 usage/configuration
error or crash (one line; a traceback only with ``--debug``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from agent_lint import __version__, checksum, fixer
from agent_lint.config import ConfigError, validate_code
from agent_lint.diagnostics import Fix, Rule
from agent_lint.fixer import Edit
from agent_lint.linter import LintResult, lint_paths
from agent_lint.reporters import REPORTERS, ReportOptions, diff, github, sarif, summary
from agent_lint.schemas import SchemaConfigError
from agent_lint.validators import RULES, RULES_BY_CODE

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        """Usage errors exit with code 2 and one line after the usage."""
        self.print_usage(sys.stderr)
        sys.stderr.write(f"agent-lint: error: {message}\n")
        raise SystemExit(EXIT_ERROR)


def _codes(value: str) -> list[str]:
    codes = [c.strip().upper() for c in value.split(",") if c.strip()]
    for code in codes:
        try:
            validate_code(code, "command line")
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc
    return codes


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = _Parser(
        prog="agent-lint",
        description="Validate a committed .agent/ directory of AI-agent state.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="repository, agent dir, or a path inside one (default: current directory)",
    )
    parser.add_argument(
        "--output-format",
        choices=sorted(REPORTERS),
        help="output format (default: text; github when GITHUB_ACTIONS=true)",
    )
    parser.add_argument("--output-file", type=Path, help="write the report to this file")
    parser.add_argument(
        "--sarif-file", type=Path, help="also write a SARIF 2.1.0 report to this file"
    )
    parser.add_argument(
        "--summary-file",
        type=Path,
        help="also append a Markdown job summary to this file (e.g. $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument(
        "--select", type=_codes, help="comma-separated codes or prefixes to check (replaces config)"
    )
    parser.add_argument(
        "--ignore", type=_codes, help="comma-separated codes or prefixes to skip (adds to config)"
    )
    parser.add_argument("--config", type=Path, help="use this configuration file")
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print findings only")
    parser.add_argument("--no-color", action="store_true", help="never colour text output")
    parser.add_argument(
        "--base",
        metavar="REF",
        help="git revision to check the change against (append-only handoffs, AL6xx)",
    )
    parser.add_argument(
        "--staged",
        action="store_true",
        help="with --base, compare the git index (the next commit) instead of the work tree",
    )
    parser.add_argument(
        "--fix", action="store_true", help="regenerate derived files (handoffs/state.json)"
    )
    parser.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="with --fix, exit 1 when files were changed, even if nothing remains",
    )
    parser.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix, also copy the latest handoff's fields into meta.json",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="print the diff of what --fix would write, write nothing (exit 1 if any)",
    )
    parser.add_argument(
        "--print-checksum",
        metavar="FILE",
        type=Path,
        help="print the checksum v1 a conversation handoff file should carry and exit",
    )
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument("--explain", metavar="CODE", help="explain one rule and exit")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on crashes")
    parser.add_argument("--version", action="version", version=f"agent-lint {__version__}")
    return parser


def explain(rule: Rule) -> str:
    """The ``--explain`` page of a rule."""
    fix = {
        Fix.SAFE: "Yes: `agent-lint --fix` repairs it.",
        Fix.UNSAFE: "With `agent-lint --fix --unsafe-fixes`, which rewrites a file an agent wrote.",
        Fix.NONE: "No automatic fix.",
    }[rule.fix]
    return (
        f"{rule.code} ({rule.name}), {rule.severity.value}\n\n"
        f"What it does\n    {rule.summary}.\n\n"
        f"Why it matters\n    {rule.explanation}\n\n"
        f"Example\n    {rule.bad}\n\n"
        f"Use instead\n    {rule.good}\n\n"
        f"Fix\n    {fix}\n"
    )


def list_rules() -> str:
    """One line per rule: code, name, severity, summary."""
    width = max(len(rule.name) for rule in RULES)
    return "".join(
        f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<7}  {rule.summary}\n"
        for rule in RULES
    )


def _use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    if args.no_color or os.environ.get("NO_COLOR") or args.output_file:
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def _write(text: str, target: Path | None) -> None:
    """Write a report to stdout or, atomically, to ``target``.

    Records may hold text that is not valid Unicode (lone surrogates); it is
    written with backslash escapes instead of failing the run.
    """
    data = text.encode("utf-8", errors="backslashreplace")
    if target is None:
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:
            sys.stdout.write(data.decode("utf-8"))
        else:
            sys.stdout.flush()
            stream.write(data)
            stream.flush()
        sys.stdout.flush()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def print_checksum(path: Path) -> str:
    """The checksum line for a handoff file (``--print-checksum``)."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read a JSON handoff: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a handoff is a JSON object")
    try:
        return checksum.compute(data) + "\n"
    except checksum.ChecksumError as exc:
        raise ConfigError(f"{path}: checksum v1 cannot be computed: {exc}") from exc


def _fix(args: argparse.Namespace, result: LintResult) -> tuple[LintResult, list[Edit], list[str]]:
    edits = [edit for index in result.indexes for edit in fixer.plan(index, args.unsafe_fixes)]
    if args.diff or not edits:
        return result, edits, []
    written, failed = fixer.apply(edits)
    again = lint_paths(
        args.paths, args.config, args.select, args.ignore, args.unsafe_fixes, args.base, args.staged
    )
    again.fixed = written
    return again, edits, failed


def run(args: argparse.Namespace) -> int:
    """Execute the parsed command line; raises on usage errors."""
    if args.print_checksum is not None:
        _write(print_checksum(args.print_checksum), None)
        return EXIT_CLEAN
    if args.list_rules:
        _write(list_rules(), None)
        return EXIT_CLEAN
    if args.explain:
        rule = RULES_BY_CODE.get(args.explain.upper())
        if rule is None:
            raise ConfigError(f"unknown rule code {args.explain!r}; see `agent-lint --list-rules`")
        _write(explain(rule), None)
        return EXIT_CLEAN
    fmt = args.output_format
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    result = lint_paths(
        args.paths, args.config, args.select, args.ignore, args.unsafe_fixes, args.base, args.staged
    )
    failed: list[str] = []
    if args.fix or args.diff:
        result, edits, failed = _fix(args, result)
        if args.diff:
            _write(diff.render(edits), args.output_file)
            return EXIT_FINDINGS if edits else EXIT_CLEAN
    options = ReportOptions(color=_use_color(args, sys.stdout), quiet=args.quiet)
    _write(REPORTERS[fmt](result, options), args.output_file)
    if args.sarif_file is not None:
        _write(sarif.render(result), args.sarif_file)
    if args.summary_file is not None:
        annotated = len(github.selected(result)) if fmt == "github" else None
        with args.summary_file.open("a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(summary.render(result, annotated))
    for line in failed:
        sys.stderr.write(f"agent-lint: error: {line}\n")
    if failed:
        return EXIT_ERROR
    if args.exit_non_zero_on_fix and result.fixed:
        return EXIT_FINDINGS
    if result.errors and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``agent-lint`` command."""
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except (ConfigError, SchemaConfigError) as exc:
        sys.stderr.write(f"agent-lint: error: {exc}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("agent-lint: interrupted\n")
        return EXIT_ERROR
    except Exception as exc:
        if args.debug:
            traceback.print_exc()
        else:
            sys.stderr.write(
                f"agent-lint: internal error: {type(exc).__name__}: {exc} "
                "(run with --debug for a traceback)\n"
            )
        return EXIT_ERROR

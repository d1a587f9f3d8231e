"""Command-line interface: parse options, run the linter, hand the result to a reporter.

Exit codes: 0 no error-level findings, 1 findings, 2 usage/configuration
error or crash (one line; a traceback only with ``--debug``).
"""

from __future__ import annotations

import argparse
import atexit
import errno
import gc
import os
import stat
import sys

from agent_lint import __version__

#: ``typing`` itself costs start-up time; type checkers read this name as
#: :data:`typing.TYPE_CHECKING`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any, NoReturn, TextIO

    from agent_lint.cache import Cache
    from agent_lint.diagnostics import Rule
    from agent_lint.fixer import Edit
    from agent_lint.linter import LintResult

# The engine is imported by the commands that use it, and so are pathlib, typing and
# shutil: ``--version`` and ``--help`` start in the time of Python and argparse.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: The ``--output-format`` names: the keys of :data:`agent_lint.reporters.REPORTERS`.
OUTPUT_FORMATS = ("github", "json", "sarif", "text")


def say(kind: str, message: str) -> None:
    """One line on stderr (``agent-lint: error: …``), escaped: it may quote the repository."""
    from agent_lint.escaping.workflow import inert

    sys.stderr.write(inert(f"agent-lint: {kind}: {message}") + "\n")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        """Usage errors exit with code 2 and one line after the usage."""
        self.print_usage(sys.stderr)
        say("error", message)
        raise SystemExit(EXIT_ERROR)


def _codes(value: str) -> list[str]:
    from agent_lint.config import ConfigError, validate_code

    try:
        return [validate_code(c, "command line") for c in value.split(",") if c.strip()]
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _jobs(value: str) -> int | None:
    """A ``--jobs`` argument: a number of processes, or ``auto`` (None)."""
    if value.strip().lower() == "auto":
        return None
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number of processes (1 or more) or auto, got {value!r}"
        )
    return count


def _path(value: str) -> Path:
    """A path argument (:mod:`pathlib` is imported once a command has paths to use)."""
    from pathlib import Path

    return Path(value)


def _terminal_width() -> int:
    """The width help text is wrapped to, as :func:`shutil.get_terminal_size` finds it.

    ``COLUMNS``, else the terminal's width, else 80; computed here because
    importing :mod:`shutil` (for argparse's default) costs more than the help.
    """
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=_terminal_width() - 2)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = _Parser(
        prog="agent-lint",
        description="Validate a committed .agent/ directory of AI-agent state.",
        formatter_class=_formatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        type=_path,
        metavar="PATH",
        help="repository, agent dir, or a path inside one (default: current directory)",
    )
    parser.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        help="output format (default: text; github when GITHUB_ACTIONS=true)",
    )
    parser.add_argument("--output-file", type=_path, help="write the report to this file")
    parser.add_argument(
        "--sarif-file", type=_path, help="also write a SARIF 2.1.0 report to this file"
    )
    parser.add_argument(
        "--summary-file",
        type=_path,
        help="also append a Markdown job summary to this file (e.g. $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument(
        "--select",
        type=_codes,
        help="comma-separated codes, prefixes or rule names to check (replaces config)",
    )
    parser.add_argument(
        "--ignore",
        type=_codes,
        help="comma-separated codes, prefixes or rule names to skip (adds to config)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="report what the defaults relax for real repositories (see README: strict)",
    )
    parser.add_argument(
        "--partial",
        action="store_true",
        help='the repository commits only part of its agent state (completeness = "partial")',
    )
    parser.add_argument(
        "--baseline",
        metavar="FILE",
        type=_path,
        help="report only findings not recorded in this baseline file",
    )
    parser.add_argument(
        "--write-baseline",
        metavar="FILE",
        type=_path,
        help="record the current findings in this baseline file and exit 0",
    )
    parser.add_argument(
        "--new-only",
        action="store_true",
        help="with --base, report only findings the merge-base does not already have "
        "(AL6xx always)",
    )
    parser.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of findings per rule instead of the findings",
    )
    parser.add_argument(
        "--show-files",
        action="store_true",
        help="list every file of the agent dir with the kind it is read as, or why not; exit",
    )
    parser.add_argument("--config", type=_path, help="use this configuration file")
    parser.add_argument(
        "--profile",
        metavar="NAME",
        help="the layout to validate (default: detected from the repository; see --list-profiles)",
    )
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print findings only")
    parser.add_argument("--no-color", action="store_true", help="never colour text output")
    parser.add_argument(
        "--base",
        metavar="REF",
        help="git revision whose merge-base with HEAD the change is checked against "
        "(append-only handoffs, AL6xx); 'auto': the branch's upstream, else origin/HEAD, "
        "origin/main or origin/master, and no gate when there is none",
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
        type=_path,
        help="print the checksum v1 a conversation handoff file should carry and exit",
    )
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument(
        "--list-profiles",
        action="store_true",
        help="list the built-in profiles (layouts), how each is recognised, and exit",
    )
    parser.add_argument(
        "--explain", metavar="RULE", help="explain one rule (code or name) and exit"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="check every file again, neither reading nor writing the cache "
        "(also: AGENT_LINT_NO_CACHE=1)",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=_path,
        help="keep the cache in DIR (default: .agent_lint_cache/ at the repository root; "
        "also: AGENT_LINT_CACHE_DIR)",
    )
    parser.add_argument(
        "--jobs",
        metavar="N",
        type=_jobs,
        default=None,
        help="processes that check files: a number, or auto (default: one per core, "
        "only for runs with many files to check; 1: never fork); the output is the same",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on crashes")
    parser.add_argument("--version", action="version", version=f"agent-lint {__version__}")
    return parser


def explain(rule: Rule) -> str:
    """The ``--explain`` page of a rule."""
    from agent_lint.diagnostics import Fix

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
    from agent_lint.rules import all_rules

    width = max(len(rule.name) for rule in all_rules())
    return "".join(
        f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<7}  {rule.summary}\n"
        for rule in all_rules()
    )


def list_profiles() -> str:
    """One block per built-in profile: name, description, where it is found, its hooks."""
    from agent_lint.profiles import builtin

    blocks = []
    for profile in builtin():
        hooks = ", ".join(f"{hook.id} (files: {hook.files})" for hook in profile.hooks)
        blocks.append(
            f"{profile.name}  {profile.title}: {profile.description}\n"
            f"    found at: {profile.where()}\n"
            f"    pre-commit hooks: {hooks or 'none'}\n"
        )
    return "".join(blocks)


def _format(args: argparse.Namespace) -> str:
    if args.output_format is not None:
        return str(args.output_format)
    return "github" if _on_github_actions() else "text"


def _on_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _workspace() -> Path | None:
    """The checkout on GitHub Actions: annotations and SARIF paths are relative to it."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    return _path(workspace) if workspace and _on_github_actions() else None


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
    import tempfile  # only to write a file: stdout needs none of it

    if target.is_dir():
        # A folder where the report goes (which a checkout may hold) is never replaced.
        raise ReportNotWritten(f"cannot write the report to {target}: it is a folder")
    if _special(target):
        # A device or a pipe (``--output-file /dev/null``, a named pipe) is written to, not
        # replaced by a file: replacing /dev/null would break every program after us.
        try:
            with open(target, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise ReportNotWritten(f"cannot write the report to {target}: {exc.strerror}") from None
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise ReportNotWritten(f"cannot write the report to {target}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if hasattr(os, "fchmod"):  # a report others read: the mode a new file gets
                os.fchmod(handle.fileno(), _report_mode(target))
            handle.write(data)
        os.replace(tmp, target)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ReportNotWritten(f"cannot write the report to {target}: {exc.strerror}") from None
        raise


def _report_mode(target: Path) -> int:
    """The mode of the report file: the one it has, else what the umask leaves of 0o666
    (a temporary file is made 0o600; the report is not a secret)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _special(target: Path) -> bool:
    """Whether ``target`` itself (not a link to it) is a character device or a pipe."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


class ReportNotWritten(OSError):
    """A report file (``--output-file``, ``--sarif-file``) could not be written: said in
    one line, exit code 2."""


def print_checksum(path: Path) -> str:
    """The checksum line a record file should carry (``--print-checksum``).

    The first built-in profile that defines a record checksum computes it
    (Cortex: checksum v1 of a conversation handoff).
    """
    from agent_lint.config import ConfigError
    from agent_lint.profiles import builtin

    for profile in builtin():
        if profile.checksum_line is not None:
            return profile.checksum_line(path)
    raise ConfigError("no profile defines a record checksum")


def lint_paths(*args: Any, **options: Any) -> LintResult:
    """:func:`agent_lint.linter.lint_paths`, imported when a command lints."""
    from agent_lint import linter

    return linter.lint_paths(*args, **options)


def _lint(args: argparse.Namespace, cache: Cache | None = None, **replaying: Any) -> LintResult:
    return lint_paths(
        args.paths,
        args.config,
        args.select,
        args.ignore,
        args.unsafe_fixes,
        args.base,
        args.staged,
        strict=args.strict,
        partial=args.partial,
        new_only=args.new_only,
        profile=args.profile,
        cache=cache,
        jobs=args.jobs,
        list_changed=args.summary_file is not None,
        **replaying,
    )


def _fix(
    args: argparse.Namespace, result: LintResult, cache: Cache | None = None
) -> tuple[LintResult, list[Edit], list[str]]:
    from agent_lint import fixer
    from agent_lint.linter import fix_allowed

    edits = [
        edit
        for index in result.indexes
        for edit in fixer.plan(index, args.unsafe_fixes)
        if fix_allowed(edit, result.limits)
    ]
    if args.diff:
        return result, edits, []
    written, failed = fixer.apply(edits) if edits else ([], [])
    # The findings after the fix: the first pass went over the files only; what the
    # writes can change is checked again (the written files), the other files' outcomes
    # kept, and the repo-wide checks and the gate run once, on the result.
    done = set(written)
    rewritten = {str(edit.root / edit.path) for edit in edits if edit.path in done}
    again = _lint(args, cache, replay=result, rewritten=rewritten)
    again.fixed = written
    return again, edits, failed


def find_rule(name: str) -> Rule:
    """The rule with code or name ``name``; a usage error with a did-you-mean otherwise."""
    import difflib

    from agent_lint.config import ConfigError
    from agent_lint.rules import all_rules

    for rule in all_rules():
        if name.upper() == rule.code or name.lower() == rule.name:
            return rule
    choices = [rule.code for rule in all_rules()] + [rule.name for rule in all_rules()]
    close = difflib.get_close_matches(
        name.upper() if name.upper().startswith("AL") else name.lower(), choices, n=1
    )
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(f"unknown rule {name!r}{hint} (see `agent-lint --list-rules`)")


def _usage(args: argparse.Namespace) -> None:
    """Options that only make sense together with another one."""
    from agent_lint.config import ConfigError, validate_profile

    if args.exit_non_zero_on_fix and not args.fix:
        raise ConfigError("--exit-non-zero-on-fix needs --fix")
    if args.statistics and args.output_format not in (None, "text", "json"):
        raise ConfigError("--statistics prints text or json output")
    if args.new_only and args.write_baseline is not None:
        raise ConfigError("--write-baseline records every current finding; leave out --new-only")
    if args.profile is not None:
        args.profile = validate_profile(args.profile, "--profile")


def _statistics_json(result: LintResult) -> str:
    import json

    from agent_lint.rules import rule_for

    counts: dict[str, int] = {}
    for d in result.diagnostics:
        counts[d.code] = counts.get(d.code, 0) + 1
    fixable = {d.code for d in result.diagnostics if d.fixable}
    rows = [
        {
            "code": code,
            "name": rule_for(code).name,
            "count": count,
            "fixable": code in fixable,
        }
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    return json.dumps(rows, indent=2) + "\n"


def _show_files(result: LintResult) -> str:
    from agent_lint.escaping.workflow import inert

    width = max((len(path) for path, _ in result.files), default=0)
    lines = [inert(f"{path:<{width}}  {how}") for path, how in sorted(result.files)]
    lines.extend(inert(notice) for notice in result.notices)
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Execute the parsed command line; raises on usage errors."""
    from agent_lint.reporters import REPORTERS, ReportOptions

    if args.print_checksum is not None:
        _write(print_checksum(args.print_checksum), None)
        return EXIT_CLEAN
    if args.list_rules:
        _write(list_rules(), None)
        return EXIT_CLEAN
    if args.list_profiles:
        _write(list_profiles(), None)
        return EXIT_CLEAN
    if args.explain:
        _write(explain(find_rule(args.explain)), None)
        return EXIT_CLEAN
    _usage(args)
    fmt = _format(args)
    known = None
    if args.baseline is not None:
        from agent_lint import baseline

        known = baseline.load(args.baseline)
    cache = _cache(args)
    result = _lint(args, cache, record=args.fix and not args.diff and not args.show_files)
    edits: list[Edit] = []
    failed: list[str] = []
    if (args.fix or args.diff) and not args.show_files:
        result, edits, failed = _fix(args, result, cache)
    _save(args, cache)
    if args.show_files:
        _write(_show_files(result), args.output_file)
        return EXIT_CLEAN
    if args.diff:
        from agent_lint.reporters import diff

        _write(diff.render(edits), args.output_file)
        return EXIT_FINDINGS if edits else EXIT_CLEAN
    if args.write_baseline is not None:
        from agent_lint import baseline
        from agent_lint.diagnostics import change_cannot_waive

        _write(baseline.render(result.diagnostics), args.write_baseline)
        recorded = sum(not change_cannot_waive(d.code) for d in result.diagnostics)
        left_out = len(result.diagnostics) - recorded
        if not args.quiet:
            findings = f"{recorded} finding{'s' if recorded != 1 else ''}"
            if left_out:
                findings += (
                    f" ({left_out} left out: a baseline never hides the append-only gate's "
                    "AL6xx or AL707)"
                )
            say("note", f"recorded {findings} in {args.write_baseline}")
        return EXIT_CLEAN
    if known is not None:
        from agent_lint import baseline
        from agent_lint.frozen import replace

        kept = baseline.apply(result.diagnostics, known)
        result = replace(
            result, diagnostics=kept.new, baselined=kept.known, stale_baseline=kept.stale
        )
    if args.statistics:
        from agent_lint.reporters import text

        stats = _statistics_json(result) if fmt == "json" else text.statistics(result)
        _write(stats, args.output_file)
        return EXIT_FINDINGS if result.errors and not args.exit_zero else EXIT_CLEAN
    workspace = _workspace()
    options = ReportOptions(
        color=_use_color(args, sys.stdout), quiet=args.quiet, workspace=workspace
    )
    if fmt == "text" and not args.quiet:
        from agent_lint.reporters import text

        sys.stderr.write(text.notices(result))
    _write(REPORTERS[fmt](result, options), args.output_file)
    if args.sarif_file is not None:
        from agent_lint.reporters import sarif

        _write(sarif.render(result, workspace), args.sarif_file)
    if args.summary_file is not None:
        from agent_lint.reporters import github, summary

        annotated = len(github.selected(result)) if fmt == "github" else None
        _append(args.summary_file, summary.render(result, annotated, workspace))
    for line in failed:
        say("error", line)
    if failed:
        return EXIT_ERROR
    if args.exit_non_zero_on_fix and result.fixed:
        return EXIT_FINDINGS
    if result.errors and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _cache(args: argparse.Namespace) -> Cache | None:
    """The run's cache: on unless ``--no-cache`` or ``AGENT_LINT_NO_CACHE`` say otherwise."""
    if args.no_cache:
        return None  # and the cache's modules are not loaded
    from agent_lint.cache import from_environment

    return from_environment(args.no_cache, args.cache_dir)


def _save(args: argparse.Namespace, cache: Cache | None) -> None:
    """Write the cache; a cache that could not be used is one note on stderr, never a failure."""
    if cache is None:
        return
    cache.save()
    if cache.notices and not args.quiet:
        say("note", cache.notices[0])


def _append(path: Path, text: str) -> None:
    """Append ``text`` to the job summary at ``path`` (``$GITHUB_STEP_SUMMARY``): never
    through a symbolic link (a checkout may plant one at the path named), never to a
    folder; either is one line, exit 2 (:class:`ReportNotWritten`)."""
    data = text.encode("utf-8", errors="backslashreplace")
    if path.is_dir() and not path.is_symlink():
        raise ReportNotWritten(f"cannot write the summary to {path}: it is a folder")
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        if os.path.islink(path):
            raise OSError(errno.ELOOP, "it is a symbolic link")
        fd = os.open(path, flags, 0o666)
        with os.fdopen(fd, "ab") as handle:
            handle.write(data)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        raise ReportNotWritten(f"cannot write the summary to {path}: {why}") from None


def _fail(args: argparse.Namespace, message: str) -> int:
    """Report a run that could not lint: stderr, and every report file that was asked for.

    A SARIF log with a tool execution notification replaces the results, so
    an upload step after a failed run still has a valid file to upload.
    """
    say("error", message)
    if args.list_rules or args.list_profiles or args.explain or args.print_checksum is not None:
        return EXIT_ERROR
    from agent_lint.reporters import sarif, summary

    try:
        if _format(args) == "sarif":
            _write(sarif.render_failure(message), args.output_file)
        if args.sarif_file is not None:
            _write(sarif.render_failure(message), args.sarif_file)
        if args.summary_file is not None:
            _append(args.summary_file, summary.render_failure(message))
    except OSError as exc:
        say("error", f"cannot write the report: {exc}")
    return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``agent-lint`` command on ``argv`` (``sys.argv`` when None); its exit code.

    The installed command calls it through :func:`run_command`.
    """
    args = build_parser().parse_args(argv)
    # Loading the engine makes no garbage, only modules, classes and functions that live
    # to the end; collecting while they load walks them again and again. The collector
    # is off until the lint pass, which turns it on (see linter.lint_target).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _main(args)
    finally:
        if argv is None:
            # Run as the command (arguments from sys.argv): the process ends now. When it
            # ends as any Python program does (see run_command: a thread still running, a
            # profiler), its last collection would walk every object the run made only to
            # free them as the process ends anyway, a tenth of a run of a hundred records;
            # frozen, they are left out of it.
            gc.freeze()
        if collecting:
            gc.enable()


def run_command() -> NoReturn:
    """Entry point of the installed ``agent-lint`` and of ``python -m agent_lint``.

    :func:`main`, then the process ends without tearing the interpreter down:
    freeing every object a run made (the index of every record, the cache's
    outcomes) one by one, and a last collection, cost about a tenth of a warm
    run at 10,000 records for nothing, since the process ends. Exit handlers
    run and the output is flushed first. When a thread still runs, a profiler
    or tracer watches (``python -m cProfile``, coverage) or a stream cannot be
    flushed, the process ends as any Python program does.
    """
    code = main()
    threading = sys.modules.get("threading")
    if (
        sys.getprofile() is not None
        or sys.gettrace() is not None
        or (threading is not None and threading.active_count() > 1)
    ):
        raise SystemExit(code)
    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    os._exit(code)


def _main(args: argparse.Namespace) -> int:
    from agent_lint.config import ConfigError
    from agent_lint.schemas import SchemaConfigError

    try:
        return run(args)
    except (ConfigError, SchemaConfigError) as exc:
        return _fail(args, str(exc))
    except ReportNotWritten as exc:
        say("error", str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        say("error", "interrupted")
        return EXIT_ERROR
    except Exception as exc:
        if args.debug:
            import traceback

            traceback.print_exc()
        return _fail(
            args,
            f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)",
        )

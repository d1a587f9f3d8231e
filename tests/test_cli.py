"""The command line: exit codes, options, formats, errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import FIXTURES, write_tree
from records import decision

from agent_lint.cli import main

VALID = FIXTURES / "valid"
BROKEN = FIXTURES / "broken-schema"


def test_clean_run_exits_zero(capsys):
    assert main([str(VALID), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("All checks passed (")


def test_findings_exit_one_with_text_lines(capsys, monkeypatch):
    monkeypatch.chdir(BROKEN)
    assert main(["--no-color"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        ".agent/conversations/C-payments-refactor/handoffs/H-002.json:17:13: AL104 "
    )
    assert lines[-1].startswith("Found 9 errors in ")


def test_exit_zero(capsys):
    assert main([str(BROKEN), "--exit-zero", "--quiet"]) == 0


def test_warnings_alone_do_not_fail(tmp_path, capsys):
    raw = b"\xef\xbb\xbf" + json.dumps(decision()).encode()
    write_tree(tmp_path, {".agent/decisions/D-001.json": raw})
    assert main([str(tmp_path)]) == 0
    assert "AL005" in capsys.readouterr().out


def test_select_and_ignore(capsys):
    assert main([str(BROKEN), "--select", "AL104", "--output-format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert {d["code"] for d in found} == {"AL104"}
    main([str(BROKEN), "--ignore", "AL1", "--output-format", "json"])
    assert not any(
        d["code"].startswith("AL1") for d in json.loads(capsys.readouterr().out)["diagnostics"]
    )


def test_longest_prefix_wins(capsys):
    main([str(BROKEN), "--select", "AL104", "--ignore", "AL1", "--output-format", "json"])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert {d["code"] for d in found} == {"AL104"}


def test_bad_code_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main([str(VALID), "--select", "E501"])
    assert exc.value.code == 2
    assert "not a rule code" in capsys.readouterr().err


def test_missing_path_is_usage_error(tmp_path, capsys):
    assert main([str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agent-lint: error: ") and "no such file" in err


def test_no_store_of_any_profile_is_one_notice(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    assert main([str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err == (
        "agent-lint: notice: no profile's markers match in ./; nothing checked "
        "(profiles: cortex, astrion, personal_bot; see --list-profiles)\n"
    )


def test_no_store_outside_a_repository_names_the_folder_as_given(tmp_path, capsys, monkeypatch):
    """Outside any git repository the notice names the folder as the command line did,
    not a path from the file system's root."""
    (tmp_path / "a/b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert main(["a/b", "--no-cache"]) == 0
    assert "no profile's markers match in a/b/; nothing checked" in capsys.readouterr().err


def test_no_store_with_a_base_is_a_usage_error(tmp_path, capsys):
    # A change that deletes the whole store must not turn the append-only gate off.
    (tmp_path / ".git").mkdir()
    assert main([str(tmp_path), "--base", "main"]) == 2
    assert "no profile's markers match here" in capsys.readouterr().err


def test_agent_dir_itself_and_paths_inside(capsys):
    assert main([str(VALID / ".agent"), "--quiet"]) == 0
    assert main([str(BROKEN / ".agent" / "decisions"), "--output-format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert found and all(d["path"].startswith(".agent/decisions/") for d in found)


def test_repository_that_is_the_agent_dir(tmp_path, capsys):
    write_tree(tmp_path, {"decisions/D-001.json": decision(prompt="")})
    assert main([str(tmp_path), "--output-format", "json"]) == 1
    [d] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert d["path"] == "decisions/D-001.json"


def test_default_path_is_current_directory(monkeypatch, capsys):
    monkeypatch.chdir(VALID)
    assert main(["--quiet"]) == 0


def test_github_format_is_automatic_on_actions(monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    main([str(BROKEN)])
    assert capsys.readouterr().out.startswith("::error file=")


def test_output_file(tmp_path, capsys):
    target = tmp_path / "out" / "report.json"
    assert main([str(BROKEN), "--output-format", "json", "--output-file", str(target)]) == 1
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text())["summary"]["errors"] == 9


def test_color_only_on_terminals(monkeypatch, capsys):
    class Tty:
        def __init__(self) -> None:
            self.parts: list[str] = []

        def write(self, text: str) -> int:
            self.parts.append(text)
            return len(text)

        def flush(self) -> None:
            pass

        def isatty(self) -> bool:
            return True

    tty = Tty()
    monkeypatch.setattr("sys.stdout", tty)
    monkeypatch.delenv("NO_COLOR", raising=False)
    main([str(BROKEN)])
    assert "\033[" in "".join(tty.parts)
    tty.parts.clear()
    monkeypatch.setenv("NO_COLOR", "1")
    main([str(BROKEN)])
    assert "\033[" not in "".join(tty.parts)
    tty.parts.clear()
    monkeypatch.delenv("NO_COLOR")
    main([str(BROKEN), "--no-color"])
    assert "\033[" not in "".join(tty.parts)


def test_list_rules(capsys):
    assert main(["--list-rules"]) == 0
    out = capsys.readouterr().out
    assert "AL001  invalid-json" in out and "AL203  duplicate-id" in out


def test_explain(capsys):
    assert main(["--explain", "al202"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("AL202 (id-name-mismatch), error")
    for heading in ("What it does", "Why it matters", "Example", "Use instead"):
        assert heading in out


def test_explain_unknown_code(capsys):
    assert main(["--explain", "AL999"]) == 2
    assert "unknown rule" in capsys.readouterr().err


def test_crash_is_one_line_unless_debug(monkeypatch, capsys):
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr("agent_lint.cli.lint_paths", boom)
    assert main([str(VALID)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RuntimeError: kaput" in err
    assert main([str(VALID), "--debug"]) == 2
    assert "Traceback" in capsys.readouterr().err


def test_module_entry_point():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "agent_lint", str(VALID), "--quiet"],
        capture_output=True,
        text=True,
        env={**os.environ, "GITHUB_ACTIONS": ""},
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_never_modifies_files(tmp_path):
    import shutil

    copy = tmp_path / "repo"
    shutil.copytree(BROKEN, copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    main([str(copy), "--quiet"])
    after = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert before == after


def test_multiple_repositories_are_merged(capsys, tmp_path: Path):
    assert main([str(VALID), str(BROKEN), "--output-format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert Path(data["root"]) == VALID.resolve()
    assert all(d["path"].startswith("../broken-schema/.agent/") for d in data["diagnostics"])


def test_lone_surrogates_in_records_do_not_crash_output(tmp_path, capsysbinary):
    write_tree(tmp_path, {".agent/decisions/D-001.json": '{"decision_id": "D-\\ud800"}'})
    assert main([str(tmp_path), "--no-color"]) == 1
    out = capsysbinary.readouterr().out.decode("utf-8")
    assert "D-\\ud800" in out


@pytest.mark.parametrize(
    ("code", "fix"),
    [("AL101", "No automatic fix."), ("AL503", "`agent-lint --fix` repairs it"),
     ("AL504", "--unsafe-fixes")],
)  # fmt: skip
def test_explain_says_how_a_rule_is_fixed(capsys, code, fix):
    assert main(["--explain", code]) == 0
    assert fix in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "config", "hint"),
    [
        (["--select", "AL4l0"], None, "did you mean 'AL410'?"),
        (["--select", "AL999"], None, "`agent-lint --list-rules`)\n"),  # no code one typo away
        (["--ignore", "unknwon-field"], None, "did you mean 'unknown-field'?"),
        ([], '[per-file-ignores]\n"x/*" = ["AL99"]\n', "'AL99' is not a rule code"),
        ([], '[severity]\nAL777 = "warning"\n', "'AL777' is not a rule code"),
        ([], 'select = ["dupliate-id"]\n', "did you mean 'duplicate-id'?"),
    ],
)
def test_unknown_rule_selectors_are_usage_errors(tmp_path, capsys, args, config, hint):
    write_tree(tmp_path, {".agent/decisions/D-001.json": decision()})
    if config is not None:
        (tmp_path / ".agent-lint.toml").write_text(config, encoding="utf-8")
    with pytest.raises(SystemExit) if args else _no_exit():
        assert main([str(tmp_path), *args]) == 2
    assert hint in capsys.readouterr().err


class _no_exit:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_rule_names_select_and_explain(capsys):
    assert main([str(BROKEN), "--select", "invalid-value", "--output-format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert {d["code"] for d in found} == {"AL104"}
    assert main(["--explain", "unknown-field"]) == 0
    assert capsys.readouterr().out.startswith("AL102 (unknown-field), error")
    assert main(["--explain", "unknown-feild"]) == 2
    assert "did you mean 'unknown-field'?" in capsys.readouterr().err


def test_fix_path_fixes_only_under_it(tmp_path, capsys):
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "broken-agreement", repo)
    onboarding = repo / ".agent" / "conversations" / "C-onboarding"
    payments = repo / ".agent" / "conversations" / "C-payments-refactor" / "handoffs"
    before = (payments / "state.json").read_bytes()
    main([str(onboarding), "--fix"])
    out = capsys.readouterr().out
    assert (onboarding / "handoffs" / "state.json").is_file()
    assert (payments / "state.json").read_bytes() == before
    assert "Fixed 1 file: .agent/conversations/C-onboarding/handoffs/state.json" in out


def test_a_finding_whose_fix_writes_outside_path_is_not_fixable_there(tmp_path, capsys):
    """AL502 sits on the latest handoff; its fix writes state.json beside it."""
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "broken-agreement", repo)
    handoffs = repo / ".agent" / "conversations" / "C-onboarding" / "handoffs"
    main([str(handoffs / "H-001.json"), "--output-format", "json"])
    [finding] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert finding["code"] == "AL502" and finding["fixable"] is False
    main([str(handoffs / "H-001.json"), "--fix"])
    assert not (handoffs / "state.json").exists()
    capsys.readouterr()
    main([str(handoffs), "--output-format", "json"])
    [finding] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert finding["code"] == "AL502" and finding["fixable"] is True


@pytest.mark.parametrize(
    "inside",
    [
        "conversations/C-payments-refactor",
        "conversations/C-payments-refactor/meta.json",
        # A conversation's handoffs/ is named like the agent dir's own handoffs/ folder:
        # the conversation folder is not taken for an agent dir.
        "conversations/C-payments-refactor/handoffs/H-001.json",
        "conversations/C-payments-refactor/handoffs",
    ],
)
def test_path_inside_the_agent_dir_lints_the_repository(capsys, inside):
    target = FIXTURES / "broken-agreement" / ".agent" / inside
    main([str(target), "--output-format", "json", "--no-color"])
    document = json.loads(capsys.readouterr().out)
    paths = {d["path"] for d in document["diagnostics"]}
    assert document["root"] == str((FIXTURES / "broken-agreement").resolve())
    prefix = f".agent/{inside}"
    assert paths and all(path.startswith(prefix) for path in paths)


def test_path_inside_a_repository_that_is_the_agent_dir(tmp_path, capsys):
    import shutil

    shutil.copytree(FIXTURES / "broken-agreement" / ".agent", tmp_path / "state")
    (tmp_path / "state" / ".git").mkdir()
    conversation = tmp_path / "state" / "conversations" / "C-payments-refactor"
    main([str(conversation), "--output-format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert document["root"] == str((tmp_path / "state").resolve())
    assert {"AL501", "AL503", "AL504"} <= {d["code"] for d in document["diagnostics"]}
    assert {d["path"].split("/")[1] for d in document["diagnostics"]} == {"C-payments-refactor"}
    main([str(conversation / "handoffs" / "state.json"), "--output-format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert document["root"] == str((tmp_path / "state").resolve())
    assert [d["code"] for d in document["diagnostics"]] == ["AL503"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--staged"], "--staged compares the git index with a base"),
        (["--exit-non-zero-on-fix"], "--exit-non-zero-on-fix needs --fix"),
        (["--statistics", "--output-format", "sarif"], "--statistics prints text or json"),
    ],
)
def test_options_that_need_another_option(capsys, args, message):
    assert main([str(VALID), *args]) == 2
    assert message in capsys.readouterr().err


def test_print_checksum_refuses_a_file_that_is_not_a_handoff(capsys):
    record = VALID / ".agent" / "decisions" / "D-001-storage-engine.json"
    assert main(["--print-checksum", str(record)]) == 2
    assert "not a conversation handoff" in capsys.readouterr().err
    handoff = VALID / ".agent/conversations/C-payments-refactor/handoffs/H-001.json"
    assert main(["--print-checksum", str(handoff)]) == 0
    assert capsys.readouterr().out.startswith("sha256:")


def test_a_folder_where_a_report_goes_is_refused_not_replaced(tmp_path, capsys):
    """A checkout may hold a folder at the report's path (forged results inside): exit 2, one
    line, the folder and its files untouched."""
    planted = tmp_path / "agent-lint.sarif"
    (planted / "forged.sarif").parent.mkdir()
    (planted / "forged.sarif").write_text("{}")
    assert main([str(VALID), "--no-cache", "--sarif-file", str(planted)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write the report to {planted}: it is a folder" in err
    assert "internal error" not in err
    assert [p.name for p in planted.iterdir()] == ["forged.sarif"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_report_to_a_pipe_or_device_is_written_to_it_not_replaced(tmp_path, capsys):
    """`--output-file /dev/null` must leave /dev/null a device: a pipe stands for it here
    (the report reaches its reader, and the pipe is still a pipe)."""
    import stat
    import threading

    pipe = tmp_path / "report"
    os.mkfifo(pipe)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
    reader.start()
    assert (
        main([str(VALID), "--no-cache", "--output-format", "json", "--output-file", str(pipe)]) == 0
    )
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert json.loads(got[0])["diagnostics"] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no temporary left


def test_a_job_summary_is_never_written_through_a_link_nor_to_a_folder(tmp_path, capsys):
    """A checkout may plant a link where the summary goes: exit 2, one line, the file the
    link names untouched; a folder there is the same one line."""
    victim = tmp_path / "victim.txt"
    victim.write_text("kept\n")
    planted = tmp_path / "summary.md"
    planted.symlink_to(victim)
    assert main([str(VALID), "--no-cache", "--summary-file", str(planted)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write the summary to {planted}: it is a symbolic link" in err
    assert victim.read_text() == "kept\n" and planted.is_symlink()
    folder = tmp_path / "sumdir"
    folder.mkdir()
    assert main([str(VALID), "--no-cache", "--summary-file", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write the summary to {folder}: it is a folder" in err
    assert "internal error" not in err


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="file modes")
def test_report_files_take_the_mode_the_umask_leaves(tmp_path, capsys):
    """A report or baseline is read by others (an upload step, a container): 0o666 less the
    umask, as any new file, not the 0o600 of its temporary; an existing one keeps its mode."""
    import stat

    old = os.umask(0o022)
    try:
        report = tmp_path / "report.json"
        assert (
            main(
                [str(VALID), "--no-cache", "--output-format", "json", "--output-file", str(report)]
            )
            == 0
        )
        assert stat.S_IMODE(report.stat().st_mode) == 0o644
        report.chmod(0o640)
        assert (
            main(
                [str(VALID), "--no-cache", "--output-format", "json", "--output-file", str(report)]
            )
            == 0
        )
        assert stat.S_IMODE(report.stat().st_mode) == 0o640
    finally:
        os.umask(old)
    capsys.readouterr()

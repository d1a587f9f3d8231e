"""The layers stay apart: only the validators and the profiles emit codes; the engine names
no layout.

The engine (discovery, loading, the per-file step, the index, the lint pass,
the gate, the reporters) returns typed problems (``agent_lint.problems``);
functions in ``agent_lint/validators/`` and the profiles' own modules make
them findings. The scans below read the source, so a new module that breaks
either rule fails here whatever the tests of its behaviour do.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import REPO

from agent_lint import profiles
from agent_lint.diagnostics import Diagnostic
from agent_lint.problems import EntryIssue, EntryProblem, GateIssue, GateProblem
from agent_lint.profiles.cortex.kinds import KINDS as CORTEX_KINDS
from agent_lint.profiles.cortex.kinds import NAMESPACES as CORTEX_NAMESPACES
from agent_lint.rules import all_rules
from agent_lint.validators import files, history

PACKAGE = REPO / "agent_lint"


def _modules(*, emitters: bool) -> list[Path]:
    """The package's modules: the emitting layer (validators, profiles) or everything else."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        emitting = parts[0] == "validators" or (parts[0] == "profiles" and len(parts) > 2)
        if emitting == emitters:
            found.append(path)
    return found


def _is_rule(node: ast.expr) -> bool:
    """Whether an expression looks like a rule: ``UNREADABLE``, ``files.UNREADABLE``,
    ``_BY_ISSUE[issue]`` or ``rules_by_code()[code]``."""
    if isinstance(node, ast.Subscript):
        return _is_rule(node.value) or isinstance(node.value, ast.Call)
    if isinstance(node, ast.Call):
        return _is_rule(node.func)
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    letters = name.strip("_")
    return bool(letters) and letters.upper() == letters and any(ch.isalpha() for ch in letters)


def _root(node: ast.expr) -> str:
    """The name an attribute or subscript chain starts from (``self`` in ``self.a[k].b``)."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def emitted_codes(source: str) -> list[tuple[int, str]]:
    """Where ``source`` makes a finding itself: ``RULE.at(...)`` or ``Diagnostic(...)``.

    Any ``.at(...)`` counts but a method of the object's own parts that is
    not a rule (a Markdown scanner's ``self.text.at(position)``).
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        own = isinstance(func, ast.Attribute) and _root(func.value) == "self"
        emits = (
            isinstance(func, ast.Attribute)
            and func.attr == "at"
            and (not own or _is_rule(func.value))
        )
        makes = isinstance(func, ast.Name | ast.Attribute) and ast.unparse(func).endswith(
            "Diagnostic"
        )
        if emits or makes:
            found.append((node.lineno, ast.unparse(func)))
    return found


@pytest.mark.parametrize(
    "source",
    [
        "rules.UNREADABLE.at(path, 'x')",
        "LIMIT_EXCEEDED.at(ctx.path, 'too deep', line=1)",
        "_BY_ISSUE[problem.issue].at(problem.path, problem.message)",
        "rules_by_code()['AL001'].at('p', 'm')",
        "rule.at(path, 'message')",
        "self.RULE.at(path, 'message')",
        "Diagnostic(code='AL001', name='x', severity=s, message='m', path='p')",
        "diagnostics.Diagnostic(code='AL001')",
    ],
)
def test_the_scan_sees_a_finding_made_outside_the_validators(source):
    assert emitted_codes(source)


@pytest.mark.parametrize("source", ["self.text.at(position)", "self.quotes[key].at(i + 1)"])
def test_the_scan_leaves_other_at_methods_alone(source):
    assert emitted_codes(source) == []


def test_only_validators_and_profiles_emit_codes():
    """Discovery, loading, the per-file step, the gate and the reporters call no ``Rule.at``."""
    offenders = {}
    for path in _modules(emitters=False):
        if path.name == "diagnostics.py" and path.parent == PACKAGE:
            continue  # defines Rule.at and Diagnostic
        found = emitted_codes(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(REPO))] = found
    assert offenders == {}


def test_every_typed_problem_has_the_rule_of_its_name():
    """Each issue's value is its rule's name, and the validators map every issue."""
    by_name = {rule.name: rule for rule in all_rules()}
    for issue in EntryIssue:
        finding = files.diagnose_entry(EntryProblem(issue, "p", "m"))
        assert finding.code == by_name[issue.value].code, issue
    for gate_issue in GateIssue:
        finding = history.diagnose(GateProblem(gate_issue, "p", "m", line=3, column=1))
        assert (finding.code, finding.line, finding.column) == (
            by_name[gate_issue.value].code,
            3,
            1,
        ), gate_issue
    assert isinstance(finding, Diagnostic)


def _names_in_code(tree: ast.Module) -> list[tuple[int, str]]:
    """String constants of a module, leaving out docstrings, enum members and rule texts.

    A rule's explanation and examples (``Rule(...)``) are documentation for
    people and may show a layout's paths; enum members (``NameRule.TURN =
    "turn"``) are the kind vocabulary's own words.
    """
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            assert isinstance(body, list)
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                skipped.add(id(body[0].value))
        if isinstance(node, ast.ClassDef):
            skipped.update(id(s.value) for s in node.body if isinstance(s, ast.Assign))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Rule"
        ):
            skipped.update(id(sub) for sub in ast.walk(node))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in skipped
    ]


def _engine_modules() -> list[Path]:
    """Every module outside ``agent_lint/profiles/``."""
    return [
        p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).parts[0] != "profiles"
    ]


def test_the_engine_and_the_generic_validators_name_no_profile_and_no_cortex_kind():
    """Outside ``profiles/``, no module imports a built-in profile or names one or its kinds."""
    forbidden = (
        {kind.name for kind in CORTEX_KINDS}
        | set(CORTEX_NAMESPACES)
        | set(profiles.BUILTIN)
        | {".agent", "conversations/"}
    )
    id_prefixes = ("H-", "D-", "M-", "MS-", "C-", "WP-")  # Cortex record id prefixes
    offenders = []
    for path in _engine_modules():
        shown = str(path.relative_to(REPO))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, value in _names_in_code(tree):
            if value in forbidden or value.startswith(id_prefixes):
                offenders.append((shown, line, value))
        for node in ast.walk(tree):
            imported = []
            if isinstance(node, ast.ImportFrom) and node.module:
                imported = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            for name in imported:
                parts = name.split(".")
                builtin = len(parts) > 2 and parts[2] in profiles.BUILTIN
                if parts[:2] == ["agent_lint", "profiles"] and builtin:
                    offenders.append((shown, node.lineno, name))
    assert offenders == []


def test_the_name_scan_sees_a_kind_named_in_code():
    source = '"""A docstring may say conversation."""\nif kind.name == "conversation":\n    pass\n'
    assert _names_in_code(ast.parse(source)) == [(2, "conversation")]

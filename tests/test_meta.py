"""Rules are unique, documented, listed, and demonstrated by a test."""

from __future__ import annotations

import re
from pathlib import Path

from agent_lint.rules import all_rules, rule_for, rules_by_code

RULES = all_rules()

TESTS = Path(__file__).resolve().parent


def test_codes_and_names_are_unique():
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)


def test_a_finding_s_rule_is_the_catalogue_s():
    """The lookup that loads no other profile gives the catalogue's rule for every code."""
    for rule in all_rules():
        assert rule_for(rule.code) is rules_by_code()[rule.code] is rule


def test_codes_follow_the_family_scheme():
    for rule in RULES:
        assert re.fullmatch(r"AL[0-9]\d\d", rule.code), rule.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name


def test_every_rule_is_documented():
    for rule in RULES:
        assert rule.summary and not rule.summary.endswith(".")
        assert len(rule.explanation) > 80, rule.code
        assert rule.bad and rule.good and rule.bad != rule.good, rule.code


def test_every_rule_is_demonstrated_by_a_test():
    text = "\n".join(p.read_text(encoding="utf-8") for p in TESTS.glob("test_*.py"))
    missing = [r.code for r in RULES if f'"{r.code}"' not in text]
    assert missing == []


def test_every_check_has_a_docstring():
    from agent_lint.profiles import builtin

    for profile in builtin():
        for check in (*profile.file_checks, *profile.repo_checks):
            assert check.run.__doc__, check.name


def test_bundled_schemas_are_valid_json_schemas():
    import json

    import jsonschema

    from agent_lint.schemas import bundled_schema_dir

    paths = sorted(bundled_schema_dir().glob("cortex/*.schema.json"))
    assert len(paths) == 25
    for path in paths:
        schema = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validators.validator_for(schema).check_schema(schema)
        kind = path.name.removesuffix(".schema.json")
        assert schema["$id"] == f"urn:agent-lint:cortex:{kind}"


def test_every_rule_is_in_the_readme_exactly_once():
    readme = (TESTS.parent / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (AL\d{3}) \| ([a-z0-9-]+) \|", readme, flags=re.MULTILINE)
    assert sorted(rows) == sorted((r.code, r.name) for r in RULES)


def test_license_file_matches_the_package_metadata():
    import tomllib

    project = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())["project"]
    text = (TESTS.parent / "LICENSE").read_text(encoding="utf-8")
    assert project["license"] == "MIT" and text.startswith("MIT License\n")
    [author] = project["authors"]
    assert re.search(rf"^Copyright \(c\) \d{{4}} {re.escape(author['name'])}$", text, re.M)
    assert "Permission is hereby granted, free of charge" in text

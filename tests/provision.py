"""Fetch the test data that comes from package registries, before pytest runs.

Tests never reach the network, so the README's test command runs this first
(``python tests/provision.py``); a later run reuses what is in ``.cache/``:

- ``.cache/wheelhouse/``: wheels of agent-lint's dependencies and build backend,
  at the versions of ``constraints.txt``, so the pre-commit and GitHub Action
  tests install agent-lint into fresh environments offline;
- ``.cache/sarif-schema-2.1.0.json``: the official SARIF 2.1.0 schema, taken
  from an npm package that ships it (``npm pack`` runs no package scripts) and
  checked against its SHA-256.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache"
WHEELHOUSE = CACHE / "wheelhouse"
SARIF_SCHEMA = CACHE / "sarif-schema-2.1.0.json"

SARIF_PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"
SARIF_MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"
SARIF_SHA256 = "2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8"


def _requirements() -> list[str]:
    """agent-lint's runtime dependencies and its build backend, from pyproject.toml."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return [*project["build-system"]["requires"], *project["project"]["dependencies"]]


def wheelhouse() -> None:
    """Download the wheels once per set of requirements, constraints and Python version."""
    constraints = REPO / "constraints.txt"
    key = hashlib.sha256(
        "\n".join([*_requirements(), constraints.read_text(encoding="utf-8"), sys.version]).encode()
    ).hexdigest()
    marker = WHEELHOUSE / ".provisioned"
    if marker.is_file() and marker.read_text(encoding="ascii").strip() == key:
        return
    WHEELHOUSE.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
         "--dest", str(WHEELHOUSE), "--constraint", str(constraints), *_requirements()],
        check=True,
    )  # fmt: skip
    marker.write_text(key + "\n", encoding="ascii")


def sarif_schema() -> None:
    """Unpack the SARIF 2.1.0 schema from its npm package and check its digest."""
    if SARIF_SCHEMA.is_file() and _sha256(SARIF_SCHEMA.read_bytes()) == SARIF_SHA256:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("provision: npm is needed once to fetch the SARIF 2.1.0 schema")
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [npm, "pack", "--silent", "--ignore-scripts", SARIF_PACKAGE],
            cwd=folder, check=True, capture_output=True, text=True,
        )  # fmt: skip
        archive = Path(folder) / done.stdout.strip().splitlines()[-1]
        with tarfile.open(archive, "r:gz") as tar:
            member = tar.extractfile(SARIF_MEMBER)
            if member is None:
                raise SystemExit(f"provision: {SARIF_MEMBER} is missing from {SARIF_PACKAGE}")
            data = member.read()
    if _sha256(data) != SARIF_SHA256:
        raise SystemExit(f"provision: the SARIF schema in {SARIF_PACKAGE} has another digest")
    CACHE.mkdir(parents=True, exist_ok=True)
    SARIF_SCHEMA.write_bytes(data)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main() -> int:
    """Provision everything; exit 0 when the cache is complete."""
    wheelhouse()
    sarif_schema()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Which CI service a run is on, and whether it judges a pull request, from the environment.

The environment is the CI service's, never the repository's: a change under review
cannot set it. A service agent-lint does not know, or a service whose variables do not
tell a pull request from a push, counts as judging one (fail closed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping


def _set(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in ("", "0", "false")


def _named(value: str | None) -> bool:
    return value is not None and value.strip() != ""


#: GitHub events whose run is no pull request's code: a push, or one a maintainer starts.
#: Any other event (pull_request*, merge_group, issue_comment, workflow_run, …) may run a
#: change under review, and counts as one.
_GITHUB_TRUSTED_EVENTS = frozenset(
    {"push", "schedule", "workflow_dispatch", "repository_dispatch", "release", "create"}
)


def _jenkins(env: Mapping[str, str]) -> bool | None:
    """A Jenkins pull request (multibranch, GitHub or GitLab plugins); False for a
    multibranch branch build; None (cannot tell) for any other job."""
    if any(_named(env.get(name)) for name in ("CHANGE_ID", "ghprbPullId", "gitlabMergeRequestIid")):
        return True
    return False if _named(env.get("BRANCH_NAME")) else None


#: Known services: the variable that names each, and how it tells a pull request (or
#: merge request) run from a push, from its own variables.
_SERVICES: tuple[tuple[str, str, Callable[[Mapping[str, str]], bool | None]], ...] = (
    ("GitHub Actions", "GITHUB_ACTIONS",
     lambda env: env.get("GITHUB_EVENT_NAME") not in _GITHUB_TRUSTED_EVENTS),
    ("GitLab CI", "GITLAB_CI",
     lambda env: _named(env.get("CI_MERGE_REQUEST_IID"))
     or _named(env.get("CI_EXTERNAL_PULL_REQUEST_IID"))),
    ("Azure Pipelines", "TF_BUILD",
     lambda env: env.get("BUILD_REASON") == "PullRequest"
     or _named(env.get("SYSTEM_PULLREQUEST_PULLREQUESTID"))),
    ("Jenkins", "JENKINS_URL", _jenkins),
    ("Buildkite", "BUILDKITE", lambda env: _set(env.get("BUILDKITE_PULL_REQUEST"))),
    ("CircleCI", "CIRCLECI",
     lambda env: _named(env.get("CIRCLE_PULL_REQUEST")) or _named(env.get("CIRCLE_PR_NUMBER"))),
    ("Travis CI", "TRAVIS", lambda env: _set(env.get("TRAVIS_PULL_REQUEST"))),
    ("Bitbucket Pipelines", "BITBUCKET_BUILD_NUMBER",
     lambda env: _named(env.get("BITBUCKET_PR_ID"))),
    ("AppVeyor", "APPVEYOR", lambda env: _named(env.get("APPVEYOR_PULL_REQUEST_NUMBER"))),
)  # fmt: skip

#: Variables that show a CI service whose runs agent-lint cannot tell apart.
_OTHER_SERVICES = ("CI", "TEAMCITY_VERSION", "CODEBUILD_BUILD_ID", "DRONE")


def judges_a_change(env: Mapping[str, str] | None = None) -> str | None:
    """Why the run may be judging a change it cannot trust (a pull request on a CI
    service, or a CI service whose runs cannot be told apart), or None (a local run, or
    a known service's push build)."""
    env = os.environ if env is None else env
    for name, variable, pull_request in _SERVICES:
        if _set(env.get(variable)):
            verdict = pull_request(env)
            if verdict is None:
                return f"a {name} run that may judge a pull request (its kind is not told)"
            return f"a pull request on {name}" if verdict else None
    # A Jenkins build without JENKINS_URL (its URL not configured) still tags its builds;
    # JENKINS_HOME is not asked: a machine running Jenkins may export it to every shell.
    if env.get("BUILD_TAG", "").startswith("jenkins-"):
        verdict = _jenkins(env)
        return None if verdict is False else "a Jenkins run that may judge a pull request"
    for variable in _OTHER_SERVICES:
        if _set(env.get(variable)):
            return f"a CI run ({variable} is set) that may judge a pull request"
    return None

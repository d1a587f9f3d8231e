"""Telling a CI run that may judge a pull request from the service's own environment."""

from __future__ import annotations

import pytest

from agent_lint.cienv import judges_a_change


@pytest.mark.parametrize(
    ("env", "judged"),
    [
        ({}, False),
        ({"JENKINS_HOME": "/var/lib/jenkins"}, False),  # a machine that runs Jenkins, locally
        ({"CI": "0"}, False),
        ({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push"}, False),
        ({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_dispatch"}, False),
        ({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request_review"}, True),
        ({"GITHUB_ACTIONS": "true"}, True),  # no event named: fail closed
        ({"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "3"}, True),
        ({"GITLAB_CI": "true"}, False),
        ({"TF_BUILD": "True", "BUILD_REASON": "IndividualCI"}, False),
        ({"BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "false"}, False),
        ({"BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "12"}, True),
        ({"TRAVIS": "true", "TRAVIS_PULL_REQUEST": "false"}, False),
        ({"BUILD_TAG": "jenkins-pay-3", "BRANCH_NAME": "main"}, False),
        ({"BUILD_TAG": "jenkins-pay-3"}, True),
        ({"TEAMCITY_VERSION": "2024.1"}, True),
    ],
)
def test_which_runs_may_judge_a_pull_request(env, judged):
    """Known services tell their pull requests; anything else on CI fails closed."""
    assert (judges_a_change(env) is not None) is judged

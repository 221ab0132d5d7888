"""Who decides the required status of a pull request's code checks, on the Action (pure).

Prow's rule (issue 17): nothing a PR's author controls decides the required status of their PR,
unless they are trusted. The publishing workflow runs in the base repository with the base's
gradgate and config; it reruns the checks that only read git objects for every PR, and for the
checks that run the PR's code, takes the results from:

  uploaded  a PR from a branch of this repository: its pushers have write access, and its own
            `pull_request` run (with the repository's runners) stands
  run       a fork's PR whose author has write access, or whose head someone with write access
            approved with `/ok-to-test <sha>`: the publishing workflow runs them itself, under
            bubblewrap, on the runners the base's `runners:` names
  wait      any other fork's PR: they wait ("waiting for approval to run code from a fork");
            the fork's own run is advisory, never published
"""

from __future__ import annotations

from enum import StrEnum


class CodeChecks(StrEnum):
    UPLOADED = "uploaded"
    RUN = "run"
    WAIT = "wait"


def code_checks(*, same_repo: bool, author_can_write: bool, approved: bool) -> CodeChecks:
    if same_repo:
        return CodeChecks.UPLOADED
    if author_can_write or approved:
        return CodeChecks.RUN
    return CodeChecks.WAIT

"""One verdict per commit, in the App (issue 34): the other open pull requests with a head, each
with the result the store holds for it there, and a head weighed again when a PR stops counting.

Each PR is gated against its own base and its report is stored (``PullRequests.set_report``);
the store also records which PRs each head SHA was the head of. What a job publishes on its head
is the most severe of its own result and these (``bot.github.commit``). A PR open with the head
but not yet judged (its job still to run, or its delivery lost) counts as pending until its own
job publishes, and weighs this one then: no other PR's pass stands for it meanwhile. A PR closed
or pushed over stops counting: the API says which PRs are open with the head now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from gradgate.bot.app.combine import from_wire
from gradgate.bot.app.jobs import PullRequest
from gradgate.bot.app.state import State
from gradgate.bot.github.commit import Gate, worst
from gradgate.bot.github.ports import GitHubPort
from gradgate.bot.github.publish import post_commit
from gradgate.bot.report.render import Report

Shown = Callable[[Report], Report]  # a stored report as the door shows it (links, re-run words)


def others(
    state: State, port: GitHubPort, pr: PullRequest, head_sha: str, *, shown: Shown
) -> list[Gate]:
    """The PRs other than ``pr`` open now with ``head_sha`` as head, that have a stored result
    for it."""
    out = []
    for number in state.prs.prs_of_head(pr.repo, head_sha):
        wire = state.prs.report(replace(pr, number=number).key)
        if number == pr.number or wire is None:
            continue
        stored = from_wire(wire)
        if stored.head_sha != head_sha:
            continue
        pull = port.pull(number)
        if pull.state == "open" and pull.head_sha == head_sha:
            out.append(Gate(number, pull.base_ref, shown(stored)))
    return out


def recount(
    state: State, port: GitHubPort, pr: PullRequest, head_sha: str, *, shown: Shown
) -> Gate | None:
    """``pr`` no longer counts on ``head_sha``: the most severe result of the open PRs left with
    it as head is published there again; none left, it stays as it was. Whose was published."""
    gates = others(state, port, pr, head_sha, shown=shown)
    if not gates:
        return None
    top = worst(gates)
    post_commit(port, top, len(gates), details_url=None)
    return top


def waiting(
    port: GitHubPort, pr: PullRequest, head_sha: str, gates: list[Gate]
) -> list[tuple[int, str]]:
    """The PRs open with ``head_sha`` as head, other than ``pr``, that have no result in
    ``gates``: (number, base branch), as GitHub lists them."""
    known = {pr.number, *(g.number for g in gates)}
    return [(p.number, p.base_ref) for p in port.open_pulls(head_sha) if p.number not in known]

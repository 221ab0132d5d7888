"""The other open pull requests with a head, as GitHub itself shows them, for a door with no
store of its own (the Action): one verdict per commit (issue 34, ``commit``).

Each rival's own result is what it published: its report comment's hidden stamp (verdict, base,
config; only gradgate's own comments count) and the check runs on the head that carry that
stamp as their external id, or, where the token could not write checks, the newest status of
each context whose description ends with that base and config. A rival counts once its overall
result is there; one still running weighs this PR's result itself when it publishes. When a
rival's result is more severe than the report a run just published, it is posted again as the
newest (``repost``): GitHub shows the newest check run of each name and the newest status of
each context, and a required check reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gradgate.bot.github.checkruns import stamp
from gradgate.bot.github.commit import NOT_GATED, Origin
from gradgate.bot.github.ports import CheckRun, CheckRunState, CommitStatus, GitHubPort, Status
from gradgate.bot.github.statuses import fit, suffix
from gradgate.bot.github.sticky import ours, shown
from gradgate.bot.templates import render_template

_SEVERITY = {"failure": 4, "error": 3, "pending": 2}
OVERALL = "gradgate"


@dataclass(frozen=True, slots=True)
class Rival:
    number: int
    base_ref: str
    verdict: str  # its stamp's: success, failure, error, pending
    runs: Mapping[str, CheckRunState]  # its completed check runs on the head, newest by name
    statuses: Mapping[str, CommitStatus]  # or its statuses, newest by context
    computed_for: str  # the end of its statuses' descriptions: the base and config


def rivals(port: GitHubPort, head_sha: str, *, number: int, bot_login: str) -> list[Rival]:
    """The open PRs other than ``number`` with ``head_sha`` as head that published a result
    for it, in PR order."""
    pulls = [p for p in port.open_pulls(head_sha) if p.number != number]
    if not pulls:
        return []
    listed = sorted(port.check_runs(head_sha), key=lambda r: r.id)
    newest_first = port.statuses(head_sha)
    out = []
    for pull in sorted(pulls, key=lambda p: p.number):
        said = shown(ours(port.comments(pull.number), bot_login=bot_login))
        if said is None or said.head != head_sha:
            continue
        external = stamp(head_sha, said.base, said.config)
        runs = {r.name: r for r in listed if r.external_id == external and r.status == "completed"}
        end = suffix(_known(said.base), _known(said.config))
        statuses: dict[str, CommitStatus] = {}
        for status in newest_first:
            if _ours(status.context) and status.description.endswith(end):
                statuses.setdefault(status.context, status)
        if OVERALL in runs or OVERALL in statuses:
            out.append(Rival(pull.number, pull.base_ref, said.verdict, runs, statuses, end))
    return out


def waiting(
    port: GitHubPort, head_sha: str, *, number: int, found: list[Rival]
) -> list[tuple[int, str]]:
    """The open PRs other than ``number`` with ``head_sha`` as head and no result of their own
    for it among ``found`` (their run still going, or never started): (number, base branch).
    They count as pending on the commit until they publish (``commit.unjudged``)."""
    known = {number, *(r.number for r in found)}
    return [(p.number, p.base_ref) for p in port.open_pulls(head_sha) if p.number not in known]


def _known(value: str) -> str | None:
    return None if value == "none" else value


def _ours(context: str) -> bool:
    return context == OVERALL or context.startswith(OVERALL + "/")


def severity(rival: Rival) -> int:
    """As ``commit.severity``: a pass published as not gated outranks a pass."""
    if rival.verdict in _SEVERITY:
        return _SEVERITY[rival.verdict]
    if OVERALL in rival.runs:
        return 1 if rival.runs[OVERALL].conclusion == NOT_GATED else 0
    return 1 if rival.statuses[OVERALL].state == "pending" else 0  # not gated, as a status


def repost(
    port: GitHubPort, head_sha: str, rival: Rival, *, weighed: int, details_url: str | None
) -> None:
    """``rival``'s check runs posted on ``head_sha`` again, as the newest of their names,
    naming the PR and base they came from."""
    said = render_template("commit_origin.txt.j2", o=Origin(rival.number, rival.base_ref, weighed))
    prefix = said.strip() + " "
    for name, run in rival.runs.items():
        title = run.title or name
        if not title.startswith(prefix):
            title = prefix + title
        again = CheckRun(
            name=name,
            conclusion=run.conclusion,
            title=title,
            summary=run.summary or title,
            details_url=details_url,
            external_id=run.external_id,
        )
        port.create_check_run(head_sha, again)
    for context, status in rival.statuses.items() if not rival.runs else ():
        words = status.description.removesuffix(rival.computed_for)
        if not words.startswith(prefix):
            words = prefix + words
        described = fit(words, rival.computed_for)
        port.set_status(head_sha, Status(context, status.state, described, details_url))  # type: ignore[arg-type]

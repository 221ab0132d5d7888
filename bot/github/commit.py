"""One verdict per commit (pure, issue 34): what gradgate publishes on a head is the most severe
result of every open pull request that has it as head.

Check runs and statuses hang off the commit, not the pull request, and a required check reads
the newest of its name on the commit. So a second PR with the same head (a fork's branch opened
again into a branch with no config, say) must not be able to post a pass over the first one's
failure: each PR is still gated against its own base, and the commit shows the worst of them,
naming the PR and base it came from. A PR into a branch with no `.gradgate.yml` was not gated
by anyone's policy: its pass is published as "not gated here" (a `neutral` check run, a
`pending` status), never as `success`.

    gated      the report's policy came from its base (or a --config file), not the head
    severity   failure > error > pending > not gated > success
    worst      the Gate (PR, base, report) to publish, among the open PRs' gates
    unjudged   an open PR with the head whose own result is not in yet: pending, so that no
               other PR's pass (a `neutral` one included, which GitHub's branch protection
               accepts for a required check) stands for it before it is judged
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gradgate.bot.plan.plan import ConfigOrigin
from gradgate.bot.report.render import Report, status_descriptions
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template

# The state of a context that must not read as a pass: check runs say `neutral`, statuses
# (GitHub has no neutral one) `pending`.
NOT_GATED = "neutral"
_SEVERITY = {Verdict.FAILURE: 4, Verdict.ERROR: 3, Verdict.PENDING: 2}
_PASSING = frozenset({"success", "skipped"})


@dataclass(frozen=True, slots=True)
class Origin:
    """Which pull request a result on the commit came from, and how many open ones were weighed."""

    number: int | None = None  # None: not known (a run outside a pull request)
    base_ref: str | None = None  # the base branch's name
    weighed: int = 1  # open pull requests with this head, this one included
    judged: bool = True  # False: the PR shown has no result of its own for the head yet


@dataclass(frozen=True, slots=True)
class Gate:
    """One open pull request's own result for a head."""

    number: int
    base_ref: str
    report: Report
    judged: bool = True  # False: ``unjudged``, the report is another PR's, held pending


def unjudged(number: int, base_ref: str, report: Report) -> Gate:
    """Open PR ``number`` has this head but no result for it yet (its run is still going, or
    never came): it counts as pending, worded with ``report``, the result at hand. Computed
    against no base or config of its own, so that nothing reads it as ``report``'s result."""
    held = replace(report, verdict=Verdict.PENDING, base_sha=None, config_hash=None)
    return Gate(number, base_ref, held, judged=False)


def gated(report: Report) -> bool:
    """Whether a policy the PR's author does not control judged it: the base's config, or a
    `--config` file. No config at base (the head's adopted, or the built-in) is not gated."""
    plan = report.plan
    return plan is None or plan.config_origin in (ConfigOrigin.BASE, ConfigOrigin.FILE)


def severity(report: Report) -> int:
    """A failure (a definite regression) outranks an error, as in ``verdict_for``."""
    if report.verdict in _SEVERITY:
        return _SEVERITY[report.verdict]
    return 0 if gated(report) else 1


def worst(gates: Sequence[Gate]) -> Gate:
    """The gate to publish on the commit: the most severe; of equals, the lowest PR number."""
    if not gates:
        raise ValueError("no open pull request has this head")
    return max(gates, key=lambda g: (severity(g.report), -g.number))


def on_commit(report: Report, origin: Origin | None) -> Mapping[str, tuple[str, str]]:
    """Status context -> (state, description) as published on the commit: the report's own,
    with "not gated here" for what would pass without a base config, and the PR it came from
    when several share the head. State ``NOT_GATED`` is the caller's to spell."""
    origin = origin or Origin()
    is_gated = gated(report)
    said = render_template("commit_origin.txt.j2", o=origin).strip()
    prefix = f"{said} " if said else ""
    out: dict[str, tuple[str, str]] = {}
    for context, (state, description) in status_descriptions(report).items():
        if not is_gated and state == "success":
            state = NOT_GATED
            if context == "gradgate":
                description = render_template(
                    "commit_not_gated.txt.j2", base_ref=origin.base_ref
                ).strip()
        out[context] = (state, prefix + description)
    return out


def conclusion(report: Report, conclusion: str | None) -> str | None:
    """A check run's conclusion on the commit: a pass without a base config is `neutral`."""
    return NOT_GATED if conclusion in _PASSING and not gated(report) else conclusion


def summary_note(report: Report, origin: Origin | None) -> str:
    """The lines a check run's summary starts with on the commit: where the verdict came from,
    and that it was not gated; empty when neither applies."""
    origin = origin or Origin()
    return render_template("commit_note.md.j2", o=origin, gated=gated(report)).strip()

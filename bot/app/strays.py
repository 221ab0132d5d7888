"""Check runs left in progress on a head by an attempt that did not finish, found on GitHub and
concluded, so every check suite completes (issue 18).

A worker killed after its plan marked the checks in progress leaves those check runs; the job
runs again (the reaper re-enqueues it) and makes new ones. A create whose answer was lost (a
5xx after GitHub made the run) is retried and makes a second run; gradgate knows only one of
them. Neither can be known from what a job holds, so after a job publishes a head (or gives one
up to a newer push) it lists its App's check runs on that commit and concludes each one still in
progress that it does not hand on (a GPU half's):

    the head is still the PR's   a run of a name the report completed gets the same conclusion
                                 and output; a name it no longer has, `cancelled`
    a newer push replaced it     `cancelled`, saying which push (as ``marks`` does for its own)
"""

from __future__ import annotations

from collections.abc import Collection

from gradgate.bot.github.checkruns import final_check_runs, superseded_check_runs
from gradgate.bot.github.ports import CheckRun, CheckRunState, GitHubPort
from gradgate.bot.report.render import Report
from gradgate.bot.templates import render_template
from gradgate.checks.errors import GitHubError

OVERALL = "gradgate"


def left_running(listed: Collection[CheckRunState], *, app: str) -> list[CheckRunState]:
    """gradgate's check runs (by this App) not completed: each still shows as in progress."""
    return [
        r
        for r in listed
        if r.status != "completed"
        and r.app in (None, app)  # GitHub names the App; a fake may not
        and (r.name == OVERALL or r.name.startswith(OVERALL + "/"))
    ]


def replacements(
    strays: Collection[CheckRunState], *, report: Report | None, head_sha: str, newer_head: str
) -> list[tuple[int, CheckRun]]:
    """What each stray is concluded with (pure). ``report``: the head's, when it is current."""
    if report is None:
        done = superseded_check_runs(
            [s.name for s in strays], head_sha=head_sha, newer_head=newer_head, details_url=None
        )
        return [(s.id, run) for s, run in zip(strays, done, strict=True)]
    finals = {r.name: r for r in final_check_runs(report, details_url=None)}
    title = render_template("github_abandoned.txt.j2").strip()
    out: list[tuple[int, CheckRun]] = []
    for stray in strays:
        final = finals.get(stray.name)
        if final is None:
            out.append((stray.id, CheckRun(stray.name, "cancelled", title, title)))
        elif final.conclusion is not None:  # one still waiting (a GPU half) is left to it
            out.append((stray.id, final))
    return out


def conclude_strays(
    port: GitHubPort,
    head_sha: str,
    *,
    app: str,
    keep: Collection[int],
    report: Report | None,
    newer_head: str,
) -> int:
    """Conclude what is left in progress on ``head_sha`` but ``keep``; how many. Every stray is
    tried; the first failure is raised after."""
    strays = [s for s in left_running(port.check_runs(head_sha), app=app) if s.id not in keep]
    failed: GitHubError | None = None
    done = 0
    for run_id, run in replacements(
        strays, report=report, head_sha=head_sha, newer_head=newer_head
    ):
        try:
            port.update_check_run(run_id, run)
            done += 1
        except GitHubError as exc:
            failed = failed or exc
    if failed is not None:
        raise failed
    return done

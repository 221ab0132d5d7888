"""Who may run a pull request's code, and what waits meanwhile (pure).

A PR whose author has write access runs every check. Otherwise the checks that execute PR code
wait until someone with write access approves the head (`/ok-to-test [<sha>]` or the
`ok-to-test` label; ``approval`` says which head that is); the approval names the head SHA, so
the next push ends it. Static checks run at once. A check that needs a
GPU waits for a GPU worker (the CPU worker defers it; the GPU half runs it).
"""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum

from gradgate.bot.pipeline import Hold
from gradgate.bot.plan.plan import PlannedCheck
from gradgate.bot.report.render import Report
from gradgate.bot.templates import render_template
from gradgate.checks import REGISTRY
from gradgate.checks.base import CheckSettings, Outcome


class Gpu(StrEnum):
    DEFER = "defer"  # a CPU worker: checks that need a GPU wait for the GPU half
    RUN = "run"  # a GPU worker, or a deployment without GPU workers: run everything here


def may_run_code(*, author_can_write: bool, approved: Collection[str], head_sha: str) -> bool:
    """The author's own access, or an approval given for exactly this head (``approved``: the
    heads approved so far; a re-run or `/recheck` of one of them runs its code again)."""
    return author_can_write or head_sha in approved


def needs_gpu(settings: CheckSettings, *, auto_to_gpu: bool) -> bool:
    """A check set to `device: cuda` needs a GPU worker; `auto` does when GPU workers exist."""
    device = getattr(settings, "device", "cpu")
    return device == "cuda" or (device == "auto" and auto_to_gpu)


def runs_without_user_code(check: str) -> bool:
    """A code-running check with a static part runs that part at once for an untrusted PR.

    A check opts in with ``runs_without_user_code = True`` (``checks.base.Check``) and, when
    ``ctx.user_code`` is False, does only what reads files and never calls ``run_user_code``
    (which refuses then). The checkpoint check does: it reads its references (safetensors
    headers, pickle opcodes) and fails if the PR broke one, else waits (never passes: the
    part that loads the model has not run), so the verdict stays pending until `/ok-to-test`."""
    known = REGISTRY.get(check)
    return known is not None and known.runs_without_user_code


def message(what: str, **values: object) -> str:
    return render_template("app_message.txt.j2", what=what, **values).strip()


def hold_for(*, user_code: bool, gpu: Gpu, auto_to_gpu: bool) -> Hold:
    """The pipeline's step-5 gate for one run of the App."""

    def hold(check: PlannedCheck, settings: CheckSettings) -> str | None:
        if not check.runs_user_code:
            return None
        if not user_code:  # a static part runs now, and needs no GPU
            return None if runs_without_user_code(check.name) else message("wait-ok-to-test")
        if gpu is Gpu.DEFER and needs_gpu(settings, auto_to_gpu=auto_to_gpu):
            return message("wait-gpu")
        return None

    return hold


def deferred_to_gpu(report: Report) -> tuple[str, ...]:
    """The checks a run left waiting for a GPU worker."""
    gpu_words = message("wait-gpu")
    return tuple(
        r.check for r in report.results if r.outcome is Outcome.WAITING and r.summary == gpu_words
    )

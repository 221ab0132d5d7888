"""The words of the `commands` check: one finding per command the verdict did not pass."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from gradgate.checks.base import Finding, Severity
from gradgate.checks.commands.found import Command
from gradgate.checks.commands.launch import DISTRIBUTED, PYTHON, QUIET, Plan
from gradgate.checks.commands.verdict import SEVERITY, Kind, Ran, in_diff
from gradgate.checks.diff import LineSpan

_TAIL_LINES = 30


def finding(
    command: Command,
    kind: Kind,
    *,
    plan: Plan,
    head: Ran,
    base: Ran | None,
    changed: Mapping[str, tuple[LineSpan, ...]],
    limit_s: float,
    wanted: str | None = None,
) -> Finding:
    shown = f"`{command.text}` ({command.place}, run as `{run_as(plan)}`)"
    failure, file, line = _failure(head, changed)
    if kind is Kind.BROKE:
        message = f"{shown} runs at base and fails at head: {failure}."
    elif kind is Kind.TIMEOUT:
        took = f" in {base.seconds:.1f} s" if base is not None else ""
        message = (
            f"{shown} finished at base{took} and did not finish at head within "
            f"`command_timeout_s` ({limit_s:g} s); it was stopped."
        )
    elif kind is Kind.ADDED_BROKEN:
        message = f"{shown} is new in this pull request and does not start: {failure}."
    elif kind is Kind.FAILS_AT_BASE:
        message = f"{shown} fails at base too, so not because of this pull request: {failure}."
    else:  # NEEDS_DATA
        message = (
            f"{shown} needs data the repository does not have: it wanted `{wanted}`. Name a "
            "`prepare` command (or `exclude` it) under `checks.commands` to run it here."
        )
        if wanted == "the network":
            message = (
                f"{shown} needs the network, which the sandbox closes: {failure}. Name a "
                "`prepare` command, set `network: true`, or `exclude` it under "
                "`checks.commands`."
            )
    blocking = SEVERITY[kind] is Severity.BLOCKING
    return Finding(
        kind=str(kind),
        severity=SEVERITY[kind],
        message=message,
        file=file if blocking and file else command.doc,
        line=line if blocking and file else command.line,
        details=_tail(head.tail) or None,
        revision="head",
        details_lang="text",
    )


def not_run(command: Command, why: str) -> Finding:
    return Finding(
        kind=str(Kind.NOT_RUN),
        severity=Severity.NOTE,
        message=f"`{command.text}` ({command.place}) was not run: {why}.",
        file=command.doc,
        line=command.line,
    )


def run_as(plan: Plan) -> str:
    words = ["python" if w == PYTHON else w for w in plan.argv]
    usual = {**QUIET, **DISTRIBUTED}
    env = [f"{k}={v}" for k, v in plan.env.items() if usual.get(k) != v]
    return shlex.join([*env, *words])


def _failure(
    ran: Ran, changed: Mapping[str, tuple[LineSpan, ...]]
) -> tuple[str, str | None, int | None]:
    """The failure in words, and the repository line it points at (None: none)."""
    stage = "its `prepare` command " if ran.stage == "prepare" else ""
    raised = ran.raised
    if ran.status == "timeout":
        return f"{stage}did not finish within its limit", None, None
    if raised is None:
        last = next((t for t in reversed(ran.tail.splitlines()) if t.strip()), "")
        said = f" ({last.strip()[:300]})" if last else ""
        return f"{stage}exited with code {ran.returncode}{said}", None, None
    text = f"{stage}raised {raised.type}: {raised.message[:500]}".rstrip(": ")
    frame = raised.frame
    if frame is None:
        return text, None, None
    span = in_diff(frame, changed)
    if span is not None:
        where = f"a line this pull request changed (its hunk at lines {span.start}-{span.end})"
    elif frame.file in changed:
        where = "a file this pull request changed, on a line it did not change"
    else:
        where = "a file this pull request did not change"
    return (
        f"{text}, at `{frame.file}:{frame.line}` in `{frame.function}`, {where}",
        frame.file,
        frame.line,
    )


def _tail(text: str) -> str:
    return "\n".join(text.strip().splitlines()[-_TAIL_LINES:])

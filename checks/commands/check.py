"""The `commands` check: the commands the README and docs tell a reader to run still start.

``found`` lists each revision's commands (the docs' shell blocks and code spans, the config's
`run:`, less `exclude:`); ``launch`` makes each tiny with its overrides; each runs in the
sandbox (``child``) at head, and at base only when it failed at head (a pass needs no
comparison) and base documents it too; ``verdict`` decides, ``findings`` words it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import ClassVar

from gradgate.checks.base import (
    CheckContext,
    CheckResult,
    CheckSettings,
    Finding,
    RevisionSource,
    Severity,
    error_result,
    outcome_for,
    report_order,
    settings_as,
)
from gradgate.checks.commands.findings import finding, not_run
from gradgate.checks.commands.found import commands_at, shrink_for
from gradgate.checks.commands.launch import NotRun, Plan, plan
from gradgate.checks.commands.settings import CommandsSettings
from gradgate.checks.commands.verdict import SEVERITY, Kind, Ran, judge, needs, ran_from
from gradgate.checks.errors import CheckError, SandboxError
from gradgate.checks.model.device import device_for
from gradgate.checks.sandbox.for_check import run_user_code
from pathspec import GitIgnoreSpec

PROGRAM = "commands.child:run_command"
_START_S = 60.0  # the sandbox's own start on top of a command's limit: copying the tree


class CommandsCheck:
    name: ClassVar[str] = "commands"
    title: ClassVar[str] = "Documented commands"
    settings_model: ClassVar[type[CheckSettings]] = CommandsSettings
    runs_user_code: ClassVar[bool] = True
    available: ClassVar[bool] = True

    def run(self, ctx: CheckContext) -> CheckResult:
        started = time.perf_counter()
        settings = settings_as(CommandsSettings, ctx.settings)
        try:
            findings, kinds = _check(ctx, settings)
        except (SandboxError, CheckError) as failed:
            return error_result(
                self.name, str(failed), revision=getattr(failed, "revision", None),
                duration_s=time.perf_counter() - started,
            )  # fmt: skip
        ordered = tuple(sorted(findings, key=report_order))
        return CheckResult(
            check=self.name,
            outcome=outcome_for(ordered),
            summary=_summary(kinds),
            findings=ordered,
            metrics={"commands": len(kinds), "started": kinds.count(Kind.PASSED)},
            duration_s=time.perf_counter() - started,
        )


def _check(ctx: CheckContext, settings: CommandsSettings) -> tuple[list[Finding], list[Kind]]:
    """The findings, and the verdict of each command that ran."""
    head_files = frozenset(ctx.source.list_files(ctx.head_sha))
    base_files = frozenset(ctx.source.list_files(ctx.base_sha))
    head = commands_at(_docs(ctx.source, ctx.head_sha, head_files, settings), head_files, settings)
    base = commands_at(_docs(ctx.source, ctx.base_sha, base_files, settings), base_files, settings)
    at_base = {c.text for c in base if c.path in base_files}
    changed = {c.path: c.new_lines for c in ctx.changes if c.head_path is not None}
    deadline = time.monotonic() + settings.timeout_s
    findings: list[Finding] = []
    wanted: set[str] = set()
    kinds: list[Kind] = []
    with ExitStack() as stack:
        roots: dict[str, Path] = {}

        def root(revision: str) -> Path:
            if revision not in roots:
                sha = ctx.head_sha if revision == "head" else ctx.base_sha
                roots[revision] = stack.enter_context(ctx.source.checkout(sha))
            return roots[revision]

        for command in head:
            text = ctx.source.read(ctx.head_sha, command.path)
            how = plan(
                command,
                shrink_for(command, settings),
                processes=settings.processes,
                script_text=None if text is None else text.decode("utf-8", "replace"),
            )
            if isinstance(how, NotRun):
                findings.append(not_run(command, how.why))
                continue
            run = _runner(ctx, settings, how, root, deadline)
            head_ran = run("head")
            base_ran = None
            if not head_ran.ok and command.text in at_base:
                base_ran = run("base")
            kind = judge(head_ran, base_ran, files=head_files | base_files)
            kinds.append(kind)
            if kind is Kind.PASSED:
                continue
            missing = needs(head_ran, head_files | base_files)
            if kind is Kind.NEEDS_DATA and missing in wanted:
                continue  # reported once: one prepared data set serves every command
            wanted.add(missing or "")
            findings.append(
                finding(command, kind, plan=how, head=head_ran, base=base_ran, changed=changed,
                        limit_s=settings.command_timeout_s, wanted=missing)
            )  # fmt: skip
    return findings, kinds


def _docs(
    source: RevisionSource, sha: str, files: frozenset[str], settings: CommandsSettings
) -> dict[str, str]:
    docs = GitIgnoreSpec.from_lines(settings.docs)
    found = {}
    for path in sorted(files):
        if path.endswith(".md") and docs.match_file(path):
            data = source.read(sha, path)
            if data is not None:
                found[path] = data.decode("utf-8", "replace")
    return found


def _runner(
    ctx: CheckContext,
    settings: CommandsSettings,
    how: Plan,
    root: Callable[[str], Path],
    deadline: float,
) -> Callable[[str], Ran]:
    def run(revision: str) -> Ran:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SandboxError(
                f"the check's `timeout_s` ({settings.timeout_s:g} s) ran out before every "
                "command could run",
                kind="timeout",
                revision=revision,
            )
        tree = root(revision)
        device = device_for(ctx, settings, settings.device, root=tree)
        budget = settings.command_timeout_s * (2 if how.prepare else 1)
        request = {
            "argv": list(how.argv),
            "env": dict(how.env),
            "prepare": None if how.prepare is None else list(how.prepare),
            "timeout_s": budget,
        }
        try:
            value = run_user_code(
                ctx, settings, target=None, root=tree, revision=revision, program=PROGRAM,
                kwargs={"command": request}, timeout_s=min(budget + _START_S, remaining),
                device=device,
            )  # fmt: skip
        except SandboxError as failed:
            if failed.kind not in ("memory", "timeout", "crash", "processes", "disk"):
                raise
            return Ran("timeout" if failed.kind == "timeout" else "failed", tail=str(failed))
        assert isinstance(value, Mapping)
        return ran_from(value)

    return run


def _summary(kinds: list[Kind]) -> str:
    broke = sum(1 for k in kinds if SEVERITY.get(k) is Severity.BLOCKING)
    if broke:
        return f"{broke} of {len(kinds)} documented commands no longer start"
    if not kinds:
        return "no documented command to run"
    started = kinds.count(Kind.PASSED)
    return f"{started} of {len(kinds)} documented commands start" + (
        "" if started == len(kinds) else " (the others noted)"
    )

"""The `commands` check: the commands the README and docs tell a reader to run still start.

``found`` lists each revision's commands (the docs' shell blocks and code spans, the config's
`run:`, less `exclude:`); ``launch`` makes each tiny with its overrides; each runs in the
sandbox (``child``) at head, and at base only when it failed at head (a pass needs no
comparison) and base documents it too; ``verdict`` decides, ``findings`` words it. A run's
outcome comes from the gate's result cache (``cached``) where nothing that decides it changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from gradgate.checks.base import Checking, CheckResult, CheckSettings, Finding, Severity, finish
from gradgate.checks.commands.cached import CommandCache
from gradgate.checks.commands.findings import finding, not_run
from gradgate.checks.commands.found import commands_at, shrink_for
from gradgate.checks.commands.launch import NotRun, Plan, plan
from gradgate.checks.commands.settings import CommandsSettings
from gradgate.checks.commands.verdict import SEVERITY, Kind, Ran, judge, needs, ran_from
from gradgate.checks.context import CheckContext, RevisionSource
from gradgate.checks.errors import SandboxError
from gradgate.checks.model.turns import Revisions, revisions
from gradgate.checks.sandbox.for_check import run_user_code
from pathspec import GitIgnoreSpec

PROGRAM = "commands.child:run_command"
_START_S = 60.0  # the sandbox's own start on top of a command's limit: copying the tree


class CommandsCheck(Checking[CommandsSettings]):
    name: ClassVar[str] = "commands"
    title: ClassVar[str] = "Documented commands"
    settings_model: ClassVar[type[CheckSettings]] = CommandsSettings
    runs_user_code: ClassVar[bool] = True

    def check(self, ctx: CheckContext, settings: CommandsSettings) -> CheckResult:
        findings, kinds, counts = _check(ctx, settings)
        return finish(
            self.name,
            findings,
            _summary(kinds),
            metrics={"commands": len(kinds), "started": kinds.count(Kind.PASSED), **counts},
        )


def _check(
    ctx: CheckContext, settings: CommandsSettings
) -> tuple[list[Finding], list[Kind], dict[str, int]]:
    """The findings, the verdict of each command that ran, and how many runs the sandbox
    made (``runs``) and the result cache answered (``from_cache``)."""
    head_files = frozenset(ctx.source.list_files(ctx.head_sha))
    base_files = frozenset(ctx.source.list_files(ctx.base_sha))
    head = commands_at(_docs(ctx.source, ctx.head_sha, head_files, settings), head_files, settings)
    base = commands_at(_docs(ctx.source, ctx.base_sha, base_files, settings), base_files, settings)
    at_base = {c.text for c in base if c.path in base_files}
    changed = {c.path: c.new_lines for c in ctx.changes if c.head_path is not None}
    findings: list[Finding] = []
    wanted: set[str] = set()
    kinds: list[Kind] = []
    # Each command in a fresh sandboxed child, in the gate's checkouts, within one deadline.
    with revisions(ctx, settings, device=settings.device, start=False) as sides:
        cache = CommandCache(sides.sessions.cache, ctx, settings, program=PROGRAM,
                             device=sides.device)  # fmt: skip
        counts = {"runs": 0, "from_cache": 0}
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
            run = _runner(sides, settings, how, cache, counts)
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
    return findings, kinds, counts


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
    sides: Revisions,
    settings: CommandsSettings,
    how: Plan,
    cache: CommandCache,
    counts: dict[str, int],
) -> Callable[[str], Ran]:
    def run(revision: str) -> Ran:
        budget = settings.command_timeout_s * (2 if how.prepare else 1)
        request = {
            "argv": list(how.argv),
            "env": dict(how.env),
            "prepare": None if how.prepare is None else list(how.prepare),
            "timeout_s": budget,
        }
        stored = cache.lookup(revision, {**request, "processes": how.processes})
        if stored is not None:
            counts["from_cache"] += 1
            return ran_from(stored)
        remaining = sides.left(revision, before="every command could run")
        counts["runs"] += 1
        try:
            value = run_user_code(
                sides.ctx, settings, target=None, root=sides.root(revision), revision=revision,
                program=PROGRAM, kwargs={"command": request},
                timeout_s=min(budget + _START_S, remaining), device=sides.device,
            )  # fmt: skip
        except SandboxError as failed:
            if failed.kind not in ("memory", "timeout", "crash", "processes", "disk"):
                raise
            return Ran("timeout" if failed.kind == "timeout" else "failed", tail=str(failed))
        assert isinstance(value, Mapping)
        cache.save(revision, {**request, "processes": how.processes}, value)
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

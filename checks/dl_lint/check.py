"""The `dl-lint` check: the mistakes every DL team has made once, on the lines a PR adds.

Static, like api-contract: the changed files of the zones that require it are parsed at base and
head, never imported. A rule's hit counts when it lies on a line the PR added or changed and the
same code did not already hit at base (moved code is not new); a `# gradgate: ignore[RULE]`
comment that stood at base on the statement (``ignores``: one the PR adds does not count), or the
rule's grade in `checks.dl-lint.rules`, says otherwise. Every suppression met is in the result.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import ClassVar

from gradgate.checks.base import (
    Checking,
    CheckResult,
    CheckSettings,
    Finding,
    Severity,
    Suppression,
    finish,
    report_order,
)
from gradgate.checks.context import CheckContext
from gradgate.checks.diff import ChangeStatus, FileChange, LineSpan
from gradgate.checks.dl_lint.evaluation import evaluations
from gradgate.checks.dl_lint.findings import finding, summary, unlinted
from gradgate.checks.dl_lint.ignores import AtBase, at_base, unignored, weigh
from gradgate.checks.dl_lint.languages import foreign
from gradgate.checks.dl_lint.scan import NEEDLES, Hit, scan
from gradgate.checks.dl_lint.settings import DlLintSettings

_CONFIG_SUFFIXES = (".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf")
_MAX_BYTES = 2_000_000
# An evaluation function (rule `eval-mode-lost`): its module is parsed even without NEEDLES.
_EVAL_DEF = re.compile(r"def _*(?:eval|validat|test)", re.IGNORECASE)


class DlLintCheck(Checking[DlLintSettings]):
    name: ClassVar[str] = "dl-lint"
    title: ClassVar[str] = "DL lints"
    settings_model: ClassVar[type[CheckSettings]] = DlLintSettings

    def check(self, ctx: CheckContext, settings: DlLintSettings) -> CheckResult:
        in_zones = {p for paths in ctx.zones.values() for p in paths}
        checkpoints = ctx.paths_requiring.get("checkpoint", frozenset())
        findings: list[Finding] = []
        suppressed: list[Suppression] = []
        linted = 0
        for change in ctx.changes:
            path = change.head_path
            if path is None or path not in in_zones or not _text_file(change):
                continue
            if path.endswith(".py"):
                linted += 1
                found, met = _python(ctx, change, settings, path in checkpoints)
                findings += found
                suppressed += met
            elif path.endswith(_CONFIG_SUFFIXES) and settings.grade("comment-language") != "off":
                found, met = _comments(ctx, change, settings)
                findings += found
                suppressed += met
        applied = sum(s.applied for s in suppressed)
        return finish(
            self.name,
            findings,
            lambda ordered: summary(ordered, linted, applied),
            metrics={"files_linted": linted, "findings": len(findings)},
            order=lambda f: (*report_order(f)[:1], f.kind, *report_order(f)[1:]),
            suppressions=tuple(suppressed),
        )


def _text_file(change: FileChange) -> bool:
    return not (change.binary or change.submodule or change.symlink) and (
        change.status is not ChangeStatus.TYPE_CHANGED
    )


def _read(ctx: CheckContext, sha: str, path: str | None) -> str | None:
    if path is None:
        return None
    data = ctx.source.read(sha, path)
    if data is None or len(data) > _MAX_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _parse(text: str | None, path: str) -> ast.Module | None:
    if text is None:
        return None
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _python(
    ctx: CheckContext, change: FileChange, settings: DlLintSettings, holds_checkpoints: bool
) -> tuple[list[Finding], list[Suppression]]:
    """The findings on what the change adds, and the suppressions met (issue 34)."""
    path = change.path
    base_path = None if change.status is ChangeStatus.COPIED else change.base_path
    head_text = _read(ctx, ctx.head_sha, path)
    needed, evaluating = head_text is not None and NEEDLES.search(head_text), _EVAL_DEF
    if head_text is not None and not needed and not evaluating.search(head_text):
        return [], []  # nothing any rule looks for: not even parsed

    @functools.cache
    def base() -> tuple[ast.Module | None, str]:
        text = _read(ctx, ctx.base_sha, base_path)
        return _parse(text, base_path or path), text or ""

    head = _parse(head_text, path)
    if head is None or head_text is None:
        why = "it is not readable UTF-8 Python" if head_text is None else "it does not parse"
        # Linted at base and not at head: the PR would have switched the check off for what it
        # adds (issue 34), so that blocks; anything else was never linted and is a note.
        return [unlinted(path, why, made_by_change=base()[0] is not None)], []

    every = scan(head, path, head_text) if needed else []
    hits = [h for h in every if _added(h, change.new_lines)]
    hits += _evaluations_lost(base, head, change)
    if not hits:
        return [], []
    tree, text = base()
    was = scan(tree, base_path or path, text) if tree else []
    before = Counter(h.key for h in was)
    # Code the change left in place keeps its own base hit; only the rest can have moved (a
    # copy of a line that stays is new code).
    before.subtract(h.key for h in every if not _added(h, change.new_lines))
    defs = [e.line for e in evaluations(tree).values()] if tree is not None else []
    kept = at_base(was, defs, text.splitlines())
    lines = head_text.splitlines()
    out: list[Finding] = []
    suppressed: list[Suppression] = []
    for hit in hits:
        if before[hit.key] > 0:
            before[hit.key] -= 1  # the same code stood at base: moved or untouched, not new
            continue
        grade = settings.grade(hit.rule)
        if (
            hit.rule == "save-pickled-objects"
            and hit.rule not in settings.rules
            and holds_checkpoints
        ):
            grade = "blocking"
        reason = settings.rules[hit.rule].reason if hit.rule in settings.rules else None
        if grade == "off":
            if reason is not None:  # turned off by the config, not off by default
                suppressed.append(Suppression(hit.rule, "config", path, hit.line, reason))
            continue
        weighed = weigh(
            hit, blocking=grade == "blocking", lines=lines, changed=change.new_lines, base=kept
        )
        if weighed.origin is not None:
            suppressed.append(Suppression(hit.rule, weighed.origin, path, hit.line))
        if not weighed.stands:
            continue
        code = "\n".join(lines[hit.line - 1 : hit.end])
        out.append(finding(hit, Severity(grade), path, code, reason, added=weighed.added))
    return out, suppressed


def _added(hit: Hit, spans: Iterable[LineSpan]) -> bool:
    return any(line in span for span in spans for line in range(hit.line, hit.end + 1))


def _evaluations_lost(
    base: Callable[[], tuple[ast.Module | None, str]], head: ast.Module, change: FileChange
) -> list[Hit]:
    """`model.eval()` or `no_grad` dropped from an evaluation function the PR edited. The base
    is parsed only when an evaluation function lacks one of them at head."""
    if _is_test_file(change.path):
        return []
    after = evaluations(head)
    out: list[Hit] = []
    for qualname, now in after.items():
        if now.calls_eval and now.no_grad:
            continue
        tree = base()[0]
        was = evaluations(tree).get(qualname) if tree is not None else None
        if was is None:
            continue
        edited = any(
            line in span for span in change.new_lines for line in range(now.line, now.end + 1)
        ) or any(line in span for span in change.old_lines for line in range(was.line, was.end + 1))
        if not edited:
            continue
        if was.calls_eval and not now.calls_eval:
            out.append(
                _lost(
                    qualname,
                    now.line,
                    "called `.eval()`",
                    "call `model.eval()` first (and `model.train()` after, if training goes on)",
                )
            )
        if was.no_grad and not now.no_grad:
            out.append(
                _lost(
                    qualname,
                    now.line,
                    "ran under `torch.no_grad()`",
                    "wrap it in `with torch.no_grad():` (or decorate it with "
                    "`@torch.inference_mode()`)",
                )
            )
    return out


def _lost(qualname: str, line: int, what: str, fix: str) -> Hit:
    return Hit(
        "eval-mode-lost",
        line,
        line,
        f"eval-mode-lost:{qualname}:{what}",
        {"function": qualname, "what": what, "fix": fix},
    )


def _is_test_file(path: str) -> bool:
    name = path.rpartition("/")[2]
    return name.startswith("test_") or name.endswith("_test.py") or "/tests/" in f"/{path}"


def _comments(
    ctx: CheckContext, change: FileChange, settings: DlLintSettings
) -> tuple[list[Finding], list[Suppression]]:
    assert settings.comments is not None or "comment-language" in settings.rules
    language = settings.comments.language if settings.comments else "en"
    text = _read(ctx, ctx.head_sha, change.path)
    if text is None:
        return [unlinted(change.path, "it is not readable UTF-8 text")], []
    lines = text.splitlines()
    out = []
    suppressed = []
    grade = settings.grade("comment-language")
    reason = (
        settings.rules["comment-language"].reason if "comment-language" in settings.rules else None
    )
    for number, line in enumerate(lines, start=1):
        if not any(number in span for span in change.new_lines):
            continue
        at = line.find("#")
        if at < 0 or (at > 0 and not line[at - 1].isspace()):
            continue
        if not foreign(unignored(line[at + 1 :]), language):
            continue
        hit = Hit(
            "comment-language",
            number,
            number,
            f"comment-language:{line.strip()}",
            {"lang": language},
        )
        # The line is one the change adds: an ignore on it is the change's own, never at base.
        weighed = weigh(
            hit, blocking=grade == "blocking", lines=lines, changed=change.new_lines, base=AtBase()
        )
        if weighed.origin is not None:
            suppressed.append(Suppression(hit.rule, weighed.origin, change.path, number))
        out.append(finding(hit, Severity(grade), change.path, line, reason, added=weighed.added))
    return out, suppressed

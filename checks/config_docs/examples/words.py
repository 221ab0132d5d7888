"""The words of a docs example that no longer runs, and the corrected line where one can be
written (pure). The finding's "already so before this PR" is added by ``findings``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gradgate.checks.api_contract.signatures import Signature
from gradgate.checks.config_docs.examples.binding import Problem
from gradgate.checks.config_docs.examples.model import CallClaim, OptionClaim
from gradgate.checks.config_docs.examples.options import Accepted


def call_gone(claim: CallClaim, why: str) -> str:
    return (
        f"`{claim.doc}:{claim.line}` calls `{claim.text}`, which no longer runs: {why}. "
        "Update the example, or keep the name."
    )


def call_broken(
    claim: CallClaim, path: str, sig: Signature, found: Sequence[Problem], lines: Sequence[str]
) -> tuple[str, int, str | None]:
    """The message, the doc line it points at, and that line corrected (or None)."""
    where = f"`{claim.callee}` (`{path}:{sig.line}`)"
    said = "; ".join(_problem(p, where if i == 0 else "it") for i, p in enumerate(found))
    line, suggestion = _corrected(found, lines)
    fix = "Update the example (suggested below)" if suggestion else "Update the example"
    message = (
        f"`{claim.doc}:{claim.line}` calls `{claim.text}`, which no longer runs: {said}. "
        f"{fix}, or keep the old calling convention working."
    )
    return message, line or claim.line, suggestion


def _problem(p: Problem, who: str) -> str:
    if p.kind == "keyword":
        instead = f" (now `{p.fix.partition('=')[0]}`)" if p.fix else ""
        return f"{who} has no parameter `{p.name}`{instead}"
    if p.kind == "positional":
        instead = f" (pass it as `{p.fix}`)" if p.fix else ""
        return f"{who} takes fewer positional arguments, so `{p.name}` is one too many{instead}"
    return f"{who} requires `{p.name}`, which the call does not pass"


def _corrected(found: Sequence[Problem], lines: Sequence[str]) -> tuple[int | None, str | None]:
    """The one doc line every fix falls on, with the fixes made."""
    fixes = [p for p in found if p.arg is not None]
    if not fixes or any(p.fix is None for p in fixes) or len(found) != len(fixes):
        return (fixes[0].arg.line if fixes and fixes[0].arg else None), None
    numbers = {p.arg.line for p in fixes if p.arg is not None}
    number = numbers.pop()
    if numbers or not 0 < number <= len(lines):
        return None, None
    text = lines[number - 1]
    for p in fixes:
        assert p.arg is not None and p.fix is not None
        changed = _fixed(text, p)
        if changed is None:
            return number, None
        text = changed
    return number, text


def _fixed(text: str, p: Problem) -> str | None:
    assert p.arg is not None and p.fix is not None
    if p.kind == "keyword" and p.fix:
        pattern = re.compile(rf"(?<![\w.]){re.escape(p.name)}(?=\s*=(?!=))")
        hits = pattern.findall(text)
        return pattern.sub(p.fix.partition("=")[0], text) if len(hits) == 1 else None
    alone = re.compile(rf"(?<![\w.]){re.escape(p.arg.text)}(?![\w.])")
    if len(alone.findall(text)) != 1:
        return None
    if p.fix:
        return alone.sub(p.fix, text)
    for dropped in (rf",\s*{alone.pattern}", rf"{alone.pattern},\s*", alone.pattern):
        if len(re.findall(dropped, text)) == 1:
            return re.sub(dropped, "", text)
    return None


def option_unknown(
    claim: OptionClaim, accepted: Accepted, renamed: str | None
) -> tuple[str, str | None]:
    kind = {"hydra": "Hydra config", "configurator": "configurator globals"}.get(
        accepted.parser, f"{accepted.parser} options"
    )
    what = "override" if claim.override else "option"
    instead = f"; it looks renamed to `{renamed}`" if renamed else ""
    message = (
        f"`{claim.doc}:{claim.line}` runs `{claim.command}`, which passes the {what} "
        f"`{claim.option}`, but `{accepted.path}` does not accept it (read from its {kind})"
        f"{instead}. Update the command, or keep the {what}."
    )
    suggestion = None
    if renamed is not None:
        pattern = re.compile(rf"(?<![\w\-.]){re.escape(claim.option)}(?![\w\-])")
        if len(pattern.findall(claim.line_text)) == 1:
            suggestion = pattern.sub(renamed, claim.line_text)
    return message, suggestion

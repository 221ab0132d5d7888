"""The words of the `config-docs` check: one Finding per disagreement, naming both places and the
fix, with the corrected doc line as a suggestion where the fix is a one-line change (pure).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from gradgate.checks.base import Finding, Severity
from gradgate.checks.config_docs.compare import Disagreement
from gradgate.checks.config_docs.model import Fact, ImportClaim, Key, PathClaim, ValueClaim, dotted
from gradgate.checks.config_docs.values import same
from gradgate.checks.diff import FileChange

KINDS = {
    "value": "doc-value-mismatch",
    "key-gone": "doc-key-gone",
    "import": "doc-import-broken",
    "path": "doc-path-missing",
    "undocumented": "config-key-undocumented",
    "unparsed": "config-unparsed",
    "collision": "config-key-collision",
    "unreadable": "file-unreadable",
    "skipped": "file-skipped",
    "unclosed-fence": "doc-fence-unclosed",
    "block-unparsed": "doc-block-unparsed",
    "call": "doc-example-broken",
    "option": "doc-command-option-unknown",
}
EARLIER = "doc-disagreements-before"  # those already there at base, as one note
_EARLIER = " This was already so before this PR."
Before = Mapping[tuple[str, Key], Fact]  # base facts by (head-side file, key)


def finding(
    d: Disagreement,
    severity: Severity,
    *,
    before: Before,
    renamed_to: Mapping[str, str],
    earlier: bool = False,
    broke: bool = False,
) -> Finding:
    """``before``: the base facts; ``renamed_to``: base path -> head path of moved files;
    ``earlier``: the same disagreement was there at base; ``broke``: the PR made a file that was
    read at base unreadable.
    """
    also = _EARLIER if earlier else ""
    if d.problem is not None:
        p = d.problem
        if broke:
            said, other = ("sets", "the docs") if p.config else ("claims", "configs and code")
            message = (
                f"this PR made `{p.file}` unreadable: {p.why}. What it {said} can no longer be "
                f"compared with {other}, so a disagreement there would pass unseen. Fix the "
                "file so it can be read again."
            )
            return _finding(d, severity, message, p.file, p.line)
        fix = "Fix the file so its values can be compared with the docs." if p.config else ""
        what = "config" if p.config else "doc"
        message = f"`{_at(p.file, p.line)}` ({what}) was not fully checked: {p.why}. {fix}"
        return _finding(d, severity, message.strip() + also, p.file, p.line)
    if d.kind == "undocumented":
        fact = d.facts[0]
        message = (
            f"`{_at(fact.file, fact.line)}` adds `{dotted(fact.key)}` ({fact.value.shown()}), "
            "which the docs do not mention while they document other keys of this file. "
            "Document it where the others are."
        )
        return _finding(d, severity, message, fact.file, fact.line)
    claim = d.claim
    if d.kind in ("call", "option") and claim is not None:  # examples.words said it
        line = d.line or claim.line
        return _finding(d, severity, d.why + also, claim.doc, line, d.suggestion)
    if isinstance(claim, ValueClaim) and d.kind == "value":
        return _value(d, claim, severity, before, also)
    if isinstance(claim, ValueClaim):
        return _key_gone(d, claim, severity, also)
    if isinstance(claim, ImportClaim):
        message = (
            f"`{_at(claim.doc, claim.line)}` shows `{claim.statement}`, which does not "
            f"resolve: {d.why}. Update the example, or keep the name importable."
        )
        return _finding(d, severity, message + also, claim.doc, claim.line)
    assert isinstance(claim, PathClaim)
    return _path(d, claim, severity, renamed_to, also)


def _value(
    d: Disagreement, claim: ValueClaim, severity: Severity, before: Before, earlier: str
) -> Finding:
    facts = d.facts
    # Name the source that agreed with the docs at base: the one this PR changed.
    fact = next((f for f in facts if _agreed(claim, before.get((f.file, f.key)))), None)
    fact = fact or min(facts, key=lambda f: (f.file, f.line))
    old = before.get((fact.file, fact.key))
    key, said, now = f"`{dotted(claim.key)}`", f"`{claim.value.shown()}`", f"`{fact.value.shown()}`"
    where = f"`{_at(fact.file, fact.line)}` ({fact.origin})"
    if not earlier and old is not None and _agreed(claim, old):
        cause = f", but {where} now sets it to {now} (it was {said} before this PR)"
        fix = f"If {now} is intended, update the docs; otherwise restore {said} in `{fact.file}`."
    else:
        cause = f", but {where} sets it to {now}"
        fix = "Make the docs say what the config does (or change the config)."
    others = len(facts) - 1
    also = f" ({others} other source{'s' if others > 1 else ''} disagree too)" if others else ""
    message = (
        f"`{_at(claim.doc, claim.line)}` ({claim.form}) says {key} is {said}{cause}{also}. "
        f"{fix}{earlier}"
    )
    suggestion = _replace(claim.line_text, claim.value_at, claim.value.text, fact.value.text)
    return _finding(d, severity, message, claim.doc, claim.line, suggestion)


def _key_gone(d: Disagreement, claim: ValueClaim, severity: Severity, earlier: str) -> Finding:
    fact = d.facts[0]
    if d.renamed is not None:
        fix = f"It looks renamed to `{dotted(d.renamed)}`: update the docs, or keep the old key."
    else:
        fix = "Update the docs to the new name, or keep the key."
    message = (
        f"`{_at(claim.doc, claim.line)}` ({claim.form}) documents `{dotted(claim.key)}`, which "
        f"no config or code defines any more (`{_at(fact.file, fact.line)}` had it before this "
        f"PR). {fix}{earlier}"
    )
    suggestion = None
    if d.renamed is not None and claim.line_text.count(claim.key[-1]) == 1:
        suggestion = claim.line_text.replace(claim.key[-1], d.renamed[-1])
    return _finding(d, severity, message, claim.doc, claim.line, suggestion)


def _path(
    d: Disagreement,
    claim: PathClaim,
    severity: Severity,
    renamed_to: Mapping[str, str],
    earlier: str,
) -> Finding:
    what = {"module": "module", "script": "script", "file": "file"}[claim.kind]
    moved = renamed_to.get(claim.target)
    if moved is not None:
        gone = f"this PR moved it to `{moved}`"
    elif earlier:
        gone = "it does not exist"
    else:
        gone = "it does not exist at head"
    message = (
        f"`{_at(claim.doc, claim.line)}` runs `{claim.command}`, which names the {what} "
        f"`{claim.target}`, but {gone}. Update the command, or restore the {what}.{earlier}"
    )
    suggestion = None
    if moved is not None and claim.line_text.count(claim.target) == 1:
        suggestion = claim.line_text.replace(claim.target, moved)
    return _finding(d, severity, message, claim.doc, claim.line, suggestion)


def collapsed(
    earlier: Sequence[tuple[Finding, Sequence[tuple[str, int]]]], changes: Iterable[FileChange]
) -> tuple[list[Finding], int]:
    """The notes about disagreements already there at base, each with the places of the facts it
    compares against, and how many of them are left out. One this PR touched (its doc line, or
    the line of one of its facts) stays as it is. The rest, when the PR changed a doc that holds
    them, are one note that counts them and lists each in its details; when it changed none, they
    are left out of the findings and only counted (issue 36: notes the PR did not cause, the
    same on every PR, teach a team to skip the section)."""
    touched = {c.path: c.new_lines for c in changes}

    def changed(file: str | None, line: int | None) -> bool:
        spans = touched.get(file or "")
        return spans is not None and (line is None or any(line in s for s in spans))

    kept = [
        f
        for f, places in earlier
        if changed(f.file, f.line) or any(changed(file, line) for file, line in places)
    ]
    rest = [f for f, _ in earlier if f not in kept]
    if not any(f.file in touched for f in rest):
        return kept, len(rest)
    if len(rest) < 2:
        return [*kept, *rest], 0
    places = sorted({f.file for f in rest if f.file})
    shown = ", ".join(f"`{p}`" for p in places[:3]) + (
        f" and {len(places) - 3} more files" if len(places) > 3 else ""
    )
    listed = "\n".join(f"{_at(f.file or '', f.line)}: {f.message}" for f in rest)
    return [
        *kept,
        Finding(
            kind=EARLIER,
            severity=Severity.NOTE,
            message=f"{len(rest)} disagreements between the docs and configs or code (in "
            f"{shown}) were already there before this PR, which did not touch them; each is "
            "listed in the details.",
            file=rest[0].file,
            details=listed,
            details_lang="text",
        ),
    ], 0


def summary(findings: Iterable[Finding], *, claims: int, docs: int, older: int = 0) -> str:
    """``older``: disagreements already there at base in docs this PR left alone, not shown."""
    counts = Counter(f.severity for f in findings)
    blocking, notes = counts[Severity.BLOCKING], counts[Severity.NOTE] + counts[Severity.WARNING]
    if blocking:
        return f"{blocking} new disagreement{'s' if blocking > 1 else ''} between docs and configs"
    tail = f"; {notes} note{'s' if notes > 1 else ''}" if notes else ""
    tail += f"; {older} older, in docs this PR did not change" if older else ""
    files = f"{docs} doc" + ("s" if docs != 1 else "")
    return f"docs agree with configs and code ({claims} claims in {files}{tail})"[:140]


def _agreed(claim: ValueClaim, old: Fact | None) -> bool:
    return old is not None and same(claim.value, old.value)


def _replace(line: str, at: int | None, old: str, new: str) -> str | None:
    if at is None or "\n" in new or line[at : at + len(old)] != old:
        return None
    return line[:at] + new + line[at + len(old) :]


def _at(path: str, line: int | None) -> str:
    return path if line is None else f"{path}:{line}"


def _finding(
    d: Disagreement,
    severity: Severity,
    message: str,
    file: str,
    line: int | None,
    suggestion: str | None = None,
) -> Finding:
    return Finding(
        kind=KINDS[d.kind],
        severity=severity,
        message=message,
        file=file,
        line=line,
        details=suggestion,
        revision="head",
        details_lang="suggestion" if suggestion is not None else "diff",
    )

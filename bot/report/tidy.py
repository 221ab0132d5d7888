"""Every message and summary a report shows is one line (pure).

A check's text may come in lines: a crash says the exception and the user's frame first, then
the frames (checks.model.crash). Every format escapes a newline inside a message (`\\n`, so a
value can never start a line of its own), which turned such text into one long `\\n`-joined
string (issue 19). So a report keeps a message's first line as the message and moves the other
lines to the front of the finding's details, folded under it; a summary keeps its first line.
"""

from __future__ import annotations

from dataclasses import replace

from gradgate.checks.base import CheckResult, Finding


def one_line(result: CheckResult) -> CheckResult:
    summary = _first(result.summary)
    findings = tuple(_finding(f) for f in result.findings)
    if summary == result.summary and findings == result.findings:
        return result
    return replace(result, summary=summary, findings=findings)


def _first(text: str) -> str:
    return _split(text)[0]


def _split(text: str) -> tuple[str, str]:
    """The first line that says something, and the lines after it."""
    if "\n" not in text and "\r" not in text:
        return text, ""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if at == len(lines):
        return "", ""
    return lines[at].strip(), "\n".join(lines[at + 1 :]).strip("\n")


def _finding(finding: Finding) -> Finding:
    first, more = _split(finding.message)
    if first == finding.message:
        return finding
    if not more:
        return replace(finding, message=first)
    if finding.details_lang == "suggestion" and finding.details:
        # A suggestion must stay the line's replacement alone: the rest joins the message.
        return replace(finding, message=f"{first} {' '.join(more.split())}")
    details = f"{more}\n\n{finding.details}" if finding.details else more
    lang = finding.details_lang if finding.details else "text"
    return replace(finding, message=first, details=details, details_lang=lang)

"""Config a finding hands over to paste into `.gradgate.yml`: the way an intended change is
accepted (issue 20, point 6), and where it must live to count (issue 34). Pure text; tests read
each block back through the config."""

from __future__ import annotations

from collections.abc import Sequence

REASON = "<why this change is intended>"


# Where an accept rule (or an ignore comment) must live to count, as the end of a sentence that
# names it: gradgate reads the config and the suppressions from the base branch, never from the
# pull request that would profit from them (issue 34).
TAKES_EFFECT = (
    "counts only from the base branch: merge it there first, or have an owner apply it; added "
    "in this pull request, it takes effect after merge"
)


def quote(text: str) -> str:
    """A YAML single-quoted scalar: no escapes but a doubled quote, so regexes stay readable."""
    return "'" + text.replace("'", "''") + "'"


def allow_yaml(check: str, patterns: Sequence[str], *, reason: str = REASON) -> str:
    """`checks.<check>.allow` with one rule per pattern, the reason left for the author."""
    lines = ["checks:", f"  {check}:", "    allow:"]
    for pattern in patterns:
        lines += [f"      - pattern: {quote(pattern)}", f"        reason: {quote(reason)}"]
    return "\n".join(lines)


def setting_yaml(check: str, key: str, value: str) -> str:
    """`checks.<check>.<key>: value`."""
    return "\n".join(["checks:", f"  {check}:", f"    {key}: {value}"])

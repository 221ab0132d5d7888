"""Commands in a PR comment: `/recheck`, `/recheck all`, `/ok-to-test` (pure).

A command counts only alone on its own line, outside code blocks and quotes.
"""

from __future__ import annotations

from enum import StrEnum


class Command(StrEnum):
    RECHECK = "/recheck"
    RECHECK_ALL = "/recheck all"
    OK_TO_TEST = "/ok-to-test"


def commands(body: str) -> frozenset[Command]:
    found: set[Command] = set()
    fence: str | None = None
    for raw in body.splitlines():
        line = raw.strip()
        if fence is not None:
            if line.startswith(fence):
                fence = None
            continue
        if line.startswith(("```", "~~~")):
            fence = line[:3]
            continue
        if raw.startswith(("    ", "\t")) or line.startswith(">"):
            continue  # an indented code block or a quote
        if line in {c.value for c in Command}:
            found.add(Command(line))
    return frozenset(found)

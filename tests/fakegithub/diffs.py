"""The lines of a pull request's diff that GitHub takes review comments on, from `git diff`.

GitHub shows a pull request as `git diff base...head` with three lines of context, and takes an
inline comment on any line a hunk shows: an added or context line on the head side (RIGHT), a
deleted or context line on the base side (LEFT). A file is named by its head path, or by its
base path when the pull request deletes it.
"""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def commentable(diff: str) -> dict[str, dict[str, set[int]]]:
    """``git diff -U3`` text -> path -> side ("LEFT", "RIGHT") -> the line numbers shown."""
    out: dict[str, dict[str, set[int]]] = {}
    old_path = new_path = ""
    sides: dict[str, set[int]] = {}
    old = new = 0
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            sides = {}
            continue
        if line.startswith("--- ") and not sides:
            old_path = line[4:].removeprefix("a/")
            continue
        if line.startswith("+++ ") and not sides:
            new_path = line[4:].removeprefix("b/")
            path = old_path if new_path == "/dev/null" else new_path
            sides = out.setdefault(path, {"LEFT": set(), "RIGHT": set()})
            continue
        hunk = _HUNK.match(line)
        if hunk:
            old, new = int(hunk[1]), int(hunk[2])
        elif not sides or line.startswith("\\"):  # "\ No newline at end of file"
            continue
        elif line.startswith("-"):
            sides["LEFT"].add(old)
            old += 1
        elif line.startswith("+"):
            sides["RIGHT"].add(new)
            new += 1
        elif line.startswith(" "):
            sides["LEFT"].add(old)
            sides["RIGHT"].add(new)
            old, new = old + 1, new + 1
    return out

"""A markdown body too long for one GitHub comment -> numbered parts that each render whole (pure).

GitHub refuses a comment body over 65,536 characters. The body is cut at line boundaries, in
order, so part 1 keeps the start of the report: the verdict, the checks table and the first
(most severe) findings. A cut prefers a block boundary (a blank line or a new list item outside
any code fence or ``<details>``); when a single block is too long for a part, the cut closes the
open fences and ``<details>`` at the end of the part and reopens them, in order, at the start of
the next, so no part leaves a fence or a fold open.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

COMMENT_LIMIT = 65_536  # GitHub's limit on an issue comment body, in characters


def length(text: str) -> int:
    """Characters as a JavaScript string counts them (UTF-16 code units): an emoji counts
    twice, so a body that fits by this count fits whichever way GitHub counts."""
    return len(text.encode("utf-16-le")) // 2


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>[^`]*)$")
_DETAILS_OPEN = re.compile(r"<details\b", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.IGNORECASE)
_NEW_ITEM = re.compile(r"^(?:[-*+] |\d+[.)] |#{1,6} |\|)")

# (part number, number of parts) -> the text put before or after that part's own lines.
Frame = Callable[[int, int], str]


@dataclass(frozen=True, slots=True)
class _Open:
    """A construct open at a line boundary: how to close it, and how to open it again."""

    opener: str
    closer: str


def _scan(lines: list[str]) -> list[tuple[_Open, ...]]:
    """For each line boundary i (before line i), the constructs open there, outermost first."""
    stack: list[_Open] = []
    states: list[tuple[_Open, ...]] = []
    fence: re.Match[str] | None = None
    for line in lines:
        states.append(tuple(stack))
        text = line.rstrip("\r\n")
        if fence is not None:
            closing = _FENCE.match(text)
            if (
                closing
                and not closing["info"].strip()
                and closing["marker"][0] == fence["marker"][0]
                and len(closing["marker"]) >= len(fence["marker"])
            ):
                stack.pop()
                fence = None
            continue
        opening = _FENCE.match(text)
        if opening:
            fence = opening
            stack.append(_Open(text, opening["indent"] + opening["marker"]))
            continue
        opened, closed = len(_DETAILS_OPEN.findall(text)), len(_DETAILS_CLOSE.findall(text))
        for _ in range(opened - closed):
            indent = text[: len(text) - len(text.lstrip())]
            # Blank lines around: markdown inside <details> renders only after one (CommonMark
            # HTML blocks run to the next blank line).
            stack.append(_Open(text + "\n", f"\n{indent}</details>"))
        for _ in range(closed - opened):
            if stack and stack[-1].closer.strip() == "</details>":
                stack.pop()
    states.append(tuple(stack))
    return states


def _clean(lines: list[str], i: int, states: list[tuple[_Open, ...]]) -> bool:
    """A boundary before line i where nothing is open and a new block starts."""
    if states[i] or i == 0:
        return False
    return not lines[i - 1].strip() or bool(_NEW_ITEM.match(lines[i]))


def split_body(body: str, *, header: Frame, footer: Frame, limit: int = COMMENT_LIMIT) -> list[str]:
    """``body`` framed as one part if it fits ``limit``, else numbered parts that each fit it.

    ``header(k, n)`` and ``footer(k, n)`` frame part k of n (markers, "part 2 of 3").
    """
    whole = header(1, 1) + body + footer(1, 1)
    if length(whole) <= limit:
        return [whole]
    lines = _short_lines(body.splitlines(keepends=True), limit // 4)
    states = _scan(lines)
    for reserve in (2_000, 8_000, 32_000):  # room for frames and closers; grows if a part overran
        cuts = _cuts(lines, states, budget=limit - reserve)
        parts = _assemble(lines, states, cuts, header, footer)
        if all(length(p) <= limit for p in parts):
            return parts
    raise ValueError("the frames leave no room for the body")


def _short_lines(lines: list[str], longest: int) -> list[str]:
    """A line longer than a quarter of a part (never seen in a report) is cut into pieces."""
    out: list[str] = []
    for line in lines:
        out.extend(line[j : j + longest] for j in range(0, len(line), longest))
    return out


def _cuts(lines: list[str], states: list[tuple[_Open, ...]], *, budget: int) -> list[int]:
    """Boundaries to cut at, greedily: each part as full as the budget allows, cut at the last
    clean boundary when one lies in the part's second half, else at the last line that fits."""
    cuts: list[int] = []
    start, size, clean = 0, 0, 0
    i = 0
    while i < len(lines):
        reopen = sum(len(o.opener) + 1 for o in states[start])
        if i > start and size + reopen + len(lines[i]) + _closing(states[i + 1]) > budget:
            cut = clean if clean > start and _size(lines, start, clean) >= budget // 2 else i
            cuts.append(cut)
            start, size, clean, i = cut, 0, cut, cut
            continue
        size += len(lines[i])
        i += 1
        if i < len(lines) and _clean(lines, i, states):
            clean = i
    return cuts


def _size(lines: list[str], start: int, end: int) -> int:
    return sum(len(line) for line in lines[start:end])


def _closing(state: tuple[_Open, ...]) -> int:
    return sum(len(o.closer) + 1 for o in state)


def _assemble(
    lines: list[str],
    states: list[tuple[_Open, ...]],
    cuts: list[int],
    header: Frame,
    footer: Frame,
) -> list[str]:
    bounds = [0, *cuts, len(lines)]
    total = len(bounds) - 1
    parts = []
    for k in range(total):
        start, end = bounds[k], bounds[k + 1]
        text = "".join(lines[start:end])
        if not text.endswith("\n"):
            text += "\n"
        reopen = "".join(o.opener + "\n" for o in states[start])
        close = "".join(o.closer + "\n" for o in reversed(states[end]))
        parts.append(header(k + 1, total) + reopen + text + close + footer(k + 1, total))
    return parts

"""User code that crashed in the child, in readable lines (pure): the error's text rewritten.

The sandbox reports a crash as one string: the revision and the exception, then Python's
traceback with the child's own paths (a temp checkout) and `^^^^` markers. A user reads it
better as lines: first the exception and the user's own frame as `file:line` (the place to
look, also the one line a status or a table shows), then the frames, user code by its path in
the repository, libraries by their path inside site-packages. A ModuleNotFoundError is almost
always the wrong interpreter (torch, or the user's package, is installed in the training
environment, not in gradgate's): the first line says to pass `--python` (issue 19).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>.+)$')
_MARKS = re.compile(r"^\s*[\^~\s]+$")  # Python 3.11's `^^^^~~~` under a frame's code
_MISSING = re.compile(r"ModuleNotFoundError: No module named '(?P<name>[^']+)'")
_SITE = ("site-packages/", "dist-packages/")


@dataclass(frozen=True, slots=True)
class Frame:
    file: str  # as the user knows it: relative to the repository, or inside site-packages
    line: int
    func: str
    code: str
    user: bool  # in the revision's tree or beside the config


def crash_text(
    text: str, *, roots: Sequence[Path], python: str, config_dir: Path | None = None
) -> str:
    """``text``: a SandboxError's message; ``roots``: where the revision's tree was (user code);
    ``python``: the interpreter that ran the model, named in a missing module's hint."""
    first, _, trace = text.partition("\n")
    frames, tail = _frames(trace, roots=roots, config_dir=config_dir)
    lines = [first.rstrip() + _at(frames) + _hint(first, python)]
    if frames:
        lines.append("Where it happened (most recent call last):")
        for frame in frames:
            lines.append(f"  {frame.file}:{frame.line}, in {frame.func}")
            if frame.code:
                lines.append(f"      {frame.code}")
    lines += [line for line in tail if line.strip() and line.strip() not in first]
    return "\n".join(lines)


def _frames(
    trace: str, *, roots: Sequence[Path], config_dir: Path | None
) -> tuple[list[Frame], list[str]]:
    """The frames of a traceback, and the lines after them (the exception, said again)."""
    frames: list[Frame] = []
    rows = trace.splitlines()
    tail: list[str] = []
    i = 0
    while i < len(rows):
        match = _FRAME.match(rows[i])
        if match is None:
            if frames or not rows[i].startswith("Traceback"):
                tail.append(rows[i])
            i += 1
            continue
        tail = []  # what came before the last frame was part of the traceback
        code = ""
        i += 1
        if i < len(rows) and not _FRAME.match(rows[i]) and rows[i].startswith("    "):
            code = rows[i].strip()
            i += 1
            while i < len(rows) and _MARKS.match(rows[i]):
                i += 1
        file, user = _shown(match["file"], roots=roots, config_dir=config_dir)
        frames.append(Frame(file, int(match["line"]), match["func"], code, user))
    return frames, tail


def _shown(path: str, *, roots: Sequence[Path], config_dir: Path | None) -> tuple[str, bool]:
    for root in roots:
        prefix = str(root).rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :], True
    if config_dir is not None and path.startswith(str(config_dir).rstrip("/") + "/"):
        return path, True
    for marker in _SITE:
        if marker in path:
            return path.split(marker, 1)[1], False
    return path, False


def _at(frames: Sequence[Frame]) -> str:
    """Where in the user's code it happened: the innermost of the user's frames."""
    user = [f for f in frames if f.user]
    if not user:
        return ""
    frame = user[-1]
    return f" (at `{frame.file}:{frame.line}`, in `{frame.func}`)"


def _hint(first: str, python: str) -> str:
    missing = _MISSING.search(first)
    if missing is None:
        return ""
    return (
        f". `{missing['name']}` cannot be imported by `{python}`, the interpreter that ran the "
        "model: pass `--python` (or set `python:` in .gradgate.yml) naming the interpreter of "
        "the environment you train in, where it is installed"
    )

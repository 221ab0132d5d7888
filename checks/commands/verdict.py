"""How one command ended at head, against base: the verdict's rule (pure).

Only what the PR broke blocks: a command that ran at base and fails (or runs past its limit)
at head, or a command the PR documents that does not start. A command that fails at base too
is a note; one that wants a file the repository has at neither revision "needs data" (a note,
however it ends at base); one that cannot run here is a note saying why.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gradgate.checks.base import Severity
from gradgate.checks.diff import LineSpan

# Exceptions that mean the command wanted to reach the network, which the sandbox closes.
_NETWORK = frozenset(
    {"URLError", "HTTPError", "ConnectionError", "ConnectionRefusedError", "gaierror",
     "MaxRetryError", "NewConnectionError", "LocalEntryNotFoundError", "OfflineModeIsEnabled"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Frame:
    file: str  # relative to the revision's root
    line: int
    function: str


@dataclass(frozen=True, slots=True)
class Raised:
    type: str
    message: str
    frame: Frame | None  # the last frame inside the repository
    missing: str | None  # the path an OSError names


@dataclass(frozen=True, slots=True)
class Ran:
    status: str  # "ok" | "failed" | "timeout"
    stage: str = "command"  # "prepare" | "command"
    returncode: int = 0
    raised: Raised | None = None
    tail: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def ran_from(value: Mapping[str, Any]) -> Ran:
    """The child's answer (``commands.child.run_command``) as a value: of the exceptions the
    command's processes raised, the first with a frame in the repository, else the first."""
    raised = [_raised(e) for e in value.get("errors") or ()]
    chosen = next((r for r in raised if r.frame is not None), raised[0] if raised else None)
    return Ran(
        status=str(value["status"]),
        stage=str(value.get("stage") or "command"),
        returncode=int(value.get("returncode") or 0),
        raised=chosen,
        tail=str(value.get("tail") or ""),
        seconds=float(value.get("seconds") or 0.0),
    )


def _raised(error: Mapping[str, Any]) -> Raised:
    inside = [f for f in error.get("frames") or () if len(f) > 3 and f[3]]
    frame = Frame(str(inside[-1][3]), int(inside[-1][1]), str(inside[-1][2])) if inside else None
    missing = error.get("missing")
    return Raised(
        str(error.get("type")),
        str(error.get("message") or ""),
        frame,
        str(missing) if isinstance(missing, str) else None,
    )


class Kind(StrEnum):
    PASSED = "passed"
    BROKE = "commands-broke"  # ran at base, fails at head
    TIMEOUT = "commands-timeout"  # finished at base, ran past its limit at head
    ADDED_BROKEN = "commands-added-broken"  # documented by the PR, does not start
    FAILS_AT_BASE = "commands-fails-at-base"
    NEEDS_DATA = "commands-needs-data"
    NOT_RUN = "commands-not-run"


SEVERITY = {
    Kind.BROKE: Severity.BLOCKING,
    Kind.TIMEOUT: Severity.BLOCKING,
    Kind.ADDED_BROKEN: Severity.BLOCKING,
    Kind.FAILS_AT_BASE: Severity.NOTE,
    Kind.NEEDS_DATA: Severity.NOTE,
    Kind.NOT_RUN: Severity.NOTE,
}


def needs(ran: Ran, files: Collection[str]) -> str | None:
    """What a failed run wanted that the repository does not have (a path, or "the network"),
    or None. ``files``: the repository's files at base and head together."""
    raised = ran.raised
    if ran.ok or raised is None:
        return None
    if raised.type in _NETWORK:
        return "the network"
    if raised.type in ("FileNotFoundError", "IsADirectoryError", "NotADirectoryError"):
        missing = raised.missing
        if missing is not None and missing not in files:
            return missing
    return None


def judge(head: Ran, base: Ran | None, *, files: Collection[str]) -> Kind:
    """``base`` None: the command is new in this PR (or its script is), so it runs at head
    only. A head run that passed never needs its base run (the check skips it)."""
    if head.ok:
        return Kind.PASSED
    if needs(head, files) is not None:
        return Kind.NEEDS_DATA
    if base is None:
        return Kind.ADDED_BROKEN
    if base.ok or needs(base, files) is not None:
        return Kind.TIMEOUT if head.status == "timeout" else Kind.BROKE
    return Kind.FAILS_AT_BASE


def in_diff(frame: Frame, changed: Mapping[str, tuple[LineSpan, ...]]) -> LineSpan | None:
    """The hunk of the PR's diff (head side) that holds the frame's line, if any."""
    return next((span for span in changed.get(frame.file, ()) if frame.line in span), None)

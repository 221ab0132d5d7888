"""What GitHub lists on a commit, read from the list's own JSON into plain values (pure): a
PyGithub object would fetch each item again for a field the list left out."""

from __future__ import annotations

from typing import Any

from gradgate.bot.github.ports import CheckRunState, CommitStatus


def check_run_state(raw: dict[str, Any]) -> CheckRunState:
    return CheckRunState(
        id=int(raw["id"]),
        name=str(raw["name"]),
        status=str(raw["status"]),
        conclusion=raw.get("conclusion"),
        app=(raw.get("app") or {}).get("slug"),
        external_id=raw.get("external_id"),
        title=(raw.get("output") or {}).get("title"),
        summary=(raw.get("output") or {}).get("summary"),
    )


def commit_status(raw: dict[str, Any]) -> CommitStatus:
    return CommitStatus(
        context=str(raw.get("context") or ""),
        state=str(raw.get("state") or ""),
        description=str(raw.get("description") or ""),
        creator=str((raw.get("creator") or {}).get("login") or ""),
    )

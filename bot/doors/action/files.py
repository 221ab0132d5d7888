"""What the stages read and write besides GitHub: the results directory's JSON files, and the
step's outputs (``$GITHUB_OUTPUT``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gradgate.bot.doors.action.settings import Settings
from gradgate.checks.errors import UsageError


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def output(s: Settings, text: str) -> None:
    """Appends ``text`` (``name=value`` lines) to the step's outputs, when there are any."""
    if s.env.get("GITHUB_OUTPUT"):
        with open(s.env["GITHUB_OUTPUT"], "a", encoding="utf-8") as out:
            out.write(text)

"""The shipped App manifest asks for exactly what the App uses, and is valid JSON."""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST = Path(__file__).resolve().parents[3] / "app-manifest.json"


def test_manifest_permissions_and_events() -> None:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert manifest["default_permissions"] == {
        "contents": "read",
        "pull_requests": "write",
        "statuses": "write",
        "checks": "write",
        "issues": "write",
        "metadata": "read",  # GitHub grants it to every App; listed so the form shows it
    }
    # check_run and check_suite: GitHub's Re-run buttons (rerequested) work like /recheck.
    assert sorted(manifest["default_events"]) == [
        "check_run",
        "check_suite",
        "issue_comment",
        "pull_request",
    ]
    assert manifest["hook_attributes"]["url"].endswith("/webhook")

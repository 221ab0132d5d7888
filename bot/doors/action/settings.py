"""What `gradgate action` is told: GitHub Actions' environment and the command line, as Settings;
the GitHub client they make; and the lines it writes to the job's log."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradgate.bot.github.client import Connection, GitHubClient, RetryPolicy
from gradgate.bot.github.publish import Target
from gradgate.bot.report.formats import REPO
from gradgate.bot.templates import render_template
from gradgate.checks.errors import UsageError

STAGES = ("all", "plan", "check", "publish", "gate")
_REPO = re.compile(REPO)
_REF = re.compile(r"(?!.*\.\.)[A-Za-z0-9._/-]{1,200}")  # a tag, branch or SHA, as `uses:` names it
DEFAULT_BOT = "github-actions[bot]"  # who posts with an Action's GITHUB_TOKEN


@dataclass(frozen=True, slots=True)
class Settings:
    env: Mapping[str, str]
    stage: str = "all"
    repo_path: Path = Path(".")
    results: Path = Path("gradgate-results")
    check: str | None = None
    python: str | None = None
    workflow: str | None = None  # the checks workflow /recheck re-runs; default: this one
    bot_login: str = DEFAULT_BOT
    # The trusted side (gradgate-publish.yml): where the gate reads the PR run's uploaded
    # results (untrusted), and the PR, head and base branch the gate named for the check jobs.
    uploaded: Path = Path("gradgate-uploaded")
    pr: str | None = None
    head: str | None = None
    base_ref: str | None = None

    def need(self, name: str) -> str:
        value = self.env.get(name)
        if not value:
            raise UsageError(render_template("action_missing.txt.j2", variable=name).strip())
        return value

    @property
    def server(self) -> str:
        return self.env.get("GITHUB_SERVER_URL") or "https://github.com"

    @property
    def docs_url(self) -> str | None:
        """gradgate's docs/ folder at the commit of the action that runs (the report's footer
        links each finding's check page there); None where the runner does not say. A
        composite action's own steps see GITHUB_ACTION_REPOSITORY and GITHUB_ACTION_REF empty
        (actions/runner#2473), so action.yml passes them as GRADGATE_ACTION_*."""
        repo = self.env.get("GRADGATE_ACTION_REPOSITORY") or self.env.get(
            "GITHUB_ACTION_REPOSITORY"
        )
        ref = self.env.get("GRADGATE_ACTION_REF") or self.env.get("GITHUB_ACTION_REF")
        if not (repo and ref and _REPO.fullmatch(repo) and _REF.fullmatch(ref)):
            return None
        return f"{self.server}/{repo}/blob/{ref}/docs"

    def target(self, number: int, run_id: str | None) -> Target:
        """Where statuses link: the workflow run (``run_id``), on pull request ``number``."""
        repository = self.need("GITHUB_REPOSITORY")
        url = f"{self.server}/{repository}/actions/runs/{run_id}" if run_id else None
        return Target(number=number, bot_login=self.bot_login, target_url=url)

    def workflow_file(self) -> str:
        """The checks workflow's file: --workflow, else the one running now (GITHUB_WORKFLOW_REF
        is owner/repo/.github/workflows/FILE@ref)."""
        if self.workflow:
            return self.workflow
        ref = self.need("GITHUB_WORKFLOW_REF")
        return ref.split("@", 1)[0].rsplit("/", 1)[-1]


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    """PyGithub's and GitHub's defaults, unless the environment says otherwise:

    GRADGATE_GITHUB_RETRIES           retries per request (5)
    GRADGATE_GITHUB_BACKOFF_S         backoff factor between retries (1 s, doubling); a secondary
                                      rate limit without Retry-After waits 60 times it (a minute)
    GRADGATE_GITHUB_WRITE_INTERVAL_S  pause between writes (1 s, GitHub's advice)
    """
    fields = {"total": "RETRIES", "backoff_s": "BACKOFF_S", "write_interval_s": "WRITE_INTERVAL_S"}
    values: dict[str, Any] = {}
    for field, suffix in fields.items():
        raw = env.get(f"GRADGATE_GITHUB_{suffix}")
        if raw:
            try:
                values[field] = int(raw) if field == "total" else float(raw)
            except ValueError:
                raise UsageError(f"GRADGATE_GITHUB_{suffix} is not a number: {raw!r}") from None
    if "write_interval_s" in values:
        values["request_interval_s"] = min(values["write_interval_s"], 0.25)
    if "backoff_s" in values:
        values["secondary_rate_wait_s"] = values["backoff_s"] * 60
    return RetryPolicy(**values)


def connect(s: Settings) -> GitHubClient:
    return GitHubClient(
        Connection(
            api_url=s.env.get("GITHUB_API_URL") or "https://api.github.com",
            token=s.need("GITHUB_TOKEN"),
            repo=s.need("GITHUB_REPOSITORY"),
            retry=retry_policy(s.env),
        )
    )


def say(what: str, **values: Any) -> None:
    text = render_template("action.txt.j2", what=what, **values)
    if text.strip():
        print(text.rstrip("\n"), flush=True)

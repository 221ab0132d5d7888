"""Run `gradgate check --format json` in a child process that holds no credentials.

The GitHub Action's process holds GITHUB_TOKEN and publishes; the checks, which read (and the
model checks run) the PR's code, run in a child started with the environment less every
credential (``checks.sandbox.env.without_credentials``). Whatever the child does, the parent
gets a Report: its JSON, or an error report saying what went wrong, never a pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping

from gradgate.bot.pipeline import Request, error_report
from gradgate.bot.report.load import report_from_json
from gradgate.bot.report.render import Report
from gradgate.bot.templates import render_template
from gradgate.checks.sandbox.env import without_credentials


def check_command(request: Request) -> list[str]:
    command = [
        sys.executable, "-m", "gradgate.bot", "check",
        "--repo", str(request.repo_path), "--base", request.base, "--head", request.head,
        "--format", "json",
    ]  # fmt: skip
    for name in request.only or ():
        command += ["--only", name]
    if request.python:
        command += ["--python", request.python]
    if request.config_file is not None:
        command += ["--config", str(request.config_file)]
    if request.sandbox_default != "auto":
        command += ["--sandbox", request.sandbox_default]
    if request.untrusted_head:
        command += ["--untrusted-head"]
    if request.cache is None:
        command += ["--no-cache"]
    elif request.fork_pr is not None:
        command += ["--fork-pr", str(request.fork_pr)]
    return command


def run_checks(
    request: Request, *, environ: Mapping[str, str] | None = None
) -> tuple[Report, dict[str, object] | None]:
    """The report of the child's run, and its JSON as the child printed it (None: no JSON)."""
    env = without_credentials(os.environ if environ is None else environ)
    done = subprocess.run(
        check_command(request), env=env, capture_output=True, text=True, check=False
    )
    try:
        data = json.loads(done.stdout)
        return report_from_json(data), data
    except ValueError:  # json.JSONDecodeError is one
        message = render_template(
            "isolated_failed.txt.j2", code=done.returncode, stderr=done.stderr.strip()[-2000:]
        ).strip()
        return error_report(request, message), None

"""`gradgate init --workflows`: the fork-safe pair of GitHub Actions workflows.

gradgate.yml          pull_request: plan, then one job per check (the matrix from `gradgate plan
                      --format github-matrix`), with a read-only token; results as artifacts
gradgate-publish.yml  workflow_run: download the results and publish them; issue_comment:
                      `/recheck`. Never checks out or runs the pull request's code.

Both use the gradgate action pinned to a full commit SHA, which the user names: gradgate cannot
know which commit of itself a repository has reviewed and trusts.
"""

from __future__ import annotations

import re
from pathlib import Path

from gradgate.bot.templates import render_workflow
from gradgate.checks.errors import UsageError

WORKFLOWS = {
    "gradgate.yml": "workflow_checks.yml.j2",
    "gradgate-publish.yml": "workflow_publish.yml.j2",
}
_ACTION = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_./-]+)?@[0-9a-f]{40}")


def workflows(*, action: str) -> dict[str, str]:
    """File name -> text, for ``action`` (``owner/repo@<40-hex SHA>``)."""
    if not _ACTION.fullmatch(action):
        raise UsageError(
            f"--action {action!r} is not OWNER/REPO@SHA with a full 40-character commit SHA; "
            "pin the gradgate action to the commit you reviewed"
        )
    return {name: render_workflow(template, action=action) for name, template in WORKFLOWS.items()}


def write_workflows(root: Path, *, action: str | None, force: bool) -> list[Path]:
    if action is None:
        raise UsageError(
            "name the gradgate action the workflows use, pinned to a commit: "
            "--action OWNER/gradgate@<full commit SHA>"
        )
    texts = workflows(action=action)
    folder = root / ".github" / "workflows"
    targets = [folder / name for name in texts]
    existing = [str(t) for t in targets if t.exists()]
    if existing and not force:
        raise UsageError(f"{', '.join(existing)} already exists; use --force to overwrite")
    folder.mkdir(parents=True, exist_ok=True)
    for target in targets:
        target.write_text(texts[target.name], encoding="utf-8")
    return targets

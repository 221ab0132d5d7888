"""Real webhook payloads (fixtures/github/webhooks/), adapted to point at a test's repository.

Only the fields a test names change; everything else is what GitHub sent. GitHub sends no
`workflow_run` payload among the stored fixtures, so ``workflow_run`` is built by hand from
GitHub's webhook documentation, with the fields gradgate reads.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.fakegithub.state import WEBHOOKS


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEBHOOKS / name).read_text(encoding="utf-8"))
    return data


def pull_request(
    action: str,
    *,
    repo: str,
    number: int,
    head: str,
    base: str,
    author: str,
    head_ref: str = "feature",
    head_repo: str | None = None,
    changes: dict[str, Any] | None = None,
    base_ref: str = "main",
) -> dict[str, Any]:
    source = {"opened": "opened", "synchronize": "synchronize", "reopened": "reopened"}.get(
        action, "closed"
    )
    data = copy.deepcopy(_load(f"pull_request/{source}.payload.json"))
    data["action"] = action
    data["number"] = number
    data["repository"]["full_name"] = repo
    pr = data["pull_request"]
    pr.update(number=number)
    pr["user"]["login"] = author
    pr["head"].update(sha=head, ref=head_ref)
    pr["head"]["repo"]["full_name"] = head_repo or repo
    pr["base"].update(sha=base, ref=base_ref)
    pr["base"]["repo"]["full_name"] = repo
    if changes is not None:
        data["changes"] = changes
    return data


def labeled(
    *, repo: str, number: int, head: str, base: str, author: str, label: str, by: str,
    head_repo: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A `pull_request` (or `pull_request_target`: the same payload) `labeled` delivery: the
    stored PR payload with `label` (shaped as the PR's own `labels` entries) and `sender`."""
    data = pull_request(
        "synchronize", repo=repo, number=number, head=head, base=base, author=author,
        head_ref="pr", head_repo=head_repo,
    )  # fmt: skip
    data["action"] = "labeled"
    for key in ("before", "after"):  # only a push carries them
        data.pop(key, None)
    shape = copy.deepcopy(data["pull_request"]["labels"][0])
    shape.update(name=label, url=f"https://api.github.com/repos/{repo}/labels/{label}")
    data["label"] = shape
    data["pull_request"]["labels"].append(shape)
    data["sender"].update(login=by, type="Bot" if by.endswith("[bot]") else "User")
    return data


def issue_comment(
    action: str,
    *,
    repo: str,
    number: int,
    comment_id: int,
    body: str,
    author: str,
    author_type: str = "User",
    on_pull_request: bool = True,
) -> dict[str, Any]:
    data = copy.deepcopy(
        _load(f"issue_comment/{'edited' if action == 'edited' else 'created'}.payload.json")
    )
    data["action"] = action
    data["repository"]["full_name"] = repo
    data["issue"]["number"] = number
    if on_pull_request:  # the stored payload is a comment on an issue; a PR's issue has this key
        data["issue"]["pull_request"] = {
            "url": f"https://api.github.com/repos/{repo}/pulls/{number}"
        }
    data["comment"].update(id=comment_id, body=body)
    data["comment"]["user"].update(login=author, type=author_type)
    return data


def workflow_run(
    *,
    repo: str,
    run_id: int,
    head: str,
    head_branch: str,
    head_repo: str | None = None,
    conclusion: str = "failure",
    run_attempt: int = 1,
) -> dict[str, Any]:
    """Hand-written (no stored fixture): GitHub's `workflow_run` webhook, fields gradgate reads.
    ``run_attempt``: 2 and up for the same run re-run ("Re-run jobs", or `/recheck`)."""
    return {
        "action": "completed",
        "workflow_run": {
            "id": run_id,
            "run_attempt": run_attempt,
            "name": "gradgate",
            "event": "pull_request",
            "status": "completed",
            "conclusion": conclusion,
            "head_sha": head,
            "head_branch": head_branch,
            "head_repository": {"full_name": head_repo or repo},
            "pull_requests": [],  # GitHub leaves it empty for a fork's pull request
        },
        "repository": {"full_name": repo},
    }


def write(path: Path, payload: dict[str, Any]) -> Path:
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path

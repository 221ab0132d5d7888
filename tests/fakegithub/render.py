"""The JSON GitHub sends for the fake's objects.

Built from real webhook payloads (fixtures/github/webhooks/), retargeted at the fake's URL, so
each object carries every field GitHub's own objects carry.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from tests.fakegithub.state import (
    WEBHOOKS,
    CheckRunRecord,
    Comment,
    Pull,
    Reaction,
    Repo,
    Run,
    StatusRecord,
    User,
    timestamp,
)

_TEMPLATE_REPO = "Codertocat/Hello-World"
_TEMPLATE_LOGIN = "Codertocat"


@cache
def _payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEBHOOKS / name).read_text(encoding="utf-8"))
    return data


class Render:
    """GitHub's JSON for the fake's objects, with URLs under the fake's ``api`` URL."""

    def __init__(self, api: str, web: str) -> None:
        self.api = api
        self.web = web

    def _retarget(self, template: Any, *, repo: str | None = None, login: str | None = None) -> Any:
        text = json.dumps(template)
        text = text.replace("https://api.github.com", self.api).replace(
            "https://github.com", self.web
        )
        if repo is not None:
            text = text.replace(_TEMPLATE_REPO, repo)
        if login is not None:
            text = text.replace(_TEMPLATE_LOGIN, login)
        return json.loads(text)

    def user(self, user: User) -> dict[str, Any]:
        data: dict[str, Any] = self._retarget(
            _payload("pull_request/opened.payload.json")["pull_request"]["user"], login=user.login
        )
        data.update(id=user.id, node_id=f"U_{user.id}", type=user.type, site_admin=False)
        return data

    def repository(self, repo: Repo, owner: User) -> dict[str, Any]:
        data: dict[str, Any] = self._retarget(
            _payload("pull_request/opened.payload.json")["repository"], repo=repo.full_name
        )
        data.update(id=repo.id, node_id=f"R_{repo.id}", name=repo.full_name.split("/")[1])
        data["full_name"] = repo.full_name
        data["owner"] = self.user(owner)
        return data

    def pull(self, repo: Repo, pull: Pull, users: dict[str, User]) -> dict[str, Any]:
        template = copy.deepcopy(_payload("pull_request/opened.payload.json")["pull_request"])
        data: dict[str, Any] = self._retarget(template, repo=repo.full_name)
        owner = users[repo.full_name.split("/")[0]]
        base_repo = self.repository(repo, owner)
        url = f"{self.api}/repos/{repo.full_name}/pulls/{pull.number}"
        data.update(
            id=repo.id * 10_000 + pull.number,
            node_id=f"PR_{repo.id}_{pull.number}",
            number=pull.number,
            state=pull.state,
            url=url,
            html_url=f"{self.web}/{repo.full_name}/pull/{pull.number}",
            issue_url=f"{self.api}/repos/{repo.full_name}/issues/{pull.number}",
            comments_url=f"{self.api}/repos/{repo.full_name}/issues/{pull.number}/comments",
            statuses_url=f"{self.api}/repos/{repo.full_name}/statuses/{pull.head_sha}",
            user=self.user(users[pull.author]),
            merged=False,
            closed_at=None if pull.state == "open" else data["closed_at"] or timestamp(0),
        )
        head_repo_name = pull.head_repo or repo.full_name
        head_owner = users[head_repo_name.split("/")[0]]
        head_repo = Repo(
            full_name=head_repo_name, id=repo.id + (0 if pull.head_repo is None else 7)
        )
        data["head"].update(
            sha=pull.head_sha,
            ref=pull.head_ref,
            label=f"{head_owner.login}:{pull.head_ref}",
            user=self.user(head_owner),
            repo=self.repository(head_repo, head_owner),
        )
        data["base"].update(
            sha=pull.base_sha,
            ref=pull.base_ref,
            label=f"{owner.login}:{pull.base_ref}",
            user=self.user(owner),
            repo=base_repo,
        )
        return data

    def comment(self, repo: Repo, comment: Comment, users: dict[str, User]) -> dict[str, Any]:
        data: dict[str, Any] = self._retarget(
            _payload("issue_comment/created.payload.json")["comment"], repo=repo.full_name
        )
        association = {"admin": "OWNER", "write": "COLLABORATOR", "read": "CONTRIBUTOR"}
        data.update(
            id=comment.id,
            node_id=f"IC_{comment.id}",
            url=f"{self.api}/repos/{repo.full_name}/issues/comments/{comment.id}",
            html_url=f"{self.web}/{repo.full_name}/pull/{comment.number}#issuecomment-{comment.id}",
            issue_url=f"{self.api}/repos/{repo.full_name}/issues/{comment.number}",
            body=comment.body,
            user=self.user(users[comment.author]),
            created_at=timestamp(comment.created),
            updated_at=timestamp(comment.updated),
            author_association=association.get(repo.collaborators.get(comment.author, ""), "NONE"),
        )
        return data

    def status(self, repo: Repo, record: StatusRecord, users: dict[str, User]) -> dict[str, Any]:
        creator = self.user(users[record.creator])
        return {
            "url": f"{self.api}/repos/{repo.full_name}/statuses/{record.sha}",
            "avatar_url": creator["avatar_url"],
            "id": record.id,
            "node_id": f"SC_{record.id}",
            "state": record.state,
            "description": record.description,
            "target_url": record.target_url,
            "context": record.context,
            "created_at": timestamp(record.created),
            "updated_at": timestamp(record.created),
            "creator": creator,
        }

    def reaction(self, reaction: Reaction, users: dict[str, User]) -> dict[str, Any]:
        return {
            "id": reaction.id,
            "node_id": f"REA_{reaction.id}",
            "user": self.user(users[reaction.user]),
            "content": reaction.content,
            "created_at": timestamp(reaction.id),
        }

    def permission(self, login: str, permission: str, users: dict[str, User]) -> dict[str, Any]:
        user = self.user(users[login])
        return {
            "permission": permission,
            "role_name": permission,
            "user": {**user, "role_name": permission},
        }

    def run(self, repo: Repo, run: Run, users: dict[str, User]) -> dict[str, Any]:
        owner = users[repo.full_name.split("/")[0]]
        minimal = {
            key: value
            for key, value in self.repository(repo, owner).items()
            if key in {"id", "node_id", "name", "full_name", "owner", "private", "html_url", "url"}
        }
        url = f"{self.api}/repos/{repo.full_name}/actions/runs/{run.id}"
        return {
            "id": run.id,
            "name": "gradgate",
            "node_id": f"WFR_{run.id}",
            "head_branch": run.head_ref,
            "head_sha": run.head_sha,
            "path": f".github/workflows/{run.workflow}",
            "display_title": "gradgate",
            "run_number": run.run_number,
            "run_attempt": 1 + len(run.reruns),
            "event": run.event,
            "status": run.status,
            "conclusion": run.conclusion,
            "workflow_id": 1000 + sum(map(ord, run.workflow)),
            "url": url,
            "html_url": f"{self.web}/{repo.full_name}/actions/runs/{run.id}",
            "pull_requests": [],
            "created_at": timestamp(run.id),
            "updated_at": timestamp(run.id),
            "jobs_url": f"{url}/jobs",
            "logs_url": f"{url}/logs",
            "check_suite_url": f"{self.api}/repos/{repo.full_name}/check-suites/{run.id}",
            "artifacts_url": f"{url}/artifacts",
            "cancel_url": f"{url}/cancel",
            "rerun_url": f"{url}/rerun",
            "workflow_url": f"{self.api}/repos/{repo.full_name}/actions/workflows/{run.workflow}",
            "repository": minimal,
            "head_repository": minimal,
        }

    def check_run(self, repo: Repo, record: CheckRunRecord) -> dict[str, Any]:
        template = _payload("check_run/rerequested.payload.json")["check_run"]
        data: dict[str, Any] = self._retarget(template)
        url = f"{self.api}/repos/{repo.full_name}/check-runs/{record.id}"
        app = data["app"]
        app.update(
            created_at=timestamp(0),
            updated_at=timestamp(0),
            permissions={"checks": "write", "statuses": "write"},
            events=["check_run"],
        )
        data.update(
            id=record.id,
            node_id=f"CR_{record.id}",
            head_sha=record.sha,
            name=record.name,
            url=url,
            html_url=f"{self.web}/{repo.full_name}/runs/{record.id}",
            details_url=record.details_url,
            external_id=record.external_id,
            status=record.status,
            conclusion=record.conclusion,
            started_at=timestamp(record.created),
            completed_at=timestamp(record.created) if record.status == "completed" else None,
            pull_requests=[],
        )
        data["output"] = {
            "title": record.title,
            "summary": record.summary,
            "text": None,
            "annotations_count": len(record.annotations),
            "annotations_url": f"{url}/annotations",
        }
        data["check_suite"] = {"id": record.id}
        return data

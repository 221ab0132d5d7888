"""The fake GitHub's pull request reviews: create (with inline comments), list, get, update,
dismiss, list a review's comments, delete a comment; and the JSON GitHub sends for them.

Written from GitHub's REST documentation ("Reviews for a pull request", "Review comments for a
pull request"), including its refusals, each answered as 422 before anything is created:

- an inline comment on a line that is not part of the pull request's diff (``Pull.diff``);
- requesting changes on, or approving, one's own pull request;
- approving with an Action's token (GitHub Actions may not approve pull requests);
- REQUEST_CHANGES, or COMMENT without inline comments, with no body;
- dismissing a review that only commented (only approvals and change requests can be).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.fakegithub.endpoints import DOCS, Answer, Endpoints, error
from tests.fakegithub.state import Pull, Repo, ReviewCommentRecord, ReviewRecord, timestamp

_ACTIONS_BOT = "github-actions[bot]"
_ASSOCIATION = {"admin": "OWNER", "write": "COLLABORATOR", "read": "CONTRIBUTOR"}


def unprocessable(*errors: str) -> Answer:
    """GitHub's 422 for reviews: `errors` is a list of sentences (validation-error-simple)."""
    return Answer(
        422, {"message": "Unprocessable Entity", "errors": list(errors), "documentation_url": DOCS}
    )


class ReviewEndpoints(Endpoints):
    def _pull_of(self, repo: Repo, m: re.Match[str]) -> Pull:
        pull = repo.pulls.get(int(m["number"]))
        if pull is None:
            raise error(404, "Not Found")
        return pull

    def _review_of(self, repo: Repo, m: re.Match[str]) -> ReviewRecord:
        review = repo.reviews.get(int(m["review"]))
        if review is None or review.number != int(m["number"]):
            raise error(404, "Not Found")
        return review

    def _create_review(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        pull = self._pull_of(repo, m)
        body = body or {}
        event, text = body.get("event"), body.get("body") or ""
        comments = body.get("comments") or []
        if event == "APPROVE" and login == _ACTIONS_BOT:
            raise unprocessable("GitHub Actions is not permitted to approve pull requests.")
        if event in ("APPROVE", "REQUEST_CHANGES") and login == pull.author:
            verb = "approve" if event == "APPROVE" else "request changes on"
            raise unprocessable(f"Can not {verb} your own pull request")
        if not text and (event == "REQUEST_CHANGES" or (event == "COMMENT" and not comments)):
            raise unprocessable(f"Body is required when the event is {event}")
        for comment in comments:
            side, line = comment.get("side", "RIGHT"), comment.get("line")
            if side not in ("LEFT", "RIGHT") or not isinstance(line, int):
                raise unprocessable("Pull request review thread line must be part of the diff")
            if pull.diff is not None and line not in pull.diff.get(comment["path"], {}).get(
                side, set()
            ):
                raise unprocessable(
                    "Pull request review thread line must be part of the diff",
                    "Pull request review thread diff hunk can't be blank",
                )
        state = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}.get(
            event or "", "COMMENTED" if event else "PENDING"
        )
        now = self.tick()
        commit = body.get("commit_id") or pull.head_sha
        review = ReviewRecord(self._next_id(), pull.number, login, state, text, commit, now)
        repo.reviews[review.id] = review
        for comment in comments:
            record = ReviewCommentRecord(
                id=self._next_id(),
                review_id=review.id,
                number=pull.number,
                path=comment["path"],
                line=comment["line"],
                side=comment.get("side", "RIGHT"),
                body=comment["body"],
                author=login,
                commit_id=commit,
                created=now,
            )
            repo.review_comments[record.id] = record
        return 200, self._review_json(repo, review)

    def _list_reviews(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        pull = self._pull_of(repo, m)
        items = sorted(
            (r for r in repo.reviews.values() if r.number == pull.number), key=lambda r: r.id
        )
        page, links = self._page(items, q, m.string)
        return 200, [self._review_json(repo, r) for r in page], links

    def _get_review(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        return 200, self._review_json(repo, self._review_of(repo, m))

    def _update_review(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        review = self._review_of(repo, m)
        if review.author != login:
            raise error(403, "Resource not accessible by integration")
        review.body = body["body"]
        return 200, self._review_json(repo, review)

    def _dismiss_review(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        review = self._review_of(repo, m)
        if review.state == "COMMENTED":
            raise unprocessable("Can not dismiss a commented pull request review")
        if review.state not in ("APPROVED", "CHANGES_REQUESTED"):
            raise unprocessable(f"Can not dismiss a {review.state.lower()} pull request review")
        review.state = "DISMISSED"
        return 200, self._review_json(repo, review)

    def _review_comments(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any, dict[str, str]]:
        review = self._review_of(repo, m)
        items = sorted(
            (c for c in repo.review_comments.values() if c.review_id == review.id),
            key=lambda c: c.id,
        )
        page, links = self._page(items, q, m.string)
        return 200, [self._review_comment_json(repo, c) for c in page], links

    def _delete_review_comment(
        self, repo: Repo, m: re.Match[str], q: dict[str, str], body: Any, login: str
    ) -> tuple[int, Any]:
        comment = repo.review_comments.get(int(m["comment"]))
        if comment is None:
            raise error(404, "Not Found")
        if comment.author != login and repo.collaborators.get(login) != "admin":
            raise error(403, "Resource not accessible by integration")
        del repo.review_comments[comment.id]
        return 204, None

    # -- the JSON ----------------------------------------------------------------------------

    def _review_json(self, repo: Repo, review: ReviewRecord) -> dict[str, Any]:
        pull_url = f"{self.url}/repos/{repo.full_name}/pulls/{review.number}"
        html = f"{self.render.web}/{repo.full_name}/pull/{review.number}"
        html += f"#pullrequestreview-{review.id}"
        data = {
            "id": review.id,
            "node_id": f"PRR_{review.id}",
            "user": self.render.user(self.users[review.author]),
            "body": review.body,
            "state": review.state,
            "html_url": html,
            "pull_request_url": pull_url,
            "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
            "commit_id": review.commit_id,
            "author_association": self._association(repo, review.author),
        }
        if review.state != "PENDING":
            data["submitted_at"] = timestamp(review.submitted)
        return data

    def _review_comment_json(self, repo: Repo, c: ReviewCommentRecord) -> dict[str, Any]:
        url = f"{self.url}/repos/{repo.full_name}/pulls/comments/{c.id}"
        pull_url = f"{self.url}/repos/{repo.full_name}/pulls/{c.number}"
        html = f"{self.render.web}/{repo.full_name}/pull/{c.number}#discussion_r{c.id}"
        hunk = f"@@ -{c.line},1 +{c.line},1 @@" if c.side == "LEFT" else f"@@ +{c.line},1 @@"
        return {
            "url": url,
            "pull_request_review_id": c.review_id,
            "id": c.id,
            "node_id": f"PRRC_{c.id}",
            "diff_hunk": hunk,
            "path": c.path,
            "position": None,
            "original_position": 1,
            "commit_id": c.commit_id,
            "original_commit_id": c.commit_id,
            "user": self.render.user(self.users[c.author]),
            "body": c.body,
            "created_at": timestamp(c.created),
            "updated_at": timestamp(c.created),
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": self._association(repo, c.author),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pull_url},
            },
            "side": c.side,
            "start_side": None,
            "line": c.line,
            "original_line": c.line,
            "start_line": None,
            "original_start_line": None,
            "subject_type": "line",
        }

    def _association(self, repo: Repo, login: str) -> str:
        return _ASSOCIATION.get(repo.collaborators.get(login, ""), "NONE")


_REPO = r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
_PULL = _REPO + r"/pulls/(?P<number>\d+)"
_REVIEW = _PULL + r"/reviews/(?P<review>\d+)"
REVIEW_ROUTES: list[tuple[str, re.Pattern[str], Callable[..., Any]]] = [
    ("POST", re.compile(_PULL + r"/reviews$"), ReviewEndpoints._create_review),
    ("GET", re.compile(_PULL + r"/reviews$"), ReviewEndpoints._list_reviews),
    ("GET", re.compile(_REVIEW + r"$"), ReviewEndpoints._get_review),
    ("PUT", re.compile(_REVIEW + r"$"), ReviewEndpoints._update_review),
    ("PUT", re.compile(_REVIEW + r"/dismissals$"), ReviewEndpoints._dismiss_review),
    ("GET", re.compile(_REVIEW + r"/comments$"), ReviewEndpoints._review_comments),
    (
        "DELETE",
        re.compile(_REPO + r"/pulls/comments/(?P<comment>\d+)$"),
        ReviewEndpoints._delete_review_comment,
    ),
]

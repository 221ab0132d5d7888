"""What GitHub's identifiers look like, as pydantic types: a value from a webhook (or an artifact)
that reaches a report, a status, a stamp, a check run's name or an API URL is checked against its
format when it is parsed, not only escaped where it is shown (issue 17, point 4).

    Sha        a commit: 40 lowercase hex digits (what GitHub sends; never abbreviated)
    Number     a pull request, comment, check run or installation id: a positive int, not a bool
    Login      a user or bot: GitHub's rules (letters, digits, single inner hyphens, at most 39;
               an Enterprise Managed User's `_shortcode`; an App's `[bot]`)
    RepoName   `owner/name`: an owner by the login rules, a name of letters, digits, `.`, `_`, `-`
    BranchRef  a branch name git accepts as a ref (``git check-ref-format``'s rules), as fetched
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field, StrictInt, StrictStr

SHA = re.compile(r"[0-9a-f]{40}")
_LOGIN = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}(?:_[A-Za-z0-9]{1,20})?"
LOGIN = re.compile(_LOGIN + r"(?:\[bot\])?")
REPO = re.compile(_LOGIN + r"/(?!\.\.?$)[A-Za-z0-9._-]{1,100}")
# git check-ref-format: no control characters, space, ~ ^ : ? * [ \ or DEL; no `..`, `@{`, `//`;
# no component starting with `.` or ending with `.lock`; not ending with `/` or `.`.
_REF_BAD = re.compile(r"[\x00-\x20~^:?*\[\\\x7f]|\.\.|@\{|//|(^|/)\.|\.lock(/|$)|[/.]$|^/|^-")


def _matching(pattern: re.Pattern[str], what: str) -> AfterValidator:
    def check(value: str) -> str:
        if pattern.fullmatch(value) is None:
            raise ValueError(f"not {what}")
        return value

    return AfterValidator(check)


def _branch(value: str) -> str:
    if not value or len(value) > 255 or value == "@" or _REF_BAD.search(value):
        raise ValueError("not a branch name git accepts")
    return value


# Python's re, not pydantic's pattern (Rust's regex has no look-ahead); ``strict``: no coercion.
Sha = Annotated[StrictStr, _matching(SHA, "a commit SHA (40 lowercase hex digits)")]
Number = Annotated[StrictInt, Field(gt=0, lt=2**63)]
Login = Annotated[StrictStr, _matching(LOGIN, "a GitHub login")]
RepoName = Annotated[StrictStr, _matching(REPO, "a repository's owner/name")]
BranchRef = Annotated[StrictStr, AfterValidator(_branch)]


def is_sha(value: str) -> bool:
    return SHA.fullmatch(value) is not None


def is_branch(value: str) -> bool:
    try:
        _branch(value)
    except ValueError:
        return False
    return True

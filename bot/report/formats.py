"""The formats of values gradgate reads from outside itself (pure).

A value read from an artifact (a workflow's uploaded results) or a payload reaches a report, a
status, the hidden stamp, a check run's name or an API URL. Escaping keeps it from being read as
markdown, but not from lying: a "SHA" of `✅ gradgate passed` is escaped and still shown. So each
is checked by its format first (issue 17): commit SHAs as 40 lowercase hex digits, gradgate's
config hash as 12, numbers as positive ints, logins and repository names by GitHub's rules.
A value that does not fit is refused (ValueError naming the field), never passed on.
"""

from __future__ import annotations

import re

SHA = r"[0-9a-f]{40}"
CONFIG_HASH = r"[0-9a-f]{12}"  # bot.config.model.config_hash: sha256, its first 12 hex digits
# A check's name, as it becomes a check run's and a status's (`gradgate/<name>`): lowercase words
# joined by hyphens. A name this version does not know may come from a plan of another version.
CHECK_NAME = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
# GitHub's rules for a login: 1-39 alphanumerics or single hyphens, not at either end; an App's
# bot account adds "[bot]".
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"
LOGIN = _OWNER + r"(?:\[bot\])?"
# A repository: owner/name, the name 1-100 of letters, digits, `.`, `-`, `_` (not `.` or `..`).
REPO = _OWNER + r"/(?!\.\.?$)[A-Za-z0-9._-]{1,100}"

_SHA = re.compile(SHA)
_CONFIG_HASH = re.compile(CONFIG_HASH)
_LOGIN = re.compile(LOGIN)
_REPO = re.compile(REPO)


def _shown(value: object) -> str:
    """A refused value in a message: its repr, cut short (it may be anything, of any size)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _matching(pattern: re.Pattern[str], value: object, what: str, kind: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ValueError(f"`{what}` is not {kind}: {_shown(value)}")
    return value


def sha(value: object, what: str) -> str:
    return _matching(_SHA, value, what, "a commit SHA (40 lowercase hex digits)")


def config_hash(value: object, what: str) -> str:
    return _matching(_CONFIG_HASH, value, what, "a config hash (12 lowercase hex digits)")


def login(value: object, what: str) -> str:
    return _matching(_LOGIN, value, what, "a GitHub login")


def repo(value: object, what: str) -> str:
    return _matching(_REPO, value, what, "a repository (owner/name)")


def positive_int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"`{what}` is not a positive whole number: {_shown(value)}")
    return value

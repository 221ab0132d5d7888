"""gradgate's exceptions, all of them: one tree, at the bottom of the import graph.

It lives in ``gradgate.checks`` because checks never import ``gradgate.bot``, while the bot may
import anything here. Each door has one handler that turns any of these into an ``error``
verdict; the message is written for the user and says what to do.

GradgateError             anything gradgate raises on purpose
 ├─ ConfigError           .gradgate.yml is unreadable or invalid (names source, key path, line)
 ├─ GitError              a revision, a repository or a diff could not be read
 ├─ UsageError            the command line asked for something impossible
 ├─ GitHubError           the GitHub API refused or failed, after retries (``status`` if any)
 └─ CheckError            a check could not decide; becomes that check's ``error`` result
     ├─ SandboxError      user code in the child process failed (``kind`` says how)
     ├─ ModelError        the model factory ran but gave nothing a model check can use
     └─ UnreadableCheckpoint  a reference checkpoint could not be read (``reason`` says how)
"""

from __future__ import annotations


class GradgateError(Exception):
    """Base of every error gradgate raises deliberately."""


class ConfigError(GradgateError):
    def __init__(
        self,
        message: str,
        *,
        source: str,
        key_path: str | None = None,
        line: int | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.key_path = key_path
        self.line = line
        where = source if line is None else f"{source}:{line}"
        key = f" at `{key_path}`" if key_path else ""
        super().__init__(f"{where}: invalid config{key}: {message}")


class GitError(GradgateError):
    pass


class UsageError(GradgateError):
    pass


class GitHubError(GradgateError):
    """A GitHub API call failed for good (retries exhausted, refused, or not found)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class CheckError(GradgateError):
    """A check could not reach a decision. The message is shown to the user as is; ``revision``
    ("base" or "head") names the side it is about, where it is about one."""

    revision: str | None = None


class SandboxError(CheckError):
    """User code run in the sandbox failed.

    ``kind`` is one of the kinds listed in ``checks.sandbox.run``.
    """

    def __init__(self, message: str, *, kind: str, revision: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.revision = revision


class ModelError(CheckError):
    """The user's model factory or spec ran, but what it gave cannot be used (no inputs, a
    wrong return type, `device: cuda` without CUDA...). ``code`` names the problem."""

    def __init__(self, message: str, *, code: str, revision: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.revision = revision


class UnreadableCheckpoint(CheckError):
    """A checkpoint file could not be read; the checkpoint check turns it into a finding.

    ``reason`` is a short machine-readable word ("truncated", "header-json", ...); the message
    says what is wrong with the file and what to do.
    """

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

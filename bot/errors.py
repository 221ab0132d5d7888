"""gradgate's exceptions. Each door has one handler that turns any of them into an `error` verdict.

GradgateError            anything gradgate raises on purpose; the message is for the user
 ├─ ConfigError          .gradgate.yml is unreadable or invalid (names source, key path, line)
 ├─ GitError             a revision, a repository or a diff could not be read
 └─ UsageError           the command line asked for something impossible
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

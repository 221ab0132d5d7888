"""CODEOWNERS: who owns which paths, so `gradgate init` can name each zone's owners.

Pure. GitHub reads the first of `.github/CODEOWNERS`, `CODEOWNERS` and `docs/CODEOWNERS`; each
line is a gitignore-style pattern and its owners, and the last line that matches a path wins
(an entry with no owners leaves the path unowned). Patterns are matched with pathspec's
gitignore semantics, which CODEOWNERS follows except for `!` and `[ ]`, which GitHub does not
support and which are skipped here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from pathspec import GitIgnoreSpec

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


class Owners:
    def __init__(self, rules: list[tuple[GitIgnoreSpec, tuple[str, ...]]]) -> None:
        self._rules = rules

    @classmethod
    def read(cls, read: Callable[[str], bytes | None]) -> Owners:
        for location in LOCATIONS:
            if (raw := read(location)) is not None:
                return cls.parse(raw.decode("utf-8", "replace"))
        return cls([])

    @classmethod
    def parse(cls, text: str) -> Owners:
        rules = []
        for line in text.splitlines():
            line = line.split(" #", 1)[0].strip()
            if not line or line.startswith("#"):
                continue
            pattern, *owners = line.split()
            if pattern.startswith("!") or "[" in pattern:
                continue
            rules.append((GitIgnoreSpec.from_lines([pattern]), tuple(owners)))
        return cls(rules)

    def of(self, path: str) -> tuple[str, ...]:
        for spec, owners in reversed(self._rules):
            if spec.match_file(path):
                return owners
        return ()

    def common(self, paths: Iterable[str], *, limit: int = 3) -> tuple[str, ...]:
        """The owners of most of ``paths``, most frequent first."""
        counts = Counter(owner for path in paths for owner in self.of(path))
        return tuple(owner for owner, _ in counts.most_common(limit))

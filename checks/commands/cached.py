"""A command's run at one revision, read from and written to the gate's result cache.

The key is conservative: a script may read any file, so it holds the revision's whole tree
(git's tree id, not only the files a run imported), the command as run (its argv, overrides,
environment, preparation and limit), the check's settings, the sandbox mode, the device, the
interpreter, its torch version and gradgate's version. Only a deterministic outcome of the code
is stored (the command ended, started or not); a run past its limit is not, and a sandbox error
never reaches here. The comparison of base with head is made afresh every time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gradgate.checks.cache.results import CachedSide, ResultCache
from gradgate.checks.cache.version import own_version, torch_version
from gradgate.checks.commands.settings import CommandsSettings
from gradgate.checks.context import CheckContext

STORED = frozenset({"ok", "failed"})  # the child's statuses that are facts of the code


class CommandCache:
    """The gate's ``ResultCache`` as this check asks it; does nothing without one."""

    def __init__(
        self,
        cache: ResultCache | None,
        ctx: CheckContext,
        settings: CommandsSettings,
        *,
        program: str,
        device: str,
    ) -> None:
        torch = torch_version(ctx.python) if cache is not None else None
        # As the model checks: no cache with a --config folder git does not hold, nor with an
        # interpreter whose torch cannot be named.
        self._cache = None if ctx.config_dir is not None or torch is None else cache
        self._ctx, self._program = ctx, program
        self._trees: dict[str, str] = {}
        self._common = {
            "check": "commands", "program": program, "device": device,
            "settings": settings.model_dump(mode="json"), "sandbox": ctx.sandbox,
            "python": ctx.python, "torch": torch, "gradgate": own_version(),
        }  # fmt: skip
        self.hits = 0

    def _sha(self, revision: str) -> str:
        return self._ctx.base_sha if revision == "base" else self._ctx.head_sha

    def _material(self, revision: str, request: Mapping[str, Any]) -> dict[str, Any]:
        sha = self._sha(revision)
        if sha not in self._trees:
            self._trees[sha] = self._ctx.source.tree(sha)
        return {**self._common, "tree": self._trees[sha], "request": dict(request)}

    def lookup(self, revision: str, request: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The child's answer stored for ``request`` at ``revision``, recorded in the context's
        cached sides; None on a miss or without a cache."""
        if self._cache is None:
            return None
        hit = self._cache.lookup(revision, self._material(revision, request), _nothing)
        if hit is None or not isinstance(hit.value, Mapping):
            return None
        if hit.value.get("status") not in STORED:
            return None
        self.hits += 1
        self._ctx.cached.append(CachedSide(revision, hit.commit, self._program))
        return hit.value

    def save(self, revision: str, request: Mapping[str, Any], value: Mapping[str, Any]) -> None:
        if self._cache is None or value.get("status") not in STORED:
            return
        material = self._material(revision, request)
        self._cache.save(material, _nothing, [], dict(value), commit=self._sha(revision))


def _nothing(path: str) -> bytes | None:
    """No imported files to read: the tree's id already names every file's content."""
    return None

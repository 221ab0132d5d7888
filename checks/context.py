"""What a check is handed: the two revisions, the changes, its settings and the config blocks
it may read (``CheckContext``), and read access to the revisions (``RevisionSource``).

The context, not the protocol (``checks.base``), knows the config's shared blocks: the `model:`
block the model checks read and the `data:` block the data check reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gradgate.checks.base import CheckSettings
from gradgate.checks.cache.results import CachedSide
from gradgate.checks.data.spec import DataSpec
from gradgate.checks.diff import FileChange
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.sandbox.isolation import Isolation, SandboxMode

if TYPE_CHECKING:
    from gradgate.checks.model.session import ModelSessions


class RevisionSource(Protocol):
    """Read access to the two revisions; implemented by bot.git.repository over a local clone."""

    def read(self, revision: str, path: str) -> bytes | None:
        """The file's bytes at ``revision`` (a SHA), or None if it does not exist there."""
        ...

    def list_files(self, revision: str) -> tuple[str, ...]:
        """Every file path at ``revision`` that ``read`` returns bytes for."""
        ...

    def checkout(self, revision: str) -> AbstractContextManager[Path]:
        """A temporary directory holding the whole tree at ``revision``, removed on exit."""
        ...

    def tree(self, revision: str) -> str:
        """The id of the whole tree at ``revision`` (git's tree hash): the same exactly when
        every file's name, mode and content is (the `commands` check's cache key)."""
        ...


@dataclass(frozen=True, slots=True)
class CheckContext:
    base_sha: str  # the merge-base the diff was taken from
    head_sha: str
    changes: tuple[FileChange, ...]
    source: RevisionSource
    settings: CheckSettings
    # zone name -> the changed paths that fall in it, for zones that require this check
    zones: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # zone name -> its owners (the zone's `owners:`), for touched zones that name any
    zone_owners: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # check name -> the changed paths in the zones that require it, for every check a touched
    # zone names (e.g. dl-lint grades a pickled save higher where `checkpoint` is required)
    paths_requiring: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The interpreter that runs user code (the sandbox's ``python``); None: gradgate's own.
    python: str | None = None
    # The top-level `model:` block; a check reads its effective spec with
    # checks.model.settings.effective_model, which lets the check's own block override it.
    model: ModelSpec | None = None
    # The top-level `data:` block: where the `data` check finds the transform.
    data: DataSpec | None = None
    # The folder of a config given with --config: entrypoint paths may be relative to it.
    config_dir: Path | None = None
    # `sandbox:` in the config (or the door's default): "require" refuses to run user code
    # without bubblewrap.
    sandbox: SandboxMode = "auto"
    # run_user_code appends how each of this check's sandbox runs was isolated.
    isolations: list[Isolation] = field(default_factory=list)
    # The sides of this check served from the result cache (checks.cache), recorded by the
    # model session as ``isolations`` is; the pipeline puts them in the check's result.
    cached: list[CachedSide] = field(default_factory=list)
    # False: the PR's author is not trusted yet (App mode, no /ok-to-test). A check that sets
    # ``runs_without_user_code = True`` is still run then and must do only its static part;
    # ``run_user_code`` refuses to start the sandbox.
    user_code: bool = True
    # The gate's model children, one per revision, shared by the model checks (the pipeline
    # opens it); None: a check run on its own starts its own (checks.model.session).
    models: ModelSessions | None = None

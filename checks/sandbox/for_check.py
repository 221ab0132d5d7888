"""The one call a check makes to run user code: its context and settings -> the sandbox's options.

Model checks call :func:`run_user_code` rather than ``run_in_sandbox``, so that what the run
and the config say about the sandbox (the interpreter, the sandbox mode, limits, allowed
variables, network) reaches every check the same way, and so that how each run was isolated
is recorded on the context, for the report.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from gradgate.checks.base import UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import CheckError
from gradgate.checks.sandbox.run import DEFAULT_PROGRAM, SandboxLimits, run_in_sandbox


def run_user_code(
    ctx: CheckContext,
    settings: UserCodeSettings,
    *,
    target: str | None,
    root: Path,
    revision: str,
    program: str = DEFAULT_PROGRAM,
    kwargs: Mapping[str, Any] | None = None,
    timeout_s: float | None = None,
    device: str = "cpu",
    seed: int | None = 0,
    readable: Collection[Path] = (),
    stop: Callable[[], bool] | None = None,
    fds: Collection[int] = (),
) -> Any:
    """Run ``program`` on ``target`` in the tree ``root`` of ``revision`` ("base" or "head");
    ``timeout_s`` defaults to the check's whole ``timeout_s``. ``root`` may be a checkout:
    under bubblewrap the child gets a copy without its `.git`, at the same path. Files outside
    the tree that the program reads (a config's folder, weights handed from the base run) must
    be in ``readable``; it writes only to its own, capped /tmp, HOME and tree.

    ``stop`` and ``fds``: see ``run_in_sandbox``.

    Raises CheckError when the run may not execute PR code (``ctx.user_code`` is False)."""
    if not ctx.user_code:
        raise CheckError(
            f"refused to run the {revision} revision's code: the pull request's author is not "
            "trusted yet (a maintainer's /ok-to-test allows it)"
        )
    limits = SandboxLimits(
        timeout_s=settings.timeout_s if timeout_s is None else timeout_s,
        memory_mb=settings.memory_mb,
        disk_mb=settings.disk_mb,
    )
    return run_in_sandbox(
        target,
        root=root,
        kwargs=kwargs,
        program=program,
        limits=limits,
        revision=revision,
        env_allow=settings.env_allow,
        seed=seed,
        device=device,
        python=ctx.python,
        network=settings.network,
        sandbox=ctx.sandbox,
        on_isolation=ctx.isolations.append,
        readable=readable,
        stop=stop,
        fds=fds,
    )

"""Run a model check's child-side program on the model at one revision; problems become errors.

The entrypoint travels as the sandbox's target, resolved in the revision's tree, else next to a
config given with --config (whose folder also goes on the child's ``sys.path``, after the
revision's root; a folder that holds the source repository is replaced by copies of the
factory files, ``beside``). The program's ``kwargs`` carry the spec under ``model`` and the
check's own settings beside it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gradgate.checks.base import UserCodeSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import ModelError, SandboxError
from gradgate.checks.model.beside import config_folder
from gradgate.checks.model.crash import crash_text
from gradgate.checks.model.problems import describe
from gradgate.checks.model.spec import ModelSpec
from gradgate.checks.sandbox.for_check import run_user_code
from gradgate.checks.sandbox.outcome import parse_target, target_label


def entry_target(spec: ModelSpec, *, root: Path, config_dir: Path | None) -> str | None:
    """The sandbox target for ``spec``: None for a `build` spec; a file entrypoint that is not in
    the revision's tree but next to the config becomes that file's absolute path."""
    return resolve_entrypoint(spec.entrypoint, root=root, config_dir=config_dir)


def resolve_entrypoint(
    entrypoint: str | None, *, root: Path, config_dir: Path | None
) -> str | None:
    """``entrypoint`` as the sandbox target: in the revision's tree, else next to the config."""
    if entrypoint is None:
        return None
    parsed = parse_target(entrypoint)
    if parsed.path is None or config_dir is None or (root / parsed.path).is_file():
        return entrypoint
    beside_config = config_dir / parsed.path
    return f"{beside_config}:{parsed.attr}" if beside_config.is_file() else entrypoint


def run_model_program(
    ctx: CheckContext,
    settings: UserCodeSettings,
    *,
    spec: ModelSpec,
    root: Path,
    revision: str,
    program: str,
    kwargs: Mapping[str, Any] | None = None,
    device: str = "cpu",
    seed: int | None = 0,
    timeout_s: float | None = None,
    readable: Sequence[Path] = (),
) -> Any:
    """``program``'s JSON value; SandboxError for user code that failed, ModelError for a
    factory whose result cannot be used (the program returned ``{"problem": ...}``).

    ``readable``: files and folders outside ``root`` the program reads (the other revision's
    tree); the config's folder is readable always. Under bubblewrap the child sees nothing
    else, and writes only to its own, capped /tmp, HOME and tree.
    """
    return run_entry_program(
        ctx,
        settings,
        entrypoint=spec.entrypoint,
        key="model",
        request=spec.as_request(),
        root=root,
        revision=revision,
        program=program,
        kwargs=kwargs,
        device=device,
        seed=seed,
        timeout_s=timeout_s,
        readable=readable,
        describe_problem=lambda problem, where: describe(problem, where=where),
    )


def run_entry_program(
    ctx: CheckContext,
    settings: UserCodeSettings,
    *,
    entrypoint: str | None,
    key: str,
    request: Mapping[str, Any],
    root: Path,
    revision: str,
    program: str,
    describe_problem: Callable[[Mapping[str, Any], str], str],
    kwargs: Mapping[str, Any] | None = None,
    device: str = "cpu",
    seed: int | None = 0,
    timeout_s: float | None = None,
    readable: Sequence[Path] = (),
) -> Any:
    """What :func:`run_model_program` does, for any check whose user code is a factory named in
    a config block: ``request`` travels as ``kwargs[key]`` with the config's folder as its
    ``extra_path``; a returned ``{"problem": ...}`` becomes a ModelError worded by
    ``describe_problem(problem, where)``."""
    # Only the entrypoint's own files are shown when the config's folder holds the source
    # repository (an uncommitted config tried with --config: checks.model.beside).
    with config_folder(ctx.config_dir, entrypoint, root=root) as config_dir:
        target = resolve_entrypoint(entrypoint, root=root, config_dir=config_dir)
        extra_path = [] if config_dir is None else [str(config_dir)]
        payload = {**(kwargs or {}), key: {**request, "extra_path": extra_path}}
        try:
            value = run_user_code(
                ctx,
                settings,
                target=target,
                root=root,
                revision=revision,
                program=program,
                kwargs=payload,
                timeout_s=timeout_s,
                device=device,
                seed=seed,
                readable=[*readable, *(() if config_dir is None else (config_dir,))],
            )
        except SandboxError as exc:  # the user's code crashed: say so in lines a user reads
            python = ctx.python or sys.executable
            raise worded_crash(exc, root=root, python=python, config_dir=config_dir) from None
    return checked_value(value, target=target, revision=revision, describe_problem=describe_problem)


def worded_crash(
    exc: SandboxError, *, root: Path, python: str, config_dir: Path | None
) -> SandboxError:
    """``exc`` (user code that failed in the tree ``root``) in lines a user reads."""
    text = crash_text(str(exc), roots=(root, root.resolve()), python=python, config_dir=config_dir)
    return SandboxError(text, kind=exc.kind, revision=exc.revision)


def checked_value(
    value: Any,
    *,
    target: str | None,
    revision: str,
    describe_problem: Callable[[Mapping[str, Any], str], str] = (
        lambda problem, where: describe(problem, where=where)
    ),
) -> Any:
    """A program's ``value``; ModelError, worded by ``describe_problem``, when it is
    ``{"problem": ...}`` (a factory whose result cannot be used)."""
    if isinstance(value, dict) and isinstance(value.get("problem"), dict):
        problem = value["problem"]
        where = target_label(parse_target(target).text, revision)
        raise ModelError(
            describe_problem(problem, where), code=str(problem.get("code")), revision=revision
        )
    return value


def cuda_works(ctx: CheckContext, settings: UserCodeSettings, *, root: Path) -> bool:
    """Can torch under the check's interpreter use CUDA? False when it cannot even be asked."""
    try:
        value = run_user_code(
            ctx,
            settings,
            target=None,
            root=root,
            revision="base",
            program="model.child:cuda_available",
            timeout_s=min(settings.timeout_s, 120.0),
            device="cuda",
        )
    except SandboxError:
        return False  # no torch there: the real run says so, naming the revision
    return value is True

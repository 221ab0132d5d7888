"""The starter `.gradgate.yml` that `gradgate init` proposes: zones from what the repo's files say.

starter_config(paths, read)   the commented file, rendered from templates/starter.gradgate.yml.j2

``survey`` sorts the files (model, training and loss code, configs, docs and the code they
name), ``cover`` turns each set into a few patterns, ``codeowners`` names each zone's owners;
this module decides the zones, the checks each requires (those this version cannot run yet are
shown commented out) and the sentence that says why each zone was proposed. Code zones require
`api-contract` (a changed signature breaks callers; a loss call can be swapped) and, where the
repository has docs, `config-docs` (a code change can break a README the PR never touched),
and `dl-lint` (the mistakes every DL team makes once, on the lines a PR adds);
the model checks once there is a `model:` entry point (issue 19). Where the docs show
commands that run the repository's scripts, the docs zone requires `commands` too, and
``checks.commands.propose`` proposes the overrides that make each tiny, read from its script's
parser; the file says which commands it could not shrink (issue 40).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gradgate.bot.config.codeowners import Owners
from gradgate.bot.config.cover import cover, literal
from gradgate.bot.config.model import Config
from gradgate.bot.config.survey import Survey, survey
from gradgate.bot.templates import render_template
from gradgate.checks import REGISTRY
from gradgate.checks.base import CheckSettings
from gradgate.checks.commands.propose import Proposal, as_settings, propose
from gradgate.checks.commands.settings import CommandsSettings
from gradgate.checks.model.guess import Recipe

_LOOSE_YAML_LISTED = 10  # more loose YAML files than this: one glob per extension instead
_SHOWN_CHECK = "protected"  # the check whose settings the starter file shows
# Checks that run user code need their block (`model:` or `data:`) before they can run.
# The checks that build the model from `model:`, required together in the model zone.
MODEL_CHECKS = ("gradient", "checkpoint", "behaviour")
_NEEDS_BLOCK = {"gradient": "model", "checkpoint": "model", "behaviour": "model", "data": "data"}


@dataclass(frozen=True, slots=True)
class StarterZone:
    name: str
    why: str  # why it was proposed: "modules", "named", "training", "losses" or "config-docs"
    counts: tuple[int, ...]  # the numbers the template words `why` with
    paths: tuple[str, ...]  # quoted for YAML
    checks: tuple[str, ...]  # required as written
    waiting: tuple[tuple[str, str], ...]  # (check, why it is commented out)
    owners: tuple[str, ...]  # quoted for YAML; empty: a commented hint instead


def starter_config(
    paths: Sequence[str],
    read: Callable[[str], bytes | None] | None = None,
    *,
    entrypoint: str | None = None,
    factory_file: str | None = None,
    recipe: Recipe | None = None,
) -> str:
    """The commented `.gradgate.yml` that `gradgate init` writes for a repository whose tracked
    files are ``paths``, read with ``read`` (None: names only, no file is read).

    ``entrypoint``: a factory `init` wrote and built once; `model:` names it and the model
    checks are required. ``factory_file``: a factory template `init` wrote for the user to
    fill in, named in the commented `model:` example. ``recipe``: what the written factory
    builds, its variants and the feature flags left without one, said beside `model:`."""
    found = survey(paths, read or _unread)
    owners = Owners.read(read or _unread)
    proposals = propose(paths, read, CommandsSettings()) if read is not None else []
    return render_template(
        "starter.gradgate.yml.j2",
        zones=_zones(found, owners, has_model=entrypoint is not None, commands=bool(proposals)),
        overrides={_quoted(s): _quoted_list(a) for s, a in as_settings(proposals).items()},
        unshrunk=[_unshrunk(p) for p in proposals if p.why],
        factory=entrypoint or (f"{factory_file}:build" if factory_file else _factory_hint(found)),
        factory_ready=entrypoint is not None,
        recipe=recipe if entrypoint is not None else None,
        model_checks=MODEL_CHECKS,
        check=_SHOWN_CHECK,
        settings=_settings(_SHOWN_CHECK),
    )


def _unread(_: str) -> bytes | None:
    return None


def _factory_hint(found: Survey) -> str:
    """Where the `model:` example points: a module of the model code found, if any."""
    first = next(iter(found.model), None)
    if first is None:
        return "your_package.model:build_model"
    module = first.removeprefix("src/").removesuffix(".py").removesuffix("/__init__")
    return f"{module.replace('/', '.')}:build_model"


def _zones(
    found: Survey, owners: Owners, *, has_model: bool, commands: bool = False
) -> list[StarterZone]:
    zones = []
    model = list(found.model) or _model_by_name(found.python)
    docs = _doc_patterns(found.docs)
    # Code the docs may describe: a change there can break a README the PR never touched.
    code: tuple[str, ...] = (
        "protected",
        "api-contract",
        "dl-lint",
        *(("config-docs",) if docs else ()),
        *(("commands",) if commands else ()),
    )
    why: tuple[str | int, ...]
    if model:
        why = ("modules" if found.model else "named", len(model))
        patterns = cover(model, found.python, suffix=".py")
        wanted = (*code, *MODEL_CHECKS)
        zones.append(_zone("model-core", why, patterns, wanted, model, owners, has_model))
    training = (*found.training, *found.seeding)
    if training:
        why = ("training", len(found.training), len(found.seeding))
        patterns = cover(training, found.python, suffix=".py")
        zones.append(_zone("training", why, patterns, code, training, owners, has_model))
    if found.losses:
        why = ("losses", len(found.losses))
        patterns = cover(found.losses, found.python, suffix=".py")
        zones.append(_zone("losses", why, patterns, code, found.losses, owners, has_model))
    if found.data:
        why = ("data", len(found.data))
        patterns = cover(found.data, found.python, suffix=".py")
        zones.append(_zone("data-path", why, patterns, ("protected", "dl-lint", "data"),
                           found.data, owners, has_model))  # fmt: skip
    if docs:  # the docs are checked even without configs: their imports and commands
        why = ("config-docs", len(found.configs), len(found.docs), len(found.described))
        patterns = [*_config_patterns(found.configs), *docs]
        patterns += cover(found.described, found.python, suffix=".py") if found.described else []
        described = (*found.configs, *found.docs, *found.described)
        wanted = ("config-docs", "commands") if commands else ("config-docs",)
        zones.append(_zone("config-docs", why, patterns, wanted, described, owners,
                           has_model))  # fmt: skip
    return zones


def _zone(
    name: str,
    why: tuple[str | int, ...],
    patterns: list[str],
    wanted: tuple[str, ...],
    files: Sequence[str],
    owners: Owners,
    has_model: bool,
) -> StarterZone:
    checks, waiting = [], []
    for check in wanted:
        if not REGISTRY[check].available:
            waiting.append((check, "not yet available in this version of gradgate"))
        elif _NEEDS_BLOCK.get(check) == "model" and not has_model:
            waiting.append((check, "set `model:` above first"))
        elif _NEEDS_BLOCK.get(check) == "data":
            waiting.append((check, "set `data:` above first"))
        else:
            checks.append(check)
    return StarterZone(
        name=name,
        why=str(why[0]),
        counts=tuple(int(n) for n in why[1:]),
        paths=tuple(_quoted(p) for p in patterns),
        checks=tuple(checks),
        waiting=tuple(waiting),
        owners=tuple(_quoted(o) for o in owners.common(files)),
    )


def _model_by_name(python: Sequence[str]) -> list[str]:
    """Without file contents: files named like model code, or inside a `models/` folder."""
    return [
        p
        for p in python
        if {"model", "models"} & set(p.split("/")[:-1])
        or p.rsplit("/", 1)[-1].startswith(("model", "modeling"))
    ]


def _config_patterns(configs: Sequence[str]) -> list[str]:
    dirs = sorted({p.split("/")[0] for p in configs if "/" in p and p.split("/")[0] in
                   ("configs", "config", "conf")})  # fmt: skip
    loose = sorted(p for p in configs if p.split("/")[0] not in dirs)
    patterns = [f"/{literal(d)}/**" for d in dirs]
    if len(loose) > _LOOSE_YAML_LISTED:
        return [*patterns, *sorted({"*." + f.rsplit(".", 1)[1] for f in loose}), "!.*"]
    return patterns + [f"/{literal(p)}" for p in loose]


def _doc_patterns(docs: Sequence[str]) -> list[str]:
    folders = sorted({f"{p.split('/')[0]}/**" for p in docs if p.startswith(("docs/", "doc/"))})
    readmes = sorted({p.rsplit("/", 1)[-1] for p in docs if "/" not in p or not
                      p.startswith(("docs/", "doc/"))})  # fmt: skip
    return readmes + folders  # a README name unanchored on purpose: every README of that name


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _quoted_list(words: Sequence[str]) -> str:
    return json.dumps(list(words), ensure_ascii=False)  # a JSON list is a YAML flow sequence


def _unshrunk(proposal: Proposal) -> tuple[str, str, str]:
    """(the command, where it is documented, why it was not shrunk) for the template."""
    return proposal.command.text, proposal.command.place, proposal.why or ""


def _settings(check: str) -> list[tuple[str, str | None, str]]:
    """(name, description, default as YAML) of each setting of `check`, its own before shared."""
    settings = Config().settings_for(check)
    fields = type(settings).model_fields
    own_first = sorted(fields, key=lambda name: name in CheckSettings.model_fields)
    shown = []
    for name in own_first:
        value = getattr(settings, name)
        default = json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
        shown.append((name, fields[name].description, default))
    return shown

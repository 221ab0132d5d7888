"""What `gradgate init` proposes for the `commands` check: each documented command's overrides,
read from its script's own parser (pure; the source is parsed, never run).

The script's parser is read by config-docs' ``Scripts`` (argparse, click, typer, nanoGPT's
configurator, Hydra). Each setting named like a knob below gets its tiny value: the number of
steps or epochs 1, the device the CPU, no compile, no logging service, gloo for a torchrun
launch. A Hydra script's knobs are the leaf keys of the YAML files under its config folder
(`trainer.max_steps=1`). A command counts as shrunk when it has a knob for the length of the
run; the others are listed with why.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from gradgate.checks.commands.found import Command, commands_at, leading_env
from gradgate.checks.commands.settings import CommandsSettings
from gradgate.checks.config_docs.examples.options import Accepted, Scripts
from gradgate.checks.config_docs.snapshot import Reader, Snapshot
from gradgate.checks.config_docs.sources.yaml_facts import read_yaml
from pathspec import GitIgnoreSpec

# Knobs that make a run short (one is needed for a command to count as shrunk), then the rest.
LENGTH = {
    name: "1"
    for name in ("max_iters", "max_steps", "max_epochs", "epochs", "num_epochs", "n_epochs",
                 "iters", "num_iters", "max_iterations", "steps", "num_steps", "train_steps",
                 "total_steps", "max_train_steps", "num_train_epochs", "steps_per_epoch",
                 "limit_train_batches")
}  # fmt: skip
OTHERS = {
    "eval_iters": "1",
    "eval_steps": "1",
    "limit_val_batches": "1",
    "device": "cpu",
    "accelerator": "cpu",
    "compile": "False",
    "wandb_log": "False",
    "use_wandb": "False",
    "batch_size": "2",
    "n_layer": "1",
}
DISTRIBUTED = {"backend": "gloo", "dist_backend": "gloo", "ddp_backend": "gloo"}
_BOOLEAN_VALUES = frozenset({"False"})  # argparse, click, typer: a bool is a flag, not a value


@dataclass(frozen=True, slots=True)
class Proposal:
    command: Command
    parser: str | None  # "argparse", "configurator", "hydra"...; None: not read
    args: tuple[str, ...]
    why: str | None = None  # why it could not be shrunk; None: it was


class _Files:
    """``read`` as the RevisionSource config-docs' reader wants (one revision, "")."""

    def __init__(self, paths: Sequence[str], read: Callable[[str], bytes | None]) -> None:
        self._paths, self._read = tuple(paths), read

    def read(self, revision: str, path: str) -> bytes | None:
        return self._read(path)

    def list_files(self, revision: str) -> tuple[str, ...]:
        return self._paths

    def checkout(self, revision: str) -> AbstractContextManager[Path]:
        raise NotImplementedError("proposals read files; they never check a revision out")

    def tree(self, revision: str) -> str:
        raise NotImplementedError("proposals read files; they never run a command")


def propose(
    paths: Sequence[str], read: Callable[[str], bytes | None], settings: CommandsSettings
) -> list[Proposal]:
    """A proposal per documented command of the repository whose files are ``paths``."""
    files = frozenset(paths)
    spec = GitIgnoreSpec.from_lines(settings.docs)
    docs = {
        p: (read(p) or b"").decode("utf-8", "replace")
        for p in paths
        if p.endswith(".md") and spec.match_file(p)
    }
    reader = Reader(_Files(paths, read), frozenset())
    scripts = Scripts(reader, Snapshot("", files, frozenset(), (), (), ()))
    proposals = []
    for command in commands_at(docs, files, settings):
        accepted = scripts.accepted(command.path)
        torchrun = "torchrun" in leading_env(command.words)[1][:1]
        if accepted is None:
            unread = "no parser gradgate reads (argparse, click, typer, Hydra, a configurator)"
            proposals.append(Proposal(command, None, (), unread))
            continue
        args = _args(accepted, _knobs(accepted, paths, read), torchrun=torchrun)
        short = any(_name(k) in LENGTH for k, _ in args)
        why = None if short else f"its {accepted.parser} options name no number of steps or epochs"
        proposals.append(Proposal(command, accepted.parser, tuple(a for _, a in args), why))
    return proposals


def as_settings(proposals: Sequence[Proposal]) -> Mapping[str, tuple[str, ...]]:
    """The overrides to write, by script: the first command of a script speaks for it."""
    found: dict[str, tuple[str, ...]] = {}
    for proposal in proposals:
        if proposal.args and proposal.command.path not in found:
            found[proposal.command.path] = proposal.args
    return found


def _name(knob: str) -> str:
    return knob.lstrip("-").replace("-", "_").rsplit(".", 1)[-1]


def _knobs(
    accepted: Accepted, paths: Sequence[str], read: Callable[[str], bytes | None]
) -> list[str]:
    if accepted.parser != "hydra":
        return sorted(accepted.flags)
    keys: list[str] = []
    root = _hydra_root(accepted.path, read)
    if root is None:
        return keys
    for path in sorted(paths):
        if not path.startswith(root) or not path.endswith((".yaml", ".yml")):
            continue
        group = posixpath.dirname(path[len(root) :]).split("/") if "/" in path[len(root) :] else []
        facts, _ = read_yaml(path, (read(path) or b"").decode("utf-8", "replace"))
        keys += [".".join([*group, *fact.key]) for fact in facts]
    return keys


def _hydra_root(script: str, read: Callable[[str], bytes | None]) -> str | None:
    """The config folder `@hydra.main(config_path=...)` names, with a trailing slash."""
    try:
        tree = ast.parse(read(script) or b"")
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.keyword) and node.arg == "config_path"):
            continue
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            folder = posixpath.normpath(posixpath.join(posixpath.dirname(script), node.value.value))
            return "" if folder == "." else folder + "/"
    return None


def _args(accepted: Accepted, knobs: list[str], *, torchrun: bool) -> list[tuple[str, str]]:
    wanted = {**LENGTH, **OTHERS, **(DISTRIBUTED if torchrun else {})}
    found: dict[str, tuple[str, str]] = {}
    for knob in knobs:
        name = _name(knob)
        value = wanted.get(name)
        if value is None or name in found:
            continue
        if value in _BOOLEAN_VALUES and accepted.parser not in ("configurator", "hydra"):
            continue
        found[name] = (knob, f"{knob}={value}")  # `--max_iters=1`, `trainer.max_steps=1`
    order = list(wanted)
    return sorted(found.values(), key=lambda pair: order.index(_name(pair[0])))

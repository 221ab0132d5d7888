"""Which commands run: the documented ones and the config's, less the excluded (pure).

A doc's shell blocks and inline code spans are read with config-docs' reading of commands
(``config_docs.examples.commands.script_runs``), so both checks agree on what a command is.
A command counts when it runs a script or `python -m` module the revision has, with `python`
(any version), `torchrun` (or `python -m torch.distributed.run`), `accelerate` or `deepspeed`
(which ``launch`` reports as not run), or as `./script.py`.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from gradgate.checks.commands.settings import CommandsSettings, Shrink
from gradgate.checks.config_docs.claims.blocks import SHELL
from gradgate.checks.config_docs.claims.markdown import parser
from gradgate.checks.config_docs.examples.commands import ScriptRun, script_runs

_LAUNCHERS = re.compile(r"^(?:python[\d.]*|torchrun|accelerate|deepspeed)$")
# `python -m torch.distributed.run train.py` is torchrun by its module name.
TORCHRUN_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch"})
_ENV_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
# What a reader types before the launcher that changes nothing for a one-step run.
_PREFIXES = frozenset({"sudo", "nohup", "time", "exec", "env"})


@dataclass(frozen=True, slots=True)
class Command:
    text: str  # the command as the shell would run it, words re-joined: its identity
    words: tuple[str, ...]
    script: str  # the path (or `python -m` module) of the script it runs
    path: str  # the script's file in the revision
    doc: str | None  # where it is documented; None: the config's `run:`
    line: int | None

    @property
    def place(self) -> str:
        return "the config's `run:`" if self.doc is None else f"`{self.doc}:{self.line}`"


def in_doc(doc: str, text: str) -> list[ScriptRun]:
    """The script runs of one Markdown document: its shell blocks and inline code spans."""
    lines = text.splitlines()
    found: list[ScriptRun] = []
    for token in parser().parse(text):
        if token.map is None:
            continue
        if token.type == "fence":
            info = token.info.strip()
            lang = info.split(maxsplit=1)[0].strip("{}.").lower() if info else ""
            if lang in SHELL:
                found += script_runs(token.content, token.map[0] + 1, lines)
        elif token.type == "inline":
            for child in token.children or ():
                if child.type == "code_inline" and "\n" not in child.content:
                    at = token.content.find(child.content)
                    number = token.map[0] + token.content.count("\n", 0, max(at, 0))
                    found += script_runs(child.content, number, lines)
    return found


def commands_at(
    docs: Mapping[str, str], files: frozenset[str], settings: CommandsSettings
) -> tuple[Command, ...]:
    """The commands of one revision: ``docs`` (path -> text, the docs the settings name) in
    path order, then the config's `run:`; each once, where it is first written."""
    found: dict[str, Command] = {}
    runs = [(doc, run) for doc in sorted(docs) for run in in_doc(doc, docs[doc])]
    configured = [(None, _config_run(text)) for text in settings.run]
    for doc, run in [*runs, *configured]:
        if run is None:
            continue
        command = _command(doc, run, files)
        if command is not None and command.text not in found and not excluded(command, settings):
            found[command.text] = command
    return tuple(found.values())


def _config_run(text: str) -> ScriptRun | None:
    runs = script_runs(text, 0, [text])
    return runs[0] if runs else None


def _command(doc: str | None, run: ScriptRun, files: frozenset[str]) -> Command | None:
    _, words = leading_env(run.words)
    launcher = words[0] if words else ""
    if not (_LAUNCHERS.match(posixpath.basename(launcher)) or launcher.startswith("./")):
        return None
    if run.module and run.script in TORCHRUN_MODULES:
        script = next((w for w in run.rest if w.endswith(".py") and not w.startswith("-")), "")
        run = replace(run, script=script, module=False)
    path = script_path(run.script, module=run.module, files=files)
    if path is None:
        return None
    line = None if doc is None else run.line
    return Command(shlex.join(run.words), run.words, run.script, path, doc, line)


def leading_env(words: tuple[str, ...]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The variables a command line sets before its launcher (`WANDB_MODE=offline python ...`),
    and the words from the launcher on (`sudo`, `time`, `nohup`, `env` dropped)."""
    env: dict[str, str] = {}
    rest = list(words)
    while rest and (rest[0] in _PREFIXES or _ENV_WORD.match(rest[0])):
        match = _ENV_WORD.match(rest.pop(0))
        if match:
            env[match.group(1)] = match.group(2)
    return env, tuple(rest)


def script_path(script: str, *, module: bool, files: Iterable[str]) -> str | None:
    """The file of a script or `python -m` module in the revision, or None: not the project's."""
    names = frozenset(files)
    if not module:
        path = posixpath.normpath(script.removeprefix("./"))
        return path if path in names else None
    base = script.replace(".", "/")
    for candidate in (f"{base}.py", f"src/{base}.py", f"{base}/__main__.py"):
        if candidate in names:
            return candidate
    return None


def _same(entry: str, command: Command) -> bool:
    try:
        words = tuple(shlex.split(entry))
    except ValueError:
        return False
    return words == command.words or entry in (command.script, command.path)


def excluded(command: Command, settings: CommandsSettings) -> bool:
    return any(_same(entry, command) for entry in settings.exclude)


def shrink_for(command: Command, settings: CommandsSettings) -> Shrink:
    """The command's own overrides, else its script's, else none."""
    for entry, shrink in settings.overrides.items():
        if _same(entry, command) and " " in entry.strip():
            return shrink
    for entry, shrink in settings.overrides.items():
        if _same(entry, command):
            return shrink
    return Shrink()

"""A doc's shell blocks -> the runs of the project's scripts, and the options each passes (pure).

`python train.py --batch_size 32`, `torchrun --nproc_per_node=8 train.py --lr=3e-4`,
`python -m pkg.train model.lr=1e-3`: the words after the script are its own (what comes before
belongs to the launcher). Each `--flag` (its `=value` cut off) and each Hydra-style `key=value`
becomes an ``OptionClaim``; values are never claims. A console session keeps its `$` lines.
``script_runs`` is the one reading of which scripts a block runs: the `commands` check runs them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gradgate.checks.config_docs.claims.blocks import (  # one reading of commands for both
    _ENV_ASSIGNMENT,
    _PROMPT,
    _RUNNERS,
    _SKIPPED_WORDS,
    _commands,
    _split,
)
from gradgate.checks.config_docs.examples.model import OptionClaim

_FLAG = re.compile(r"^--?[A-Za-z][\w\-.]*$")
_OVERRIDE = re.compile(r"^([A-Za-z_][\w.\-/@]*)=")


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """One simple command of a shell block that runs a script of the project."""

    line: int  # 1-based doc line
    command: str  # the whole logical line, prompt cut off
    line_text: str
    words: tuple[str, ...]  # the simple command's words, as the shell splits them
    script: str  # a path, or a dotted module run with `python -m`
    module: bool
    rest: tuple[str, ...]  # the words passed to the script


def script_runs(content: str, first: int, lines: Sequence[str]) -> list[ScriptRun]:
    """The script runs of one shell block; ``first``: 0-based doc line of its first line. The
    `commands` check runs these; ``read_options`` reads their options."""
    commands = _commands(content)
    prompted = any(_PROMPT.match(text) for _, text in commands)
    found: list[ScriptRun] = []
    for offset, text in commands:
        if prompted and not _PROMPT.match(text):
            continue  # output of a console session
        command = _PROMPT.sub("", text, count=1).strip()
        number = first + offset
        line_text = lines[number] if number < len(lines) else command
        for words in _split(command):
            script = script_of(words)
            if script is not None:
                target, module, rest = script
                found.append(
                    ScriptRun(number + 1, command, line_text, tuple(words), target, module,
                              tuple(rest))
                )  # fmt: skip
    return found


def read_options(doc: str, content: str, first: int, lines: Sequence[str]) -> list[OptionClaim]:
    """The options passed in one shell block; ``first``: 0-based doc line of its first line."""
    found: list[OptionClaim] = []
    for run in script_runs(content, first, lines):
        for word in run.rest:
            name = word.split("=", 1)[0]
            if _FLAG.match(name) and not name[1:].replace(".", "").isdigit():
                found.append(
                    OptionClaim(doc, run.line, run.script, run.module, name, False, run.command,
                                run.line_text)
                )  # fmt: skip
            elif (override := _OVERRIDE.match(word)) and not word.startswith("-"):
                found.append(
                    OptionClaim(doc, run.line, run.script, run.module, override.group(1), True,
                                run.command, run.line_text)
                )  # fmt: skip
    return found


def script_of(words: Sequence[str]) -> tuple[str, bool, list[str]] | None:
    """(script path or module, is a module, the words passed to it) of a runner command."""
    words = list(words)
    while words and (words[0] in _SKIPPED_WORDS or _ENV_ASSIGNMENT.match(words[0])):
        words = words[1:]
    if not words:
        return None
    program = words[0]
    if program.startswith("./") and program.endswith(".py"):
        return posixpath.normpath(program), False, words[1:]
    if not _RUNNERS.match(posixpath.basename(program)):
        return None
    for index, word in enumerate(words[1:], start=1):
        if word == "-m" and index + 1 < len(words):
            return words[index + 1], True, words[index + 2 :]
        if word.endswith(".py") and not word.startswith("-") and "=" not in word:
            return posixpath.normpath(word), False, words[index + 1 :]
    return None

"""A doc's shell blocks -> the options each command passes to a script of the project (pure).

`python train.py --batch_size 32`, `torchrun --nproc_per_node=8 train.py --lr=3e-4`,
`python -m pkg.train model.lr=1e-3`: the words after the script are its own (what comes before
belongs to the launcher). Each `--flag` (its `=value` cut off) and each Hydra-style `key=value`
becomes an ``OptionClaim``; values are never claims. A console session keeps its `$` lines.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

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


def read_options(doc: str, content: str, first: int, lines: Sequence[str]) -> list[OptionClaim]:
    """The options passed in one shell block; ``first``: 0-based doc line of its first line."""
    commands = _commands(content)
    prompted = any(_PROMPT.match(text) for _, text in commands)
    found: list[OptionClaim] = []
    for offset, text in commands:
        if prompted and not _PROMPT.match(text):
            continue  # output of a console session
        command = _PROMPT.sub("", text, count=1).strip()
        number = first + offset
        line_text = lines[number] if number < len(lines) else command
        for words in _split(command):
            script = _script(words)
            if script is None:
                continue
            target, module, rest = script
            for word in rest:
                name = word.split("=", 1)[0]
                if _FLAG.match(name) and not name[1:].replace(".", "").isdigit():
                    found.append(
                        OptionClaim(doc, number + 1, target, module, name, False, command, line_text)
                    )
                elif (override := _OVERRIDE.match(word)) and not word.startswith("-"):
                    key = override.group(1)
                    found.append(
                        OptionClaim(doc, number + 1, target, module, key, True, command, line_text)
                    )
    return found


def _script(words: list[str]) -> tuple[str, bool, list[str]] | None:
    """(script path or module, is a module, the words passed to it) of a runner command."""
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

"""The example claims: a call in a Python block, an option passed to a script in a shell block."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class How(StrEnum):
    CALL = "call"  # `build(...)`, `pkg.build(...)`, `GPT(...)`, `GPT.from_pretrained(...)`
    INSTANCE = "instance"  # `model(x)` on an instance of ``target``
    METHOD = "method"  # `model.generate(...)`: ``member`` of an instance of ``target``


@dataclass(frozen=True, slots=True)
class Arg:
    text: str  # the argument as written
    line: int  # the doc line it starts on


@dataclass(frozen=True, slots=True)
class CallClaim:
    """A Python block calls the project's function or class ``target`` (a qualified name)."""

    doc: str
    line: int
    target: str
    how: How
    member: str  # METHOD: the method's name
    positional: tuple[Arg, ...]
    keywords: tuple[tuple[str, Arg], ...]
    star: bool  # `*args` in the call: positions cannot be counted
    starstar: bool  # `**kwargs` in the call: missing arguments cannot be told
    imported: bool  # called by the name an import bound: the import claim reports a removal
    text: str  # the call as written, on one line

    @property
    def callee(self) -> str:
        last = self.target.rsplit(".", 1)[-1]
        return {How.CALL: last, How.INSTANCE: f"{last}(...)", How.METHOD: f"{last}.{self.member}"}[
            self.how
        ]


@dataclass(frozen=True, slots=True)
class OptionClaim:
    """A shell block passes ``option`` (`--lr`, or a Hydra override's key `model.lr`) to a script
    of the project (a path, or a dotted module run with `python -m`)."""

    doc: str
    line: int
    script: str
    module: bool  # ``script`` is a dotted module
    option: str
    override: bool  # a Hydra-style `key=value` word, not a `--flag`
    command: str
    line_text: str

"""The values the config-docs check works with: facts (what configs and code say), claims (what
the docs say) and problems (files that could not be read), each with its file and line.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradgate.checks.config_docs.examples.model import CallClaim, OptionClaim
from gradgate.checks.config_docs.values import Value

Key = tuple[str, ...]  # a dotted key path, `-` read as `_`: ("optimizer", "lr")


def key_of(text: str) -> Key:
    """`optimizer.lr`, `--batch-size` or `batch_size` as a key path."""
    return tuple(part.replace("-", "_") for part in text.strip().lstrip("-").split(".") if part)


def dotted(key: Key) -> str:
    return ".".join(key)


@dataclass(frozen=True, slots=True)
class Fact:
    """A setting a source of truth defines: a config key, a dataclass field, an option default."""

    file: str
    line: int
    key: Key
    value: Value
    origin: str  # in words: "config", "dataclass `GPTConfig`", "argparse default"
    aliases: tuple[Key, ...] = ()  # other full paths it is known by (a Hydra config group)

    def matches(self, claimed: Key, *, rooted: bool) -> bool:
        """A claim names this fact by its whole path or, unless ``rooted`` (a key in a fenced
        yaml block, whose paths start at the top of a config), by a tail (`lr`: `optimizer.lr`).
        """
        n = len(claimed)
        if rooted:
            return any(path == claimed for path in (self.key, *self.aliases))
        return any(path[-n:] == claimed for path in (self.key, *self.aliases) if len(path) >= n)


@dataclass(frozen=True, slots=True)
class ValueClaim:
    """The docs say a setting has a value: a table row, `lr: 3e-4` in code, a fenced yaml block."""

    doc: str
    line: int
    key: Key
    value: Value
    form: str  # in words: "table", "inline code", "yaml block"
    line_text: str  # the whole doc line, for a suggestion
    value_at: int | None = None  # column of the value's text in line_text, if it is there
    rooted: bool = False  # a fenced block's key path, from the top of a config


@dataclass(frozen=True, slots=True)
class ImportClaim:
    """A Python code block imports `name` from `module` (name None: `import module`)."""

    doc: str
    line: int
    module: str
    name: str | None
    statement: str


@dataclass(frozen=True, slots=True)
class PathClaim:
    """A shell code block runs a script or names a config file that must exist."""

    doc: str
    line: int
    target: str  # a repository path, or a dotted module for `python -m`
    command: str  # the command line as written
    line_text: str
    # "script": the program run, must exist; "module": `python -m`; "file": an argument, which
    # counts only where it exists at base or head (it may be an output the command writes)
    kind: str = "script"


Claim = ValueClaim | ImportClaim | PathClaim | CallClaim | OptionClaim


@dataclass(frozen=True, slots=True)
class Problem:
    """A file that was not fully read; ``config`` True when it is a source of truth."""

    # "unreadable" (not UTF-8), "skipped" (too large, binary), "unparsed", "collision",
    # "unclosed-fence", "block-unparsed"
    kind: str
    file: str
    line: int | None
    why: str
    config: bool

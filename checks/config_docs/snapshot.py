"""Everything the docs claim and the configs and code define at one revision: a Snapshot.

Files are chosen by the settings' patterns from the revision's file list, read through the
RevisionSource with limits (size, binary, UTF-8) and parsed by role: docs (``claims``), configs
and code (``sources``). A file the PR did not change is read and parsed once for both revisions.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from gradgate.checks.config_docs.claims.markdown import read_doc
from gradgate.checks.config_docs.model import Claim, Fact, Problem
from gradgate.checks.config_docs.settings import ConfigDocsSettings
from gradgate.checks.config_docs.sources.data_facts import read_json, read_toml
from gradgate.checks.config_docs.sources.python_facts import read_code_defaults, read_config_module
from gradgate.checks.config_docs.sources.yaml_facts import read_yaml
from gradgate.checks.context import RevisionSource
from pathspec import GitIgnoreSpec

MAX_BYTES = 2 * 1024 * 1024
_SNIFF = 8192  # a NUL byte this early means binary, as git itself decides
_CONFIG_READERS: dict[str, Callable[[str, str], tuple[list[Fact], list[Problem]]]] = {
    ".yaml": read_yaml,
    ".yml": read_yaml,
    ".json": read_json,
    ".toml": read_toml,
    ".py": read_config_module,
}
# Code that holds none of these defines no default this check reads: it is not parsed.
_CODE_HINTS = (
    b"add_argument",
    b"set_defaults",
    b"dataclass",
    b"BaseModel",
    b"BaseSettings",
    b"NamedTuple",
    b"option(",
    b"attr",
    b"def ",  # parameter defaults (sources.parameter_facts)
)


@dataclass(frozen=True, slots=True)
class Parsed:
    facts: tuple[Fact, ...] = ()
    claims: tuple[Claim, ...] = ()
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True, slots=True)
class Snapshot:
    revision: str
    files: frozenset[str]
    dirs: frozenset[str]
    facts: tuple[Fact, ...]
    claims: tuple[Claim, ...]
    problems: tuple[Problem, ...]


class Reader:
    """Reads files at base or head; a path the PR did not change is read and parsed once."""

    def __init__(self, source: RevisionSource, changed: frozenset[str]) -> None:
        self.source = source
        self._changed = changed
        self._cache: dict[tuple[str, str, str], Parsed] = {}
        self._listed: dict[str, tuple[str, ...]] = {}

    def files(self, revision: str) -> tuple[str, ...]:
        if revision not in self._listed:
            self._listed[revision] = self.source.list_files(revision)
        return self._listed[revision]

    def text(self, revision: str, path: str) -> str | Problem | None:
        """The file as text, a Problem saying why it cannot be read as text, or None if absent."""
        data = self.source.read(revision, path)
        return None if data is None else decoded(path, data)

    def parsed(self, revision: str, path: str, role: str) -> Parsed:
        key = (revision if path in self._changed else "", path, role)
        if key not in self._cache:
            self._cache[key] = self._parse(revision, path, role)
        return self._cache[key]

    def _parse(self, revision: str, path: str, role: str) -> Parsed:
        data = self.source.read(revision, path)
        if data is None:
            return Parsed()
        if role == "code" and not any(hint in data for hint in _CODE_HINTS):
            return Parsed()
        text = decoded(path, data)
        if isinstance(text, Problem):
            # Code that cannot be read is other checks' business; a doc or config is this one's.
            return Parsed() if role == "code" else Parsed(problems=(_as_role(text, role),))
        if role == "doc":
            claims, problems = read_doc(path, text)
            return Parsed(claims=tuple(claims), problems=tuple(problems))
        reader = read_code_defaults if role == "code" else _CONFIG_READERS[_suffix(path)]
        facts, problems = reader(path, text)
        return Parsed(facts=tuple(_grouped(f) for f in facts), problems=tuple(problems))


def decoded(path: str, data: bytes) -> str | Problem:
    """``data`` as text, or a Problem saying why it is not text this check can read."""
    if len(data) > MAX_BYTES:
        why = f"it is {len(data) / 2**20:.1f} MB, over the {MAX_BYTES // 2**20} MB limit"
        return Problem("skipped", path, None, why, True)
    if b"\0" in data[:_SNIFF]:
        return Problem("skipped", path, None, "it is a binary file", True)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        why = f"it is not UTF-8 text (byte {error.start}, line {line})"
        return Problem("unreadable", path, line, why, True)


def _as_role(problem: Problem, role: str) -> Problem:
    return Problem(problem.kind, problem.file, problem.line, problem.why, role == "config")


def take(reader: Reader, revision: str, settings: ConfigDocsSettings) -> Snapshot:
    files = reader.files(revision)
    docs = GitIgnoreSpec.from_lines(settings.docs)
    configs = GitIgnoreSpec.from_lines(settings.configs)
    code = GitIgnoreSpec.from_lines(settings.code)
    facts: list[Fact] = []
    claims: list[Claim] = []
    problems: list[Problem] = []
    for path in files:
        if docs.match_file(path):
            role = "doc"
        elif _suffix(path) in _CONFIG_READERS and configs.match_file(path):
            role = "config"
        elif path.endswith(".py") and code.match_file(path):
            role = "code"
        else:
            continue
        parsed = reader.parsed(revision, path, role)
        facts += parsed.facts
        claims += parsed.claims
        problems += parsed.problems
    dirs = {posixpath.dirname(p) for p in files}
    for folder in list(dirs):
        while folder:
            folder = posixpath.dirname(folder)
            dirs.add(folder)
    return Snapshot(
        revision, frozenset(files), frozenset(dirs), tuple(facts), tuple(claims), tuple(problems)
    )


def _suffix(path: str) -> str:
    return posixpath.splitext(path)[1].lower()


def _grouped(fact: Fact) -> Fact:
    """A Hydra config group: `configs/optimizer/adam.yaml`'s `lr` is also `optimizer.lr`."""
    group = posixpath.basename(posixpath.dirname(fact.file))
    if not group or fact.origin != "config":
        return fact
    alias = (group, *fact.key)
    return Fact(fact.file, fact.line, fact.key, fact.value, fact.origin, (*fact.aliases, alias))

"""Claims in code blocks: fenced yaml/json/toml (each key a claim), Python (each import of the
project's own code must resolve) and shell (each script run and config file named must exist).

Values in a shell command (`--batch_size=12`) are overrides, never claims about a default.
"""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
from collections.abc import Sequence

from gradgate.checks.config_docs.claims.inline import locate
from gradgate.checks.config_docs.claims.words import is_setting_key, is_setting_value
from gradgate.checks.config_docs.model import Claim, ImportClaim, PathClaim, Problem, ValueClaim
from gradgate.checks.config_docs.sources.data_facts import read_json, read_toml
from gradgate.checks.config_docs.sources.yaml_facts import read_yaml

DATA = {"yaml": read_yaml, "yml": read_yaml, "json": read_json, "toml": read_toml}
PYTHON = frozenset({"python", "py", "python3", "pycon", "ipython", "ipython3"})
SHELL = frozenset({"bash", "sh", "shell", "console", "zsh", "shell-session", "terminal", ""})
_RUNNERS = re.compile(r"^(?:python[\d.]*|torchrun|accelerate|deepspeed|bash|sh|source|\.)$")
_SKIPPED_WORDS = frozenset(
    {"sudo", "nohup", "time", "exec", "env", "uv", "run", "poetry", "launch"}
)
_FILE_EXTENSIONS = (".py", ".sh", ".yaml", ".yml", ".json", ".toml", ".cfg", ".ini")
_NOT_A_PATH = re.compile(r"[*?\[\]{}$<>~`|;&]|://|^[-/]|^\.\.")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PROMPT = re.compile(r"^\s*(?:\$|>>>|\.\.\.|%)(?: |$)")


def block_claims(
    doc: str, lang: str, content: str, first: int, lines: Sequence[str]
) -> tuple[list[Claim], list[Problem]]:
    """``first``: the 0-based doc line of the block's first content line."""
    if lang in DATA:
        return _data_claims(doc, lang, content, first, lines)
    if lang in PYTHON:
        return list(_import_claims(doc, content, first)), []
    if lang in SHELL:
        return list(_path_claims(doc, content, first, lines)), []
    return [], []


def _data_claims(
    doc: str, lang: str, content: str, first: int, lines: Sequence[str]
) -> tuple[list[Claim], list[Problem]]:
    facts, problems = DATA[lang](doc, content)
    unparsed = [p for p in problems if p.kind == "unparsed"]
    if unparsed:
        at = None if unparsed[0].line is None else first + unparsed[0].line
        why = unparsed[0].why.replace("it is not", "the block is not")
        return [], [Problem("block-unparsed", doc, at, why, False)]
    claims: list[Claim] = []
    for fact in facts:
        if not is_setting_key(fact.key) or not is_setting_value(fact.value.text):
            continue
        number = first + fact.line - 1
        line_text = lines[number] if number < len(lines) else ""
        claims.append(
            ValueClaim(
                doc=doc,
                line=number + 1,
                key=fact.key,
                value=fact.value,
                form=f"{lang} block",
                line_text=line_text,
                value_at=locate(line_text, fact.key[-1], fact.value.text),
                rooted=True,
            )
        )
    return claims, []


def _import_claims(doc: str, content: str, first: int) -> list[ImportClaim]:
    source = content
    if any(line.startswith(">>> ") for line in content.splitlines()):  # a session: keep input
        source = "\n".join(
            line[4:] if line.startswith((">>> ", "... ")) else "" for line in content.splitlines()
        )
    nodes: list[tuple[int, ast.stmt]] = []
    try:
        tree = ast.parse(source)
        nodes = [(0, n) for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    except (SyntaxError, ValueError, RecursionError):  # an excerpt with `...` gaps: line by line
        for offset, line in enumerate(source.splitlines()):
            if line.lstrip().startswith(("import ", "from ")):
                try:
                    nodes += [(offset, n) for n in ast.parse(line.strip()).body]
                except (SyntaxError, ValueError):
                    continue
    claims = []
    for offset, node in nodes:
        number = first + offset + node.lineno
        statement = ast.unparse(node)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = None if alias.name == "*" else alias.name
                claims.append(ImportClaim(doc, number, node.module, name, statement))
        elif isinstance(node, ast.Import):
            claims += [ImportClaim(doc, number, a.name, None, statement) for a in node.names]
    return claims


def _path_claims(doc: str, content: str, first: int, lines: Sequence[str]) -> list[PathClaim]:
    commands = _commands(content)
    prompted = any(_PROMPT.match(text) for _, text in commands)
    claims: list[PathClaim] = []
    cwd = ""
    for offset, text in commands:
        if prompted and not _PROMPT.match(text):
            continue  # output of a console session
        command = _PROMPT.sub("", text, count=1).strip()
        number = first + offset
        line_text = lines[number] if number < len(lines) else command
        for words in _split(command):
            if words[:1] == ["cd"] and len(words) == 2 and not _NOT_A_PATH.search(words[1]):
                cwd = posixpath.normpath(posixpath.join(cwd, words[1])).lstrip("./")
                continue
            for target, kind in _targets(words):
                path = (
                    target if kind == "module" else posixpath.normpath(posixpath.join(cwd, target))
                )
                if not path.startswith(".."):
                    claims.append(PathClaim(doc, number + 1, path, command, line_text, kind))
    return claims


def _commands(content: str) -> list[tuple[int, str]]:
    """(0-based line, text) of each logical line, `\\` continuations joined, comments dropped."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for offset, line in enumerate(content.splitlines()):
        start, text = pending if pending else (offset, "")
        text += line.rstrip().removesuffix("\\") + " "
        pending = (start, text) if line.rstrip().endswith("\\") else None
        if pending is None and text.strip() and not text.lstrip().startswith("#"):
            out.append((start, text.strip()))
    if pending is not None:
        out.append((pending[0], pending[1].strip()))
    return out


def _split(command: str) -> list[list[str]]:
    """The simple commands of a line (split at `&&`, `;`, `|`), each as its words."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = list(lexer)
    except ValueError:  # an unclosed quote
        words = command.split()
    out: list[list[str]] = [[]]
    for word in words:
        if word and set(word) <= set("&;|()"):
            out.append([])
        else:
            out[-1].append(word)
    return [w for w in out if w]


def _targets(words: list[str]) -> list[tuple[str, str]]:
    """What a runner command names: (path or module, "script" | "module" | "file").

    The script it runs must exist; a file argument counts only where it exists at base or head,
    since an argument may name an output the command writes.
    """
    while words and (words[0] in _SKIPPED_WORDS or _ENV_ASSIGNMENT.match(words[0])):
        words = words[1:]
    if not words:
        return []
    program = words[0]
    if not (_RUNNERS.match(posixpath.basename(program)) or program.startswith("./")):
        return []
    found: list[tuple[str, str]] = []
    script = program.startswith("./")
    if script and _is_path(program[2:]):
        found.append((program[2:], "script"))
    for i, word in enumerate(words[1:], start=1):
        if word == "-c":
            break
        if word == "-m" and not script and i + 1 < len(words):
            if re.fullmatch(r"[A-Za-z_][\w.]*", words[i + 1]):
                found.append((words[i + 1], "module"))
            break
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if not _is_path(value) or not value.endswith(_FILE_EXTENSIONS):
            continue
        kind = "file" if script or not value.endswith((".py", ".sh")) else "script"
        script = script or kind == "script"
        found.append((value.removeprefix("./"), kind))
    return found


def _is_path(word: str) -> bool:
    return bool(word) and not _NOT_A_PATH.search(word) and not _ENV_ASSIGNMENT.match(word)

"""Python, read with ast and never imported: config modules, dataclass defaults, argparse defaults.

A config module (nanoGPT's `config/train_gpt2.py`) sets its keys as module-level assignments of
literals. In other code, the defaults that docs describe are dataclass (and pydantic, NamedTuple)
field defaults, `add_argument("--lr", default=3e-4)` (click's `option` too) and `set_defaults`.
A value that is not a literal (`default=os.cpu_count()`) is no fact: it cannot be compared.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradgate.checks.config_docs.model import Fact, Key, Problem, key_of
from gradgate.checks.config_docs.sources.parameter_facts import parameter_defaults
from gradgate.checks.config_docs.values import Value, from_python

_NOT_PYTHON = (SyntaxError, ValueError, RecursionError, MemoryError)
_FIELD_CALLS = frozenset({"field", "Field", "attrib", "attr.ib"})
_MODEL_BASES = frozenset({"BaseModel", "BaseSettings", "NamedTuple"})
_OPTION_CALLS = frozenset({"add_argument", "option"})


def read_config_module(path: str, text: str) -> tuple[list[Fact], list[Problem]]:
    """Module-level `name = literal` assignments; a module that does not parse is a problem."""
    tree, problem = _parse(path, text, config=True)
    if tree is None:
        return [], [problem] if problem else []
    facts: dict[Key, Fact] = {}
    for node in tree.body:
        for name, value in _assignments(node):
            if not name.startswith("_") and (found := _literal(value, text)) is not None:
                facts[(name,)] = Fact(path, node.lineno, (name,), found, "config module")
    return list(facts.values()), []


def read_code_defaults(path: str, text: str) -> tuple[list[Fact], list[Problem]]:
    """Dataclass-like field defaults, command-line option defaults and the parameter defaults
    of public functions (``parameter_facts``) in ordinary code."""
    tree, _ = _parse(path, text, config=False)
    if tree is None:
        return [], []  # not this check's business: other checks and CI see broken code
    facts: list[Fact] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _is_settings_class(node):
            facts += _fields(path, node, text)
        elif isinstance(node, ast.Call):
            facts += _options(path, node, text)
    return facts + parameter_defaults(path, tree, text, _literal), []


def _parse(path: str, text: str, *, config: bool) -> tuple[ast.Module | None, Problem | None]:
    try:
        return ast.parse(text, filename=path), None
    except _NOT_PYTHON as err:
        line = err.lineno if isinstance(err, SyntaxError) else None
        why = err.msg if isinstance(err, SyntaxError) else type(err).__name__
        return None, Problem("unparsed", path, line, f"it is not valid Python ({why})", config)


def _assignments(node: ast.stmt) -> Iterator[tuple[str, ast.expr]]:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                yield target.id, node.value
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        yield node.target.id, node.value


def _literal(node: ast.expr, text: str) -> Value | None:
    try:
        data = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    written = ast.get_source_segment(text, node)
    if written is not None and "\n" in written:
        written = None
    if written and written[0] in "\"'" and written[-1] == written[0]:
        written = written.strip("\"'")
    return from_python(data, written)


def _is_settings_class(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = _name(target)
        if name.endswith("dataclass") or name in ("attr.s", "attrs.define", "define", "frozen"):
            return True
    return any(_name(base).rsplit(".", 1)[-1] in _MODEL_BASES for base in node.bases)


def _fields(path: str, node: ast.ClassDef, text: str) -> list[Fact]:
    facts = []
    for item in node.body:
        if not isinstance(item, ast.AnnAssign | ast.Assign):
            continue
        for name, value in _assignments(item):
            if isinstance(value, ast.Call) and _name(value.func) in _FIELD_CALLS:
                value = _keyword(value, "default") or (value.args[0] if value.args else None)  # type: ignore[assignment]
                if value is None:
                    continue
            found = _literal(value, text)
            if found is not None and not name.startswith("_"):
                origin = f"dataclass `{node.name}`"
                fact = Fact(path, item.lineno, (node.name, name), found, origin, ((name,),))
                facts.append(fact)
    return facts


def _options(path: str, call: ast.Call, text: str) -> list[Fact]:
    method = _name(call.func).rsplit(".", 1)[-1]
    if method == "set_defaults":
        return [
            Fact(path, kw.lineno, (kw.arg,), found, "argparse default")
            for kw in call.keywords
            if kw.arg and (found := _literal(kw.value, text)) is not None
        ]
    if method not in _OPTION_CALLS:
        return []
    default = _keyword(call, "default")
    if default is None or (found := _literal(default, text)) is None:
        return []
    key = _dest(call)
    origin = "argparse default" if method == "add_argument" else "click default"
    return [] if key is None else [Fact(path, default.lineno, key, found, origin)]


def _dest(call: ast.Call) -> Key | None:
    """argparse's rule: `dest=`, else the first long option, else the first name."""
    dest = _keyword(call, "dest")
    if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
        return key_of(dest.value)
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    longs = [n for n in names if n.startswith("--")]
    chosen = longs[0] if longs else (names[0] if names else None)
    if chosen is None or "/" in chosen:
        return None
    return key_of(chosen.replace("-", "_").lstrip("_")) or None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return ""

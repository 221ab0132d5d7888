"""YAML (plain, Hydra and OmegaConf style) -> Facts with the line of every key.

The document is composed into nodes (libyaml's parser where PyYAML has it) and walked: nested
mappings give dotted keys (`optimizer.lr`), a list is one value, `<<` merges count, `${a.b}`
interpolations are resolved inside the file. Duplicate keys, which PyYAML silently resolves by
keeping the last, are problems, as is a dotted key that collides with a nested one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml
from gradgate.checks.bounded_yaml import bounded
from gradgate.checks.config_docs.model import Fact, Key, Problem, dotted
from gradgate.checks.config_docs.values import Value, from_python

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"
_MAX_VALUES = 50_000  # aliases expand as they are walked: stop a "billion laughs" document


@dataclass(slots=True)
class _Walk:
    path: str
    text: str
    problems: list[Problem]
    facts: dict[Key, Fact] = field(default_factory=dict)
    visited: int = 0


def read_yaml(path: str, text: str, *, origin: str = "config") -> tuple[list[Fact], list[Problem]]:
    """Facts of every leaf key, or a problem saying where and why the file does not parse."""
    walk = _Walk(path, text, [])
    loader = None
    try:
        loader = _Loader(text)
        while loader.check_node():
            node = loader.get_node()
            bounded(node)  # before the walk: a list of aliases is one leaf, built whole
            _mapping_or_leaf(walk, loader, node, ())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = None if mark is None else int(mark.line) + 1
        why = " ".join(part for part in (exc.context, exc.problem) if part) or "invalid YAML"
        return [], [Problem("unparsed", path, line, f"it is not valid YAML ({why})", True)]
    except (yaml.YAMLError, RecursionError, _TooBig) as exc:
        why = str(exc).splitlines()[0] if str(exc) else "it nests too deeply"
        return [], [Problem("unparsed", path, None, f"it is not valid YAML ({why})", True)]
    finally:
        if loader is not None:
            loader.dispose()
    facts = [_resolved(fact, walk.facts) for fact in walk.facts.values()]
    return [replace_origin(f, origin) for f in facts], walk.problems


class _TooBig(Exception):
    pass


def _mapping_or_leaf(walk: _Walk, loader: Any, node: yaml.Node, key: Key) -> None:
    walk.visited += 1
    if walk.visited > _MAX_VALUES or len(key) > 50:
        raise _TooBig("it expands to too many values through anchors and aliases")
    if not isinstance(node, yaml.MappingNode):
        if key:
            _add(walk, key, _leaf(walk, loader, node), int(node.start_mark.line) + 1)
        return
    own: dict[str, int] = {}
    merged: list[yaml.Node] = []
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE:
            merged.extend(
                value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            )
            continue
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        name = str(key_node.value)
        line = int(key_node.start_mark.line) + 1
        if name in own:  # PyYAML keeps the last: so do the facts, and the problem says so
            walk.problems.append(_collision(walk.path, (*key, name), own[name], line))
            walk.facts = {k: f for k, f in walk.facts.items() if k[: len(key) + 1] != (*key, name)}
        own[name] = line
        child = (*key, *[part for part in name.split(".") if part])
        _mapping_or_leaf(walk, loader, value_node, child)
    for other in merged:
        if isinstance(other, yaml.MappingNode):
            for key_node, value_node in other.value:
                name = str(getattr(key_node, "value", ""))
                if name and name not in own and key_node.tag != _MERGE:
                    own[name] = int(key_node.start_mark.line) + 1
                    _mapping_or_leaf(walk, loader, value_node, (*key, name))


def _leaf(walk: _Walk, loader: Any, node: yaml.Node) -> Value:
    data = loader.construct_object(node, deep=True)
    start, end = node.start_mark.index, node.end_mark.index
    text = walk.text[start:end] if 0 <= start < end <= len(walk.text) else None
    if isinstance(node, yaml.ScalarNode) and text is not None and node.style in ("'", '"'):
        text = text[1:-1]
    if text is not None and "\n" in text:
        text = None  # a block list or scalar: shown in flow style instead
    return from_python(data, text)


def _add(walk: _Walk, key: Key, value: Value, line: int) -> None:
    if key in walk.facts:  # the program reads the last one, as PyYAML does
        walk.problems.append(_collision(walk.path, key, walk.facts[key].line, line))
    walk.facts[key] = Fact(walk.path, line, key, value, "config")


def _collision(path: str, key: Key, first: int, again: int) -> Problem:
    why = (
        f"`{dotted(key)}` is set twice (line {first} and line {again}); "
        "YAML keeps only the last one without a word"
    )
    return Problem("collision", path, again, why, True)


def _resolved(fact: Fact, facts: dict[Key, Fact]) -> Fact:
    """`${model.dim}` takes the value it points to in the same file; other `${...}` is unknown."""
    if "${" not in fact.value.text:
        return fact
    current = fact.value
    for _ in range(20):  # a chain of references; a cycle ends as unknown
        target = _reference(current)
        if target is None:
            return Fact(
                fact.file,
                fact.line,
                fact.key,
                Value(fact.value.text, current.kind, current.data),
                fact.origin,
            )
        if target not in facts:
            break
        current = facts[target].value
    return Fact(
        fact.file, fact.line, fact.key, Value(fact.value.text, "unknown", None), fact.origin
    )


def _reference(value: Value) -> Key | None:
    """The key a whole-value `${a.b}` points to; None for a plain value. Raises nothing."""
    text = value.text.strip() if value.kind == "str" else ""
    if "${" not in text:
        return None
    if text.startswith("${") and text.endswith("}") and text.count("${") == 1:
        return tuple(text[2:-1].strip().split("."))
    return ("${",)  # an interpolation inside text, or a resolver (`${oc.env:X}`): unknown


def replace_origin(fact: Fact, origin: str) -> Fact:
    return (
        fact
        if fact.origin == origin
        else Fact(fact.file, fact.line, fact.key, fact.value, origin, fact.aliases)
    )

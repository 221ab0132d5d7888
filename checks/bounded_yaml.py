"""Every YAML document gradgate reads is composed here, with alias expansion bounded.

An alias is the same node again, so a 1 KB "billion laughs" — nine sequences of nine aliases
to the one below — is a small node graph that any walk, comparison or ``str()`` of the
constructed value expands to 9**9 items (issue 18: past 150 s and 1.2 GB in config-docs).
``bounded(node)`` counts the nodes the document expands to, each distinct node counted once
per path that reaches it (memoised, so counting costs one visit per distinct node), and raises
``TooManyNodes`` when aliases add more than ``MAX_EXPANSION`` nodes to what the text writes out,
or when an alias contains its own anchor. It is a ``yaml.YAMLError``, so every reader's
existing "not valid YAML" handling words it. ``compose`` and ``safe_load`` are the bounded
forms of PyYAML's own; the config loader (``bot.config.yaml_lines``) and config-docs' readers
call these rather than PyYAML's unbounded ones.
"""

from __future__ import annotations

from typing import Any

import yaml

# No real config or doc example comes near this many nodes added by aliases.
MAX_EXPANSION = 50_000
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class TooManyNodes(yaml.YAMLError):
    def __init__(self, message: str, *, cycle: bool = False) -> None:
        super().__init__(message)
        self.cycle = cycle  # an alias inside its own anchor, rather than too many nodes


def bounded(node: yaml.Node | None) -> yaml.Node | None:
    """``node`` itself, once it is known to expand to few enough nodes; else TooManyNodes."""
    if node is None:
        return None
    sizes: dict[int, int] = {}  # id(node) -> how many nodes it expands to
    open_: set[int] = set()  # nodes whose children are being counted: a cycle if met again
    distinct = 0
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, counted = stack.pop()
        key = id(current)
        children = _children(current)
        if counted:
            open_.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            # Against the distinct nodes found so far: a long document that writes its values
            # out is not a bomb.
            if sizes[key] > distinct + MAX_EXPANSION:
                raise TooManyNodes(_TOO_MANY)
            continue
        if key in sizes:
            continue
        if key in open_:
            raise TooManyNodes("an alias inside its own anchor expands without end", cycle=True)
        open_.add(key)
        distinct += 1
        stack.append((current, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return node


_TOO_MANY = (
    f"anchors and aliases expand it by more than {MAX_EXPANSION:,} nodes beyond what it writes "
    "out (a `billion laughs` document?)"
)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def compose(text: str, loader: Any = _Loader) -> yaml.Node | None:
    """PyYAML's ``compose`` (libyaml's where PyYAML has it), bounded."""
    return bounded(yaml.compose(text, Loader=loader))


def safe_load(text: str) -> Any:
    """PyYAML's ``safe_load``, bounded: composed and counted before anything is constructed."""
    loader = _Loader(text)
    try:
        node = bounded(loader.get_single_node())
        # An empty document is None, as PyYAML's own safe_load has it (found by
        # tests/checks/config_docs/test_doc_properties.py).
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()

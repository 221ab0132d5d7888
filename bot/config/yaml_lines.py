"""YAML text -> plain values plus the line of every key, refusing duplicate keys and alias bombs.

read_marked(text)   Marked: the constructed value, the line of each key path, the zone names seen,
                    and the problems that stopped it (then `value` is None)

Pure: a string in, a value out. It knows no models; its one piece of config knowledge is a zone's
`name` (`zones[i].name`), recorded so that key paths can say `zones[1] (name: encoder)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from gradgate.checks.bounded_yaml import MAX_EXPANSION, TooManyNodes, bounded

Path = tuple[str | int, ...]
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
# Aliases are allowed (sharing an owners list between zones is reasonable), but each alias is
# expanded when the document is walked, so a "billion laughs" document or a self-referencing
# anchor would grow without end. No real config comes near this many values.
_MAX_VALUES = MAX_EXPANSION
_MAX_DEPTH = 50  # a real config nests 5 deep; this also stops `&a [*a]` early


@dataclass(frozen=True, slots=True)
class Problem:
    path: Path | None  # None: not tied to a key (a YAML syntax error)
    line: int | None
    message: str
    # Where the problem sorts: its line, except a missing key, which sorts after its mapping's
    # other keys so that "unknown key `pathz`; did you mean `paths`?" comes first.
    rank: float | None = None


@dataclass(frozen=True, slots=True)
class Marked:
    value: Any  # None for an empty document, or when `problems` is not empty
    lines: dict[Path, int]  # key path -> 1-based line; () is the document itself
    zone_names: dict[int, str]  # index in `zones` -> its `name`, to name zones in key paths
    problems: list[Problem]


class _Invalid(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems)
        self.problems = problems


def read_marked(text: str) -> Marked:
    """Compose, walk (recording lines, refusing duplicates) and only then construct `text`."""
    try:
        loader = _loader(text)
    except _Invalid as invalid:
        return Marked(None, {}, {}, invalid.problems)
    try:
        value = _read_yaml(loader)
    except _Invalid as invalid:
        return Marked(None, loader.lines, loader.zone_names, invalid.problems)
    return Marked(value, loader.lines, loader.zone_names, [])


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


class _MarkedLoader(yaml.SafeLoader):
    """SafeLoader that records the line of every mapping key and list item by its key path.

    The node tree is composed first and walked (aliases expanded, up to _MAX_VALUES) to record
    lines, reject duplicate keys (PyYAML silently keeps the last) and keys that are not text;
    only then are the Python values constructed.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._text = text
        self.lines: dict[Path, int] = {}
        self.zone_names: dict[int, str] = {}
        self.problems: list[Problem] = []
        self._checked: set[int] = set()
        self._budget = _MAX_VALUES

    def load_marked(self) -> Any:
        root = _compose_in_c(self._text) or self.get_single_node()
        try:
            bounded(root)
        except TooManyNodes as exc:
            if not exc.cycle:
                raise
            # An anchor inside itself: the walk below says how (too deep, or merged into
            # itself), within its own budget.
        if root is None:
            return None
        self._walk(root)
        if self.problems:
            raise _Invalid(self.problems)
        return self.construct_document(root)

    def _walk(self, root: yaml.Node) -> None:
        self.lines[()] = _line(root)
        # Aliases and merge keys may add at most _MAX_VALUES values to what the text itself
        # holds: a long config is not a "billion laughs", and an expanding one stops early.
        self._budget = _distinct_nodes(root) + _MAX_VALUES
        stack: list[tuple[Path, yaml.Node]] = [((), root)]
        while stack:
            path, node = stack.pop()
            self._spend(1)
            if len(path) > _MAX_DEPTH:
                raise _Invalid([Problem(None, _line(node), _TOO_DEEP)])
            children: list[tuple[Path, yaml.Node, yaml.Node]]
            if isinstance(node, yaml.SequenceNode):
                children = [((*path, i), item, item) for i, item in enumerate(node.value)]
            elif isinstance(node, yaml.MappingNode):
                entries = self._entries(node, path)
                children = [((*path, k), key, value) for k, (key, value) in entries.items()]
                name = entries.get("name", (None, None))[1]
                in_zones = len(path) == 2 and path[0] == "zones" and isinstance(path[1], int)
                if in_zones and isinstance(name, yaml.ScalarNode) and name.tag == _STR_TAG:
                    self.zone_names[int(path[1])] = str(name.value)
            else:
                continue
            for child_path, marker, child in reversed(children):  # pop in document order,
                self.lines[child_path] = _line(marker)  # so an anchor is met before its aliases
                stack.append((child_path, child))

    def _spend(self, values: int) -> None:
        self._budget -= values
        if self._budget < 0:
            raise _Invalid([Problem(None, None, _TOO_MANY_VALUES)])

    def _entries(
        self, node: yaml.MappingNode, path: Path
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """The mapping's keys as constructed: its own, then `<<` merges for keys it lacks."""
        report = id(node) not in self._checked  # an aliased mapping is walked once per use
        self._checked.add(id(node))
        self._spend(len(node.value))  # `<<: [*x, *x, ...]` nests merges: each one counts
        own: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        merged: list[yaml.Node] = []
        for key, value in node.value:
            if key.tag == _MERGE_TAG:
                merged.extend(value.value if isinstance(value, yaml.SequenceNode) else [value])
            elif not (isinstance(key, yaml.ScalarNode) and key.tag == _STR_TAG):
                if report:
                    self.problems.append(Problem(path, _line(key), _non_text_key(key)))
            elif key.value in own:
                if report:
                    first = _line(own[key.value][0])
                    message = (
                        f"duplicate key `{key.value}` (first on line {first}, again on line "
                        f"{_line(key)}); YAML would silently keep only the last one"
                    )
                    self.problems.append(Problem((*path, key.value), _line(key), message))
            else:
                own[key.value] = (key, value)
        for other in merged:
            if isinstance(other, yaml.MappingNode):  # anything else: the constructor says so
                for key_text, entry in self._entries(other, path).items():
                    own.setdefault(key_text, entry)
        return own


_TOO_MANY_VALUES = (
    f"the YAML expands to more than {_MAX_VALUES:,} values through anchors, aliases and merge "
    "keys beyond what it writes out (a `billion laughs` document?)"
)


def _distinct_nodes(root: yaml.Node) -> int:
    """How many nodes the text itself holds: each anchored node once, however often aliased."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
    return len(seen)


_TOO_DEEP = f"the YAML nests more than {_MAX_DEPTH} levels deep (or an alias contains itself)"


def _non_text_key(key: yaml.Node) -> str:
    if not isinstance(key, yaml.ScalarNode):
        return "a key must be text, not a list or mapping"
    tag = key.tag.rsplit(":", 1)[-1]
    kind = {
        "bool": "boolean",
        "int": "number",
        "float": "number",
        "null": "null value",
        "timestamp": "date",
    }.get(tag, tag)
    return f'a key must be text, but YAML reads `{key.value}` as a {kind}; quote it ("{key.value}")'


# libyaml composes a 500-pattern config ~5x faster than PyYAML's Python composer (the plan's
# budget is ~0.3 s in all). It composes recursively in C, so text that could nest deeply in flow
# style (`[[[[...`) stays on the Python composer, whose RecursionError is caught; block nesting
# needs ever longer indentation, so the size cap bounds it to a depth C handles. Text with more
# brackets than that (10,000 zones of flow lists: 20 s in Python) is measured first with
# libyaml's parser, which keeps its own stack: shallow text is composed in C all the same.
_C_LOADER = getattr(yaml, "CSafeLoader", None)
_C_MAX_BRACKETS = 2_000
_C_MAX_DEPTH = 200


def _compose_in_c(text: str) -> yaml.Node | None:
    """The node tree composed by libyaml, or None: not available, the text nests too deep for it,
    or it is not valid YAML (then PyYAML's own composer runs, and its wording of the error is
    the one users see)."""
    if _C_LOADER is None:
        return None
    try:
        if text.count("[") + text.count("{") > _C_MAX_BRACKETS and _too_deep_for_c(text):
            return None
        node: yaml.Node | None = yaml.compose(text, Loader=_C_LOADER)
    except yaml.YAMLError:
        return None
    return node


def _too_deep_for_c(text: str) -> bool:
    """Does `text` nest collections deeper than libyaml's recursive composer is trusted with?"""
    assert _C_LOADER is not None
    depth = 0
    for event in yaml.parse(text, Loader=_C_LOADER):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > _C_MAX_DEPTH:
                return True
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return False


def _loader(text: str) -> _MarkedLoader:
    try:
        return _MarkedLoader(text)
    except yaml.reader.ReaderError as exc:  # a control character, e.g. a NUL byte
        line = text.count("\n", 0, exc.position) + 1
        message = f"the control character U+{exc.character:04X} is not allowed in YAML"
        raise _Invalid([Problem(None, line, message)]) from None


def _read_yaml(loader: _MarkedLoader) -> Any:
    try:
        return loader.load_marked()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = None if mark is None else int(mark.line) + 1
        column = "" if mark is None else f" (column {int(mark.column) + 1})"
        raise _Invalid([Problem(None, line, f"{_yaml_message(exc)}{column}")]) from None
    except TooManyNodes:  # checks.bounded_yaml, before the walk
        raise _Invalid([Problem(None, None, _TOO_MANY_VALUES)]) from None
    except RecursionError:  # PyYAML composes and merges recursively
        message = "the YAML nests too deeply (or an anchor is merged into itself)"
        raise _Invalid([Problem(None, None, message)]) from None
    finally:
        loader.dispose()


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's wording for common mistakes, said plainly; anything else as PyYAML says it."""
    problem, context = exc.problem or "", exc.context or ""
    opened = "" if exc.context_mark is None else f" on line {int(exc.context_mark.line) + 1}"
    if "'\\t'" in problem:
        return "a tab character: YAML indents with spaces only"
    if problem == "mapping values are not allowed here":
        return "unexpected `:`; check this line's indentation, or quote a value that contains `: `"
    if context.startswith("while parsing a flow sequence"):
        return f"the `[`{opened} is not closed by `]` (or an item lacks its `,`)"
    if context.startswith("while parsing a flow mapping"):
        return f"the `{{`{opened} is not closed by `}}` (or an entry lacks its `,`)"
    if context.startswith("while scanning a quoted scalar"):
        return f"the quoted text that starts{opened} is never closed"
    if context.startswith("while parsing a block"):
        return "this line's indentation does not match the lines above it"
    if context.startswith("expected a single document"):
        return "the file holds more than one YAML document (a second `---`); gradgate reads one"
    if problem.startswith("could not determine a constructor for the tag"):
        tag = problem.rsplit(" ", 1)[-1].strip("'").replace("tag:yaml.org,2002:", "!!")
        return f"the tag `{tag}` is not allowed; write plain YAML values"
    return f"cannot read the YAML: {problem or context}"

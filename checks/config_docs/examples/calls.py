"""A doc's Python blocks -> the calls they make, each named by what it calls (pure).

A README's blocks read as one session: `from pkg import VectorQuantize` in the first block binds
the name for the next. A call is named the way a reader would: through the imports
(`VectorQuantize(...)` is `pkg.VectorQuantize`, `m.build(...)` after `import pkg.model as m` is
`pkg.model.build`), and through the instances the session made (`vq = VectorQuantize(...)`, or
`GPT.from_pretrained(...)`, `.to(device)` and `.eval()` keep the instance): `vq(x)` calls its
`forward`, `vq.codebook(...)` its method. A `>>>` session keeps its input lines; a block that does
not parse as a whole (an excerpt with `...` gaps) is read line by line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from gradgate.checks.api_contract.names import bind_import, dotted
from gradgate.checks.config_docs.examples.model import Arg, CallClaim, How

_SHOWN = 100
_BODIES = ("body", "orelse", "finalbody", "handlers")
# Methods of `nn.Module` that return the module itself: `GPT(cfg).to(device)` is still a GPT.
_SELF_RETURNING = frozenset({"to", "cuda", "cpu", "eval", "train", "half", "float", "bfloat16"})


class Session:
    """The names one doc's blocks have bound so far, and the calls they made."""

    def __init__(self, doc: str) -> None:
        self.doc = doc
        self.names: dict[str, str] = {}  # local name -> qualified name, from imports
        self.instances: dict[str, str] = {}  # local name -> the qualified class it holds
        self.calls: list[CallClaim] = []

    def read(self, content: str, first: int) -> None:
        """One block; ``first``: the 0-based doc line of its first content line."""
        for offset, stmt in _statements(content):
            self._statement(stmt, first + offset)

    def _statement(self, stmt: ast.stmt, first: int) -> None:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            bind_import(stmt, "", self.names)
            return
        nested = [getattr(stmt, f, []) for f in _BODIES]
        if any(nested):  # `with torch.no_grad():`, `for batch in loader:`: header, then body
            for field, value in ast.iter_fields(stmt):
                if field not in _BODIES:
                    self._calls(value, first)
            for body in nested:
                for child in body:
                    inner = child.body if isinstance(child, ast.ExceptHandler) else [child]
                    for one in inner:
                        self._statement(one, first)
            return
        self._calls(stmt, first)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                made = self._made(stmt.value)
                if made is not None:
                    self.instances[target.id] = made
                else:
                    self.instances.pop(target.id, None)

    def _calls(self, tree: object, first: int) -> None:
        nodes = tree if isinstance(tree, list) else [tree]
        for top in nodes:
            if not isinstance(top, ast.AST):
                continue
            for node in ast.walk(top):
                if isinstance(node, ast.Call) and (call := self._call(node, first)) is not None:
                    self.calls.append(call)

    def _qualified(self, node: ast.expr) -> tuple[str, bool] | None:
        """What ``node`` names through the imports, and whether it is a name an import bound."""
        parts = dotted(node)
        if not parts or parts[0] not in self.names:
            return None
        return ".".join([self.names[parts[0]], *parts[1:]]), len(parts) == 1

    def _made(self, value: ast.expr) -> str | None:
        """The class whose instance ``value`` is, if it is made by a call the session can name."""
        while (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in _SELF_RETURNING
            and isinstance(value.func.value, ast.Call)
        ):
            value = value.func.value
        if not isinstance(value, ast.Call):
            return None
        named = self._qualified(value.func)
        if named is None:
            return None
        target = named[0]
        head, _, last = target.rpartition(".")
        return head if last.startswith("from_") else target

    def _call(self, node: ast.Call, first: int) -> CallClaim | None:
        func = node.func
        parts = dotted(func)
        if parts and parts[0] in self.instances and len(parts) <= 2:
            how, member = (How.INSTANCE, "") if len(parts) == 1 else (How.METHOD, parts[1])
            target, imported = self.instances[parts[0]], False
        else:
            named = self._qualified(func)
            if named is None:
                return None
            (target, imported), how, member = named, How.CALL, ""
        text = " ".join(ast.unparse(node).split())
        return CallClaim(
            doc=self.doc,
            line=first + node.lineno,
            target=target,
            how=how,
            member=member,
            positional=tuple(
                _arg(a, first) for a in node.args if not isinstance(a, ast.Starred)
            ),
            keywords=tuple((k.arg, _arg(k, first)) for k in node.keywords if k.arg is not None),
            star=any(isinstance(a, ast.Starred) for a in node.args),
            starstar=any(k.arg is None for k in node.keywords),
            imported=imported,
            text=text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "...",
        )


def read_calls(doc: str, blocks: Sequence[tuple[str, int]]) -> list[CallClaim]:
    """The calls of a doc's Python blocks: (content, 0-based doc line of its first line)."""
    session = Session(doc)
    for content, first in blocks:
        session.read(content, first)
    return session.calls


def _arg(node: ast.expr | ast.keyword, first: int) -> Arg:
    return Arg(ast.unparse(node), first + node.lineno)


def _statements(content: str) -> Iterator[tuple[int, ast.stmt]]:
    """(line offset, statement) of a block, `>>>` prompts removed; line by line if need be."""
    lines = content.splitlines()
    if any(line.startswith(">>> ") for line in lines):
        lines = [line[4:] if line.startswith((">>> ", "... ")) else "" for line in lines]
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        for offset, line in enumerate(lines):
            try:
                body = ast.parse(line.strip()).body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            yield from ((offset, stmt) for stmt in body)
        return
    yield from ((0, stmt) for stmt in tree.body)

"""What a qualified name in an example stands for at one revision, and its signature (static).

`pkg.VectorQuantize` is looked up as a reader would: the longest module prefix that is a file of
the repository (at its root or under `src/`), then the name among that module's definitions,
following `from .vq import VectorQuantize` re-exports. A class's call is its `__init__` (or a
plain `@dataclass`'s fields); an instance's call is its `forward` or `__call__`. Anything that
could change what a call accepts and cannot be read statically (an unknown decorator, a base
class that may define the method, a module `__getattr__`, `import *` from elsewhere, a name bound
by assignment) makes the answer unknown: no finding, rather than a guess.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gradgate.checks.api_contract.names import bind_import, is_package, module_name
from gradgate.checks.api_contract.signatures import Kind, Param, Signature, signatures
from gradgate.checks.config_docs.snapshot import Reader, Snapshot

_ROOTS = ("", "src/")
_DEPTH = 8  # re-exports followed before giving up
# Decorators that leave a function's parameters as written.
_PLAIN = frozenset(
    {"staticmethod", "classmethod", "no_grad", "inference_mode", "enable_grad", "beartype",
     "typechecked", "jaxtyped", "cache", "lru_cache", "abstractmethod", "override", "export",
     "ignore", "unused", "autocast", "wraps", "compile", "cached"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Defined:
    """A function or class found: the module file, and its qualified name inside the module."""

    path: str
    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(frozen=True, slots=True)
class Missing:
    why: str  # "`pkg/model.py` does not define `build`"


Found = Defined | Missing | None  # None: unknown


class Definitions:
    """Answers "what does this name stand for" at one revision, parsing each module once."""

    def __init__(self, reader: Reader, snapshot: Snapshot) -> None:
        self._reader = reader
        self._snap = snapshot
        self._trees: dict[str, ast.Module | None] = {}
        self._sigs: dict[str, dict[str, Signature]] = {}

    def find(self, qualified: str, depth: int = 0) -> Found:
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            path = self._module_file(".".join(parts[:cut]))
            if path is not None:
                return self._in_module(path, parts[cut:], depth)
        return None

    def signature(self, found: Defined, *, member: str = "") -> Signature | None:
        """The signature of the function, of a member of the class, or None when unknown."""
        sigs = self._signatures(found.path)
        if isinstance(found.node, ast.ClassDef):
            if not _plain(found.node) and not _is_dataclass(found.node):
                return None
            methods = {n.name: n for n in found.node.body if isinstance(n, ast.FunctionDef)}
            names: tuple[str, ...] = (member,) if member else ("__init__",)
            if member == "forward":
                names = ("forward", "__call__")
            for name in names:
                node = methods.get(name)
                if node is not None:
                    return sigs.get(f"{found.qualname}.{name}") if _plain(node) else None
            if not member and not found.node.bases and _is_dataclass(found.node):
                return _dataclass_init(found.node)
            return None  # inherited, or made by a metaclass: not readable here
        return sigs.get(found.qualname) if _plain(found.node) else None

    def _in_module(self, path: str, names: list[str], depth: int) -> Found:
        tree = self._tree(path)
        if tree is None:
            return None
        name, rest = names[0], names[1:]
        bound: dict[str, str] = {}
        star = False
        found: ast.stmt | None = None
        assigned = False
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if stmt.name == "__getattr__":
                    return None
                if stmt.name == name:
                    found = stmt
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                star = star or any(a.name == "*" for a in stmt.names)
                module = module_name(path.removeprefix("src/"))
                package = module if is_package(path) else module.rpartition(".")[0]
                bind_import(stmt, package, bound)
            elif _assigns(stmt, name):
                assigned = True
        if name in bound and depth < _DEPTH:
            return self.find(".".join([bound[name], *rest]), depth + 1)
        if isinstance(found, ast.ClassDef):
            return self._member(path, found, found.name, rest)
        if found is not None and not rest:
            return Defined(path, name, found)  # type: ignore[arg-type]
        if found is not None or assigned or star:
            return None
        return Missing(f"`{path}` does not define `{name}`")

    def _member(self, path: str, node: ast.ClassDef, qualname: str, rest: list[str]) -> Found:
        if not rest:
            return Defined(path, qualname, node)
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.ClassDef) and item.name == rest[0]:
                if isinstance(item, ast.ClassDef):
                    return self._member(path, item, f"{qualname}.{item.name}", rest[1:])
                return Defined(path, f"{qualname}.{item.name}", item) if len(rest) == 1 else None
        return None  # perhaps inherited

    def _module_file(self, module: str) -> str | None:
        base = module.replace(".", "/")
        for root in _ROOTS:
            for candidate in (f"{root}{base}.py", f"{root}{base}/__init__.py"):
                if candidate in self._snap.files:
                    return candidate
        return None

    def _tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            text = self._reader.text(self._snap.revision, path)
            try:
                self._trees[path] = ast.parse(text) if isinstance(text, str) else None
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._trees[path] = None
        return self._trees[path]

    def _signatures(self, path: str) -> dict[str, Signature]:
        if path not in self._sigs:
            tree = self._tree(path)
            self._sigs[path] = signatures(tree) if tree is not None else {}
        return self._sigs[path]


def _assigns(stmt: ast.stmt, name: str) -> bool:
    if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))
    if isinstance(stmt, ast.If | ast.Try | ast.With | ast.For | ast.While):
        return name in ast.dump(stmt)  # defined conditionally: leave it unknown
    return False


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    names = []
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute):
            names.append(target.attr)
        else:
            names.append(target.id if isinstance(target, ast.Name) else "")
    return names


def _plain(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    return all(name in _PLAIN for name in _decorators(node))


def _is_dataclass(node: ast.ClassDef) -> bool:
    names = _decorators(node)
    return bool(names) and all(name in ("dataclass", "define", "frozen") for name in names)


def _dataclass_init(node: ast.ClassDef) -> Signature | None:
    """A plain `@dataclass`'s constructor: its annotated fields, in order."""
    params: list[Param] = []
    for item in node.body:
        if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
            continue
        if "ClassVar" in ast.dump(item.annotation) or "KW_ONLY" in ast.dump(item.annotation):
            return None
        if item.value is not None and isinstance(item.value, ast.Call):
            return None  # `field(...)`: init=False, kw_only and friends are not read
        default = None if item.value is None else ast.unparse(item.value)
        params.append(Param(item.target.id, default, default))
    if any(isinstance(d, ast.Call) and d.keywords for d in node.decorator_list):
        return None  # `@dataclass(kw_only=True)` and friends
    return Signature(node.name, Kind.FUNCTION, node.lineno, tuple(params), 0, (), False, False)

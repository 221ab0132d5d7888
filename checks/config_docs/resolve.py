"""Whether a README's `from pkg.model import GPTConfig` resolves at a revision, statically.

Only the project's own modules are checked (a top-level package or module of the repository, at
its root or under `src/`): the module's file must exist and define the name (or the name must
be a submodule). A module with `from x import *` or a module `__getattr__` defines anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from gradgate.checks.config_docs.model import ImportClaim, PathClaim
from gradgate.checks.config_docs.snapshot import Reader, Snapshot

_ROOTS = ("", "src/")
_ANYTHING = "*"  # stands for "defines every name"


def owned_modules(files: Iterable[str]) -> frozenset[str]:
    """The top-level importable names this repository defines."""
    names = set()
    for path in files:
        parts = path.removeprefix("src/").split("/")
        if len(parts) == 1 and parts[0].endswith(".py"):
            names.add(parts[0][:-3])
        elif len(parts) == 2 and parts[1] == "__init__.py":
            names.add(parts[0])
    return frozenset(names)


class Modules:
    """Answers import questions at one revision, parsing each module file at most once."""

    def __init__(self, reader: Reader, snapshot: Snapshot, owned: frozenset[str]) -> None:
        self._reader = reader
        self._snap = snapshot
        self._owned = owned
        self._names: dict[str, frozenset[str]] = {}

    def unresolved(self, claim: ImportClaim) -> str | None:
        """Why ``claim`` does not resolve here, or None (it does, or it is not the project's)."""
        if claim.module.split(".")[0] not in self._owned:
            return None
        found = self._module_file(claim.module)
        if found is None:
            return f"there is no module `{claim.module}`"
        if claim.name is None or found.endswith("/"):
            return None
        if self._module_file(f"{claim.module}.{claim.name}") is not None:
            return None  # a submodule
        names = self._defined(found)
        if _ANYTHING in names or claim.name in names:
            return None
        return f"`{found}` does not define `{claim.name}`"

    def missing(self, claim: PathClaim) -> bool:
        """Whether the script, module or file a command names is absent here."""
        if claim.kind == "module":
            top = claim.target.split(".")[0]
            return top in self._owned and self._module_file(claim.target) is None
        return claim.target not in self._snap.files and claim.target not in self._snap.dirs

    def _module_file(self, module: str) -> str | None:
        """The file (or, for a namespace package, the folder with a trailing `/`) of ``module``."""
        base = module.replace(".", "/")
        for root in _ROOTS:
            for candidate in (f"{root}{base}.py", f"{root}{base}/__init__.py"):
                if candidate in self._snap.files:
                    return candidate
            if f"{root}{base}" in self._snap.dirs:
                return f"{root}{base}/"
        return None

    def _defined(self, path: str) -> frozenset[str]:
        if path not in self._names:
            text = self._reader.text(self._snap.revision, path)
            try:
                tree = ast.parse(text) if isinstance(text, str) else None
            except (SyntaxError, ValueError, RecursionError):
                tree = None
            # A module that cannot be read or parsed is not this check's to judge.
            self._names[path] = frozenset({_ANYTHING}) if tree is None else _top_names(tree)
        return self._names[path]


def _top_names(tree: ast.Module) -> frozenset[str]:
    names: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            if node.name == "__getattr__":
                names.add(_ANYTHING)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field, []):
                    pending.extend(child.body if isinstance(child, ast.ExceptHandler) else [child])
    return frozenset(names)

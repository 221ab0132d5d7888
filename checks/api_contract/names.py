"""What a name in a module stands for: module names from paths, imports, qualified names.

All static: the module's own imports and top-level definitions say what `F`, `losses` or
`weighted_loss` mean there. A layout with a source folder (`src/pkg/mod.py`) is matched by
dotted suffix (`pkg.mod.f` names `src.pkg.mod.f`).
"""

from __future__ import annotations

import ast


def module_name(path: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`; a package's `__init__.py` is the package."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def is_package(path: str) -> bool:
    return path.endswith("/__init__.py") or path == "__init__.py"


def bind_import(node: ast.Import | ast.ImportFrom, package: str, names: dict[str, str]) -> None:
    """Record the names an import statement binds, as qualified names, into ``names``.

    ``package`` is the package the module lives in, for relative imports."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                names[alias.asname] = alias.name
            else:
                top = alias.name.partition(".")[0]
                names[top] = top
        return
    source = _absolute(node, package)
    if source is None:
        return
    for alias in node.names:
        if alias.name != "*":
            names[alias.asname or alias.name] = f"{source}.{alias.name}".lstrip(".")


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    """The module an `ImportFrom` reads from, relative imports resolved against ``package``."""
    if not node.level:
        return node.module
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts):
        return None  # beyond the top of the repository
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` -> ["a", "b", "c"]; None for anything but a name and its attributes."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def names_match(called: str, defined: str) -> bool:
    """Does the qualified name a call resolved to name this definition? Equal, or a dotted
    suffix of it (an absolute import in a `src/` layout)."""
    return defined == called or defined.endswith("." + called)

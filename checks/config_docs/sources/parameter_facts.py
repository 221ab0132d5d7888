"""Parameter defaults of the repository's own functions, read with ast: `def build(dim=512)`.

Libraries document their defaults where they are: in signatures. A module-level function's
parameter `dim` is the setting `build.dim`, a constructor's is `VectorQuantize.dim`, a method's
`GPT.generate.temperature`. These are the weakest source of truth (``is_parameter_default``):
a README's `lr` is about the config when a config, dataclass or option defines `lr`, not about
`configure_optimizers(lr=1e-3)`, so they count only for names nothing stronger defines
(``bind.tiered``). Private functions (`_helper`) and non-literal defaults are left out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from gradgate.checks.config_docs.model import Fact, Key
from gradgate.checks.config_docs.values import Value

ORIGIN = "parameter default"
Literal = Callable[[ast.expr, str], Value | None]


def is_parameter_default(fact: Fact) -> bool:
    return fact.origin.startswith(ORIGIN)


def parameter_defaults(path: str, tree: ast.Module, text: str, literal: Literal) -> list[Fact]:
    """Facts for the literal parameter defaults of public functions, constructors and methods."""
    facts: list[Fact] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name):
            facts += _defaults(path, node, (node.name,), f"`{node.name}`", text, literal)
        elif isinstance(node, ast.ClassDef) and _public(node.name):
            for item in node.body:
                if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                owner: Key
                if item.name == "__init__":
                    owner, shown = (node.name,), f"`{node.name}(...)`"
                elif _public(item.name):
                    owner, shown = (node.name, item.name), f"`{node.name}.{item.name}`"
                else:
                    continue
                facts += _defaults(path, item, owner, shown, text, literal)
    return facts


def _public(name: str) -> bool:
    return not name.startswith("_")


def _defaults(
    path: str,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    owner: Key,
    shown: str,
    text: str,
    literal: Literal,
) -> Iterator[Fact]:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    )
    pairs += [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    for arg, default in pairs:
        if arg.arg in ("self", "cls") or arg.arg.startswith("_"):
            continue
        value = literal(default, text)
        if value is not None:
            origin = f"{ORIGIN} of {shown}"
            yield Fact(path, default.lineno, (*owner, arg.arg), value, origin)

"""The starter model factory that `gradgate init` writes: which classes to try, and the file.

candidates(sources, docs)    the repository's nn.Module classes, the likeliest whole model first
factory_source(recipe, ...)  the factory for a class that built and ran (templates/starter_factory)
factory_template(...)        a commented template naming the candidates, when none did

Pure: the classes are read from the files' text, never imported; the guess itself runs in the
user's interpreter (``checks.model.guess``).
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gradgate.bot.config.survey import model_classes
from gradgate.bot.templates import render_template
from gradgate.checks.model.guess import Part, Recipe

FACTORY_FILE = "gradgate_factory.py"
ENTRYPOINT = f"{FACTORY_FILE}:build"
MAX_CANDIDATES = 8
# Names that usually mean a whole model rather than one of its layers.
_WHOLE = re.compile(
    r"(GPT|LM|Model|Transformer|[Nn]et|Network|Classifier|VAE|CLIP|Wrapper|Diffusion)$"
)


@dataclass(frozen=True, slots=True)
class Candidate:
    path: str  # the file that defines it
    module: str  # its import name from the repository root
    cls: str
    uses: int = 0  # calls of it in the repository's model files
    documented: bool = False  # a doc calls it (`Unet(dim=64)` in the README)


def candidates(sources: Mapping[str, bytes], docs: Sequence[bytes] = ()) -> list[Candidate]:
    """The nn.Module classes in ``sources`` (model files: path -> text), whole models first: a
    class no other class builds (``Name(`` nowhere else), one the ``docs`` (their texts) call,
    named like a model, defined in a shallow file."""
    found = model_classes(sources)
    text = {path: data.decode("utf-8", "replace") for path, data in sources.items()}
    shown = "\n".join(doc.decode("utf-8", "replace") for doc in docs)

    def call(name: str) -> re.Pattern[str]:
        return re.compile(rf"(?<![\w.]){re.escape(name)}\(|\.{re.escape(name)}\(")

    def used_elsewhere(path: str, name: str) -> int:
        header = re.compile(rf"class\s+{re.escape(name)}\b")
        return sum(
            len(call(name).findall(header.sub("", body) if other == path else body))
            for other, body in text.items()
        )

    ranked = sorted(
        (
            Candidate(p, _module(p), n, used_elsewhere(p, n), bool(call(n).search(shown)))
            for p, n in found
            if not n.startswith("_")
        ),
        key=_rank,
    )
    return ranked[:MAX_CANDIDATES]


def _rank(c: Candidate) -> tuple[bool, bool, int, bool, str, str]:
    return c.uses > 0, not c.documented, c.uses, not _WHOLE.search(c.cls), c.path, c.cls


def _module(path: str) -> str:
    return path.removeprefix("src/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")


@dataclass(frozen=True, slots=True)
class Written:
    """A part as the factory writes it: ``var = made(args)``, or made bare then ``args`` set."""

    var: str
    made: str  # `GPTConfig`, or `GPT.get_default_config`
    style: str  # "call", "attrs" or "items"
    args: tuple[tuple[str, str], ...]  # (name, Python expression)


def factory_source(recipe: Recipe, *, src_layout: bool) -> str:
    """The factory for a class that built tiny and ran on the guessed inputs: ``_model()``
    takes one keyword argument per setting a variant changes, and ``build()`` returns the
    default and each variant (or the one model when there are none)."""
    keys = list(dict.fromkeys((c.part, c.name) for v in recipe.variants for c in v.changes))
    default = {(c.part, c.name): c.default for v in recipe.variants for c in v.changes}
    names = [name for _, name in keys]
    taken = {p.var for p in recipe.parts} | {p.cls for p in recipe.parts} | {"torch", "inputs"}

    def ident(part: str, name: str) -> str:
        plain = names.count(name) == 1 and name not in taken and not keyword.iskeyword(name)
        return name if plain else f"{part}_{name}"

    idents = {key: ident(*key) for key in keys}
    variants = [
        (json.dumps(v.name), ", ".join(f"{idents[c.part, c.name]}={c.value!r}" for c in v.changes))
        for v in recipe.variants
    ]
    return render_template(
        "starter_factory.py.j2",
        recipe=recipe,
        imports=_imports(recipe.parts),
        parts=[_written(part, idents) for part in recipe.parts],
        params=[(idents[key], repr(default[key])) for key in keys],
        variants=variants,
        src_layout=src_layout,
        candidates=(),
        tried=(),
    )


def _imports(parts: Sequence[Part]) -> list[tuple[str, str]]:
    """(module, `A, B`): the classes to import, one line per module, the model's first."""
    names: dict[str, list[str]] = {}
    for part in reversed(parts):
        owner = names.setdefault(part.module, [])
        if part.cls.split(".")[0] not in owner:
            owner.append(part.cls.split(".")[0])
    return [(module, ", ".join(sorted(found))) for module, found in names.items()]


def _written(part: Part, idents: Mapping[tuple[str, str], str]) -> Written:
    args: dict[str, str] = dict(part.refs) if part.style == "call" else {}
    args.update({name: repr(value) for name, value in part.values})
    args.update({name: i for (var, name), i in idents.items() if var == part.var})
    made = f"{part.cls}.{part.method}" if part.method else part.cls
    return Written(part.var, made, part.style, tuple(args.items()))


def factory_template(found: Sequence[Candidate], tried: Sequence[tuple[str, str]]) -> str:
    """A commented factory to fill in, naming the candidate classes and why each was not used."""
    return render_template(
        "starter_factory.py.j2",
        recipe=None,
        imports=(),
        parts=(),
        params=(),
        variants=(),
        src_layout=False,
        candidates=found,
        tried=tried,
    )

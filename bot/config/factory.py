"""The starter model factory that `gradgate init` writes: which classes to try, and the file.

candidates(sources)          the repository's nn.Module classes, the likeliest whole model first
factory_source(recipe, ...)  the factory for a class that built and ran (templates/starter_factory)
factory_template(...)        a commented template naming the candidates, when none did

Pure: the classes are read from the files' text, never imported; the guess itself runs in the
user's interpreter (``checks.model.guess``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gradgate.bot.config.survey import model_classes
from gradgate.bot.templates import render_template
from gradgate.checks.model.guess import Recipe

FACTORY_FILE = "gradgate_factory.py"
ENTRYPOINT = f"{FACTORY_FILE}:build"
MAX_CANDIDATES = 8
# Names that usually mean a whole model rather than one of its layers.
_WHOLE = re.compile(r"(GPT|LM|Model|Transformer|Net|Network|Classifier|UNet|VAE|CLIP)$")


@dataclass(frozen=True, slots=True)
class Candidate:
    path: str  # the file that defines it
    module: str  # its import name from the repository root
    cls: str


def candidates(sources: Mapping[str, bytes]) -> list[Candidate]:
    """The nn.Module classes in ``sources`` (model files: path -> text), whole models first: a
    class no other class builds (``Name(`` nowhere else), named like a model, defined in a
    shallow file."""
    found = model_classes(sources)
    text = {path: data.decode("utf-8", "replace") for path, data in sources.items()}

    def used_elsewhere(path: str, name: str) -> int:
        call = re.compile(rf"(?<![\w.]){re.escape(name)}\(|\.{re.escape(name)}\(")
        header = re.compile(rf"class\s+{re.escape(name)}\b")
        return sum(
            len(call.findall(header.sub("", body) if other == path else body))
            for other, body in text.items()
        )

    def rank(item: tuple[str, str]) -> tuple[int, int, int, str, str]:
        path, name = item
        private = name.startswith("_")
        return (int(private), used_elsewhere(path, name), int(not _WHOLE.search(name)),
                path, name)  # fmt: skip

    ranked = sorted(found, key=rank)
    return [Candidate(p, _module(p), n) for p, n in ranked if not n.startswith("_")][
        :MAX_CANDIDATES
    ]


def _module(path: str) -> str:
    return path.removeprefix("src/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def factory_source(recipe: Recipe, *, src_layout: bool) -> str:
    """The factory for a class that built tiny and ran on the guessed inputs."""
    return render_template(
        "starter_factory.py.j2",
        recipe=recipe,
        kwargs=[(name, repr(value)) for name, value in recipe.kwargs],
        config_kwargs=[(name, repr(value)) for name, value in recipe.config_kwargs],
        src_layout=src_layout,
        candidates=(),
        tried=(),
    )


def factory_template(found: Sequence[Candidate], tried: Sequence[tuple[str, str]]) -> str:
    """A commented factory to fill in, naming the candidate classes and why each was not used."""
    return render_template(
        "starter_factory.py.j2",
        recipe=None,
        kwargs=(),
        config_kwargs=(),
        src_layout=False,
        candidates=found,
        tried=tried,
    )

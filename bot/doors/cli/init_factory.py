"""`gradgate init`'s model factory: guess one in the user's interpreter, write it, build it once.

The classes come from the files (``bot.config.factory``); the guess and the verifying build run
in the sandbox child under ``--python`` (``checks.model.guess``), never in this process. The
outcome says what was guessed, or why nothing was, for ``cli_init_factory.txt.j2``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gradgate.bot.config.factory import (
    ENTRYPOINT,
    FACTORY_FILE,
    Candidate,
    candidates,
    factory_source,
    factory_template,
)
from gradgate.bot.config.survey import survey
from gradgate.checks.errors import SandboxError
from gradgate.checks.model.guess import Guess, Recipe, guess_model, verify_factory


@dataclass(frozen=True, slots=True)
class FactoryOutcome:
    path: Path | None  # the file written; None: none (an existing one kept, or no model class)
    kept: bool  # an existing factory file was left as it was
    entrypoint: str | None  # set when the written factory built and ran
    recipe: Recipe | None
    candidates: tuple[Candidate, ...]
    tried: tuple[tuple[str, str], ...]
    problem: str | None  # why the guess or the verifying build failed

    @property
    def unbuilt(self) -> bool:
        """Model classes were found and a factory was to be written, but none built."""
        return bool(self.candidates) and not self.kept and self.entrypoint is None


def write_factory(
    root: Path,
    paths: Sequence[str],
    read: Callable[[str], bytes | None],
    *,
    python: str | None,
    force: bool,
) -> FactoryOutcome:
    """Guess, write and verify ``gradgate_factory.py`` at ``root``; an existing one is kept
    unless ``force``."""
    target = root / FACTORY_FILE
    found = survey(paths, read)
    docs = [read(p) or b"" for p in found.docs]
    classes = tuple(candidates({p: read(p) or b"" for p in found.model}, docs))
    if target.exists() and not force:
        return FactoryOutcome(None, True, None, None, classes, (), None)
    if not classes:
        return FactoryOutcome(None, False, None, None, classes, (), None)
    guess, problem = Guess(None, ()), None
    try:
        guess = guess_model(
            root,
            [(c.module, c.cls, c.uses) for c in classes],
            python=python,
            src_layout=any(c.path.startswith("src/") for c in classes),
            documented=[c.cls for c in classes if c.documented],
        )
    except SandboxError as exc:
        problem = str(exc)
    recipe = guess.recipe
    if recipe is not None:
        src = any(c.path.startswith("src/") and c.module == recipe.model.module for c in classes)
        target.write_text(factory_source(recipe, src_layout=src), encoding="utf-8")
        problem = verify_factory(root, ENTRYPOINT, python=python)
        if problem is None:
            return FactoryOutcome(target, False, ENTRYPOINT, recipe, classes, guess.tried, None)
    target.write_text(factory_template(classes, guess.tried), encoding="utf-8")
    return FactoryOutcome(target, False, None, recipe, classes, guess.tried, problem)

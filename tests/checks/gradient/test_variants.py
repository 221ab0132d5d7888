"""Named variants at base and head: which are compared, and which only get a note (pure)."""

from __future__ import annotations

import pytest
from gradgate.checks.base import Outcome
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.gradient.facts import Probed, RevisionFacts
from gradgate.checks.gradient.variants import pair

from tests.checks.gradient.revisions import SETTINGS


def facts(variant: str | None, revision: str) -> RevisionFacts:
    return RevisionFacts(
        revision, "2.13.0", "cpu", "projection", (), (), frozenset(), (), (), (), {}, None,
        variant=variant,
    )  # fmt: skip


def side(names: list[str | None], revision: str) -> list[RevisionFacts]:
    return [facts(name, revision) for name in names]


# (id, base variants, head variants, pairs (name, base's, head's), variants only at one side)
PAIRS = [
    ("one-model", [None], [None], [(None, None, None)], []),
    ("introduced-pairs-default", [None], ["fast", "default"], [("default", None, "default")],
     ["head: fast"]),
    ("introduced-without-default", [None], ["fast", "slow"], [("fast", None, "fast")],
     ["head: slow"]),
    ("dropped", ["a", "default"], [None], [("default", "default", None)], ["base: a"]),
    ("by-name", ["a", "b"], ["b", "c"], [("b", "b", "b")], ["base: a", "head: c"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("base", "head", "pairs", "alone"), [row[1:] for row in PAIRS], ids=[row[0] for row in PAIRS]
)
def test_variants_pair_by_name(
    base: list[str | None],
    head: list[str | None],
    pairs: list[tuple[str | None, str | None, str | None]],
    alone: list[str],
) -> None:
    found, notes = pair(side(base, "base"), side(head, "head"))

    assert [(p.name, p.base.variant, p.head.variant) for p in found] == pairs
    for note, words in zip(notes, alone, strict=True):
        revision, _, name = words.partition(": ")
        assert note.message.startswith(f"The factory's variant `{name}` is only at {revision}")


def test_variants_that_share_no_name_are_an_error_not_a_pass() -> None:
    result = GradientCheck().judge_all(
        Probed(tuple(side(["a"], "base"))), Probed(tuple(side(["b"], "head"))), SETTINGS
    )

    assert result.outcome is Outcome.ERROR
    assert "share no name" in result.summary

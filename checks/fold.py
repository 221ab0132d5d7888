"""Repeated structure folded: `blocks.0.fc`, `blocks.1.fc`, ... -> `blocks.{0..11}.fc` (pure).

A model repeats a block 12 or 48 times, and a change to the block's class changes every copy
alike; a report that says so once per copy is unread (issue 20). Names are folded by their
numeric components (the indices of `nn.ModuleList` / `nn.Sequential`): names that are equal
once each number is replaced by a placeholder share a template, and the numbers each name had
are kept, so the text can say exactly which copies a finding covers and which it does not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# The number's place in a template: a character no module or key name holds, so a name that
# itself holds `{}` (a `ModuleDict` key) is neither split at it nor filled wrongly (issue 36).
PLACE = "\x00"


def split(name: str) -> tuple[str, tuple[int, ...]]:
    """(`blocks.<PLACE>.fc`, (3,)) for `blocks.3.fc`: the template and its numbers in order."""
    parts = name.split(".")
    numbers = tuple(int(p) for p in parts if p.isdigit())
    template = ".".join(PLACE if p.isdigit() else p for p in parts)
    return template, numbers


@dataclass(frozen=True, slots=True)
class Folded:
    template: str  # `blocks.{}.mlp.*`
    numbers: tuple[tuple[int, ...], ...]  # each copy's numbers, sorted: ((0,), (1,), ...)
    members: tuple[str, ...]  # the names folded, in their first order

    @property
    def copies(self) -> int:
        return len(self.numbers)

    @property
    def text(self) -> str:
        """`blocks.{0..11}.mlp.*`; one copy is its own name, `blocks.3.mlp.*`."""
        if self.copies == 1:
            return fill(self.template, self.numbers[0])
        columns = list(zip(*self.numbers, strict=True))
        return fill(self.template, [ranges(sorted(set(column))) for column in columns])


def fill(template: str, values: Sequence[object]) -> str:
    parts = template.split(PLACE)
    out = parts[0]
    for value, rest in zip(values, parts[1:], strict=True):
        out += str(value) + rest
    return out


def ranges(numbers: Sequence[int]) -> str:
    """`{0..11}`, `{0,2,5}`, `{0..3,7}` (a run of three or more is a range)."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    words = [f"{r[0]}..{r[-1]}" if len(r) > 2 else ",".join(map(str, r)) for r in runs]
    return "{" + ",".join(words) + "}"


def fold(names: Iterable[str]) -> list[Folded]:
    """Names grouped by template, in the order each template first appears."""
    groups: dict[str, tuple[list[tuple[int, ...]], list[str]]] = {}
    for name in names:
        template, numbers = split(name)
        copies, members = groups.setdefault(template, ([], []))
        if numbers not in copies:
            copies.append(numbers)
        members.append(name)
    return [
        Folded(template, tuple(sorted(copies)), tuple(members))
        for template, (copies, members) in groups.items()
    ]


def missing_copies(folded: Folded, universe: Iterable[str]) -> tuple[str, ...]:
    """The copies the universe has under the same template that ``folded`` does not cover,
    named (`blocks.3`), so a text can say which blocks differ. Only the numbered part of the
    template is named: the prefix up to its last number."""
    if not folded.numbers or not folded.numbers[0]:
        return ()
    block = stem(folded.template)
    seen: dict[tuple[int, ...], None] = {}
    for name in universe:
        template, numbers = split(name)
        if len(numbers) == len(folded.numbers[0]) and stem(template) == block:
            seen.setdefault(numbers)
    covered = set(folded.numbers)
    return tuple(fill(block, numbers) for numbers in seen if numbers not in covered)


def stem(template: str) -> str:
    """The template up to its last number: the repeated block (`blocks.<PLACE>`)."""
    return template[: template.rindex(PLACE) + len(PLACE)]

"""What the `data` check says about one output: the values it compares and names (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gradgate.checks.data.settings import ChangeKind

Output = Mapping[str, Any]  # {"kind", "dtype", "shape", "values"} as the child encodes it


@dataclass(frozen=True, slots=True)
class Difference:
    kind: ChangeKind
    words: str  # what changed, e.g. "head channel 0 is base channel 2: BGR ↔ RGB"


@dataclass(frozen=True, slots=True)
class OutputChange:
    output: str  # "output", "output.image", "output (input 1)"
    differences: tuple[Difference, ...]


@dataclass(frozen=True, slots=True)
class Site:
    """A line of the user's code at one revision."""

    file: str
    line: int
    code: str

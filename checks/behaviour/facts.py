"""What the children said about each variant, as values (pure).

The base child answers each variant's invariants; the head child its invariants, where its
modules' classes are written, and ``same``: its runs from base's weights compared with base's.
Probe results stay mappings in the child's shape (``child.invariants``, ``child.probe``): the
comparison reads a handful of keys of each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gradgate.checks.errors import ModelError
from gradgate.checks.model.lines import ClassSource, parse_sources

DEFAULT = "default"  # the settings' name for a factory's one model


@dataclass(frozen=True, slots=True)
class VariantFacts:
    variant: str | None  # None: the factory's one model
    invariants: Mapping[str, Mapping[str, Any]]
    same: Mapping[str, Any] = field(default_factory=dict)  # head only
    classes: Mapping[str, ClassSource] = field(default_factory=dict)  # head only
    loss_source: ClassSource | None = None  # head only: where the factory's `loss` is written

    @property
    def key(self) -> str:
        return self.variant or DEFAULT


def parse(value: Any, *, revision: str) -> tuple[VariantFacts, ...]:
    """The child's answer; ModelError when it is not the shape the program returns."""
    if not isinstance(value, Mapping) or not isinstance(value.get("variants"), list):
        got = type(value).__name__
        message = f"the behaviour probe at {revision} returned {got}, not its facts"
        raise ModelError(message, code="bad-answer", revision=revision)
    found = []
    for item in value["variants"]:
        loss = item.get("loss_source")
        found.append(
            VariantFacts(
                variant=item.get("variant"),
                invariants=item.get("invariants") or {},
                same=item.get("same") or {},
                classes=parse_sources(item.get("classes") or {}),
                loss_source=None if loss is None else parse_sources({"": loss})[""],
            )
        )
    return tuple(found)

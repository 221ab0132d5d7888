"""Tensor metadata without tensors: a shape and a dtype name, and how they travel as JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TensorMeta:
    shape: tuple[int, ...]
    dtype: str  # torch's name without "torch.": "float32", "bfloat16", "int64"

    def to_json(self) -> list[Any]:
        return [list(self.shape), self.dtype]

    @classmethod
    def from_json(cls, value: Any) -> TensorMeta:
        shape, dtype = value
        return cls(tuple(int(n) for n in shape), str(dtype))

    @property
    def shape_text(self) -> str:
        return "[" + ", ".join(str(n) for n in self.shape) + "]"


Entries = Mapping[str, TensorMeta]  # state-dict key -> metadata, in checkpoint order


def entries_to_json(entries: Entries) -> dict[str, list[Any]]:
    return {key: meta.to_json() for key, meta in entries.items()}


def entries_from_json(value: Mapping[str, Any]) -> dict[str, TensorMeta]:
    return {str(key): TensorMeta.from_json(meta) for key, meta in value.items()}

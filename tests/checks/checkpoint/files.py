"""Real checkpoint files for tests: safetensors written byte by byte, so bad ones can be made."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

BITS = {"F32": 32, "F16": 16, "BF16": 16, "I64": 64, "U8": 8, "BOOL": 8}


def safetensors_bytes(
    tensors: dict[str, tuple[list[int], str]], *, metadata: dict[str, str] | None = None
) -> bytes:
    """A valid safetensors file of zeros: {key: (shape, dtype)}."""
    header: dict[str, Any] = {}
    offset = 0
    for key, (shape, dtype) in tensors.items():
        size = BITS[dtype] // 8
        for n in shape:
            size *= n
        header[key] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    if metadata is not None:
        header["__metadata__"] = metadata
    return raw_safetensors(json.dumps(header).encode(), data=bytes(offset))


def raw_safetensors(header: bytes, *, data: bytes = b"", length: int | None = None) -> bytes:
    padded = header + b" " * (-len(header) % 8)
    size = len(padded) if length is None else length
    return struct.pack("<Q", size) + padded + data


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path

"""The safetensors header reader agrees with the safetensors library, and reads only the header."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
import torch
from gradgate.checks.checkpoint.read.safetensors import MAX_HEADER_BYTES, read_header
from gradgate.checks.checkpoint.tensors import TensorMeta
from gradgate.checks.errors import UnreadableCheckpoint
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from tests.checks.checkpoint.files import raw_safetensors, safetensors_bytes, write


def library_view(path: Path) -> dict[str, TensorMeta]:
    with safe_open(str(path), framework="pt") as opened:
        return {
            key: TensorMeta(
                tuple(opened.get_slice(key).get_shape()),
                str(opened.get_slice(key).get_dtype()),
            )
            for key in opened.keys()  # noqa: SIM118 (safe_open is not a mapping)
        }


def test_keys_shapes_and_dtypes_match_what_the_library_reads(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    tensors = {
        "encoder.weight": torch.zeros(16, 8),
        "encoder.bias": torch.zeros(16, dtype=torch.bfloat16),
        "steps": torch.zeros((), dtype=torch.int64),
        "mask": torch.zeros(2, 3, dtype=torch.bool),
        "half": torch.zeros(5, dtype=torch.float16),
    }
    save_file(tensors, str(path), metadata={"format": "pt"})
    entries, metadata = read_header(path)
    assert metadata == {"format": "pt"}
    assert set(entries) == set(tensors)
    library = library_view(path)
    names = {"F32": "float32", "BF16": "bfloat16", "I64": "int64", "BOOL": "bool", "F16": "float16"}
    for key, meta in entries.items():
        assert meta.shape == library[key].shape == tuple(tensors[key].shape)
        assert meta.dtype == names[library[key].dtype] == str(tensors[key].dtype)[6:]


def _damaged(kind: str) -> bytes:
    good = safetensors_bytes({"a": ([2, 2], "F32"), "b": ([3], "F32")})
    header = json.dumps({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}).encode()
    return {
        "truncated": good[:-4],
        "absurd header length": struct.pack("<Q", 1 << 62) + b"{}",
        "header longer than the file": raw_safetensors(header, length=4096),
        "invalid header JSON": raw_safetensors(b'{"a": {"dtype": "F32",'),
        "header not an object": raw_safetensors(b"[1, 2, 3]"),
        "wrong byte count": raw_safetensors(
            json.dumps({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 12]}}).encode(),
            data=bytes(12),
        ),
        "gap between tensors": raw_safetensors(
            json.dumps(
                {
                    "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                    "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]},
                }
            ).encode(),
            data=bytes(12),
        ),
        "trailing bytes": raw_safetensors(header, data=bytes(20)),
        "unknown dtype": raw_safetensors(
            json.dumps({"a": {"dtype": "F13", "shape": [1], "data_offsets": [0, 2]}}).encode(),
            data=bytes(2),
        ),
        "negative shape": raw_safetensors(
            json.dumps({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}).encode(),
            data=bytes(4),
        ),
        "shorter than the length": b"\x01\x02\x03",
    }[kind]


@pytest.mark.parametrize(
    ("kind", "reason", "words"),
    [
        ("truncated", "truncated", "cut short"),
        ("absurd header length", "header-length", "header length of 4,611,686,018,427,387,904"),
        ("header longer than the file", "truncated", "cut short"),
        ("invalid header JSON", "header-json", "not valid JSON"),
        ("header not an object", "header-json", "does not start with a JSON object"),
        ("wrong byte count", "header", "needs 16"),
        ("gap between tensors", "header", "leaves a gap"),
        ("trailing bytes", "header", "4 bytes follow the last tensor"),
        ("unknown dtype", "header", "'F13'"),
        ("negative shape", "header", "not a list of sizes"),
        ("shorter than the length", "truncated", "shorter than the 8-byte header length"),
    ],
)
def test_a_damaged_file_is_refused_with_what_is_wrong_as_the_library_refuses_it(
    tmp_path: Path, kind: str, reason: str, words: str
) -> None:
    path = write(tmp_path / "bad.safetensors", _damaged(kind))
    with pytest.raises(UnreadableCheckpoint) as caught:
        read_header(path)
    assert caught.value.reason == reason
    assert words in str(caught.value)
    with pytest.raises(SafetensorError):  # the reader is no more lenient than the library
        library_view(path)


def test_a_key_named_twice_is_refused(tmp_path: Path) -> None:
    entry = '{"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}'
    path = write(
        tmp_path / "twice.safetensors",
        raw_safetensors(f'{{"a": {entry}, "a": {entry}}}'.encode(), data=bytes(4)),
    )
    with pytest.raises(UnreadableCheckpoint, match="names `a` twice"):
        read_header(path)


def test_the_limit_is_the_librarys_own() -> None:
    assert MAX_HEADER_BYTES == 100_000_000


def _bytes_read() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux /proc/self/io")
def test_only_the_header_is_read_from_a_multi_gigabyte_file(tmp_path: Path) -> None:
    shape = [1 << 16, 1 << 14]  # 4 GiB of float32, sparse on disk
    path = tmp_path / "huge.safetensors"
    entry = {"w": {"dtype": "F32", "shape": shape, "data_offsets": [0, 4 << 30]}}
    header = raw_safetensors(json.dumps(entry).encode())
    with path.open("wb") as file:
        file.write(header)
        file.truncate(len(header) + (4 << 30))
    before = _bytes_read()
    entries, _ = read_header(path)
    assert entries["w"] == TensorMeta(tuple(shape), "float32")
    assert _bytes_read() - before < 64 << 10
    assert os.stat(path).st_blocks * 512 < 1 << 20  # the weights were never written either

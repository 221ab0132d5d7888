"""Properties of the safetensors header reader: a file written by the format's rules reads back
as the keys, shapes, dtypes and metadata it was written with, and any other bytes are an
UnreadableCheckpoint, never another exception."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

from gradgate.checks.checkpoint.read.safetensors import DTYPES, read_header
from gradgate.checks.checkpoint.tensors import TensorMeta
from gradgate.checks.errors import UnreadableCheckpoint
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.checks.checkpoint.files import raw_safetensors

FAST = settings(max_examples=60, deadline=None)
WHOLE_BYTES = sorted(name for name, (_, bits) in DTYPES.items() if bits % 8 == 0)
KEYS = st.text(alphabet='ab.0_"\\é ', min_size=1, max_size=10).filter(lambda k: k != "__metadata__")
TENSORS = st.dictionaries(
    KEYS,
    st.tuples(st.lists(st.integers(0, 4), max_size=3), st.sampled_from(WHOLE_BYTES)),
    max_size=5,
)
METADATA = st.none() | st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3)


def written(tensors: dict[str, tuple[list[int], str]], metadata: dict[str, str] | None) -> bytes:
    header: dict[str, Any] = {}
    offset = 0
    for key, (shape, dtype) in tensors.items():
        size = DTYPES[dtype][1] // 8
        for n in shape:
            size *= n
        header[key] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    if metadata is not None:
        header["__metadata__"] = metadata
    return raw_safetensors(json.dumps(header).encode(), data=bytes(offset))


def read_bytes(data: bytes) -> tuple[dict[str, TensorMeta], dict[str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.safetensors"
        path.write_bytes(data)
        return read_header(path)


@FAST
@given(TENSORS, METADATA)
def test_a_file_written_by_the_format_s_rules_reads_back(
    tensors: dict[str, tuple[list[int], str]], metadata: dict[str, str] | None
) -> None:
    entries, found = read_bytes(written(tensors, metadata))
    assert list(entries) == list(tensors)
    assert entries == {k: TensorMeta(tuple(s), DTYPES[d][0]) for k, (s, d) in tensors.items()}
    assert found == (metadata or {})


@FAST
@given(TENSORS, METADATA, st.data())
def test_a_cut_or_damaged_file_is_unreadable_never_a_crash(
    tensors: dict[str, tuple[list[int], str]], metadata: dict[str, str] | None, data: st.DataObject
) -> None:
    whole = written(tensors, metadata)
    at = data.draw(st.integers(0, len(whole)))
    junk = data.draw(st.binary(max_size=6))
    for damaged in (whole[:at], whole[:at] + junk + whole[at + len(junk) :], junk):
        with contextlib.suppress(UnreadableCheckpoint):
            read_bytes(damaged)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["dtype", "shape", "data_offsets", "__metadata__", "w"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=15,
)


@FAST
@given(st.dictionaries(st.text(max_size=4), JSON, max_size=3), st.binary(max_size=16))
def test_any_json_header_is_read_or_unreadable(header: dict[str, Any], data: bytes) -> None:
    with contextlib.suppress(UnreadableCheckpoint):
        read_bytes(raw_safetensors(json.dumps(header).encode(), data=data))

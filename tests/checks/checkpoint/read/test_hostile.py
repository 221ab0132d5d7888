"""Hostile reference files are refused quickly, each as an "unreadable" finding naming the file.

The reader runs in gradgate's own process (issue 18): a zip bomb, a memo alias bomb, an
unsupported or encrypted zip member, a structure too deep for ``repr``, and numbers too long
for ``int`` must each end as the finding, never as a bare Python exception or a CPU pinned until
the check's timeout.
"""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from gradgate.checks.base import Severity
from gradgate.checks.checkpoint.read.replay import MAX_OPCODES
from gradgate.checks.checkpoint.references import UNREADABLE, prepare
from gradgate.checks.checkpoint.settings import Reference

from tests.checks.checkpoint.files import write

PROTO = b"\x80\x04"


def torch_zip(path: Path, pickle: bytes, *, method: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        archive.writestr("archive/data.pkl", pickle)
    return path


def patched(path: Path, *, method: int | None = None, flags: int = 0) -> Path:
    """The zip at ``path`` with its one member's method or flag bits changed in both headers."""
    data = bytearray(path.read_bytes())
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = data.find(signature) + at
        data[start] |= flags
        if method is not None:
            data[start + 2 : start + 4] = struct.pack("<H", method)
    path.write_bytes(bytes(data))
    return path


def memo_bomb(levels: int = 40) -> bytes:
    """A list whose items alias the list below, twice, ``levels`` times: 2**levels nodes."""
    ops = bytearray(PROTO + b"]q\x00")  # EMPTY_LIST BINPUT 0
    for level in range(1, levels + 1):
        below = bytes([level - 1])
        ops += b"(h" + below + b"h" + below + b"lq" + bytes([level])  # MARK GET GET LIST PUT
    return bytes(ops)


def zip_bomb(path: Path) -> Path:
    """~200 KB of zip holding 200 MB of pickle (None, POP, again and again), written in chunks
    at the fastest compression level."""
    chunk = b"N0" * (1 << 19)
    archive = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
    with archive, archive.open("archive/data.pkl", "w", force_zip64=True) as member:
        member.write(PROTO + b"]")
        for _ in range(200):
            member.write(chunk)
        member.write(b".")
    return path


def safetensors(path: Path, header: str) -> Path:
    raw = header.encode() + b" " * (-len(header) % 8)
    return write(path, struct.pack("<Q", len(raw)) + raw + bytes(4))


CASES: dict[str, tuple[str, Callable[[Path], Path], str]] = {
    "a zip bomb": ("bomb.pt", zip_bomb, "inflates"),
    "a memo alias bomb used as a global's name": (
        "memo.pt",
        lambda p: torch_zip(p, memo_bomb() + b"\x8c\x01a\x93."),  # SHORT_BINUNICODE STACK_GLOBAL
        "corrupt",
    ),
    "a pickle of more opcodes than the budget": (
        "long.pt",
        lambda p: torch_zip(p, PROTO + b"]" + b"N0" * (MAX_OPCODES // 2 + 1) + b"."),
        "opcodes",
    ),
    "an unsupported zip compression": (
        "method.pt",
        lambda p: patched(torch_zip(p, PROTO + b"}."), method=99),
        "compressed with zip method 99",
    ),
    "an encrypted zip member": (
        "secret.pt",
        lambda p: patched(torch_zip(p, PROTO + b"}."), flags=1),
        "encrypted",
    ),
    "a 100k-deep structure reaching a global's name": (
        "deep.pt",
        lambda p: torch_zip(p, PROTO + b"]" * 100_000 + b"a" * 99_999 + b"\x8c\x01a\x93."),
        "corrupt",
    ),
    "a safetensors shape of 200-digit numbers": (
        "shape.safetensors",
        lambda p: safetensors(p, json.dumps({"w": {"shape": [10**200] * 2, "dtype": "F32"}})),
        "digits",
    ),
    "a 5,000-digit integer in a safetensors header": (
        "offsets.safetensors",
        lambda p: safetensors(
            p, '{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, ' + "9" * 5000 + "]}}"
        ),
        "digits",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_hostile_reference_is_an_unreadable_finding_that_names_the_file(
    case: str, tmp_path: Path
) -> None:
    name, make, words = CASES[case]
    base = tmp_path / "base"
    base.mkdir()
    make(base / name)
    ready, findings, unusable = prepare(
        [Reference(path=name)], base_root=base, head_root=tmp_path / "head", changed=()
    )
    assert unusable and not ready
    (finding,) = findings
    assert finding.kind == UNREADABLE and finding.severity is Severity.BLOCKING
    assert finding.file == name and f"`{name}`" in finding.message
    assert words in finding.message
    assert len(finding.message) < 600  # a reason, not a dump of the file


def test_a_5000_digit_integer_key_in_a_pickle_is_read_not_a_crash(tmp_path: Path) -> None:
    key = b"\x8b" + struct.pack("<i", 2100) + b"\x7f" * 2100  # LONG4: a 5,000-digit int
    path = torch_zip(tmp_path / "key.pt", PROTO + b"}" + key + b"\x8c\x01vs.")
    ready, findings, _ = prepare(
        [Reference(path=path.name)], base_root=tmp_path, head_root=tmp_path, changed=()
    )
    assert findings == [] and ready[0][1].read.top_keys == ()

"""A torch.save file, zip or legacy, checked for shape and scanned for pickled objects; no torch.

A zip file (torch.save since 1.6) is ``<archive>/data.pkl`` plus one record per storage,
``<archive>/data/<key>``; only data.pkl is read, and the records are checked by name against
the storages the pickle refers to. A legacy file is five pickles in a row (magic number,
protocol, system info, the object, the storage keys) followed by each storage as an 8-byte
element count and its bytes; the walk seeks over the bytes, so a file cut short is caught
without reading the weights. Keys, shapes and dtypes come later, from ``torch.load`` with
``weights_only=True`` in the child (``checks.checkpoint.child.load``): torch is the authority
on its own format (quantized and subclass tensors, nested tensors, both layouts), and the child
that builds the model has torch imported anyway. The pickle replay here could read shapes too,
but it would be a second implementation of torch's rebuild functions for no gain in speed:
for a 1,000-tensor file it takes ~60 ms, ``torch.load(mmap=True)`` ~90 ms.
"""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path
from typing import BinaryIO

from gradgate.checks.checkpoint.read.pickles import PickleScan, scan
from gradgate.checks.checkpoint.read.replay import BoundedReader
from gradgate.checks.errors import UnreadableCheckpoint

MAX_PICKLE_BYTES = 256 << 20  # ~2 million tensors' worth of pickle
# torch.save stores data.pkl uncompressed. A compressed one may inflate this many times over
# (pickles compress ~5-10x) plus a megabyte; a 204 KB zip holding 200 MB of pickle may not.
MAX_INFLATION = 64
_READABLE_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}

_LEGACY_PICKLES = 5
# Bytes per element of each typed storage class a legacy file names.
_ELEMENT_BYTES = {
    "DoubleStorage": 8,
    "FloatStorage": 4,
    "HalfStorage": 2,
    "BFloat16Storage": 2,
    "LongStorage": 8,
    "IntStorage": 4,
    "ShortStorage": 2,
    "CharStorage": 1,
    "ByteStorage": 1,
    "BoolStorage": 1,
    "ComplexFloatStorage": 8,
    "ComplexDoubleStorage": 16,
    "QInt8Storage": 1,
    "QUInt8Storage": 1,
    "QInt32Storage": 4,
    "QUInt4x2Storage": 1,
    "QUInt2x4Storage": 1,
}


def scan_zip(path: Path) -> PickleScan:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError):
        raise UnreadableCheckpoint(
            "its zip directory is missing or damaged: the file is cut short (an interrupted "
            "download or copy?) or is not a torch.save file.",
            reason="truncated",
        ) from None
    with archive:
        names = set(archive.namelist())
        pickles = sorted(n for n in names if n == "data.pkl" or _depth_one(n, "data.pkl"))
        if len(pickles) != 1:
            raise UnreadableCheckpoint(
                "it is a zip archive, but not one torch.save wrote (no single data.pkl).",
                reason="format",
            )
        info = archive.getinfo(pickles[0])
        _bounded_size(info.file_size)
        _readable_member(info)
        try:
            with archive.open(info) as raw:
                result = scan(BoundedReader(raw, info.file_size))
        except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError) as exc:
            raise UnreadableCheckpoint(
                f"its data.pkl cannot be read ({exc}).", reason="truncated"
            ) from None
        prefix = pickles[0][: -len("data.pkl")]
        missing = [key for key, _ in result.storages if f"{prefix}data/{key}" not in names]
        if missing:
            raise UnreadableCheckpoint(
                f"the archive lacks the records of {len(missing)} storage(s) its pickle refers "
                f"to (data/{missing[0]}): it is damaged.",
                reason="truncated",
            )
        return result


def scan_legacy(path: Path) -> PickleScan:
    with path.open("rb") as file:
        size = os.fstat(file.fileno()).st_size
        reader = BoundedReader(file, min(size, MAX_PICKLE_BYTES))
        scans = [scan(reader) for _ in range(_LEGACY_PICKLES)]
        obj = scans[3]
        foreign = tuple(f for s in scans for f in s.foreign)
        _walk_storages(file, obj, size=size)
    return PickleScan(foreign=foreign, top_keys=obj.top_keys, storages=obj.storages)


def _depth_one(name: str, leaf: str) -> bool:
    folder, _, rest = name.partition("/")
    return bool(folder) and rest == leaf


def _readable_member(info: zipfile.ZipInfo) -> None:
    """Refuse, before inflating anything, a data.pkl that is encrypted, compressed in a way
    zipfile cannot undo, or that inflates like a zip bomb."""
    if info.flag_bits & 0x1:
        raise UnreadableCheckpoint(
            "its data.pkl is encrypted, which torch.save never does; gradgate cannot read it.",
            reason="format",
        )
    if info.compress_type not in _READABLE_METHODS:
        raise UnreadableCheckpoint(
            f"its data.pkl is compressed with zip method {info.compress_type}, which gradgate "
            "cannot read (torch.save stores it uncompressed).",
            reason="format",
        )
    limit = MAX_INFLATION * info.compress_size + (1 << 20)
    if info.compress_type != zipfile.ZIP_STORED and info.file_size > limit:
        raise UnreadableCheckpoint(
            f"its data.pkl inflates from {info.compress_size:,} bytes to {info.file_size:,}, "
            f"more than {MAX_INFLATION} times over: a zip bomb, not torch.save's output.",
            reason="too-large",
        )


def _bounded_size(size: int) -> None:
    if size > MAX_PICKLE_BYTES:
        raise UnreadableCheckpoint(
            f"its pickle is {size >> 20} MB, above the {MAX_PICKLE_BYTES >> 20} MB gradgate "
            "reads; save the weights as safetensors.",
            reason="too-large",
        )


def _walk_storages(file: BinaryIO, obj: PickleScan, *, size: int) -> None:
    """Seek over each storage's bytes; a file that ends early is cut short."""
    kinds = dict(obj.storages)
    # The storage keys, in the order their bytes follow, are the fifth pickle; torch sorts them.
    for key in sorted(kinds):
        width = _ELEMENT_BYTES.get(kinds[key])
        if width is None:
            return  # a storage type this walk does not know: leave it to torch.load
        start = file.tell()
        count_bytes = file.read(8)
        if len(count_bytes) < 8:
            raise _cut_short(start + 8, size)
        (count,) = struct.unpack("<q", count_bytes)
        end = file.tell() + count * width
        if count < 0 or end > size:
            raise _cut_short(end, size)
        file.seek(end)


def _cut_short(needed: int, size: int) -> UnreadableCheckpoint:
    return UnreadableCheckpoint(
        f"its storages need at least {needed:,} bytes but the file has {size:,}: it is cut short "
        "(an interrupted download or copy?).",
        reason="truncated",
    )

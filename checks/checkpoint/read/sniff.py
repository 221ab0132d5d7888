"""What a reference file is, from its first bytes: safetensors, torch zip or legacy, LFS pointer.

Pure: takes the leading bytes and the size, reads nothing itself. The extension is only a
hint: a `.bin` may be either torch format, a `.pt` may be a Git LFS pointer that was never
fetched (DESIGN: pointers are recognised, "LFS pointer, not a checkpoint").
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from enum import StrEnum

SNIFF_BYTES = 1024  # enough for a pointer file (the LFS spec caps them below 1024 bytes)


class Format(StrEnum):
    SAFETENSORS = "safetensors"
    TORCH_ZIP = "torch-zip"  # torch.save since PyTorch 1.6
    TORCH_LEGACY = "torch-legacy"  # torch.save(..., _use_new_zipfile_serialization=False)
    TORCH_TAR = "torch-tar"  # before PyTorch 0.4: a tar archive
    LFS_POINTER = "lfs-pointer"
    EMPTY = "empty"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class LfsPointer:
    oid: str  # "sha256:..."
    size: int  # the size of the real file, in bytes


_LFS = re.compile(
    rb"\Aversion https://(?:git-lfs\.github\.com|hawser\.github\.com)/spec/v1\n"
    rb"(?:[a-z0-9.-]+ [^\n]*\n)*\Z"
)
_LFS_FIELD = re.compile(rb"^(oid|size) (\S+)$", re.MULTILINE)
# Legacy torch.save starts with a pickle of torch.serialization.MAGIC_NUMBER; these are its
# 10 little-endian bytes (a LONG1 argument, whatever the pickle protocol).
_LEGACY_MAGIC = (0x1950A86A20F9469CFC6C).to_bytes(10, "little")
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or an empty archive
_TAR_MAGIC_AT = 257  # "ustar" in a tar header


def sniff(head: bytes, *, size: int) -> Format:
    """The format of a file of ``size`` bytes that starts with ``head``."""
    if size == 0:
        return Format.EMPTY
    if lfs_pointer(head, size=size) is not None:
        return Format.LFS_POINTER
    if head.startswith(_ZIP):
        return Format.TORCH_ZIP
    if head[:1] == b"\x80" and _LEGACY_MAGIC in head[:32]:
        return Format.TORCH_LEGACY
    if head[_TAR_MAGIC_AT : _TAR_MAGIC_AT + 5] == b"ustar":
        return Format.TORCH_TAR
    if len(head) >= 9 and head[8:9] == b"{":
        (length,) = struct.unpack("<Q", head[:8])
        if length >= 2:  # the smallest header is "{}"
            return Format.SAFETENSORS
    return Format.UNKNOWN


def lfs_pointer(head: bytes, *, size: int) -> LfsPointer | None:
    """The pointer a Git LFS pointer file holds, or None if ``head`` is not one."""
    if size > SNIFF_BYTES or len(head) != size or not _LFS.match(head):
        return None
    fields = {m.group(1): m.group(2) for m in _LFS_FIELD.finditer(head)}
    oid, length = fields.get(b"oid", b""), fields.get(b"size", b"")
    if not oid or not length.isdigit():
        return None
    return LfsPointer(oid=oid.decode("ascii", "replace"), size=int(length))


def describe_unknown(head: bytes) -> str:
    """A few words on what an unrecognised file looks like, for the finding."""
    if head.startswith(b"\x89HDF"):
        return "an HDF5 file (Keras?)"
    if head.startswith(b"\x93NUMPY"):
        return "a NumPy .npy array"
    if head[:1] == b"\x80":
        return "a plain pickle, not written by torch.save"
    if head.startswith((b"{", b"[")):
        return "JSON text (a sharded checkpoint's index? list the shard files instead)"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip archive"
    printable = sum(32 <= b < 127 or b in b"\r\n\t" for b in head[:256])
    return "text" if printable == len(head[:256]) else "binary data of an unknown format"

"""One reference path on disk -> what gradgate can know about it without torch, or why not.

Every way a file can be unusable ends as an UnreadableCheckpoint whose ``reason`` is one word
and whose message says what is wrong and what to do: missing, a directory, unreadable, empty,
a Git LFS pointer, an unknown or mislabelled format, a safetensors header that is cut short,
absurd or not JSON, a torch file whose zip directory or pickle is damaged, the pre-0.4 tar
format. Pickled objects are not an error here: they are reported by the check (``foreign``).
"""

from __future__ import annotations

import os
import stat
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gradgate.checks.checkpoint.read.pickles import Foreign, brief
from gradgate.checks.checkpoint.read.safetensors import read_header
from gradgate.checks.checkpoint.read.sniff import (
    SNIFF_BYTES,
    Format,
    describe_unknown,
    lfs_pointer,
    sniff,
)
from gradgate.checks.checkpoint.read.torchfile import scan_legacy, scan_zip
from gradgate.checks.checkpoint.tensors import TensorMeta
from gradgate.checks.errors import UnreadableCheckpoint

# What `format:` in the settings may say, and the formats each name accepts.
DECLARED: dict[str, frozenset[Format]] = {
    "auto": frozenset({Format.SAFETENSORS, Format.TORCH_ZIP, Format.TORCH_LEGACY}),
    "safetensors": frozenset({Format.SAFETENSORS}),
    "pt": frozenset({Format.TORCH_ZIP, Format.TORCH_LEGACY}),
}


@dataclass(frozen=True, slots=True)
class ReferenceFile:
    path: Path
    format: Format
    size: int
    # safetensors: read from the header here; torch files: None, the child loads them
    entries: Mapping[str, TensorMeta] | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)  # safetensors __metadata__
    foreign: tuple[Foreign, ...] = ()  # pickled objects found by the static scan
    top_keys: tuple[str, ...] | None = None  # a torch file's top-level dict keys


def read_reference(path: Path, *, declared: str = "auto") -> ReferenceFile:
    """What ``path`` holds; UnreadableCheckpoint when it cannot be a usable checkpoint."""
    try:
        return _read(path, declared)
    except UnreadableCheckpoint:
        raise
    # Whatever else a malformed file provokes in the standard library (zipfile, json, struct,
    # int parsing, a structure nested past the recursion limit) is still "unreadable", with
    # the reason, never a bare exception as the check's summary (issue 18).
    except (ValueError, OverflowError, RecursionError, NotImplementedError, RuntimeError,
            EOFError, struct.error, zipfile.BadZipFile, MemoryError) as exc:  # fmt: skip
        raise UnreadableCheckpoint(
            f"gradgate cannot read it: {type(exc).__name__}: {brief(exc)}.", reason="malformed"
        ) from None


def _read(path: Path, declared: str) -> ReferenceFile:
    head, size = _head(path)
    found = sniff(head, size=size)
    if found is Format.EMPTY:
        raise UnreadableCheckpoint(
            "the file is empty (0 bytes): a failed save or copy.", reason="empty"
        )
    if found is Format.LFS_POINTER:
        pointer = lfs_pointer(head, size=size)
        assert pointer is not None
        raise UnreadableCheckpoint(
            f"it is a Git LFS pointer ({pointer.oid[:19]}…, {_human(pointer.size)}), not a "
            "checkpoint: the weights were never fetched into this checkout. Fetch them (`git "
            "lfs pull`, or `lfs: true` for actions/checkout) and give the file by an absolute "
            "path, or commit the weights themselves.",
            reason="lfs-pointer",
        )
    if found is Format.TORCH_TAR:
        raise UnreadableCheckpoint(
            "it is a tar archive, torch.save's format before PyTorch 0.4, which gradgate does "
            "not read; load and re-save it with a current torch.save.",
            reason="format",
        )
    if found is Format.UNKNOWN:
        raise UnreadableCheckpoint(
            f"it is not a checkpoint gradgate knows: it looks like {describe_unknown(head)}. "
            "References are safetensors files or files written by torch.save.",
            reason="format",
        )
    if found not in DECLARED[declared]:
        raise UnreadableCheckpoint(
            f"the settings say `format: {declared}` but the file is {found.value}; fix "
            "`format` (or leave it out: the format is recognised from the content).",
            reason="format",
        )
    if found is Format.SAFETENSORS:
        entries, metadata = read_header(path)
        return ReferenceFile(path, found, size, entries=entries, metadata=metadata)
    scanned = scan_zip(path) if found is Format.TORCH_ZIP else scan_legacy(path)
    return ReferenceFile(path, found, size, foreign=scanned.foreign, top_keys=scanned.top_keys)


def _head(path: Path) -> tuple[bytes, int]:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableCheckpoint(
                "it is a directory, not a file; name the checkpoint file itself (for a "
                "sharded checkpoint, list each shard).",
                reason="directory",
            )
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableCheckpoint(
                "it is not a regular file (a device, pipe or socket).", reason="format"
            )
        with path.open("rb") as file:
            return file.read(SNIFF_BYTES), os.fstat(file.fileno()).st_size
    except FileNotFoundError:
        raise UnreadableCheckpoint("no such file.", reason="missing") from None
    except PermissionError:
        raise UnreadableCheckpoint(
            "permission denied: gradgate's user cannot read it; make it readable (chmod) for "
            "the user CI runs as.",
            reason="permission",
        ) from None
    except OSError as exc:
        raise UnreadableCheckpoint(
            f"it cannot be read: {exc.strerror or exc}.", reason="io"
        ) from None


def _human(size: int) -> str:
    if size < 1024:
        return f"{size:,} bytes"
    scaled = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        scaled /= 1024
        if scaled < 1024 or unit == "TB":
            break
    return f"{scaled:.1f} {unit}"

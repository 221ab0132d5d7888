"""Every way a reference file can be unusable gives one clear reason, never a traceback (C11)."""

from __future__ import annotations

import os
import tarfile
import tempfile
from pathlib import Path

import pytest
import torch
from gradgate.checks.checkpoint.read.reference import read_reference
from gradgate.checks.checkpoint.read.sniff import Format
from gradgate.checks.errors import UnreadableCheckpoint
from torch import nn

from tests.checks.checkpoint.files import safetensors_bytes, write

POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 1342177280\n"
)


def reason_for(path: Path, declared: str = "auto") -> tuple[str, str]:
    with pytest.raises(UnreadableCheckpoint) as caught:
        read_reference(path, declared=declared)
    return caught.value.reason, str(caught.value)


def test_a_git_lfs_pointer_is_named_as_such_not_as_incompatible(tmp_path: Path) -> None:
    reason, message = reason_for(write(tmp_path / "model.safetensors", POINTER))
    assert reason == "lfs-pointer"
    assert "Git LFS pointer" in message
    assert "sha256:4d7a214614ab" in message and "1.2 GB" in message
    assert "git lfs pull" in message


def test_a_zero_byte_file_is_empty(tmp_path: Path) -> None:
    assert reason_for(write(tmp_path / "model.pt", b""))[0] == "empty"


def test_a_directory_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "checkpoint").mkdir()
    reason, message = reason_for(tmp_path / "checkpoint")
    assert reason == "directory"
    assert "each shard" in message


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    assert reason_for(tmp_path / "nope.pt")[0] == "missing"


def test_a_file_of_another_kind_says_what_it_looks_like(tmp_path: Path) -> None:
    reason, message = reason_for(write(tmp_path / "w.npy", b"\x93NUMPY\x01\x00" + bytes(100)))
    assert reason == "format"
    assert "NumPy" in message


def test_the_declared_format_must_match_the_content(tmp_path: Path) -> None:
    path = write(tmp_path / "model.bin", safetensors_bytes({"w": ([2], "F32")}))
    reason, message = reason_for(path, declared="pt")
    assert reason == "format"
    assert "`format: pt`" in message and "safetensors" in message


def test_the_pre_0_4_tar_format_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "ancient.pt"
    member = write(tmp_path / "pickle", b"\x80\x02}q\x00.")
    with tarfile.open(path, "w") as archive:
        archive.add(member, arcname="pickle")
    reason, message = reason_for(path)
    assert reason == "format"
    assert "re-save" in message


def test_the_legacy_format_is_read_as_torch_legacy(tmp_path: Path) -> None:
    path = tmp_path / "old.pt"
    torch.save(nn.Linear(3, 3).state_dict(), path, _use_new_zipfile_serialization=False)
    read = read_reference(path)
    assert read.format is Format.TORCH_LEGACY
    assert read.entries is None  # torch files are loaded by the child
    assert read.top_keys == ("weight", "bias")


def test_a_safetensors_reference_comes_with_its_keys(tmp_path: Path) -> None:
    path = write(tmp_path / "m.safetensors", safetensors_bytes({"fc.weight": ([3, 2], "BF16")}))
    read = read_reference(path)
    assert read.format is Format.SAFETENSORS
    assert read.entries is not None and read.entries["fc.weight"].dtype == "bfloat16"


def _reason_as_nobody(path: Path) -> tuple[str, str]:
    """Root reads anything: read in a forked child that dropped to the user `nobody`."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            reason, message = reason_for(path)
            os.write(write_end, f"{reason}\n{message}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    reason, _, message = answer.partition("\n")
    return reason, message


def test_a_file_the_user_cannot_read_is_a_permission_problem() -> None:
    # pytest's tmp_path is private to the user running the tests: use a folder anyone can
    # enter, with a file only its owner could read.
    folder = Path(tempfile.mkdtemp(prefix="gradgate-perm-"))
    path = write(folder / "model.safetensors", safetensors_bytes({"w": ([2], "F32")}))
    try:
        folder.chmod(0o755)
        path.chmod(0o000)
        reason, message = reason_for(path) if os.geteuid() != 0 else _reason_as_nobody(path)
        assert reason == "permission"
        assert "permission denied" in message and "chmod" in message
    finally:
        path.unlink()
        folder.rmdir()

"""Bad reference files through the whole check: one clear finding each, never a pass or a crash."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from gradgate.checks.base import Outcome

from tests.checks.checkpoint.files import raw_safetensors, safetensors_bytes, write
from tests.checks.checkpoint.scenario import MODEL, only, run
from tests.gitrepo import GitRepo

TOUCHED = MODEL + "\nVERSION = 2\n"


class RunsCode:
    def __init__(self, sentinel: Path) -> None:
        self.sentinel = sentinel

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str]]:
        return os.system, (f"touch {self.sentinel}",)


def _truncated(path: Path) -> None:
    path.write_bytes(safetensors_bytes({"fc.weight": ([4, 16], "F32")})[:-8])


def _absurd(path: Path) -> None:
    path.write_bytes(struct.pack("<Q", 1 << 60) + b"{}")


def _bad_json(path: Path) -> None:
    path.write_bytes(raw_safetensors(b'{"fc.weight": {"dtype": "F32"'))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _directory(path: Path) -> None:
    path.mkdir()
    (path / "shard-1.safetensors").write_bytes(safetensors_bytes({"w": ([1], "F32")}))


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (_truncated, "cut short"),
        (_absurd, "header length of 1,152,921,504,606,846,976 bytes"),
        (_bad_json, "not valid JSON"),
        (_empty, "the file is empty"),
        (_directory, "it is a directory"),
    ],
    ids=["truncated", "absurd header length", "invalid header JSON", "zero bytes", "directory"],
)
def test_an_unreadable_reference_is_an_error_that_says_why(
    repo: GitRepo, make: Callable[[Path], None], words: str
) -> None:
    (repo.root / "ckpt").mkdir()
    make(repo.root / "ckpt" / "v1.safetensors")
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": TOUCHED},
        settings={"references": ["ckpt/v1.safetensors"], "equivalence": False},
    )
    assert result.outcome is Outcome.ERROR  # could not decide: never a pass
    finding = only(result, "checkpoint-unreadable")
    assert finding.message.startswith("Reference `ckpt/v1.safetensors` (at base) cannot be used")
    assert words in finding.message
    assert finding.file == "ckpt/v1.safetensors"


def test_a_reference_whose_pickle_would_run_a_command_is_refused_and_nothing_runs(
    repo: GitRepo, tmp_path: Path
) -> None:
    sentinel = tmp_path / "it-ran"
    (repo.root / "ckpt").mkdir()
    torch.save({"model": {}, "cfg": RunsCode(sentinel)}, repo.root / "ckpt" / "v1.pt")
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": TOUCHED},
        settings={"references": ["ckpt/v1.pt"]},  # equivalence on: the children do run
    )
    assert not sentinel.exists()
    finding = only(result, "checkpoint-pickled-objects")
    assert "code that runs when the file is unpickled" in finding.message
    assert result.outcome is Outcome.FAIL


def test_a_legacy_format_reference_is_read_with_a_note(repo: GitRepo) -> None:
    scope: dict[str, Any] = {}
    exec(compile(MODEL, "model.py", "exec"), scope)  # the fixture's own model code
    model, _ = scope["build"]()
    (repo.root / "ckpt").mkdir()
    torch.save(model.state_dict(), repo.root / "ckpt" / "old.pt",
               _use_new_zipfile_serialization=False)  # fmt: skip
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": TOUCHED},
        settings={"references": ["ckpt/old.pt"], "equivalence": False},
    )
    assert result.outcome is Outcome.PASS, result.findings
    note = only(result, "checkpoint-legacy-format")
    assert "legacy format" in note.message and "Re-save" in note.message


def test_a_missing_reference_says_where_it_was_looked_for(repo: GitRepo) -> None:
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": TOUCHED},
        settings={"references": ["ckpt/nowhere.pt"], "equivalence": False},
    )
    assert result.outcome is Outcome.ERROR
    assert "not in the repository at base or head" in only(result, "checkpoint-unreadable").message


def test_a_reference_that_leads_out_of_the_repository_is_refused(
    repo: GitRepo, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.safetensors"
    outside.write_bytes(safetensors_bytes({"fc.weight": ([4, 16], "F32")}))
    (repo.root / "ckpt").mkdir()
    (repo.root / "ckpt" / "v1.safetensors").symlink_to(outside)
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": TOUCHED},
        settings={"references": ["ckpt/v1.safetensors"], "equivalence": False},
    )
    assert result.outcome is Outcome.ERROR
    assert "leads out of the repository" in only(result, "checkpoint-unreadable").message


def test_a_head_model_that_does_not_build_is_an_error_naming_head(repo: GitRepo) -> None:
    broken = MODEL.replace("self.fc = nn.Linear(16, 4)", "self.fc = nn.Linear(16, 4, bogus=1)")
    result = run(repo, base={"model.py": MODEL}, head={"model.py": broken})
    assert result.outcome is Outcome.ERROR  # never a pass
    finding = only(result, "checkpoint-error")  # the one error finding of every check
    assert finding.revision == "head"
    assert "at head" in finding.message and "bogus" in finding.message


# --- a PR whose code may not run yet (App mode, untrusted author): references only ----------


def test_without_user_code_a_pickled_reference_fails_at_once_and_no_code_runs(
    repo: GitRepo, tmp_path: Path
) -> None:
    sentinel = tmp_path / "it-ran"
    (repo.root / "ckpt").mkdir()
    torch.save({"model": {}, "cfg": RunsCode(sentinel)}, repo.root / "ckpt" / "v1.pt")
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": TOUCHED},
        settings={"references": ["ckpt/v1.pt"]},
        user_code=False,
    )
    assert result.outcome is Outcome.FAIL
    assert only(result, "checkpoint-pickled-objects").file == "ckpt/v1.pt"
    assert result.isolation is None  # no sandbox was started
    assert not sentinel.exists()


def test_without_user_code_readable_references_wait_never_pass(repo: GitRepo) -> None:
    (repo.root / "ckpt").mkdir()
    write(repo.root / "ckpt" / "v1.safetensors", safetensors_bytes({"fc.weight": ([4, 16], "F32")}))
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": TOUCHED},
        settings={"references": ["ckpt/v1.safetensors"]},
        user_code=False,
    )
    assert result.outcome is Outcome.WAITING
    assert "/ok-to-test" in result.summary
    assert result.isolation is None

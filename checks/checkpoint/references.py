"""The configured references, found and read in gradgate's process; findings for unusable ones.

A path in the repository is read from the base revision's tree: the checkpoint the project
already had, which a PR cannot swap for one saved by its own model. (GitHub refuses files over
100 MB, so such references are small; big ones are Git LFS objects or absolute paths.) When the
PR itself changes the file, its head copy is read too, and what the PR did to it is reported
(C10 "checkpoint dict gains a Namespace", C11 "an LFS pointer committed where the weights
were"). An absolute path is read where it is.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradgate.checks.base import Finding, Severity
from gradgate.checks.checkpoint.read.pickles import Foreign
from gradgate.checks.checkpoint.read.reference import ReferenceFile, read_reference
from gradgate.checks.checkpoint.read.sniff import Format
from gradgate.checks.checkpoint.settings import Reference
from gradgate.checks.checkpoint.tensors import entries_to_json
from gradgate.checks.errors import UnreadableCheckpoint

UNREADABLE = "checkpoint-unreadable"
LFS_POINTER = "checkpoint-lfs-pointer"
PICKLED = "checkpoint-pickled-objects"
LEGACY = "checkpoint-legacy-format"


@dataclass(frozen=True, slots=True)
class Ready:
    """A reference the child can load: its label for messages and its request for the child."""

    name: str  # as configured: the path
    label: str  # "`ckpt/v1.pt`"
    file: str | None  # repo-relative path for findings; None for absolute paths
    read: ReferenceFile

    def request(self, *, key: str | None) -> dict[str, Any]:
        if self.read.entries is not None:
            return {"name": self.name, "entries": entries_to_json(self.read.entries)}
        return {
            "name": self.name,
            "path": str(self.read.path),
            "zip": self.read.format is Format.TORCH_ZIP,
            "key": key,
        }


def prepare(
    references: Collection[Reference],
    *,
    base_root: Path,
    head_root: Path,
    changed: Collection[str],
) -> tuple[list[tuple[Reference, Ready]], list[Finding], bool]:
    """(references ready for the child, findings, whether any reference could not be used)."""
    ready: list[tuple[Reference, Ready]] = []
    findings: list[Finding] = []
    unusable = False
    for reference in references:
        absolute = Path(reference.path).is_absolute()
        file = None if absolute else Path(reference.path).as_posix()
        label = f"`{reference.path}`"
        path, revision = _locate(reference.path, base_root=base_root, head_root=head_root)
        if path is None:
            why = (
                "it is not in the repository at base or head."
                if revision == "missing"
                else "it leads out of the repository (`..` or a symlink); give the file's "
                "absolute path instead."
            )
            findings.append(_unreadable(label, file, why, revision=None))
            unusable = True
            continue
        try:
            read = read_reference(path, declared=reference.format)
        except UnreadableCheckpoint as exc:
            findings.append(_from_error(label, file, exc, revision=revision))
            unusable = True
            continue
        if read.foreign:
            findings.append(_pickled(label, file, read.foreign, revision=revision))
            unusable = True
            continue
        if read.format is Format.TORCH_LEGACY:
            findings.append(_legacy(label, file, revision=revision))
        ready.append((reference, Ready(reference.path, label, file, read)))
        if file is not None and revision == "base" and file in changed:
            findings.extend(_head_copy(head_root / file, label, file, reference.format))
    return ready, findings, unusable


def _locate(text: str, *, base_root: Path, head_root: Path) -> tuple[Path | None, str | None]:
    """(the file, "base" or "head"), (None, why not) when it is nowhere, or (None, None) when
    it leads out of the tree; an absolute path is taken as it is."""
    if Path(text).is_absolute():
        return Path(text), None
    for root, revision in ((base_root, "base"), (head_root, "head")):
        candidate = root / text
        if candidate.exists() or candidate.is_symlink():
            # `..` or a symlink must not lead out of the revision's tree.
            if not candidate.resolve().is_relative_to(root.resolve()):
                return None, None
            return candidate, revision
    return None, "missing"


def _head_copy(path: Path, label: str, file: str, declared: str) -> list[Finding]:
    """What this PR did to a reference file it changed, as far as its content goes."""
    if not path.exists():
        return []  # deleted at head: the base copy is still the reference
    try:
        read = read_reference(path, declared=declared)
    except UnreadableCheckpoint as exc:
        finding = _from_error(label, file, exc, revision="head")
        return [
            Finding(
                finding.kind,
                Severity.BLOCKING,
                "This PR replaces the reference "
                + finding.message[0].lower()
                + finding.message[1:],
                file=file,
                revision="head",
            )
        ]
    if read.foreign:
        return [_pickled(label, file, read.foreign, revision="head", introduced=True)]
    return []


def _unreadable(label: str, file: str | None, why: str, *, revision: str | None) -> Finding:
    return Finding(
        UNREADABLE,
        Severity.BLOCKING,
        f"Reference {label} cannot be used: {why}",
        file=file,
        revision=revision,
    )


def _from_error(
    label: str, file: str | None, exc: UnreadableCheckpoint, *, revision: str | None
) -> Finding:
    at = f" (at {revision})" if revision else ""
    if exc.reason == "lfs-pointer":
        return Finding(
            LFS_POINTER,
            Severity.BLOCKING,
            f"Reference {label}{at} is an LFS pointer, not a checkpoint: {exc}",
            file=file,
            revision=revision,
        )
    return _unreadable(f"{label}{at}", file, str(exc), revision=revision)


def _pickled(
    label: str,
    file: str | None,
    foreign: tuple[Foreign, ...],
    *,
    revision: str | None,
    introduced: bool = False,
) -> Finding:
    parts = []
    for item in foreign:
        where = f"`{item.path}`" if item.path else "the top level"
        what = ", ".join(f"`{g}`" for g in item.globals)
        runs = " — code that runs when the file is unpickled" if item.executes_code else ""
        parts.append(f"{where} holds {what}{runs}")
    who = f"This PR makes reference {label} carry" if introduced else f"Reference {label} carries"
    return Finding(
        PICKLED,
        Severity.BLOCKING,
        f"{who} pickled objects, refused without unpickling: "
        + "; ".join(parts)
        + ". Checkpoints hold tensors and plain values only: save `vars(args)`, "
        "`dataclasses.asdict(config)` or `float(x)` instead of the objects.",
        file=file,
        revision=revision,
    )


def _legacy(label: str, file: str | None, *, revision: str | None) -> Finding:
    return Finding(
        LEGACY,
        Severity.NOTE,
        f"Reference {label} is in torch.save's legacy format (before PyTorch 1.6), which "
        "cannot be memory-mapped; gradgate read it without its weights. Re-save it with a "
        "current torch.save to load it faster everywhere.",
        file=file,
        revision=revision,
    )

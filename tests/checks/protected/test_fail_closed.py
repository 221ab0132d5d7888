"""The `protected` check fails closed: a PR cannot make a protected file uncomparable, hide an
edit behind a copy, or smuggle a marker in a sentence (issue: fail closed)."""

from __future__ import annotations

import pytest
from gradgate.checks.base import Outcome, Severity

from tests.checks.protected.test_check import LOSS, TRAIN, only, pull_request
from tests.gitrepo import GitRepo

# --- a file that held markers at base and cannot be compared at head blocks -------------------

UNREADABLE_HEADS = {
    "nul-byte": (TRAIN + "# " + "x" * 9000 + "\n").encode() + b"\0\n",
    "utf-16": TRAIN.replace("v3", "v4").encode("utf-16"),
    "latin-1": TRAIN.replace("v3", "v\xe9").encode("latin-1"),
    "padded-past-the-limit": (TRAIN.replace("v3", "v4") + "#" * (3 * 1024 * 1024) + "\n").encode(),
    "utf-7-cookie": b"# -*- coding: utf-7 -*-\n" + TRAIN.encode(),
    "latin-1-cookie": b"# coding: latin-1\n" + TRAIN.encode(),
    "unknown-cookie": b"# coding: no-such-codec\n" + TRAIN.encode(),
}
WHY = {
    "nul-byte": "it is binary (it holds a NUL byte)",
    "utf-16": "it is binary (it holds a NUL byte)",
    "latin-1": "it is not UTF-8 text",
    "padded-past-the-limit": "over the 2 MB limit",
    "utf-7-cookie": "its `coding:` line declares utf-7, and only UTF-8 is compared",
    "latin-1-cookie": "its `coding:` line declares iso-8859-1",
    "unknown-cookie": "its `coding:` line names an encoding Python does not know",
}


@pytest.mark.parametrize("case", sorted(UNREADABLE_HEADS))
def test_a_protected_file_made_unreadable_at_head_blocks(repo: GitRepo, case: str) -> None:
    result = pull_request(repo, {"train.py": TRAIN}, {"train.py": UNREADABLE_HEADS[case]})

    finding = only(result, "protected-file-unreadable")
    assert finding.severity is Severity.BLOCKING and result.outcome is Outcome.FAIL
    assert (finding.file, finding.line) == ("train.py", 5)
    assert "held protected lines at base (the first at `train.py:5`)" in finding.message
    assert WHY[case] in finding.message


def test_a_gitattributes_that_calls_python_binary_does_not_hide_an_edit(repo: GitRepo) -> None:
    head = {".gitattributes": "*.py -diff binary\n", "train.py": TRAIN.replace("v3", "v4")}
    result = pull_request(repo, {"train.py": TRAIN}, head)

    assert only(result, "protected-line-changed").line == 5


def test_git_calling_a_file_binary_is_not_taken_on_trust(repo: GitRepo) -> None:
    result = pull_request(
        repo, {"train.py": TRAIN}, {"train.py": TRAIN.replace("v3", "v4")}, all_binary=True
    )

    assert only(result, "protected-line-changed").line == 5


def test_a_protected_file_replaced_by_a_symlink_blocks(repo: GitRepo) -> None:
    repo.write("train.py", TRAIN)
    repo.write("elsewhere.py", "x = 1\n")
    result = pull_request(repo, {}, {}, then=lambda: _symlink(repo, "train.py", "elsewhere.py"))

    finding = only(result, "protected-file-unreadable")
    assert "at head it is a symbolic link" in finding.message


def test_a_protected_file_replaced_by_a_submodule_blocks(repo: GitRepo) -> None:
    repo.write("train.py", TRAIN)
    sha = repo.commit("something to point at")

    def gitlink() -> None:
        repo.git("rm", "-q", "--cached", "train.py")
        (repo.root / "train.py").unlink()
        repo.git("update-index", "--add", "--cacheinfo", f"160000,{sha},train.py")

    result = pull_request(repo, {}, {}, then=gitlink)

    # git lists a file turned submodule as the file deleted and a submodule added.
    finding = only(result, "protected-line-deleted")
    assert finding.severity is Severity.BLOCKING and finding.line == 5


def _symlink(repo: GitRepo, path: str, target: str) -> None:
    (repo.root / path).unlink()
    (repo.root / path).symlink_to(target)


# --- pairing prefers the original position --------------------------------------------------

STEP = """\
def step(model, batch):
    loss = model(batch).mean()
    scale = compute_scale(loss)  # NO_REFAC
    return loss * scale
"""


@pytest.mark.parametrize(
    "copy",
    [
        "    if False:\n        scale = compute_scale(loss)  # NO_REFAC\n",
        "    return loss * scale\n    scale = compute_scale(loss)  # NO_REFAC\n",
    ],
    ids=["copy-under-if-false", "copy-after-return"],
)
def test_an_edit_in_place_blocks_despite_an_identical_copy_in_the_scope(
    repo: GitRepo, copy: str
) -> None:
    head = STEP.replace("compute_scale(loss)  #", "1.0  #").replace(
        "    return loss * scale\n", copy + "    return loss * scale\n"
    )
    result = pull_request(repo, {"step.py": STEP}, {"step.py": head})

    blocking = [f for f in result.findings if f.severity is Severity.BLOCKING]
    assert [(f.kind, f.line) for f in blocking] == [("protected-line-changed", 3)]
    assert blocking[0].details is not None and "+    scale = 1.0  # NO_REFAC" in blocking[0].details


def test_a_replacement_in_the_original_place_blocks_when_the_original_moves(
    repo: GitRepo,
) -> None:
    moved = LOSS.replace("def other():\n    return 1\n", "")
    head = (
        moved.replace("return loss * 0.5", "return loss * 0.0")
        + "\n\nclass Unused:\n"
        + "    # NO_REFAC\n    def scaled_loss(logits, targets):\n"
        + "        loss = torch.nn.functional.cross_entropy(logits, targets)\n"
        + "        return loss * 0.5\n"
    )
    result = pull_request(repo, {"loss.py": LOSS}, {"loss.py": head})

    blocking = [f for f in result.findings if f.severity is Severity.BLOCKING]
    assert [(f.kind, f.line) for f in blocking] == [("protected-line-changed", 4)]


@pytest.mark.parametrize(
    ("head", "context"),
    [
        (STEP.replace("    scale =", "    if False:\n        scale ="), "under `if False:`"),
        (
            STEP.replace(
                "    scale = compute_scale(loss)  # NO_REFAC\n",
                "    if batch is None:\n        scale = 1.0\n    else:\n"
                "        scale = compute_scale(loss)  # NO_REFAC\n",
            ),
            "under `else:` of `if batch is None:`",
        ),
    ],
    ids=["if-false", "new-else"],
)
def test_wrapping_a_protected_statement_in_new_control_flow_warns_naming_it(
    repo: GitRepo, head: str, context: str
) -> None:
    result = pull_request(repo, {"step.py": STEP}, {"step.py": head})

    finding = only(result, "protected-context-changed")
    assert finding.severity is Severity.WARNING and result.outcome is Outcome.WARN
    assert finding.message.startswith(
        "`scale = compute_scale(loss)` (`step.py:3`) is protected by `# NO_REFAC`; it is "
        f"unchanged, but it now runs {context} (before: directly in its scope)."
    )


# --- a marker is the first word of a comment -------------------------------------------------


def test_a_marker_mentioned_inside_a_comment_sentence_protects_nothing(repo: GitRepo) -> None:
    base = "# Mark lines that must not change with a comment such as `# NO_REFAC`.\nLR = 0.1\n"
    result = pull_request(repo, {"hp.py": base}, {"hp.py": base.replace("0.1", "0.2")})

    assert result.findings == () and result.outcome is Outcome.PASS


def test_a_config_comment_naming_the_marker_does_not_protect_the_line_below(
    repo: GitRepo,
) -> None:
    base = "# Lines marked NO_REFAC are protected.\nalways: [protected]\n"
    result = pull_request(repo, {"c.yml": base}, {"c.yml": base.replace("[protected]", "[]")})

    # Not a marker (P8): a warning that names the line, never a block.
    assert only(result, "protected-marker-lookalike").line == 1
    assert result.outcome is Outcome.WARN


def test_the_starter_config_comment_is_silent(repo: GitRepo) -> None:
    base = (
        "# to lines marked with a marker comment such as `# NO_REFAC` (see `markers` below).\n"
        "always: [protected]\n"
    )
    result = pull_request(repo, {"c.yml": base}, {"c.yml": base.replace("[protected]", "[]")})

    assert result.findings == ()


def test_markdown_headings_are_never_comments(repo: GitRepo) -> None:
    base = "# NO_REFAC\n\n## NO_REFAC: lines marked this way\n\nbatch_size: 32\n"
    result = pull_request(repo, {"README.md": base}, {"README.md": base.replace("32", "64")})

    assert result.findings == ()


def test_a_marker_with_a_reason_after_a_colon_protects(repo: GitRepo) -> None:
    base = "LR = 0.1  # NO_REFAC: tuned on 64 GPUs\n"
    result = pull_request(repo, {"hp.py": base}, {"hp.py": base.replace("0.1", "0.2")})

    assert only(result, "protected-line-changed").line == 1


# --- YAML blocks and shell continuations -----------------------------------------------------

YAML = """\
model:
  hidden: 512
# NO_REFAC
optimizer:
  name: adamw
  betas:
    - 0.9
    - 0.95
train:
  epochs: 10
"""


@pytest.mark.parametrize("edit", [("0.95", "0.999"), ("adamw", "sgd")])
def test_a_marker_above_a_yaml_key_protects_its_whole_block(
    repo: GitRepo, edit: tuple[str, str]
) -> None:
    result = pull_request(repo, {"c.yaml": YAML}, {"c.yaml": YAML.replace(*edit)})

    finding = only(result, "protected-line-changed")
    assert finding.line == 3
    assert finding.details is not None and edit[1] in finding.details


def test_a_yaml_edit_outside_the_protected_block_is_not_a_finding(repo: GitRepo) -> None:
    head = YAML.replace("epochs: 10", "epochs: 20").replace("hidden: 512", "hidden: 256")
    result = pull_request(repo, {"c.yaml": YAML}, {"c.yaml": head})

    assert result.findings == ()


SHELL = """\
#!/bin/sh
set -e
# NO_REFAC
torchrun --nproc_per_node=8 train.py \\
    --lr 3e-4 \\
    --batch-size 64
echo done
"""


def test_a_shell_statement_with_continuations_is_one_protected_statement(repo: GitRepo) -> None:
    result = pull_request(repo, {"run.sh": SHELL}, {"run.sh": SHELL.replace("64", "32")})

    finding = only(result, "protected-line-changed")
    assert finding.line == 3
    assert finding.details is not None and "+    --batch-size 32" in finding.details


def test_an_edit_after_a_protected_shell_statement_is_not_a_finding(repo: GitRepo) -> None:
    result = pull_request(repo, {"run.sh": SHELL}, {"run.sh": SHELL.replace("done", "ok")})

    assert result.findings == ()


# --- no input hangs it ----------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_thirty_thousand_edited_markers_are_each_reported(repo: GitRepo) -> None:
    base = "".join(f"key_{i}: {i}  # NO_REFAC\n" for i in range(30_000))
    head = base.replace(": 1", ": 7")
    result = pull_request(repo, {"big.yaml": base}, {"big.yaml": head})

    edited = sum(1 for i in range(30_000) if str(i).startswith("1"))
    assert len(result.findings) == edited
    assert {f.kind for f in result.findings} == {"protected-line-changed"}

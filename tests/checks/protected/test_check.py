"""The `protected` check on real git repositories: a base commit on main, the PR on a branch."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import pytest
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity
from gradgate.checks.protected.check import ProtectedCheck
from gradgate.checks.protected.settings import ProtectedSettings

from tests.gitrepo import GitRepo


def pull_request(
    repo: GitRepo,
    base: Mapping[str, str | bytes],
    head: Mapping[str, str | bytes | None],
    *,
    moves: tuple[tuple[str, str], ...] = (),
    markers: tuple[str, ...] | None = None,
    zones: Mapping[str, tuple[str, ...]] | None = None,
    zone_owners: Mapping[str, tuple[str, ...]] | None = None,
    binary_from_git: bool = True,
    all_binary: bool = False,
    then: Callable[[], None] | None = None,
) -> CheckResult:
    """Commit ``base`` on main, then on a branch apply ``moves`` and ``head`` (None deletes),
    and ``then``. ``binary_from_git=False``/``all_binary=True``: as if git had said otherwise."""
    settings = ProtectedSettings() if markers is None else ProtectedSettings(markers=markers)
    zoned = {"zones": zones or {}, "zone_owners": zone_owners or {}}
    with repo.pull_request_context(base, head, settings, moves=moves, then=then, **zoned) as ctx:
        if not binary_from_git or all_binary:  # the check must decide from the bytes
            ctx = replace(ctx, changes=tuple(replace(c, binary=all_binary) for c in ctx.changes))
        return ProtectedCheck().run(ctx)


def only(result: CheckResult, kind: str) -> Finding:
    assert [f.kind for f in result.findings] == [kind], result.findings
    return result.findings[0]


# --- sources ---------------------------------------------------------------------------------

TRAIN = """\
import torch


def load_weights(model):
    state = torch.load("/data/ckpt/v3.pt", weights_only=True)  # NO_REFAC: cluster path
    model.load_state_dict(state)
    return model
"""

LOSS = """\
import torch


# NO_REFAC
def scaled_loss(logits, targets):
    loss = torch.nn.functional.cross_entropy(logits, targets)
    return loss * 0.5


def other():
    return 1
"""

CONFIG = """\
model:
  hidden: 512
  # NO_REFAC
  dropout: 0.1
train:
  lr: 0.001  # NO_REFAC
  epochs: 10
"""


# --- P1: a protected statement is edited -----------------------------------------------------


def test_editing_a_trailing_marked_path_blocks_with_marker_location_and_diff(repo: GitRepo) -> None:
    result = pull_request(repo, {"train.py": TRAIN}, {"train.py": TRAIN.replace("v3", "v4")})

    finding = only(result, "protected-line-changed")
    assert result.outcome is Outcome.FAIL
    assert finding.severity is Severity.BLOCKING
    assert (finding.file, finding.line) == ("train.py", 5)
    assert finding.message == (
        '`state = torch.load("/data/ckpt/v3.pt", weights_only=True)` (`train.py:5`) is protected '
        "by `# NO_REFAC`; this PR changes it. Revert the change, or remove the protection in a "
        "separate reviewed PR (or ask an owner)."
    )
    assert finding.details is not None
    assert '-    state = torch.load("/data/ckpt/v3.pt"' in finding.details
    assert '+    state = torch.load("/data/ckpt/v4.pt"' in finding.details
    assert result.summary == "1 protected line changed"


def test_editing_inside_an_own_line_marked_function_body_blocks(repo: GitRepo) -> None:
    result = pull_request(repo, {"loss.py": LOSS}, {"loss.py": LOSS.replace("0.5", "0.25")})

    finding = only(result, "protected-line-changed")
    assert (finding.file, finding.line) == ("loss.py", 4)
    assert finding.message.startswith(
        "`def scaled_loss` (`loss.py:4`) is protected by `# NO_REFAC`; this PR changes it. "
    )
    assert finding.details is not None and "+    return loss * 0.25" in finding.details


def test_editing_one_of_two_same_named_protected_methods_names_the_right_one(
    repo: GitRepo,
) -> None:
    source = """\
class Encoder:
    # NO_REFAC
    def forward(self, x):
        return x * 2


class Decoder:
    # NO_REFAC
    def forward(self, x):
        return x * 3
"""
    result = pull_request(repo, {"m.py": source}, {"m.py": source.replace("x * 3", "x * 4")})

    finding = only(result, "protected-line-changed")
    assert finding.line == 8
    assert finding.message.startswith("`def forward` (`m.py:8`) is protected")


def test_editing_the_decorator_of_a_protected_function_blocks(repo: GitRepo) -> None:
    source = (
        "import torch\n\n\n# NO_REFAC\n@torch.no_grad()\ndef ema(avg, p):\n    avg.lerp_(p, 0.1)\n"
    )
    head = source.replace("no_grad", "enable_grad")
    result = pull_request(repo, {"ema.py": source}, {"ema.py": head})

    finding = only(result, "protected-line-changed")
    assert finding.line == 4
    assert finding.message.startswith("`def ema` (`ema.py:4`) is protected")
    assert finding.details is not None and "+@torch.enable_grad()" in finding.details


def test_dont_touch_marker_protects_too(repo: GitRepo) -> None:
    source = "LR = 3e-4  # DON'T TOUCH\nEPOCHS = 3\n"
    result = pull_request(repo, {"hp.py": source}, {"hp.py": source.replace("3e-4", "1e-3")})

    assert only(result, "protected-line-changed").message.startswith(
        "`LR = 3e-4` (`hp.py:1`) is protected by `# DON'T TOUCH`; this PR changes it."
    )


def test_custom_markers_from_settings_replace_the_defaults(repo: GitRepo) -> None:
    source = "SEED = 0  # KEEP\nSTEPS = 10  # NO_REFAC\n"
    head = source.replace("0  #", "1  #").replace("10", "20")
    result = pull_request(repo, {"hp.py": source}, {"hp.py": head}, markers=("KEEP",))

    assert only(result, "protected-line-changed").line == 1


def test_editing_a_protected_line_in_a_file_that_no_longer_parses_still_blocks(
    repo: GitRepo,
) -> None:
    broken = LOSS.replace("return loss * 0.5", "return loss * (0.25")
    result = pull_request(repo, {"loss.py": LOSS}, {"loss.py": broken})

    kinds = [(f.kind, f.severity) for f in result.findings]
    assert kinds == [
        ("protected-line-changed", Severity.BLOCKING),
        ("protected-parsed-as-text", Severity.NOTE),
    ]
    assert "does not parse as Python at head" in result.findings[1].message


def test_syntax_error_elsewhere_leaves_an_unchanged_protected_function_alone(
    repo: GitRepo,
) -> None:
    broken = LOSS.replace("return 1", "return (1")
    result = pull_request(repo, {"loss.py": LOSS}, {"loss.py": broken})

    assert result.outcome is Outcome.PASS
    assert [f.kind for f in result.findings] == ["protected-parsed-as-text"]


@pytest.mark.parametrize(
    ("edit", "line", "name"),
    [(("0.1", "0.2"), 3, "dropout: 0.1"), (("0.001", "0.01"), 6, "lr: 0.001")],
    ids=["own-line-marker", "trailing-marker"],
)
def test_editing_a_protected_yaml_line_blocks(
    repo: GitRepo, edit: tuple[str, str], line: int, name: str
) -> None:
    result = pull_request(repo, {"conf.yaml": CONFIG}, {"conf.yaml": CONFIG.replace(*edit)})

    finding = only(result, "protected-line-changed")
    assert (finding.file, finding.line) == ("conf.yaml", line)
    assert finding.message.startswith(f"`{name}` (`conf.yaml:{line}`) is protected by `# NO_REFAC`")
    assert finding.details is not None and f"+{edit[1]}" not in finding.details
    assert edit[1] in finding.details


def test_editing_a_slash_commented_protected_line_in_cuda_source_blocks(repo: GitRepo) -> None:
    source = "#include <cuda.h>\nconst float EPS = 1e-5f;  // NO_REFAC\n"
    result = pull_request(repo, {"k.cu": source}, {"k.cu": source.replace("1e-5f", "1e-6f")})

    finding = only(result, "protected-line-changed")
    assert finding.line == 2
    assert finding.message.startswith(
        "`const float EPS = 1e-5f;` (`k.cu:2`) is protected by `// NO_REFAC`; this PR changes it."
    )


# --- P2: the marker itself is removed --------------------------------------------------------


def test_deleting_only_an_own_line_marker_blocks_as_protection_removed(repo: GitRepo) -> None:
    result = pull_request(repo, {"loss.py": LOSS}, {"loss.py": LOSS.replace("# NO_REFAC\n", "")})

    finding = only(result, "protection-removed")
    assert finding.severity is Severity.BLOCKING
    assert (finding.file, finding.line) == ("loss.py", 4)
    assert finding.message == (
        "The `# NO_REFAC` marker on `def scaled_loss` (`loss.py:4`) was removed. Restore the "
        "marker; removing a protection needs its own reviewed PR (or an owner)."
    )
    assert finding.details is not None and "-# NO_REFAC" in finding.details
    assert result.outcome is Outcome.FAIL


def test_deleting_only_a_trailing_marker_blocks_as_protection_removed(repo: GitRepo) -> None:
    head = TRAIN.replace("  # NO_REFAC: cluster path", "")
    result = pull_request(repo, {"train.py": TRAIN}, {"train.py": head})

    finding = only(result, "protection-removed")
    assert finding.line == 5
    assert finding.message.startswith(
        '`# NO_REFAC` marker on `state = torch.load("/data/ckpt/v3.pt", weights_only=True)` '
        "(`train.py:5`) was removed.",
        len("The "),
    )


def test_deleting_a_yaml_marker_blocks_as_protection_removed(repo: GitRepo) -> None:
    head = CONFIG.replace("  # NO_REFAC\n", "", 1)
    result = pull_request(repo, {"conf.yaml": CONFIG}, {"conf.yaml": head})

    assert only(result, "protection-removed").line == 3


# --- P3: moved unchanged ---------------------------------------------------------------------


def test_moving_a_protected_function_unchanged_to_another_file_is_a_note(repo: GitRepo) -> None:
    function = LOSS[LOSS.index("# NO_REFAC") : LOSS.index("def other")]
    head = {
        "loss.py": LOSS.replace(function, ""),
        "losses/scaled.py": "import torch\n\n\n" + function,
    }
    result = pull_request(repo, {"loss.py": LOSS}, head)

    finding = only(result, "protected-moved")
    assert finding.severity is Severity.NOTE
    assert (finding.file, finding.line) == ("losses/scaled.py", 4)
    assert finding.message == (
        "`def scaled_loss` (`loss.py:4`) is protected by `# NO_REFAC`; it moved unchanged to "
        "`losses/scaled.py:4` and is still protected there. Nothing to do unless the move itself "
        "needs review."
    )
    assert result.outcome is Outcome.PASS


def test_moving_a_protected_function_but_dropping_its_marker_blocks(repo: GitRepo) -> None:
    function = LOSS[LOSS.index("def scaled_loss") : LOSS.index("def other")]
    head = {"loss.py": LOSS.replace("# NO_REFAC\n" + function, ""), "scaled.py": function}
    result = pull_request(repo, {"loss.py": LOSS}, head)

    assert only(result, "protection-removed").message.startswith(
        "The `# NO_REFAC` marker on `def scaled_loss` (`loss.py:4`) was removed "
        "(it is now at `scaled.py:1`)."
    )


def test_moving_a_protected_method_to_another_class_in_the_same_file_is_a_note(
    repo: GitRepo,
) -> None:
    base = "class A:\n    # NO_REFAC\n    def f(self):\n        return 1\n\n\nclass B:\n    pass\n"
    head = "class A:\n    pass\n\n\nclass B:\n    # NO_REFAC\n    def f(self):\n        return 1\n"
    result = pull_request(repo, {"ab.py": base}, {"ab.py": head})

    assert only(result, "protected-moved").line == 6


def test_renaming_a_file_with_unchanged_protected_lines_says_nothing(repo: GitRepo) -> None:
    result = pull_request(repo, {"loss.py": LOSS}, {}, moves=(("loss.py", "losses.py"),))

    assert result.findings == ()
    assert result.outcome is Outcome.PASS


# --- P4 and look-alikes: nothing to report ---------------------------------------------------


def test_black_style_reformat_of_protected_statements_is_not_a_finding(repo: GitRepo) -> None:
    base = """\
# NO_REFAC
def build(cfg):
    return make_model(cfg['layers'], cfg['hidden'], dropout=0.1, activation='gelu', norm='ln')
CKPT = load_checkpoint('/data/ckpt/v3.pt', map_location='cpu', strict=True, mmap=True)  # NO_REFAC
"""
    head = """\
# NO_REFAC
def build(cfg):
    return make_model(
        cfg["layers"],
        cfg["hidden"],
        dropout=0.1,
        activation="gelu",
        norm="ln",
    )


CKPT = load_checkpoint(
    "/data/ckpt/v3.pt", map_location="cpu", strict=True, mmap=True
)  # NO_REFAC
"""
    result = pull_request(repo, {"build.py": base}, {"build.py": head})

    assert result.findings == ()
    assert result.outcome is Outcome.PASS
    assert result.summary == "no protected line changed (2 checked in 1 file)"


def test_lines_added_above_a_protected_statement_are_not_a_finding(repo: GitRepo) -> None:
    base = {"train.py": TRAIN, "conf.yaml": CONFIG}
    head = {
        "train.py": TRAIN.replace(
            "import torch\n", "import os\nimport sys\n\nimport torch\n\nX = 1\n"
        ),
        "conf.yaml": "# tuned in March\n\n" + CONFIG,
    }
    result = pull_request(repo, base, head)

    assert result.findings == ()
    assert result.metrics == {"protected_statements": 3, "files_scanned": 2}


def test_editing_only_comments_inside_a_protected_function_is_not_a_finding(
    repo: GitRepo,
) -> None:
    head = LOSS.replace("    return loss * 0.5", "    # halve: see issue 12\n    return loss * 0.5")
    result = pull_request(repo, {"loss.py": LOSS}, {"loss.py": head})

    assert result.findings == ()


def test_an_unrelated_edit_in_the_same_file_is_not_a_finding(repo: GitRepo) -> None:
    result = pull_request(
        repo, {"loss.py": LOSS}, {"loss.py": LOSS.replace("return 1", "return 2")}
    )

    assert result.findings == ()


def test_a_marker_inside_a_string_or_a_longer_word_is_not_a_marker(repo: GitRepo) -> None:
    base = '''\
"""Mark lines with # NO_REFAC to protect them."""
BANNER = "# NO_REFAC"
DEPTH = 4  # NO_REFACTORING_PLANNED
'''
    head = base.replace("Mark lines", "Tag lines").replace('"# NO_REFAC"', '"#"').replace("4", "5")
    result = pull_request(repo, {"doc.py": base}, {"doc.py": head})

    assert result.findings == ()
    assert result.outcome is Outcome.PASS


def test_adding_a_new_marker_is_only_a_note(repo: GitRepo) -> None:
    head = LOSS.replace("def other", "# NO_REFAC\ndef other")
    result = pull_request(repo, {"loss.py": LOSS}, {"loss.py": head})

    finding = only(result, "protection-added")
    assert finding.line == 10
    assert finding.message == (
        "New protection: `# NO_REFAC` on `def other` (`loss.py:10`); later changes to it will "
        "block."
    )
    assert result.outcome is Outcome.PASS


# --- deletions, zones, awkward files ---------------------------------------------------------


def test_deleting_a_file_with_protected_lines_blocks(repo: GitRepo) -> None:
    result = pull_request(repo, {"loss.py": LOSS, "train.py": TRAIN}, {"loss.py": None})

    finding = only(result, "protected-line-deleted")
    assert (finding.file, finding.line, finding.severity) == ("loss.py", 4, Severity.BLOCKING)
    assert finding.message == (
        "`loss.py` held a protected statement (`def scaled_loss` at line 4), and this PR deletes "
        "the file. Keep it (moving it unchanged to another file is fine), or remove the "
        "protection in a separate reviewed PR (or ask an owner)."
    )
    assert result.summary == "1 protected file deleted"


ELEVEN = (
    "".join(f"# NO_REFAC\ndef step_{i}(x):\n    return x + {i}\n\n\n" for i in range(10))
    + "SEED = 1234  # NO_REFAC\n"
)


def test_a_deleted_file_with_eleven_markers_is_one_finding_naming_the_first_three(
    repo: GitRepo,
) -> None:
    result = pull_request(
        repo, {"legacy/model.py": ELEVEN, "keep.py": "x = 1\n"}, {"legacy/model.py": None}
    )

    finding = only(result, "protected-line-deleted")
    assert (finding.file, finding.line, finding.revision) == ("legacy/model.py", 1, "base")
    assert finding.message == (
        "`legacy/model.py` held 11 protected statements (`def step_0` at line 1, `def step_1` "
        "at line 6, `def step_2` at line 11 and 8 more), and this PR deletes the file. Keep them "
        "(moving them unchanged to another file is fine), or remove the protections in a "
        "separate reviewed PR (or ask an owner)."
    )
    assert finding.details is not None and finding.details_lang == "text"
    listed = finding.details.splitlines()
    assert listed[:2] == ["line 1: def step_0", "line 6: def step_1"]
    assert listed[-1] == "line 51: SEED = 1234"
    assert len(listed) == 11
    assert result.summary == "1 protected file deleted"
    assert result.outcome is Outcome.FAIL


def test_two_deleted_files_are_two_findings_and_a_yaml_file_held_lines(repo: GitRepo) -> None:
    result = pull_request(
        repo, {"loss.py": LOSS, "conf.yaml": CONFIG}, {"loss.py": None, "conf.yaml": None}
    )

    deleted = [f for f in result.findings if f.kind == "protected-line-deleted"]
    assert [f.file for f in deleted] == ["conf.yaml", "loss.py"]
    assert deleted[0].message.startswith(
        "`conf.yaml` held 2 protected lines (`dropout: 0.1` at line 3 and `lr: 0.001` at "
        "line 6), and this PR deletes the file."
    )
    assert result.summary == "2 protected files deleted"


def test_a_deleted_file_lists_only_what_did_not_move_elsewhere(repo: GitRepo) -> None:
    function = LOSS[LOSS.index("# NO_REFAC") : LOSS.index("def other")]
    filler = "".join(f"def helper_{i}():\n    return {i}\n\n\n" for i in range(20))
    base = {"loss.py": LOSS + "\nEPS = 1e-8  # NO_REFAC\n" + filler}
    head = {"loss.py": None, "losses/scaled.py": "import math\n\n\n" + function}
    result = pull_request(repo, base, head)

    kinds = [(f.kind, f.file) for f in result.findings]
    assert kinds == [("protected-line-deleted", "loss.py"), ("protected-moved", "losses/scaled.py")]
    assert result.findings[0].message.startswith(
        "`loss.py` held a protected statement (`EPS = 1e-8` at line 13), and this PR deletes"
    )


def test_a_file_deleted_after_moving_everything_protected_out_is_not_a_deletion(
    repo: GitRepo,
) -> None:
    function = LOSS[LOSS.index("# NO_REFAC") : LOSS.index("def other")]
    filler = "".join(f"def helper_{i}():\n    return {i}\n\n\n" for i in range(20))
    head = {"loss.py": None, "losses/scaled.py": "import math\n\n\n" + function}
    result = pull_request(repo, {"loss.py": LOSS + filler}, head)

    assert only(result, "protected-moved").file == "losses/scaled.py"
    assert result.outcome is Outcome.PASS


def test_a_touched_protected_zone_without_owners_says_how_to_name_them(repo: GitRepo) -> None:
    zones = {"model-core": ("models/encoder.py",)}
    base = {"models/encoder.py": "WIDTH = 4\n"}
    result = pull_request(repo, base, {"models/encoder.py": "WIDTH = 8\n"}, zones=zones)

    finding = only(result, "zone-touched")
    assert finding.message == (
        "`models/encoder.py` is in protected zone `model-core`; review it with care (add "
        "`owners:` to the zone to name who decides)."
    )
    assert result.outcome is Outcome.PASS


def test_a_touched_protected_zone_with_owners_names_them(repo: GitRepo) -> None:
    paths = tuple(f"models/m{i}.py" for i in range(5))
    zones = {"model-core": paths}
    result = pull_request(
        repo,
        dict.fromkeys(paths, "WIDTH = 4\n"),
        dict.fromkeys(paths, "WIDTH = 8\n"),
        zones=zones,
        zone_owners={"model-core": ("@alice", "@ml-team")},
    )

    assert only(result, "zone-touched").message == (
        "`models/m0.py`, `models/m1.py`, `models/m2.py` and 2 more files are in protected zone "
        "`model-core`; ask an owner (`@alice`, `@ml-team`) to review."
    )


def test_a_zone_without_owners_with_several_paths_asks_to_review_them(repo: GitRepo) -> None:
    paths = ("z/a.py", "z/b.py")
    result = pull_request(
        repo, dict.fromkeys(paths, "A = 1\n"), dict.fromkeys(paths, "A = 2\n"), zones={"z": paths}
    )

    assert only(result, "zone-touched").message == (
        "`z/a.py` and `z/b.py` are in protected zone `z`; review them with care (add `owners:` "
        "to the zone to name who decides)."
    )


@pytest.mark.parametrize(
    ("count", "named"),
    [
        (2, "`z/m0.py` and `z/m1.py` are"),
        (3, "`z/m0.py`, `z/m1.py` and `z/m2.py` are"),
        (4, "`z/m0.py`, `z/m1.py`, `z/m2.py` and 1 more file are"),
    ],
)
def test_a_zone_note_names_its_paths_in_plain_english(
    repo: GitRepo, count: int, named: str
) -> None:
    paths = tuple(f"z/m{i}.py" for i in range(count))
    result = pull_request(
        repo,
        dict.fromkeys(paths, "A = 1\n"),
        dict.fromkeys(paths, "A = 2\n"),
        zones={"core": paths},
        zone_owners={"core": ("@bob",)},
    )

    assert only(result, "zone-touched").message == (
        f"{named} in protected zone `core`; ask an owner (`@bob`) to review."
    )


@pytest.mark.parametrize("binary_from_git", [True, False], ids=["flagged-by-git", "sniffed"])
def test_binary_files_in_the_diff_are_skipped_quietly(repo: GitRepo, binary_from_git: bool) -> None:
    blob = b"\x80\x02NO_REFAC\x00\x01\xff"
    result = pull_request(
        repo, {"w.pt": blob}, {"w.pt": blob + b"\x00\x02"}, binary_from_git=binary_from_git
    )

    assert result.findings == ()
    assert result.outcome is Outcome.PASS


def test_protected_files_unreadable_at_base_block_rather_than_pass(repo: GitRepo) -> None:
    latin1 = "X = 'caf\xe9'  # NO_REFAC\n".encode("latin-1")
    huge = "# NO_REFAC\n" + "x = 1\n" * 400_000
    result = pull_request(
        repo, {"a.py": latin1, "big.py": huge}, {"a.py": latin1 + b"Y = 1\n", "big.py": huge + "\n"}
    )

    kinds = [(f.kind, f.severity) for f in result.findings]
    assert kinds == [("protected-file-unreadable", Severity.BLOCKING)] * 2
    assert "mentions a marker at base, but it is not UTF-8 text (byte 8)" in (
        result.findings[0].message
    )
    assert "over the 2 MB limit there" in result.findings[1].message
    assert result.outcome is Outcome.FAIL
    assert result.summary == "2 protected files unreadable"


def test_a_new_file_that_cannot_be_read_is_only_noted(repo: GitRepo) -> None:
    latin1 = "X = 'caf\xe9'  # NO_REFAC\n".encode("latin-1")
    result = pull_request(repo, {"other.py": "Y = 1\n"}, {"a.py": latin1})

    finding = only(result, "protected-file-skipped")
    assert "not UTF-8 text (byte 8) at head" in finding.message
    assert result.outcome is Outcome.PASS


SLASH_LANGUAGES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh", ".js",
                   ".jsx", ".mjs", ".ts", ".tsx", ".java", ".go", ".rs", ".kt", ".scala",
                   ".swift", ".proto")  # fmt: skip


def test_a_slash_comment_marker_protects_its_line_in_every_such_language(repo: GitRepo) -> None:
    """`// NO_REFAC` is a marker in C, CUDA, JS/TS, Java, Go, Rust, Kotlin, Scala, Swift and
    protobuf files; there `#` starts a preprocessor line, not a comment."""
    base = {f"src/k{suffix}": "int keep = 3; // NO_REFAC\n#define NO_REFAC 1\n"
            for suffix in SLASH_LANGUAGES}  # fmt: skip
    head = {path: "int keep = 4; // NO_REFAC\n#define NO_REFAC 2\n" for path in base}
    result = pull_request(repo, base, head)
    blocked = {f.file for f in result.findings if f.severity is Severity.BLOCKING}
    assert blocked == set(base)
    assert {f.line for f in result.findings if f.severity is Severity.BLOCKING} == {1}


@pytest.mark.parametrize("suffix", [".md", ".markdown", ".mdx", ".rst", ".MD"])
def test_a_heading_that_reads_like_a_marker_protects_nothing_in_docs(
    repo: GitRepo, suffix: str
) -> None:
    result = pull_request(
        repo,
        {f"docs/a{suffix}": "# NO_REFAC\nold text\n"},
        {f"docs/a{suffix}": "# NO_REFAC\nnew\n"},
    )
    assert result.outcome is Outcome.PASS and not result.findings


def test_a_stub_file_is_read_as_python_so_a_reformat_is_no_change(repo: GitRepo) -> None:
    base = {"pkg/api.pyi": "def f(x: str = 'a') -> int: ...  # NO_REFAC\n"}
    head = {"pkg/api.pyi": 'def f(x: str = "a") -> int: ...  # NO_REFAC\n'}  # same syntax tree
    assert pull_request(repo, base, head).outcome is Outcome.PASS


# --- what each finding shows: its diff in the file's own line numbers, and where it went ----


def test_an_edited_statement_shows_its_diff_numbered_as_lines_of_its_file(repo: GitRepo) -> None:
    head = {"loss.py": LOSS.replace("loss * 0.5", "loss * 0.25")}
    finding = only(pull_request(repo, {"loss.py": LOSS}, head), "protected-line-changed")
    assert (finding.revision, finding.line) == ("base", 4)
    assert finding.details is not None
    # The hunk is renumbered from the statement's own lines to the file's: marker to `return`.
    assert finding.details.splitlines()[2] == "@@ -4,4 +4,4 @@"
    assert "-    return loss * 0.5" in finding.details
    assert "+    return loss * 0.25" in finding.details


def test_a_protected_statement_removed_from_a_file_that_stays_is_a_change_there(
    repo: GitRepo,
) -> None:
    function = LOSS[LOSS.index("# NO_REFAC") : LOSS.index("def other")]
    finding = only(
        pull_request(repo, {"loss.py": LOSS}, {"loss.py": LOSS.replace(function, "")}),
        "protected-line-changed",
    )
    assert finding.message.startswith(
        "`def scaled_loss` (`loss.py:4`) is protected by `# NO_REFAC`; this PR changes or "
        "removes it."
    )
    assert finding.details is not None and "-def scaled_loss(logits, targets):" in finding.details


def test_a_statement_edited_in_a_renamed_file_says_where_it_is_now(repo: GitRepo) -> None:
    head = {"losses.py": LOSS.replace("loss * 0.5", "loss * 0.25")}
    result = pull_request(repo, {"loss.py": LOSS}, head, moves=(("loss.py", "losses.py"),))
    finding = only(result, "protected-line-changed")
    assert "; this PR changes it (it is now at `losses.py:4`)." in finding.message


def test_a_rewrapped_statement_is_shown_at_head_with_its_diff(repo: GitRepo) -> None:
    base = "def step(x):\n    y = f(x)  # NO_REFAC\n    return y\n"
    head = "def step(x):\n    if x:\n        y = f(x)  # NO_REFAC\n    return y\n"
    finding = only(pull_request(repo, {"s.py": base}, {"s.py": head}), "protected-context-changed")
    assert (finding.file, finding.line, finding.revision) == ("s.py", 3, "head")
    assert finding.details is not None and "+        y = f(x)  # NO_REFAC" in finding.details

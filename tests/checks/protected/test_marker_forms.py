"""Nothing the user marked is silently unprotected (issue 18; SCENARIOS P6-P8).

A marker that starts a `#` segment inside a comment protects like one at its start; an own-line
marker with no statement after it in its block guards the statement above; a marker word
anywhere else in a comment, and a marker that still protects nothing, are warnings naming the
line. Quoted mentions (`# NO_REFAC` in backticks or double quotes) stay silent.
"""

from __future__ import annotations

import pytest
from gradgate.checks.base import Outcome, Severity

from tests.checks.protected.test_check import only, pull_request
from tests.gitrepo import GitRepo

# --- P6: a marker that starts a `#` segment inside a comment ---------------------------------

TRAIN = "max_iters = 600000\nlearning_rate = 6e-4 # max learning rate  # NO_REFAC\nbatch = 12\n"


def test_p6_a_marker_appended_to_an_existing_python_comment_protects(repo: GitRepo) -> None:
    result = pull_request(repo, {"train.py": TRAIN}, {"train.py": TRAIN.replace("6e-4", "3e-4")})

    finding = only(result, "protected-line-changed")
    assert (finding.file, finding.line) == ("train.py", 2)
    assert result.summary == "1 protected line changed"


def test_p6_an_edit_beside_the_segment_marked_line_is_not_a_finding(repo: GitRepo) -> None:
    result = pull_request(repo, {"train.py": TRAIN}, {"train.py": TRAIN.replace("12", "16")})

    assert result.findings == () and result.outcome is Outcome.PASS


def test_p6_a_marker_appended_to_a_yaml_comment_protects(repo: GitRepo) -> None:
    config = "lr: 6e-4  # max learning rate  # NO_REFAC\nbatch: 12\n"
    result = pull_request(repo, {"c.yaml": config}, {"c.yaml": config.replace("6e-4", "1e-3")})

    assert only(result, "protected-line-changed").line == 1


# --- P7: an own-line marker with no statement after it in its block --------------------------

RUN_SH = """\
#!/bin/bash
set -e
torchrun --standalone --nproc_per_node=8 train.py config/train_gpt2.py
# DON'T TOUCH THIS LINE. IT'S NOT MAGIC. IT'S JUST WHAT WORKED LAST TIME.
"""


def test_p7_a_last_line_marker_of_run_sh_guards_the_command_above(repo: GitRepo) -> None:
    head = RUN_SH.replace("nproc_per_node=8", "nproc_per_node=4")
    result = pull_request(repo, {"run.sh": RUN_SH}, {"run.sh": head})

    finding = only(result, "protected-line-changed")
    assert (finding.file, finding.line) == ("run.sh", 4)
    assert finding.message.startswith("`torchrun --standalone --nproc_per_node=8 train.py")
    assert finding.details is not None and "+torchrun --standalone --nproc_per_node=4" in (
        finding.details
    )


def test_p7_an_edit_above_the_guarded_command_is_not_a_finding(repo: GitRepo) -> None:
    result = pull_request(repo, {"run.sh": RUN_SH}, {"run.sh": RUN_SH.replace("-e", "-eu")})

    assert result.findings == ()


STEP = """\
def step(model, opt, batch):
    loss = model(batch)
    loss.backward()
    opt.step()
    # NO_REFAC: the order above is what worked


def evaluate(model):
    return model.eval()
"""


def test_p7_a_marker_closing_a_python_block_guards_the_statement_above(repo: GitRepo) -> None:
    result = pull_request(repo, {"step.py": STEP}, {"step.py": STEP.replace("opt.step()", "pass")})

    finding = only(result, "protected-line-changed")
    assert finding.line == 5 and finding.message.startswith("`opt.step()` (`step.py:5`)")


def test_p7_a_statement_slipped_in_under_a_closing_marker_blocks(repo: GitRepo) -> None:
    head = STEP.replace("    opt.step()\n", "    opt.step()\n    opt.zero_grad()\n")
    result = pull_request(repo, {"step.py": STEP}, {"step.py": head})

    assert result.outcome is Outcome.FAIL  # the marker now guards another statement


def test_p7_the_statement_after_the_block_is_not_what_it_guards(repo: GitRepo) -> None:
    head = STEP.replace("model.eval()", "model.train(False)")
    result = pull_request(repo, {"step.py": STEP}, {"step.py": head})

    assert result.findings == ()


def test_a_marker_above_a_dedented_statement_at_its_own_depth_still_guards_it(
    repo: GitRepo,
) -> None:
    base = "def f():\n    return 1\n\n\n# NO_REFAC\nLR = 0.1\n"
    result = pull_request(repo, {"hp.py": base}, {"hp.py": base.replace("0.1", "0.2")})

    assert only(result, "protected-line-changed").line == 5


# --- P8: a marker word elsewhere in a comment is a warning --------------------------------


def test_p8_a_marker_word_mid_comment_is_a_warning_naming_the_line(repo: GitRepo) -> None:
    base = "# see NO_REFAC policy\nLR = 0.1\nBATCH = 32\n"
    result = pull_request(repo, {"hp.py": base}, {"hp.py": base.replace("32", "64")})

    finding = only(result, "protected-marker-lookalike")
    assert finding.severity is Severity.WARNING and result.outcome is Outcome.WARN
    assert (finding.file, finding.line) == ("hp.py", 1)
    assert "`hp.py:1` has `NO_REFAC` in a comment: it looks like a marker but is not one" in (
        finding.message
    )
    assert "`# NO_REFAC` as the first word of the comment" in finding.message


def test_p8_in_a_shell_file_too(repo: GitRepo) -> None:
    base = "python train.py  # keep, DON'T TOUCH\n"
    result = pull_request(repo, {"run.sh": base}, {"run.sh": base.replace("train", "fit")})

    finding = only(result, "protected-marker-lookalike")
    assert finding.line == 1 and "`# DON'T TOUCH`" in finding.message


def test_many_lookalikes_in_one_file_are_one_warning_listing_the_lines(repo: GitRepo) -> None:
    base = "".join(f"X{i} = {i}  # was NO_REFAC\n" for i in range(6))
    result = pull_request(repo, {"hp.py": base}, {"hp.py": base + "Y = 1\n"})

    finding = only(result, "protected-marker-lookalike")
    assert finding.line == 1 and "and 5 other lines (2, 3, 4, 5, 6)" in finding.message


@pytest.mark.parametrize(
    "comment",
    [
        "# Mark lines that must not change with `# NO_REFAC`.",
        '# markers: ["NO_REFAC", "DON\'T TOUCH"]',
        "# NO_REFAC_POLICY applies here",
        "# no_refac is not the marker's case",
    ],
)
def test_quoted_mentions_and_other_words_are_silent(repo: GitRepo, comment: str) -> None:
    base = f"{comment}\nLR = 0.1\n"
    result = pull_request(repo, {"hp.py": base}, {"hp.py": base.replace("0.1", "0.2")})

    assert result.findings == ()


def test_a_lookalike_in_a_string_is_silent(repo: GitRepo) -> None:
    base = 'HELP = "see NO_REFAC policy"\nLR = 0.1\n'
    result = pull_request(repo, {"hp.py": base}, {"hp.py": base.replace("0.1", "0.2")})

    assert result.findings == ()


# --- a marker that still protects nothing is a warning ------------------------------------


def test_a_marker_that_protects_nothing_is_a_warning(repo: GitRepo) -> None:
    result = pull_request(repo, {"env.sh": "#!/bin/sh\n"}, {"env.sh": "#!/bin/sh\n# NO_REFAC\n"})

    finding = only(result, "protected-marker-unused")
    assert finding.severity is Severity.WARNING
    assert (finding.file, finding.line) == ("env.sh", 2)
    assert "`# NO_REFAC` at `env.sh:2` protects nothing" in finding.message

"""Issue 20, point 5: what the model did not exercise, and factories with named variants.

A real repo with an attention module whose `flash` branch the default model never takes; each
test is a PR against it, checked end to end (both revisions in the sandbox, the diff from git).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gradgate.bot.git.repository import GitRepository
from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.gradient.words import untested_words
from gradgate.checks.model.spec import ModelSpec

from tests.checks.gradient.revisions import SETTINGS, Revisions, commit_two
from tests.gitrepo import GitRepo

ATTEND = """\
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, flash=False):
        super().__init__()
        self.flash = flash
        self.qkv = nn.Linear(8, 24)
        self.gate = nn.Linear(8, 8)
        self.out = nn.Linear(8, 8)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if self.flash:
            # the fused path
            weights = torch.softmax(q @ k.T, dim=-1)
            return self.out(weights @ v) + self.gate(x)
        weights = torch.softmax(q @ k.T / 8**0.5, dim=-1)
        return self.out(weights @ v)


def build():
    torch.manual_seed(0)
    return Attention(), torch.randn(4, 8)


def build_variants():
    torch.manual_seed(0)
    x = torch.randn(4, 8)
    return {"default": (Attention(), x), "flash": (Attention(flash=True), x)}
"""


def run(
    tmp_path: Path,
    head: dict[str, str],
    *,
    entry: str = "attend.py:build",
    zone: tuple[str, ...] = (),
    base: str = ATTEND,
) -> CheckResult:
    revisions = commit_two(GitRepo(tmp_path / "repo"), {"attend.py": base}, head)
    return check(revisions, entry=entry, zone=zone)


def check(revisions: Revisions, *, entry: str, zone: tuple[str, ...] = ()) -> CheckResult:
    changes = GitRepository(revisions.repo.root).changes(revisions.base, revisions.head)
    ctx = replace(
        revisions.context(SETTINGS, ModelSpec(entrypoint=entry)),
        changes=changes,
        paths_requiring={"gradient": frozenset(zone)},
    )
    return GradientCheck().run(ctx)


def untested(result: CheckResult) -> list[Finding]:
    return [f for f in result.findings if f.kind == "gradient-untested"]


def line_of(text: str, code: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if code in line)


def test_a_change_to_a_branch_the_model_never_takes_is_a_warning_naming_file_and_range(
    tmp_path: Path,
) -> None:
    head = ATTEND.replace("q @ k.T, dim=-1)", "q @ k.T * 2, dim=-1)").replace(
        "self.out(weights @ v) + self.gate(x)", "self.out(weights @ v) + 2 * self.gate(x)"
    )
    kernels = "import torch\n\n\ndef fused(q, k, v):\n    return torch.softmax(q @ k.T, -1) @ v\n"
    script = "import attend\n\nprint(attend.build())\n"
    files = {"attend.py": head, "kernels.py": kernels, "train.py": script}

    result = run(tmp_path, files, zone=("attend.py", "kernels.py"))

    first = line_of(head, "q @ k.T * 2")
    assert result.outcome is Outcome.WARN  # a warning never fails the gate
    # One line per PR (issue 36), naming the flag that guards the lines; train.py: not the
    # model's, in no zone.
    finding, note = untested(result)
    assert finding.severity is Severity.WARNING and finding.line == first
    assert finding.file == "attend.py"
    assert finding.message.startswith(
        f"the model did not run `attend.py:{first}–{first + 1}` (under `flash`), changed by "
        "this PR: the gradient check did not test them. To cover them, have the factory return "
        "a variant with `flash` set so that they run"
    )
    assert finding.details is not None and finding.details_lang == "python"
    assert '"default": (model, inputs),' in finding.details
    assert '"flash": (flash, inputs),' in finding.details
    # a module never imported, in a zone that requires the check: its function's body (module
    # level code, imports and `def` lines, counts only as code that runs at import). Nothing
    # the check can name turns it on, so it is a note, not advice to add a variant.
    assert note.severity is Severity.NOTE
    assert note.message.startswith(
        "the model did not run `kernels.py:4–5`, changed by this PR, and"
    )
    assert result.metrics["changed_lines_ran"] == 0
    report = Report(verdict=verdict_for([result]), results=(result,))
    markdown = render(report, "markdown")
    assert (
        "The model ran 0 of the 4 changed lines of code in the model's Python files (those it "
        "imports, or a zone's)." in markdown
    )
    assert "```python\n  # The gradient check builds and checks each variant" in markdown
    assert "  changed code that ran 0 of 4 lines" in render(report, "text")


def test_a_change_to_lines_the_model_ran_gets_no_warning(tmp_path: Path) -> None:
    head = ATTEND.replace("q @ k.T / 8**0.5, dim=-1)", "q @ k.T / 4, dim=-1)")

    result = run(tmp_path, {"attend.py": head})

    assert result.outcome is Outcome.PASS
    assert untested(result) == []
    assert result.metrics["changed_lines_ran"] == result.metrics["changed_lines_code"] == 1


def test_a_comment_and_docstring_change_in_the_branch_gets_no_warning(tmp_path: Path) -> None:
    docstring = '        """Attention over\n        the batch."""\n'
    head = ATTEND.replace("# the fused path", "# the fused path, as FlashAttention does\n"
                          "            # (one kernel)").replace(
        "    def forward(self, x):\n", "    def forward(self, x):\n" + docstring)  # fmt: skip

    result = run(tmp_path, {"attend.py": head})

    assert untested(result) == []
    assert result.outcome is Outcome.PASS


def test_each_variant_is_checked_and_a_regression_in_the_second_names_it(
    tmp_path: Path,
) -> None:
    head = ATTEND.replace("+ self.gate(x)", "+ self.gate(x).detach()")

    result = run(tmp_path, {"attend.py": head}, entry="attend.py:build_variants")

    assert result.outcome is Outcome.FAIL
    (blocking,) = [f for f in result.findings if f.severity is Severity.BLOCKING]
    assert blocking.message.startswith("In variant `flash`: `gate.*` (2 parameters) learned")
    assert "detached" in blocking.message
    assert blocking.line == line_of(head, ".detach()")
    assert result.extra["variants"] == ["default", "flash"]
    markdown = render(Report(verdict=verdict_for([result]), results=(result,)), "markdown")
    assert "The factory's variants, each checked at base and head: `default`, `flash`." in markdown
    # `gate` never runs in `default`: dead at both revisions there, a note that says so
    notes = [f.message for f in result.findings if f.severity is Severity.NOTE]
    assert any(m.startswith("In variant `default`: `gate.*`") for m in notes)
    # the changed line ran in `flash`: coverage is the union over the variants
    assert untested(result) == []


def test_a_variant_that_cannot_be_used_is_an_error_naming_it(tmp_path: Path) -> None:
    factory = (
        "\n\ndef made():\n    x = torch.randn(4, 8)\n"
        '    return {"default": (Attention(), x), "flash": (Attention(flash=True), x, 3)}\n'
    )
    source = ATTEND + factory
    head = source.replace("/ 8**0.5", "/ 4")

    result = run(tmp_path, {"attend.py": head}, entry="attend.py:made", base=source)

    assert result.outcome is Outcome.ERROR
    (error,) = result.findings
    assert "`attend.py:made` at base, variant `flash`, returned a tuple of 3 items" in error.message


def test_the_warning_names_every_range_of_a_file_once_and_says_it_or_them() -> None:
    one = untested_words([("m/attend.py", [(12, 12)], [])], [])
    many = untested_words(
        [("m/attend.py", [(12, 14), (30, 30)], ["flash"]), ("m/rope.py", [(3, 3)], [])],
        ["default", "fast"],
    )

    assert one.startswith(
        "the model did not run `m/attend.py:12`, changed by this PR: the gradient check did "
        "not test it. To cover it, have the factory return a variant that runs it"
    )
    assert many.startswith(
        "none of the model's variants (`default`, `fast`) ran `m/attend.py:12–14, 30` (under "
        "`flash`), `m/rope.py:3`, changed by this PR"
    )
    assert "To cover them, have the factory return a variant with `flash` set so that" in many
    both = untested_words([("a.py", [(1, 1)], ["flash"]), ("a.py", [(5, 5)], ["not flash"])], [])
    assert "a variant with `flash` set so that they run" in both  # never both set and off


def test_parameters_dead_at_both_revisions_in_code_the_pr_left_alone_are_only_counted(
    tmp_path: Path,
) -> None:
    # Issue 36: `gate` never runs in `default`, on every PR alike; a PR that changes no line of
    # its module gets no note about it, and the summary counts it.
    head = ATTEND.replace(
        "def build():\n    torch.manual_seed(0)", "def build():\n    torch.manual_seed(1)"
    )

    result = run(tmp_path, {"attend.py": head}, entry="attend.py:build_variants")

    assert [f for f in result.findings if f.kind == "gradient-still-dead"] == []
    assert result.outcome is Outcome.PASS
    assert result.summary.endswith(
        "; 1 parameter group dead at base too, in code this PR did not change"
    )

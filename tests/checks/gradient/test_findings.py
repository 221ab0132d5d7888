"""Issue 20: one finding per cause, at the PR's line that explains it, named magnitudes, and
parameters that start learning at head (SCENARIOS G15, G16)."""

from __future__ import annotations

from dataclasses import replace

import yaml
from gradgate.bot.config.model import load_config
from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import CheckResult, Finding, Severity
from gradgate.checks.gradient.check import GradientCheck
from gradgate.checks.gradient.settings import AllowRule, GradientSettings

from tests.checks.gradient.revisions import PRELUDE, SETTINGS, Revisions, commit_two
from tests.gitrepo import GitRepo

BASE = (
    PRELUDE
    + """

class Block(nn.Module):
    def __init__(self, cut):
        super().__init__()
        self.cut = cut
        self.gate = nn.Parameter(torch.ones(8))
        self.norm = nn.LayerNorm(8)
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(self.norm(x))
        return x * self.gate + h


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(True) for _ in range(4)])
        self.tail = nn.ModuleList([Block(i < 3) for i in range(4)])
        self.side = nn.Linear(8, 8)

    def forward(self, x):
        for block in [*self.blocks, *self.tail]:
            x = block(x)
        return x + self.side(x.detach()).detach()


def build():
    torch.manual_seed(0)
    return Net(), torch.randn(4, 8)
"""
)
HEAD = BASE.replace(
    "return x * self.gate + h", "return x * self.gate + (h.detach() if self.cut else h)"
).replace("self.side(x.detach()).detach()", "self.side(x.detach())")


def line_of(source: str, text: str) -> int:
    (number,) = [n for n, line in enumerate(source.splitlines(), 1) if text in line]
    return number


def check(revisions: Revisions, settings: GradientSettings = SETTINGS) -> CheckResult:
    ctx = revisions.context(settings)
    changes = GitRepository(revisions.repo.root).changes(revisions.base, revisions.head)
    return GradientCheck().run(replace(ctx, changes=changes))


def of_kind(result: CheckResult, kind: str) -> list[Finding]:
    return [f for f in result.findings if f.kind == kind]


def test_repeated_blocks_are_one_finding_at_the_added_detach_and_a_gained_layer_warns(
    repo: GitRepo,
) -> None:
    result = check(commit_two(repo, {"model.py": BASE}, {"model.py": HEAD}))
    # One `.detach()`: one finding (issue 36), each repeated block named with its copies.
    (lost,) = of_kind(result, "gradient-lost-gradient")
    detach_line = line_of(HEAD, "h.detach()")
    assert lost.severity is Severity.BLOCKING
    assert (lost.file, lost.line) == ("model.py", detach_line)
    assert "it points at the `.detach()` this PR added" in lost.message
    assert lost.message.startswith(
        "`blocks.{0..3}.norm.*`, `blocks.{0..3}.proj.*` (16 parameters), in 4 blocks alike, and "
        "`tail.{0..2}.norm.*`, `tail.{0..2}.proj.*` (12 parameters), in 3 of 4 blocks alike "
        "(not `tail.3`) learned at base"
    )
    # The way through is pasteable: the allow rule reads back as the setting, and counts only
    # from the base branch (issue 34).
    assert "the rule counts only from the base branch: merge it there first" in lost.message
    assert lost.details is not None and lost.details_lang == "yaml"
    pasted = load_config(yaml.safe_dump({"always": []}) + lost.details)
    settings = pasted.settings_for("gradient")
    assert isinstance(settings, GradientSettings)
    assert [r.pattern for r in settings.allow] == [
        "blocks.*.norm.*",
        "blocks.*.proj.*",
        *(f"tail.{i}.{m}.*" for i in range(3) for m in ("norm", "proj")),
    ]

    (gained,) = of_kind(result, "gradient-gained")
    assert gained.severity is Severity.WARNING
    assert gained.message.startswith("`side.*` (2 parameters) learned nothing at base (detached)")
    assert (gained.file, gained.line) == ("model.py", line_of(HEAD, "self.side(x.detach())"))
    assert "`checks.gradient.gained`" in gained.message


def test_an_allow_rule_of_the_config_turns_the_loss_into_a_note_and_is_listed(
    repo: GitRepo,
) -> None:
    """Issue 34: what an `allow` rule accepted is in the report's list of suppressions."""
    rule = AllowRule(pattern="blocks.*", reason="the blocks are frozen on purpose")
    settings = SETTINGS.model_copy(update={"allow": (rule,)})
    result = check(commit_two(repo, {"model.py": BASE}, {"model.py": HEAD}), settings)

    notes = [f for f in of_kind(result, "gradient-lost-gradient") if f.severity is Severity.NOTE]
    assert len(notes) == 1 and "the blocks are frozen on purpose" in notes[0].message
    assert [(x.rule, x.origin, x.reason) for x in result.suppressions] == [
        (
            "allow: blocks.* (lost-gradient)",
            "config",
            "the blocks are frozen on purpose",
        )
    ]


def test_gained_can_be_set_to_block(repo: GitRepo) -> None:
    head = BASE.replace("self.side(x.detach()).detach()", "self.side(x.detach())")
    revisions = commit_two(repo, {"model.py": BASE}, {"model.py": head})
    result = check(revisions, SETTINGS.model_copy(update={"gained": "blocking"}))
    (gained,) = result.findings
    assert (gained.kind, gained.severity) == ("gradient-gained", Severity.BLOCKING)

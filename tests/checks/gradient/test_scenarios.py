"""SCENARIOS.md, gradient flow: every G-row and N1-N9, each a change between two committed
revisions of a tiny model, with the exact state of each parameter and the finding it gets.

The parameter-level rows share one model (tests/checks/gradient/combined.py: one block per
row, independent of the others) and so one pair of sandbox runs; rows that stop the whole run
(the graph cut at the output or the loss, a NaN, a crash) or need their own loss get their own.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from gradgate.bot.config.model import Config
from gradgate.bot.git.repository import GitRepository
from gradgate.bot.plan.plan import ConfigOrigin, make_plan
from gradgate.bot.report.load import report_from_json
from gradgate.bot.report.render import Report, as_json, render
from gradgate.bot.report.verdict import verdict_for
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity
from gradgate.checks.gradient.check import GradientCheck, measure
from gradgate.checks.gradient.facts import RevisionFacts
from gradgate.checks.gradient.settings import AllowRule
from gradgate.checks.model.lines import read_diff

from tests.checks.gradient import combined
from tests.checks.gradient.revisions import PRELUDE, SETTINGS, Revisions, commit_two, states
from tests.gitrepo import GitRepo
from tests.once import once

Measured = tuple[RevisionFacts, RevisionFacts]
AUTO = SETTINGS.model_copy(update={"device": "auto"})


def _combined(folder: Path) -> tuple[Revisions, Measured]:
    """The combined model's two revisions and their sandbox runs (about 12 s)."""
    revisions = commit_two(
        GitRepo(folder / "repo"), {"model.py": combined.BASE}, {"model.py": combined.HEAD}
    )
    base, head = measure(revisions.context(AUTO), AUTO)
    return revisions, (base.variants[0], head.variants[0])


@pytest.fixture(scope="module")
def _shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Revisions, Measured]:
    return once(tmp_path_factory, "gradient-combined", _combined)  # read only: one per test run


@pytest.fixture(scope="module")
def revisions(_shared: tuple[Revisions, Measured]) -> Revisions:
    return _shared[0]


@pytest.fixture(scope="module")
def measured(_shared: tuple[Revisions, Measured]) -> Measured:
    return _shared[1]


@pytest.fixture(scope="module")
def result(measured: Measured, revisions: Revisions) -> CheckResult:
    changes = GitRepository(revisions.repo.root).changes(revisions.base, revisions.head)
    ctx = replace(revisions.context(AUTO), changes=changes)
    return GradientCheck().judge(*measured, AUTO, diff=read_diff(ctx))


def about(result: CheckResult, prefix: str) -> list[Finding]:
    return [f for f in result.findings if re.search(rf"`{re.escape(prefix)}[.\[*`]", f.message)]


def under(result: CheckResult, prefix: str) -> dict[str, tuple[str | None, ...]]:
    return {n: s for n, s in states(result).items() if n.startswith(prefix + ".")}


OK = ("ok", "ok", None)
LOST_DETACHED = ("ok", "detached", "lost-gradient")
LOST_NO_GRAD = ("ok", "no-grad", "lost-gradient")

# (row, block, every parameter of the block -> (base, head, change), finding kind, pattern)
PARAMETER_ROWS = [
    ("G1", "g1", {"g1.body.weight": OK, "g1.body.bias": OK, "g1.proj.weight": LOST_DETACHED,
                  "g1.proj.bias": LOST_DETACHED}, "gradient-lost-gradient", "g1.proj.*"),
    ("G2", "g2", {"g2.body.weight": OK, "g2.body.bias": OK, "g2.aux.weight": LOST_NO_GRAD,
                  "g2.aux.bias": LOST_NO_GRAD}, "gradient-lost-gradient", "g2.aux.*"),
    ("G4", "g4", {"g4.body.weight": OK, "g4.body.bias": OK,
                  "g4.extra.weight": (None, "never-executed", "new-dead"),
                  "g4.extra.bias": (None, "never-executed", "new-dead")},
     "gradient-new-dead", "g4.extra.*"),
    ("G5", "g5", {f"g5.layers.{i}.{p}": ("ok", None, "removed") for i in (0, 1)
                  for p in ("weight", "bias")}, "gradient-unregistered", "g5.layers[0].weight"),
    ("G8", "g8", {"g8.block.0.weight": LOST_NO_GRAD, "g8.block.0.bias": LOST_NO_GRAD},
     "gradient-lost-gradient", "g8.*"),
    ("G9", "g9", {"g9.enc.weight": LOST_DETACHED, "g9.enc.bias": LOST_DETACHED,
                  "g9.dec.weight": OK, "g9.dec.bias": OK}, "gradient-lost-gradient", "g9.enc.*"),
    ("G12", "g12", {"g12.scale": ("ok", None, "became-buffer")}, "gradient-became-buffer",
     "g12.scale"),
    ("G13", "g13", {"g13.stem.weight": ("frozen", "ok", None),
                    "g13.stem.bias": ("frozen", "ok", None),
                    "g13.top.weight": ("ok", "frozen", "frozen"),
                    "g13.top.bias": ("ok", "frozen", "frozen")}, "gradient-frozen", "g13.top.*"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("block", "expected", "kind", "pattern"),
    [row[1:] for row in PARAMETER_ROWS],
    ids=[row[0] for row in PARAMETER_ROWS],
)
def test_a_gradient_regression_is_classified_and_blocks_under_its_module_prefix(
    result: CheckResult, block: str, expected: dict[str, tuple[str | None, ...]], kind: str,
    pattern: str,
) -> None:  # fmt: skip
    assert under(result, block) == expected
    blocking = [f for f in about(result, block) if f.severity is Severity.BLOCKING]
    assert [f.kind for f in blocking] == [kind]
    assert f"`{pattern}`" in blocking[0].message


def test_g1_points_at_the_detach_the_pr_added(result: CheckResult) -> None:
    (finding,) = [f for f in about(result, "g1.proj") if f.severity is Severity.BLOCKING]
    lines = combined.HEAD.splitlines()
    detach = 1 + next(i for i, line in enumerate(lines) if "self.proj(x).detach()" in line)

    assert (finding.file, finding.line, finding.revision) == ("model.py", detach, "head")
    assert "unreachable from the loss: a `.detach()`" in finding.message
    assert "it points at the `.detach()` this PR added" in finding.message


def test_g2_points_at_the_no_grad_the_pr_added(result: CheckResult) -> None:
    (finding,) = [f for f in about(result, "g2.aux") if f.severity is Severity.BLOCKING]
    lines = combined.HEAD.splitlines()
    start = lines.index("class G2(nn.Module):")
    no_grad = 1 + next(
        i for i, line in enumerate(lines) if i > start and "with torch.no_grad" in line
    )
    assert (finding.file, finding.line) == ("model.py", no_grad)


def test_g5_names_the_layers_kept_in_a_plain_list(result: CheckResult) -> None:
    (finding,) = [f for f in result.findings if f.kind == "gradient-unregistered"]
    names = re.findall(r"`([^`]+)`", finding.message.split(" them: ")[1].split(". ")[0])
    assert names == ["g5.layers[0].bias", "g5.layers[0].weight", "g5.layers[1].bias",
                     "g5.layers[1].weight"]  # fmt: skip
    assert "`nn.ModuleList`" in finding.message
    (removed,) = about(result, "g5")[1:] or [
        f for f in about(result, "g5") if f.kind.endswith("removed")
    ]
    assert removed.severity is Severity.NOTE


# (row, block, states of its parameters)
LOOK_ALIKES = [
    ("N1", "n1", {"n1.backbone.weight": ("frozen", "frozen", None),
                  "n1.backbone.bias": ("frozen", "frozen", None),
                  "n1.top.weight": OK, "n1.top.bias": OK}),
    ("N2", "n2", {"n2.body.weight": OK, "n2.body.bias": OK,
                  **{f"n2.{m}.{p}": ("never-executed", "never-executed", "still-dead")
                     for m in ("eval_only", "flagged") for p in ("weight", "bias")}}),
    ("N3", "n3", {"n3.emb.weight": OK}),  # also known as n3.dec.weight
    ("N4", "n4", {"n4.norm.weight": OK, "n4.norm.bias": OK}),  # buffers are never parameters
    ("N5", "n5", {f"n5.{n}": OK for n in (
        "base_layer.weight", "base_layer.bias", "lora_a.weight", "lora_b.weight",
        "branch.weight", "branch.bias", "alpha")}),
    ("N6", "n6", {"n6.cell.weight": OK, "n6.cell.bias": OK}),
    ("N7", "n7", {f"n7.{m}.{p}": OK for m in ("pre", "block.0", "again.0")
                  for p in ("weight", "bias")}),
    ("N8", "n8", {"n8.f.weight": OK, "n8.f.bias": OK}),
    ("N9", "n9", {"n9.f.weight": OK, "n9.f.bias": OK,
                  "n9.teacher.weight": ("frozen", "frozen", None),
                  "n9.teacher.bias": ("frozen", "frozen", None)}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("block", "expected"), [row[1:] for row in LOOK_ALIKES], ids=[row[0] for row in LOOK_ALIKES]
)
def test_a_look_alike_is_classified_and_never_blocks_or_warns(
    result: CheckResult, block: str, expected: dict[str, tuple[str | None, ...]]
) -> None:
    assert under(result, block) == expected
    assert [f for f in about(result, block) if f.severity is not Severity.NOTE] == []


def test_n2_parameters_dead_at_both_revisions_are_no_finding_only_counted(
    result: CheckResult,
) -> None:
    # Not a regression, and the PR changed no line of their modules: no note on every PR
    # (issue 36), a count in the summary.
    assert about(result, "n2") == []
    assert "; 1 parameter group dead at base too, in code this PR did not change" in (
        result.summary
    )


def test_n3_tied_weights_are_one_parameter_under_two_names(measured: Measured) -> None:
    base, head = measured
    for facts in measured:
        (tied,) = [p for p in facts.params if p.name == "n3.emb.weight"]
        assert tied.names == ("n3.emb.weight", "n3.dec.weight")
    assert "n4.calls" in head.buffers and "n4.norm.running_mean" in base.buffers


def test_n5_a_zero_initialised_gate_has_no_gradient_at_step_0_and_one_at_step_1(
    measured: Measured,
) -> None:
    head = {p.name: p for p in measured[1].params}
    assert head["n5.lora_a.weight"].norms[0] == 0.0 and head["n5.lora_a.weight"].norms[1] > 0
    assert head["n5.branch.weight"].norms[0] == 0.0 and head["n5.branch.weight"].norms[1] > 0


def test_the_verdict_fails_on_the_combined_change_and_auto_picked_the_device(
    result: CheckResult,
) -> None:
    assert result.outcome is Outcome.FAIL
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert result.extra["summary"]["device"] == expected
    assert result.summary.startswith("8 blocking findings")


def test_an_allow_rule_turns_an_intended_freeze_into_a_note_with_its_reason(
    measured: Measured,
) -> None:
    reason = "the top is frozen while the stem is tuned (PR #42)"
    settings = AUTO.model_copy(update={"allow": (AllowRule(pattern="g13.top.*", reason=reason),)})
    allowed = GradientCheck().judge(*measured, settings)

    (finding,) = about(allowed, "g13")
    assert finding.severity is Severity.NOTE
    assert reason in finding.message and "`g13.top.*`" in finding.message
    assert allowed.summary.startswith("7 blocking findings")


def test_the_comment_shows_the_model_summary_and_an_open_chart_when_there_are_findings(
    result: CheckResult,
) -> None:
    markdown = render(Report(verdict=verdict_for([result]), results=(result,)), "markdown")

    assert "| trainable parameters |" in markdown
    assert "```mermaid\nxychart-beta" in markdown
    assert '"g1", "g2", "g4", "g5"' in markdown
    assert "<details open><summary>Gradient norm per top-level module" in markdown
    text = render(Report(verdict=verdict_for([result]), results=(result,)), "text")
    assert "gradient norm per top-level module (first step), base → head:" in text
    assert "  trainable parameters  " in text


def test_the_summary_and_chart_survive_the_json_the_action_passes_between_jobs(
    result: CheckResult,
) -> None:
    config = Config.model_validate(
        {"zones": [{"name": "model", "paths": ["model.py"], "checks": ["gradient"]}]}
    )
    plan = make_plan(config, ["model.py"], changed_files=1, config_origin=ConfigOrigin.BASE)
    report = Report(verdict=verdict_for([result]), results=(result,), plan=plan)
    data = json.loads(json.dumps(as_json(report)))
    assert data["checks"][1]["extra"]["chart"]["modules"][:2] == ["g1", "g2"]

    back = report_from_json(data)

    assert as_json(back) == data
    assert "xychart-beta" in render(back, "markdown")


def test_the_chart_stays_collapsed_when_nothing_changed(measured: Measured) -> None:
    base, _ = measured
    same = GradientCheck().judge(base, replace(base, revision="head"), AUTO)
    markdown = render(Report(verdict=verdict_for([same]), results=(same,)), "markdown")

    assert same.outcome is Outcome.PASS
    assert {f.severity for f in same.findings} == {Severity.NOTE}  # N2, dead at both
    assert "<details><summary>Gradient norm per top-level module" in markdown
    assert same.summary.startswith("every parameter that learned at base still learns")


# --- rows that need a run of their own ------------------------------------------------------

MLP = (
    PRELUDE
    + """

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        h = self.body(x)
        h = self.norm(h)
        return h


def build():
    torch.manual_seed(0)
    return Net(), torch.randn(4, 8)
"""
)


def test_g3_an_output_rebound_under_no_grad_is_one_clear_finding(tmp_path: Path) -> None:
    head = MLP.replace("        h = self.norm(h)\n",
                       "        with torch.no_grad():\n            h = self.norm(h)\n")  # fmt: skip
    result = commit_two(GitRepo(tmp_path), {"model.py": MLP}, {"model.py": head}).check()

    assert states(result) == {"body.weight": LOST_DETACHED, "body.bias": LOST_DETACHED,
                              "norm.weight": LOST_NO_GRAD, "norm.bias": LOST_NO_GRAD}  # fmt: skip
    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("gradient-graph-cut", Severity.BLOCKING)
    assert finding.message.startswith("At head the model's output has no grad_fn")
    assert "4 parameters learned at base: `*`" in finding.message


def test_g6_a_nan_gradient_names_the_op_that_made_it(tmp_path: Path) -> None:
    base = (
        PRELUDE
        + """

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8, padding_idx=0)
        self.out = nn.Linear(8, 2)

    def forward(self, ids):
        e = self.emb(ids)
        return self.out(e)


def build():
    return Net(), torch.tensor([[0, 1, 2, 3]])
"""
    )
    normalise = "        e = e / e.norm(dim=-1, keepdim=True)\n"
    head = base.replace("        e = self.emb(ids)\n", "        e = self.emb(ids)\n" + normalise)
    result = commit_two(GitRepo(tmp_path), {"model.py": base}, {"model.py": head}).check()

    line = head.splitlines().index("        e = e / e.norm(dim=-1, keepdim=True)") + 1
    assert states(result)["out.weight"] == ("ok", "non-finite", "lost-gradient")
    (finding,) = result.findings
    assert finding.severity is Severity.BLOCKING
    assert f"NaN or infinity: `div` in the forward at `model.py:{line}`" in finding.message
    assert "(`e = e / e.norm(dim=-1, keepdim=True)`)" in finding.message
    assert (finding.file, finding.line) == ("model.py", line)


def test_g7_a_hook_registered_in_forward_piles_up_every_step(tmp_path: Path) -> None:
    base = (
        PRELUDE
        + """

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 8) * 0.1)
        self.out = nn.Linear(8, 8)

    def forward(self, x):
        return self.out(x @ self.w)


def build():
    torch.manual_seed(0)
    return Net(), torch.randn(4, 8)
"""
    )
    head = base.replace("        return self.out(x @ self.w)\n",
                        "        self.w.register_hook(lambda g: g * 2)\n"
                        "        return self.out(x @ self.w)\n")  # fmt: skip
    result = commit_two(GitRepo(tmp_path), {"model.py": base}, {"model.py": head}).check(steps=3)

    assert states(result) == {"w": OK, "out.weight": OK, "out.bias": OK}
    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("gradient-hooks-accumulate", Severity.BLOCKING)
    assert "`w` (1 → 2 → 3) hooks after each step" in finding.message


def test_g10_a_loss_taken_through_item_has_no_grad_fn_and_nothing_learns(tmp_path: Path) -> None:
    base = MLP.replace(
        "    return Net(), torch.randn(4, 8)\n",
        "    return {'model': Net(), 'inputs': torch.randn(4, 8),\n"
        "            'loss': lambda out: out.pow(2).mean()}\n",
    )
    head = base.replace("lambda out: out.pow(2).mean()",
                        "lambda out: torch.tensor(out.pow(2).mean().item())")  # fmt: skip
    result = commit_two(GitRepo(tmp_path), {"model.py": base}, {"model.py": head}).check()

    assert set(states(result).values()) == {LOST_DETACHED}
    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("gradient-graph-cut", Severity.BLOCKING)
    assert finding.message.startswith("At head the loss has no grad_fn although the outputs do")
    assert "`.item()`" in finding.message
    assert result.extra["summary"]["loss"] == "user"


def test_g11_untied_weights_are_a_new_parameter_and_a_warning(tmp_path: Path) -> None:
    base = (
        PRELUDE
        + """

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.head = nn.Linear(8, 16, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids):
        return self.head(self.emb(ids))


def build():
    torch.manual_seed(0)
    return LM(), torch.tensor([[1, 2, 3, 4]])
"""
    )
    untied = "self.head.weight = nn.Parameter(self.emb.weight.detach().clone())"
    head = base.replace("self.head.weight = self.emb.weight", untied)
    result = commit_two(GitRepo(tmp_path), {"model.py": base}, {"model.py": head}).check()

    assert states(result) == {"emb.weight": OK, "head.weight": (None, "ok", None)}
    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("gradient-untied", Severity.WARNING)
    assert "`emb.weight`, `head.weight` were one tied parameter at base" in finding.message
    assert "trainable parameters 128 → 256" in finding.message
    assert result.extra["summary"]["trainable"] == [128, 256]
    assert result.outcome is Outcome.WARN


def test_g14_an_in_place_op_on_a_saved_tensor_is_a_crash_of_head_naming_the_op(
    tmp_path: Path,
) -> None:
    head = MLP.replace("        h = self.norm(h)\n",
                       "        h = torch.sigmoid(self.norm(h))\n        h.mul_(2)\n")  # fmt: skip
    result = commit_two(GitRepo(tmp_path), {"model.py": MLP}, {"model.py": head}).check()

    line = head.splitlines().index("        h = torch.sigmoid(self.norm(h))") + 1
    assert result.outcome is Outcome.ERROR
    (finding,) = result.findings
    assert finding.revision == "head"
    assert finding.message.startswith("head crashed in the backward pass at step 0: RuntimeError: "
                                      "one of the variables needed for gradient computation has "
                                      "been modified by an inplace operation")  # fmt: skip
    assert f"`SigmoidBackward0`, the backward of the op at `model.py:{line}`" in finding.message
    assert "Hint:" not in finding.message


def test_g15_a_detach_in_an_auxiliary_loss_term_drops_the_norm_by_more_than_10x(
    tmp_path: Path,
) -> None:
    base = (
        PRELUDE
        + """

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 8)
        self.main = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 8)

    def forward(self, x):
        h = torch.tanh(self.enc(x))
        return self.main(h), self.aux(h)


def loss(out):
    main, aux = out
    return 0.01 * main.pow(2).mean() + aux.pow(2).mean()


def build():
    torch.manual_seed(0)
    return {"model": Net(), "inputs": torch.randn(16, 8), "loss": loss}
"""
    )
    head = base.replace("self.aux(h)\n", "self.aux(h.detach())\n")
    result = commit_two(GitRepo(tmp_path), {"model.py": base}, {"model.py": head}).check()

    rows = {row["name"]: row for row in result.extra["parameters"]}
    assert {n: (r["base"], r["head"], r["change"]) for n, r in rows.items()} == {
        "enc.weight": ("ok", "ok", "norm-ratio"), "enc.bias": ("ok", "ok", "norm-ratio"),
        "main.weight": OK, "main.bias": OK, "aux.weight": OK, "aux.bias": OK,
    }  # fmt: skip
    assert rows["enc.weight"]["ratio"] < 0.1 and rows["enc.bias"]["ratio"] < 0.1
    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("gradient-norm-ratio", Severity.WARNING)
    said = r"`enc\.\*` \(2 parameters\) still learn, but the gradient norm is (between )?[\d.]+× "
    assert re.search(said + r"(and [\d.]+× )?smaller at head", finding.message)
    assert "Gradient norm at the first step, base → head: `enc` " in finding.message
    assert "× smaller)" in finding.message

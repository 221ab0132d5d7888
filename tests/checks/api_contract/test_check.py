"""The `api-contract` check on real git repositories: scenarios A1-A3 and N12 (SCENARIOS.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.api_contract.check import ApiContractCheck
from gradgate.checks.api_contract.findings import RENAMED, collapsed
from gradgate.checks.api_contract.settings import ApiContractSettings
from gradgate.checks.base import CheckResult, Finding, Outcome, Severity
from gradgate.checks.context import CheckContext

from tests.gitrepo import GitRepo

LOSSES = '''\
"""Losses of the project."""
import torch.nn.functional as F


def loss(targets, preds, weight=1.0):
    return weight * F.cross_entropy(preds, targets)


def _private(targets, preds):
    return F.nll_loss(preds, targets)


def dice(pred, target, *, smooth=1.0, reduction="mean"):
    return 1 - (2 * (pred * target).sum() + smooth) / (pred.sum() + target.sum() + smooth)
'''

EVAL = """\
from pkg.losses import loss


def evaluate(model, x, y):
    out = model(x)
    return loss(y, out)
"""

REPORT = """\
from pkg import losses


def report(y, out, w):
    first = losses.loss(y, out, w)
    second = losses.loss(targets=y, preds=out)
    return first + second
"""

DICE_USER = """\
from .losses import dice


def score(p, t):
    return dice(p, t, reduction="sum") + dice(p, t, smooth=0.5)
"""


def pull_request(
    repo: GitRepo,
    base: Mapping[str, str],
    head: Mapping[str, str | None],
    *,
    zone: tuple[str, ...] = ("pkg/losses.py",),
    settings: ApiContractSettings | None = None,
    moves: tuple[tuple[str, str], ...] = (),
) -> CheckResult:
    """Commit ``base`` on main, then on a branch apply ``moves`` and ``head`` (None deletes).
    ``zone``: the paths of a zone that requires the check (only the changed ones count)."""
    with repo.pull_request_context(
        base, head, settings or ApiContractSettings(), moves=moves
    ) as ctx:
        changed = {p for c in ctx.changes for p in c.paths}
        zones = {"losses": tuple(p for p in zone if p in changed)}
        return ApiContractCheck().run(replace(ctx, zones=zones))


def kinds(result: CheckResult) -> list[tuple[str, str]]:
    return [(f.kind, str(f.severity)) for f in result.findings]


def only(result: CheckResult, kind: str) -> Finding:
    assert [f.kind for f in result.findings] == [kind], result.findings
    return result.findings[0]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


REORDERED = LOSSES.replace("def loss(targets, preds,", "def loss(preds, targets,")


# --- A1: a reorder under positional callers --------------------------------------------------


def test_a1_reorder_blocks_and_lists_each_positional_call_site(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {
            "pkg/__init__.py": "",
            "pkg/losses.py": LOSSES,
            "pkg/eval.py": EVAL,
            "pkg/report.py": REPORT,
        },
        {"pkg/losses.py": REORDERED},
    )
    assert result.outcome is Outcome.FAIL
    finding = only(result, "signature-reordered")
    assert finding.severity is Severity.BLOCKING
    assert (finding.file, finding.line) == ("pkg/losses.py", line_of(REORDERED, "def loss("))
    assert "now `(preds, targets, weight)`, were `(targets, preds, weight)`" in finding.message
    eval_line, report_line = line_of(EVAL, "loss(y, out)"), line_of(REPORT, "losses.loss(y")
    assert f"`pkg/eval.py:{eval_line}`, `pkg/report.py:{report_line}`" in finding.message
    assert finding.details is not None
    assert f"pkg/eval.py:{eval_line}: loss(y, out)" in finding.details
    assert "`y` went to `targets`, now goes to `preds`" in finding.details
    assert "targets=y" not in finding.details  # keyword callers are fine
    assert result.summary == "1 signature change breaks callers"


def test_a1_callers_updated_in_the_same_pr_are_not_listed(repo: GitRepo) -> None:
    updated = EVAL.replace("loss(y, out)", "loss(out, y)")
    added = REPORT.replace("return first + second", "return first + second + losses.loss(out, y)")
    result = pull_request(
        repo,
        {
            "pkg/__init__.py": "",
            "pkg/losses.py": LOSSES,
            "pkg/eval.py": EVAL,
            "pkg/report.py": REPORT,
        },
        {"pkg/losses.py": REORDERED, "pkg/eval.py": updated, "pkg/report.py": added},
    )
    finding = only(result, "signature-reordered")
    assert finding.details is not None
    sites = [line.split(": ")[0] for line in finding.details.splitlines() if ".py:" in line]
    assert sites == [f"pkg/report.py:{line_of(REPORT, 'losses.loss(y')}"]  # unchanged there


def test_a1_a_call_that_merely_moved_is_still_written_for_the_old_order(repo: GitRepo) -> None:
    moved = EVAL.replace("    return loss(y, out)\n", "    return _loss_of(y, out)\n")
    moved += "\n\ndef _loss_of(y, out):\n    return loss(y, out)\n"
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": EVAL},
        {"pkg/losses.py": REORDERED, "pkg/eval.py": moved},
    )
    finding = only(result, "signature-reordered")
    assert finding.details is not None
    assert finding.details.startswith(f"pkg/eval.py:{line_of(moved, 'return loss(y, out)')}:")


def test_a1_method_and_forward_reorders_reach_instances_and_self(repo: GitRepo) -> None:
    metric = """\
import torch.nn as nn


class Accuracy:
    def update(self, preds, target):
        self.hits = (preds.argmax(-1) == target).sum()


class FocalLoss(nn.Module):
    def forward(self, logits, targets):
        return logits.sum() - targets.sum()


class Top5(Accuracy):
    def step(self, p, t):
        self.update(p, t)
"""
    user = """\
from pkg.metrics import Accuracy, FocalLoss


class Trainer:
    def __init__(self):
        self.crit = FocalLoss()

    def step(self, logits, y):
        acc = Accuracy()
        acc.update(logits, y)
        return self.crit(logits, y)
"""
    head = metric.replace("update(self, preds, target)", "update(self, target, preds)").replace(
        "forward(self, logits, targets)", "forward(self, targets, logits)"
    )
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/metrics.py": metric, "pkg/train.py": user},
        {"pkg/metrics.py": head},
        zone=("pkg/metrics.py",),
    )
    assert kinds(result) == [("signature-reordered", "blocking")] * 2
    by_name = {f.message.split("`")[1]: f for f in result.findings}
    update, forward = by_name["Accuracy.update"], by_name["FocalLoss.forward"]
    assert update.details is not None and forward.details is not None
    assert f"pkg/train.py:{line_of(user, 'acc.update')}" in update.details
    assert f"pkg/metrics.py:{line_of(metric, 'self.update(p, t)')}" in update.details  # subclass
    assert f"pkg/train.py:{line_of(user, 'self.crit(logits, y)')}" in forward.details


def test_a1_src_layout_and_relative_imports_resolve(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/losses.py": LOSSES,
            "src/pkg/eval.py": EVAL,  # `from pkg.losses import loss`
            "src/pkg/sub/__init__.py": "",
            "src/pkg/sub/deep.py": "from ..losses import loss as L\nL(1, 2)\n",
        },
        {"src/pkg/losses.py": REORDERED},
        zone=("src/pkg/losses.py",),
    )
    finding = only(result, "signature-reordered")
    assert finding.details is not None
    assert "src/pkg/eval.py:" in finding.details and "src/pkg/sub/deep.py:2" in finding.details


def test_a1_same_name_elsewhere_is_not_a_call_site(repo: GitRepo) -> None:
    other = "def loss(a, b):\n    return a - b\n\n\nloss(1, 2)\n"
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "other/loss_utils.py": other},
        {"pkg/losses.py": REORDERED},
    )
    finding = only(result, "signature-reordered")
    # Public, but no caller here is affected: a note, not a warning (issue 36); the changelog
    # hint for callers elsewhere stays.
    assert finding.severity is Severity.NOTE
    assert "No call site in this repository is affected" in finding.message


def test_a1_a_private_function_without_callers_is_a_note(repo: GitRepo) -> None:
    head = LOSSES.replace("def _private(targets, preds)", "def _private(preds, targets)")
    result = pull_request(repo, {"pkg/losses.py": LOSSES}, {"pkg/losses.py": head})
    assert kinds(result) == [("signature-reordered", "note")]
    assert result.outcome is Outcome.PASS


# --- A3: renamed or removed parameters under keyword callers ---------------------------------


def test_a3_renamed_parameter_blocks_keyword_callers(repo: GitRepo) -> None:
    head = LOSSES.replace('reduction="mean"', 'mode="mean"')
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/user.py": DICE_USER},
        {"pkg/losses.py": head},
    )
    finding = only(result, "parameter-renamed")
    assert finding.severity is Severity.BLOCKING
    assert "`reduction` → `mode`" in finding.message and "TypeError" in finding.message
    assert finding.details is not None
    assert f"pkg/user.py:{line_of(DICE_USER, 'reduction=')}" in finding.details
    assert "passes `reduction=`, now called `mode`" in finding.details


def test_a3_removed_parameter_blocks_keyword_callers(repo: GitRepo) -> None:
    head = LOSSES.replace(', *, smooth=1.0, reduction="mean"):', ', *, reduction="mean"):')
    head = head.replace("+ smooth", "+ 1.0")
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/user.py": DICE_USER},
        {"pkg/losses.py": head},
    )
    finding = only(result, "parameter-removed")
    assert finding.severity is Severity.BLOCKING
    assert (
        finding.details is not None and "passes `smooth=`, no longer a parameter" in finding.details
    )


ATTENTION = """\
class Attention:
    def forward(self, hidden, mask=None, use_cache=False, **kwargs):
        return hidden
"""
LAYER = """\
from pkg.attention import Attention


class Layer:
    def __init__(self):
        self.attn = Attention()

    def forward(self, hidden, **kwargs):
        return self.attn.forward(hidden=hidden, mask=None, use_cache=True, **kwargs)
"""


def test_a_removed_keyword_that_lands_in_kwargs_warns_and_does_not_block(repo: GitRepo) -> None:
    # A model library dropped `use_cache` from an attention `forward` that takes `**kwargs`;
    # its callers still pass it: nothing raises, the value is just no longer used.
    head = ATTENTION.replace("mask=None, use_cache=False, **kwargs", "mask=None, **kwargs")
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/attention.py": ATTENTION, "pkg/layer.py": LAYER},
        {"pkg/attention.py": head},
        zone=("pkg/attention.py",),
    )
    finding = only(result, "parameter-removed")
    assert finding.severity is Severity.WARNING
    assert "TypeError" not in finding.message and "`**kwargs`" in finding.message
    assert f"pkg/layer.py:{line_of(LAYER, 'use_cache=True')}" in finding.message
    assert result.outcome is Outcome.WARN


def test_a3_a_rename_nobody_calls_by_keyword_is_a_note(repo: GitRepo) -> None:
    head = LOSSES.replace("def loss(targets, preds,", "def loss(target, preds,").replace(
        "preds, targets)\n\n\ndef _private", "preds, target)\n\n\ndef _private"
    )
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": EVAL},
        {"pkg/losses.py": head},
    )
    assert kinds(result) == [("parameter-renamed", "note")]


def test_default_change_warns_with_old_and_new_when_a_call_here_leaves_it_out(
    repo: GitRepo,
) -> None:
    head = LOSSES.replace("weight=1.0", "weight=0.5")
    base = {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": EVAL}
    result = pull_request(repo, base, {"pkg/losses.py": head})
    finding = only(result, "default-changed")
    assert finding.severity is Severity.WARNING
    assert "`weight` changed: `1.0` → `0.5`" in finding.message
    assert result.outcome is Outcome.WARN


def test_default_change_no_call_here_leaves_out_is_a_note_for_the_changelog(
    repo: GitRepo,
) -> None:
    # Issue 36: x-transformers 2.31.8 changed two defaults its only callers pass explicitly.
    head = LOSSES.replace("weight=1.0", "weight=0.5")
    passes = EVAL.replace("loss(y, out)", "loss(y, out, weight=2.0)")
    base = {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": passes}
    result = pull_request(repo, base, {"pkg/losses.py": head})
    finding = only(result, "default-changed")
    assert finding.severity is Severity.NOTE
    assert finding.message.endswith(
        "No call site in this repository is affected (none leaves `weight` out); callers "
        "elsewhere that leave it out get the new value. Say so in the changelog."
    )
    assert result.outcome is Outcome.PASS


# --- scope: zones, `watch`, unreadable files ---------------------------------------------------


def test_outside_the_zones_signatures_are_not_compared_unless_watched(repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": EVAL}
    result = pull_request(repo, base, {"pkg/losses.py": REORDERED}, zone=())
    assert result.findings == () and result.outcome is Outcome.PASS


def test_watch_compares_named_functions_anywhere(tmp_path: Path) -> None:
    base = {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": EVAL}
    for pattern, found in (("pkg.losses.loss", True), ("*.losses.*", True), ("pkg.eval.*", False)):
        repo = GitRepo(tmp_path / pattern.replace("*", "x"))
        settings = ApiContractSettings(watch=(pattern,))
        result = pull_request(repo, base, {"pkg/losses.py": REORDERED}, zone=(), settings=settings)
        assert bool(result.findings) is found, pattern


def test_a_zone_file_the_pr_made_unparsable_blocks(repo: GitRepo) -> None:
    result = pull_request(repo, {"pkg/losses.py": LOSSES}, {"pkg/losses.py": LOSSES + "def (:\n"})
    finding = only(result, "api-module-broken")
    assert finding.severity is Severity.BLOCKING and result.outcome is Outcome.FAIL
    assert (finding.file, finding.line) == ("pkg/losses.py", 15)
    assert finding.message.startswith("this PR broke `pkg/losses.py`: it does not parse at head")
    assert result.summary == "1 module no longer parses"


def test_a_body_broken_under_unchanged_def_lines_blocks(repo: GitRepo) -> None:
    broken = LOSSES.replace("return weight * F.cross_entropy(preds, targets)", "return (weight")
    result = pull_request(repo, {"pkg/losses.py": LOSSES}, {"pkg/losses.py": broken})
    assert only(result, "api-module-broken").severity is Severity.BLOCKING


def test_a_zone_file_without_loss_calls_broken_in_a_body_blocks(repo: GitRepo) -> None:
    code = "def f(a, b):\n    return a + b\n"
    result = pull_request(
        repo, {"pkg/losses.py": code}, {"pkg/losses.py": code.replace("a + b", "(a + b")}
    )
    assert only(result, "api-module-broken").severity is Severity.BLOCKING


def test_a_changed_file_with_a_loss_call_the_pr_made_unparsable_blocks(repo: GitRepo) -> None:
    train = "import torch.nn.functional as F\n\nloss = F.cross_entropy(logits, y)\n"
    result = pull_request(repo, {"train.py": train}, {"train.py": train + "if :\n"}, zone=())
    assert only(result, "api-module-broken").file == "train.py"


def test_a_zone_file_that_did_not_parse_at_base_either_is_a_note(repo: GitRepo) -> None:
    broken = LOSSES + "def (:\n"
    result = pull_request(repo, {"pkg/losses.py": broken}, {"pkg/losses.py": broken + "x = 1\n"})
    finding = only(result, "api-file-skipped")
    assert finding.file == "pkg/losses.py" and "does not parse" in finding.message


def test_a_renamed_module_keeps_its_signatures_compared(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": EVAL},
        {"pkg/criteria.py": REORDERED, "pkg/eval.py": EVAL.replace("pkg.losses", "pkg.criteria")},
        moves=(("pkg/losses.py", "pkg/criteria.py"),),
        zone=("pkg/losses.py", "pkg/criteria.py"),
    )
    finding = only(result, "signature-reordered")
    assert finding.file == "pkg/criteria.py"


# --- A2 and N12: asymmetric losses ----------------------------------------------------------

TRAIN = """\
import torch.nn as nn
import torch.nn.functional as F


def step(model, x, targets, aux):
    logits = model(x)
    main = F.cross_entropy(logits, targets)
    crit = nn.BCEWithLogitsLoss()
    side = crit(logits[:, 0], targets.float())
    reg = F.mse_loss(aux, targets.float())
    pair = F.nll_loss(aux, x)
    return main + side + reg + pair
"""


def loss_run(repo: GitRepo, head: str, base: str = TRAIN) -> CheckResult:
    return pull_request(repo, {"train.py": base}, {"train.py": head}, zone=())


def test_a2_swapped_cross_entropy_blocks_at_its_line(repo: GitRepo) -> None:
    head = TRAIN.replace("F.cross_entropy(logits, targets)", "F.cross_entropy(targets, logits)")
    result = loss_run(repo, head)
    finding = only(result, "loss-arguments-swapped")
    assert finding.severity is Severity.BLOCKING
    assert (finding.file, finding.line) == ("train.py", line_of(TRAIN, "F.cross_entropy"))
    assert "`targets` is passed as `input` (the prediction)" in finding.message
    assert "Exchange `targets` and `logits`" in finding.message
    assert result.summary == "1 loss call with swapped arguments"


def test_a2_swapped_loss_module_call_blocks(repo: GitRepo) -> None:
    head = TRAIN.replace(
        "crit(logits[:, 0], targets.float())", "crit(targets.float(), logits[:, 0])"
    )
    finding = only(loss_run(repo, head), "loss-arguments-swapped")
    assert "`BCEWithLogitsLoss`" in finding.message


def test_a2_swap_against_base_blocks_even_when_names_say_nothing(repo: GitRepo) -> None:
    head = TRAIN.replace("F.nll_loss(aux, x)", "F.nll_loss(x, aux)")
    finding = only(loss_run(repo, head), "loss-arguments-swapped")
    assert "the call at base passed `aux` as `input` and `x` as `target`" in finding.message


def test_n12_symmetric_losses_in_either_order_are_fine(repo: GitRepo) -> None:
    head = TRAIN.replace("F.mse_loss(aux, targets.float())", "F.mse_loss(targets.float(), aux)")
    result = loss_run(repo, head)
    assert result.findings == () and result.outcome is Outcome.PASS


def test_n12_a_loss_call_that_merely_moved_is_fine(repo: GitRepo) -> None:
    head = TRAIN.replace("    main = F.cross_entropy(logits, targets)\n", "").replace(
        "    pair =", "    main = F.cross_entropy(logits, targets)\n    pair ="
    )
    helper = (
        "import torch.nn.functional as F\n\n\ndef nll(aux, x):\n    return F.nll_loss(aux, x)\n"
    )
    result = pull_request(
        repo,
        {"train.py": TRAIN},
        {"train.py": head.replace("F.nll_loss(aux, x)", "nll(aux, x)"), "helpers.py": helper},
        zone=(),
    )
    assert result.findings == (), result.findings


def test_n13_a_swap_that_stood_at_base_is_only_a_note(repo: GitRepo) -> None:
    swapped = TRAIN.replace("F.cross_entropy(logits, targets)", "F.cross_entropy(targets, logits)")
    result = loss_run(repo, swapped.replace("reg + pair", "reg + 2 * pair"), base=swapped)
    finding = only(result, "loss-arguments-swapped-at-base")
    assert finding.severity is Severity.NOTE and result.outcome is Outcome.PASS


def test_the_loss_scan_can_be_switched_off(repo: GitRepo) -> None:
    head = TRAIN.replace("F.cross_entropy(logits, targets)", "F.cross_entropy(targets, logits)")
    result = pull_request(
        repo,
        {"train.py": TRAIN},
        {"train.py": head},
        zone=(),
        settings=ApiContractSettings(losses=False),
    )
    assert result.findings == ()


# --- one pass -------------------------------------------------------------------------------


def test_the_call_site_search_reads_each_file_once_for_many_changed_signatures(
    repo: GitRepo,
) -> None:
    head = REORDERED.replace("def _private(targets, preds)", "def _private(preds, targets)")
    head = head.replace('reduction="mean"', 'mode="mean"')
    users = {f"pkg/user{i}.py": DICE_USER + REPORT for i in range(5)}
    base = {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/eval.py": EVAL, **users}
    base_sha, head_sha = repo.pull_request(base, {"pkg/losses.py": head})
    reads: list[tuple[str, str]] = []

    class Counting(GitRepository):
        def read(self, revision: str, path: str) -> bytes | None:
            reads.append((revision, path))
            return super().read(revision, path)

    with Counting(repo.root) as git:
        ctx = CheckContext(
            base_sha=base_sha,
            head_sha=head_sha,
            changes=git.changes(base_sha, head_sha),
            source=git,
            settings=ApiContractSettings(),
            zones={"losses": ("pkg/losses.py",)},
        )
        result = ApiContractCheck().run(ctx)
    assert {f.kind for f in result.findings} >= {"signature-reordered", "parameter-renamed"}
    assert len(reads) == len(set(reads))  # nothing read twice


def test_unparsable_files_elsewhere_make_one_note_not_one_each(repo: GitRepo) -> None:
    jinja = "{% for x in xs %}\nloss({{ x }})\n{% endfor %}\n"
    result = pull_request(
        repo,
        {
            "pkg/__init__.py": "",
            "pkg/losses.py": LOSSES,
            "pkg/eval.py": EVAL,
            "templates/a.py": jinja,
            "templates/b.py": jinja,
        },
        {"pkg/losses.py": REORDERED},
    )
    assert kinds(result) == [("signature-reordered", "blocking"), ("api-file-skipped", "note")]
    note = result.findings[1]
    assert note.message.startswith("2 Python files of the repository could not be searched")
    assert "`templates/a.py`, `templates/b.py`" in note.message


def test_a_constructor_reorder_reaches_the_calls_of_the_class(repo: GitRepo) -> None:
    model = "class Model:\n    def __init__(self, dim, hidden):\n        self.size = dim * hidden\n"
    user = "from pkg.model import Model\n\nnet = Model(64, 256)\nwide = Model(dim=64, hidden=512)\n"
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/model.py": model, "train.py": user},
        {"pkg/model.py": model.replace("(self, dim, hidden)", "(self, hidden, dim)")},
        zone=("pkg/model.py",),
    )
    finding = only(result, "signature-reordered")
    assert finding.details is not None
    assert finding.details.startswith(
        "train.py:3: Model(64, 256)\n"
        "    `64` went to `dim`, now goes to `hidden`; `256` went to `hidden`, now goes to `dim`\n"
    )
    assert finding.details.endswith("      - pattern: 'pkg.model.Model.__init__'\n"
                                    "        reason: '<why this change is intended>'")  # fmt: skip


def test_a_parameter_made_keyword_only_blocks_positional_callers(repo: GitRepo) -> None:
    head = LOSSES.replace(
        "def loss(targets, preds, weight=1.0)", "def loss(targets, preds, *, weight=1.0)"
    )
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": LOSSES, "pkg/report.py": REPORT},
        {"pkg/losses.py": head},
    )
    finding = only(result, "parameter-keyword-only")
    assert finding.severity is Severity.BLOCKING and "TypeError" in finding.message
    assert finding.details is not None
    assert "`w` is passed positionally to `weight`, now keyword-only" in finding.details


def test_a_caller_with_a_non_ascii_name_is_still_found(repo: GitRepo) -> None:
    base = "def läuft(targets, preds):\n    return targets - preds\n"
    user = "from pkg.losses import läuft\n\n\ndef run(y, out):\n    return läuft(y, out)\n"
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": base, "pkg/user.py": user},
        {"pkg/losses.py": base.replace("(targets, preds)", "(preds, targets)")},
    )
    finding = only(result, "signature-reordered")
    assert finding.severity is Severity.BLOCKING and "pkg/user.py:5" in finding.message


def test_many_signature_changes_no_caller_feels_are_one_note_listing_each(repo: GitRepo) -> None:
    # Issue 36: a large library's release renamed parameters by the thousand, one note each.
    base = "".join(f"def f{i}(a, b=1):\n    return a\n\n\n" for i in range(6))
    head = base.replace("(a, b=1)", "(x, b=1)").replace("return a", "return x")
    result = pull_request(repo, {"pkg/losses.py": base}, {"pkg/losses.py": head})

    note = only(result, "signatures-changed")
    assert note.severity is Severity.NOTE
    assert note.message.startswith(
        "6 signatures changed (6 parameter-renamed) in `pkg/losses.py`; no call site in this "
        "repository is affected."
    )
    assert note.details is not None and len(note.details.splitlines()) == 6
    assert note.details.splitlines()[0] == ("pkg/losses.py:1: `f0`: parameter renamed: `a` → `x`")
    said = "`f0`: parameter renamed: `a` → `x`. No call site in this repository is affected."
    three = [replace(note, kind=RENAMED, message=said)] * 3
    assert collapsed(three) == three  # a few stay as they are
    assert [f.kind for f in collapsed(three * 2)] == ["signatures-changed"]


def test_a_few_signature_changes_no_caller_feels_stay_a_note_each(repo: GitRepo) -> None:
    base = "".join(f"def f{i}(a, b=1):\n    return a\n\n\n" for i in range(6))
    few = base.replace("def f0(a, b=1):\n    return a", "def f0(x, b=1):\n    return x")
    result = pull_request(repo, {"pkg/losses.py": base}, {"pkg/losses.py": few})
    assert kinds(result) == [("parameter-renamed", "note")]

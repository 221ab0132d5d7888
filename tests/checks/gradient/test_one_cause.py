"""Issue 36: one cause, one finding. A `.detach()` in a repeated block cuts off every block
before it whole and its own block in part; that is one blocking finding at the line, naming
the blocks, not one per shape of prefix (or per variant). The norm-ratio words do not claim
the same weights: a PR that changes initialisation changes them."""

from __future__ import annotations

from dataclasses import replace

from gradgate.checks.base import Finding, Severity
from gradgate.checks.gradient.compare import compare
from gradgate.checks.gradient.findings import findings_for
from gradgate.checks.gradient.variants import across_variants

from tests.checks.gradient.revisions import PRELUDE, commit_two
from tests.checks.gradient.test_findings import check, line_of, of_kind
from tests.gitrepo import GitRepo

GPT = (
    PRELUDE
    + """

class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 8)

    def forward(self, x):
        return self.qkv(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(8)
        self.attn = Attn()
        self.ln_2 = nn.LayerNorm(8)
        self.mlp = nn.Linear(8, 8)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wpe = nn.Embedding(4, 8)
        self.h = nn.ModuleList([Block() for _ in range(4)])
        self.ln_f = nn.LayerNorm(8)

    def forward(self, x):
        x = x + self.wpe(torch.arange(x.shape[0]))
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


def build():
    torch.manual_seed(0)
    return GPT(), torch.randn(4, 8)
"""
)
CUT = GPT.replace("x = x + self.attn(self.ln_1(x))", "x = (x + self.attn(self.ln_1(x))).detach()")


def test_one_detach_in_a_repeated_block_is_one_blocking_finding_naming_the_blocks(
    repo: GitRepo,
) -> None:
    result = check(commit_two(repo, {"model.py": GPT}, {"model.py": CUT}))
    (lost,) = of_kind(result, "gradient-lost-gradient")
    assert [f.severity for f in result.findings] == [Severity.BLOCKING], result.findings
    assert (lost.file, lost.line) == ("model.py", line_of(CUT, ").detach()"))
    for named in ("`wpe.weight`", "`h.{0..2}.*`", "`h.3.ln_1.*`", "`h.3.attn.*`"):
        assert named in lost.message, lost.message
    assert lost.details is not None and "'h.*.*'" not in lost.details
    assert "'wpe.weight'" in lost.details and "'h.3.attn.*'" in lost.details


def _finding(message: str) -> Finding:
    return Finding("gradient-lost-gradient", Severity.BLOCKING, message, file="m.py", line=3)


def test_what_every_variant_says_alike_is_one_finding_naming_them() -> None:
    same, own = _finding("`h.{0..5}.attn.*` learned at base."), _finding("`head.*` frozen.")
    merged = across_variants([("default", [same]), ("flash", [same, own]), ("rotary", [same])])
    assert merged == [
        replace(same, message="In every variant (`default`, `flash`, `rotary`): " + same.message),
        replace(own, message="In variant `flash`: " + own.message),
    ]
    assert across_variants([(None, [same])]) == [same]  # one model: as it was


def test_the_norm_ratio_words_do_not_claim_the_same_weights() -> None:
    from tests.checks.test_odd_names import _facts, _param

    base = [_param("enc.weight", (1.0, 1.0)), _param("head.weight", (1.0, 1.0))]
    head = [_param("enc.weight", (0.01, 0.01)), _param("head.weight", (1.0, 1.0))]
    (ratio,) = findings_for(compare(_facts("base", base), _facts("head", head)))
    assert ratio.kind == "gradient-norm-ratio"
    assert "same weights" not in ratio.message
    assert "from the same seed and batch" in ratio.message
    assert "or the PR changed how the weights are initialised" in ratio.message

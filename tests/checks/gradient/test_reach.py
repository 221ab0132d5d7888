"""Issue 36: `gradient-untested` is one line per PR. What a variant could run names what turns
it on; what no forward pass reaches (`configure_optimizers`, `from_pretrained`,
`estimate_mfu`) is one note, and nothing at all in a file the model does not import (pure)."""

from __future__ import annotations

from gradgate.checks.base import Severity
from gradgate.checks.diff import LineSpan
from gradgate.checks.gradient.reach import reach
from gradgate.checks.gradient.untested import untested_findings
from gradgate.checks.model.coverage import FileCoverage
from gradgate.checks.model.lines import PullDiff

GPT = """\
import torch
from torch import nn


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.flash = config.flash
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        if self.config.rotary:
            x = self.rotate(x)
        if self.flash:
            return self.proj(x) * 2
        return self.proj(x)

    def rotate(self, x):
        return x.flip(-1)

    def configure_optimizers(self, lr):
        params = list(self.parameters())
        return torch.optim.AdamW(params, lr=lr)

    @classmethod
    def from_pretrained(cls, name):
        return cls(name)

    def estimate_mfu(self, dt):
        return 1.0 / dt


def helper(x):
    return x + 1
"""


def line(text: str) -> int:
    return next(n for n, row in enumerate(GPT.splitlines(), 1) if text in row)


def test_lines_are_parted_by_whether_a_forward_pass_can_reach_them() -> None:
    rotate, flash = line("x = self.rotate(x)"), line("return self.proj(x) * 2")
    body, opt = line("return x.flip(-1)"), line("torch.optim.AdamW")
    pre, mfu, helper = line("return cls(name)"), line("return 1.0 / dt"), line("return x + 1")
    parted = reach(
        "model.py",
        [(r, r) for r in (rotate, flash, body, opt, pre, mfu, helper)],
        GPT,
    )
    assert parted.reachable == ((rotate, rotate), (flash, flash), (body, body), (helper, helper))
    assert parted.guards == ("config.rotary", "flash")
    assert parted.unreached == ((opt, opt), (pre, pre), (mfu, mfu))
    assert parted.functions == ("GPT.configure_optimizers", "GPT.from_pretrained",
                                "GPT.estimate_mfu")  # fmt: skip
    assert reach("x.py", [(3, 4)], "def f(:\n").reachable == ((3, 4),)  # unparsable: as before
    negated = GPT.replace("if self.flash:", "if not self.flash:")
    assert reach("model.py", [(flash, flash)], negated).guards == ("not flash",)
    # A line of the method ran: something (another file) calls it, whatever this file says.
    called = reach("model.py", [(opt, opt)], GPT, ran={line("params = list(")})
    assert called.unreached == (), called


def _findings(imported: bool) -> list:  # type: ignore[type-arg]
    changed = [line(t) for t in ("return self.proj(x) * 2", "torch.optim.AdamW", "1.0 / dt")]
    coverage = {"model.py": FileCoverage(frozenset(changed), frozenset(), imported)}
    diff = PullDiff({"model.py": tuple(LineSpan(n, n) for n in changed)})
    return untested_findings(
        coverage, diff, model_files={"model.py"}, read=lambda p: GPT if p == "model.py" else None
    )


def test_one_warning_names_the_flag_and_one_note_names_the_unreached_methods() -> None:
    warning, note = _findings(imported=True)
    flash = line("return self.proj(x) * 2")
    assert (warning.kind, warning.severity, warning.line) == (
        "gradient-untested",
        Severity.WARNING,
        flash,
    )
    assert f"`model.py:{flash}` (under `flash`)" in warning.message
    assert "a variant with `flash` set so that it runs" in warning.message
    assert warning.details is not None and '"flash": (flash, inputs),' in warning.details
    assert (note.kind, note.severity) == ("gradient-unreachable", Severity.NOTE)
    assert note.message.startswith("No forward pass reaches `model.py:")
    assert "(`GPT.configure_optimizers`, `GPT.estimate_mfu`)" in note.message


def test_unreached_code_in_a_file_the_model_does_not_import_says_nothing() -> None:
    assert [f.kind for f in _findings(imported=False)] == ["gradient-untested"]


WRAPPER = """\
class Wrapper(nn.Module):
    def __init__(self, dim, tie_embedding=False, return_only_embed=False):
        super().__init__()
        if return_only_embed:
            self.to_logits = None
        elif tie_embedding:
            self.to_logits = lambda t: t @ self.emb.weight.t()

    def forward(self, x, transform_block_inputs=None):
        for ind, layer in enumerate(self.layers):
            block_begin = ind % 2 == 0
            if block_begin and exists(transform_block_inputs):
                x = transform_block_inputs(x)
        return x
"""


def test_only_a_constructor_flag_or_config_key_names_what_turns_lines_on() -> None:
    tied = next(n for n, r in enumerate(WRAPPER.splitlines(), 1) if "t @ self.emb" in r)
    hook = next(n for n, r in enumerate(WRAPPER.splitlines(), 1) if "= transform_block" in r)
    parted = reach("x_transformers.py", [(tied, tied), (hook, hook)], WRAPPER)
    # Seen on x-transformers 2.30.5: a forward argument, a local and a helper (`block_begin`,
    # `exists`) were advised as flags to set; only `tie_embedding` is one.
    assert parted.reachable == ((tied, tied), (hook, hook))
    assert parted.named == ((tied, tied),)
    assert parted.guards == ("not return_only_embed", "tie_embedding")


def test_lines_no_nameable_flag_turns_on_are_a_note_not_a_warning() -> None:
    hook = next(n for n, r in enumerate(WRAPPER.splitlines(), 1) if "= transform_block" in r)
    tied = next(n for n, r in enumerate(WRAPPER.splitlines(), 1) if "t @ self.emb" in r)
    coverage = {
        "x/wrap.py": FileCoverage(frozenset({hook, tied}), frozenset(), True),
        "x/xval.py": FileCoverage(frozenset({tied}), frozenset(), True),
    }
    diff = PullDiff(
        {
            "x/wrap.py": (LineSpan(tied, tied), LineSpan(hook, hook)),
            "x/xval.py": (LineSpan(tied, tied),),
        }
    )
    found = untested_findings(
        coverage, diff, variants=["default", "rotary"], model_files={"x/wrap.py"},
        read=lambda _: WRAPPER,
    )  # fmt: skip
    warning, note = found
    assert warning.severity is Severity.WARNING
    assert f"`x/wrap.py:{tied}` (under `not return_only_embed`, `tie_embedding`)" in (
        warning.message
    )
    assert "block_begin" not in warning.message and "xval" not in warning.message
    assert "a variant with `tie_embedding` set and `return_only_embed` off so that it runs" in (
        warning.message
    )
    assert (note.kind, note.severity) == ("gradient-untested", Severity.NOTE)
    # the forward argument's lines, and a flag's lines in a module outside the model's zones
    assert note.message.startswith(
        f"none of the model's variants ran `x/wrap.py:{hook}`, `x/xval.py:{tied}`, changed by "
        "this PR, and no flag of the model's own code turns them on"
    )


LAYERS = """\
class AttentionResidual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_query = nn.Linear(dim, dim)

    def forward(self, x):
        return self.to_query(x)


class AttentionLayers(nn.Module):
    def __init__(self, dim, integrate_layers=False, attn_aggregated_residuals=False):
        super().__init__()
        if integrate_layers:
            self.integrate = DynamicLIMe(dim)
        elif attn_aggregated_residuals:
            self.integrate = AttentionResidual(dim)
"""


def test_a_class_no_if_guards_inside_is_named_by_the_flag_it_is_built_under() -> None:
    # x-transformers 2.31.0 rewrote `AttentionResidual`, which only `attn_aggregated_residuals`
    # builds: that flag is what a variant sets.
    query = next(n for n, r in enumerate(LAYERS.splitlines(), 1) if "self.to_query(x)" in r)
    parted = reach("x_transformers.py", [(query, query)], LAYERS)
    assert parted.named == ((query, query),)
    assert parted.guards == ("not integrate_layers", "attn_aggregated_residuals")

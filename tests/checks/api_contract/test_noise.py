"""Issue 36: api-contract findings a reviewer acts on, and none they learn to skip.

Replayed on a large transformer library: `def default(val, d)` -> `def default(*args)` blocked
on 35 positional callers it did not affect, with advice (keywords) `*args` cannot take; a
defaulted parameter inserted in a long signature warned with no caller past it; a `None`
sentinel that resolved to the same value was a changed default; an unrelated removal and
addition were paired as a rename; and no blocking finding said how to accept it.
"""

from __future__ import annotations

import yaml
from gradgate.bot.config.model import load_config
from gradgate.checks.api_contract.allow import AllowRule
from gradgate.checks.api_contract.check import ApiContractSettings
from gradgate.checks.base import Outcome, Severity

from tests.checks.api_contract.test_changes import change
from tests.checks.api_contract.test_check import kinds, only, pull_request
from tests.gitrepo import GitRepo

HELPERS = """\
def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d
"""
HELPERS_HEAD = """\
def exists(val):
    return val is not None


def default(*args):
    for arg in args:
        if exists(arg):
            return arg
    return None
"""
CALLERS = """\
from pkg.helpers import default


def dim_of(dim, dim_head):
    inner = default(dim_head, 64)
    return default(dim, inner * 8)
"""


def test_positional_callers_landing_in_args_do_not_block(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/attend.py": CALLERS},
        {"pkg/helpers.py": HELPERS_HEAD},
        zone=("pkg/helpers.py",),
    )
    finding = only(result, "parameter-removed")
    assert finding.severity is Severity.NOTE and result.outcome is Outcome.PASS
    assert "`*args` now takes them in the same order" in finding.message
    assert "keyword" not in finding.message  # advice `*args` cannot take
    assert finding.details is not None
    assert "`dim_head` went to `val`, now lands in `*args` in its place" in finding.details


def test_a_keyword_caller_of_the_args_signature_still_blocks_with_an_accept_rule(
    repo: GitRepo,
) -> None:
    callers = CALLERS.replace("default(dim_head, 64)", "default(val=dim_head, d=64)")
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/attend.py": callers},
        {"pkg/helpers.py": HELPERS_HEAD},
        zone=("pkg/helpers.py",),
    )
    finding = only(result, "parameter-removed")
    assert finding.severity is Severity.BLOCKING
    assert "now fails with a TypeError" in finding.message
    assert "merged to the base branch first, or applied by an owner" in finding.message
    # The rule is pasteable: it reads back as the setting, and then accepts the change.
    assert finding.details is not None
    rule = finding.details[finding.details.index("checks:") :]
    pasted = load_config(yaml.safe_dump({"always": []}) + rule).settings_for("api-contract")
    assert isinstance(pasted, ApiContractSettings)
    assert [r.pattern for r in pasted.allow] == ["pkg.helpers.default"]


def test_an_accepted_change_is_a_note_with_the_reason(repo: GitRepo) -> None:
    callers = CALLERS.replace("default(dim_head, 64)", "default(val=dim_head, d=64)")
    settings = ApiContractSettings(allow=(AllowRule(pattern="pkg.helpers.*", reason="variadic"),))
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/attend.py": callers},
        {"pkg/helpers.py": HELPERS_HEAD},
        zone=("pkg/helpers.py",),
        settings=settings,
    )
    finding = only(result, "parameter-removed")
    assert finding.severity is Severity.NOTE and result.outcome is Outcome.PASS
    assert finding.message.startswith("Allowed by the config (variadic): `default`")
    # What the rule kept from blocking is a suppression from the config, for the report (#34).
    (accepted,) = result.suppressions
    assert (accepted.rule, accepted.origin, accepted.reason) == (
        "allow: pkg.helpers.*",
        "config",
        "variadic",
    )
    assert (accepted.file, accepted.line) == ("pkg/helpers.py", 5)


LAYER = """\
class Attention:
    def __init__(self, dim, heads=8, dim_head=64, dropout=0.0, causal=False, flash=False,
                 qk_norm=False, qk_norm_scale=10, value_dim_head=None, tensor_product=False):
        self.dim = dim
"""
LAYER_HEAD = LAYER.replace("causal=False, flash=False,", "causal=False, gate_values=False,\n"
                           "                 flash=False,")  # fmt: skip
LAYER_USER = """\
from pkg.attend import Attention

attn = Attention(512, 8, 64, causal=True, flash=True)
"""


def test_an_inserted_default_with_no_positional_caller_past_it_is_a_note(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/attend.py": LAYER, "pkg/use.py": LAYER_USER},
        {"pkg/attend.py": LAYER_HEAD},
        zone=("pkg/attend.py",),
    )
    assert kinds(result) == [("signature-reordered", "note")]
    assert result.outcome is Outcome.PASS


def test_a_positional_caller_past_the_insert_still_blocks(repo: GitRepo) -> None:
    user = LAYER_USER.replace("Attention(512, 8, 64, causal=True, flash=True)",
                              "Attention(512, 8, 64, 0.1, True, True)")  # fmt: skip
    result = pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/attend.py": LAYER, "pkg/use.py": user},
        {"pkg/attend.py": LAYER_HEAD},
        zone=("pkg/attend.py",),
    )
    finding = only(result, "signature-reordered")
    assert finding.severity is Severity.BLOCKING
    assert "keywords make them order-proof" in finding.message


def test_a_none_sentinel_that_resolves_to_the_same_value_is_no_changed_default() -> None:
    head = "def f(x, scale=3):\n    return x * scale\n"
    for base in (
        "def f(x, scale=None):\n    scale = 3 if scale is None else scale\n    return x * scale\n",
        "def f(x, scale=None):\n    scale = scale if scale is not None else 3\n    return x\n",
        "def f(x, scale=None):\n    if scale is None:\n        scale = 3\n    return x * scale\n",
        "def f(x, scale=None):\n    scale = scale or 3\n    return x * scale\n",
    ):
        assert change(base, head) is None, base
        assert change(head, base) is None, base  # and back
    base = "def f(x, scale=None):\n    scale = 3 if scale is None else scale\n    return x\n"
    found = change(base, "def f(x, scale=4):\n    return x * scale\n")
    assert found is not None and found.defaults == (("scale", "3", "4"),)  # what callers got


def test_a_changed_default_names_what_a_none_sentinel_becomes_not_none() -> None:
    # diffusers 0.40.0: `use_system_prompt=True` -> `use_system_prompt=None`, then
    # `self.config.default_use_system_prompt`: callers that leave it out do not get `None`.
    base = "class P:\n    def f(self, use_system_prompt=True):\n        return use_system_prompt\n"
    head = (
        "class P:\n    def f(self, use_system_prompt=None):\n"
        "        if use_system_prompt is None:\n"
        "            use_system_prompt = self.config.default_use_system_prompt\n"
        "        return use_system_prompt\n"
    )
    found = change(base, head, "P.f")
    assert found is not None
    assert found.defaults == (
        ("use_system_prompt", "True", "self.config.default_use_system_prompt"),
    )


def test_a_default_that_names_a_module_constant_of_the_same_value_is_no_change() -> None:
    # x-transformers 2.29.2: `lora_rank = 64` -> `lora_rank = DEFAULT_ATTN_RESIDUAL_LORA_RANK`.
    base = "def f(x, lora_rank=64):\n    return x\n"
    head = "DEFAULT_RANK = 64\n\n\ndef f(x, lora_rank=DEFAULT_RANK):\n    return x\n"
    assert change(base, head) is None
    assert change(head, base) is None
    changed = change(base, head.replace("= 64", "= 32"))
    assert changed is not None and changed.defaults == (("lora_rank", "64", "DEFAULT_RANK"),)
    # a name bound twice is no constant: its value is not known
    twice = head.replace("DEFAULT_RANK = 64\n", "DEFAULT_RANK = 64\nDEFAULT_RANK = 32\n")
    assert change(base, twice) is not None


def test_an_unrelated_removal_and_addition_are_not_a_rename() -> None:
    found = change("def f(x, use_bias=True): ...", "def f(x, dropout=0.1): ...")
    assert found is not None and found.renamed == {} and found.removed == ("use_bias",)
    found = change("def f(x, *, use_bias=True): ...", "def f(x, *, dropout=0.1): ...")
    assert found is not None and found.renamed == {} and found.removed == ("use_bias",)
    # A rename keeps its default, or its name: still paired.
    assert change("def f(x, heads=8): ...", "def f(x, num_heads=8): ...").renamed == {  # type: ignore[union-attr]
        "heads": "num_heads"
    }
    assert change("def f(x, heads=8): ...", "def f(x, n_heads=4): ...").renamed == {  # type: ignore[union-attr]
        "heads": "n_heads"
    }

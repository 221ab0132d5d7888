"""Issue 36: no check's message crashes on a name, path or value that holds braces, percent
signs, backticks or non-ASCII text. Each finding builder is fed such names, and the names come
through into the words unchanged.

A "gained gradient" finding over repeated blocks once raised KeyError from formatting a message
whose names (`blocks.{0..2}.up.*`) hold braces, so a fix that restored learning read "could not
decide".
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from gradgate.checks.base import Finding, Severity
from gradgate.checks.checkpoint.findings import findings_for as checkpoint_findings
from gradgate.checks.checkpoint.judge import Judgement
from gradgate.checks.checkpoint.place import key_pattern
from gradgate.checks.fold import fold
from gradgate.checks.gradient.compare import Change, compare
from gradgate.checks.gradient.facts import Param, RevisionFacts, Step
from gradgate.checks.gradient.findings import findings_for as gradient_findings
from gradgate.checks.gradient.reach import reach
from gradgate.checks.gradient.words import (
    factory_shape,
    unnamed_words,
    unreached_words,
    untested_words,
)
from gradgate.checks.protected.findings import zone_touched

from tests.checks.api_contract.test_check import pull_request as api_pull_request
from tests.checks.config_docs.pr import pull_request as docs_pull_request
from tests.gitrepo import GitRepo

# What a ModuleDict key, a file name or a README value can hold.
ODD = ["{x}", "{}", "{0..1}", "%s", "%(k)d", "`q`", "ü€"]


def _param(name: str, norms: tuple[float | None, ...], *, reachable: bool = True,
           trainable: bool = True) -> Param:  # fmt: skip
    return Param((name,), (2,), 2, trainable, True, False, reachable, norms, (0, 0))


def _facts(revision: str, params: Sequence[Param]) -> RevisionFacts:
    return RevisionFacts(
        revision=revision, torch="2", device="cpu", loss="projection",
        steps=(Step(1, 1, True), Step(1, 1, True)), params=tuple(params), buffers=frozenset(),
        top_modules=("blocks",), unregistered=(), module_hooks=(), sources={}, failure=None,
    )  # fmt: skip


@pytest.mark.parametrize("odd", ODD)
def test_every_gradient_finding_takes_odd_names_over_repeated_blocks(odd: str) -> None:
    ok, dead = (1.0, 1.0), (None, None)
    base: list[Param] = []
    head: list[Param] = []
    for i in range(3):  # three copies of a block: the names fold to `blocks.{0..2}.…`
        for p in ("weight", "bias"):
            pre = f"blocks.{i}.{odd}"
            base += [_param(f"{pre}up.{p}", dead, reachable=False), _param(f"{pre}dn.{p}", ok)]
            head += [_param(f"{pre}up.{p}", ok), _param(f"{pre}dn.{p}", dead, reachable=False)]
            base.append(_param(f"{pre}fz.{p}", ok))
            head.append(_param(f"{pre}fz.{p}", ok, trainable=False))
            base.append(_param(f"{pre}nr.{p}", ok))
            head.append(_param(f"{pre}nr.{p}", (0.001, 0.001)))
            base.append(_param(f"{pre}gone.{p}", ok))
            head.append(_param(f"{pre}new.{p}", dead, reachable=False))
    found = gradient_findings(compare(_facts("base", base), _facts("head", head)))
    kinds = {f.kind for f in found}
    for change in (Change.GAINED, Change.LOST, Change.FROZEN, Change.NORM_RATIO, Change.REMOVED,
                   Change.NEW_DEAD):  # fmt: skip
        assert f"gradient-{change.value}" in kinds, kinds
    (gained,) = [f for f in found if f.kind == "gradient-gained"]
    assert gained.message.startswith(
        f"`blocks.{{0..2}}.{odd}up.*` (6 parameters), in 3 blocks alike learned nothing at base"
    )
    assert "so they now train and" in gained.message
    for f in found:
        assert odd in f.message, f.message


@pytest.mark.parametrize("odd", ODD)
def test_gradient_untested_words_and_factory_shape_take_odd_file_names(odd: str) -> None:
    file = f"pkg/{odd}.py"
    assert file in untested_words([(file, [(3, 4)], [odd])], ["default", odd])
    assert file in unreached_words([(file, [(3, 4)], [f"GPT.{odd}"])])
    assert file in unnamed_words([(file, [(3, 4)])], ["default", odd])
    assert "def build():" in factory_shape(file, [(3, 4)], ["default", odd], odd)
    source = f"class M:\n    def forward(self):\n        if self.x:\n            return '{odd}'\n"
    assert reach(file, [(4, 4)], source).guards == ("x",)


@pytest.mark.parametrize("odd", ODD)
def test_checkpoint_findings_and_their_rules_take_odd_keys(odd: str) -> None:
    missing = tuple(f"h.{i}.{odd}.weight" for i in range(2))
    judgement = Judgement(
        missing=missing,
        unexpected=(f"{odd}.bias",),
        shapes={f"emb.{odd}": ((2, 3), (3, 2))},
        dtypes={f"{odd}.scale": ("float32", "bfloat16")},
        errors=(),
    )
    found, _ = checkpoint_findings(
        judgement, label=f"`ckpt/{odd}.pt`", file=f"ckpt/{odd}.pt", rules=(), verified=None,
        dtype_severity=Severity.WARNING,
    )  # fmt: skip
    assert found and all(odd in f.message for f in found), [f.message for f in found]
    assert [f.text for f in fold(missing)] == [f"h.{{0,1}}.{odd}.weight"]
    assert key_pattern(missing)  # a rule, not a crash


@pytest.mark.parametrize("odd", ODD)
def test_protected_zone_words_take_odd_paths(odd: str) -> None:
    finding = zone_touched(f"zone {odd}", [f"src/{odd}.py"], [f"@{odd}"])
    assert f"src/{odd}.py" in finding.message


def _messages(found: Sequence[Finding]) -> str:
    return "\n".join(f.message for f in found)


def test_api_contract_words_take_odd_defaults_and_names(repo: GitRepo) -> None:
    base = 'def loss(targets, preds, tag="{x} %s `q` ü€"):\n    return 0\n'
    head = 'def loss(preds, tärgets, tag="{y} %(k)d `r` €"):\n    return 0\n'
    user = "from pkg.losses import loss\n\n\ndef f(y, p):\n    return loss(y, p, tag='{z}')\n"
    result = api_pull_request(
        repo,
        {"pkg/__init__.py": "", "pkg/losses.py": base, "pkg/use.py": user},
        {"pkg/losses.py": head},
    )
    text = _messages(result.findings)
    assert "tärgets" in text and "{y} %(k)d `r` €" in text, text


def test_config_docs_words_take_odd_keys_and_values(repo: GitRepo) -> None:
    readme = (
        "# x\n\n| option | default | meaning |\n|---|---|---|\n"
        "| `tëmplate` | `{x} %s` | the `{name}` pattern |\n"
    )
    result = docs_pull_request(
        repo,
        {"README.md": readme, "configs/train.yaml": "tëmplate: '{x} %s'\n"},
        {"configs/train.yaml": "tëmplate: '{y} %(k)d `q` ü€'\n"},
    )
    text = _messages(result.findings)
    assert "tëmplate" in text and "{y} %(k)d" in text, result.findings


@pytest.mark.parametrize("odd", ODD)
def test_data_and_dl_lint_words_take_odd_outputs_code_and_calls(odd: str) -> None:
    from gradgate.checks.data.compare import Comparison
    from gradgate.checks.data.findings import findings_for as data_findings
    from gradgate.checks.data.outputs import Difference, OutputChange, Site
    from gradgate.checks.dl_lint.findings import finding as lint_finding
    from gradgate.checks.dl_lint.scan import Hit

    compared = Comparison(
        base_form="numpy", head_form="numpy", outputs=1,
        changes=(OutputChange(f"output.{odd}", (Difference("range", f"scaled by {odd}"),)),),
        nondeterministic={"head": (f"output.{odd}",)},
        unseeded={"head": Site(f"{odd}.py", 3, f"x = rng({odd!r})")},
    )  # fmt: skip
    found = data_findings(compared, allow=())
    assert len(found) == 2 and all(odd in f.message for f in found), found
    hit = Hit("seed-without-torch", 3, 3, "k", {"call": f"np.random.seed({odd!r})"})
    said = lint_finding(hit, Severity.WARNING, f"{odd}.py", f"np.random.seed({odd!r})", odd)
    assert f"np.random.seed({odd!r})" in said.message and f"graded warning here: {odd}" in (
        said.message
    )

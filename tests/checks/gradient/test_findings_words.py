"""What the gradient check says, in milliseconds: base and head facts written by hand, through
the comparison to every finding's words, severity, line and pasteable allow rule
(golden/findings_words.txt), one case a change kind, state, count and kind of spot. The
end-to-end tests (test_findings.py, in the slow group) reach the same code through real
children; these reach it fast enough for a mutation run of findings.py to see them."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from gradgate.checks.base import Finding, Severity
from gradgate.checks.diff import LineSpan
from gradgate.checks.gradient.compare import Comparison, compare
from gradgate.checks.gradient.edits import GradientEdit
from gradgate.checks.gradient.facts import Failure, Param, RevisionFacts
from gradgate.checks.gradient.findings import accepted, findings_for
from gradgate.checks.gradient.settings import AllowRule
from gradgate.checks.model.lines import ClassSource, PullDiff

from tests.checks.gradient.test_compare import facts, param

GOLDEN = Path(__file__).parent / "golden" / "findings_words.txt"


def p(name: str, look: str = "ok") -> Param:
    """A parameter as ``test_compare.param`` makes it, and the states it has no look for."""
    if look == "zero":
        made: Param = replace(param(name), norms=(0.0,))
    elif look == "non-finite":
        made = replace(param(name), norms=(float("nan"),))
    elif look in DEAD:
        made = replace(param(name, "detached"), ran_with_grad=False)
        made = replace(made, ran_without_grad=look == "no-grad")
    else:
        made = param(name, look)
    return made


DEAD = ("no-grad", "never-executed")


def pair(was: str | None, now: str | None, *names: str) -> tuple[RevisionFacts, RevisionFacts]:
    base = facts("base", *(p(n, was) for n in names)) if was else facts("base")
    head = facts("head", *(p(n, now) for n in names)) if now else facts("head")
    return base, head


# Where each module's class is written (its forward from line 5), and a PR's edits.
SOURCES = {
    "enc": ClassSource("Encoder", "model.py", 5, start=3, end=10),
    "dec": ClassSource("Decoder", "model.py", 15, start=13, end=20),
}
DETACH_IN_ENC = PullDiff(
    {"model.py": (LineSpan(7, 7),)}, (GradientEdit("model.py", 7, ".detach()"),)
)
DETACH_IN_BOTH = PullDiff(
    {"model.py": (LineSpan(7, 7), LineSpan(17, 17))},
    (
        GradientEdit("model.py", 7, ".detach()"),
        GradientEdit("model.py", 17, ".detach()"),
    ),
)
FREEZE_IN_TRAIN = PullDiff(
    {"model.py": (LineSpan(8, 8),), "train.py": (LineSpan(2, 2),)},
    (
        GradientEdit("model.py", 4, ".detach()", removed=True),
        GradientEdit("train.py", 2, "requires_grad="),
    ),
)
ONLY_CHANGED = PullDiff({"model.py": (LineSpan(8, 9),)})


def sourced(
    c: tuple[RevisionFacts, RevisionFacts],
) -> tuple[RevisionFacts, RevisionFacts]:
    base, head = c
    return replace(base, sources=SOURCES), replace(head, sources=SOURCES)


def nan_at(file: str | None) -> Failure:
    return Failure(1, "non-finite", "div", "forward", file, 12, "e / e.norm()", None)


def failing(file: str | None) -> tuple[RevisionFacts, RevisionFacts]:
    base, head = pair("ok", "non-finite", "enc.w")
    return base, replace(head, failure=nan_at(file))


def two_modules() -> tuple[RevisionFacts, RevisionFacts]:
    """The attention of both an encoder and a decoder cut off; their MLPs still learn."""
    learn = (p("enc.mlp.w"), p("dec.mlp.w"))
    base = facts("base", p("enc.attn.w"), p("dec.attn.w"), *learn)
    head = facts("head", p("enc.attn.w", "detached"), p("dec.attn.w", "detached"), *learn)
    return replace(base, sources=SOURCES), replace(head, sources=SOURCES)


def _case(name: str) -> tuple[Comparison, dict[str, Any]]:
    base, head = CASES[name]
    kwargs = dict(OPTIONS.get(name, {}))
    allow = kwargs.pop("allow", ())
    return compare(base, head, allow=allow), kwargs


# (base look or None: new at head, head look or None: gone at head)
LOOK_CHANGES = [
    ("ok", "detached"), ("ok", "frozen"), ("ok", "tiny"), ("ok", "zero"), ("ok", "no-grad"),
    ("ok", "never-executed"), (None, "detached"), (None, "tiny"), ("frozen", "detached"),
    ("detached", "detached"), ("detached", "ok"), ("no-grad", "ok"), ("ok", None),
    ("ok", "non-finite"),
]  # fmt: skip
CASES: dict[str, tuple[RevisionFacts, RevisionFacts]] = {
    **{
        f"{was} -> {now}, {len(names)}": pair(was, now, *names)
        for was, now in LOOK_CHANGES
        for names in (("enc.w",), ("enc.w", "enc.b"))
    },
    "became a buffer, 1": (
        facts("base", p("enc.w")),
        facts("head", buffers=("enc.w",)),
    ),
    "became buffers, 2": (
        facts("base", p("enc.w"), p("enc.b")),
        facts("head", buffers=("enc.w", "enc.b")),
    ),
    "removed, with layers unregistered at head": (
        facts("base", p("enc.w")),
        facts("head", unregistered=(("scale", (1,)),)),
    ),
    "norm ratio, 1": (
        facts("base", replace(p("enc.w"), norms=(1.0,))),
        facts("head", replace(p("enc.w"), norms=(20.0,))),
    ),
    "norm ratio, 2": (
        facts("base", replace(p("enc.w"), norms=(1.0,)), replace(p("enc.b"), norms=(1.0,))),
        facts(
            "head",
            replace(p("enc.w"), norms=(0.01,)),
            replace(p("enc.b"), norms=(0.02,)),
        ),
    ),
    "gained as a note": pair("detached", "ok", "enc.w"),
    "gained as blocking": pair("detached", "ok", "enc.w", "dec.w"),
    "gained at a changed line": sourced(pair("detached", "ok", "enc.w")),
    "lost at the added detach": sourced(pair("ok", "detached", "enc.w", "enc.b")),
    "lost at a changed line": sourced(pair("ok", "no-grad", "enc.w")),
    "lost, no line changed": sourced(pair("ok", "detached", "enc.w")),
    "never executed at a changed line": sourced(pair("ok", "never-executed", "enc.w")),
    "zero, no edit explains it": sourced(pair("ok", "zero", "enc.w")),
    "frozen at an edit in another file": sourced(pair("ok", "frozen", "enc.w")),
    "weakened: no line explains it": sourced(pair("ok", "tiny", "enc.w")),
    "new and dead, at the added detach": sourced(pair(None, "detached", "enc.w")),
    "non-finite at its line": failing("model.py"),
    "non-finite outside the tree": failing("/usr/lib/torch/functional.py"),
    "non-finite, no file": failing(None),
    "two modules cut at one line": two_modules(),
    "two modules cut at two lines": two_modules(),
    "two modules, one changed line": two_modules(),
    "two modules, no line changed": two_modules(),
    "two modules, the second one changed": two_modules(),
    "detached, a detach added outside its class": sourced(pair("ok", "detached", "enc.w")),
    "gained from two states": (
        facts("base", p("enc.w", "detached"), p("enc.b", "no-grad")),
        facts("head", p("enc.w"), p("enc.b")),
    ),
    "two kinds of change": (
        facts("base", p("enc.w"), p("dec.w")),
        facts("head", p("enc.w", "detached"), p("dec.w", "tiny")),
    ),
    "removed beside a new parameter": (
        facts("base", p("enc.w"), p("enc.b")),
        facts("head", p("enc.c")),
    ),
    "lost beside a new parameter": (
        facts("base", p("enc.w"), p("enc.b")),
        facts("head", p("enc.w", "detached"), p("enc.b", "detached"), p("enc.c")),
    ),
    "norm ratios in two modules": (
        facts("base", *(replace(p(n), norms=(1.0,)) for n in ("enc.attn.w", "dec.attn.w"))),
        facts(
            "head",
            replace(p("enc.attn.w"), norms=(20.0,)),
            replace(p("dec.attn.w"), norms=(0.02,)),
        ),
    ),
    "gained, an edit in its class": sourced(pair("detached", "ok", "enc.w")),
    "allowed": pair("ok", "detached", "enc.w", "enc.b", "dec.w", "mid.w"),
    "cut at the output, and a parameter frozen": (
        facts("base", p("enc.w"), p("dec.w")),
        facts("head", p("enc.w", "detached"), p("dec.w", "frozen"), output_grad=0),
    ),
    "cut at the output": (
        facts("base", p("enc.w")),
        facts("head", p("enc.w", "detached"), output_grad=0),
    ),
}
ALLOW = (
    AllowRule(pattern="enc.*", reason="the encoder is frozen on purpose"),
    AllowRule(pattern="dec.w", reason="tried without it"),
)
OPTIONS: dict[str, dict[str, Any]] = {
    "gained as a note": {"gained": Severity.NOTE},
    "gained as blocking": {"gained": Severity.BLOCKING},
    "gained at a changed line": {"diff": ONLY_CHANGED},
    "gained, an edit in its class": {"diff": DETACH_IN_ENC},
    "lost at the added detach": {"diff": DETACH_IN_ENC},
    "lost at a changed line": {"diff": replace(DETACH_IN_ENC, head_lines=ONLY_CHANGED.head_lines)},
    "never executed at a changed line": {"diff": DETACH_IN_ENC},
    "zero, no edit explains it": {"diff": DETACH_IN_ENC},
    "frozen at an edit in another file": {"diff": FREEZE_IN_TRAIN},
    "weakened: no line explains it": {"diff": DETACH_IN_ENC},
    "new and dead, at the added detach": {"diff": DETACH_IN_ENC},
    "two modules cut at one line": {"diff": DETACH_IN_ENC},
    "two modules cut at two lines": {"diff": DETACH_IN_BOTH},
    "two modules, one changed line": {"diff": ONLY_CHANGED},
    "two modules, the second one changed": {"diff": PullDiff({"model.py": (LineSpan(17, 18),)})},
    "detached, a detach added outside its class": {
        "diff": PullDiff(
            {"model.py": (LineSpan(8, 8),), "train.py": (LineSpan(2, 2),)},
            (GradientEdit("train.py", 2, ".detach()"),),
        )
    },
    "allowed": {"allow": ALLOW},
}


def _render(finding: Finding) -> str:
    where = f"{finding.file}:{finding.line} ({finding.revision})" if finding.file else "-"
    details = f"\n{finding.details_lang}:\n{finding.details}" if finding.details else ""
    return f"{finding.kind} {finding.severity} {where}\n{finding.message}{details}\n"


def test_every_finding_reads_as_its_golden_file() -> None:
    text = ""
    for name in CASES:
        c, kwargs = _case(name)
        found = findings_for(c, **kwargs)
        text += f"## {name}\n" + "".join(_render(f) for f in found) + "\n"
    if os.environ.get("GRADGATE_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
        pytest.fail(f"GRADGATE_UPDATE_GOLDEN is set: rewrote {GOLDEN.name}; review it")
    assert text == GOLDEN.read_text(encoding="utf-8"), (
        f"regenerate with GRADGATE_UPDATE_GOLDEN=1 and review {GOLDEN}"
    )


def test_the_severity_of_each_change_and_only_blocking_findings_carry_an_allow_rule() -> None:
    for name in CASES:
        c, kwargs = _case(name)
        for f in findings_for(c, **kwargs):
            if f.kind.startswith("gradient-") and f.severity is Severity.BLOCKING:
                assert f.details is None or f.details.startswith("checks:\n  gradient:\n")
            if f.severity is not Severity.BLOCKING and f.kind != "gradient-unregistered":
                assert f.details is None, (name, f)


def test_what_the_allow_rules_accepted_is_one_entry_per_rule_and_change() -> None:
    """`mid.w` lost its gradient too, unallowed; the anchor matches no rule and did not change."""
    c, _ = _case("allowed")
    unused = AllowRule(pattern="anchor", reason="it did not change")
    assert accepted(c, ALLOW) == accepted(c, [*ALLOW, unused])
    assert [(s.rule, s.origin, s.reason) for s in accepted(c, ALLOW)] == [
        ("allow: enc.* (lost-gradient)", "config", "the encoder is frozen on purpose"),
        ("allow: dec.w (lost-gradient)", "config", "tried without it"),
    ]
    assert accepted(c, []) == []


# Each kind of edit that cuts a parameter off, by the state it explains.
EXPLAINS = [
    *((look, construct) for look in ("detached", "no-grad") for construct in (
        ".detach()", ".detach_()", ".data", "torch.no_grad", "torch.inference_mode",
        "torch.set_grad_enabled",
    )),
    *(("frozen", construct) for construct in (".requires_grad_()", ".requires_grad",
                                              "requires_grad=")),
]  # fmt: skip


@pytest.mark.parametrize(("look", "construct"), EXPLAINS)
def test_a_finding_points_at_the_added_edit_that_explains_it(look: str, construct: str) -> None:
    """Not at the first line the PR changed in the class (6): at the edit (8), or for a
    freeze, at one anywhere in the PR (a training script)."""
    base, head = sourced(pair("ok", look, "enc.w"))
    path = "train.py" if look == "frozen" else "model.py"
    diff = PullDiff(
        {"model.py": (LineSpan(6, 6), LineSpan(8, 8)), path: (LineSpan(8, 8),)},
        (GradientEdit(path, 8, construct),),
    )
    (finding,) = findings_for(compare(base, head), diff=diff)
    assert (finding.file, finding.line, finding.revision) == (path, 8, "head")
    assert finding.message.endswith(f" (it points at the `{construct}` this PR added.)")


@pytest.mark.parametrize("look", ["detached", "no-grad", "frozen", "zero"])
def test_an_edit_that_cannot_explain_the_state_is_not_pointed_at(look: str) -> None:
    """A freeze does not explain a detached parameter, nor a `.detach()` a frozen one."""
    base, head = sourced(pair("ok", look, "enc.w"))
    construct = ".detach()" if look == "frozen" else ".requires_grad_()"
    diff = PullDiff({"model.py": (LineSpan(6, 6), LineSpan(8, 8))}, (
        GradientEdit("model.py", 8, construct),
    ))  # fmt: skip
    (finding,) = findings_for(compare(base, head), diff=diff)
    assert (finding.file, finding.line) == ("model.py", 6)
    assert "(it points at a line this PR changed in `Encoder`.)" in finding.message

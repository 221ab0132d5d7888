"""Signature changes and what they do to one call, as Python would bind it (pure)."""

from __future__ import annotations

import ast

import pytest
from gradgate.checks.api_contract.changes import Change, compare, effects
from gradgate.checks.api_contract.signatures import Kind, headers, signatures


def change(base: str, head: str, name: str = "f") -> Change | None:
    before, after = signatures(ast.parse(base))[name], signatures(ast.parse(head))[name]
    return compare("m.py", f"m.{name}", before, after)


def said(base: str, head: str, call: str, *, implicit: int = 0, unchanged: bool = True) -> list:
    found = change(base, head)
    assert found is not None
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    return [
        (e.kind, e.argument, e.was, e.now)
        for e in effects(found, node, implicit=implicit, unchanged=unchanged)
    ]


def test_reorder_moves_positional_arguments_and_spares_keywords() -> None:
    base, head = "def f(targets, preds): ...", "def f(preds, targets): ..."
    found = change(base, head)
    assert found is not None and found.reordered and found.shifted
    assert said(base, head, "f(y, out)") == [
        ("moved", "y", "targets", "preds"),
        ("moved", "out", "preds", "targets"),
    ]
    assert said(base, head, "f(targets=y, preds=out)") == []
    assert said(base, head, "f(out, y)", unchanged=False) == []  # written for the new order


def test_an_inserted_parameter_shifts_the_ones_after_it() -> None:
    base, head = "def f(x, scale=1.0): ...", "def f(x, bias=0.0, scale=1.0): ..."
    found = change(base, head)
    assert found is not None and found.shifted and not found.reordered
    assert said(base, head, "f(a, 2.0)") == [("moved", "2.0", "scale", "bias")]
    assert said(base, head, "f(a)") == []


def test_a_parameter_appended_with_a_default_changes_nothing() -> None:
    assert change("def f(x): ...", "def f(x, y=1): ...") is None
    assert change("def f(x):\n    return 1", "def f(x):\n    return 2") is None


@pytest.mark.parametrize(
    ("base", "head", "call", "expected"),
    [
        (
            "def f(x, reduction='mean'): ...",
            "def f(x, reduce='mean'): ...",
            "f(a, reduction='sum')",
            [("renamed", "reduction", "reduction", "reduce")],
        ),
        (
            "def f(x, *, weight=None): ...",
            "def f(x, *, class_weight=None): ...",
            "f(a, weight=w)",
            [("renamed", "weight", "weight", "class_weight")],
        ),
        (
            "def f(x, reduction='mean', eps=1e-6): ...",
            "def f(x, eps=1e-6): ...",
            "f(a, reduction='sum')",
            [("removed", "reduction", "reduction", None)],
        ),
        (
            "def f(x, weight=None): ...",
            "def f(x, *, weight=None): ...",
            "f(a, w)",
            [("keyword-only", "w", "weight", "weight")],
        ),
        (
            "def f(x, y): ...",
            "def f(x, y, /): ...",
            "f(a, y=b)",
            [("positional-only", "y", "y", "y")],
        ),
        (
            "def f(x): ...",
            "def f(x, scale): ...",
            "f(a)",
            [("missing", "scale", None, None)],
        ),
        (
            "def f(x, scale=1.0): ...",
            "def f(x, scale): ...",
            "f(a)",
            [("missing", "scale", None, None)],
        ),
        ("def f(x): ...", "def f(x, scale): ...", "f(*args)", []),  # can't tell: not judged
    ],
)
def test_loud_breaks(base: str, head: str, call: str, expected: list) -> None:
    assert said(base, head, call) == expected


def test_renamed_positional_parameter_keeps_positional_callers() -> None:
    base, head = "def f(targets, preds): ...", "def f(target, preds): ..."
    found = change(base, head)
    assert found is not None and found.renamed == {"targets": "target"} and not found.shifted
    assert said(base, head, "f(y, out)") == []
    assert said(base, head, "f(targets=y, preds=out)") == [
        ("renamed", "targets", "targets", "target")
    ]


def test_default_change_is_recorded_with_old_and_new() -> None:
    found = change("def f(x, eps=1e-6): ...", "def f(x, eps=1e-8): ...")
    assert found is not None and not found.callers_matter
    assert found.defaults == (("eps", "1e-06", "1e-08"),)
    assert change("def f(x, eps=1e-6): ...", "def f(x, eps=0.000001): ...") is None


def test_methods_skip_self_and_know_how_they_are_called() -> None:
    base = "class M:\n    def update(self, preds, target): ...\n"
    head = "class M:\n    def update(self, target, preds): ...\n"
    found = change(base, head, "M.update")
    assert found is not None and found.head.kind is Kind.METHOD
    node = ast.parse("m.update(p, t)", mode="eval").body
    assert isinstance(node, ast.Call)
    assert [e.now for e in effects(found, node, implicit=1, unchanged=True)] == ["target", "preds"]
    statics = signatures(ast.parse("class M:\n    @staticmethod\n    def s(a): ...\n"))
    assert statics["M.s"].implicit(via_instance=True) == 0


def test_properties_and_overloads_are_not_signatures() -> None:
    source = (
        "from typing import overload\n"
        "class M:\n"
        "    @property\n"
        "    def size(self): ...\n"
        "    @size.setter\n"
        "    def size(self, v): ...\n"
        "@overload\n"
        "def f(x: int) -> int: ...\n"
        "def f(x, y=0): ...\n"
        "def outer():\n"
        "    def inner(a, b): ...\n"
    )
    found = signatures(ast.parse(source))
    assert set(found) == {"f", "outer"}  # not `inner`: nobody outside `outer` calls it
    assert [p.name for p in found["f"].positional] == ["x", "y"]


def test_equal_headers_mean_equal_signatures_and_odd_ones_are_not_trusted() -> None:
    source = b"@torch.no_grad()\ndef f(x, y=g(h(1)), *, z: int = 2) -> int:\n    return 1\n"
    assert headers(source) == [b"@torch.no_grad()", b"deff(x,y=g(h(1)),*,z:int=2)->int:"]
    assert headers(source) == headers(source.replace(b"return 1", b"return 2"))
    assert headers(source) != headers(
        source.replace(b"x, y=", b"y=").replace(b"(1)),", b"(1)), x,")
    )
    multi = b"class A:\n    def m(\n        self,\n        a,  # first\n        b,\n    ):\n"
    assert headers(multi) == [b"classA:", b"defm(self,a,#firstb,):"]
    assert headers(b'def f(x=")", y={1: 2}):\n    pass\n') is None  # a ")" in a string
    assert headers(b"def f(x): return x\n") is None  # a one-line def: parse it


def test_a_renamed_parameter_is_not_a_changed_default() -> None:
    # `theta=10000.0` replaced by `device=None` (the signature was rewritten): not `device`'s
    # default changing from 10000.0, and not a rename either (issue 36): `theta` is removed
    # and `device` added; `dim` -> `config`, both required in the same place, is a rename.
    found = change("def f(self, dim, theta=10000.0): ...", "def f(self, config, device=None): ...")
    assert found is not None
    assert found.renamed == {"dim": "config"}
    assert found.removed == ("theta",)
    assert found.defaults == ()


def test_a_keyword_a_kwargs_head_takes_is_absorbed_not_removed() -> None:
    base = "def f(x, use_cache=False, **kwargs): ..."
    assert said(base, "def f(x, **kwargs): ...", "f(a, use_cache=True)") == [
        ("absorbed", "use_cache", "use_cache", None)
    ]
    assert said(base, "def f(x): ...", "f(a, use_cache=True)") == [
        ("removed", "use_cache", "use_cache", None)
    ]


def test_a_method_s_self_is_never_required_nor_made_positional_only() -> None:
    base = "class M:\n    def update(self, preds): ...\n"
    required = change(base, "class M:\n    def update(self, preds, target): ...\n", "M.update")
    assert required is not None and required.required == ("target",)
    node = ast.parse("m.update(p)", mode="eval").body
    assert isinstance(node, ast.Call)
    assert [(e.kind, e.argument) for e in effects(required, node, implicit=1, unchanged=True)] == [
        ("missing", "target")
    ]
    slashed = change(base, "class M:\n    def update(self, preds, /): ...\n", "M.update")
    assert slashed is not None and slashed.positional_only == ("preds",)


def test_arguments_after_one_that_still_binds_alike_are_judged_too() -> None:
    base, head = "def f(x, y, z): ...", "def f(x, z, y): ..."
    assert said(base, head, "f(a, b, c)") == [("moved", "b", "y", "z"), ("moved", "c", "z", "y")]


@pytest.mark.parametrize(
    ("old", "new"),
    [("eps=1e-6", "epsilon=1e-8"),  # names alike: 0.6 by difflib's ratio, the bound itself
     ("dim_model=512", "model_dim=256"),  # the same words in another order
     ("reduction='mean'", "reduce='sum'")],
)  # fmt: skip
def test_a_parameter_renamed_with_a_new_default_is_still_a_rename(old: str, new: str) -> None:
    base, head = f"def f(x, {old}): ...", f"def f(x, {new}): ..."
    name, renamed = old.split("=")[0], new.split("=")[0]
    assert said(base, head, f"f(a, {name}=1)") == [("renamed", name, name, renamed)]


def test_parameters_that_share_no_word_nor_likeness_are_a_removal_and_an_addition() -> None:
    assert said("def f(x, theta=1.0): ...", "def f(x, device=None): ...", "f(a, theta=2.0)") == [
        ("removed", "theta", "theta", None)
    ]


def test_arguments_after_a_starred_one_have_no_known_place() -> None:
    base, head = "def f(targets, preds): ...", "def f(preds, targets): ..."
    assert said(base, head, "f(*pair, out)") == []
    assert said(base, head, "f(y, *rest)") == [("moved", "y", "targets", "preds")]

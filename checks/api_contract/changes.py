"""How a signature changed from base to head, and what that does to one call of it (pure).

A call is judged by how Python would bind it: the n-th positional argument goes to the n-th
positional parameter, keywords by name. A positional argument that bound to `targets` at base
and binds to `logits` at head now means something else, silently; a keyword that names a
removed parameter, a missing required argument, or a positional argument to a parameter that
became keyword-only fails loudly.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from difflib import SequenceMatcher

from gradgate.checks.api_contract.signatures import Param, Signature


@dataclass(frozen=True, slots=True)
class Change:
    """A function or method whose signature differs between base and head."""

    path: str  # where it is defined at head
    full: str  # its qualified name at head (module.qualname)
    base: Signature
    head: Signature
    renamed: dict[str, str]  # base name -> head name
    removed: tuple[str, ...]
    reordered: bool  # parameters on both sides stand in another order
    shifted: bool  # a positional argument now binds to another parameter (a reorder, an insert)
    keyword_only: tuple[str, ...]  # positional at base, keyword-only at head
    positional_only: tuple[str, ...]  # could be passed by keyword at base, not at head
    required: tuple[str, ...]  # required at head, optional or absent at base
    defaults: tuple[tuple[str, str, str], ...]  # (name, old default, new default)

    @property
    def callers_matter(self) -> bool:
        return bool(
            self.shifted
            or self.renamed
            or self.removed
            or self.keyword_only
            or self.positional_only
            or self.required
        )


@dataclass(frozen=True, slots=True)
class Effect:
    """What a change does to one call."""

    # "moved" | "renamed" | "removed" | "absorbed" (a keyword the head's `**kwargs` now takes)
    # | "packed" (a positional argument the head's `*args` now takes)
    # | "keyword-only" | "positional-only" | "missing"
    # | "defaulted" (leaves out, or may leave out through `*`/`**`, a parameter whose default
    # changed: it gets the new value; never a failure)
    kind: str
    argument: str  # the argument as code, or the parameter's name for "missing"
    was: str | None = None  # the parameter it bound to at base
    now: str | None = None  # at head (None: no parameter takes it any more)


def compare(path: str, full: str, base: Signature, head: Signature) -> Change | None:
    """The change from ``base`` to ``head``, or None when callers cannot tell them apart."""
    base_pos = [p.name for p in base.positional]
    head_pos = [p.name for p in head.positional]
    base_names, head_names = set(base.names()), set(head.names())
    head_by_name = {p.name: p for p in (*head.positional, *head.keyword_only)}
    renamed = {
        name: head_pos[i]
        for i, name in enumerate(base_pos)
        if name not in head_names
        and i < len(head_pos)
        and head_pos[i] not in base_names
        and _related(base.positional[i], head.positional[i])
    }
    gone_kw = [p for p in base.keyword_only if p.name not in head_names]
    new_kw = [n for n in head_names - base_names if n not in renamed.values()]
    if len(gone_kw) == 1 and len(new_kw) == 1 and _related(gone_kw[0], head_by_name[new_kw[0]]):
        renamed[gone_kw[0].name] = new_kw[0]
    mapped = [renamed.get(n, n) for n in base_pos]
    common = [n for n in mapped if n in head_pos]
    head_kw_only = {p.name for p in head.keyword_only}
    base_by_name = {renamed.get(p.name, p.name): p for p in (*base.positional, *base.keyword_only)}
    skip = base.implicit(via_instance=True)  # `self` is never passed by the caller
    keywordable = {renamed.get(p.name, p.name) for p in base.positional[base.positional_only :]}
    keywordable |= {renamed.get(p.name, p.name) for p in base.keyword_only}
    change = Change(
        path=path,
        full=full,
        base=base,
        head=head,
        renamed=renamed,
        removed=tuple(n for n in base.names() if n not in head_names and n not in renamed),
        reordered=common != [n for n in head_pos if n in common],
        # (A parameter past the new positional ones was removed or made keyword-only: those
        # say so themselves.)
        shifted=any(i < len(head_pos) and head_pos[i] != m for i, m in enumerate(mapped)),
        keyword_only=tuple(m for m in mapped if m in head_kw_only),
        positional_only=tuple(n for n in head_pos[skip : head.positional_only] if n in keywordable),
        required=tuple(
            p.name
            for p in (*head.positional[skip:], *head.keyword_only)
            if p.default is None
            and ((was := base_by_name.get(p.name)) is None or was.default is not None)
        ),
        defaults=tuple(  # of a parameter kept under its name (a renamed one is another)
            (p.name, was.gets or was.default, p.gets or p.default)  # what callers get
            for p in (*head.positional, *head.keyword_only)
            if p.default is not None
            and p.name not in renamed.values()
            and (was := base_by_name.get(p.name)) is not None
            and was.default is not None
            and was.default_dump != p.default_dump
            and was.effective != p.effective  # `x=None` + `x = 3 if x is None else x` -> `x=3`
        ),
    )
    if not change.callers_matter and not change.defaults:
        return None
    return change


def effects(change: Change, node: ast.Call, *, implicit: int, unchanged: bool) -> list[Effect]:
    """What ``change`` does to the call ``node``. ``implicit``: parameters the call fills
    itself (`self`); ``unchanged``: the call stood the same at base, so its positional
    arguments were written for the base order (a call written in this PR is trusted to use
    the new one)."""
    positional = []
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            break
        positional.append(arg)
    keywords = [k.arg for k in node.keywords if k.arg is not None]
    spread = len(positional) < len(node.args) or len(keywords) < len(node.keywords)
    out: list[Effect] = []
    base, head = change.base, change.head
    for j, arg in enumerate(positional):
        i = j + implicit
        was = _bound(base.positional, i, base.varargs)
        now = _bound(head.positional, i, head.varargs)
        if was is None or change.renamed.get(was, was) == now:
            continue
        text = ast.unparse(arg)
        if now == "*args":
            # It still arrives, in its place: `*args` takes it the way `**kwargs` takes a
            # keyword (issue 36: `def default(val, d)` -> `def default(*args)`).
            out.append(Effect("packed", text, was, now))
        elif change.renamed.get(was, was) in change.keyword_only:
            out.append(Effect("keyword-only", text, was, change.renamed.get(was, was)))
        elif unchanged or now is None:
            out.append(Effect("moved", text, was, now))
    for name in keywords:
        if name in change.renamed or name in change.removed:
            if head.varkw:  # no TypeError: the value now lands in `**kwargs`
                out.append(Effect("absorbed", name, name, change.renamed.get(name)))
            elif name in change.renamed:
                out.append(Effect("renamed", name, name, change.renamed[name]))
            else:
                out.append(Effect("removed", name, name))
        elif name in change.positional_only:
            out.append(Effect("positional-only", name, name, name))
    given = set(keywords) | {
        n
        for n in (_bound(head.positional, j + implicit, False) for j in range(len(positional)))
        if n
    }
    if not spread:
        out += [Effect("missing", name) for name in change.required if name not in given]
    out += [
        Effect("defaulted", name) for name, _, _ in change.defaults if spread or name not in given
    ]
    return out


def _related(old: Param, new: Param) -> bool:
    """Is ``new`` a rename of ``old``, not a parameter added beside a removed one? The same
    default (or both required), or names alike (`heads` -> `num_heads`, `reduction` ->
    `reduce`): `theta=10000.0` -> `device=None` is a removal and an addition (issue 36)."""
    if old.default_dump == new.default_dump:
        return True
    a, b = old.name.lower().strip("_"), new.name.lower().strip("_")
    if {w for w in a.split("_") if w} & {w for w in b.split("_") if w}:
        return True
    return SequenceMatcher(None, a, b).ratio() >= 0.6


def _bound(params: tuple[Param, ...], index: int, varargs: bool) -> str | None:
    if index < len(params):
        return params[index].name
    return "*args" if varargs else None

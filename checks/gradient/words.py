"""The gradient check's sentences: states, likely causes, counts (pure; no decisions here)."""

from __future__ import annotations

import keyword
from collections.abc import Sequence

from gradgate.checks.fold import PLACE, split
from gradgate.checks.gradient.classify import TINY_RATIO, State
from gradgate.checks.gradient.facts import Failure
from gradgate.checks.gradient.group import Group
from gradgate.checks.paste import TAKES_EFFECT

ALLOW_HINT = (
    "if this is intended, paste the `allow` rule in the details into `.gradgate.yml`, "
    f"with your reason (the rule {TAKES_EFFECT})"
)

CAUSES = {
    State.DETACHED: (
        "it ran with grad enabled but is unreachable from the loss: a `.detach()`, `.data` "
        "or non-differentiable op (`argmax`, `round`, `.item()`, numpy) sits between it and "
        "the output"
    ),
    State.NO_GRAD: (
        "it ran only with grad disabled: a `torch.no_grad()` or `inference_mode()` around it, "
        "or a reentrant activation checkpoint (`use_reentrant=True`) whose inputs do not "
        "require grad"
    ),
    State.NEVER_EXECUTED: (
        "no module that owns it ran in forward: built in `__init__` but not called (DDP "
        "without `find_unused_parameters=True` fails on such parameters at its second step)"
    ),
    State.ZERO: (
        "the loss reaches it, but its gradient is exactly zero at every step: a "
        "multiplication by zero, a mask, or a gate that never opens"
    ),
    State.NON_FINITE: "its gradient holds NaN or infinity",
    State.FROZEN: (
        "it has `requires_grad=False`: a freeze (`requires_grad_(False)`, "
        "`requires_grad = False`, a frozen-module list) now applies to it"
    ),
    State.TINY: f"its gradient norm is below {TINY_RATIO:g} of the model's largest at every step",
}

STATE_WORDS = {
    State.OK: "learns",
    State.TINY: "tiny",
    State.ZERO: "zero",
    State.DETACHED: "detached",
    State.NO_GRAD: "under no_grad",
    State.NEVER_EXECUTED: "never executed",
    State.NON_FINITE: "non-finite",
    State.FROZEN: "frozen",
}


def count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def subject(patterns: Sequence[str], members: Sequence[str]) -> str:
    """ "`proj.*` (2 parameters)", "`proj.weight`", "`up.*`, `down.*` (4 parameters)",
    "every parameter (12)"."""
    if patterns == ["*"]:
        return f"every parameter ({len(members)})"
    shown = ", ".join(f"`{p}`" for p in patterns)
    if len(members) == 1 and patterns == [members[0]]:
        return shown
    return f"{shown} ({count(len(members), 'parameter')})"


def listing(patterns: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(f"`{p}`" for p in patterns[:limit])
    return shown + (f" and {len(patterns) - limit} more" if len(patterns) > limit else "")


def failure_detail(failure: Failure | None) -> str:
    """ ": `div` in the forward at `model.py:12` (`e / e.norm()`)", or "" when nothing was named.

    A backward function (`SigmoidBackward0`) is named with the forward op that created it."""
    if failure is None or failure.op is None:
        return ""
    where = ""
    if failure.file is not None:
        where = f" at `{failure.file}:{failure.line}`"
        where += f" (`{failure.code}`)" if failure.code else ""
    if failure.phase == "forward":
        return f": `{failure.op}` in the forward{where}"
    return f": `{failure.op}`, the backward of the op{where}" if where else f": `{failure.op}`"


def error_message(message: str | None) -> str:
    """torch's error without its hint to turn on anomaly detection: gradgate did that."""
    return (message or "").split(" Hint:")[0].rstrip().rstrip(".")


def ratio_words(ratios: Sequence[float]) -> str:
    """ "28.3× smaller", "between 12× and 40× larger"."""
    smaller = ratios[0] < 1
    factors = sorted(1 / r if smaller else r for r in ratios)
    side = "smaller" if smaller else "larger"
    if factors[-1] / factors[0] < 1.05:
        return f"{factors[0]:.3g}× {side}"
    return f"between {factors[0]:.3g}× and {factors[-1]:.3g}× {side}"


def blocks_words(group: Group) -> str:
    """ ", in 12 blocks alike", ", in 3 of 4 blocks alike (not `blocks.3`)", or ""."""
    if group.copies < 2:
        return ""
    if not group.others:
        return f", in {group.copies} blocks alike"
    total = group.copies + len(group.others)
    return f", in {group.copies} of {total} blocks alike (not {listing(list(group.others))})"


def allow_patterns(group: Group) -> list[str]:
    """Globs for an `allow` rule that covers exactly the group: block indices as `*` when every
    block is covered, else each block's own prefixes."""
    if group.copies > 1 and not group.others:
        return list(dict.fromkeys(split(p)[0].replace(PLACE, "*") for p in group.raw))
    return list(group.raw)


def unpaired_words(variant: str, revision: str) -> str:
    return (
        f"The factory's variant `{variant}` is only at {revision}: there is nothing to compare "
        "it with, so the gradient check did not judge it."
    )


def no_pair_words(base: Sequence[str | None], head: Sequence[str | None]) -> str:
    def names(side: Sequence[str | None]) -> str:
        return ", ".join(f"`{v}`" for v in side)

    return (
        f"the factory's variants at base ({names(base)}) and at head ({names(head)}) share no "
        "name, so the gradient check compared nothing; keep one variant's name at both "
        "revisions (`default`)."
    )


def spots(file: str, ranges: Sequence[tuple[int, int]]) -> str:
    """ "`attend.py:120–141`", "`attend.py:12, 30–31`"."""
    return f"`{file}:{', '.join(str(a) if a == b else f'{a}–{b}' for a, b in ranges)}`"


def untested_words(
    places: Sequence[tuple[str, Sequence[tuple[int, int]], Sequence[str]]],
    variants: Sequence[str],
) -> str:
    """What the model did not run that a variant could, and what turns it on (issue 36: one
    line per PR, the flag named so the advice is concrete). ``places``: (file, ranges, guards)."""
    lines = sum(b - a + 1 for _, ranges, _ in places for a, b in ranges)
    it = "it" if lines == 1 else "them"
    shown = ", ".join(
        spots(file, ranges) + (f" (under {listing(guards, 3)})" if guards else "")
        for file, ranges, guards in places
    )
    flags = list(dict.fromkeys(g for _, _, guards in places for g in guards))
    if len(variants) > 1:
        who = f"none of the model's variants ({', '.join(f'`{v}`' for v in variants)}) ran"
    else:
        who = "the model did not run"
    if flags:
        runs = "it runs" if it == "it" else "they run"
        on = [f for f in flags if not f.startswith("not ")]
        # A flag some lines need on and others off is named once, as on: one variant
        # cannot do both, and the one that turns it on is the one missing.
        off = [f.removeprefix("not ") for f in flags if f.startswith("not ")]
        off = [f for f in off if f not in on]
        state = " and ".join(
            part
            for part in (on and f"{listing(on, 4)} set", off and f"{listing(off, 4)} off")
            if part
        )
        how = f"have the factory return a variant with {state} so that {runs}"
    else:
        how = f"have the factory return a variant that runs {it} (an option or config flag on)"
    return (
        f"{who} {shown}, changed by this PR: the gradient check did not test {it}. To cover "
        f"{it}, {how}; the details show the factory's shape."
    )


def unnamed_words(
    places: Sequence[tuple[str, Sequence[tuple[int, int]]]], variants: Sequence[str]
) -> str:
    """Changed lines a forward pass could reach that no variant ran, under nothing a variant
    sets (a `forward` argument, a local) or outside the model's zones (``places``: file,
    ranges)."""
    lines = sum(b - a + 1 for _, ranges in places for a, b in ranges)
    it = "it" if lines == 1 else "them"
    shown = ", ".join(spots(file, ranges) for file, ranges in places)
    who = "none of the model's variants ran" if len(variants) > 1 else "the model did not run"
    return (
        f"{who} {shown}, changed by this PR, and no flag of the model's own code turns "
        f"{it} on (a call argument, a value computed in the forward pass, or a module outside "
        f"the model's zones): the gradient check did not test {it}. Review {it}, or give "
        f"{it} a test of its own."
    )


def unreached_words(places: Sequence[tuple[str, Sequence[tuple[int, int]], Sequence[str]]]) -> str:
    """Changed lines no forward pass reaches (``places``: file, ranges, functions)."""
    shown = ", ".join(
        spots(file, ranges) + (f" ({listing(functions, 3)})" if functions else "")
        for file, ranges, functions in places
    )
    return (
        f"No forward pass reaches {shown}, changed by this PR, so no variant of the model can "
        "run it: the gradient check does not test it. Review it, or give it a test of its own."
    )


_TAKEN = frozenset({"model", "inputs", "build", "default"})  # the snippet's own names


def factory_shape(
    file: str, ranges: Sequence[tuple[int, int]], variants: Sequence[str], flag: str | None = None
) -> str:
    """A factory returning named variants, one that runs the untested code (pasteable).
    ``variants``: the names the factory returns now (none: it returns one model); ``flag``:
    what turns the code on (`flash`, `config.rotary`), the variant's name when it can be."""
    stem = (flag or "").rpartition(".")[2] or file.rpartition("/")[2].removesuffix(".py")
    # Not a name the snippet already uses: for `model.py` it read `model = ...` over the
    # factory's own `model` (issue 36).
    usable = stem.isidentifier() and not stem.startswith("_") and not keyword.iskeyword(stem)
    name = stem if usable and stem not in _TAKEN else "feature"
    name = name if name not in variants else f"{name}_on"
    where = spots(file, ranges).replace("`", "")
    kept = [f'        "{v}": ...,  # as now' for v in variants]
    return "\n".join(
        [
            "# The gradient check builds and checks each variant at base and head.",
            "def build():",
            "    model, inputs = ...  # what the factory builds now",
            f"    {name} = ...  # the model with {f'`{flag}` on' if flag else 'the option'} "
            f"that runs {where}",
            "    return {",
            *(kept or ['        "default": (model, inputs),']),
            f'        "{name}": ({name}, inputs),',
            "    }",
        ]
    )

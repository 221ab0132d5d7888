"""The rules of `dl-lint`: each an id, a default severity, a one-line why and the fix.

Every rule comes from a failure teams have paid for. The words here are the finding's words;
the scan (``scan``) finds where a rule applies, the check keeps what the PR added.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Grade = Literal["off", "note", "warning", "blocking"]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    default: Grade
    why: str
    fix: str


RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule(
            "seed-without-torch",
            "warning",
            "`{call}` seeds Python's or NumPy's generator, but nothing in this file seeds "
            "torch's: weight init, dropout and shuffling still differ run to run",
            "also call `torch.manual_seed(seed)` (or one helper that seeds `random`, `numpy` "
            "and `torch` together)",
        ),
        Rule(
            "loader-workers-unseeded",
            "warning",
            "`DataLoader` with worker processes and no `worker_init_fn` or `generator`, in a "
            "file that seeds its runs: each worker's NumPy/`random` state is not reproducible",
            "pass `generator=torch.Generator().manual_seed(seed)` and a `worker_init_fn` that "
            "seeds `numpy` and `random` from `torch.initial_seed()`",
        ),
        Rule(
            "dist-timeout",
            "warning",
            "{what}: a hang now waits {how}, and a slow collective is reported as a timeout "
            "(or never)",
            "keep the backend's default timeout, or say in a comment on the line why this one",
        ),
        Rule(
            "find-unused-parameters",
            "warning",
            "`DistributedDataParallel(find_unused_parameters=True)` added without a comment "
            "saying why: it walks the autograd graph every step and hides parameters that "
            "stopped learning",
            "remove it, or add a comment on the line saying which parameters go unused and why",
        ),
        Rule(
            "save-pickled-objects",
            "warning",
            "`torch.save` stores {what}: the checkpoint needs arbitrary unpickling to load, and "
            "`torch.load(..., weights_only=True)` refuses it",
            "save tensors and plain containers of them: `model.state_dict()`, "
            "`vars(args)` or `dataclasses.asdict(config)`",
        ),
        Rule(
            "load-unsafe",
            "warning",
            "`torch.load` of a path that is not a constant in the repository without "
            "`weights_only=True`: a checkpoint from elsewhere can run any code when loaded",
            "pass `weights_only=True` (and `torch.serialization.add_safe_globals` for the few "
            "types the checkpoint really holds)",
        ),
        Rule(
            "hook-in-forward",
            "blocking",
            "`{call}` inside `forward`: a new hook is added on every step, they pile up, and "
            "training slows down and leaks memory",
            "register the hook once, in `__init__` or where the model is built, and keep its "
            "handle to `remove()` it",
        ),
        Rule(
            "hardcoded-cuda",
            "note",
            "{what} hard-coded in code that takes a `device`: it breaks on CPU and on other "
            "GPUs than the first",
            "use the `device` it is given (`.to(device)`, `device=device`)",
        ),
        Rule(
            "eval-mode-lost",
            "warning",
            "`{function}` {what} at base and no longer does: evaluation now runs with dropout "
            "and batch-norm updates on, or builds autograd graphs it never uses",
            "{fix}",
        ),
        Rule(
            "comment-language",
            "off",
            "a comment in a config file is not in the repository's comment language (`{lang}`)",
            "write it in `{lang}` (`checks.dl-lint.comments.language`)",
        ),
    )
}

"""`dl-lint`'s ignore comments count only as they stand at base (issue 34): a pull request cannot
silence a blocking finding on its own lines, and every suppression is in the result."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.diff import LineSpan
from gradgate.checks.dl_lint.ignores import AtBase, Weighed, at_base, unignored, weigh
from gradgate.checks.dl_lint.scan import Hit
from gradgate.checks.dl_lint.settings import DlLintSettings, RuleSetting

from tests.checks.dl_lint.test_rules import CASES, _place, flagged, line_of, pull_request
from tests.gitrepo import GitRepo

# Each rule's case, graded blocking: by default (`hook-in-forward`), in a zone that requires
# `checkpoint` (`save-pickled-objects`), or by the config (the rest).
BLOCKING = [pytest.param(*case.values[:3], id=case.id) for case in CASES]


def _settings(rule: str) -> DlLintSettings | None:
    if rule in ("hook-in-forward", "save-pickled-objects"):
        return None  # blocking by default (the second where `checkpoint` is required)
    return DlLintSettings(rules={rule: RuleSetting(severity="blocking", reason="it bit us")})


@pytest.mark.parametrize(("base", "added", "rule"), BLOCKING)
@pytest.mark.parametrize("comment", ["# gradgate: ignore[{rule}]", "# gradgate: ignore"])
def test_an_ignore_the_change_adds_on_a_blocking_rule_leaves_it_blocking(
    repo: GitRepo, base: str, added: str, rule: str, comment: str
) -> None:
    written = comment.format(rule=rule)
    head = _place(base, f"{added}  {written}")
    result = pull_request(
        repo,
        {"train.py": base},
        {"train.py": head},
        settings=_settings(rule),
        checkpoint_zone=rule == "save-pickled-objects",
    )

    assert flagged(result) == [(rule, "blocking", line_of(head, added.strip()))]
    assert result.outcome is Outcome.FAIL
    (finding,) = result.findings
    assert "Suppressions added in a pull request do not count until merged" in finding.message
    assert f"`{written}` this change adds" in finding.message
    assert "have an owner merge it" in finding.message
    (suppression,) = result.suppressions
    assert (suppression.rule, suppression.origin, suppression.applied) == (rule, "change", False)
    assert (suppression.file, suppression.line) == ("train.py", line_of(head, added.strip()))


HOOKED = """\
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x):
        self.fc.register_forward_hook(  # gradgate: ignore[hook-in-forward]
            self._show,
        )
        return self.fc(x)
"""


def test_an_ignore_that_stood_at_base_still_suppresses_and_is_listed(repo: GitRepo) -> None:
    # The statement is new (its hook changed) but the line with the ignore is the base's own.
    head = HOOKED.replace("self._show", "self._log")
    result = pull_request(repo, {"net.py": HOOKED}, {"net.py": head})

    assert flagged(result) == []
    assert result.outcome is Outcome.PASS
    (suppression,) = result.suppressions
    assert (suppression.rule, suppression.origin, suppression.applied) == (
        "hook-in-forward",
        "base",
        True,
    )
    assert (suppression.file, suppression.line) == ("net.py", 5)
    assert "1 suppressed" in result.summary


def test_an_ignore_on_an_evaluation_function_at_base_still_suppresses(repo: GitRepo) -> None:
    base = (
        "import torch\n\ndef evaluate(model, x):  # gradgate: ignore[eval-mode-lost]\n"
        "    model.eval()\n    with torch.no_grad():\n        return model(x)\n"
    )
    head = base.replace("    model.eval()\n", "")
    result = pull_request(repo, {"loop.py": base}, {"loop.py": head})

    assert flagged(result) == []
    assert [(s.rule, s.origin, s.line) for s in result.suppressions] == [
        ("eval-mode-lost", "base", 3)
    ]


def test_the_same_ignore_added_to_an_evaluation_function_blocks_when_graded_so(
    repo: GitRepo,
) -> None:
    base = "import torch\n\ndef evaluate(model, x):\n    model.eval()\n    return model(x)\n"
    head = base.replace("x):\n    model.eval()\n", "x):  # gradgate: ignore[eval-mode-lost]\n")
    graded = RuleSetting(severity="blocking", reason="r")
    settings = DlLintSettings(rules={"eval-mode-lost": graded})
    result = pull_request(repo, {"loop.py": base}, {"loop.py": head}, settings=settings)

    assert flagged(result) == [("eval-mode-lost", "blocking", 3)]
    assert [s.origin for s in result.suppressions] == ["change"]


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (
            lambda text: text.replace("register_forward_hook(  #", "register_forward_pre_hook(  #"),
            "the line that carries the ignore is the change's own",
        ),
        (
            lambda text: text.replace(
                "return self.fc(x)",
                "self.fc.register_forward_hook(self._show)  # gradgate: ignore[hook-in-forward]\n"
                "        return self.fc(x)",
            ),
            "a second hook with the base's ignore copied onto it is new code",
        ),
    ],
    ids=["edited-ignore-line", "another-hook"],
)
def test_an_ignore_carried_onto_new_code_does_not_count(
    repo: GitRepo, edit: Callable[[str], str], why: str
) -> None:
    head = edit(HOOKED)
    result = pull_request(repo, {"net.py": HOOKED}, {"net.py": head})

    assert [f[:2] for f in flagged(result)] == [("hook-in-forward", "blocking")], why
    assert [s.origin for s in result.suppressions] == ["change"], why


def test_a_copy_of_an_ignored_line_is_new_code_and_its_copied_ignore_does_not_count(
    repo: GitRepo,
) -> None:
    line = "        self.fc.register_forward_hook(h)  # gradgate: ignore[hook-in-forward]\n"
    base = HOOKED.replace("        self.fc.register_forward_hook(  #", "#").replace(
        "            self._show,\n        )\n", line
    )
    head = base.replace("        return", line + "        x = x + 1\n        return")
    result = pull_request(repo, {"net.py": base}, {"net.py": head})

    assert base.count("register_forward_hook") == 1 and head.count(line) == 2
    assert [f[:2] for f in flagged(result)] == [("hook-in-forward", "blocking")]
    assert [s.origin for s in result.suppressions] == ["change"]


def test_an_ignore_at_base_on_a_statement_the_rule_did_not_hit_there_does_not_count(
    repo: GitRepo,
) -> None:
    base = (
        "import torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
        "        y = self.fc(  # gradgate: ignore\n            x)\n        return y\n"
    )
    head = base.replace("            x)\n", "            x).register_forward_hook(print)\n")
    result = pull_request(repo, {"net.py": base}, {"net.py": head})

    assert [f[:2] for f in flagged(result)] == [("hook-in-forward", "blocking")]
    assert result.findings[0].severity is Severity.BLOCKING


def test_moving_an_ignored_statement_needs_no_suppression(repo: GitRepo) -> None:
    head = HOOKED.replace(
        "    def forward(self, x):\n", "    def forward(self, x):\n        x = x * 2\n"
    )
    lines = head.splitlines(keepends=True)
    # The hook statement moves below `return`'s neighbour: same code, other lines.
    hook = "".join(lines[5:8])
    moved = "".join(lines[:5]) + lines[8] + hook + "".join(lines[9:])
    result = pull_request(repo, {"net.py": HOOKED}, {"net.py": moved})

    assert flagged(result) == []
    assert result.suppressions == ()


# `find-unused-parameters` and `dist-timeout` are fixed by a comment that says why: the rule's
# own fix, which clears a warning; graded blocking, only a comment that stood at base counts.
DDP_BASE = (
    "from torch.nn.parallel import DistributedDataParallel as DDP\n\ndef wrap(m, rank):\n"
    "    # wrap the model\n    # ADD\n"
)
DDP_CALL = "    return DDP(m, device_ids=[rank], find_unused_parameters=True)"
STRICT = DlLintSettings(
    rules={"find-unused-parameters": RuleSetting(severity="blocking", reason="it hid a bug")}
)


def test_a_comment_that_says_why_is_the_fix_of_a_warning(repo: GitRepo) -> None:
    head = _place(DDP_BASE, DDP_CALL + "  # the aux head is unused in eval")
    result = pull_request(repo, {"train.py": DDP_BASE}, {"train.py": head})

    assert flagged(result) == []
    assert result.suppressions == ()


@pytest.mark.parametrize(
    "added",
    [DDP_CALL + "  # the aux head is unused in eval", DDP_CALL],
    ids=["comment-on-the-line", "under-a-base-comment-about-something-else"],
)
def test_a_comment_the_change_adds_does_not_clear_a_blocking_grade(
    repo: GitRepo, added: str
) -> None:
    head = _place(DDP_BASE, added)
    result = pull_request(repo, {"train.py": DDP_BASE}, {"train.py": head}, settings=STRICT)

    assert flagged(result) == [("find-unused-parameters", "blocking", 5)]
    assert "the comment on the statement this change adds" in result.findings[0].message
    assert [(s.rule, s.origin) for s in result.suppressions] == [
        ("find-unused-parameters", "change")
    ]


def test_a_comment_that_said_why_at_base_still_clears_a_blocking_grade(repo: GitRepo) -> None:
    base = (
        "from torch.nn.parallel import DistributedDataParallel as DDP\n\ndef wrap(m, rank):\n"
        "    return DDP(  # the aux head is unused in eval\n        m,\n"
        "        device_ids=[rank],\n        find_unused_parameters=True,\n    )\n"
    )
    head = base.replace("device_ids=[rank]", "device_ids=[rank % 8]")
    result = pull_request(repo, {"train.py": base}, {"train.py": head}, settings=STRICT)

    assert flagged(result) == []
    assert [(s.rule, s.origin, s.line) for s in result.suppressions] == [
        ("find-unused-parameters", "base", 4)
    ]


@pytest.mark.parametrize(
    "head",
    [
        HOOKED.replace("def forward(self, x):", "def forward(self, x:"),
        (HOOKED + "# déjà vu\n").encode("latin-1"),
    ],
    ids=["no-longer-parses", "no-longer-utf-8"],
)
def test_a_file_the_change_makes_unlintable_blocks(repo: GitRepo, head: str | bytes) -> None:
    """Otherwise a PR could switch the check off for what it adds (issue 34)."""
    result = pull_request(repo, {"net.py": HOOKED}, {"net.py": head})

    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("lint-unreadable", Severity.BLOCKING)
    assert "while it could at base" in finding.message
    assert result.outcome is Outcome.FAIL
    assert result.summary == "1 finding: 1 `unreadable`"


def test_a_new_file_that_does_not_parse_is_only_a_note(repo: GitRepo) -> None:
    result = pull_request(repo, {"a.py": "x = 1\n"}, {"net.py": "def f(:\n  torch.save(m)\n"})

    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("lint-unreadable", Severity.NOTE)


def test_an_ignore_the_change_adds_to_a_config_comment_leaves_comment_language_blocking(
    repo: GitRepo,
) -> None:
    # `comment-language` reads config files: every line it flags is the change's own, so an
    # ignore on it is the change's own too (issue 34: each blocking rule with inline ignores).
    base = "model:\n  dim: 512  # width of the residual stream\n"
    head = base + "  heads: 8  # 注意力头的数量  # gradgate: ignore[comment-language]\n"
    graded = RuleSetting(severity="blocking", reason="one language in configs")
    settings = DlLintSettings(rules={"comment-language": graded})
    result = pull_request(
        repo, {"configs/model.yaml": base}, {"configs/model.yaml": head}, settings=settings
    )

    assert flagged(result) == [("comment-language", "blocking", 3)]
    assert result.outcome is Outcome.FAIL
    assert "Suppressions added in a pull request do not count until merged" in (
        result.findings[0].message
    )
    assert [(s.rule, s.origin, s.line) for s in result.suppressions] == [
        ("comment-language", "change", 3)
    ]


# The weighing itself (pure), on a file as the check reads it: a base's hits and lines, a head's
# hit and the lines the change added or edited.
LOAD = "state = torch.load(path)"
IGNORED = f"{LOAD}  # gradgate: ignore[load-unsafe]"


def _hit(line: int, end: int | None = None, **words: str) -> Hit:
    return Hit("load-unsafe", line, end or line, f"load-unsafe:{line}", words)


def _weigh(hit: Hit, lines: list[str], base: AtBase, *, changed: tuple[int, ...] = ()) -> Weighed:
    spans = [LineSpan(n, n) for n in changed]
    return weigh(hit, blocking=True, lines=lines, changed=spans, base=base)


@pytest.mark.parametrize(
    "comment",
    [
        "# gradgate: ignore[load-unsafe]",
        "# gradgate: ignore",
        "#gradgate:ignore[hook-in-forward, load-unsafe]",
        "# gradgate: ignore[ hook-in-forward ,load-unsafe ]",
    ],
)
def test_an_ignore_naming_the_rule_among_others_or_none_counts_where_it_stood(
    comment: str,
) -> None:
    lines = ["import torch", f"{LOAD}  {comment}"]
    base = at_base([_hit(2)], [], lines)
    assert _weigh(_hit(2), lines, base) == Weighed(stands=False, origin="base")
    assert _weigh(_hit(2), lines, base, changed=(2,)) == Weighed(
        stands=True, origin="change", added=f"`{comment}`"
    )


def test_an_ignore_naming_only_other_rules_is_no_ignore_at_all() -> None:
    lines = ["import torch", f"{LOAD}  # gradgate: ignore[hook-in-forward,load-unsafe-ish]"]
    base = at_base([_hit(2)], [], lines)
    assert base == AtBase()
    assert _weigh(_hit(2), lines, base) == Weighed(stands=True)
    assert _weigh(_hit(2), lines, base, changed=(2,)) == Weighed(stands=True)


def test_a_statement_without_an_ignore_stands_with_nothing_said_about_suppressions() -> None:
    lines = ["import torch", LOAD]
    assert _weigh(_hit(2), lines, at_base([_hit(2)], [], lines)) == Weighed(stands=True)


def test_an_ignore_on_any_line_of_the_statement_counts_and_none_beside_it() -> None:
    lines = ["state = torch.load(", "    path,  # gradgate: ignore[load-unsafe]", ")", IGNORED]
    base = at_base([_hit(1, 3), _hit(4)], [], lines)
    assert _weigh(_hit(1, 3), lines, base) == Weighed(stands=False, origin="base")
    # The line after a statement, or before it, is another statement's, even with the same text.
    assert _weigh(_hit(3), lines, base) == Weighed(stands=True)
    head = [LOAD, IGNORED]
    assert _weigh(_hit(1), head, at_base([_hit(1)], [], head)) == Weighed(stands=True)


def test_an_ignore_above_a_base_hit_was_not_in_it_and_does_not_count_later() -> None:
    """Line 1 was no hit at base (say its function took no `device`, for `hardcoded-cuda`) and
    is one at head, unchanged: its ignore never stood on a hit, so the finding stands."""
    lines = [IGNORED, LOAD]
    base = at_base([_hit(2)], [], lines)
    assert base == AtBase()
    assert _weigh(_hit(1), lines, base) == Weighed(
        stands=True, origin="change", added="`# gradgate: ignore[load-unsafe]`"
    )


def test_an_explanation_that_stood_at_base_clears_a_blocking_rule_on_any_of_its_lines() -> None:
    lines = ["# a slow filesystem: two hours is what it takes", LOAD, "# the last line, too"]
    said = at_base([_hit(2, explained="1,3")], [], lines)
    assert said.explanations == {f"load-unsafe\n{lines[0]}", f"load-unsafe\n{lines[2]}"}
    for explained in ("1", "3", "1,3"):
        hit = _hit(2, explained=explained)
        assert _weigh(hit, lines, said) == Weighed(stands=False, origin="base"), explained
    written = at_base([_hit(2)], [], lines)
    assert _weigh(_hit(2, explained="3"), lines, written) == Weighed(
        stands=True, origin="change", added="comment on the statement"
    )


def test_an_ignore_comment_is_taken_out_of_the_line_and_nothing_put_in_its_place() -> None:
    line = "  heads: 8  # 注意  # gradgate: ignore[comment-language]"
    assert unignored(line) == "  heads: 8  # 注意  "
    assert unignored("x = 1  #gradgate:ignore") == "x = 1  "

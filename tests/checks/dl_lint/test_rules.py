"""`dl-lint` on real git repositories: each rule flags the line a PR adds, ignores the same code
already at base, and honours `checks.dl-lint.rules` (`# gradgate: ignore[RULE]`: test_ignores)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from gradgate.checks.base import CheckResult, Outcome, Severity
from gradgate.checks.dl_lint.check import DlLintCheck
from gradgate.checks.dl_lint.settings import DlLintSettings, RuleSetting

from tests.gitrepo import GitRepo


def pull_request(
    repo: GitRepo,
    base: Mapping[str, str | bytes],
    head: Mapping[str, str | bytes],
    *,
    settings: DlLintSettings | None = None,
    checkpoint_zone: bool = False,
) -> CheckResult:
    with repo.pull_request_context(base, head, settings or DlLintSettings()) as ctx:
        changed = tuple(p for c in ctx.changes for p in c.paths)
        requiring = {"checkpoint": frozenset(changed)} if checkpoint_zone else {}
        return DlLintCheck().run(
            replace(ctx, zones={"training": changed}, paths_requiring=requiring)
        )


def flagged(result: CheckResult) -> list[tuple[str, str, int | None]]:
    return [(f.kind.removeprefix("lint-"), str(f.severity), f.line) for f in result.findings]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# One case per rule: the file at base, the line the PR adds (appended to the base's file, or
# replacing `# ADD` in it), the rule and its default grade.
CASES = [
    pytest.param(
        "import random\nimport numpy as np\n\ndef setup(seed):\n    random.seed(seed)\n    # ADD\n",
        "    np.random.seed(seed)",
        "seed-without-torch",
        "warning",
        id="seed-without-torch",
    ),
    pytest.param(
        "import torch\nfrom torch.utils.data import DataLoader\ntorch.manual_seed(0)\n"
        "def loader(ds):\n    # ADD\n    return dl\n",
        "    dl = DataLoader(ds, batch_size=8, num_workers=4)",
        "loader-workers-unseeded",
        "warning",
        id="loader-workers-unseeded",
    ),
    pytest.param(
        "import datetime\nimport torch.distributed as dist\n\ndef init():\n    # ADD\n",
        "    dist.init_process_group('nccl', timeout=datetime.timedelta(hours=2))",
        "dist-timeout",
        "warning",
        id="dist-timeout",
    ),
    pytest.param(
        "import os\n# ADD\n",
        'os.environ["NCCL_TIMEOUT"] = "7200"',
        "dist-timeout",
        "warning",
        id="nccl-timeout-in-environment",
    ),
    pytest.param(
        "from torch.nn.parallel import DistributedDataParallel as DDP\n\ndef wrap(m, rank):\n"
        "    # ADD\n",
        "    return DDP(m, device_ids=[rank], find_unused_parameters=True)",
        "find-unused-parameters",
        "warning",
        id="find-unused-parameters",
    ),
    pytest.param(
        "import torch\n\ndef save(model, args, path):\n    # ADD\n",
        "    torch.save({'model': model.state_dict(), 'args': args}, path)",
        "save-pickled-objects",
        "warning",
        id="save-pickled-objects",
    ),
    pytest.param(
        "import torch\n\ndef restore(path):\n    # ADD\n",
        "    return torch.load(path)",
        "load-unsafe",
        "warning",
        id="load-unsafe",
    ),
    pytest.param(
        "import torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
        "        # ADD\n        return self.fc(x)\n",
        "        self.fc.register_forward_hook(lambda m, i, o: print(o.shape))",
        "hook-in-forward",
        "blocking",
        id="hook-in-forward",
    ),
    pytest.param(
        "import torch\n\nclass Runner:\n    def __init__(self, model, device):\n"
        "        self.model = model.to(device)\n    def step(self, x):\n        # ADD\n",
        "        return self.model(x.cuda())",
        "hardcoded-cuda",
        "note",
        id="hardcoded-cuda",
    ),
]


def _place(base: str, added: str) -> str:
    """The base's file with ``added`` on the line that says `# ADD` (or appended)."""
    if "# ADD" not in base:
        return base + added + "\n"
    return (
        "\n".join(added if line.strip() == "# ADD" else line for line in base.splitlines()) + "\n"
    )


def _outcome(grade: str) -> Outcome:
    return {"blocking": Outcome.FAIL, "warning": Outcome.WARN}.get(grade, Outcome.PASS)


Maker = Callable[..., GitRepo]
RULE_CASES = pytest.mark.parametrize(("base", "added", "rule", "grade"), CASES)


GOLDEN = Path(__file__).parent / "golden" / "findings.txt"
EVALUATE = "import torch\n\ndef evaluate(model, x):\n    model.eval()\n    return model(x)\n"
CONFIG = "model:\n  dim: 512  # width of the residual stream\n"


def test_every_rules_finding_reads_as_its_golden_file(repo: GitRepo, make_repo: Maker) -> None:
    """The words a reader gets for each rule at its default grade (golden/findings.txt): one
    pull request adds every case's line, drops an `eval()` and writes a config comment in
    another language (`comment-language` is off unless a config grades it, as the second pull
    request's does)."""
    base = {f"{case.id}.py": case.values[0] for case in CASES}
    head = {f"{case.id}.py": _place(case.values[0], case.values[1]) for case in CASES}
    base |= {"evaluate.py": EVALUATE, "configs/model.yaml": CONFIG}
    head |= {
        "evaluate.py": EVALUATE.replace("    model.eval()\n", ""),
        "configs/model.yaml": CONFIG + "  heads: 8  # 注意力头的数量\n",
    }
    findings = pull_request(repo, base, head).findings
    graded = RuleSetting(severity="note", reason="one language in configs")
    settings = DlLintSettings(rules={"comment-language": graded})
    configs = ({"c.yaml": CONFIG}, {"c.yaml": head["configs/model.yaml"]})
    findings += pull_request(make_repo("graded"), *configs, settings=settings).findings
    text = "".join(f"{f.file}:{f.line} {f.severity}\n{f.message}\n\n" for f in findings)
    if os.environ.get("GRADGATE_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
        pytest.fail(f"GRADGATE_UPDATE_GOLDEN is set: rewrote {GOLDEN.name}; review it")
    assert text == GOLDEN.read_text(encoding="utf-8"), (
        f"regenerate with GRADGATE_UPDATE_GOLDEN=1 and review {GOLDEN}"
    )


@pytest.mark.parametrize("grade", ["note", "warning"])
def test_the_config_can_grade_a_blocking_rule_down(repo: GitRepo, grade: str) -> None:
    base, added, rule, _ = next(c.values for c in CASES if c.id == "hook-in-forward")
    settings = DlLintSettings(rules={rule: RuleSetting(severity=grade, reason="legacy model")})
    head = _place(base, added)
    result = pull_request(repo, {"net.py": base}, {"net.py": head}, settings=settings)

    assert flagged(result) == [(rule, grade, line_of(head, added.strip()))]
    assert result.outcome is _outcome(grade)
    assert f"(graded {grade} here: legacy model)" in result.findings[0].message


@RULE_CASES
def test_the_rule_flags_the_added_line(
    repo: GitRepo, base: str, added: str, rule: str, grade: str
) -> None:
    head = _place(base, added)
    result = pull_request(repo, {"train.py": base}, {"train.py": head})

    assert flagged(result) == [(rule, grade, line_of(head, added.strip()))]
    (finding,) = result.findings
    assert finding.details == added
    assert "Fix: " in finding.message and f"ignore[{rule}]" in finding.message
    assert result.outcome is _outcome(grade)


@RULE_CASES
def test_the_same_code_already_at_base_is_not_flagged(
    repo: GitRepo, base: str, added: str, rule: str, grade: str
) -> None:
    old = _place(base, added)
    result = pull_request(repo, {"train.py": old}, {"train.py": "# moved below\n" + old})

    assert flagged(result) == []
    assert result.outcome is Outcome.PASS


@RULE_CASES
def test_an_ignore_comment_the_change_adds_does_not_exempt_its_line(
    make_repo: Maker, base: str, added: str, rule: str, grade: str
) -> None:
    """Issue 34: an ignore counts only as it stands at base; one the PR adds, naming the rule
    or bare, leaves the finding at its grade and is listed as not counted."""
    other = "load-unsafe" if rule != "load-unsafe" else "hook-in-forward"
    for ignored, origins in ((other, []), (rule, ["change"]), ("", ["change"])):
        comment = f"  # gradgate: ignore[{ignored}]" if ignored else "  # gradgate: ignore"
        head = _place(base, added + comment)
        result = pull_request(make_repo(f"r{ignored}"), {"train.py": base}, {"train.py": head})
        assert flagged(result) == [(rule, grade, line_of(head, added.strip()))], ignored
        assert result.outcome is _outcome(grade)
        assert [(s.rule, s.origin) for s in result.suppressions] == [(rule, o) for o in origins]


@RULE_CASES
def test_the_config_turns_a_rule_off_or_regrades_it_with_its_reason(
    make_repo: Maker, base: str, added: str, rule: str, grade: str
) -> None:
    files = ({"train.py": base}, {"train.py": _place(base, added)})
    off = DlLintSettings(rules={rule: RuleSetting(severity="off", reason="we know")})
    result = pull_request(make_repo("off"), *files, settings=off)
    assert flagged(result) == []
    assert [(s.rule, s.origin, s.reason) for s in result.suppressions] == [
        (rule, "config", "we know")
    ]

    regraded = DlLintSettings(rules={rule: RuleSetting(severity="blocking", reason="bit us")})
    result = pull_request(make_repo("regraded"), *files, settings=regraded)
    (finding,) = result.findings
    assert finding.severity is Severity.BLOCKING
    assert "graded blocking here: bit us" in finding.message

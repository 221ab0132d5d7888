"""`dl-lint`: what each rule must not flag (SCENARIOS' look-alikes), and the rules that compare
base and head (`eval-mode-lost`) or read config files (`comment-language`)."""

from __future__ import annotations

import pytest
from gradgate.bot.config.model import load_config
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.dl_lint.settings import CommentsSetting, DlLintSettings
from gradgate.checks.errors import ConfigError

from tests.checks.dl_lint.test_rules import flagged, line_of, pull_request
from tests.gitrepo import GitRepo


@pytest.mark.parametrize(
    "added",
    [
        "import random, torch\ntorch.manual_seed(0)\nrandom.seed(0)\n",
        "import numpy as np\nfrom lightning import seed_everything\n"
        "seed_everything(1)\nnp.random.seed(1)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ntorch.manual_seed(0)\n"
        "dl = DataLoader(ds, num_workers=0)\n",
        # a run that seeds nothing at all: reproducibility is not its aim
        "from torch.utils.data import DataLoader\ndl = DataLoader(ds, num_workers=4)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ntorch.manual_seed(0)\n"
        "dl = DataLoader(ds, num_workers=4, generator=g)\n",
        "import datetime, torch.distributed as dist\n"
        "dist.init_process_group('nccl', timeout=datetime.timedelta(minutes=15))\n",
        "import datetime, torch.distributed as dist\n"
        "dist.init_process_group('gloo', timeout=datetime.timedelta(hours=2))  # big all-gathers\n",
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "m = DDP(m, find_unused_parameters=True)  # the aux head is skipped on odd steps\n",
        "import torch\ntorch.save(model.state_dict(), path)\n",
        "import torch\n"
        "torch.save({'model': model.state_dict(), 'args': vars(args), 'step': 3}, p)\n",
        "import torch\ntorch.save(tensors, path)\n",
        "import torch\nstate = torch.load('weights/init.pt')\n",
        "import torch\nstate = torch.load(path, weights_only=True)\n",
        "import torch\nINIT = 'weights/init.pt'\nstate = torch.load(INIT)\n",
        "import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n"
        "        self.fc.register_forward_hook(log)\n",
        "import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
        "        x.register_hook(keep)  # a tensor's hook lives one step\n        return x\n",
        "import torch\ndef run(model, x):\n    return model.cuda()(x.cuda())\n",  # takes no device
        "import torch\ndef run(model, x, device):\n    return model(x.to(device))\n",
    ],
)
def test_look_alikes_are_not_flagged(repo: GitRepo, added: str) -> None:
    result = pull_request(repo, {"train.py": "# training\n"}, {"train.py": added})

    assert flagged(result) == []
    assert result.outcome is Outcome.PASS


def test_a_pickled_save_blocks_where_the_zone_holds_checkpoints(repo: GitRepo) -> None:
    head = "import torch\n\ndef save(model, path):\n    torch.save(model, path)\n"
    result = pull_request(repo, {"ckpt.py": "# saving\n"}, {"ckpt.py": head}, checkpoint_zone=True)

    assert flagged(result) == [("save-pickled-objects", "blocking", 4)]
    assert "a whole `nn.Module` (`model`)" in result.findings[0].message
    assert result.outcome is Outcome.FAIL


def test_what_a_save_holds_is_read_from_the_module(repo: GitRepo) -> None:
    head = (
        "import argparse, torch\nfrom dataclasses import dataclass\n\n@dataclass\nclass Cfg:\n"
        "    lr: float = 1e-3\n\nparser = argparse.ArgumentParser()\nopts = parser.parse_args()\n"
        "cfg = Cfg()\ntorch.save({'opts': opts}, 'a.pt')\ntorch.save(cfg, 'b.pt')\n"
    )
    result = pull_request(repo, {"train.py": "# t\n"}, {"train.py": head})

    words = [f.message for f in result.findings]
    assert "an `argparse.Namespace`" in words[0] and "a dataclass (`Cfg`)" in words[1]


EVAL = """\
import torch


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(model(x).sum() for x in loader)
"""


def test_an_evaluation_function_that_lost_eval_and_no_grad_is_flagged(repo: GitRepo) -> None:
    head = EVAL.replace("    model.eval()\n", "").replace(
        "    with torch.no_grad():\n        return", "    return"
    )
    result = pull_request(repo, {"eval.py": EVAL}, {"eval.py": head})

    assert flagged(result) == [
        ("eval-mode-lost", "warning", line_of(head, "def evaluate")),
        ("eval-mode-lost", "warning", line_of(head, "def evaluate")),
    ]
    messages = " ".join(f.message for f in result.findings)
    assert "`evaluate` called `.eval()` at base" in messages
    assert "`evaluate` ran under `torch.no_grad()` at base" in messages


def test_an_evaluation_function_left_alone_or_in_a_test_file_is_not_flagged(
    make_repo: object,
) -> None:
    head = EVAL.replace("    model.eval()\n", "")
    assert callable(make_repo)
    untouched = pull_request(make_repo("a"), {"eval.py": EVAL}, {"eval.py": EVAL + "# more\n"})
    in_tests = pull_request(
        make_repo("b"), {"tests/test_eval.py": EVAL}, {"tests/test_eval.py": head}
    )

    assert flagged(untouched) == flagged(in_tests) == []


CONFIG = "model:\n  dim: 512  # width of the residual stream\n"


def test_comments_in_another_script_are_flagged_only_when_the_team_opts_in(
    make_repo: object,
) -> None:
    assert callable(make_repo)
    head = CONFIG + "  heads: 8  # 注意力头的数量\n  layers: 6  # depth, kept small\n"
    files = ({"configs/model.yaml": CONFIG}, {"configs/model.yaml": head})
    default = pull_request(make_repo("a"), *files)
    opted = pull_request(
        make_repo("b"), *files, settings=DlLintSettings(comments=CommentsSetting(language="en"))
    )

    assert flagged(default) == []
    assert flagged(opted) == [("comment-language", "warning", 3)]
    assert "(`en`)" in opted.findings[0].message


def test_an_unknown_rule_in_the_config_names_the_rules(tmp_path: object) -> None:
    text = "checks:\n  dl-lint:\n    rules:\n      hook-in-forwrd: {severity: 'off', reason: x}\n"
    with pytest.raises(ConfigError) as bad:
        load_config(text)
    said = str(bad.value)
    assert ".gradgate.yml:3:" in said and "`checks.dl-lint.rules`" in said
    assert "unknown rule `hook-in-forwrd`; did you mean `hook-in-forward`?" in said


def test_a_regrade_needs_a_reason() -> None:
    with pytest.raises(ValueError, match="reason"):
        DlLintSettings.model_validate({"rules": {"load-unsafe": {"severity": "off"}}})
    assert DlLintSettings().grade("hook-in-forward") == "blocking"
    assert Severity(DlLintSettings().grade("load-unsafe")) is Severity.WARNING

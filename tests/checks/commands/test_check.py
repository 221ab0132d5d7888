"""The check on real revisions: plain Python scripts the README documents, run in the sandbox."""

from __future__ import annotations

from pathlib import Path

from gradgate.checks.base import Outcome, Severity
from gradgate.checks.commands.settings import CommandsSettings, Shrink

from tests.checks.commands.pr import pull_request
from tests.gitrepo import GitRepo

README = """\
# Tiny

```bash
python train.py --steps=100
python sample.py
```
"""
TRAIN = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=10)
args = parser.parse_args()
for step in range(args.steps):
    loss = 1.0 / (step + 1)
print("done", args.steps)
"""
SAMPLE = 'print("sampled")\n'


def test_a_script_that_breaks_at_head_blocks_at_the_line_the_pr_changed(tmp_path: Path) -> None:
    broken = TRAIN.replace("1.0 / (step + 1)", "1.0 / (step - step)")

    result = pull_request(
        GitRepo(tmp_path),
        {"README.md": README, "train.py": TRAIN, "sample.py": SAMPLE},
        {"train.py": broken},
    )

    assert result.outcome is Outcome.FAIL, result.findings
    [found] = result.findings
    assert (found.kind, found.file, found.line) == ("commands-broke", "train.py", 7)
    assert "runs at base and fails at head: raised ZeroDivisionError: float division by zero" in (
        found.message
    )
    assert "a line this pull request changed (its hunk at lines 7-7)" in found.message
    assert "ZeroDivisionError" in (found.details or "")


def test_the_overrides_make_it_tiny_and_a_flag_the_script_lost_blocks(tmp_path: Path) -> None:
    shrink = CommandsSettings(overrides={"train.py": Shrink(args=("--steps=1",))})
    renamed = TRAIN.replace('"--steps"', '"--num-steps"').replace("args.steps", "args.num_steps")

    result = pull_request(
        GitRepo(tmp_path),
        {"README.md": README, "train.py": TRAIN, "sample.py": SAMPLE},
        {"train.py": renamed},
        shrink,
    )

    [found] = result.findings
    assert found.kind == "commands-broke"
    assert "run as `python train.py --steps=100 --steps=1`" in found.message
    assert "exited with code 2 (train.py: error: unrecognized arguments: --steps=100" in (
        found.message
    )


def test_harmless_edits_pass_and_each_command_runs_once(tmp_path: Path) -> None:
    tidied = TRAIN.replace("loss = 1.0 / (step + 1)", "loss = 1.0 / (1 + step)  # tidier")

    result = pull_request(
        GitRepo(tmp_path),
        {"README.md": README, "train.py": TRAIN, "sample.py": SAMPLE},
        {"train.py": tidied, "sample.py": 'print("sampled", flush=True)\n'},
    )

    assert (result.outcome, result.findings) == (Outcome.PASS, ())
    assert result.metrics["commands"] == 2
    assert result.summary == "2 of 2 documented commands start"


def test_data_the_repository_lacks_is_a_note_once_and_a_failure_at_both_a_note(
    tmp_path: Path,
) -> None:
    readme = README + "\n```bash\npython evaluate.py\npython plot.py\n```\n"
    evaluate = "open('data/val.bin', 'rb')\n"
    plot = "import matplotlib_is_not_installed\n"

    result = pull_request(
        GitRepo(tmp_path),
        {"README.md": readme, "train.py": TRAIN, "sample.py": "open('data/val.bin')\n",
         "evaluate.py": evaluate, "plot.py": plot},
        {"train.py": TRAIN + "# a comment\n", "plot.py": plot + "# a comment\n"},
    )  # fmt: skip

    assert result.outcome is Outcome.PASS, result.findings
    kinds = [(f.kind, f.severity, f.file, f.line) for f in result.findings]
    assert kinds == [
        ("commands-needs-data", Severity.NOTE, "README.md", 5),  # sample.py: once for the path
        ("commands-fails-at-base", Severity.NOTE, "README.md", 10),
    ]
    assert "it wanted `data/val.bin`" in result.findings[0].message


def test_a_command_the_pr_documents_runs_at_head_only_and_blocks_when_it_does_not_start(
    tmp_path: Path,
) -> None:
    readme = README + "\nFine-tune with `python finetune.py`.\n"

    result = pull_request(
        GitRepo(tmp_path),
        {"README.md": README, "train.py": TRAIN, "sample.py": SAMPLE},
        {"README.md": readme, "finetune.py": "from train import nothing\n"},
    )

    [found] = result.findings
    assert (found.kind, found.file, found.line) == ("commands-added-broken", "finetune.py", 1)
    assert "is new in this pull request and does not start: raised ImportError" in found.message


def test_a_command_that_hangs_at_head_blocks_naming_the_limit(tmp_path: Path) -> None:
    settings = CommandsSettings(command_timeout_s=3.0, timeout_s=120.0)

    result = pull_request(
        GitRepo(tmp_path),
        {"README.md": README, "train.py": TRAIN, "sample.py": SAMPLE},
        {"sample.py": "import time\ntime.sleep(60)\n"},
        settings,
    )

    [found] = result.findings
    assert found.kind == "commands-timeout" and found.severity is Severity.BLOCKING
    assert "did not finish at head within `command_timeout_s` (3 s)" in found.message


def test_a_config_the_readme_names_moved_by_the_pr_blocks_and_is_no_missing_data(
    tmp_path: Path,
) -> None:
    readme = "```bash\npython train.py configs/small.yaml\n```\n"
    train = "import sys\n\nwith open(sys.argv[1]) as config:\n    print(config.read())\n"

    result = pull_request(
        GitRepo(tmp_path),
        {"README.md": readme, "train.py": train, "configs/small.yaml": "dim: 4\n"},
        {"configs/small.yaml": None, "configs/model/small.yaml": "dim: 4\n"},
    )

    [found] = result.findings
    assert (found.kind, found.file, found.line) == ("commands-broke", "train.py", 3)
    assert "FileNotFoundError" in found.message
    assert "a file this pull request did not change" in found.message

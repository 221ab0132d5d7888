"""Which commands run: the docs' shell blocks and code spans, the config's, less the excluded."""

from __future__ import annotations

from gradgate.checks.commands.found import commands_at, shrink_for
from gradgate.checks.commands.settings import CommandsSettings, Shrink

FILES = frozenset({"train.py", "sample.py", "pkg/train.py", "data/prepare.py", "README.md"})
README = """\
# Tiny

```bash
pip install -e .
python data/prepare.py
WANDB_MODE=offline python train.py --batch_size=12
torchrun --standalone --nproc_per_node=4 train.py
python -m pkg.train model.lr=1e-3
python -m http.server
python missing.py
```

Then sample with `python sample.py --start=hi`; see `lr=3e-4` for the rest.
"""


def texts(settings: CommandsSettings | None = None) -> list[str]:
    settings = settings or CommandsSettings()
    return [c.text for c in commands_at({"README.md": README}, FILES, settings)]


def test_shell_blocks_and_code_spans_give_the_project_s_own_script_runs() -> None:
    assert texts() == [
        "python data/prepare.py",
        "WANDB_MODE=offline python train.py --batch_size=12",
        "torchrun --standalone --nproc_per_node=4 train.py",
        "python -m pkg.train model.lr=1e-3",
        "python sample.py --start=hi",
    ]


def test_each_command_keeps_the_line_it_is_documented_on() -> None:
    found = commands_at({"README.md": README}, FILES, CommandsSettings())

    assert [(c.doc, c.line) for c in found] == [
        ("README.md", 5), ("README.md", 6), ("README.md", 7), ("README.md", 8), ("README.md", 13)
    ]  # fmt: skip
    assert found[3].path == "pkg/train.py"


def test_a_command_is_excluded_as_written_or_by_its_script_and_the_config_adds_its_own() -> None:
    settings = CommandsSettings(
        exclude=("data/prepare.py", "python sample.py --start=hi", "pkg.train"),
        run=("python train.py --eval_only=True",),
    )

    assert texts(settings) == [
        "WANDB_MODE=offline python train.py --batch_size=12",
        "torchrun --standalone --nproc_per_node=4 train.py",
        "python train.py --eval_only=True",
    ]


def test_the_command_s_own_overrides_win_over_its_script_s() -> None:
    own, script = Shrink(args=("--own",)), Shrink(args=("--script",))
    settings = CommandsSettings(
        overrides={"train.py": script, "torchrun --standalone --nproc_per_node=4 train.py": own}
    )
    found = {c.text: c for c in commands_at({"README.md": README}, FILES, settings)}

    assert shrink_for(found["torchrun --standalone --nproc_per_node=4 train.py"], settings) == own
    assert shrink_for(found["WANDB_MODE=offline python train.py --batch_size=12"], settings) == (
        script
    )
    assert shrink_for(found["python sample.py --start=hi"], settings) == Shrink()

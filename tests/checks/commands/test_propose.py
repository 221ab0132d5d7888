"""`gradgate init` proposes each documented command's overrides from its script's own parser."""

from __future__ import annotations

import pytest
import yaml
from gradgate.bot.config.model import load_config
from gradgate.bot.config.starter import starter_config
from gradgate.checks.commands.propose import propose
from gradgate.checks.commands.settings import CommandsSettings

from bench._command_repos import STYLES, style_files

HYDRA_SCRIPT = """\
import hydra

@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    print(cfg.trainer.max_steps)
"""
HYDRA_FILES = {
    "hyd.py": HYDRA_SCRIPT,
    "conf/config.yaml": "defaults:\n  - trainer: gpu\nmodel:\n  dim: 4\n",
    "conf/trainer/gpu.yaml": "max_steps: 100000\naccelerator: gpu\n",
    "README.md": "```bash\npython hyd.py model.dim=3\n```\n",
}


def proposed(files: dict[str, str]) -> list[tuple[str, tuple[str, ...], str | None]]:
    found = propose(sorted(files), lambda p: files.get(p, "").encode(), CommandsSettings())
    return [(p.command.text, p.args, p.parser) for p in found]


@pytest.mark.parametrize(
    ("style", "args", "parser"),
    [
        ("configurator", ("--max_iters=1", "--device=cpu", "--batch_size=2"), "configurator"),
        ("argparse", ("--epochs=1", "--steps-per-epoch=1", "--device=cpu"), "argparse"),
        ("torchrun", ("--max_iters=1", "--device=cpu", "--backend=gloo"), "configurator"),
    ],
)
def test_overrides_come_from_the_script_s_own_options(
    style: str, args: tuple[str, ...], parser: str
) -> None:
    assert proposed(style_files(style)) == [(STYLES[style].command, args, parser)]


def test_a_hydra_script_gets_overrides_of_its_config_s_leaf_keys() -> None:
    assert proposed(HYDRA_FILES) == [
        ("python hyd.py model.dim=3", ("trainer.max_steps=1", "trainer.accelerator=cpu"), "hydra")
    ]


def test_init_writes_the_overrides_and_says_which_commands_it_could_not_shrink() -> None:
    files = {**style_files("argparse"), "prep.py": "print('made')\n"}
    files["README.md"] += "\nThen `python prep.py`.\n"

    text = starter_config(sorted(files), lambda p: files.get(p, "").encode())

    config = load_config(text)
    shrink = config.settings_for("commands").overrides  # type: ignore[attr-defined]
    assert shrink["scripts/train_mlp.py"].args == (
        "--epochs=1",
        "--steps-per-epoch=1",
        "--device=cpu",
    )
    assert "#   `python prep.py` (`README.md:9`): no parser gradgate reads" in text
    zones = yaml.safe_load(text)["zones"]
    assert all("commands" in z["checks"] for z in zones), zones

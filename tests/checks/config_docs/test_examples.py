"""Docs examples that must still run (issue 19): D9 calls, D10 command options, and what passes."""

from __future__ import annotations

from gradgate.checks.base import Outcome

from tests.checks.config_docs.pr import blocking, notes, only, pull_request
from tests.gitrepo import GitRepo

MODEL = """\
class Net:
    def __init__(self, dim, heads=8):
        self.dim, self.heads = dim, heads

    def forward(self, x, mask=None):
        return x


def build(dim, heads=8):
    return Net(dim, heads)
"""
CALL_README = """\
# net

```python
from net.model import build
model = build(dim=64, heads=4)
```

```python
import net.model as m
net = m.Net(64, heads=4)
out = net(x, mask=None)
```
"""


def base_files(readme: str = CALL_README) -> dict[str, str]:
    return {"README.md": readme, "net/__init__.py": "", "net/model.py": MODEL}


def test_d9_readme_example_still_passing_a_renamed_keyword(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        base_files(),
        {
            "net/model.py": MODEL.replace(
                "heads=8):\n    return", "num_heads=8):\n    return"
            ).replace("Net(dim, heads)", "Net(dim, num_heads)")
        },
    )

    found = only(blocking(result), "doc-example-broken")
    assert (found.file, found.line) == ("README.md", 5)
    assert "calls `build(dim=64, heads=4)`, which no longer runs" in found.message
    assert "`build` (`net/model.py:9`) has no parameter `heads` (now `num_heads`)" in found.message
    assert found.details_lang == "suggestion"
    assert found.details == "model = build(dim=64, num_heads=4)"


def test_a_constructor_and_a_forward_call_are_checked_through_an_instance(repo: GitRepo) -> None:
    head = MODEL.replace(
        "def __init__(self, dim, heads=8)", "def __init__(self, dim, *, n_heads=8)"
    )
    head = head.replace("self.heads = dim, heads", "self.heads = dim, n_heads")
    head = head.replace("def forward(self, x, mask=None)", "def forward(self, x)")
    result = pull_request(repo, base_files(), {"net/model.py": head})

    found = blocking(result)
    assert [(f.kind, f.line) for f in found] == [
        ("doc-example-broken", 10),
        ("doc-example-broken", 11),
    ]
    assert "`Net` (`net/model.py:2`) has no parameter `heads` (now `n_heads`)" in found[0].message
    assert found[0].details == "net = m.Net(64, n_heads=4)"
    assert "`Net(...)` (`net/model.py:5`) has no parameter `mask`" in found[1].message
    assert found[1].details == "out = net(x)"


def test_too_many_positional_arguments_and_a_removed_function(repo: GitRepo) -> None:
    readme = "# n\n\n```python\nimport net.model as m\nm.build(64, 4)\nm.make(3)\n```\n"
    base = {**base_files(readme), "net/model.py": MODEL + "\n\ndef make(n):\n    return n\n"}
    head = MODEL.replace("def build(dim, heads=8)", "def build(dim, *, heads=8)")
    result = pull_request(repo, base, {"net/model.py": head})

    found = blocking(result)
    assert [(f.kind, f.line) for f in found] == [
        ("doc-example-broken", 5),
        ("doc-example-broken", 6),
    ]
    assert "`4` is one too many (pass it as `heads=4`)" in found[0].message
    assert found[0].details == "m.build(64, heads=4)"
    assert "`net/model.py` does not define `make`" in found[1].message


def test_calls_that_still_bind_and_other_packages_calls_pass(repo: GitRepo) -> None:
    readme = CALL_README + "\n```python\nimport torch\nx = torch.randn(2, 3, nonsense=1)\n```\n"
    head = MODEL.replace("def build(dim, heads=8)", "def build(dim, heads=8, depth=2)")
    result = pull_request(repo, base_files(readme), {"net/model.py": head})

    assert result.findings == ()


def test_an_example_already_broken_at_base_is_a_note(repo: GitRepo) -> None:
    readme = "# n\n\n```python\nfrom net.model import build\nbuild(64, depth=3)\n```\n"
    result = pull_request(
        repo,
        base_files(readme),
        {"net/model.py": MODEL + "\n# touched\n", "README.md": readme + "\nMore below.\n"},
    )

    assert result.outcome is Outcome.PASS
    note = only(notes(result), "doc-example-broken")
    assert "has no parameter `depth`" in note.message
    assert "already so before this PR" in note.message


TRAIN = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--{flag}", type=int, default=32)
parser.add_argument("--lr", type=float, default=3e-4)
args = parser.parse_args()
"""
COMMAND_README = """\
# t

```bash
torchrun --nproc_per_node=2 train.py --batch_size 32 --lr=3e-4
```
"""


def test_d10_command_passes_a_flag_the_script_no_longer_has(repo: GitRepo) -> None:
    result = pull_request(
        repo,
        {"README.md": COMMAND_README, "train.py": TRAIN.format(flag="batch_size")},
        {"train.py": TRAIN.format(flag="train_batch_size")},
    )

    found = only(blocking(result), "doc-command-option-unknown")
    assert (found.file, found.line) == ("README.md", 4)
    assert "passes the option `--batch_size`, but `train.py` does not accept it" in found.message
    assert "it looks renamed to `--train_batch_size`" in found.message
    assert found.details == ("torchrun --nproc_per_node=2 train.py --train_batch_size 32 --lr=3e-4")


def test_argparse_prefixes_launcher_options_and_unknown_parsers_pass(repo: GitRepo) -> None:
    readme = (
        "# t\n\n```bash\ntorchrun --nproc_per_node=2 train.py --batch 32 --lr=3e-4 -h\n"
        "python other.py --anything 1\n```\n"
    )
    other = "import sys\nprint(sys.argv)\n"
    result = pull_request(
        repo,
        {"README.md": readme, "train.py": TRAIN.format(flag="batch_size"), "other.py": other},
        {"train.py": TRAIN.format(flag="batch_size") + "# touched\n"},
    )

    assert result.findings == ()


def test_click_typer_and_configurator_options(repo: GitRepo) -> None:
    readme = (
        "# t\n\n```bash\npython cli.py --lr 1 --no-amp\npython app.py --batch-size 2\n"
        "python train.py config/small.py --max_iters=10\n```\n"
    )
    cli = (
        "import click\n\n@click.command()\n@click.option('--lr', default=1.0)\n"
        "@click.option('--amp/--no-amp')\ndef main(lr, amp):\n    pass\n"
    )
    app = (
        "import typer\n\ndef main(batch_size: int = 1, amp: bool = False):\n    pass\n\n"
        "typer.run(main)\n"
    )
    train = "max_iters = 100\nexec(open('configurator.py').read())\n"
    files = {"README.md": readme, "cli.py": cli, "app.py": app, "train.py": train}
    result = pull_request(
        repo,
        files,
        {
            "cli.py": cli.replace("--amp/--no-amp", "--fp16/--no-fp16"),
            "app.py": app.replace("batch_size", "bs"),
            "train.py": train.replace("max_iters", "max_steps"),
        },
    )

    found = blocking(result)
    assert [(f.line, f.message.split("passes the option ")[1].split(",")[0]) for f in found] == [
        (4, "`--no-amp`"),
        (5, "`--batch-size`"),
        (6, "`--max_iters`"),
    ]


def test_hydra_overrides_name_config_keys_or_groups(repo: GitRepo) -> None:
    readme = "# t\n\n```bash\npython run.py trainer.epochs=3 model=big +extra=1\n```\n"
    run = (
        "import hydra\n\n@hydra.main(config_path='conf', config_name='config')\n"
        "def main(cfg):\n    pass\n"
    )
    config = "defaults:\n  - model: small\ntrainer:\n  epochs: 10\n"
    files = {
        "README.md": readme,
        "run.py": run,
        "conf/config.yaml": config,
        "conf/model/small.yaml": "width: 8\n",
        "conf/model/big.yaml": "width: 64\n",
    }
    result = pull_request(repo, files, {"conf/config.yaml": config.replace("trainer:", "train:")})

    found = only(blocking(result), "doc-command-option-unknown")
    assert "passes the override `trainer.epochs`" in found.message


def test_scripts_whose_options_cannot_be_listed_accept_anything(repo: GitRepo) -> None:
    readme = (
        "# t\n\n```bash\npython a.py --gpus 2\npython b.py --anything 1\n"
        "python c.py --model_name_or_path x\n```\n"
    )
    looped = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--seed')\n"
        "for k in ('a', 'b'):\n    p.add_argument(f'--{k}')\n"
    )
    lightning = (
        "import argparse\nfrom lightning import Trainer\np = argparse.ArgumentParser()\n"
        "p.add_argument('--seed')\np = Trainer.add_argparse_args(p)\n"
    )
    hf = (
        "import argparse\nfrom transformers import HfArgumentParser\n"
        "p = argparse.ArgumentParser()\np.add_argument('--seed')\n"
    )
    files = {"README.md": readme, "a.py": lightning, "b.py": looped, "c.py": hf}
    result = pull_request(repo, files, {name: text + "# touched\n" for name, text in files.items()})

    assert result.findings == ()


def test_calls_whose_signature_cannot_be_read_are_left_alone(repo: GitRepo) -> None:
    readme = (
        "# n\n\n```python\nfrom net.model import Child, wrapped\n"
        "c = Child(1, 2, 3, anything=4)\nc.parameters(recurse=False)\nc.extra(1, 2)\n"
        "wrapped(1, 2, 3)\n```\n"
    )
    code = (
        "import functools\nfrom torch import nn\n\n\nclass Child(nn.Module):\n"
        "    def forward(self, x):\n        return x\n\n\n@functools.singledispatch\n"
        "def wrapped(x):\n    return x\n"
    )
    result = pull_request(
        repo,
        {"README.md": readme, "net/__init__.py": "", "net/model.py": code},
        {"net/model.py": code + "# touched\n"},
    )

    assert result.findings == ()


VQ = """\
from torch import nn


class VectorQuantize(nn.Module):
    def __init__(self, dim, codebook_size, decay=0.8, commitment_weight=1.0):
        super().__init__()

    def forward(self, x, mask=None):
        return x
"""
VQ_README = """\
# vq

```python
import torch
from vq import VectorQuantize

vq = VectorQuantize(
    dim = 256,
    codebook_size = 512,     # codebook size
    decay = 0.8,             # the EMA decay
)
quantized = vq(torch.randn(1, 1024, 256))
```
"""


def test_a_class_reexported_by_the_package_and_a_multiline_call(repo: GitRepo) -> None:
    files = {
        "README.md": VQ_README,
        "vq/__init__.py": "from vq.vector_quantize import VectorQuantize\n",
        "vq/vector_quantize.py": VQ,
    }
    result = pull_request(
        repo, files, {"vq/vector_quantize.py": VQ.replace("decay=", "ema_decay=")}
    )

    found = only(blocking(result), "doc-example-broken")
    assert (found.file, found.line) == ("README.md", 10)
    assert "`VectorQuantize` (`vq/vector_quantize.py:5`) has no parameter `decay`" in found.message
    assert found.details == "    ema_decay = 0.8,             # the EMA decay"


def test_an_old_broken_example_in_a_doc_the_pr_moved_stays_a_note(repo: GitRepo) -> None:
    readme = "# n\n\n```python\nfrom net.model import build\nbuild(64, depth=3)\n```\n"
    result = pull_request(
        repo,
        base_files(readme),
        {"net/model.py": MODEL + "\n# touched\n"},
        moves=(("README.md", "docs/index.md"),),
    )

    assert result.outcome is Outcome.PASS
    assert [(f.kind, f.file) for f in notes(result)] == [("doc-example-broken", "docs/index.md")]

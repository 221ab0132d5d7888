"""Small training repositories in four styles, with the edits the `commands` check must judge.

Each style is a repository whose README documents one command, with the overrides that make
it tiny: a nanoGPT-style script read by `configurator.py` (`--key=value`), an argparse script,
a script that takes Hydra-style `key.path=value` overrides, and a `torchrun` launch of a DDP
script. A ``Plant`` is one pull request on one of them: a regression that must block at its
line, or a harmless edit that must pass. Used by ``bench/commands.py`` and the check's tests.

`torch.cuda.is_bf16_supported()` answers False on a CPU-only build of torch 2.13 instead of
raising as it used to; the planted dtype choice asks for the device's compute capability,
which is what the older call did inside, and raises on every machine without CUDA.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

CONFIGURATOR = """\
import sys
from ast import literal_eval

for arg in sys.argv[1:]:
    if "=" not in arg:
        exec(open(arg).read())
    else:
        key, val = arg.split("=", 1)
        key = key[2:]
        if key not in globals():
            raise ValueError(f"Unknown config key: {key}")
        try:
            attempt = literal_eval(val)
        except (SyntaxError, ValueError):
            attempt = val
        globals()[key] = attempt
"""
MODEL = """\
import torch
from torch import nn
from torch.nn import functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx, targets=None):
        logits = self.head(torch.tanh(self.embed(idx)))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def num_params(self):
        return sum(p.numel() for p in self.parameters())
"""
TRAIN = """\
import torch

from model import TinyLM

batch_size = 4
block_size = 8
max_iters = 2000
eval_interval = 100
device = "cuda"
learning_rate = 1e-3
exec(open("configurator.py").read())

torch.manual_seed(0)


def get_batch():
    x = torch.randint(0, 32, (batch_size, block_size))
    y = torch.roll(x, -1, dims=1)
    return x.to(device), y.to(device)


model = TinyLM().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
for it in range(max_iters):
    x, y = get_batch()
    logits, loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if it % eval_interval == 0:
        print(f"iter {it}: loss {loss.item():.4f}")
"""
ARGPARSE = """\
import argparse

import torch
from torch import nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps-per-epoch", type=int, default=500)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    model = nn.Sequential(nn.Linear(8, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 1))
    model = model.to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for step in range(args.steps_per_epoch):
            x = torch.randn(16, 8, device=args.device)
            y = x.sum(dim=1, keepdim=True)
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
"""
HYDRA = """\
import sys
from ast import literal_eval

import torch
from torch import nn

CONFIG = {
    "trainer": {"max_steps": 1000, "log_every": 100, "device": "cuda"},
    "model": {"dim": 16},
    "optim": {"lr": 0.01},
}


def parse_overrides(config, argv):
    for word in argv:
        path, _, text = word.partition("=")
        *parents, leaf = path.split(".")
        node = config
        for part in parents:
            node = node[part]
        try:
            node[leaf] = literal_eval(text)
        except (SyntaxError, ValueError):
            node[leaf] = text
    return config


def main(cfg):
    device = cfg["trainer"]["device"]
    dim = cfg["model"]["dim"]
    model = nn.Sequential(nn.Linear(4, dim), nn.Tanh(), nn.Linear(dim, 2))
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    for step in range(cfg["trainer"]["max_steps"]):
        x = torch.randn(8, 4, device=device)
        target = (x[:, 0] > 0).long()
        loss = nn.functional.cross_entropy(model(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % cfg["trainer"]["log_every"] == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main(parse_overrides(CONFIG, sys.argv[1:]))
"""
DDP = """\
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from model import TinyLM

max_iters = 2000
log_interval = 1
backend = "nccl"
device = "cuda"
exec(open("configurator.py").read())

dist.init_process_group(backend=backend)
rank, world_size = dist.get_rank(), dist.get_world_size()
if device == "cuda":
    device = f"cuda:{rank}"
torch.manual_seed(rank)
model = DDP(TinyLM().to(device))
raw_model = model.module
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for it in range(max_iters):
    x = torch.randint(0, 32, (4, 8), device=device)
    logits, loss = model(x, torch.roll(x, -1, dims=1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if it % log_interval == 0 and rank == 0:
        print(f"iter {it}: loss {loss.item():.4f}, {raw_model.num_params()} parameters")
dist.destroy_process_group()
"""


@dataclass(frozen=True, slots=True)
class Style:
    files: Mapping[str, str]
    command: str  # as the README documents it
    script: str
    args: tuple[str, ...]  # the overrides that make it tiny

    @property
    def readme(self) -> str:
        return f"# Tiny\n\nTrain:\n\n```bash\n{self.command}\n```\n"


STYLES: dict[str, Style] = {
    "configurator": Style(
        {"configurator.py": CONFIGURATOR, "model.py": MODEL, "train.py": TRAIN},
        "python train.py --batch_size=8",
        "train.py",
        ("--max_iters=1", "--device=cpu"),
    ),
    "argparse": Style(
        {"scripts/train_mlp.py": ARGPARSE},
        "python scripts/train_mlp.py --hidden 64",
        "scripts/train_mlp.py",
        ("--epochs", "1", "--steps-per-epoch", "1", "--device", "cpu"),
    ),
    "hydra": Style(
        {"train_hydra.py": HYDRA},
        "python train_hydra.py optim.lr=0.05",
        "train_hydra.py",
        ("trainer.max_steps=1", "trainer.device=cpu"),
    ),
    "torchrun": Style(
        {"configurator.py": CONFIGURATOR, "model.py": MODEL, "train_ddp.py": DDP},
        "torchrun --standalone --nproc_per_node=8 train_ddp.py",
        "train_ddp.py",
        ("--max_iters=1", "--backend=gloo", "--device=cpu"),
    ),
}


@dataclass(frozen=True, slots=True)
class Plant:
    name: str
    style: str
    path: str
    old: str
    new: str  # its first line that is not in ``old`` is where a regression must be blocked
    regression: bool
    extra: Mapping[str, str] = field(default_factory=dict)  # files the edit adds

    def head(self) -> dict[str, str]:
        text = STYLES[self.style].files[self.path]
        assert text.count(self.old) == 1, (self.name, self.old)
        return {self.path: text.replace(self.old, self.new), **self.extra}

    def line(self) -> int:
        """The head line a regression must be blocked at."""
        text = self.head()[self.path]
        old = self.old.splitlines()
        offset = next(i for i, line in enumerate(self.new.splitlines()) if line not in old)
        return text[: text.index(self.new)].count("\n") + 1 + offset


PLANTS: tuple[Plant, ...] = (
    Plant(
        "bf16-at-import",
        "configurator",
        "train.py",
        "learning_rate = 1e-3\n",
        "learning_rate = 1e-3\ndtype = torch.bfloat16 if torch.cuda.get_device_capability()[0] >= 8"
        " else torch.float16\n",
        True,
    ),
    Plant(
        "pin-memory-always",
        "configurator",
        "train.py",
        "    return x.to(device), y.to(device)\n",
        "    return x.pin_memory().to(device, non_blocking=True), y.to(device)\n",
        True,
    ),
    Plant(
        "method-on-ddp-wrapper",
        "torchrun",
        "train_ddp.py",
        "{raw_model.num_params()}",
        "{model.num_params()}",
        True,
    ),
    Plant(
        "cuda-by-hand",
        "argparse",
        "scripts/train_mlp.py",
        "            x = torch.randn(16, 8, device=args.device)\n",
        "            x = torch.randn(16, 8).cuda()\n",
        True,
    ),
    Plant(
        "config-key-renamed-in-code",
        "hydra",
        "train_hydra.py",
        '    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])\n',
        '    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["learning_rate"])\n',
        True,
    ),
    Plant(
        "comment-and-log-format",
        "configurator",
        "train.py",
        '        print(f"iter {it}: loss {loss.item():.4f}")\n',
        "        # one line per eval interval\n"
        '        print(f"iter {it} | loss {loss.item():.3f}")\n',
        False,
    ),
    Plant(
        "pin-memory-on-cuda-only",
        "configurator",
        "train.py",
        "    return x.to(device), y.to(device)\n",
        '    if device.startswith("cuda"):\n'
        "        x, y = x.pin_memory(), y.pin_memory()\n"
        "    return x.to(device, non_blocking=True), y.to(device, non_blocking=True)\n",
        False,
    ),
    Plant(
        "new-option-with-default",
        "argparse",
        "scripts/train_mlp.py",
        '    parser.add_argument("--device", default="cuda")\n',
        '    parser.add_argument("--device", default="cuda")\n'
        '    parser.add_argument("--seed", type=int, default=0)\n',
        False,
    ),
    Plant(
        "raw-model-logged-with-rank",
        "torchrun",
        "train_ddp.py",
        "{raw_model.num_params()} parameters",
        "{raw_model.num_params()} parameters on {world_size} ranks",
        False,
    ),
    Plant(
        "lr-default-changed",
        "hydra",
        "train_hydra.py",
        '"optim": {"lr": 0.01}',
        '"optim": {"lr": 0.003}',
        False,
    ),
)


def style_files(style: str) -> dict[str, str]:
    """The style's repository at base: its files and the README that documents its command."""
    return {**STYLES[style].files, "README.md": STYLES[style].readme}

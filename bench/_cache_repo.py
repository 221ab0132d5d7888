"""The cache bench's repository: a small GPT-style transformer package with opt-in flags, built
up over a linear history of 25 commits, the way a model repository grows: options added, then
turned on, docs and tests edited between them, one regression and its fix.

Each step is (message, {path: new text}); ``history`` writes them as commits of a real git
repository and returns their SHAs, oldest first.
"""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import GitRepo

CONFIG = """\
model:
  entrypoint: "gpt/factory.py:build"
always: [gradient]
checks:
  gradient:
    memory_mb: 4096
"""

SETTINGS = """\
from dataclasses import dataclass


@dataclass
class Settings:
    vocab: int = 512
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = {layers}
    seq: int = 32
    rmsnorm: bool = {rmsnorm}
    rope: bool = {rope}
    swiglu: bool = {swiglu}
    qk_norm: bool = {qk_norm}
    tie: bool = False
    dropout: float = 0.0
"""

NORM = """\
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def norm(settings, width):
    return RMSNorm(width) if settings.rmsnorm else nn.LayerNorm(width)
"""

ATTENTION = """\
import torch
from torch import nn
from torch.nn import functional as F

from gpt.norm import norm


def rotate(x):
    half = x.shape[-1] // 2
    angles = torch.arange(x.shape[-2], dtype=x.dtype)[:, None] / 10000 ** (
        torch.arange(half, dtype=x.dtype) / half
    )
    cos, sin = angles.cos(), angles.sin()
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


class Attention(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.settings = settings
        self.heads = settings.n_heads
        self.qkv = nn.Linear(settings.d_model, 3 * settings.d_model)
        self.out = nn.Linear(settings.d_model, settings.d_model)
        width = settings.d_model // settings.n_heads
        self.q_norm = norm(settings, width) if settings.qk_norm else nn.Identity()
        self.k_norm = norm(settings, width) if settings.qk_norm else nn.Identity()

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=-1)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        q, k = self.q_norm(q), self.k_norm(k)
        if self.settings.rope:
            q, k = rotate(q), rotate(k)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, c))
"""

MLP = """\
from torch import nn
from torch.nn import functional as F


class MLP(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.swiglu = settings.swiglu
        hidden = 4 * settings.d_model
        self.up = nn.Linear(settings.d_model, hidden)
        self.gate = nn.Linear(settings.d_model, hidden) if settings.swiglu else None
        self.down = nn.Linear(hidden, settings.d_model)

    def forward(self, x):
        h = self.up(x)
        h = F.silu(self.gate(x)) * h if self.swiglu else F.gelu(h)
        return self.down(h){cut}
"""

BLOCK = """\
from torch import nn

from gpt.attention import Attention
from gpt.mlp import MLP
from gpt.norm import norm


class Block(nn.Module):{comment}
    def __init__(self, settings):
        super().__init__()
        self.norm1 = norm(settings, settings.d_model)
        self.attn = Attention(settings)
        self.norm2 = norm(settings, settings.d_model)
        self.mlp = MLP(settings)
        self.drop = nn.Dropout(settings.dropout)

    def forward(self, x):
        x = x + self.drop(self.attn(self.norm1(x)))
        return x + self.drop(self.mlp(self.norm2(x)))
"""

MODEL = """\
import torch
from torch import nn

from gpt.block import Block
from gpt.norm import norm


class GPT(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.embed = nn.Embedding(settings.vocab, settings.d_model)
        self.position = nn.Parameter(torch.zeros(settings.seq, settings.d_model))
        self.blocks = nn.ModuleList(Block(settings) for _ in range(settings.n_layers))
        self.norm = norm(settings, settings.d_model)
        self.head = nn.Linear(settings.d_model, settings.vocab, bias=False)
        if settings.tie:
            self.head.weight = self.embed.weight

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
"""

FACTORY = """\
import torch

from gpt.model import GPT
from gpt.settings import Settings


def build():
    torch.manual_seed(0)
    settings = Settings()
    return GPT(settings), torch.randint(0, settings.vocab, (2, settings.seq))
"""

TEST = """\
from gpt.factory import build


def test_logits_shape():
    model, tokens = build()
    assert model(tokens).shape[-1] == 512{more}
"""


def settings(**flags: object) -> str:
    values = {"layers": 4, "rmsnorm": False, "rope": False, "swiglu": False, "qk_norm": False}
    return SETTINGS.format(**{**values, **flags})


def steps() -> list[tuple[str, dict[str, str]]]:
    """The history, oldest first: 25 commits."""
    on: dict[str, object] = {}

    def turn(**flags: object) -> dict[str, str]:
        on.update(flags)
        return {"gpt/settings.py": settings(**on)}

    docs = iter(range(100))

    def readme() -> dict[str, str]:
        return {"README.md": f"# gpt\n\nA small transformer. Revision {next(docs)} of the docs.\n"}

    return [
        (
            "a small GPT",
            {
                ".gradgate.yml": CONFIG,
                "gpt/__init__.py": "",
                "gpt/settings.py": settings(),
                "gpt/norm.py": NORM,
                "gpt/attention.py": ATTENTION,
                "gpt/mlp.py": MLP.format(cut=""),
                "gpt/block.py": BLOCK.format(comment=""),
                "gpt/model.py": MODEL,
                "gpt/factory.py": FACTORY,
                **readme(),
            },
        ),
        ("docs: how to build it", readme()),
        ("rmsnorm on", turn(rmsnorm=True)),
        ("docs: rmsnorm", readme()),
        ("a test of the logits' shape", {"tests/test_gpt.py": TEST.format(more="")}),
        ("rope on", turn(rope=True)),
        ("block: say what it is", {"gpt/block.py": BLOCK.format(comment="\n    # pre-norm")}),
        ("docs: rope", readme()),
        ("swiglu on", turn(swiglu=True)),
        (
            "the test checks the batch too",
            {"tests/test_gpt.py": TEST.format(more="\n    assert model(tokens).shape[0] == 2")},
        ),
        ("docs: swiglu", readme()),
        ("qk-norm on", turn(qk_norm=True)),
        ("docs: qk-norm", readme()),
        ("six layers", turn(layers=6)),
        ("docs: six layers", readme()),
        ("a training script", {"scripts/train.py": "from gpt.factory import build\n"}),
        ("docs: training", readme()),
        ("eight layers", turn(layers=8)),
        (
            "mlp: a regression (the output is cut from the graph)",
            {"gpt/mlp.py": MLP.format(cut=".detach()")},
        ),
        ("docs: known issue", readme()),
        ("mlp: fixed", {"gpt/mlp.py": MLP.format(cut="")}),
        ("docs: fixed", readme()),
        ("the test, tidied", {"tests/test_gpt.py": TEST.format(more="\n")}),
        ("docs: changelog", {"CHANGELOG.md": "- rmsnorm, rope, swiglu, qk-norm\n"}),
        ("docs: final", readme()),
    ]


def history(root: Path, count: int | None = None) -> tuple[GitRepo, list[str]]:
    """The repository at ``root`` with the first ``count`` steps committed; their SHAs."""
    repo = GitRepo(root)
    shas = []
    for message, files in steps()[:count]:
        for path, text in files.items():
            repo.write(path, text)
        shas.append(repo.commit(message))
    return repo, shas

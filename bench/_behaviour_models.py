"""The behaviour check's corpus: models, and one-line-ish changes to them (breakages, refactors).

Shared by ``bench/behaviour.py`` (every change, counted) and the check's tests (one test per
change). Three models: the project's example (``examples/tiny-classifier``), a GPT in the style
of nanoGPT (causal self-attention, pre-norm blocks, a cross-entropy loss in the factory, a
default variant and one with dropout on), and a conv net with BatchNorm in the style of
torchvision. Each change is a list of (old, new) replacements in one file; the first new text
is the line a finding should point at (``line_of``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GPT = """\
import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.n_head = n_head
        self.n_embd = n_embd
        mask = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("bias", mask.view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, vocab_size=32, block_size=8, n_layer=2, n_head=2, n_embd=16, dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(
            [Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)]
        )
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        x = self.ln_f(x)
        return self.lm_head(x)


def build():
    torch.manual_seed(0)
    idx = torch.randint(0, 32, (2, 8))
    targets = torch.randint(0, 32, (2, 8))

    def loss(logits):
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return {
        "default": {"model": GPT(), "inputs": idx, "loss": loss},
        "dropout": {"model": GPT(dropout=0.1), "inputs": idx, "loss": loss},
    }
"""

CONV = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBN(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class ConvNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = ConvBN(3, 8)
        self.layer = ConvBN(8, 16)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer(x)
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


def build():
    torch.manual_seed(0)
    return ConvNet(), torch.randn(4, 3, 8, 8)
"""

EXAMPLE_PATH = "tinycls/model.py"
EXAMPLE = (ROOT / "examples/tiny-classifier/base" / EXAMPLE_PATH).read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Model:
    name: str
    path: str
    source: str
    entrypoint: str


MODELS = {
    "gpt": Model("gpt", "gpt.py", GPT, "gpt.py:build"),
    "convnet": Model("convnet", "convnet.py", CONV, "convnet.py:build"),
    "example": Model("example", EXAMPLE_PATH, EXAMPLE, "tinycls.model:build"),
}

REFACTOR = "refactor"
BLOCKING, WARNING = "blocking", "warning"


@dataclass(frozen=True, slots=True)
class Change:
    name: str  # unique: the test's id
    kind: str  # the kind of breakage, or REFACTOR
    model: str
    edits: tuple[tuple[str, str], ...]  # (old, new) in the model's file, each old once
    expect: str | None = BLOCKING  # the severity of the finding it must get; None: nothing

    def head(self) -> str:
        text = MODELS[self.model].source
        for old, new in self.edits:
            assert text.count(old) == 1, (self.name, old)
            text = text.replace(old, new)
        return text

    def line(self) -> int:
        """The head line a finding should point at: the first changed line."""
        base = MODELS[self.model].source.splitlines()
        for number, (a, b) in enumerate(zip(base, self.head().splitlines(), strict=False), 1):
            if a != b:
                return number
        return len(base) + 1


_ATT = "        att = self.attn_dropout(att)\n"
_SCALE = "(q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))"
_MASK = '        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))\n'
_RES_MLP = "        x = x + self.mlp(self.ln_2(x))\n"
_RES_ATT = "        x = x + self.attn(self.ln_1(x))\n"
_HEADS = """\
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
"""
_CONVBN = "        return F.relu(self.bn(self.conv(x)))\n"

CHANGES = (
    # -- the GPT ---------------------------------------------------------------------------
    Change("gpt-dropout-in-eval", "dropout on in eval", "gpt",
           ((_ATT, "        att = F.dropout(att, self.attn_dropout.p, training=True)\n"),)),
    Change("gpt-softmax-axis", "softmax over the wrong axis", "gpt",
           (("att = F.softmax(att, dim=-1)", "att = F.softmax(att, dim=-2)"),)),
    Change("gpt-scale-dropped", "attention scale dropped", "gpt",
           ((_SCALE, "(q @ k.transpose(-2, -1))"),)),
    Change("gpt-residual-dropped", "residual dropped", "gpt",
           ((_RES_MLP, "        x = self.mlp(self.ln_2(x))\n"),)),
    Change("gpt-causal-mask-dropped", "causal mask dropped", "gpt", ((_MASK, ""),)),
    Change("gpt-post-norm", "pre-norm to post-norm", "gpt",
           ((_RES_ATT, "        x = self.ln_1(x + self.attn(x))\n"),
            (_RES_MLP, "        x = self.ln_2(x + self.mlp(x))\n"))),
    Change("gpt-partial-detach", "partial detach", "gpt",
           (("        y = att @ v\n", "        y = att @ v.detach()\n"),)),
    Change("gpt-loss-sum", "loss reduction mean to sum", "gpt",
           (("logits.view(-1, logits.size(-1)), targets.view(-1))",
             'logits.view(-1, logits.size(-1)), targets.view(-1), reduction="sum")'),)),
    Change("gpt-init-std", "init change", "gpt",
           (("torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)\n            if",
             "torch.nn.init.normal_(module.weight, mean=0.0, std=0.05)\n            if"),),
           expect=WARNING),
    Change("gpt-rename-locals", REFACTOR, "gpt",
           (("        y = att @ v\n        y = y.transpose(1, 2).contiguous().view(B, T, C)\n"
             "        return self.c_proj(y)\n",
             "        out = att @ v\n        out = out.transpose(1, 2).contiguous().view(B, T, C)\n"
             "        return self.c_proj(out)\n"),), expect=None),
    Change("gpt-reorder-statements", REFACTOR, "gpt",
           ((_HEADS, _HEADS.splitlines(keepends=True)[1] + _HEADS.splitlines(keepends=True)[2]
             + _HEADS.splitlines(keepends=True)[0]),), expect=None),
    Change("gpt-extract-helper", REFACTOR, "gpt",
           ((_HEADS, "        k, q, v = (self._heads(t, B, T, C) for t in (k, q, v))\n"),
            ("    def forward(self, x):\n        B, T, C = x.size()",
             "    def _heads(self, t, B, T, C):\n"
             "        return t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)\n\n"
             "    def forward(self, x):\n        B, T, C = x.size()")), expect=None),
    # -- the conv net ------------------------------------------------------------------------
    Change("convnet-bn-stats-in-eval", "BatchNorm statistics updated in eval", "convnet",
           ((_CONVBN, "        self.bn.train()\n" + _CONVBN),)),
    Change("convnet-bn-momentum", "BatchNorm momentum changed", "convnet",
           (("self.bn = nn.BatchNorm2d(cout)", "self.bn = nn.BatchNorm2d(cout, momentum=0.5)"),)),
    Change("convnet-bn-eps", "BatchNorm eps changed", "convnet",
           (("self.bn = nn.BatchNorm2d(cout)", "self.bn = nn.BatchNorm2d(cout, eps=1e-2)"),)),
    Change("convnet-rename-locals", REFACTOR, "convnet",
           (("        x = self.stem(x)\n        x = self.layer(x)\n"
             "        x = torch.flatten(self.pool(x), 1)\n        return self.fc(x)\n",
             "        h = self.stem(x)\n        h = self.layer(h)\n"
             "        h = torch.flatten(self.pool(h), 1)\n        return self.fc(h)\n"),),
           expect=None),
    Change("convnet-extract-helper", REFACTOR, "convnet",
           (("    def forward(self, x):\n        x = self.stem(x)\n        x = self.layer(x)\n",
             "    def features(self, x):\n        return self.layer(self.stem(x))\n\n"
             "    def forward(self, x):\n        x = self.features(x)\n"),), expect=None),
    # -- the project's example -----------------------------------------------------------------
    Change("example-residual-dropped", "residual dropped", "example",
           (("        h = h + self.proj(x)\n", "        h = self.proj(x)\n"),)),
    Change("example-dropout-in-eval", "dropout on in eval", "example",
           (("        h = h + self.proj(x)\n",
             "        h = h + self.proj(x)\n"
             "        h = torch.nn.functional.dropout(h, 0.1, training=True)\n"),)),
    Change("example-init-bias", "init change", "example",
           (("        self.fc = nn.Linear(hidden, num_classes)\n",
             "        self.fc = nn.Linear(hidden, num_classes)\n"
             "        nn.init.zeros_(self.fc.bias)\n"),), expect=WARNING),
    Change("example-rename-locals", REFACTOR, "example",
           (("        h = torch.relu(self.embed(x))\n        h = h + self.proj(x)\n"
             "        return self.fc(self.norm(h))\n",
             "        hidden = torch.relu(self.embed(x))\n        hidden = hidden + self.proj(x)\n"
             "        return self.fc(self.norm(hidden))\n"),), expect=None),
)  # fmt: skip

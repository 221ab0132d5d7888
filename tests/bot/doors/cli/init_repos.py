"""Small model repositories in the styles of public libraries, for `gradgate init`'s tests.

Each is a mapping of path -> text, written into a real git repository by the test.
"""

from __future__ import annotations

# A diffusion U-Net written against names imported from torch.nn (`class Unet(Module)`), whose
# width is a required `dim` and whose forward takes a timestep; helpers imported under another
# name (`Module as Base`) that no one builds, more of them than init tries.
_HELPERS = "".join(
    f"\n\nclass Helper{n}(Base):\n    def __init__(self, path):\n        super().__init__()\n"
    for n in range(9)
)
UNET = {
    "README.md": "# ddpm\n\n```python\nfrom ddpm import Unet\n\nmodel = Unet(dim=64)\n```\n",
    "ddpm/__init__.py": "from ddpm.unet import Unet\n",
    "ddpm/attend.py": "from torch.nn import Module as Base\n" + _HELPERS,
    "ddpm/unet.py": """\
import math

import torch
from torch import nn
from torch.nn import Module, ModuleList


class SinusoidalPosEmb(Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        half = self.dim // 2
        scale = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, device=x.device) * -scale)
        angles = x[:, None].float() * freqs[None, :]
        return torch.cat((angles.sin(), angles.cos()), dim=-1)


class ResnetBlock(Module):
    def __init__(self, dim, dim_out, time_dim):
        super().__init__()
        self.conv1 = nn.Conv2d(dim, dim_out, 3, padding=1)
        self.time = nn.Linear(time_dim, dim_out)
        self.conv2 = nn.Conv2d(dim_out, dim_out, 3, padding=1)
        self.skip = nn.Conv2d(dim, dim_out, 1)

    def forward(self, x, t):
        h = self.conv1(x) + self.time(t)[:, :, None, None]
        return self.conv2(h.relu()) + self.skip(x)


class Unet(Module):
    def __init__(self, dim, dim_mults=(1, 2), channels=3):
        super().__init__()
        self.init_conv = nn.Conv2d(channels, dim, 7, padding=3)
        time_dim = dim * 4
        self.time_mlp = nn.Sequential(SinusoidalPosEmb(dim), nn.Linear(dim, time_dim), nn.GELU())
        dims = [dim * m for m in (1, *dim_mults)]
        pairs = list(zip(dims[:-1], dims[1:]))
        self.downs = ModuleList(ResnetBlock(a, b, time_dim) for a, b in pairs)
        self.ups = ModuleList(ResnetBlock(b, a, time_dim) for a, b in reversed(pairs))
        self.final_conv = nn.Conv2d(dim, channels, 1)

    def forward(self, x, time):
        t = self.time_mlp(time)
        x = self.init_conv(x)
        for block in self.downs:
            x = block(x, t)
        for block in self.ups:
            x = block(x, t)
        return self.final_conv(x)
""",
}

# A model whose width is a required argument named `dim`, without annotation or default.
DIM = {
    "mixer.py": """\
from torch import nn


class MLPMixer(nn.Module):
    def __init__(self, dim, depth=8, num_classes=1000, in_features=12):
        super().__init__()
        self.stem = nn.Linear(in_features, dim)
        self.blocks = nn.Sequential(*[nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim))
                                      for _ in range(depth)])
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))
""",
}

# minGPT's style: the model takes a CfgNode made by `GPT.get_default_config()`, whose sizes
# are None until a preset name (`model_type`) or the user fills them, never both.
_CFGNODE = '''\
class CfgNode:
    """A config whose fields are set as attributes after it is made."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
'''
_GPT_BODY = """\
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.drop = nn.Dropout(config.embd_pdrop)
        self.h = nn.ModuleList([nn.TransformerEncoderLayer(config.n_embd, config.n_head,
                                                           4 * config.n_embd, batch_first=True)
                                for _ in range(config.n_layer)])
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size)

    def forward(self, idx, targets=None):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        return self.lm_head(x)
"""
MINGPT = {
    "mingpt/__init__.py": "",
    "mingpt/utils.py": _CFGNODE,
    "mingpt/model.py": """\
import torch
from torch import nn

from mingpt.utils import CfgNode as CN

PRESETS = {"gpt-nano": dict(n_layer=3, n_head=3, n_embd=48)}


class GPT(nn.Module):
    @staticmethod
    def get_default_config():
        C = CN()
        C.model_type = "gpt"
        C.n_layer = None
        C.n_head = None
        C.n_embd = None
        C.vocab_size = None
        C.block_size = None
        C.embd_pdrop = 0.1
        return C

    def __init__(self, config):
        super().__init__()
        assert config.vocab_size is not None and config.block_size is not None
        type_given = config.model_type is not None
        params_given = all([config.n_layer is not None, config.n_head is not None,
                            config.n_embd is not None])
        assert type_given ^ params_given
        if type_given:
            config.__dict__.update(PRESETS[config.model_type])
"""
    + _GPT_BODY,
}

# A CfgNode-style config class whose defaults are class attributes, found by its name.
CLASS_DEFAULTS = {
    "tinygpt/__init__.py": "",
    "tinygpt/utils.py": _CFGNODE,
    "tinygpt/model.py": """\
import torch
from torch import nn

from tinygpt.utils import CfgNode


class GPTConfig(CfgNode):
    n_layer = 12
    n_head = 12
    n_embd = 768
    vocab_size = 50257
    block_size = 1024
    embd_pdrop = 0.1


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
"""
    + _GPT_BODY,
}

# x-transformers' style: the model a user builds is a wrapper around a decoder stack of the
# same package, as the README shows; `Decoder(**kwargs)` hands its arguments to its base class.
WRAPPER = {
    "README.md": """\
# x-transformers-lite

```python
from xlite import TransformerWrapper, Decoder

model = TransformerWrapper(
    num_tokens=20000,
    max_seq_len=1024,
    attn_layers=Decoder(dim=512, depth=12, heads=8),
)
```
""",
    "xlite/__init__.py": "from xlite.layers import Decoder, Encoder, TransformerWrapper\n",
    "xlite/layers.py": """\
import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads, causal, dropout, qk_norm):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)
        self.q_norm = nn.LayerNorm(dim // heads) if qk_norm else nn.Identity()
        self.dropout = dropout

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)
        q = self.q_norm(q)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.out(y.transpose(1, 2).reshape(b, n, d))


class AttentionLayers(nn.Module):
    def __init__(self, dim, depth, heads=8, causal=False, attn_dropout=0.0, ff_dropout=0.0,
                 attn_qk_norm=False, ff_glu=False, use_rmsnorm=False, cross_attend=False):
        super().__init__()
        norm = nn.RMSNorm if use_rmsnorm else nn.LayerNorm
        self.cross_attend = cross_attend
        self.layers = nn.ModuleList()
        for _ in range(depth):
            ff = nn.Sequential(nn.Linear(dim, 8 * dim if ff_glu else 4 * dim), nn.GELU(),
                               nn.Dropout(ff_dropout), nn.Linear(4 * dim, dim))
            self.layers.append(nn.ModuleList([
                norm(dim), Attention(dim, heads, causal, attn_dropout, attn_qk_norm),
                norm(dim), ff,
            ]))
        self.glu = ff_glu

    def forward(self, x, context=None):
        if self.cross_attend and context is None:
            raise ValueError("cross_attend needs a context")
        for norm1, attn, norm2, ff in self.layers:
            x = x + attn(norm1(x))
            h = norm2(x)
            if self.glu:
                a, gate = ff[0](h).chunk(2, dim=-1)
                x = x + ff[3](ff[2](a * F.gelu(gate)))
            else:
                x = x + ff(h)
        return x


class Encoder(AttentionLayers):
    def __init__(self, **kwargs):
        assert "causal" not in kwargs, "cannot set causality on encoder"
        super().__init__(causal=False, **kwargs)


class Decoder(AttentionLayers):
    def __init__(self, **kwargs):
        assert "causal" not in kwargs, "cannot set causality on decoder"
        super().__init__(causal=True, **kwargs)


class TransformerWrapper(nn.Module):
    def __init__(self, *, num_tokens, max_seq_len, attn_layers: AttentionLayers,
                 emb_dropout=0.0, tie_embedding=False):
        super().__init__()
        dim = attn_layers.layers[0][1].out.in_features
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.pos_emb = nn.Embedding(max_seq_len, dim)
        self.emb_dropout = nn.Dropout(emb_dropout)
        self.attn_layers = attn_layers
        self.to_logits = nn.Linear(dim, num_tokens)
        if tie_embedding:
            self.to_logits.weight = self.token_emb.weight

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        x = self.emb_dropout(self.token_emb(x) + self.pos_emb(pos))
        return self.to_logits(self.attn_layers(x))
""",
}

# A flat GPT with more boolean feature flags than init's budget, one of which does nothing.
FLAGS = {
    "train.py": "loss.backward()\n",
    "model.py": """\
import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, n_embd, n_head, dropout, bias, qk_norm, parallel_residual, swiglu):
        super().__init__()
        self.n_head, self.dropout, self.parallel = n_head, dropout, parallel_residual
        self.ln1 = nn.LayerNorm(n_embd, bias=bias)
        self.ln2 = nn.LayerNorm(n_embd, bias=bias)
        self.qkv = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.proj = nn.Linear(n_embd, n_embd, bias=bias)
        self.q_norm = nn.LayerNorm(n_embd // n_head) if qk_norm else None
        self.up = nn.Linear(n_embd, (8 if swiglu else 4) * n_embd, bias=bias)
        self.down = nn.Linear(4 * n_embd, n_embd, bias=bias)
        self.swiglu = swiglu

    def attn(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_head, c // self.n_head).transpose(1, 3).unbind(2)
        if self.q_norm is not None:
            q = self.q_norm(q)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))

    def mlp(self, x):
        h = self.up(x)
        if self.swiglu:
            a, gate = h.chunk(2, dim=-1)
            h = a * F.silu(gate)
        else:
            h = F.gelu(h)
        return F.dropout(self.down(h), self.dropout, self.training)

    def forward(self, x):
        if self.parallel:
            return x + self.attn(self.ln1(x)) + self.mlp(self.ln2(x))
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, block_size=1024, n_layer=12, n_head=12, n_embd=768,
                 dropout=0.0, bias=True, qk_norm=False, cache_enabled=False,
                 parallel_residual=False, tie_weights=False, swiglu=False, final_norm=True,
                 learned_pos=True, scale_logits=False, verbose=False):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd) if learned_pos else None
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([
            Block(n_embd, n_head, dropout, bias, qk_norm, parallel_residual, swiglu)
            for _ in range(n_layer)
        ])
        self.ln_f = nn.LayerNorm(n_embd) if final_norm else nn.Identity()
        self.head = nn.Linear(n_embd, vocab_size, bias=False)
        if tie_weights:
            self.head.weight = self.wte.weight
        self.scale = n_embd ** -0.5 if scale_logits else 1.0

    def forward(self, idx):
        x = self.wte(idx)
        if self.wpe is not None:
            x = x + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        x = self.drop(x)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x)) * self.scale
""",
}

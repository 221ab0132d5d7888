"""The realworld bench's factory for x-transformers: a tiny decoder-only TransformerWrapper, with
one variant per family of flags the library is mostly made of (positions, attention, feedforward,
residual and norm), so code that only a flag runs is built and stepped too."""

from __future__ import annotations

from typing import Any

VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "rotary": {"rotary_pos_emb": True, "attn_qk_norm": True},
    "glu": {"ff_glu": True, "ff_swish": True, "use_rmsnorm": True},
    "alibi": {"alibi_pos_bias": True, "residual_attn": True, "pre_norm": False},
}


def build() -> dict[str, Any]:
    import torch
    from x_transformers import Decoder, TransformerWrapper

    out: dict[str, Any] = {}
    for name, flags in VARIANTS.items():
        torch.manual_seed(0)
        model = TransformerWrapper(
            num_tokens=64,
            max_seq_len=16,
            attn_layers=Decoder(dim=32, depth=2, heads=2, attn_dim_head=16, **flags),
        )
        generator = torch.Generator().manual_seed(0)
        tokens = torch.randint(0, 64, (2, 16), generator=generator)
        out[name] = {"model": model, "inputs": {"x": tokens}}
    return out

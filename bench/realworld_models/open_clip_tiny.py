"""The realworld bench's factory for open-clip-torch: a tiny CLIP built from its config classes."""

from __future__ import annotations

from typing import Any


def build() -> dict[str, Any]:
    import _cpu_torchvision

    _cpu_torchvision.declare()
    import torch
    from open_clip.model import CLIP, CLIPTextCfg, CLIPVisionCfg

    model = CLIP(
        embed_dim=16,
        vision_cfg=CLIPVisionCfg(layers=2, width=32, head_width=16, patch_size=8, image_size=32),
        text_cfg=CLIPTextCfg(context_length=12, vocab_size=96, width=32, heads=2, layers=2),
    )
    generator = torch.Generator().manual_seed(0)
    image = torch.randn(2, 3, 32, 32, generator=generator)
    text = torch.randint(0, 96, (2, 12), generator=generator)
    return {"model": model, "inputs": {"image": image, "text": text}}

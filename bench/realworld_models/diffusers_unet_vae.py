"""The realworld bench's factory for diffusers: a tiny UNet2DModel and a tiny AutoencoderKL."""

from __future__ import annotations

from typing import Any


def build() -> dict[str, Any]:
    import _cpu_torchvision

    _cpu_torchvision.declare()
    import torch
    from diffusers import AutoencoderKL, UNet2DModel

    unet = UNet2DModel(
        sample_size=16,
        in_channels=3,
        out_channels=3,
        layers_per_block=1,
        block_out_channels=(8, 16),
        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
        up_block_types=("AttnUpBlock2D", "UpBlock2D"),
        norm_num_groups=4,
        attention_head_dim=8,
    )
    vae = AutoencoderKL(
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        block_out_channels=(8, 16),
        latent_channels=4,
        norm_num_groups=4,
        sample_size=16,
    )

    class Pair(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.unet, self.vae = unet, vae

        def forward(self, sample: Any, timestep: Any) -> dict[str, Any]:
            return {
                "unet": self.unet(sample, timestep).sample,
                "vae": self.vae(sample).sample,  # the posterior's mode: no sampling
            }

    generator = torch.Generator().manual_seed(0)
    sample = torch.randn(2, 3, 16, 16, generator=generator)
    return {"model": Pair(), "inputs": {"sample": sample, "timestep": torch.tensor([3, 7])}}

"""The realworld bench's factory for segmentation-models-pytorch: a Unet and an FPN, no weights."""

from __future__ import annotations

from typing import Any


def build() -> dict[str, Any]:
    import _cpu_torchvision

    _cpu_torchvision.declare()
    import segmentation_models_pytorch as smp
    import torch

    unet = smp.Unet(
        encoder_name="resnet18",
        encoder_weights=None,
        classes=2,
        decoder_channels=(32, 16, 16, 8, 8),
    )
    fpn = smp.FPN(encoder_name="resnet18", encoder_weights=None, classes=2)

    class Pair(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.unet, self.fpn = unet, fpn

        def forward(self, images: Any) -> dict[str, Any]:
            return {"unet": self.unet(images), "fpn": self.fpn(images)}

    images = torch.randn(2, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    return {"model": Pair(), "inputs": {"images": images}}

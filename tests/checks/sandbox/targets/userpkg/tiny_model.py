"""A tiny torch model factory, as a user's repo would have one."""

import torch


def build(width: int = 8) -> dict[str, object]:
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, width), nn.ReLU(), nn.Linear(width, 1))
    inputs = torch.randn(3, 4)
    return {
        "parameters": sum(p.numel() for p in model.parameters()),
        "outputs": model(inputs).flatten().tolist(),
    }


def allocates(mb: int) -> int:
    return torch.empty(mb << 20, dtype=torch.uint8).numel()

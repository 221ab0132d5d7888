import torch
from torch import nn


class TinyClassifier(nn.Module):
    def __init__(self, in_features: int = 32, hidden: int = 64, num_classes: int = 10) -> None:
        super().__init__()
        self.embed = nn.Linear(in_features, hidden)
        self.proj = nn.Linear(in_features, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.classifier = nn.Linear(hidden, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.embed(x))
        h = h + self.proj(x).detach()
        return self.classifier(self.norm(h))


def build() -> tuple[nn.Module, torch.Tensor]:
    """gradgate's model factory: the model and an example batch."""
    torch.manual_seed(0)
    return TinyClassifier(), torch.randn(4, 32)

import argparse

import torch
import yaml

from tinycls.losses import weighted_loss
from tinycls.model import TinyClassifier

# The sweep scripts and the eval dashboards read runs from this exact directory.
RUNS_DIR = "runs/tiny-classifier/v3"  # NO_REFAC: changing it orphans three months of runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/train.yaml")
    parser.add_argument("--dropout", type=float, default=0.1)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    model = TinyClassifier()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    for _ in range(cfg["epochs"]):
        x = torch.randn(cfg["batch_size"], 32)
        y = torch.randint(0, 10, (cfg["batch_size"],))
        loss = weighted_loss(y, model(x))
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), f"{RUNS_DIR}/last.pt")


if __name__ == "__main__":
    main()

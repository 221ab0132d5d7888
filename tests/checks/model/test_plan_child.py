"""checks.model.plan.child: the facts of each variant, and FLOPs counted without torch._dynamo.

In a fresh interpreter, as a child is: torch's FLOP counter would import torch._dynamo on its
first operation (about a second, 800 modules, in each revision's child); the plan must not.
"""

from __future__ import annotations

import json
import subprocess
import sys

COUNT = """\
import json, sys
import torch
from gradgate.checks.model.plan.child import _flops


class Loaded:
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    args, kwargs = (torch.zeros(3, 8),), {}


flops, error = _flops(Loaded())
print(json.dumps([flops, error, "torch._dynamo" in sys.modules]))
"""


def test_forward_flops_are_torchs_count_and_cost_no_dynamo_import() -> None:
    done = subprocess.run(
        [sys.executable, "-c", COUNT], capture_output=True, text=True, check=True, timeout=120
    )
    flops, error, dynamo = json.loads(done.stdout)
    assert (flops, error) == (2 * 3 * (8 * 16 + 16 * 4), None)
    assert dynamo is False


def test_a_forward_pass_that_fails_is_a_reason_not_a_count() -> None:
    import torch
    from gradgate.checks.model.plan.child import _flops

    class Loaded:
        model = torch.nn.Linear(8, 4)
        args, kwargs = (torch.zeros(3, 5),), {}

    flops, error = _flops(Loaded())
    assert flops is None
    assert error is not None and error.startswith("RuntimeError: ")


def test_a_model_on_the_meta_device_gets_the_same_count() -> None:
    import torch
    from gradgate.checks.model.plan.child import _flops

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(x) + torch.zeros(4)  # made where the model runs

    with torch.device("meta"):

        class Loaded:
            model = Net()
            args, kwargs = (torch.zeros(3, 8),), {}

    assert _flops(Loaded(), meta=True) == (2 * 3 * 8 * 4, None)

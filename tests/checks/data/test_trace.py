"""The child's search for the line where two seeded calls of a transform first differ, run in
this process on real files of a temporary "revision"."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from gradgate.checks.data.child.trace import first_difference

PIPELINE = """\
import os
import random

import numpy as np
import torch

GENERATOR = torch.Generator()


def by_numpy(image):
    rng = np.random.default_rng()
    jitter = float(rng.normal())
    return image + jitter


def by_torch_generator(image):
    GENERATOR.seed()
    return image + torch.rand(1, generator=GENERATOR)


def by_os(image):
    return image + os.urandom(1)[0]


def seeded_only(image):
    offset = torch.randint(0, 4, (1,)).item()  # torch's global RNG, as torchvision draws
    shift = random.random()
    return image[offset:] + shift


def helper_draw():
    return random.Random().random()


def through_a_helper(image):
    scale = 1.0
    value = image * scale
    return value + helper_draw()
"""


def loaded(tmp_path: Path) -> Any:
    path = tmp_path / "pipeline.py"
    path.write_text(PIPELINE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("gradgate_test_pipeline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def site(tmp_path: Path, name: str) -> dict[str, Any] | None:
    transform = getattr(loaded(tmp_path), name)
    image = torch.arange(8.0)

    def seeded() -> Any:
        random.seed(0)
        np.random.seed(0)
        torch.manual_seed(0)
        return transform(image)

    return first_difference(seeded, [str(tmp_path)], str(tmp_path))


@pytest.mark.parametrize(
    ("name", "line", "code"),
    [
        ("by_numpy", 12, "jitter = float(rng.normal())"),
        ("by_torch_generator", 18, "return image + torch.rand(1, generator=GENERATOR)"),
        ("by_os", 22, "return image + os.urandom(1)[0]"),
        ("through_a_helper", 32, "return random.Random().random()"),
    ],
)
def test_the_line_that_draws_unseeded_is_named(
    tmp_path: Path, name: str, line: int, code: str
) -> None:
    assert site(tmp_path, name) == {"file": "pipeline.py", "line": line, "code": code}


def test_draws_from_the_seeded_global_generators_are_not_named(tmp_path: Path) -> None:
    assert site(tmp_path, "seeded_only") is None

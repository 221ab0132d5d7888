"""PIL-only transforms: the synthetic image offered as a PIL image (a NumPy array has no
`.split()`), run by the child's program in this process, then judged as the check judges."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradgate.checks.base import Outcome
from gradgate.checks.data.check import DataCheck
from gradgate.checks.data.settings import DataSettings

from tests.checks.data.running import run_child

PIPELINE = """\
from PIL import Image


def build():
    def transform(image):
        red, green, blue = image.split()  # only a PIL image has .split()
        return HEAD
    return transform
"""
BASE = 'Image.merge("RGB", (blue, green, red))'  # the model was trained on BGR


def message(tmp_path: Path, head: str) -> str:
    base = run_child(tmp_path, PIPELINE.replace("HEAD", BASE), name="base")
    after = run_child(tmp_path, PIPELINE.replace("HEAD", head), name="head")
    assert (base["form"], after["form"]) == ("pil", "pil")
    result = DataCheck().judge(base, after, DataSettings())
    assert result.outcome is Outcome.FAIL, result
    (finding,) = result.findings
    return finding.message


def test_a_pil_refactor_passes(tmp_path: Path) -> None:
    base = run_child(tmp_path, PIPELINE.replace("HEAD", BASE), name="base")
    head = run_child(
        tmp_path, PIPELINE.replace("HEAD", "Image.merge(image.mode, (blue, green, red))")
    )
    result = DataCheck().judge(base, head, DataSettings())
    assert result.outcome is Outcome.PASS, result
    assert "input: pil" in result.summary


@pytest.mark.parametrize(
    ("head", "words"),
    [
        ("image", "head channel 0 is base channel 2: BGR ↔ RGB"),
        (f"{BASE}.transpose(Image.Transpose.FLIP_LEFT_RIGHT)", "flipped left–right"),
        (f"{BASE}.rotate(5, resample=Image.Resampling.BILINEAR)", "rotated ~5° counter-clockwise"),
        (f"{BASE}.resize((16, 12), Image.Resampling.BILINEAR)", "resized ×0.5 (24×32 → 12×16)"),
        (f"{BASE}.crop((3, 2, 29, 22))", "cropped by 4 px in height and 6 px in width"),
    ],
)
def test_each_pil_difference_is_named(tmp_path: Path, head: str, words: str) -> None:
    assert words in message(tmp_path, head)

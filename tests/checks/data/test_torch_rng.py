"""Random transforms that draw from torch's global generator, as torchvision's do
(`RandomCrop.get_params` draws `torch.randint`, `RandomHorizontalFlip` `torch.rand(1)`).
torchvision is not installed here: these tiny stand-ins draw the same way."""

from __future__ import annotations

import sys
from pathlib import Path

from gradgate.bot.git.repository import GitRepository
from gradgate.checks.base import Outcome
from gradgate.checks.context import CheckContext
from gradgate.checks.data.check import DataCheck
from gradgate.checks.data.settings import DataSettings
from gradgate.checks.data.spec import DataSpec

from tests.checks.data.running import run_child
from tests.gitrepo import GitRepo

TRANSFORMS = """\
import torch


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, image):
        height, width = image.shape[-2:]
        top = torch.randint(0, height - self.size + 1, size=(1,)).item()
        left = torch.randint(0, width - self.size + 1, size=(1,)).item()
        return image[..., top : top + self.size, left : left + self.size]


class RandomHorizontalFlip:
    def __call__(self, image):
        return image.flip(-1) if torch.rand(1) < 0.5 else image


def build():
    def transform(image):
        image = RandomHorizontalFlip()(image)
        return RandomCrop(SIZE)(image).float() / 255
    return transform
"""


def judged(tmp_path: Path, base: str, head: str) -> tuple[Outcome, list[str]]:
    before = run_child(tmp_path, base, name="base", forms=["tensor"])
    after = run_child(tmp_path, head, name="head", forms=["tensor"])
    result = DataCheck().judge(before, after, DataSettings())
    return result.outcome, [f.message for f in result.findings]


def test_seeded_random_crops_and_flips_compare_equal(tmp_path: Path) -> None:
    text = TRANSFORMS.replace("SIZE", "16")
    refactor = text.replace("size=(1,)).item()", "(1,)).item()")
    assert judged(tmp_path, text, refactor) == (Outcome.PASS, [])


def test_a_changed_crop_size_is_named_as_a_crop(tmp_path: Path) -> None:
    outcome, messages = judged(
        tmp_path, TRANSFORMS.replace("SIZE", "16"), TRANSFORMS.replace("SIZE", "12")
    )
    assert outcome is Outcome.FAIL
    (message,) = messages
    assert "cropped by 4 px in height and 4 px in width (16×16 → 12×12)" in message


def test_torch_imported_by_the_transform_itself_is_seeded_too(tmp_path: Path) -> None:
    """In a fresh child, torch first imported inside a transform that takes a PIL image
    (torchvision imported lazily) drew the first call's crop from torch's import-time state:
    two calls differed, and the check warned of an unseeded generator where there is none."""
    lazy = TRANSFORMS.replace("import torch\n", "").replace(
        "    def transform(image):\n        image = RandomHorizontalFlip()(image)\n",
        "    def transform(image):\n"
        "        if not hasattr(image, 'getbands'):  # a PIL image: torch not imported yet\n"
        "            raise TypeError('a PIL image, please')\n"
        "        global torch\n"
        "        import torch\n"
        "        pixels = torch.tensor(list(image.tobytes()), dtype=torch.uint8)\n"
        "        image = pixels.reshape(image.size[1], image.size[0], 3).permute(2, 0, 1)\n"
        "        image = RandomHorizontalFlip()(image)\n",
    )
    lazy = lazy.replace("SIZE", "16")
    repo = GitRepo(tmp_path)
    head = lazy.replace("/ 255", "/ 255.0")
    base_sha, head_sha = repo.pull_request({"pipeline.py": lazy}, {"pipeline.py": head})
    ctx = CheckContext(
        base_sha=base_sha,
        head_sha=head_sha,
        changes=(),
        source=GitRepository(repo.root),
        settings=DataSettings(timeout_s=120.0, memory_mb=2048),
        python=sys.executable,
        data=DataSpec(entrypoint="pipeline.py:build"),
    )
    result = DataCheck().run(ctx)
    assert result.outcome is Outcome.PASS, result
    assert result.findings == ()

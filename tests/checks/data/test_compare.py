"""Each difference the `data` check names, from transforms run in this process on the synthetic
image (pure-tensor and NumPy transforms here; PIL-only ones in test_pil.py; torchvision is not
installed, so its random transforms are stood in for by tensor code that draws as they do)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.data.check import DataCheck
from gradgate.checks.data.child import encode, synthetic
from gradgate.checks.data.settings import AllowRule, DataSettings

MEAN = torch.tensor([0.485, 0.456, 0.406])[:, None, None]
STD = torch.tensor([0.229, 0.224, 0.225])[:, None, None]


def tensor_image() -> torch.Tensor:
    return torch.tensor(synthetic(), dtype=torch.uint8).permute(2, 0, 1).contiguous()


def measured(transform: Callable[[Any], Any], form: str = "tensor") -> dict[str, Any]:
    image = tensor_image() if form == "tensor" else np.array(synthetic(), dtype=np.uint8)
    source = encode(np.array(synthetic(), dtype=np.uint8))["output"]
    runs = [[encode(transform(image)), encode(transform(image))]]
    return {"form": form, "runs": runs, "input": source}


def to_float(x: torch.Tensor) -> torch.Tensor:
    return x.float() / 255


def judged(head: Callable[[Any], Any], base: Callable[[Any], Any] = to_float, **settings: Any):  # type: ignore[no-untyped-def]
    return DataCheck().judge(measured(base), measured(head), DataSettings(**settings))


def said(head: Callable[[Any], Any], base: Callable[[Any], Any] = to_float) -> str:
    result = judged(head, base)
    assert result.outcome is Outcome.FAIL, result
    (finding,) = result.findings
    assert finding.severity is Severity.BLOCKING
    return finding.message


def test_a_refactor_with_equal_outputs_passes() -> None:
    result = judged(lambda x: x.to(torch.float32).div(255.0))
    assert result.outcome is Outcome.PASS
    assert result.findings == ()


def test_swapped_channels_are_named_bgr_rgb() -> None:
    message = said(lambda x: x.flip(0).float() / 255)
    assert "head channel 0 is base channel 2" in message
    assert "BGR ↔ RGB" in message
    assert "the rule counts only from the base branch: merge it there first" in message  # #34


@pytest.mark.parametrize(
    ("head", "words"),
    [
        (lambda x: (x.float() / 255).permute(1, 2, 0), "layout CHW → HWC"),
        (lambda x: (x.float() / 255).unsqueeze(0), "head adds a leading batch dimension"),
        (lambda x: x.float(), "value range 0–1 → 0–255"),
        (lambda x: x, "dtype float32 → uint8"),
        (lambda x: x.flip(2).float() / 255, "flipped left–right"),
        (lambda x: x.flip(1).float() / 255, "flipped upside down"),
        (lambda x: torch.rot90(x, 1, (1, 2)).float() / 255, "rotated 90° counter-clockwise"),
        (lambda x: (x.float() / 255)[:, :12, :], "cropped by 12 px in height (24×32 → 12×32)"),
        (lambda x: (x.float() / 255).flatten()[:100], "shape (3, 24, 32) → (100)"),
    ],
)
def test_each_difference_is_named(head: Callable[[Any], Any], words: str) -> None:
    assert words in said(head)


def test_a_changed_normalization_reports_the_fitted_constants() -> None:
    message = said(lambda x: (x.float() / 255 - MEAN) / STD)
    assert "normalization changed" in message
    assert "mean (0.485, 0.456, 0.406)" in message
    assert "std (0.229, 0.224, 0.225)" in message


def test_a_numpy_transform_that_drops_the_bgr_conversion() -> None:
    def base(a: Any) -> Any:
        return a[..., ::-1].astype("float32")

    result = DataCheck().judge(
        measured(base, "numpy"), measured(lambda a: a.astype("float32"), "numpy"), DataSettings()
    )
    assert result.outcome is Outcome.FAIL
    assert "BGR ↔ RGB" in result.findings[0].message
    assert "layout" not in result.findings[0].message


def test_an_allow_rule_turns_the_change_into_a_note_with_its_reason() -> None:
    rule = AllowRule(change="channel-order", reason="the new backbone was trained on RGB")
    result = judged(lambda x: x.flip(0).float() / 255, allow=(rule,))
    assert result.outcome is Outcome.PASS
    (finding,) = result.findings
    assert finding.severity is Severity.NOTE
    assert "the new backbone was trained on RGB" in finding.message
    # Listed in the report as a suppression from the config (issue 34).
    assert [(x.rule, x.origin, x.reason) for x in result.suppressions] == [
        ("allow: output (channel-order)", "config", "the new backbone was trained on RGB")
    ]


def test_an_allow_rule_for_another_kind_does_not_cover_it() -> None:
    rule = AllowRule(change="layout", reason="channels-last now")
    result = judged(lambda x: x.flip(0).float() / 255, allow=(rule,))
    assert result.outcome is Outcome.FAIL
    assert result.suppressions == ()


def test_outputs_in_a_mapping_are_compared_by_name() -> None:
    result = judged(
        lambda x: {"image": x.flip(0).float() / 255, "label": 3},
        base=lambda x: {"image": x.float() / 255, "label": 3},
    )
    (finding,) = result.findings
    assert finding.message.startswith("`output.image` changed")


def test_head_nondeterminism_is_a_warning() -> None:
    noisy = measured(to_float)
    noisy["runs"][0][1] = encode(to_float(tensor_image()) + 0.5)
    result = DataCheck().judge(measured(to_float), noisy, DataSettings())
    assert result.outcome is Outcome.WARN
    (finding,) = result.findings
    assert finding.kind == "data-nondeterministic"
    assert "unseeded random number generator" in finding.message


def test_a_dropped_conversion_before_a_per_channel_normalization_is_only_the_channel_order() -> (
    None
):
    message = said(
        lambda x: (x.float() / 255 - MEAN) / STD,
        base=lambda x: (x.flip(0).float() / 255 - MEAN) / STD,
    )
    assert "head channel 0 is base channel 2: BGR ↔ RGB" in message
    assert "normalization" not in message


def test_a_swap_and_a_new_normalization_name_both() -> None:
    message = said(lambda x: (x.flip(0).float() / 255 - MEAN) / STD)
    assert "BGR ↔ RGB" in message
    assert "normalization changed" in message


def dataset_measured(labels: list[int], classes: dict[str, int] | None = None) -> dict[str, Any]:
    images = [tensor_image().float() / 255 + i for i in range(len(labels))]
    runs = [[encode((image, label)), None] for image, label in zip(images, labels, strict=True)]
    named = [f"index {i}" for i in range(len(labels))]
    return {"form": "dataset", "runs": runs, "labels": named, "classes": classes}


def test_renumbered_classes_are_named_as_one_mapping() -> None:
    result = DataCheck().judge(
        dataset_measured([0, 1, 2, 0]), dataset_measured([2, 1, 0, 2]), DataSettings()
    )
    assert result.outcome is Outcome.FAIL
    (finding,) = result.findings  # the images are equal: one finding, about the targets
    assert finding.message.startswith("`output[1]` changed")
    assert "class indices renumbered: base 0 → head 2, base 2 → head 0 (3 of 4 samples)" in (
        finding.message
    )


def test_a_target_changed_for_one_sample_names_the_sample() -> None:
    result = DataCheck().judge(
        dataset_measured([0, 1, 1, 0]), dataset_measured([0, 1, 3, 0]), DataSettings()
    )
    (finding,) = result.findings
    assert "targets changed for 1 of 4 samples (index 2: 1 → 3)" in finding.message


def test_a_changed_class_to_idx_names_the_classes() -> None:
    result = DataCheck().judge(
        dataset_measured([0, 1], {"cat": 0, "dog": 1}),
        dataset_measured([1, 0], {"cat": 1, "dog": 0}),
        DataSettings(),
    )
    messages = " ".join(f.message for f in result.findings)
    assert (
        "`class_to_idx` changed for the same input and seeds: class-index mapping changed: "
        "`cat` 0 → 1, `dog` 1 → 0" in messages
    )
    assert "base 0 → head 1, base 1 → head 0" in messages


def test_an_allow_rule_for_labels_covers_a_renumbering() -> None:
    rule = AllowRule(change="labels", reason="classes sorted by name now")
    result = DataCheck().judge(
        dataset_measured([0, 1]), dataset_measured([1, 0]), DataSettings(allow=(rule,))
    )
    assert result.outcome is Outcome.PASS
    assert "classes sorted by name now" in result.findings[0].message


def rotated(x: torch.Tensor, degrees: float) -> torch.Tensor:
    """``x`` (CHW float) turned counter-clockwise as seen, as torchvision's ``rotate`` does."""
    t = math.radians(degrees)
    height, width = x.shape[-2:]
    ratio = height / width
    theta = torch.tensor(
        [[math.cos(t), -math.sin(t) * ratio, 0], [math.sin(t) / ratio, math.cos(t), 0]]
    )
    grid = F.affine_grid(theta[None], [1, *x.shape], align_corners=False)
    return F.grid_sample(x[None], grid, align_corners=False)[0]


@pytest.mark.parametrize(
    ("head", "words"),
    [
        (lambda x: rotated(x.float() / 255, 5), "rotated ~5° counter-clockwise"),
        (lambda x: rotated(x.float() / 255, -3), "rotated ~3° clockwise"),
        (
            lambda x: (x.float() / 255)[:, 2:22, 3:29],
            "cropped by 4 px in height and 6 px in width (24×32 → 20×26), "
            "shifted 3 px right and 2 px down (the crop window moved)",
        ),
        (
            lambda x: F.interpolate(x[None].float() / 255, size=(12, 16), mode="bilinear")[0],
            "resized ×0.5 (24×32 → 12×16)",
        ),
    ],
)
def test_a_small_rotation_crop_or_resize_is_estimated(
    head: Callable[[Any], Any], words: str
) -> None:
    message = said(head)
    assert f"head's image is {words} relative to base's" in message


def test_a_crop_window_moved_at_the_same_size_is_named_with_the_shift() -> None:
    message = said(
        lambda x: (x.float() / 255)[:, 0:20, 0:28], base=lambda x: (x.float() / 255)[:, 2:22, 2:30]
    )
    assert "shifted 2 px left and 2 px up (the crop window moved)" in message


@pytest.mark.parametrize(
    ("mode", "size"),  # not "area" at ×0.5: it averages the pixels bilinear's samples do
    [("nearest", (12, 16)), ("bicubic", (12, 16)), ("nearest", (48, 64)), ("area", (48, 64))],
)
def test_a_changed_resize_interpolation_is_named(mode: str, size: tuple[int, int]) -> None:
    def resize(how: str) -> Callable[[Any], Any]:
        return lambda x: F.interpolate(x[None].float() / 255, size=size, mode=how)[0]

    message = said(resize(mode), base=resize("bilinear"))
    assert "the resize interpolation (or antialiasing) changed" in message
    assert "shifted" not in message


def test_a_transform_that_takes_another_input_form_names_both_forms() -> None:
    base = {**measured(to_float), "form": "numpy"}
    result = DataCheck().judge(base, measured(to_float), DataSettings())
    assert result.outcome is Outcome.FAIL
    (finding,) = result.findings  # the outputs are equal: the input form is the one change
    assert finding.message.startswith(
        "the transform's input changed for the same input and seeds: the transform took a "
        "NumPy HWC uint8 array at base, a CHW uint8 tensor at head."
    )
    assert result.extra == {"input": "tensor", "outputs": 1}
    # a form gradgate has no words for is named as the child sent it
    odd = {**measured(to_float), "form": "bytes"}
    (finding,) = DataCheck().judge(measured(to_float), odd, DataSettings()).findings
    assert "took a CHW uint8 tensor at base, bytes at head" in finding.message
    same = DataCheck().judge(base, {**measured(to_float), "form": "numpy"}, DataSettings())
    assert same.outcome is Outcome.PASS


def test_an_allow_rule_for_the_input_form_covers_it() -> None:
    rule = AllowRule(change="input", reason="takes tensors now")
    base = {**measured(to_float), "form": "pil"}
    result = DataCheck().judge(base, measured(to_float), DataSettings(allow=(rule,)))
    assert result.outcome is Outcome.PASS
    assert [x.rule for x in result.suppressions] == ["allow: input (input)"]


def test_an_output_head_no_longer_returns_or_newly_returns_is_named() -> None:
    result = judged(
        lambda x: {"image": x.float() / 255, "mask": x[:1].float() / 255},
        base=lambda x: {"image": x.float() / 255, "label": 3, "extra": x[:1].float()},
    )
    assert result.outcome is Outcome.FAIL
    assert [f.message.split(" changed ")[0] for f in result.findings] == [
        "`output.extra`",
        "`output.label`",
        "`output.mask`",
    ]
    said = [f.message.split(": ", 1)[1].split(". If")[0] for f in result.findings]
    assert said == [
        "head no longer returns it",
        "head no longer returns it",
        "head newly returns it",
    ]
    # only the output both revisions return is counted as compared
    assert result.extra["outputs"] == 1
    assert "(1 output, input: tensor)" in result.summary


def labelled_items(labels: list[int], *, flip: bool = False) -> dict[str, Any]:
    """A dataset whose items are (target, image): the target's outputs sort first."""
    images = [tensor_image().float() / 255 + i for i in range(len(labels))]
    if flip:
        images = [image.flip(0) for image in images]
    runs = [[encode((label, image)), None] for image, label in zip(images, labels, strict=True)]
    return {"form": "dataset", "runs": runs, "labels": [f"index {i}" for i in range(len(labels))]}


def test_an_image_after_a_target_in_each_item_is_still_compared() -> None:
    result = DataCheck().judge(
        labelled_items([0, 1]), labelled_items([0, 1], flip=True), DataSettings()
    )
    assert result.outcome is Outcome.FAIL
    subjects = [f.message.split(" changed ")[0] for f in result.findings]
    assert subjects == ["`output[1] (index 0)`", "`output[1] (index 1)`"]
    assert all("BGR ↔ RGB" in f.message for f in result.findings)


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ("pil", "a PIL RGB image"),
        ("yours", "your inputs"),
        ("dataset", "your dataset's items"),
    ],
)
def test_each_input_form_is_named_in_words(form: str, words: str) -> None:
    base = {**measured(to_float), "form": form}
    (finding,) = DataCheck().judge(base, measured(to_float), DataSettings()).findings
    assert f"the transform took {words} at base, a CHW uint8 tensor at head" in finding.message


def your_inputs(*transforms: Callable[[Any], Any]) -> dict[str, Any]:
    """Your inputs (no labels sent): one run per input, each called twice."""
    runs = [[encode(f(tensor_image())), encode(f(tensor_image()))] for f in transforms]
    return {"form": "yours", "runs": runs}


def test_several_inputs_without_labels_are_numbered() -> None:
    flipped = lambda x: x.flip(0).float() / 255  # noqa: E731
    result = DataCheck().judge(
        your_inputs(to_float, to_float), your_inputs(to_float, flipped), DataSettings()
    )
    (finding,) = result.findings
    assert finding.message.startswith("`output (input 1)` changed")


def test_where_two_seeded_calls_differed_is_named_at_head() -> None:
    noisy = measured(to_float)
    noisy["runs"][0][1] = encode(to_float(tensor_image()) + 0.5)
    noisy["unseeded"] = {"file": "data/aug.py", "line": 17, "code": "jitter = rng.random()"}
    (finding,) = DataCheck().judge(measured(to_float), noisy, DataSettings()).findings
    assert finding.severity is Severity.WARNING
    assert "`data/aug.py:17` (`jitter = rng.random()`)" in finding.message
    assert (finding.file, finding.line) == ("data/aug.py", 17)
    # no code sent: the place alone
    del noisy["unseeded"]["code"]
    (finding,) = DataCheck().judge(measured(to_float), noisy, DataSettings()).findings
    assert "`data/aug.py:17` (``)" in finding.message


def test_base_nondeterminism_is_a_note_and_a_site_only_where_calls_varied() -> None:
    noisy = measured(to_float)
    noisy["runs"][0][1] = encode(to_float(tensor_image()) + 0.5)
    noisy["unseeded"] = {"file": "data/aug.py", "line": 17, "code": "x"}
    steady = {**measured(to_float), "unseeded": {"file": "other.py", "line": 2, "code": "y"}}
    result = DataCheck().judge(noisy, steady, DataSettings())
    (finding,) = result.findings
    assert (finding.severity, finding.revision) == (Severity.NOTE, "base")
    assert finding.message.startswith("Base's transform gave different outputs for `output`")
    assert "`data/aug.py:17` (`x`)" in finding.message
    assert "other.py" not in finding.message


def test_an_allow_rule_for_outputs_covers_one_head_no_longer_returns() -> None:
    rule = AllowRule(change="outputs", reason="the mask moved to the model")
    result = judged(
        lambda x: {"image": x.float() / 255},
        base=lambda x: {"image": x.float() / 255, "mask": x[:1].float()},
        allow=(rule,),
    )
    assert result.outcome is Outcome.PASS
    assert [x.rule for x in result.suppressions] == ["allow: output.mask (outputs)"]


def test_a_different_number_of_inputs_is_compared_by_name_without_a_crash() -> None:
    result = DataCheck().judge(
        your_inputs(to_float), your_inputs(to_float, to_float), DataSettings()
    )
    said = [f.message.split(" changed ")[0] for f in result.findings]
    assert said == ["`output`", "`output (input 0)`", "`output (input 1)`"]


def test_a_target_that_became_a_measurement_is_compared_as_values() -> None:
    result = judged(
        lambda x: (x.float() / 255, 3.5), base=lambda x: (x.float() / 255, torch.tensor(3))
    )
    assert result.outcome is Outcome.FAIL
    (finding,) = result.findings
    assert finding.message.startswith("`output[1]` changed")


def test_a_changed_target_names_its_input_only_where_there_are_several() -> None:
    one = DataCheck().judge(dataset_measured([1]), dataset_measured([3]), DataSettings())
    (finding,) = one.findings
    assert "targets changed for 1 of 1 sample (1 → 3)" in finding.message
    two = DataCheck().judge(dataset_measured([1, 1]), dataset_measured([1, 3]), DataSettings())
    (finding,) = two.findings
    assert "targets changed for 1 of 2 samples (index 1: 1 → 3)" in finding.message


def test_a_target_one_item_no_longer_returns_is_named_not_hidden() -> None:
    base = dataset_measured([0, 1])
    head = dataset_measured([0, 1])
    head["runs"][1] = [encode((tensor_image().float() / 255 + 1,)), None]
    result = DataCheck().judge(base, head, DataSettings())
    (finding,) = result.findings
    assert finding.message.startswith(
        "`output[1] (index 1)` changed for the same input and seeds: head no longer returns it"
    )

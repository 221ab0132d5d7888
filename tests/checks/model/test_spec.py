"""The `model:` block: parsed once, errors name the key and line; a check's own block wins."""

from __future__ import annotations

import pytest
from gradgate.bot.config.model import load_config
from gradgate.checks.base import CheckSettings
from gradgate.checks.context import CheckContext
from gradgate.checks.errors import CheckError, ConfigError
from gradgate.checks.model.device import choose_device, gpu_visible
from gradgate.checks.model.settings import ModelCheckSettings, effective_model
from gradgate.checks.model.spec import ModelSpec


def test_the_top_level_block_takes_an_entrypoint_or_a_spec_with_inputs() -> None:
    text = """\
model:
  build:
    _target_: nanogpt.model.GPT
    config: {_target_: nanogpt.model.GPTConfig, n_layer: 2}
  inputs:
    - {_target_: torch.randint, high: 50, size: [2, 16]}
"""
    spec = load_config(text).model

    assert spec is not None and spec.entrypoint is None
    assert spec.build == {
        "_target_": "nanogpt.model.GPT",
        "config": {"_target_": "nanogpt.model.GPTConfig", "n_layer": 2},
    }
    assert spec.as_request()["inputs"] == [
        {"_target_": "torch.randint", "high": 50, "size": [2, 16]}
    ]
    assert load_config("model:\n  entrypoint: pkg.models:build\n").model == ModelSpec(
        entrypoint="pkg.models:build"
    )
    assert load_config("version: 1\n").model is None


# (id, text, key path, line, message fragment)
BAD = [
    ("entrypoint-without-function", "model:\n  entrypoint: tinycls/model.py\n", "model.entrypoint",
     2, "`tinycls/model.py` is not an entrypoint: write `package.module:function`"),
    ("both", "model:\n  entrypoint: a:b\n  build: {_target_: x.Y}\n", "model", 1,
     "give exactly one of `entrypoint` (a Python factory) and `build` (a `_target_` spec)"),
    ("neither", "model: {}\n", "model", 1, "give exactly one of `entrypoint`"),
    ("a-string", "model: a.py:b\n", "model", 1,
     "expected a mapping of settings (entrypoint, build, inputs), got a string"),
    ("spec-without-target", "model:\n  build: {n_layer: 2}\n", "model.build", 2,
     "a `build` spec needs `_target_: package.module.Class`"),
    ("undotted-target", "model:\n  build: {_target_: GPT}\n", "model.build", 2,
     "`_target_` at build must name an object as `package.module.Name`, got 'GPT'"),
    ("args-not-a-list",
     "model:\n  build:\n    _target_: m.GPT\n    cfg: {_target_: m.C, _args_: 3}\n",
     "model.build", 2,
     "`_args_` at build.cfg must be a list of positional arguments"),
    ("inputs-a-number", "model:\n  entrypoint: a:b\n  inputs: 3\n", "model.inputs", 3,
     "expected a `_target_` spec, a list of positional arguments or a mapping"),
    ("nested-input-target", "model:\n  entrypoint: a:b\n  inputs: {x: {_target_: randn}}\n",
     "model.inputs", 3, "`_target_` at inputs.x must name an object"),
    ("typo", "model:\n  entrypoint: a:b\n  inptus: []\n", "model.inptus", 3,
     "unknown key `inptus`; did you mean `inputs`?"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "key", "line", "fragment"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_a_bad_model_block_names_its_key_and_line(
    text: str, key: str, line: int, fragment: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(text)

    assert (caught.value.key_path, caught.value.line) == (key, line)
    assert fragment in caught.value.message


def _ctx(settings: CheckSettings, model: ModelSpec | None) -> CheckContext:
    return CheckContext(
        base_sha="a" * 40, head_sha="b" * 40, changes=(), source=None,  # type: ignore[arg-type]
        settings=settings, model=model,
    )  # fmt: skip


def test_a_checks_own_model_block_replaces_the_top_level_one_whole() -> None:
    top = ModelSpec(entrypoint="a:build", inputs=[1])
    own = ModelSpec(entrypoint="b:build")

    assert effective_model(_ctx(ModelCheckSettings(model=own), top), check="gradient") == own
    assert effective_model(_ctx(ModelCheckSettings(), top), check="gradient") == top
    assert effective_model(_ctx(CheckSettings(), top), check="gradient") == top


def test_no_model_block_anywhere_is_an_error_that_says_what_to_add() -> None:
    with pytest.raises(CheckError) as caught:
        effective_model(_ctx(ModelCheckSettings(), None), check="gradient")

    assert "`gradient` needs your model" in str(caught.value)
    assert "`entrypoint: path/to/file.py:function`" in str(caught.value)


# --- device: auto | cpu | cuda --------------------------------------------------------------


def test_auto_asks_torch_only_where_a_gpu_driver_is_visible() -> None:
    asked: list[bool] = []

    def works() -> bool:
        asked.append(True)
        return True

    assert choose_device("auto", gpu_visible=False, cuda_works=works) == "cpu"
    assert asked == []
    assert choose_device("auto", gpu_visible=True, cuda_works=works) == "cuda"
    assert choose_device("auto", gpu_visible=True, cuda_works=lambda: False) == "cpu"


def test_cpu_and_cuda_are_taken_as_asked_cuda_is_checked_in_the_child() -> None:
    never = lambda: pytest.fail("not asked")  # noqa: E731
    assert choose_device("cpu", gpu_visible=True, cuda_works=never) == "cpu"
    assert choose_device("cuda", gpu_visible=False, cuda_works=never) == "cuda"


@pytest.mark.parametrize(
    ("environ", "nodes", "visible"),
    [
        ({}, {"/dev/nvidiactl"}, True),
        ({}, {"/dev/kfd"}, True),  # ROCm: torch calls it cuda too
        ({}, set(), False),
        ({"CUDA_VISIBLE_DEVICES": ""}, {"/dev/nvidiactl"}, False),
        ({"CUDA_VISIBLE_DEVICES": "-1"}, {"/dev/nvidiactl"}, False),
        ({"CUDA_VISIBLE_DEVICES": "1"}, {"/dev/nvidiactl"}, True),
    ],
)
def test_a_gpu_is_visible_when_a_driver_node_exists_and_no_variable_hides_it(
    environ: dict[str, str], nodes: set[str], visible: bool
) -> None:
    assert gpu_visible(environ, nodes.__contains__) is visible

"""checks.model.child, in this process: factory results -> model, inputs and loss; wrappers; specs.

The same module runs inside the sandbox child (tests/checks/model/test_run.py runs it there);
here each shape of factory result is one fast case with a tiny model built in code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
from gradgate.checks.model import child
from gradgate.checks.sandbox.child import Missing, Target
from torch import nn


class Factory(Target):
    """A target whose function is defined in the test, not imported from a file."""

    def __init__(self, function: Callable[[], Any]) -> None:
        super().__init__({})
        self.function = function

    def load(self) -> Callable[..., Any]:
        return self.function


def request(
    *, build: Any = None, inputs: Any = None, device: str = "cpu", seed: int | None = 0
) -> dict[str, Any]:
    spec = {"build": build, "inputs": inputs, "extra_path": []}
    return {"device": device, "seed": seed, "kwargs": {"model": spec}}


@pytest.fixture(autouse=True)
def _restore_torch_flags() -> Iterator[None]:
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    yield
    torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)


def load(factory: Callable[[], Any], **kwargs: Any) -> child.Loaded:
    req = request(**kwargs)
    return child.load(req, Factory(factory), device=child.prepare(req))


def problem(factory: Callable[[], Any], **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(child.Problem) as caught:
        load(factory, **kwargs)
    return caught.value.as_json()["problem"]  # type: ignore[no-any-return]


class WithExample(nn.Linear):
    def __init__(self) -> None:
        super().__init__(4, 2)
        self.example_input_array = torch.ones(3, 4)


class TwoInputs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(4, 2), nn.Linear(3, 2)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.a(x) + self.b(y)


def two_inputs(**_: object) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ones(5, 4), torch.ones(5, 3)


# (id, factory, inputs_from, positional shapes, keyword names, has a loss)
SHAPES = [
    ("bare-model-with-example", WithExample, "example_input_array", [[3, 4]], [], False),
    ("tuple-tensor", lambda: (nn.Linear(4, 2), torch.ones(6, 4)), "factory", [[6, 4]], [], False),
    ("list-pair", lambda: [nn.Linear(4, 2), torch.ones(6, 4)], "factory", [[6, 4]], [], False),
    ("tuple-of-args", lambda: (TwoInputs(), two_inputs()), "factory", [[5, 4], [5, 3]], [], False),
    (
        "mapping-kwargs-and-loss",
        lambda: {
            "model": TwoInputs(),
            "inputs": dict(zip("xy", two_inputs(), strict=True)),
            "loss": lambda out: out.pow(2).mean(),
        },
        "factory",
        [],
        ["x", "y"],
        True,
    ),
    (
        "mapping-model-only",
        lambda: {"model": WithExample()},
        "example_input_array",
        [[3, 4]],
        [],
        False,
    ),
]


@pytest.mark.parametrize(
    ("factory", "inputs_from", "args", "kwargs", "has_loss"),
    [case[1:] for case in SHAPES],
    ids=[case[0] for case in SHAPES],
)
def test_each_factory_shape_gives_the_model_its_inputs_and_loss(
    factory: Callable[[], Any], inputs_from: str, args: list[list[int]], kwargs: list[str],
    has_loss: bool,
) -> None:  # fmt: skip
    loaded = load(factory)

    assert loaded.inputs_from == inputs_from
    assert [list(a.shape) for a in loaded.args] == args
    assert sorted(loaded.kwargs) == kwargs
    assert (loaded.loss is not None) == has_loss
    assert loaded.model.training
    out = child.call_model(loaded)
    assert out.shape[-1] == 2
    if loaded.loss is not None:
        assert loaded.loss(out).ndim == 0


def test_config_inputs_replace_the_factorys_and_are_built_from_their_spec() -> None:
    spec = {"_target_": "torch.full", "_args_": [[2, 4], 3.0]}
    loaded = load(lambda: (nn.Linear(4, 2), torch.ones(6, 4)), inputs=spec)

    assert loaded.inputs_from == "config"
    assert torch.equal(loaded.args[0], torch.full((2, 4), 3.0))


def test_config_inputs_as_a_mapping_become_keyword_arguments() -> None:
    spec = {
        "x": {"_target_": "torch.ones", "_args_": [5, 4]},
        "y": {"_target_": "torch.zeros", "_args_": [5, 3]},
    }
    loaded = load(TwoInputs, inputs=spec)

    assert sorted(loaded.kwargs) == ["x", "y"]
    assert child.call_model(loaded).shape == (5, 2)


def test_a_build_spec_makes_the_model_with_nested_specs_built_first() -> None:
    build = {
        "_target_": "torch.nn.Sequential",
        "_args_": [
            {"_target_": "torch.nn.Linear", "in_features": 4, "out_features": 8},
            {"_target_": "torch.nn.Tanh"},
            {"_target_": "torch.nn.Linear", "_args_": [8, 2], "bias": False},
        ],
    }
    loaded = load(lambda: pytest.fail("the spec, not the factory"), build=build,
                  inputs={"_target_": "torch.randn", "_args_": [3, 4]})  # fmt: skip

    assert [type(m).__name__ for m in loaded.model] == ["Linear", "Tanh", "Linear"]
    assert loaded.model[2].bias is None
    assert child.call_model(loaded).shape == (3, 2)


def test_locate_reaches_a_classmethod_and_names_what_is_missing() -> None:
    assert child.locate("torch.nn.Linear.forward") is nn.Linear.forward
    with pytest.raises(Missing) as missing_module:
        child.locate("no_such_package_here.Model")
    assert (missing_module.value.what, missing_module.value.name) == (
        "module",
        "no_such_package_here",
    )
    with pytest.raises(Missing) as missing_attr:
        child.locate("torch.nn.NoSuchLayer")
    assert (missing_attr.value.what, missing_attr.value.name) == ("attribute", "NoSuchLayer")


def test_data_parallel_and_torch_compile_wrappers_are_unwrapped() -> None:
    inner = nn.Linear(4, 2)
    wrapped = torch.compile(nn.DataParallel(inner))  # compiles lazily: nothing runs here

    loaded = load(lambda: (wrapped, torch.ones(1, 4)))

    assert loaded.model is inner


def test_float32_casts_parameters_and_floating_inputs_but_not_integer_inputs() -> None:
    model = nn.Embedding(10, 4).to(torch.float64)
    req = request()
    ids = torch.tensor([[1, 2]])
    loaded = child.load(req, Factory(lambda: (model, (ids, torch.ones(2, dtype=torch.float16)))),
                        device=child.prepare(req), float32=True)  # fmt: skip

    assert model.weight.dtype == torch.float32
    assert loaded.args[0].dtype == torch.int64
    assert loaded.args[1].dtype == torch.float32


def test_prepare_seeds_torch_and_turns_on_deterministic_algorithms() -> None:
    torch.use_deterministic_algorithms(False)
    first = (child.prepare(request(seed=7)), torch.rand(3))
    second = (child.prepare(request(seed=7)), torch.rand(3))

    assert torch.equal(first[1], second[1])
    assert torch.are_deterministic_algorithms_enabled()
    assert torch.is_deterministic_algorithms_warn_only_enabled()
    assert not torch.backends.cuda.matmul.allow_tf32


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_prepare_refuses_cuda_when_torch_cannot_use_it() -> None:
    with pytest.raises(child.Problem) as caught:
        child.prepare(request(device="cuda"))

    details = caught.value.as_json()["problem"]
    assert details["code"] == "no-cuda"
    assert details["torch"] == torch.__version__
    assert details["python"] == sys.executable


# (id, factory, code, a detail that names what was wrong)
LINEAR = nn.Linear(4, 2)
PROBLEMS = [
    ("returns-an-int", lambda: 3, "bad-return", ("got", "int")),
    ("three-tuple", lambda: (LINEAR, 1, 2), "bad-return", ("got", "a tuple of 3 items")),
    ("typo-in-mapping", lambda: {"model": LINEAR, "input": 1}, "bad-mapping",
     ("unknown", ["input"])),
    ("mapping-without-model", lambda: {"inputs": 1}, "bad-mapping", ("unknown", [])),
    ("model-not-a-module", lambda: (lambda x: x, torch.ones(1)), "not-a-module",
     ("got", "function")),
    ("loss-not-callable", lambda: {"model": LINEAR, "inputs": torch.ones(1), "loss": 2.0},
     "bad-loss", ("got", "float")),
    ("no-inputs-anywhere", lambda: LINEAR, "no-inputs",
     ("model", "torch.nn.modules.linear.Linear")),
    ("inputs-a-number", lambda: (LINEAR, 3), "bad-inputs", ("got", "int")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("factory", "code", "detail"), [c[1:] for c in PROBLEMS], ids=[c[0] for c in PROBLEMS]
)
def test_a_factory_result_that_cannot_be_used_is_a_named_problem(
    factory: Callable[[], Any], code: str, detail: tuple[str, Any]
) -> None:
    found = problem(factory)

    assert found["code"] == code
    assert found[detail[0]] == detail[1]

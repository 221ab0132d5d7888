"""How the `protected` check names a statement in its messages: `def f`, or its first line."""

from __future__ import annotations

import pytest
from gradgate.checks.protected.findings import added, statement_name
from gradgate.checks.protected.markers import Unit, compile_markers, split_lines, text_units
from gradgate.checks.protected.python_units import parse_python

PATTERN = compile_markers(["NO_REFAC", "DON'T TOUCH"])


def python_names(source: str, path: str = "m.py") -> list[str]:
    return [statement_name(u) for u in parse_python(path, source, PATTERN).units]


def text_names(source: str, path: str) -> list[str]:
    opener = "//" if path.endswith(".cu") else "#"
    return [statement_name(u) for u in text_units(path, split_lines(source), PATTERN, opener)]


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("# NO_REFAC\ndef new_gelu(x):\n    return x\n", "def new_gelu"),
        ("# NO_REFAC\nasync def fetch():\n    pass\n", "async def fetch"),
        ("# NO_REFAC\nclass MLP:\n    pass\n", "class MLP"),
        ("# NO_REFAC\n@torch.no_grad()\ndef ema(avg):\n    pass\n", "def ema"),
        ("def build():  # NO_REFAC: keep\n    return 1\n", "def build"),
        ("class C:\n    # NO_REFAC\n    def forward(self):\n        pass\n", "def forward"),
    ],
    ids=["def", "async-def", "class", "decorated", "trailing-on-def", "method"],
)
def test_a_definition_is_named_by_its_keyword_and_name(source: str, name: str) -> None:
    assert python_names(source) == [name]


def test_a_simple_statement_is_its_first_line_without_the_marker_comment() -> None:
    source = """\
class GPT:
    def __init__(self):
        self.transformer.wte.weight = self.lm_head.weight  # NO_REFAC: weight tying
        # NO_REFAC

        self.eps = 1e-5
"""
    assert python_names(source) == [
        "self.transformer.wte.weight = self.lm_head.weight",
        "self.eps = 1e-5",
    ]


def test_a_marker_inside_a_string_stays_in_the_name() -> None:
    assert python_names('BANNER = "# NO_REFAC"  # NO_REFAC\n') == ['BANNER = "# NO_REFAC"']


def test_a_statement_that_goes_on_past_its_first_line_says_so() -> None:
    source = "# NO_REFAC\nCKPT = load(\n    '/data/v3.pt',\n)\nSTEPS = [\n    1,\n]  # NO_REFAC\n"
    assert python_names(source) == ["CKPT = load( …", "STEPS = [ …"]


def test_a_long_first_line_is_cut_to_eighty_characters() -> None:
    source = f"WEIGHTS = {'x' * 200!r}  # NO_REFAC\n"
    [name] = python_names(source)
    assert len(name) == 80
    assert name.startswith("WEIGHTS = 'xxx") and name.endswith("x…")


@pytest.mark.parametrize(
    ("path", "source", "names"),
    [
        (
            "conf.yaml",
            "model:\n  # NO_REFAC\n  dropout: 0.1\nlr: 0.001  # NO_REFAC\n",
            ["dropout: 0.1", "lr: 0.001"],
        ),
        ("conf.yaml", "# NO_REFAC\ntrain:\n  lr: 0.1\n  epochs: 3\n", ["train: …"]),
        ("run.sh", "torchrun \\\n  --nproc 8 \\\n  train.py  # NO_REFAC\n", ["torchrun \\ …"]),
        ("k.cu", "const float EPS = 1e-5f;  // DON'T TOUCH\n", ["const float EPS = 1e-5f;"]),
    ],
    ids=["yaml-lines", "yaml-block", "shell-continued", "cuda"],
)
def test_a_text_line_is_named_by_its_code(path: str, source: str, names: list[str]) -> None:
    assert text_names(source, path) == names


def test_a_unit_whose_line_is_only_its_marker_falls_back_to_its_anchor() -> None:
    unit = Unit(
        path="a.py", marker="NO_REFAC", marker_line=1, own_line=False, start=1, end=1,
        scope="", kind="Assign", anchor="LR", key="", text="  # NO_REFAC",
    )  # fmt: skip
    assert statement_name(unit) == "LR"


def test_a_name_holding_backticks_is_quoted_so_its_code_span_stays_whole() -> None:
    [unit] = parse_python("m.py", 'SEP = "`"  # NO_REFAC\n', PATTERN).units
    assert added(unit).message == (
        'New protection: `# NO_REFAC` on ``SEP = "`"`` (`m.py:1`); later changes to it will block.'
    )

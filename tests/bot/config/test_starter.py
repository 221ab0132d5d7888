"""bot.config.starter: the `.gradgate.yml` that `gradgate init` proposes loads and guesses zones."""

from __future__ import annotations

import re

import pathspec
import pytest
import yaml
from gradgate.bot.config.model import Config, load_config
from gradgate.bot.config.starter import starter_config
from gradgate.bot.config.survey import survey
from gradgate.checks import REGISTRY

NANOGPT = [
    ".github/workflows/ci.yml",
    ".gitignore",
    "README.md",
    "config/train_gpt2.py",
    "configs/small.yaml",
    "configs/large.yaml",
    "docs/usage.md",
    "model.py",
    "sample.py",
    "tests/models/test_gpt.py",
    "train.py",
]


@pytest.mark.parametrize(
    ("paths", "zones"),
    [
        pytest.param([], [], id="empty-repo"),
        pytest.param(["train.py", "LICENSE"], [], id="nothing-recognised"),
        pytest.param(
            NANOGPT,
            [
                (
                    "model-core",
                    ("/model.py",),
                    ("protected", "api-contract", "dl-lint", "config-docs"),
                ),
                (
                    "config-docs",
                    ("/config/**", "/configs/**", "README.md", "docs/**"),
                    ("config-docs",),
                ),
            ],
            id="nanogpt-like",
        ),
        pytest.param(
            ["src/pkg/models/gpt.py", "src/pkg/models/layers/attn.py", "src/pkg/modeling_bert.py"],
            [("model-core", ("/src/**/*.py",), ("protected", "api-contract", "dl-lint"))],
            id="models-package-no-docs",
        ),
        pytest.param(
            ["configs/a.yaml"],
            [],
            id="configs-without-docs",
        ),
        pytest.param(
            ["README.md", *(f"exp/run{i}.yaml" for i in range(11)), ".github/ci.yaml"],
            [("config-docs", ("*.yaml", "!.*", "README.md"), ("config-docs",))],
            id="many-loose-yaml-files",
        ),
        pytest.param(
            ["!odd/model.py", "#hash/model.py", "model [v2].py", "trailing /model.py"],
            [
                (
                    "model-core",
                    (
                        "/!odd/model.py",
                        "/#hash/model.py",
                        "/trailing /model.py",
                        "/model \\[v2\\].py",
                    ),
                    ("protected", "api-contract", "dl-lint"),
                )
            ],
            id="names-that-need-escaping",
        ),
    ],
)
def test_without_file_contents_zones_are_guessed_from_names(
    paths: list[str], zones: list[tuple[str, tuple[str, ...], tuple[str, ...]]]
) -> None:
    config = load_config(starter_config(paths), source="starter")

    assert [(z.name, z.paths, z.checks) for z in config.zones] == zones
    assert config.always == ("protected",)
    assert config == Config(zones=config.zones)  # every setting is left at its default


def test_starter_config_zone_patterns_match_exactly_the_files_they_were_guessed_from() -> None:
    paths = [
        "!odd/model.py",
        "#hash/model.py",
        "model [v2].py",
        "trailing /model.py",
        "src/model.py",
    ]
    zone = load_config(starter_config(paths)).zones[0]
    spec = pathspec.GitIgnoreSpec.from_lines(zone.paths)

    assert [p for p in [*paths, "model v.py", "x/!odd/model.py"] if spec.match_file(p)] == paths


def test_checks_it_cannot_run_yet_are_commented_out_with_the_reason() -> None:
    text = starter_config(["models/gpt.py", "configs/a.yaml", "README.md"])

    for check, indent in (
        ("gradient", "      "),
        ("checkpoint", "      "),
        ("config-docs", "    #   "),
    ):
        if REGISTRY[check].available:
            continue
        assert re.search(rf"^{indent}# - {check}  # not yet available", text, re.M) or re.search(
            rf"^{indent}- {check}  # not yet available", text, re.M
        ), check


def test_starter_config_always_shows_the_markers_block_with_the_defaults() -> None:
    text = starter_config([])

    assert "# checks:\n#   protected:\n#     # Comment markers" in text
    assert '#     markers: ["NO_REFAC", "DON\'T TOUCH"]' in text
    uncommented = re.sub(r"^# ?", "", text.split("# checks:", 1)[1], flags=re.M)
    settings = yaml.safe_load("checks:" + uncommented)
    assert load_config(yaml.safe_dump(settings)) == Config()


@pytest.mark.parametrize("paths", [[], NANOGPT], ids=["empty-repo", "nanogpt-like"])
def test_starter_config_explains_every_line(paths: list[str]) -> None:
    lines = starter_config(paths).splitlines()

    for number, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#") or line.startswith(" "):
            continue
        # a top-level key: a comment sits right above it
        assert lines[number - 1].startswith("#"), f"line {number + 1} `{line}` is not explained"
    assert all(len(line) <= 100 for line in lines)


# --- repositories with contents: what the files say, not only their names ----------------

MODULE = (
    "import torch.nn as nn\n\n\nclass {name}({base}):\n"
    "    def forward(self, x):\n        return x\n"
)
TRAIN_LOOP = (
    "for batch in data:\n    loss = model(batch).sum()\n    loss.backward()\n    optimizer.step()\n"
)


def nanogpt_flat() -> dict[str, str]:
    """Flat nanoGPT: model.py at the root, config/*.py, train.py, README; no package."""
    return {
        "model.py": MODULE.format(name="GPT", base="nn.Module")
        + MODULE.format(name="Block", base="nn.Module").split("\n", 1)[1],
        "train.py": "from model import GPT\n" + TRAIN_LOOP,
        "sample.py": "from model import GPT\nprint(GPT())\n",
        "config/train_gpt2.py": "batch_size = 12\n",
        "config/finetune.py": "learning_rate = 3e-5\n",
        "README.md": "# nanoGPT\n",
        "data/prepare.py": "import numpy\n",
        ".github/CODEOWNERS": "* @karpathy\n",
    }


def src_library() -> dict[str, str]:
    """A src-layout library with no models/ folder: the whole package is model code."""
    files = {
        "pyproject.toml": '[project]\nname = "vector-quantize"\n',
        "src/vector_quantize/__init__.py": "from .vq import VectorQuantize\n",
        "src/vector_quantize/utils.py": "def exists(x):\n    return x is not None\n",
        "README.md": "# VQ\n",
        "docs/usage.md": "Use it.\n",
        "docs/api.mdx": "API\n",
        "tests/test_vq.py": MODULE.format(name="Fake", base="nn.Module"),
        "CODEOWNERS": "* @lucid\nsrc/vector_quantize/fsq.py @fsq-team\n",
    }
    for name in ("vq", "fsq", "lfq", "residual", "codebook"):
        base = "nn.Module" if name == "codebook" else "Codebook"
        files[f"src/vector_quantize/{name}.py"] = MODULE.format(name=name.title(), base=base)
    return files


EXAMPLES = ("mnist", "word_language_model", "dcgan")


def examples_monorepo() -> dict[str, str]:
    """pytorch/examples: one folder per example, each with its model and its training script."""
    files = {"README.md": "# examples\n", "docs/source/index.md": "Examples\n"}
    for example in EXAMPLES:
        files[f"{example}/main.py"] = "import torch\n" + TRAIN_LOOP
        files[f"{example}/model.py"] = MODULE.format(name="Net", base="torch.nn.Module")
        files[f"{example}/README.md"] = f"# {example}\n"
    files["mnist/config.yaml"] = "epochs: 14\n"
    files[".github/CODEOWNERS"] = "mnist/ @mnist-owner\n*.md @docs-team\n"
    return files


def proposed(files: dict[str, str]) -> Config:
    data = {path: text.encode() for path, text in files.items()}
    return load_config(starter_config(sorted(data), data.get), source="starter")


def covered(config: Config, zone: str, paths: list[str]) -> set[str]:
    patterns = next(z.paths for z in config.zones if z.name == zone)
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    return {p for p in paths if spec.match_file(p)}


@pytest.mark.parametrize(
    ("files", "model", "training", "docs"),
    [
        pytest.param(nanogpt_flat(), {"model.py"}, {"train.py"},
                     {"README.md", "config/train_gpt2.py", "config/finetune.py"}, id="nanogpt"),
        pytest.param(src_library(), {f"src/vector_quantize/{n}.py" for n in
                                     ("vq", "fsq", "lfq", "residual", "codebook")},
                     None, {"README.md", "docs/usage.md", "docs/api.mdx"}, id="src-library"),
        pytest.param(examples_monorepo(), {f"{e}/model.py" for e in EXAMPLES},
                     {f"{e}/main.py" for e in EXAMPLES},
                     {"README.md", "mnist/README.md", "mnist/config.yaml"}, id="examples-monorepo"),
    ],
)  # fmt: skip
def test_zones_cover_the_model_training_and_doc_files_and_nothing_from_tests(
    files: dict[str, str], model: set[str], training: set[str] | None, docs: set[str]
) -> None:
    config = proposed(files)
    paths = sorted(files)

    assert model <= covered(config, "model-core", paths)
    assert not {p for p in covered(config, "model-core", paths) if not p.endswith(".py")}
    assert not {p for p in covered(config, "model-core", paths) if p.startswith("tests/")}
    if training is None:
        assert "training" not in {z.name for z in config.zones}
    else:
        assert covered(config, "training", paths) == training
    assert docs <= covered(config, "config-docs", paths)


def test_a_file_whose_class_derives_from_a_repo_module_class_is_model_code() -> None:
    config = proposed(src_library())
    # Vq, Fsq... derive from the repo's own Codebook, which derives from nn.Module.
    assert "src/vector_quantize/vq.py" in covered(config, "model-core", sorted(src_library()))


def test_a_class_deriving_from_torch_nn_imported_under_another_name_is_model_code() -> None:
    files = {
        "ddpm/unet.py": "from torch.nn import Module\n\n\nclass Unet(Module):\n    pass\n",
        "ddpm/attend.py": "from torch.nn import (\n    Module as Base,\n)\n\n\n"
        "class Attend(Base):\n    pass\n",
        "ddpm/mlp.py": "import torch.nn as tnn\n\n\nclass MLP(tnn.Linear):\n    pass\n",
        "ddpm/cell.py": "from torch import nn as N\n\n\nclass Cell(N.GRUCell):\n    pass\n",
        "ddpm/plain.py": "import torch as nn2\n\n\nclass Plain(nn2.Tensor, object):\n    pass\n",
    }
    found = survey(sorted(files), lambda path: files[path].encode() if path in files else None)
    assert set(found.model) == {"ddpm/unet.py", "ddpm/attend.py", "ddpm/mlp.py", "ddpm/cell.py"}


def test_owners_come_from_codeowners_for_the_files_of_each_zone() -> None:
    by_zone = {z.name: z.owners for z in proposed(examples_monorepo()).zones}
    assert by_zone["training"] == ("@mnist-owner",)
    assert by_zone["config-docs"][0] == "@docs-team"
    lib = {z.name: z.owners for z in proposed(src_library()).zones}
    assert set(lib["model-core"]) == {"@lucid", "@fsq-team"}


def test_each_zone_says_why_it_was_proposed() -> None:
    files = nanogpt_flat()
    data = {path: text.encode() for path, text in files.items()}
    text = starter_config(sorted(data), data.get)
    assert "# model-core: proposed because 1 file defines nn.Module subclasses." in text
    assert "# training: proposed because 1 file calls backward() or an optimizer's step()." in text
    assert "# config-docs: proposed because 2 config files and 1 doc" in text
    assert '#   entrypoint: "model:build_model"' in text


# --- which checks each zone requires, and why (issue 19) ------------------------------------


def checks_of(config: Config) -> dict[str, tuple[str, ...]]:
    return {z.name: z.checks for z in config.zones}


@pytest.mark.parametrize(
    "files", [nanogpt_flat(), src_library(), examples_monorepo()],
    ids=["nanogpt", "src-library", "examples-monorepo"],
)  # fmt: skip
def test_model_and_training_code_require_api_contract_and_config_docs(
    files: dict[str, str],
) -> None:
    by_zone = checks_of(proposed(files))

    assert by_zone["model-core"] == ("protected", "api-contract", "dl-lint", "config-docs")
    if "training" in by_zone:
        assert by_zone["training"] == ("protected", "api-contract", "dl-lint", "config-docs")
    assert by_zone["config-docs"] == ("config-docs",)


def test_without_docs_code_zones_do_not_require_config_docs() -> None:
    files = {k: v for k, v in nanogpt_flat().items() if not k.endswith(".md")}
    by_zone = checks_of(proposed(files))
    assert by_zone["model-core"] == ("protected", "api-contract", "dl-lint")
    assert "config-docs" not in by_zone


def test_loss_code_outside_model_and_training_gets_a_zone_with_api_contract() -> None:
    files = src_library()
    files["src/vector_quantize/losses.py"] = (
        "import torch.nn.functional as F\n\n\ndef commitment_loss(x, q):\n"
        "    return F.mse_loss(x, q)\n"
    )
    config = proposed(files)
    assert covered(config, "losses", sorted(files)) == {"src/vector_quantize/losses.py"}
    assert checks_of(config)["losses"] == ("protected", "api-contract", "dl-lint", "config-docs")


def test_config_docs_also_covers_the_scripts_the_docs_mention() -> None:
    files = nanogpt_flat()
    files["README.md"] = "# nanoGPT\n\n```sh\npython sample.py --out_dir=out\n```\n"
    config = proposed(files)
    assert "sample.py" in covered(config, "config-docs", sorted(files))
    monorepo = examples_monorepo()
    monorepo["dcgan/README.md"] = "Run `python tools/plot.py` to see the samples.\n"
    monorepo["dcgan/tools/plot.py"] = "import matplotlib\n"
    config = proposed(monorepo)
    assert "dcgan/tools/plot.py" in covered(config, "config-docs", sorted(monorepo))


def test_each_check_of_a_zone_says_why_it_is_required() -> None:
    files = nanogpt_flat()
    data = {path: text.encode() for path, text in files.items()}
    text = starter_config(sorted(data), data.get)
    model_zone = text.split("- name: model-core")[0].rsplit("\n\n", 1)[1]
    assert "api-contract: a signature change here breaks its callers" in model_zone
    assert "config-docs: the docs describe this code" in model_zone
    assert "gradient, checkpoint, behaviour: set `model:` above first" in model_zone


def test_with_a_model_entry_point_the_model_checks_are_required_behaviour_beside_gradient() -> None:
    files = nanogpt_flat()
    data = {path: text.encode() for path, text in files.items()}
    text = starter_config(sorted(data), data.get, entrypoint="gradgate_model.py:build")
    config = load_config(text, source="starter")
    assert config.model is not None and config.model.entrypoint == "gradgate_model.py:build"
    assert checks_of(config)["model-core"] == (
        "protected", "api-contract", "dl-lint", "config-docs", "gradient", "checkpoint",
        "behaviour",
    )  # fmt: skip
    assert "# - gradient" not in text and "# - behaviour" not in text


def test_files_with_datasets_transforms_or_image_decoding_get_a_data_zone() -> None:
    sources = {
        "pkg/data.py": b"import cv2\n\ndef load(p):\n    return cv2.imread(p)\n",
        "pkg/sets.py": b"from torch.utils.data import Dataset\n\nclass Faces(Dataset):\n    pass\n",
        "pkg/util.py": b"def add(a, b):\n    return a + b\n",
    }
    text = starter_config(list(sources), sources.get)
    config = load_config(text)
    (zone,) = [z for z in config.zones if z.name == "data-path"]
    spec = pathspec.GitIgnoreSpec.from_lines(zone.paths)
    assert spec.match_file("pkg/data.py") and spec.match_file("pkg/sets.py")
    assert zone.checks == ("protected", "dl-lint")
    assert "# - data  # set `data:` above first" in text
    assert "2 files define datasets or transforms, or decode images" in text


def test_the_perf_and_metrics_gates_are_suggested_commented_out_with_a_working_example() -> None:
    text = starter_config(NANOGPT)

    assert "#   perf     blocks a PR whose training step is certainly slower" in text
    start = text.index("#     metrics:\n")
    block = text[start:].split("\n\n", 1)[0]
    example = yaml.safe_load(re.sub(r"^#   ", "", block, flags=re.M))
    config = load_config(yaml.safe_dump({"checks": example}))
    metrics = config.settings_for("metrics")
    assert metrics.measure == "latency"  # type: ignore[attr-defined]
    assert set(metrics.rules) == {"accuracy", "latency_ms_p95"}  # type: ignore[attr-defined]
    assert not any(line.startswith(("perf", "metrics")) for line in text.splitlines())


# --- issue 36: scripts out of model zones, no zone twice, seeding gated ---------------------

SCRIPT_WITH_MODULE = (
    "import argparse\nimport torch.nn as nn\n\n\nclass Head(nn.Module):\n    pass\n\n\n"
    "parser = argparse.ArgumentParser()\nparser.add_argument('--lr', type=float)\n"
)
MAIN_WITH_MODULE = (
    "import torch.nn as nn\n\n\nclass Probe(nn.Module):\n    pass\n\n\n"
    "if __name__ == '__main__':\n    Probe()\n"
)


def test_training_scripts_that_define_a_module_stay_out_of_the_model_zone() -> None:
    files = nanogpt_flat()
    files["train.py"] = MODULE.format(name="Wrapper", base="nn.Module") + TRAIN_LOOP
    files["finetune.py"] = SCRIPT_WITH_MODULE
    files["tools/probe.py"] = MAIN_WITH_MODULE
    config, paths = proposed(files), sorted(files)
    model = covered(config, "model-core", paths)
    assert "model.py" in model
    assert not {"train.py", "finetune.py", "tools/probe.py"} & model, model
    assert "train.py" in covered(config, "training", paths)


def test_a_data_zone_never_repeats_the_training_zone_and_a_seed_helper_is_gated() -> None:
    files = nanogpt_flat()
    files["train.py"] = (
        "from torch.utils.data import Dataset\n\n\nclass Tokens(Dataset):\n    pass\n\n\n"
        + TRAIN_LOOP
    )
    files["utils.py"] = (
        "import random\n\nimport torch\n\n\ndef set_seed(seed):\n    random.seed(seed)\n"
        "    torch.manual_seed(seed)\n"
    )
    data = {path: text.encode() for path, text in files.items()}
    text = starter_config(sorted(data), data.get)
    config, paths = load_config(text), sorted(files)
    assert "data-path" not in {z.name for z in config.zones}  # train.py is gated as training
    assert covered(config, "training", paths) == {"train.py", "utils.py"}
    assert "1 file calls backward() or an optimizer's step(), and 1 file seeds the random" in text

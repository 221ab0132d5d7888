"""SCENARIOS.md C1-C14, N3 and N4: a tiny model repo, the PR's change, what the check reports."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from gradgate.bot.config.model import load_config
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.checkpoint.settings import CheckpointSettings
from safetensors.torch import save_file, save_model

from tests.checks.checkpoint.scenario import MODEL, kinds, only, run
from tests.gitrepo import GitRepo


def head(*edits: tuple[str, str]) -> str:
    text = MODEL
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


# A change that is code, not a comment: comment-only changes skip the model checks (P5).
TOUCHED = "\nVERSION = 2\n"
RENAMED = head(("self.fc = ", "self.classifier = "), ("return self.fc(", "return self.classifier("))


def net(source: str = MODEL) -> torch.nn.Module:
    """The model a source defines, built here to write reference checkpoints."""
    scope: dict[str, Any] = {}
    exec(compile(source, "model.py", "exec"), scope)  # test fixture code, not user input
    model, _ = scope["build"]()
    assert isinstance(model, torch.nn.Module)
    return model


# --- C1-C3: renames, shapes, prefixes ------------------------------------------------------


def test_c1_a_renamed_layer_gets_one_finding_with_the_map_to_paste(repo: GitRepo) -> None:
    result = run(repo, base={"model.py": MODEL}, head={"model.py": RENAMED})
    assert result.outcome is Outcome.FAIL
    finding = only(result, "checkpoint-renamed")
    assert finding.severity is Severity.BLOCKING
    assert "`fc.*`" in finding.message and "`classifier.*`" in finding.message
    assert "missing `classifier.weight`, `classifier.bias`" in finding.message
    assert "unexpected `fc.weight`, `fc.bias`" in finding.message
    assert "With this map the checkpoint loads (checked)" in finding.message
    assert "same outputs" in finding.message
    assert kinds(result) == ["checkpoint-renamed"]  # one finding, not one per key
    assert (finding.file, finding.line) == ("model.py", 10)  # `self.classifier = ...` at head
    # The map in the details is exactly what the setting accepts.
    assert finding.details is not None
    pasted = load_config(yaml.safe_dump({"always": []}) + finding.details)
    settings = pasted.settings_for("checkpoint")
    assert isinstance(settings, CheckpointSettings)
    assert settings.rules == [(r"^fc\.", "classifier.")]


def test_c2_a_changed_width_is_a_shape_mismatch_per_key_with_both_shapes(repo: GitRepo) -> None:
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": head(("nn.Linear(16, 4)", "nn.Linear(16, 6)"))},
    )
    assert result.outcome is Outcome.FAIL
    messages = {f.message.split(" is ")[0]: f.message for f in result.findings}
    assert set(kinds(result)) == {"checkpoint-shape-mismatch"}
    assert "[4, 16] in the base model's state dict but [6, 16]" in messages["`fc.weight`"]
    assert "[4] in the base model's state dict but [6]" in messages["`fc.bias`"]
    assert {(f.file, f.line) for f in result.findings} == {("model.py", 10)}


WRAPPED_BASE = head(
    (
        "self.embed = nn.Linear(8, 16)",
        "self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), "
        "nn.Linear(16, 16), nn.LayerNorm(16))",
    ),
    ("torch.relu(self.embed(x))", "self.encoder(x)"),
)
WRAPPED_HEAD = WRAPPED_BASE.replace(
    "self.encoder = nn.Sequential(",
    "self.model = nn.Module()\n        self.model.encoder = nn.Sequential(",
).replace("self.encoder(x)", "self.model.encoder(x)")


def test_c3_a_wrapped_submodule_is_one_prefix_rename_not_a_finding_per_key(
    repo: GitRepo,
) -> None:
    result = run(repo, base={"model.py": WRAPPED_BASE}, head={"model.py": WRAPPED_HEAD})
    finding = only(result, "checkpoint-renamed")
    assert kinds(result) == ["checkpoint-renamed"]
    assert "`encoder.*`" in finding.message or "encoder" in finding.message
    assert finding.details is not None
    assert r"'^encoder\.': 'model.encoder.'" in finding.details  # the map, printed once
    assert "'^encoder" not in finding.message
    assert "6 key(s)" in finding.message


def test_c4_ddp_and_compile_prefixes_are_stripped_not_reported(repo: GitRepo) -> None:
    model = net()
    ddp = {f"module.{k}": v for k, v in model.state_dict().items()}
    compiled = torch.compile(model).state_dict()  # lazy: nothing is compiled
    assert all(k.startswith("_orig_mod.") for k in compiled)

    def write_references(root: Path) -> None:
        (root / "ckpt").mkdir(exist_ok=True)
        torch.save(ddp, root / "ckpt" / "ddp.pt")
        save_file(dict(compiled), str(root / "ckpt" / "compiled.safetensors"))

    write_references(repo.root)
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": MODEL + TOUCHED},
        settings={"references": ["ckpt/ddp.pt", "ckpt/compiled.safetensors"]},
    )
    assert result.outcome is Outcome.PASS, result.findings
    assert result.findings == ()


# --- C5-C7: buffers and dtypes -------------------------------------------------------------

ATTENTION = MODEL.replace(
    "class Net(nn.Module):",
    "class Attention(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.proj = nn.Linear(16, 16)\n"
    "        REGISTER\n\n"
    "    def forward(self, h):\n"
    "        return self.proj(h)\n\n\n"
    "class Net(nn.Module):",
).replace(
    "self.fc = nn.Linear(16, 4)", "self.fc = nn.Linear(16, 4)\n        self.attn = Attention()"
)
ALWAYS_MASK = ATTENTION.replace(
    "REGISTER", 'self.register_buffer("mask", torch.ones(16, 16).tril())'
)


def test_c5_a_buffer_registered_only_without_flash_attention_is_named_environment_dependent(
    repo: GitRepo,
) -> None:
    conditional = ATTENTION.replace(
        "REGISTER",
        'if not hasattr(F, "scaled_dot_product_attention"):\n'
        '            self.register_buffer("mask", torch.ones(16, 16).tril())',
    )
    result = run(repo, base={"model.py": ALWAYS_MASK}, head={"model.py": conditional})
    # Here torch has scaled_dot_product_attention: the head model lacks the mask the base
    # model had, so old checkpoints fail a strict load here. Judged as it is: blocking.
    assert result.outcome is Outcome.FAIL, result.findings
    finding = only(result, "checkpoint-environment-key")
    assert finding.severity is Severity.BLOCKING
    assert "`attn.mask` exists only when" in finding.message
    assert "scaled_dot_product_attention" in finding.message
    assert "the head model lacks it and the base model did not agree" in finding.message
    condition = 1 + conditional.splitlines().index(
        '        if not hasattr(F, "scaled_dot_product_attention"):'
    )
    assert (finding.file, finding.line) == ("model.py", condition)
    assert finding.details is not None and r"'^attn\.mask$': null" in finding.details


def test_c5_a_key_conditional_at_base_and_head_alike_is_only_a_warning(repo: GitRepo) -> None:
    conditional = ATTENTION.replace(
        "REGISTER",
        'if not hasattr(F, "scaled_dot_product_attention"):\n'
        '            self.register_buffer("mask", torch.ones(16, 16).tril())',
    )
    (repo.root / "ckpt").mkdir()  # saved on a machine without flash attention
    save_model(net(ALWAYS_MASK), str(repo.root / "ckpt" / "v1.safetensors"))
    result = run(
        repo,
        base={"model.py": conditional},
        head={"model.py": conditional + TOUCHED},
        settings={"references": ["ckpt/v1.safetensors"], "from_base": True},
    )
    finding = only(result, "checkpoint-environment-key")
    assert finding.severity is Severity.WARNING
    assert "The base model was built the same way here" in finding.message


def test_c6_a_buffer_made_non_persistent_is_a_warning_with_the_fix(repo: GitRepo) -> None:
    result = run(
        repo,
        base={"model.py": ALWAYS_MASK},
        head={"model.py": ALWAYS_MASK.replace(".tril())", ".tril(), persistent=False)")},
    )
    assert result.outcome is Outcome.WARN
    finding = only(result, "checkpoint-non-persistent-key")
    assert "`attn.mask`" in finding.message
    assert "strict=False" in finding.message and r"'^attn\.mask$': null" in finding.message


def test_c7_a_dtype_change_is_reported_though_pytorch_casts_silently(repo: GitRepo) -> None:
    result = run(
        repo,
        base={"model.py": MODEL},
        head={
            "model.py": head(
                ("nn.Linear(16, 4)", "nn.Linear(16, 4, dtype=torch.bfloat16)"),
                (
                    "return self.fc(torch.relu(self.embed(x)))",
                    "return self.fc(torch.relu(self.embed(x)).bfloat16())",
                ),
            )
        },
        settings={"equivalence": False},
    )
    assert result.outcome is Outcome.FAIL
    messages = [f.message for f in result.findings if f.kind == "checkpoint-dtype-mismatch"]
    assert len(messages) == 2
    assert any(
        "`fc.weight` is float32" in m and "bfloat16 in the head model" in m for m in messages
    )
    assert all("casts it silently" in m for m in messages)


# --- C8-C9: legacy names and fused tensors -------------------------------------------------

GAMMA_BETA = MODEL.replace(
    "class Net(nn.Module):",
    "class OldNorm(nn.Module):\n"
    "    def __init__(self, n):\n"
    "        super().__init__()\n"
    "        self.gamma = nn.Parameter(torch.ones(n))\n"
    "        self.beta = nn.Parameter(torch.zeros(n))\n\n"
    "    def forward(self, h):\n"
    "        return F.layer_norm(h, h.shape[-1:], self.gamma, self.beta)\n\n\n"
    "class Net(nn.Module):",
).replace(
    "self.fc = nn.Linear(16, 4)", "self.fc = nn.Linear(16, 4)\n        self.norm = OldNorm(16)"
)


def test_c8_gamma_and_beta_are_mappable_legacy_renames_with_the_map(repo: GitRepo) -> None:
    modern = GAMMA_BETA.replace("self.norm = OldNorm(16)", "self.norm = nn.LayerNorm(16)")
    result = run(repo, base={"model.py": GAMMA_BETA}, head={"model.py": modern})
    assert kinds(result) == ["checkpoint-renamed", "checkpoint-renamed"]
    text = " ".join(f.message + (f.details or "") for f in result.findings)
    assert "an old name for" in text
    assert r"'(^|\.)gamma$': '\g<1>weight'" in text
    assert r"'(^|\.)beta$': '\g<1>bias'" in text
    assert "With this map the checkpoint loads (checked)" in text


def test_c8_old_weight_norm_loads_into_parametrizations_through_torchs_own_hook(
    repo: GitRepo,
) -> None:
    old = MODEL.replace(
        "self.fc = nn.Linear(16, 4)", "self.fc = torch.nn.utils.weight_norm(nn.Linear(16, 4))"
    )
    new = MODEL.replace(
        "self.fc = nn.Linear(16, 4)",
        "self.fc = torch.nn.utils.parametrizations.weight_norm(nn.Linear(16, 4))",
    )
    result = run(repo, base={"model.py": old}, head={"model.py": new})
    assert result.outcome is Outcome.PASS, result.findings
    note = only(result, "checkpoint-migrated")
    assert "_weight_norm_compat_hook" in note.message


QKV = MODEL.replace(
    "self.fc = nn.Linear(16, 4)",
    "self.attn = nn.Module()\n        self.attn.qkv = nn.Linear(16, 48)\n"
    "        self.fc = nn.Linear(16, 4)",
).replace(
    "return self.fc(torch.relu(self.embed(x)))",
    "h = torch.relu(self.embed(x))\n        q, k, v = self.attn.qkv(h).chunk(3, -1)\n"
    "        return self.fc(q * k + v)",
)
SPLIT = QKV.replace(
    "self.attn.qkv = nn.Linear(16, 48)",
    "self.attn.q = nn.Linear(16, 16)\n        self.attn.k = nn.Linear(16, 16)\n"
    "        self.attn.v = nn.Linear(16, 16)",
).replace(
    "q, k, v = self.attn.qkv(h).chunk(3, -1)",
    "q, k, v = self.attn.q(h), self.attn.k(h), self.attn.v(h)",
)


def test_c9_a_split_qkv_needs_a_conversion_not_a_rename(repo: GitRepo) -> None:
    result = run(repo, base={"model.py": QKV}, head={"model.py": SPLIT})
    assert result.outcome is Outcome.FAIL
    assert "checkpoint-renamed" not in kinds(result)
    conversions = [f for f in result.findings if f.kind == "checkpoint-needs-conversion"]
    assert len(conversions) == 2  # weight and bias
    weight = next(f for f in conversions if "qkv.weight" in f.message)
    assert "`attn.qkv.weight` [48, 16]" in weight.message
    assert "`attn.q.weight`, `attn.k.weight`, `attn.v.weight`" in weight.message
    assert "not a rename" in weight.message
    assert weight.details is not None and "_load_from_state_dict" in weight.details


# --- C10-C11: what a reference file holds --------------------------------------------------


class RunsCode:
    def __init__(self, sentinel: Path) -> None:
        self.sentinel = sentinel

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str]]:
        return os.system, (f"touch {self.sentinel}",)


def test_c10_pickled_objects_in_a_reference_are_refused_without_unpickling(
    repo: GitRepo, tmp_path: Path
) -> None:
    sentinel = tmp_path / "it-ran"
    checkpoint = {
        "model": net().state_dict(),
        "args": argparse.Namespace(lr=0.1),
        "best": np.float64(0.9),
        "hook": RunsCode(sentinel),
    }
    (repo.root / "ckpt").mkdir()
    torch.save({"model": net().state_dict()}, repo.root / "ckpt" / "v1.pt")

    def gains_objects(root: Path) -> None:
        torch.save(checkpoint, root / "ckpt" / "v1.pt")

    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": MODEL + TOUCHED},
        settings={"references": [{"path": "ckpt/v1.pt", "key": "model"}], "equivalence": False},
        before_head=gains_objects,
    )
    assert not sentinel.exists()
    finding = only(result, "checkpoint-pickled-objects")
    assert finding.revision == "head" and finding.file == "ckpt/v1.pt"
    assert finding.message.startswith("This PR makes reference `ckpt/v1.pt` carry pickled objects")
    assert "`args` holds `argparse.Namespace`" in finding.message
    assert "`best` holds `numpy." in finding.message
    assert "`hook` holds `posix.system` — code that runs when the file is unpickled" in (
        finding.message.replace("`os.system`", "`posix.system`")
    )
    assert result.outcome is Outcome.FAIL  # the base copy itself still loads


def test_c11_an_lfs_pointer_is_not_a_checkpoint_not_an_incompatibility(repo: GitRepo) -> None:
    pointer = (
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        "size 104857600\n"
    )
    result = run(
        repo,
        base={"model.py": MODEL, "ckpt/v1.safetensors": pointer},
        head={"model.py": MODEL + TOUCHED},
        settings={"references": ["ckpt/v1.safetensors"], "equivalence": False},
    )
    assert result.outcome is Outcome.ERROR  # could not decide: never a pass
    finding = only(result, "checkpoint-lfs-pointer")
    assert "is an LFS pointer, not a checkpoint" in finding.message
    assert "incompatible" not in finding.message


# --- C12-C14: behaviour and migrations -----------------------------------------------------

SQUARE = MODEL.replace(
    "self.embed = nn.Linear(8, 16)",
    "self.embed = nn.Linear(8, 16)\n        self.mix = nn.Linear(16, 16)",
).replace(
    "return self.fc(torch.relu(self.embed(x)))",
    "return self.fc(self.mix(torch.relu(self.embed(x))))",
)


def test_c12_a_transposed_square_weight_changes_outputs_with_base_weights(repo: GitRepo) -> None:
    transposed = SQUARE.replace(
        "self.mix(torch.relu(self.embed(x)))",
        "torch.relu(self.embed(x)) @ self.mix.weight + self.mix.bias",
    )
    result = run(repo, base={"model.py": SQUARE}, head={"model.py": transposed})
    assert result.outcome is Outcome.FAIL
    finding = only(result, "checkpoint-behaviour-changed")
    assert "Base weights load into the head model" in finding.message
    assert "differs by up to" in finding.message
    assert kinds(result) == ["checkpoint-behaviour-changed"]  # keys and shapes agree


TIED_BASE = (
    MODEL.replace("self.embed = nn.Linear(8, 16)", "self.embed = nn.Embedding(8, 16)")
    .replace("self.fc = nn.Linear(16, 4)", "self.fc = nn.Linear(16, 8, bias=False)")
    .replace(
        "return self.fc(torch.relu(self.embed(x)))", "return self.fc(torch.relu(self.embed(x)))"
    )
    .replace("torch.randn(3, 8)", "torch.arange(6).reshape(2, 3)")
)
TIED_HEAD = TIED_BASE.replace(
    "self.fc = nn.Linear(16, 8, bias=False)",
    "self.fc = nn.Linear(16, 8, bias=False)\n        self.fc.weight = self.embed.weight",
)


def test_c13_weights_tied_at_head_drop_a_base_tensor_silently(repo: GitRepo) -> None:
    result = run(repo, base={"model.py": TIED_BASE}, head={"model.py": TIED_HEAD})
    assert result.outcome is Outcome.FAIL
    tied = only(result, "checkpoint-newly-tied")
    assert "`embed.weight`, `fc.weight`" in tied.message
    assert "silently drops the other" in tied.message
    assert "checkpoint-behaviour-changed" in kinds(result)


HOOKED = RENAMED.replace(
    "    def forward(self, x):",
    "    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):\n"
    "        for name in ('weight', 'bias'):\n"
    "            old = prefix + 'fc.' + name\n"
    "            if old in state_dict:\n"
    "                state_dict[prefix + 'classifier.' + name] = state_dict.pop(old)\n"
    "        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)\n\n"
    "    def forward(self, x):",
)


def test_c14_a_load_hook_in_the_pr_makes_it_pass_and_is_named(repo: GitRepo) -> None:
    result = run(repo, base={"model.py": MODEL}, head={"model.py": HOOKED})
    assert result.outcome is Outcome.PASS, result.findings
    note = only(result, "checkpoint-migrated")
    assert note.severity is Severity.NOTE
    assert "`Net._load_from_state_dict` (model.py:" in note.message


def test_c14_a_declared_key_map_makes_it_pass_and_is_named(repo: GitRepo) -> None:
    result = run(
        repo,
        base={"model.py": MODEL},
        head={"model.py": RENAMED},
        settings={"migrations": {r"^fc\.": "classifier."}},
    )
    assert result.outcome is Outcome.PASS, result.findings
    note = only(result, "checkpoint-migrated")
    assert r"the declared migrations '^fc\.': 'classifier.' (2 key(s))" in note.message
    assert [(s.rule, s.origin) for s in result.suppressions] == [
        (r"migrations: '^fc\.': 'classifier.'", "config")
    ]


# --- N3-N4: look-alikes that must not block ------------------------------------------------


def test_n3_tied_weights_are_one_parameter_under_two_names(repo: GitRepo) -> None:
    model = net(TIED_HEAD)

    def write_references(root: Path) -> None:
        (root / "ckpt").mkdir(exist_ok=True)
        save_model(model, str(root / "ckpt" / "tied.safetensors"))  # keeps one of the names
        torch.save(model.state_dict(), root / "ckpt" / "tied.pt")  # both, one storage

    write_references(repo.root)
    result = run(
        repo,
        base={"model.py": TIED_HEAD},
        head={"model.py": TIED_HEAD + TOUCHED},
        settings={"references": ["ckpt/tied.safetensors", "ckpt/tied.pt"], "from_base": True},
    )
    assert result.outcome is Outcome.PASS, result.findings
    assert result.findings == ()


def test_n4_batchnorm_buffers_load_through_batchnorms_own_shim(repo: GitRepo) -> None:
    with_bn = MODEL.replace(
        "self.fc = nn.Linear(16, 4)",
        "self.fc = nn.Linear(16, 4)\n        self.bn = nn.BatchNorm1d(16)",
    ).replace("torch.relu(self.embed(x))", "self.bn(torch.relu(self.embed(x)))")
    state = net(with_bn).state_dict()
    del state["bn.num_batches_tracked"]  # as BatchNorm saved it before PyTorch 0.4.1

    def write_reference(root: Path) -> None:
        (root / "ckpt").mkdir(exist_ok=True)
        save_file(dict(state), str(root / "ckpt" / "old.safetensors"))

    write_reference(repo.root)
    result = run(
        repo,
        base={"model.py": with_bn},
        head={"model.py": with_bn + TOUCHED},
        settings={"references": ["ckpt/old.safetensors"], "from_base": True},
    )
    assert result.outcome is Outcome.PASS, result.findings
    assert result.findings == ()

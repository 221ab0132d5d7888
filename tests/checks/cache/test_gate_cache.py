"""The result cache in whole gates: real git repos, real torch, the model checks' own children.

A second run of an unchanged PR (a /recheck, a Re-run button) reads every model result the
first wrote and starts no child; the next PR of a linear history reuses its base from the head
of the one before; a push that touches only docs reuses both sides; and the verdict, findings
and plan are the same as without the cache. The factory writes a token per interpreter to a
trace outside the tree (process-level isolation on a machine without bubblewrap), which counts
the children that built the model.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

from gradgate.bot.pipeline import Request, run_request
from gradgate.bot.report.render import render
from gradgate.checks.cache.store import FolderStore

from tests.gitrepo import GitRepo

MODEL = """\
import os
import sys

import torch
from torch import nn

from layers import Block


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 16)
        self.block = Block(16)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.block(torch.relu(self.encoder(x))))


def build():
    token = sys.__dict__.setdefault("_trace_token", os.urandom(8).hex())
    with open({trace!r}, "a") as trace:
        trace.write(token + "\\n")
    torch.manual_seed(0)
    return Net(), torch.randn(3, 8)
"""
LAYERS = """\
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inner = nn.Linear(width, width)

    def forward(self, x):
        return torch.relu(self.inner(x)){cut}
"""
CONFIG = """\
model:
  entrypoint: "model.py:build"
always: [gradient]
checks:
  gradient:
    memory_mb: 2048
"""


def gate(repo: GitRepo, base: str, head: str, store: FolderStore | None) -> dict[str, Any]:
    report = run_request(Request(repo_path=repo.root, base=base, head=head, cache=store))
    return json.loads(render(report, "json"))


def decided(data: dict[str, Any]) -> Any:
    """What must not depend on the cache: the verdict, each check's outcome, summary and
    findings, and the model plan."""
    checks = [{k: c[k] for k in ("name", "outcome", "summary", "findings")} for c in data["checks"]]
    return data["verdict"], checks, data["model_plan"]


def cached_sides(data: dict[str, Any]) -> dict[str, str]:
    return {c["revision"]: c["commit"] for check in data["checks"] for c in check["cached"]}


def tokens(trace: Path) -> int:
    return len(trace.read_text().split()) if trace.exists() else 0


def history(tmp_path: Path) -> tuple[GitRepo, Path, list[str]]:
    """main: the model; then a commit that cuts the block's gradient, one that touches only
    the README, and one that restores the gradient."""
    trace = tmp_path / "trace.txt"
    repo = GitRepo(tmp_path / "repo")
    model = MODEL.format(trace=str(trace))
    repo.write(".gradgate.yml", CONFIG)
    repo.write("model.py", model)
    repo.write("layers.py", LAYERS.format(cut=""))
    repo.write("README.md", "a model\n")
    shas = [repo.commit("model")]
    repo.write("layers.py", LAYERS.format(cut=".detach()"))
    shas.append(repo.commit("cut the block's gradient"))
    repo.write("README.md", "a model, documented\n")
    shas.append(repo.commit("docs only"))
    repo.write("layers.py", LAYERS.format(cut=""))
    shas.append(repo.commit("restore the gradient"))
    return repo, trace, shas


def test_a_linear_history_with_the_cache_decides_as_without_it(
    tmp_path: Path, no_bwrap: None
) -> None:
    repo, trace, shas = history(tmp_path)
    store = FolderStore(tmp_path / "cache")
    pairs = list(itertools.pairwise(shas))
    cold = [gate(repo, base, head, None) for base, head in pairs]
    assert not (tmp_path / "cache").exists()  # no cache: nothing written
    warm = []
    for base, head in pairs:
        before = tokens(trace)
        warm.append(gate(repo, base, head, store))
        warm[-1]["children"] = tokens(trace) - before
    for without, with_cache in zip(cold, warm, strict=True):
        assert decided(with_cache) == decided(without)
    assert [d["verdict"] for d in warm] == ["failure", "success", "success"]
    # The first gate computes both sides; each later one reads its base from the one before.
    assert cached_sides(warm[0]) == {}
    assert cached_sides(warm[1]) == {"base": shas[1], "head": shas[1]}  # docs only: both reused
    assert warm[1]["children"] == 0
    assert cached_sides(warm[2]) == {"base": shas[1]}
    assert warm[2]["model_plan"] is not None  # the plan's facts are cached with the results
    text = render_text(repo, shas[1], shas[2], store)
    assert f"from the cache: base (computed at {shas[1][:12]})" in text


def render_text(repo: GitRepo, base: str, head: str, store: FolderStore) -> str:
    report = run_request(Request(repo_path=repo.root, base=base, head=head, cache=store))
    return render(report, "text") + render(report, "markdown")


def test_an_unchanged_recheck_reads_what_the_first_run_wrote(
    tmp_path: Path, no_bwrap: None
) -> None:
    repo, trace, shas = history(tmp_path)
    store = FolderStore(tmp_path / "cache")
    first = gate(repo, shas[0], shas[1], store)
    started = tokens(trace)
    again = gate(repo, shas[0], shas[1], store)
    assert tokens(trace) == started  # no child built the model again
    assert decided(again) == decided(first)
    assert cached_sides(again) == {"base": shas[0], "head": shas[1]}
    assert again["model_plan_cached"] == {"base": shas[0], "head": shas[1]}


def test_the_config_switch_turns_the_cache_off(tmp_path: Path, no_bwrap: None) -> None:
    repo, _trace, _shas = history(tmp_path)
    repo.write(".gradgate.yml", CONFIG + "cache: false\n")
    off = repo.commit("no cache")
    repo.write("README.md", "again\n")
    head = repo.commit("docs")
    store = FolderStore(tmp_path / "cache")
    gate(repo, off, head, store)
    data = gate(repo, off, head, store)
    assert cached_sides(data) == {}
    assert store.size() == 0


ALL_CONFIG = """\
model:
  entrypoint: "model.py:build"
data:
  entrypoint: "pipeline.py:build"
always: [gradient, checkpoint, behaviour, data]
checks:
  gradient:
    memory_mb: 2048
  checkpoint:
    memory_mb: 2048
  behaviour:
    memory_mb: 2048
  data:
    memory_mb: 2048
"""
PIPELINE = """\
import torch


def build():
    def transform(image):
        return torch.as_tensor(image).float() / {scale}
    return transform
"""
TEST_FILE = """\
from model import build


def test_build():
    model, inputs = build()
    assert model(inputs).shape == (3, 4){more}
"""


def per_check(data: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {
        check["name"]: {c["revision"]: c["commit"] for c in check["cached"]}
        for check in data["checks"]
        if check["cached"]
    }


def test_every_cached_check_decides_as_without_the_cache_and_a_recheck_starts_no_child(
    tmp_path: Path, no_bwrap: None
) -> None:
    """gradient, checkpoint, behaviour and data: a PR gated cold and with the cache decides the
    same; its /recheck, a push of docs only and a push of a test only start no child that builds
    the model (checkpoint's and behaviour's head results are keyed by base's); a push that
    changes the model reads base from the cache and runs base's child again for the weights
    head's child compares with."""
    trace = tmp_path / "trace.txt"
    repo = GitRepo(tmp_path / "repo")
    repo.write(".gradgate.yml", ALL_CONFIG)
    repo.write("model.py", MODEL.format(trace=str(trace)))
    repo.write("layers.py", LAYERS.format(cut=""))
    repo.write("pipeline.py", PIPELINE.format(scale=255))
    repo.write("tests/test_model.py", TEST_FILE.format(more=""))
    repo.write("README.md", "a model\n")
    base = repo.commit("model")
    repo.write("layers.py", LAYERS.format(cut=".detach()"))
    repo.write("pipeline.py", PIPELINE.format(scale=127))
    cut = repo.commit("cut the block's gradient, scale the input otherwise")
    repo.write("README.md", "a model, documented\n")
    docs = repo.commit("docs only")
    repo.write("tests/test_model.py", TEST_FILE.format(more="\n    assert inputs.shape == (3, 8)"))
    tested = repo.commit("a test only")
    repo.write("layers.py", LAYERS.format(cut=" * 2"))
    changed = repo.commit("the model again")
    store = FolderStore(tmp_path / "cache")
    model_checks = {"gradient", "checkpoint", "behaviour"}

    first = gate(repo, base, cut, store)
    assert per_check(first) == {}
    assert decided(first) == decided(gate(repo, base, cut, None))
    assert first["verdict"] == "failure"

    for head in (cut, docs, tested):
        before = tokens(trace)
        again = gate(repo, base, head, store)
        assert tokens(trace) == before, head  # no child built the model
        assert decided(again) == decided(first if head == cut else gate(repo, base, head, None))
        cached = per_check(again)
        for name in model_checks:
            assert cached[name] == {"base": base, "head": cut}, (head, name)
        # data's transform may read any file: its key is the whole tree, a docs edit too
        assert cached["data"] == ({"base": base, "head": cut} if head == cut else {"base": base})

    before = tokens(trace)
    moved = gate(repo, base, changed, store)
    assert decided(moved) == decided(gate(repo, base, changed, None))
    cached = per_check(moved)
    assert all(cached[name] == {"base": base} for name in model_checks)
    # head's children build the model; so does base's, once, for the weights it hands over
    assert tokens(trace) > before


REFERENCE_CONFIG = """\
model:
  entrypoint: "model.py:build"
always: [checkpoint]
checks:
  checkpoint:
    memory_mb: 2048
    references: [ckpt/v1.pt]
    equivalence: false
"""


def checkpoint_file(head: str) -> bytes:
    """A state dict of MODEL's Net, its output layer saved under the name ``head``."""
    import torch

    shapes = {
        "encoder.weight": (16, 8), "encoder.bias": (16,), "block.inner.weight": (16, 16),
        "block.inner.bias": (16,), f"{head}.weight": (4, 16), f"{head}.bias": (4,),
    }  # fmt: skip
    buffer = io.BytesIO()
    torch.save({key: torch.zeros(shape) for key, shape in shapes.items()}, buffer)
    return buffer.getvalue()


def test_a_reference_checkpoint_is_keyed_by_its_content_not_its_path(
    tmp_path: Path, no_bwrap: None
) -> None:
    """Two PRs whose models and imported files are the same, on bases whose reference files
    differ: the second's head dry run is not the first's, though the file's path is the same."""
    repo = GitRepo(tmp_path / "repo")
    repo.write(".gradgate.yml", REFERENCE_CONFIG)
    repo.write("model.py", MODEL.format(trace=str(tmp_path / "trace.txt")))
    repo.write("layers.py", LAYERS.format(cut=""))
    repo.write("ckpt/v1.pt", checkpoint_file("head"))
    loads = repo.commit("a model and a checkpoint it loads")
    repo.write("README.md", "docs\n")
    head = repo.commit("docs")
    repo.write("ckpt/v1.pt", checkpoint_file("classifier"))
    renamed = repo.commit("a checkpoint saved under another name")
    repo.write("README.md", "more docs\n")
    later = repo.commit("more docs")
    store = FolderStore(tmp_path / "cache")

    first = gate(repo, loads, head, store)
    assert first["verdict"] == "success"
    assert per_check(gate(repo, loads, head, store)) == {"checkpoint": {"head": head}}
    other = gate(repo, renamed, later, store)
    assert per_check(other) == {}
    assert decided(other) == decided(gate(repo, renamed, later, None))
    assert other["verdict"] == "failure"

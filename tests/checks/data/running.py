"""The `data` child's program run in this process on a file of a temporary revision."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gradgate.checks.data.child.probe import probe
from gradgate.checks.sandbox.child import Target


def run_child(tmp_path: Path, text: str, *, name: str = "revision", **spec: Any) -> Any:
    """The child's JSON value for ``text`` as `pipeline.py:build` at a revision called ``name``."""
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "pipeline.py").write_text(text, encoding="utf-8")
    request = {"seed": 0, "root": str(folder), "kwargs": {"data": {"tolerance": 1e-5, **spec}}}
    return probe(request, Target({"path": str(folder / "pipeline.py"), "attr": "build"}))

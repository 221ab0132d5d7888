"""checks.model.portable: a child's answer goes into the result cache without the gate's
checkouts in it, and comes back with the reading gate's (pure)."""

from __future__ import annotations

from pathlib import Path

from gradgate.checks.model.portable import marked, placed, portable


def test_a_value_naming_files_in_the_checkouts_comes_back_with_the_next_gates(
    tmp_path: Path,
) -> None:
    first = {"base": Path("/tmp/gate-a"), "head": Path("/tmp/gate-ab")}
    value = {
        "shims": [{"file": "/tmp/gate-ab/model.py", "line": 3}],
        "/tmp/gate-a/layers.py": "a crash at /tmp/gate-a/layers.py:7",
        "elsewhere": "/tmp/gate-abc/x.py",  # another folder whose name starts the same
        "n": 2.5,
    }
    stored = portable(value, first)
    assert marked(stored) and not marked(value)
    assert "/tmp/gate-a" not in str(stored).replace("/tmp/gate-abc", "")
    base, head = (tmp_path / "x").resolve(), (tmp_path / "y").resolve()
    assert placed(stored, {"base": base, "head": head}) == {
        "shims": [{"file": f"{head}/model.py", "line": 3}],
        f"{base}/layers.py": f"a crash at {base}/layers.py:7",
        "elsewhere": "/tmp/gate-abc/x.py",
        "n": 2.5,
    }

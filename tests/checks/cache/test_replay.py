"""The cache bench's replay, shortened to its first four commits (a model, a docs edit, an
option turned on, another docs edit): every gate decides the same with the cache as without
it, and the cache answers what it should (the base from the gate before; both sides of a
docs-only change)."""

from __future__ import annotations

from pathlib import Path

from gradgate.checks.cache.store import FolderStore

from bench._cache_repo import history
from bench.cache import decided, replay, sides


def test_a_short_replay_decides_the_same_with_and_without_the_cache(tmp_path: Path) -> None:
    repo, shas = history(tmp_path / "repo", 4)
    cold = replay(repo.root, shas, None)
    warm = replay(repo.root, shas, FolderStore(tmp_path / "cache"))
    assert [decided(w) for w, _ in warm] == [decided(c) for c, _ in cold]
    assert [sides(w) for w, _ in warm] == ["-", "base", "base+head"]

"""The result cache's entries are never trusted blindly: a truncated, edited or foreign entry
(one stored under another key) is a miss and is computed again; a fork's results stay with its
PR; the folder stays under its size, the least recently used going first."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from gradgate.checks.cache.results import ResultCache
from gradgate.checks.cache.store import FolderStore, default_folder

TREE = {"model.py": b"import layers\n", "layers.py": b"x = 1\n", "README.md": b"docs\n"}
MATERIAL = {"program": "gradient.child.probe:probe", "kwargs": {"steps": 2}}
VALUE = {"params": [{"name": "w", "norm": 0.5}]}


def reader(tree: dict[str, bytes]):  # type: ignore[no-untyped-def]
    return tree.get


def stored(tmp_path: Path, scope: str = "trusted") -> tuple[FolderStore, ResultCache]:
    store = FolderStore(tmp_path)
    cache = ResultCache(store, scope=scope)
    cache.save(MATERIAL, reader(TREE), ["model.py", "layers.py"], VALUE, commit="a" * 40)
    return store, cache


def entry(store: FolderStore) -> Path:
    (found,) = [p for p in store.root.iterdir() if p.name.startswith("r-")]
    return found


def test_a_hit_needs_the_same_request_and_the_same_imported_files(tmp_path: Path) -> None:
    _, cache = stored(tmp_path)
    hit = cache.lookup("base", MATERIAL, reader(TREE))
    assert hit is not None and hit.value == VALUE and hit.commit == "a" * 40
    # Docs changed: the same result; an imported file changed, or the request: a miss.
    assert cache.lookup("head", MATERIAL, reader({**TREE, "README.md": b"more\n"})) is not None
    assert cache.lookup("head", MATERIAL, reader({**TREE, "layers.py": b"x = 2\n"})) is None
    assert cache.lookup("head", {**MATERIAL, "kwargs": {"steps": 3}}, reader(TREE)) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data.replace(b"0.5", b"0.6"),  # edited
        lambda data: data.replace(b"0.5", b"0.6").split(b"\n", 1)[1],  # edited, digest gone
        lambda data: b"",
    ],
    ids=["truncated", "edited", "edited-digest-dropped", "empty"],
)
def test_a_damaged_entry_is_a_miss_and_is_computed_again(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    store, cache = stored(tmp_path)
    path = entry(store)
    path.write_bytes(damage(path.read_bytes()))
    assert cache.lookup("base", MATERIAL, reader(TREE)) is None
    assert cache.rejected == 1
    # The run computes it again and stores it whole: the next lookup is a hit.
    cache.save(MATERIAL, reader(TREE), ["model.py", "layers.py"], VALUE, commit="b" * 40)
    hit = cache.lookup("base", MATERIAL, reader(TREE))
    assert hit is not None and hit.commit == "b" * 40


def test_an_entry_stored_under_another_key_is_not_trusted(tmp_path: Path) -> None:
    store, cache = stored(tmp_path)
    good = entry(store)
    # Another request's entry, whole and with a valid digest, copied under this one's name.
    other = {**MATERIAL, "kwargs": {"steps": 9}}
    cache.save(other, reader(TREE), ["model.py", "layers.py"], {"forged": True}, commit="c" * 40)
    (foreign,) = [p for p in store.root.iterdir() if p.name.startswith("r-") and p != good]
    good.write_bytes(foreign.read_bytes())
    assert cache.lookup("base", MATERIAL, reader(TREE)) is None
    assert cache.rejected == 1


def test_a_forks_results_are_reused_only_by_the_same_fork_pr(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    fork = ResultCache.for_fork(store, 7)
    fork.save(MATERIAL, reader(TREE), ["model.py"], {"from": "fork"}, commit="f" * 40)
    assert ResultCache(store).lookup("base", MATERIAL, reader(TREE)) is None  # trusted: never
    assert ResultCache.for_fork(store, 8).lookup("head", MATERIAL, reader(TREE)) is None
    hit = ResultCache.for_fork(store, 7).lookup("head", MATERIAL, reader(TREE))
    assert hit is not None and hit.value == {"from": "fork"}
    # A fork's base is trusted code: it may read what trusted runs stored, for base only.
    ResultCache(store).save(MATERIAL, reader(TREE), ["model.py"], VALUE, commit="a" * 40)
    assert ResultCache.for_fork(store, 8).lookup("base", MATERIAL, reader(TREE)) is not None
    assert ResultCache.for_fork(store, 8).lookup("head", MATERIAL, reader(TREE)) is None


def test_the_folder_keeps_under_its_size_dropping_the_least_recently_used(tmp_path: Path) -> None:
    store = FolderStore(tmp_path, max_bytes=3000)
    names = [f"r-{i:064x}" for i in range(3)]
    for number, name in enumerate(names):
        store.put(name, bytes(900))
        then = time.time() - 100 + number
        os.utime(store.root / name, (then, then))
    assert store.get(names[0]) is not None  # read now: the most recently used
    store.put(f"r-{9:064x}", bytes(900))
    assert store.size() <= 3000
    assert store.get(names[1]) is None and store.get(names[0]) is not None


def test_the_cli_folder_follows_the_xdg_convention(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_folder() == tmp_path / "gradgate"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_folder() == tmp_path / "home" / ".cache" / "gradgate"

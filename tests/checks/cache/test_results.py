"""The result cache's entries are never trusted blindly: a truncated, edited or foreign entry
(one stored under another key) is a miss and is computed again; a fork's results stay with its
PR; the folder stays under its size, the least recently used going first."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import pytest
from gradgate.checks.cache.results import FORMAT, ResultCache, digest, key_of
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


def test_a_request_is_the_same_whatever_order_its_fields_come_in(tmp_path: Path) -> None:
    _, cache = stored(tmp_path)
    reordered = dict(reversed(list(MATERIAL.items())))
    assert list(reordered) != list(MATERIAL)
    assert cache.lookup("base", reordered, reader(TREE)) is not None
    assert (cache.hits, cache.misses) == (1, 0)
    assert cache.lookup("base", {**MATERIAL, "device": "cuda"}, reader(TREE)) is None
    assert (cache.hits, cache.misses) == (1, 1)


def test_the_eight_most_recent_import_lists_of_a_request_are_kept(tmp_path: Path) -> None:
    """Each run may import other files (say, a branch on a config value); the oldest of nine
    lists is forgotten, so a tree that matches only it is a miss."""
    cache = ResultCache(FolderStore(tmp_path))
    trees = [{f"m{i}.py": f"x = {i}\n".encode()} for i in range(9)]
    for i, tree in enumerate(trees):
        cache.save(MATERIAL, reader(tree), [f"m{i}.py"], {"run": i}, commit="a" * 40)
    assert cache.lookup("head", MATERIAL, reader(trees[0])) is None
    for i in range(1, 9):
        hit = cache.lookup("head", MATERIAL, reader(trees[i]))
        assert hit is not None and hit.value == {"run": i}


@pytest.mark.parametrize(("files", "cached"), [(2000, True), (2001, False)])
def test_a_run_that_imported_more_than_2000_files_is_not_cached(
    tmp_path: Path, files: int, cached: bool
) -> None:
    tree = {f"pkg/m{i}.py": b"" for i in range(files)}
    cache = ResultCache(FolderStore(tmp_path))
    cache.save(MATERIAL, reader(tree), list(tree), VALUE, commit="a" * 40)
    assert (cache.lookup("head", MATERIAL, reader(tree)) is not None) is cached


def test_a_fork_run_without_a_pr_number_shares_nothing_with_pr_1(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    ResultCache.for_fork(store, 1).save(
        MATERIAL, reader(TREE), ["model.py"], VALUE, commit="f" * 40
    )
    assert ResultCache.for_fork(store, None).lookup("head", MATERIAL, reader(TREE)) is None
    assert ResultCache.for_fork(store, 1).lookup("head", MATERIAL, reader(TREE)) is not None


def test_the_counters_count_every_hit_miss_and_rejection(tmp_path: Path) -> None:
    store, cache = stored(tmp_path)
    for _ in range(2):
        assert cache.lookup("base", MATERIAL, reader(TREE)) is not None
        assert cache.lookup("base", MATERIAL, reader({})) is None
    path = entry(store)
    path.write_bytes(b"")
    for _ in range(2):
        assert cache.lookup("base", MATERIAL, reader(TREE)) is None
    assert (cache.hits, cache.misses, cache.rejected) == (2, 4, 2)


def test_a_result_holding_nan_or_infinity_is_cached_as_it_was(tmp_path: Path) -> None:
    """A gradient norm may be NaN or infinite: that is a finding, and the cache keeps it."""
    cache = ResultCache(FolderStore(tmp_path))
    value = {"norms": [float("nan"), float("inf")]}
    cache.save(MATERIAL, reader(TREE), ["model.py"], value, commit="a" * 40)
    hit = cache.lookup("head", MATERIAL, reader(TREE))
    assert hit is not None and math.isnan(hit.value["norms"][0])
    assert hit.value["norms"][1] == float("inf")


def test_no_path_outside_the_tree_is_ever_read(tmp_path: Path) -> None:
    """A child reports what it imported; a path that leaves the tree is dropped, never read."""
    asked: list[str] = []

    def read(path: str) -> bytes | None:
        asked.append(path)
        return TREE.get(path)

    cache = ResultCache(FolderStore(tmp_path))
    files = ["model.py", "../outside.py", "/etc/passwd", "", "pkg/../../up.py"]
    cache.save(MATERIAL, read, files, VALUE, commit="a" * 40)
    assert cache.lookup("head", MATERIAL, read) is not None
    assert set(asked) == {"model.py"}


def test_a_manifest_with_lists_this_version_would_not_write_still_finds_the_good_one(
    tmp_path: Path,
) -> None:
    """A manifest read back whole (its digest and key hold) may still list what no run of this
    version wrote: each such list is skipped, and the next one tried."""
    store, cache = stored(tmp_path)
    static = key_of({"scope": "trusted", "static": MATERIAL})
    body = [123, ["../outside.py"], ["model.py", 7], ["layers.py", "model.py"]]
    payload = json.dumps({"format": FORMAT, "key": static, "made": 0, "body": body}).encode()
    store.put(f"m-{static}", digest(payload).encode() + b"\n" + payload)

    hit = cache.lookup("base", MATERIAL, reader(TREE))
    assert hit is not None and hit.value == VALUE

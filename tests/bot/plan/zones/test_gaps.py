"""Zone patterns that match no file at head: exact (pathspec's answer), whatever the shortcut."""

from __future__ import annotations

import random

import pytest
from gradgate.bot.config.model import Zone
from gradgate.bot.plan.zones.gaps import Tracked, unmatched

from tests.bot.plan.zones.test_match import random_path, random_zone, reference


def entries(*files: str) -> list[str]:
    """What `git ls-tree -r -t` lists: the files and every directory above them."""
    out = set(files)
    for path in files:
        parts = path.split("/")
        out.update("/".join(parts[:n]) for n in range(1, len(parts)))
    return sorted(out)


def gaps(files: tuple[str, ...], *zones: Zone) -> dict[str, tuple[str, ...]]:
    return unmatched(zones, Tracked("".join(f"{e}\0" for e in entries(*files))))


FILES = (
    "README.md",
    "train.py",
    "configs/train.yaml",
    "src/nanogpt/model.py",
    "src/nanogpt/layers/attention.py",
    "docs/guide/index.md",
)


@pytest.mark.parametrize(
    ("pattern", "matched"),
    [
        ("model.py", True),  # a name at any depth
        ("Model.py", False),  # case matters, as in git
        ("src/nanogpt/model.py", True),
        ("/model.py", False),  # anchored at the root: there is none there
        ("src/nanogpt/**", True),
        ("src/nanogpt/", True),
        ("layers/", True),  # a directory's name at any depth
        ("model.py/", False),  # ... a file of that name is not a directory
        ("nanogpt", True),  # no slash: a file's or a directory's name
        ("*.yaml", True),
        ("*.yml", False),
        ("configs/*.yaml", True),
        ("/*.yaml", False),
        ("docs/**/*.md", True),
        ("docs/**/*.rst", False),
        ("**/layers/*.py", True),
        ("**/layers/*.cu", False),
        ("READ*", True),
        ("*_test.py", False),
        ("src/**/attention.py", True),
        ("*", True),
    ],
)
def test_each_include_pattern_is_asked_on_its_own(pattern: str, matched: bool) -> None:
    found = gaps(FILES, Zone(name="z", paths=(pattern,)))
    assert found == ({} if matched else {"z": (pattern,)})


def test_a_file_moved_out_of_its_zone_leaves_its_pattern_matching_nothing() -> None:
    zone = Zone(name="model-core", paths=("src/nanogpt/model.py", "src/nanogpt/layers/**"))
    moved = tuple(f.replace("nanogpt/model.py", "nanogpt/gpt.py") for f in FILES)
    assert gaps(FILES, zone) == {}
    assert gaps(moved, zone) == {"model-core": ("src/nanogpt/model.py",)}


def test_exclusions_are_not_asked_and_zones_keep_the_configs_order() -> None:
    zones = (
        Zone(name="b", paths=("Model.py", "!nothing/**", "*.rst")),
        Zone(name="a", paths=("*.py",)),
        Zone(name="c", paths=("nope/", "!train.py")),
    )
    assert gaps(FILES, *zones) == {"b": ("Model.py", "*.rst"), "c": ("nope/",)}


@pytest.mark.parametrize(
    ("files", "pattern", "matched"),
    [
        (("notes.mdx",), "*.md", False),  # `.md` inside a name is not its end
        (("a.md/x",), "*.md", True),  # a directory's name ends with it
        (("lib.d",), "*.d/", False),  # a file's name is not a directory's
        (("lib.d/x",), "*.d/", True),
        # `$` in pathspec's regexes also matches before a final line break: its answer stands
        (("src/model.py\n",), "model.py", True),
        (("src/model.py\n",), "/src/model.py", True),
    ],
)
def test_shortcuts_give_pathspecs_answer(
    files: tuple[str, ...], pattern: str, matched: bool
) -> None:
    assert any(reference((pattern,), f) for f in files) is matched
    assert gaps(files, Zone(name="z", paths=(pattern,))) == ({} if matched else {"z": (pattern,)})


def test_no_files_leave_every_include_pattern_unmatched() -> None:
    assert gaps((), Zone(name="z", paths=("*", "a/**"))) == {"z": ("*", "a/**")}


@pytest.mark.parametrize("seed", range(12))
def test_unmatched_agrees_with_pathspec_on_random_zones_and_files(seed: int) -> None:
    rng = random.Random(seed)
    zones = [random_zone(rng, f"z{i}") for i in range(25)]
    files = tuple({random_path(rng) for _ in range(rng.choice((0, 3, 30, 120)))})
    if seed % 4 == 3:  # a line break in one path: every pattern is asked file by file
        files += ("odd\nname.py",)
    expected = {}
    for zone in zones:
        missing = tuple(
            p
            for p in zone.paths
            if not p.startswith("!") and not any(reference((p,), f) for f in files)
        )
        if missing:
            expected[zone.name] = missing
    assert gaps(files, *zones) == expected

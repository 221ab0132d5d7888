"""Zone matching: the semantics users rely on, and a differential test against plain pathspec."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pathspec
import pydantic
import pytest
from gradgate.bot.config.zone import Zone
from gradgate.bot.plan.zones import ZoneMatcher


def zone(*patterns: str, name: str = "z") -> Zone:
    return Zone(name=name, paths=patterns)


def reference(patterns: tuple[str, ...], path: str) -> bool:
    """The definition: what pathspec's pure backend says for this zone and path."""
    return pathspec.GitIgnoreSpec.from_lines(patterns, backend="simple").match_file(path)


# (patterns, path, in the zone?) -- each row is also checked against pathspec itself.
SEMANTICS = [
    # `dir/**` matches every file below; a later `!dir/sub/` excludes only a *directory* match,
    # and a file match beats it (git does the same): write `!dir/sub/**` to carve out a subtree.
    (("models/**", "!models/experimental/"), "models/gpt.py", True),
    (("models/**", "!models/experimental/"), "models/experimental/new.py", True),
    (("models/**", "!models/experimental/**"), "models/experimental/new.py", False),
    (("models/**", "!models/experimental/**"), "models/experimental_ok.py", True),
    (("models/", "!models/experimental/"), "models/experimental/new.py", False),
    (("models/", "!models/experimental/"), "models/gpt.py", True),
    (("models/", "!models/experimental/"), "src/models/gpt.py", True),  # no inner "/": any depth
    # A trailing slash matches directories only, never a file of that name.
    (("docs/",), "docs", False),
    (("docs/",), "docs/index.md", True),
    (("docs",), "docs", True),
    (("docs",), "a/docs/index.md", True),
    # No slash: any depth. A leading or inner slash: from the root.
    (("*.py",), "setup.py", True),
    (("*.py",), "a/b/c/model.py", True),
    (("*.py",), "model.pyc", False),
    (("*.py",), "old.py/notes.txt", True),  # a directory named like a file
    (("/setup.py",), "setup.py", True),
    (("/setup.py",), "tools/setup.py", False),
    (("src/model.py",), "src/model.py", True),
    (("src/model.py",), "lib/src/model.py", False),
    (("/configs/*.yaml",), "configs/train.yaml", True),
    (("/configs/*.yaml",), "configs/sub/train.yaml", False),
    (("**/checkpoints",), "a/b/checkpoints/last.pt", True),
    (("**/checkpoints/",), "checkpoints", False),
    # `*` stays in one segment, `**` spans any number.
    (("a/*/b",), "a/x/b", True),
    (("a/*/b",), "a/x/y/b", False),
    (("a/**/b",), "a/b", True),
    (("a/**/b",), "a/x/y/b", True),
    (("a/**/b",), "a/x/y/b/c.txt", True),
    (("docs/**/*.md",), "docs/a/b/index.md", True),
    (("docs/**/*.md",), "docs/a/b/index.txt", False),
    # `!` then include, include then `!`: the last matching pattern of the same kind wins.
    (("*.md", "!README.md"), "docs/README.md", False),
    (("!README.md", "*.md"), "docs/README.md", True),
    (("*.md", "!README.md", "docs/README.md"), "docs/README.md", True),
    (("*.py", "!test_*.py"), "tests/test_model.py", False),
    # Dotfiles are ordinary names; `*` matches them.
    (("*",), ".gitignore", True),
    ((".*",), "configs/.env", True),
    ((".*",), "configs/env", False),
    # Spaces, unicode, escapes.
    (("my model.py",), "src/my model.py", True),
    (("modèles/**",), "modèles/réseau.py", True),
    (("\\!important.txt",), "!important.txt", True),
    (("\\#notes.md",), "#notes.md", True),
    # A bracket that pathspec lets match "/" is answered by pathspec itself, faithfully.
    (("foo[!x]bar",), "foo/bar", True),
    (("foo[ab]",), "x/fooa", True),
]


@pytest.mark.parametrize(("patterns", "path", "expected"), SEMANTICS)
def test_zone_semantics_follow_gitignore(
    patterns: tuple[str, ...], path: str, expected: bool
) -> None:
    assert reference(patterns, path) is expected  # the row says what pathspec says
    assert (path in ZoneMatcher.compile([zone(*patterns)]).match([path]).get("z", ())) is expected


def test_match_takes_any_iterable_keeps_input_order_and_drops_duplicates() -> None:
    zones = [zone("src/**", name="code"), zone("*.md", name="docs"), zone("none/", name="none")]

    def changed() -> Iterator[str]:  # a rename is listed under both paths by the caller
        yield from ["src/b.py", "README.md", "src/a.py", "src/b.py", "docs/x.md", "README.md"]

    assert ZoneMatcher.compile(zones).match(changed()) == {
        "code": ("src/b.py", "src/a.py"),
        "docs": ("README.md", "docs/x.md"),
    }
    assert ZoneMatcher.compile(zones).match([]) == {}


@pytest.mark.parametrize(
    "paths",
    [
        ["README.md", "docs/x.md", "src/a.py", "src/b.py"],  # git's order: nothing to drop
        ("README.md", "docs/x.md", "src/a.py", "src/b.py"),
        ["README.md", "docs/x.md", "src/a.py", "src/a.py", "src/b.py"],  # in order, a repeat
        ["README.md", "docs/x.md", "src/a.py", "src/b.py", "README.md"],
    ],
)
def test_sorted_input_and_repeats_give_each_path_once(paths: list[str]) -> None:
    zones = [zone("src/**", name="code"), zone("*.md", name="docs")]
    assert ZoneMatcher.compile(zones).match(paths) == {
        "code": ("src/a.py", "src/b.py"),
        "docs": ("README.md", "docs/x.md"),
    }


ODD = [
    "/src/a.py",
    "./src/a.py",
    "src//a.py",
    "src/",
    "",
    "src\n/a.py",
    "a.py\n",
    "./a.py",
    "/a.py",
]


@pytest.mark.parametrize("path", ODD)
def test_odd_paths_are_answered_as_pathspec_answers_them(path: str) -> None:
    zones = [zone("src/**", name="code"), zone("*.py", "!/a.py", name="py"), zone("a.py", name="a")]
    got = ZoneMatcher.compile(zones).match([path, "src/ok.py"])
    for z in zones:
        assert (path in got.get(z.name, ())) is reference(z.paths, path), z.name


# ---------------------------------------------------------------------------------------------
# Differential test: random zones and paths, the matcher against pathspec, path by path.

# fmt: off
NAMES = [
    "a", "b", "ab", "models", "experimental", "src", "docs", "x.py", "a.py", "b.a", "README.md",
    "README", ".hidden", ".x.py", ".py", "py", "sp ace", "a b.py", "ünï", "ß.md", "data.tar.gz",
    "a+b", "a(1)", "a$b", "!x", "#x", "a.", "..", "checkpoints", "m_cache_1.pt", "test_a.py",
]
GLOBS = [
    "*", "**", "*.py", "*.md", "*.gz", "a*", "*a", "?", "a?", "??", "*b*", "test_*.py", "*_cache_*",
    "[ab]", "[a-c]*", "x.p[yz]", "***", "*.*", "\\!x", "\\#x", "sp\\ ace", "a\\ ",
    "",  # an empty segment: "a//b", "//a"
]
# fmt: on


def random_pattern(rng: random.Random) -> str:
    """`dir/`, `dir/**`, `**/name`, `*.ext`, `/anchored`, `a/*/b`, `a/**/b`, `!`, escapes..."""
    depth = rng.choice((1, 1, 1, 2, 2, 3, 4))
    segments = [rng.choice(NAMES if rng.random() < 0.55 else GLOBS) for _ in range(depth)]
    pattern = "/".join(segments)
    if rng.random() < 0.25:
        pattern = "/" + pattern
    if rng.random() < 0.25:
        pattern += "/"
    if rng.random() < 0.05:
        pattern = rng.choice(("*", "**", "*/", "**/", "*/**", "**/*/**", "/*"))
    return ("!" if rng.random() < 0.3 else "") + pattern


def random_zone(rng: random.Random, name: str) -> Zone:
    while True:
        patterns = [random_pattern(rng) for _ in range(rng.randint(1, 7))]
        if rng.random() < 0.05:
            patterns.append("foo[!x]bar")  # a shape sent to plain pathspec
        try:
            return Zone(name=name, paths=tuple(patterns))
        except pydantic.ValidationError:  # only `!` patterns, a comment, ...: not a zone
            continue


def random_path(rng: random.Random) -> str:
    depth = rng.choice((1, 1, 2, 2, 3, 3, 4, 5, 8, 14))
    return "/".join(rng.choice(NAMES) for _ in range(depth))


@pytest.mark.parametrize("seed", range(10))
def test_matcher_agrees_with_pathspec_on_random_zones_and_paths(seed: int) -> None:
    rng = random.Random(seed)
    zones = [random_zone(rng, f"z{i}") for i in range(30)]
    paths = [random_path(rng) for _ in range(2000)]
    paths += [f"/{paths[0]}", f"./{paths[1]}", f"{paths[2]}/", paths[3].replace("/", "//"), "."]
    matcher = ZoneMatcher.compile(zones)
    got = {name: set(found) for name, found in matcher.match(paths).items()}
    for z in zones:
        spec = pathspec.GitIgnoreSpec.from_lines(z.paths, backend="simple")
        wrong = [p for p in paths if spec.match_file(p) != (p in got.get(z.name, ()))]
        assert not wrong, (z.paths, wrong[:5])
    assert len(matcher.slow) < len(zones) / 4  # the fast path is what this test exercises


# Patterns whose regexes Python's backtracking `re` takes exponential (or high polynomial) time
# on: each row ran for minutes before zone regexes were compiled for linear time.
HOSTILE = [
    (("*a*a*a*a*a*a*a*a*a*b",), "a" * 60, False),
    (("*a*a*a*a*a*a*a*a*a*b",), "x/" + "a" * 60 + "b", True),
    (("x/**/a/**/a/**/a/**/b",), "x/" + "a/" * 300 + "c", False),
    (("[!a]*a*a*a*a*a*a*a*a*b",), "c" + "a" * 60, False),  # a `slow` zone: plain pathspec
    (("*a*a*a*a*a*a*a*a*a*b",), "/" + "a" * 60, False),  # an odd path: plain pathspec too
]


@pytest.mark.timeout(20)
@pytest.mark.parametrize(("patterns", "path", "inside"), HOSTILE)
def test_hostile_patterns_match_in_linear_time(
    patterns: tuple[str, ...], path: str, inside: bool
) -> None:
    matched = ZoneMatcher.compile([zone(*patterns)]).match([path])
    assert bool(matched) is inside

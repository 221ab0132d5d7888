"""Step 1 of the pipeline: the request, and the policy it runs under (the config, read from the
base revision, never from the PR head, unless the PR adopts gradgate; or a `--config` file)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gradgate.bot.config.bounds import (
    MAX_CONFIG_BYTES,
    adopting,
    decode_config,
    read_config_file,
    refuse_entry,
)
from gradgate.bot.config.model import CONFIG_FILENAME, Config, load_config
from gradgate.bot.git.repository import GitRepository
from gradgate.bot.plan.plan import ConfigOrigin
from gradgate.checks.cache.store import Store
from gradgate.checks.errors import GradgateError


@dataclass(frozen=True, slots=True)
class Request:
    repo_path: Path
    base: str  # any commit-ish: "main", a SHA
    head: str
    config_file: Path | None = None  # a config outside the repo (--config)
    only: tuple[str, ...] | None = None
    pr_number: int | None = None
    python: str | None = None  # --python / GRADGATE_PYTHON: runs user code; beats `python:`
    # The door's sandbox mode, used where the config has no `sandbox:` (the Action and the
    # App pass "require" on Linux).
    sandbox_default: Literal["auto", "require"] = "auto"
    # The door's options that change the result, which a CLI report's re-run hint repeats.
    options: tuple[str, ...] = ()
    user_code: bool = True  # False: the PR's code may not run (App mode, untrusted author)
    # The head is a fork's, checked on the trusted side (the Action's publishing workflow,
    # issue 17): its `.gradgate.yml` is never adopted (no config at base: the built-in one),
    # and model code runs only under bubblewrap, whatever the config says.
    untrusted_head: bool = False
    # Where per-revision results are cached (checks.cache.store), None: no cache; the config's
    # `cache: false` turns it off too. ``fork_pr``: the head is that fork PR's (from another
    # repository), so its results are kept to that PR (docs/caching.md).
    cache: Store | None = None
    fork_pr: int | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    config: Config
    origin: ConfigOrigin
    text: str
    source: str  # in words, for messages and the report footer


def read_policy(repo: GitRepository, request: Request, base_sha: str, head_sha: str) -> Policy:
    """Step 1: the config comes from the base revision, never from the PR head (unless adopting).

    Bounded before it is parsed (bot.config.bounds): size, file kind, encoding."""
    if request.config_file is not None:
        text = read_config_file(request.config_file)
        config = load_config(text, source=str(request.config_file))  # errors: the path as given
        return Policy(config, ConfigOrigin.FILE, text, config_label(request.config_file, repo.root))
    # A fork's config decides nothing on the trusted side: without one at base, the built-in.
    revisions = ((ConfigOrigin.BASE, base_sha), (ConfigOrigin.HEAD, head_sha))
    for origin, sha in revisions[:1] if request.untrusted_head else revisions:
        entry = repo.entry(sha, CONFIG_FILENAME)
        if entry is not None:
            source = f"{CONFIG_FILENAME} at {origin} {sha[:7]}"
            refuse_entry(*entry, source)
            raw = repo.read(sha, CONFIG_FILENAME) or b""
            policy = _policy(decode_config(raw, source), origin, source)
            if origin is ConfigOrigin.HEAD:  # adopting: the PR's config, the built-in floor kept
                return Policy(adopting(policy.config), origin, policy.text, source)
            return policy
    return Policy(Config(), ConfigOrigin.DEFAULT, "", "built-in defaults")


def config_label(path: Path, root: Path) -> str:
    """A `--config` file in words for messages and the footer: its path in the repository, or
    only its name when it lies outside (never an absolute path of the machine that ran it)."""
    resolved = path.resolve()
    if resolved.is_relative_to(root.resolve()):
        return f"--config {resolved.relative_to(root.resolve()).as_posix()}"
    return f"--config {path.name}, outside the repository"


def _policy(text: str, origin: ConfigOrigin, source: str) -> Policy:
    return Policy(load_config(text, source=source), origin, text, source)


def uncommitted_config(repo: GitRepository, head_sha: str) -> bool:
    """Whether the work tree holds a .gradgate.yml that differs from the head commit's (or that
    the head commit lacks: right after `gradgate init`), when the head is what is checked out.

    Such a file was not read: the policy comes from commits (base, else head), never the work
    tree, so that what a run checked can be named by SHAs."""
    path = repo.root / CONFIG_FILENAME
    try:
        if not path.is_file() or repo.resolve("HEAD") != head_sha:
            return False
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return True
        return repo.read(head_sha, CONFIG_FILENAME) != path.read_bytes()
    except (OSError, GradgateError):  # unreadable, or no HEAD (a bare mirror): nothing to say
        return False

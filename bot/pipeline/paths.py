"""Steps 1-3 of a plain `gradgate plan` (the config, the diff's paths, their zones), done while
git works: the planner's own time is what it adds to git's.

git spends most of a 100,000-file diff's time before it writes anything. Meanwhile, in this one
thread: read and compile the config; read git's listing of the files at head a batch at a time
(another git, which waits while a batch is worked on, leaving the diff a core), working out
what decides for each directory in it (most paths of a diff are in those directories). Then
each batch of paths git writes is matched while git writes the next, and a forked copy of this
process (bot.pipeline.aside), on the core git leaves free, reads the rest of the listing and
asks the zone patterns about it (bot.plan.unmatched); where no copy can be made, this thread
does that last.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from gradgate.bot.config.model import Config
from gradgate.bot.config.zone import Zone
from gradgate.bot.git.cmdline import Pending
from gradgate.bot.git.repository import GitRepository
from gradgate.bot.pipeline.aside import aside
from gradgate.bot.pipeline.policy import Policy, Request, read_policy
from gradgate.bot.plan.unmatched import Tracked, unmatched
from gradgate.bot.plan.zones import ZoneMatcher

Progress = Callable[[str], None]


class DiffPaths(NamedTuple):
    policy: Policy
    paths: list[str]  # every path the diff touches (a rename under both)
    files: int
    zones: dict[str, tuple[str, ...]]  # zone -> the paths in it
    gaps: dict[str, tuple[str, ...]]  # zone -> its include patterns matching no file at head


def read_while_git_works(
    repo: GitRepository, request: Request, base_sha: str, head_sha: str, progress: Progress
) -> DiffPaths:
    with (
        _collector_deferred(),
        repo.changed_paths(base_sha, head_sha) as diff,
        repo.listing(head_sha) as listing,
    ):
        policy = read_policy(repo, request, base_sha, head_sha)  # 1 config
        zones = policy.config.zones
        if not zones:  # nothing to match, and no pattern to ask about the files at head
            progress("reading the diff")
            paths, files = diff()  # 2 diff
            return DiffPaths(policy, paths, files, {}, {})
        matcher, tracked = ZoneMatcher.compile(zones), Tracked()
        # The listing until git writes the diff (most of a large diff's time is git's). Then a
        # copy of this process on another core (bot.pipeline.aside) reads the rest of it and
        # asks the zone patterns about it while this one matches the diff as git writes it;
        # where there is no copy, that is done here afterwards.
        _take(listing, tracked, matcher, diff.ready)
        with aside(lambda: _rest(zones, listing, tracked)) as rest:
            read = _matched(diff, matcher, progress)  # 2 diff, 3 zones
            answer = rest.result() if rest else None
        if rest is None:
            _take(listing, tracked, None, _never)
            gaps = unmatched(zones, tracked)
        else:  # the copy read git's listing: here, only to its end, for git's exit status
            _take(listing, Tracked(), None, _never)
            gaps = zone_gaps(policy.config, repo, head_sha) if answer is None else answer
    return DiffPaths(policy, *read, gaps)


def _matched(
    diff: Pending, matcher: ZoneMatcher, progress: Progress
) -> tuple[list[str], int, dict[str, tuple[str, ...]]]:
    """The diff's paths, its file count and the paths' zones: each batch matched as git writes."""
    progress("reading the diff")
    matching = matcher.matching()
    paths, files = diff(matching.add)
    return paths, files, matching.done(paths)


def _rest(
    zones: Sequence[Zone], listing: Iterator[str], tracked: Tracked
) -> dict[str, tuple[str, ...]]:
    """The copy's work: what `unmatched` says once ``tracked`` has the rest of git's ``listing``."""
    _take(listing, tracked, None, _never)
    return unmatched(zones, tracked)


def _never() -> bool:
    return False


@contextlib.contextmanager
def _collector_deferred() -> Iterator[None]:
    """Python's cycle collector kept off the plan's own objects.

    A 100,000-file plan makes ~30,000 objects it tracks (memo tables) among ~500,000 it does not
    (paths and their parts); the collector ran ~10 times per plan, each time walking the lists
    of every path again, and now and then the whole heap (150 ms). Paused while the plan reads,
    then what is tracked goes straight to the oldest generation, as the plan's tables live until
    the plan is made (`freeze` and `unfreeze`: moved, not walked); a cycle among them waits for
    the next full collection. Not where someone else froze objects: unfreezing would undo that.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _take(
    listing: Iterator[str], tracked: Tracked, matcher: ZoneMatcher | None, stop: Callable[[], bool]
) -> bool:
    """Feed ``tracked`` the rest of git's ``listing``, warming ``matcher`` for each batch's
    directories, until the listing ends (True) or ``stop()`` (False)."""
    warmed = len(tracked.directories)
    for text in listing:
        tracked.feed(text)
        if stop():
            return False
        if matcher is not None:
            matcher.warm(tracked.directories[warmed:])
            warmed = len(tracked.directories)
    return True


def zone_gaps(config: Config, repo: GitRepository, head_sha: str) -> dict[str, tuple[str, ...]]:
    """The zone patterns that match no file at head (bot.plan.unmatched); none without zones
    (and git's listing is then not read)."""
    if not config.zones:
        return {}
    tracked = Tracked()
    with repo.listing(head_sha) as listing:
        _take(listing, tracked, None, _never)
    return unmatched(config.zones, tracked)

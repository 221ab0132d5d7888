"""Which result cache a gate gets: none without a store or with `cache: false`; a fork's own
scope for a fork's head (the Action's --fork-pr, --untrusted-head, the App's untrusted author),
so what its code computed is never another PR's."""

from __future__ import annotations

from pathlib import Path

from gradgate.bot.config.model import load_config
from gradgate.bot.pipeline import Request, result_cache
from gradgate.checks.cache.store import FolderStore

ON = load_config("version: 1\n", source=".gradgate.yml")
OFF = load_config("version: 1\ncache: false\n", source=".gradgate.yml")


def test_the_scope_follows_the_heads_trust(tmp_path: Path) -> None:
    store = FolderStore(tmp_path)
    plain = Request(repo_path=tmp_path, base="main", head="pr", cache=store)
    assert result_cache(Request(repo_path=tmp_path, base="main", head="pr"), ON) is None
    assert result_cache(plain, OFF) is None
    trusted = result_cache(plain, ON)
    assert trusted is not None and trusted.scope == "trusted"
    fork = result_cache(Request(repo_path=tmp_path, base="main", head="pr", cache=store,
                                fork_pr=12), ON)  # fmt: skip
    assert fork is not None and fork.scope == "fork-12"
    untrusted = result_cache(Request(repo_path=tmp_path, base="main", head="pr", cache=store,
                                     pr_number=5, untrusted_head=True), ON)  # fmt: skip
    assert untrusted is not None and untrusted.scope == "fork-5"

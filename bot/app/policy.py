"""What a worker reads from the base branch before it decides anything: `trust.confirm_s`.

Read from the base only (never the PR's head, not even when the base has no config yet), so a
pull request cannot shorten its own wait. A base config that cannot be read gives the default:
the wait is a safety margin, and the default is the careful value.
"""

from __future__ import annotations

from gradgate.bot.app.decide import ConfirmS
from gradgate.bot.app.forge import Forge
from gradgate.bot.app.jobs import PullRequest
from gradgate.bot.config.bounds import MAX_CONFIG_BYTES, decode_config
from gradgate.bot.config.model import CONFIG_FILENAME, TrustConfig, load_config
from gradgate.bot.git.mirror import Mirrors
from gradgate.bot.github.identifiers import is_branch
from gradgate.checks.errors import GradgateError

DEFAULT_CONFIRM_S = float(TrustConfig().confirm_s)


def confirm_s(mirrors: Mirrors, forge: Forge, pr: PullRequest) -> ConfirmS:
    def read(base: str) -> float:
        if not is_branch(base):
            return DEFAULT_CONFIRM_S
        token = forge.fetch_token(pr)
        raw = mirrors.read_branch_file(
            pr.repo, pr.clone_url, base, CONFIG_FILENAME, token=token, limit=MAX_CONFIG_BYTES
        )
        if raw is None:
            return DEFAULT_CONFIRM_S
        source = f"{CONFIG_FILENAME} at base {base}"
        try:
            return float(load_config(decode_config(raw, source), source=source).trust.confirm_s)
        except GradgateError:
            return DEFAULT_CONFIRM_S

    return read

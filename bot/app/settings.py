"""The App's settings: from the environment (GRADGATE_*), overridable on the command line.

Secrets are read from files or the environment, never from the command line, where any user of
the machine could read them in the process list.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gradgate.checks.errors import UsageError

DEFAULT_API = "https://api.github.com"


@dataclass(frozen=True, slots=True)
class AppSettings:
    data_dir: Path  # the SQLite queue, the mirrors and the per-job worktrees
    redis_url: str | None = None  # workers on several machines share this Redis
    webhook_secret: bytes = b""
    app_id: str | None = None
    private_key: str | None = None  # PEM
    app_slug: str = "gradgate"  # the App's URL name: it comments as `<slug>[bot]`
    api_url: str = DEFAULT_API
    mirror_budget_mb: int = 20_000  # mirrors beyond this are removed, least recently used first
    # A job whose worker stops renewing its lease this long is run again elsewhere: a killed
    # worker's job waits about this long (GRADGATE_LEASE_S).
    lease_s: float = 30.0
    # Where gradgate's docs/ folder can be read (GRADGATE_DOCS_URL, e.g. the tree of the
    # version you run on your GitHub): the report links each finding's check page under it.
    docs_url: str | None = None

    @property
    def queue_db(self) -> Path:
        return self.data_dir / "queue.db"

    @property
    def bot_login(self) -> str:
        """Whose comments are the App's (the sticky comment is found by it and the marker)."""
        return f"{self.app_slug}[bot]"


def _read_secret(env: Mapping[str, str], name: str) -> str | None:
    """``NAME`` itself, or the contents of the file ``NAME_FILE`` names."""
    if env.get(name):
        return env[name]
    path = env.get(f"{name}_FILE")
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise UsageError(f"cannot read {name}_FILE ({path}): {exc.strerror}") from exc


def from_env(env: Mapping[str, str] = os.environ, *, data_dir: Path | None = None) -> AppSettings:
    secret = _read_secret(env, "GRADGATE_WEBHOOK_SECRET")
    budget = env.get("GRADGATE_MIRROR_BUDGET_MB", "20000")
    if not budget.isdigit():
        raise UsageError(f"GRADGATE_MIRROR_BUDGET_MB must be a whole number of MB, not {budget!r}")
    lease = env.get("GRADGATE_LEASE_S", "30")
    try:
        lease_s = float(lease)
    except ValueError:
        lease_s = 0.0
    if not 0.5 <= lease_s <= 3600:
        raise UsageError(f"GRADGATE_LEASE_S must be seconds between 0.5 and 3600, not {lease!r}")
    return AppSettings(
        data_dir=data_dir or Path(env.get("GRADGATE_DATA_DIR", "gradgate-data")),
        redis_url=env.get("GRADGATE_REDIS_URL") or None,
        webhook_secret=(secret or "").encode("utf-8"),
        app_id=env.get("GRADGATE_APP_ID") or None,
        private_key=_read_secret(env, "GRADGATE_APP_PRIVATE_KEY"),
        app_slug=env.get("GRADGATE_APP_SLUG") or "gradgate",
        api_url=env.get("GITHUB_API_URL") or DEFAULT_API,
        mirror_budget_mb=int(budget),
        lease_s=lease_s,
        docs_url=_docs_url(env.get("GRADGATE_DOCS_URL") or None),
    )


def _docs_url(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.startswith(("https://", "http://")) or any(c.isspace() for c in value):
        raise UsageError(f"GRADGATE_DOCS_URL must be an http(s) URL, not {value!r}")
    return value.rstrip("/")


def require_secret(settings: AppSettings) -> None:
    """The server refuses to start without a webhook secret: unsigned webhooks are anyone's."""
    if len(settings.webhook_secret) < 16:
        raise UsageError(
            "set GRADGATE_WEBHOOK_SECRET (or GRADGATE_WEBHOOK_SECRET_FILE) to the App's webhook "
            "secret, at least 16 characters; gradgate will not accept unsigned webhooks"
        )


def require_app_credentials(settings: AppSettings) -> None:
    if not settings.app_id or not settings.private_key:
        raise UsageError(
            "workers need the App's id and private key: set GRADGATE_APP_ID and "
            "GRADGATE_APP_PRIVATE_KEY_FILE (the .pem GitHub gave you)"
        )

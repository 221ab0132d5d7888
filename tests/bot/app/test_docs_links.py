"""The App's report links each finding's check page under GRADGATE_DOCS_URL (issue 19, point
6), and links none where it is unset. A real signed delivery, a worker, the fake GitHub."""

from __future__ import annotations

import pytest
from gradgate.bot.app.settings import from_env
from gradgate.checks.errors import UsageError

from tests.bot.app.world import EDITED, AppWorld

DOCS = "https://github.com/acme/gradgate/blob/v1.2.0/docs"


@pytest.mark.parametrize("settings", [{"docs_url": DOCS}, {"docs_url": None}], indirect=True)
def test_a_findings_check_links_its_page_where_the_docs_are_set(world: AppWorld) -> None:
    world.push(EDITED)  # a `# NO_REFAC` line: a `protected` finding
    world.deliver_push()
    world.drain()
    [comment] = world.report_comments()
    assert "train.py:1" in comment
    linked = f"[`protected`]({DOCS}/checks/protected.md)" in comment
    assert linked is (world.settings.docs_url is not None)
    assert world.settings.docs_url is not None or "docs/checks/" not in comment


def test_the_docs_url_setting_is_an_http_url() -> None:
    env = {"GRADGATE_WEBHOOK_SECRET": "s" * 32}
    assert from_env(env).docs_url is None
    assert from_env({**env, "GRADGATE_DOCS_URL": DOCS + "/"}).docs_url == DOCS
    with pytest.raises(UsageError, match="GRADGATE_DOCS_URL"):
        from_env({**env, "GRADGATE_DOCS_URL": "javascript:alert(1)"})

"""The Action's report links each finding's check page in gradgate's docs at the action's own
commit (issue 19, point 6): `{server}/{action repository}/blob/{action ref}/docs/checks/...`."""

from __future__ import annotations

import pytest

from tests.bot.doors.action.world import NUMBER, REPO, TRAIN, World

EDITED = TRAIN.replace("runs/v3", "runs/v4")  # a `# NO_REFAC` line: a `protected` finding
REF = "0123456789abcdef" * 2 + "01234567"


def test_a_findings_check_links_its_page_at_the_actions_commit(world: World) -> None:
    world.env.update(GRADGATE_ACTION_REPOSITORY="acme/gradgate", GRADGATE_ACTION_REF=REF)
    world.push(EDITED, "edit a protected line")

    assert world.pull_request() == 1

    (body,) = world.report_comments()
    page = f"https://github.com/acme/gradgate/blob/{REF}/docs/checks/protected.md"
    assert f"[`protected`]({page})" in body
    assert (world.tmp / "summary.md").read_text(encoding="utf-8").count(page) == 1


@pytest.mark.parametrize("ref", ["", "../../evil"])
def test_no_link_where_the_action_does_not_say_where_it_comes_from(world: World, ref: str) -> None:
    world.env.update(GRADGATE_ACTION_REPOSITORY="acme/gradgate", GRADGATE_ACTION_REF=ref)
    world.push(EDITED, "edit a protected line")

    assert world.pull_request() == 1

    (body,) = world.report_comments()
    assert "docs/checks/" not in body and "train.py:1" in body
    assert world.github.comments(REPO, NUMBER)

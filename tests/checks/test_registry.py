"""The registry lists each check without loading it (tests/bot/pipeline/test_plan.py: planning
loads none); what it says of a check is what the check says of itself."""

from __future__ import annotations

import pytest
from gradgate.checks import REGISTRY, Listed


@pytest.mark.parametrize("listed", REGISTRY.values(), ids=list(REGISTRY))
def test_an_entry_says_what_its_check_says(listed: Listed) -> None:
    check = listed.check
    assert (check.name, check.title) == (listed.name, listed.title)
    assert check.settings_model is listed.settings_model
    assert (check.runs_user_code, check.available) == (listed.runs_user_code, listed.available)
    assert getattr(check, "runs_without_user_code", False) is listed.runs_without_user_code

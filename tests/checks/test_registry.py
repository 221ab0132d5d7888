"""The registry lists each check without loading it: what it says of a check is what the check
says of itself, and planning loads no check's implementation."""

from __future__ import annotations

import subprocess
import sys

import pytest
from gradgate.checks import REGISTRY, Listed


@pytest.mark.parametrize("listed", REGISTRY.values(), ids=list(REGISTRY))
def test_an_entry_says_what_its_check_says(listed: Listed) -> None:
    check = listed.check
    assert (check.name, check.title) == (listed.name, listed.title)
    assert check.settings_model is listed.settings_model
    assert (check.runs_user_code, check.available) == (listed.runs_user_code, listed.available)
    assert getattr(check, "runs_without_user_code", False) is listed.runs_without_user_code


# Validates a config naming every check's settings, and plans a change in every zone.
PLAN = """
import sys
from gradgate.bot.config.model import load_config
from gradgate.bot.plan.plan import make_plan
from gradgate.checks import REGISTRY

names = list(REGISTRY)
config = load_config(
    "zones:\\n  - name: all\\n    paths: ['**']\\n    checks: [" + ", ".join(names) + "]\\n"
    "checks:\\n" + "".join(f"  {name}: {{timeout_s: 30}}\\n" for name in names)
)
plan = make_plan(config, ["a.py"], changed_files=1, config_origin="base")
assert [c.name for c in plan.checks if c.run] == names
loaded = sorted({m.rsplit(".", 1)[0] for m in sys.modules if m.endswith(".check")})
print(" ".join(m for m in loaded if m.startswith("gradgate.checks.")))
"""


def test_planning_loads_no_checks_implementation() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PLAN], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""

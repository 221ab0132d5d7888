"""`gradgate plan --format github-matrix`: the plan as GitHub Actions job outputs (pure).

Appended to ``$GITHUB_OUTPUT``, it gives a workflow three outputs:

  matrix  {"include": [{"check": "protected", "runs_on": ["ubuntu-latest"]}, ...]}: one job per
          check to run, on the runner labels `runners:` in .gradgate.yml names for it (the
          gradient check on a self-hosted GPU runner, the rest on hosted ones)
  run     "true" when at least one job is needed (GitHub rejects an empty matrix)
  checks  the names, space-separated, for logs and conditions

A check the plan runs but this version of gradgate cannot (``available`` false) gets no job: its
result is "unavailable" wherever the report is made, an error, never a pass.
"""

from __future__ import annotations

import json

from gradgate.bot.config.model import Config
from gradgate.bot.plan.plan import Plan


def github_matrix(plan: Plan, config: Config) -> str:
    jobs = [c for c in plan.to_run if c.available]
    matrix = {
        "include": [{"check": c.name, "runs_on": list(config.runner_for(c.name))} for c in jobs]
    }
    return (
        f"matrix={json.dumps(matrix, separators=(',', ':'))}\n"
        f"run={'true' if jobs else 'false'}\n"
        f"checks={' '.join(c.name for c in jobs)}\n"
    )

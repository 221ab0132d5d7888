"""`gradgate action`: the GitHub Action's door. It reads what GitHub Actions puts in the
environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_TOKEN, GITHUB_API_URL,
GITHUB_REPOSITORY...) and does one stage of the work:

  all      pull_request: plan, pending statuses, the checks in a child process without
           credentials, then the comment, the final statuses and the job summary
  plan     pull_request: the plan as job outputs and a plan record, for a fan-out workflow
  check    pull_request: one check (--check) in a child without credentials -> its JSON result
  publish  pull_request: the plan record and results in --results -> published

The trusted side of the fork-safe pair (gradgate-publish.yml, on workflow_run, issue_comment and
pull_request_target `labeled`) has its own `gate`, `check` and `publish` stages (``trusted``):
a fork's upload never decides.

An `issue_comment` event is a possible `/recheck`, whatever the stage: it only calls the API and
never checks out or runs the PR's code. The door translates; the decisions are in bot.github.

settings.py    the environment and the command line -> Settings; the client; log lines
stages.py      each stage of a pull_request run, and run_action, which picks one for the event
trusted.py     the trusted side's stages: gate, check, publish (issue 17)
approvals.py   what approves a fork's head there: `/ok-to-test <sha>`, the `ok-to-test` label
files.py       the results directory's JSON files and the step's outputs
publishing.py  a report -> the comment, the statuses and the job summary
"""

from gradgate.bot.doors.action.settings import Settings
from gradgate.bot.doors.action.stages import run_action

__all__ = ["Settings", "run_action"]

"""`gradgate action`: the GitHub Action's door. It reads what GitHub Actions puts in the
environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_TOKEN, GITHUB_API_URL,
GITHUB_REPOSITORY...) and does one stage of the work:

  all      pull_request: plan, pending statuses, the checks in a child process without
           credentials, then the comment, the final statuses and the job summary
  plan     pull_request: the plan as job outputs and a plan record, for a fan-out workflow
  check    pull_request: one check (--check) in a child without credentials -> its JSON result
  publish  pull_request or workflow_run: the plan record and results in --results -> published

An `issue_comment` event is a possible `/recheck`, whatever the stage: it only calls the API and
never checks out or runs the PR's code. The door translates; the decisions are in bot.github.

settings.py    the environment and the command line -> Settings; the client; log lines
stages.py      each stage, and run_action, which picks one for the event
publishing.py  a report -> the comment, the statuses and the job summary
"""

from gradgate.bot.doors.action.settings import Settings
from gradgate.bot.doors.action.stages import run_action

__all__ = ["Settings", "run_action"]

"""Issue 20: every blocking checkpoint finding points at the PR's line and says how to accept
it as intended, with config to paste that reads back as the setting."""

from __future__ import annotations

import yaml
from gradgate.bot.config.model import load_config
from gradgate.checks.base import Outcome, Severity
from gradgate.checks.checkpoint.settings import CheckpointSettings

from tests.checks.checkpoint.scenario import MODEL, only, run
from tests.gitrepo import GitRepo

NO_BIAS = MODEL.replace("nn.Linear(16, 4)", "nn.Linear(16, 4, bias=False)")


def pasted(details: str | None) -> CheckpointSettings:
    assert details is not None
    settings = load_config(yaml.safe_dump({"always": []}) + details).settings_for("checkpoint")
    assert isinstance(settings, CheckpointSettings)
    return settings


def test_a_bias_turned_back_on_points_at_its_line_and_prints_the_allow_rule(
    repo: GitRepo,
) -> None:
    result = run(repo, base={"model.py": NO_BIAS}, head={"model.py": MODEL})
    assert result.outcome is Outcome.FAIL
    finding = only(result, "checkpoint-missing-keys")
    assert finding.severity is Severity.BLOCKING
    assert "`fc.bias`" in finding.message
    line = 1 + MODEL.splitlines().index("        self.fc = nn.Linear(16, 4)")
    assert (finding.file, finding.line) == ("model.py", line)
    assert "it points at the line this PR changed that makes it" in finding.message
    assert "paste the `allow` rule in the details" in finding.message
    assert "the rule counts only from the base branch: merge it there first" in finding.message
    (rule,) = pasted(finding.details).allow
    assert rule.keys == r"^fc\.bias$"


def test_an_allow_rule_turns_the_intended_break_into_a_note_with_its_reason(
    repo: GitRepo,
) -> None:
    allow = [{"keys": r"\.bias$", "reason": "biases are back on"}]
    result = run(
        repo, base={"model.py": NO_BIAS}, head={"model.py": MODEL}, settings={"allow": allow}
    )
    assert result.outcome is Outcome.PASS, result.findings
    finding = only(result, "checkpoint-missing-keys")
    assert finding.severity is Severity.NOTE
    assert finding.message.startswith("Allowed by the config (biases are back on): ")
    # Listed in the report as a suppression from the config, at the finding's line (issue 34).
    (suppression,) = result.suppressions
    assert (suppression.rule, suppression.origin, suppression.reason) == (
        r"allow: \.bias$",
        "config",
        "biases are back on",
    )
    assert (suppression.file, suppression.line) == (finding.file, finding.line)


def test_a_removed_layer_points_into_its_class_and_prints_a_null_migration(
    repo: GitRepo,
) -> None:
    result = run(repo, base={"model.py": MODEL}, head={"model.py": NO_BIAS})
    finding = only(result, "checkpoint-unexpected-keys")
    assert finding.severity is Severity.BLOCKING
    line = 1 + NO_BIAS.splitlines().index("        self.fc = nn.Linear(16, 4, bias=False)")
    assert (finding.file, finding.line) == ("model.py", line)
    assert pasted(finding.details).rules == [(r"^fc\.bias$", None)]

"""Ask the gate's running model children for the plan's facts, and compare them.

The I/O edge of the plan: once the checks are done, each revision's child that answered a
model check (``ModelSessions.again``) is asked for ``child.facts``; no child is started for
it, so a gate whose model checks did not run (or ran only in fresh children: perf, metrics)
has no plan. A revision that fails to answer is a problem of the plan, never of the gate.
"""

from __future__ import annotations

from gradgate.checks.errors import GradgateError
from gradgate.checks.model.plan.compare import ModelFacts, ModelPlan, PlanProblem, plan_for
from gradgate.checks.model.session import REVISIONS, ModelSessions

PROGRAM = "model.plan.child:facts"
TIMEOUT_S = 120.0  # the model is built twice and run once: far less than any check's work


def model_plan(sessions: ModelSessions, *, timeout_s: float = TIMEOUT_S) -> ModelPlan | None:
    """The plan of the gate's model at base and head; None when a revision has no running
    child to ask."""
    facts: dict[str, list[ModelFacts]] = {}
    problems = []
    for revision in REVISIONS:
        try:
            value = sessions.again(revision, program=PROGRAM, timeout_s=timeout_s)
            if value is None:
                return None
            facts[revision] = [ModelFacts.from_json(v) for v in value["variants"]]
        except GradgateError as exc:
            problems.append(PlanProblem(revision, str(exc).partition("\n")[0]))
        except (KeyError, TypeError, ValueError) as exc:  # not the shape the program sends
            problems.append(PlanProblem(revision, f"unreadable facts ({type(exc).__name__})"))
    if problems:
        return ModelPlan(problems=tuple(problems))
    return plan_for(facts["base"], facts["head"])

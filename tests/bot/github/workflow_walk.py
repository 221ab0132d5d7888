"""Walk a GitHub Actions workflow job by job for one event, as GitHub would run it: which jobs
run, on which runner, with which token permissions, checking out what, and whether the gradgate
action's step is handed the token (action.yml's `GITHUB_TOKEN` expression).

A small evaluator for the `${{ }}` expressions the generated workflows and action.yml use, after
GitHub's "Evaluate expressions in workflows and actions": contexts (a missing property is
null), literals, `==`, `!=`, `!`, `&&`, `||` (which return an operand, as in Python), and the
functions contains(), fromJSON(), always(), cancelled(), success(). Anything else fails loudly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[3]
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_LITERALS = {"true": "True", "false": "False", "null": "None"}
_ALLOWED = re.compile(r"^[\w\s.=!&|(),\[\]-]*$")


class _Ctx:
    """A context: attribute access into dicts; a missing property is null (None)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __getattr__(self, name: str) -> Any:
        if isinstance(self.value, dict) and name in self.value:
            return _wrap(self.value[name])
        return _Ctx(None)  # null, whose properties are null too

    def __bool__(self) -> bool:
        return bool(self.value)

    def __eq__(self, other: object) -> bool:
        return bool(self.value == _unwrap(other))

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]


def _wrap(value: Any) -> Any:
    return _Ctx(value) if isinstance(value, dict) or value is None else value


def _unwrap(value: Any) -> Any:
    return value.value if isinstance(value, _Ctx) else value


def _contains(haystack: Any, needle: Any) -> bool:
    haystack, needle = _unwrap(haystack), _unwrap(needle)
    if isinstance(haystack, list):
        return needle in haystack
    return str(needle).lower() in str(haystack or "").lower()


def evaluate(expression: str, contexts: dict[str, Any]) -> Any:
    text = expression.strip()
    parts = re.split(r"('[^']*')", text)  # string literals (odd parts) stay as they are
    for i in range(0, len(parts), 2):
        if not _ALLOWED.match(parts[i]):
            raise ValueError(f"the walker cannot read {text!r}")
        code = parts[i].replace("&&", " and ").replace("||", " or ")
        code = re.sub(r"!(?!=)", " not ", code)
        parts[i] = re.sub(r"\b(true|false|null)\b", lambda m: _LITERALS[m[1]], code)
    python = "".join(parts)
    names: dict[str, Any] = {k: _wrap(v) for k, v in contexts.items()}
    names |= {
        "contains": _contains,
        "fromJSON": lambda s: json.loads(_unwrap(s)),
        "always": lambda: True,
        "cancelled": lambda: False,
        "success": lambda: True,
    }
    return _unwrap(eval(python, {"__builtins__": {}}, names))  # our own workflow files only


def value(raw: Any, contexts: dict[str, Any]) -> Any:
    """A YAML value: one whole `${{ }}` is its value; expressions inside text are substituted."""
    if not isinstance(raw, str):
        return raw
    whole = _EXPR.fullmatch(raw.strip())
    if whole:
        return evaluate(whole[1], contexts)
    return _EXPR.sub(lambda m: str(evaluate(m[1], contexts) or ""), raw)


def condition(raw: Any, contexts: dict[str, Any]) -> bool:
    if raw is None:
        return True
    text = raw.strip() if isinstance(raw, str) else raw
    whole = _EXPR.fullmatch(text) if isinstance(text, str) else None
    return bool(evaluate(whole[1] if whole else str(text), contexts))


@dataclass
class Step:
    uses: str | None
    with_: dict[str, Any]
    token: bool | None  # the gradgate action's step: is GITHUB_TOKEN set? None: not gradgate


@dataclass
class JobRun:
    job: str
    runs_on: Any
    permissions: dict[str, str]
    matrix: dict[str, Any] | None
    steps: list[Step] = field(default_factory=list)

    @property
    def checkouts(self) -> list[dict[str, Any]]:
        return [s.with_ for s in self.steps if s.uses and s.uses.startswith("actions/checkout@")]


def walk(
    workflow: dict[str, Any],
    contexts: dict[str, Any],
    outputs: dict[str, dict[str, str]],
    *,
    action: str,
) -> list[JobRun]:
    """The jobs that run, in order; ``outputs``: each job's outputs, as a real run gave them."""
    ran: dict[str, bool] = {}
    runs: list[JobRun] = []
    for name, job in workflow["jobs"].items():
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        ctx_needs = {
            n: {"outputs": outputs.get(n, {}), "result": "success" if ran[n] else "skipped"}
            for n in needs
        }
        contexts = {**contexts, "needs": ctx_needs}
        status_aware = any(f in str(job.get("if", "")) for f in ("always()", "cancelled()"))
        if any(not ran[n] for n in needs) and not status_aware:
            ran[name] = False
            continue
        ran[name] = condition(job.get("if"), contexts)
        if not ran[name]:
            continue
        matrix = job.get("strategy", {}).get("matrix")
        entries = value(matrix, contexts)["include"] if matrix is not None else [None]
        if not entries:  # GitHub fails an empty matrix; the workflows never ask for one
            ran[name] = False
            continue
        for entry in entries:
            here = {**contexts, "matrix": entry or {}}
            permissions = job.get("permissions", workflow.get("permissions", {}))
            run = JobRun(name, value(job["runs-on"], here), permissions, entry)
            here["runner"] = {"os": "Linux"}  # the runner context exists once the job has one
            for step in job["steps"]:
                if not condition(step.get("if"), {**here, "steps": {}}):
                    continue
                with_ = {k: value(v, here) for k, v in step.get("with", {}).items()}
                token = _action_token(with_, here) if step.get("uses") == action else None
                run.steps.append(Step(step.get("uses"), with_, token))
            runs.append(run)
    return runs


def _action_token(with_: dict[str, Any], contexts: dict[str, Any]) -> bool:
    """Whether action.yml hands this step of the gradgate action the token."""
    spec = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    inputs = {k: v.get("default", "") for k, v in spec["inputs"].items()} | with_
    inputs["token"] = inputs["token"] if inputs.get("token") else "ghs_the_job_token"
    (step,) = [s for s in spec["runs"]["steps"] if s.get("id") == "gradgate"]
    return bool(value(step["env"]["GITHUB_TOKEN"], {**contexts, "inputs": inputs}))

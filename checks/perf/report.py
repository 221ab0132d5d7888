"""Pure: the perf check's judged measures -> findings, summary, and the report's rows and chart.

The findings' words are here (a check cannot import the bot); the table and the Mermaid chart
of the modules that slowed are drawn by bot/templates/check_perf.* from ``extra``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gradgate.checks.base import CheckResult, Finding, Outcome, Severity, finish
from gradgate.checks.perf.compare import Timing
from gradgate.checks.perf.modules import ModuleTime
from gradgate.checks.perf.settings import PerfSettings

TIMED = ("train", "infer")  # the measures timed in seconds; "memory" is in bytes
WORDS = {"train": "training step", "infer": "inference", "memory": "peak memory"}
_MB = 1e6


def result_for(
    timings: tuple[Timing, ...],
    facts: Mapping[str, Mapping[str, Any]],
    settings: PerfSettings,
    *,
    modules: tuple[ModuleTime, ...] = (),
    unmeasured: Mapping[str, str] | None = None,
) -> CheckResult:
    """``facts``: each revision's last child's answer (device, clock, batch, step, memory);
    ``unmeasured``: revision -> why its peak memory could not be counted (not judged then)."""
    batch = {side: (facts.get(side) or {}).get("batch") for side in ("base", "head")}
    found = [_finding(t, settings, _throughput(t, batch)) for t in timings]
    for revision, why in (unmeasured or {}).items():
        message = (
            f"peak memory could not be counted at {revision} ({why}), so "
            "`max_memory_growth` was not applied; step time was judged as usual"
        )
        found.append(
            Finding("perf-memory-unmeasured", Severity.WARNING, message, revision=revision)
        )
    noisy_error = settings.strict and any(t.verdict == "noisy" for t in timings)
    head = facts.get("head") or facts.get("base") or {}
    summary = ", ".join(f"{WORDS[t.name]} {t.ratio:.2f}×" for t in timings)
    return finish(
        "perf",
        found,
        f"{summary} base on {head.get('device', '?')} ({settings.rounds} rounds)",
        outcome=Outcome.ERROR if noisy_error else None,
        metrics={f"{t.name}_ratio": t.ratio for t in timings},
        order=lambda f: f.severity.rank,
        extra={
            "device": head.get("device"),
            "clock": head.get("clock"),
            "memory": head.get("memory"),
            "step": head.get("step"),
            "rows": [_row(t, _throughput(t, batch)) for t in timings],
            "modules": _chart(modules),
        },
    )


def _throughput(t: Timing, batch: Mapping[str, Any]) -> tuple[float, float] | None:
    """Samples/s at base and head, when both children know their batch size."""
    if t.name not in TIMED or not batch["base"] or not batch["head"] or min(t.base, t.head) <= 0:
        return None
    return batch["base"] / t.base, batch["head"] / t.head


def _finding(t: Timing, settings: PerfSettings, rate: tuple[float, float] | None) -> Finding:
    if t.name == "memory":
        limit = f"`max_memory_growth` ({settings.max_memory_growth:g}×)"
        said = f"peak memory at head is {t.ratio:.2f}× base ({_mb(t.base)} → {_mb(t.head)} MB"
    else:
        limit = f"`max_slowdown` ({settings.max_slowdown:g}×)"
        said = f"{WORDS[t.name]} time at head is {t.ratio:.2f}× base "
        said += f"({_ms(t.base)} → {_ms(t.head)} ms"
        if rate is not None:
            said += f", {rate[0]:,.0f} → {rate[1]:,.0f} samples/s"
    if t.low != t.high:
        said += f"; {settings.confidence:.0%} interval {t.low:.2f}–{t.high:.2f}×"
    said += ")"
    if t.verdict == "beyond":
        message = f"{said}: the whole interval is above {limit}"
        return Finding(f"perf-{_kind(t)}", Severity.BLOCKING, message, revision="head")
    if t.verdict == "noisy":
        message = f"{said}: too noisy to decide against {limit}; more `rounds` narrow it"
        if settings.strict:
            message += " (`strict` makes this an error)"
            return Finding("perf-noisy", Severity.BLOCKING, message, revision="head")
        return Finding("perf-noisy", Severity.NOTE, message)
    return Finding("perf-ratio", Severity.NOTE, said)


def _kind(t: Timing) -> str:
    return "memory-growth" if t.name == "memory" else "slower"


def _row(t: Timing, rate: tuple[float, float] | None) -> dict[str, Any]:
    memory = t.name == "memory"
    return {
        "measure": WORDS[t.name],
        "unit": "MB" if memory else "ms",
        "base": t.base / _MB if memory else t.base * 1e3,
        "head": t.head / _MB if memory else t.head * 1e3,
        "ratio": t.ratio,
        "low": t.low,
        "high": t.high,
        "verdict": t.verdict,
        "base_rate": None if rate is None else rate[0],
        "head_rate": None if rate is None else rate[1],
    }


def _chart(modules: tuple[ModuleTime, ...]) -> dict[str, Any] | None:
    """The modules that slowed, for a Mermaid bar (base) and line (head) chart in ms."""
    if not modules:
        return None
    base = [0.0 if m.base_s is None else m.base_s * 1e3 for m in modules]
    head = [m.head_s * 1e3 for m in modules]
    return {
        "names": [m.name for m in modules],
        "base_ms": [round(x, 3) for x in base],
        "head_ms": [round(x, 3) for x in head],
        "y_max": round(max(head + base) * 1.1, 3),
        "new": [m.name for m in modules if m.base_s is None],
    }


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}"


def _mb(size: float) -> str:
    return f"{size / _MB:.3g}"

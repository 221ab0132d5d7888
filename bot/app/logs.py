"""Structured logs: one JSON object per line, with the delivery id when there is one."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

LOGGER = "gradgate.app"
# Fields a call may pass with ``extra={...}``; anything else is left out of the line.
FIELDS = (
    "delivery", "event", "action", "status", "reason", "job", "repo", "pr", "head",
    "queue", "worker", "elapsed_ms",
)  # fmt: skip


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "msg": record.getMessage(),
        }
        line |= {k: getattr(record, k) for k in FIELDS if hasattr(record, k)}
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def setup(level: int = logging.INFO) -> logging.Logger:
    """gradgate's App logger, writing JSON lines to stderr (once, however often called)."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    return logger


def get() -> logging.Logger:
    return logging.getLogger(LOGGER)

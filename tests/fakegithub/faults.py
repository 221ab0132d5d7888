"""Faults the fake GitHub can inject before answering: 5xx, secondary rate limits, slowness.

A fault is answered before the request touches the fake's state, as a failing proxy or GitHub's
rate limiter would: a retried request then finds the world as it was. An ``after`` fault is
GitHub doing the work and losing the answer (a 5xx after the fact): a retried POST does it twice.
"""

from __future__ import annotations

import random
import re
import threading
from collections import deque
from dataclasses import dataclass, field

SECONDARY_RATE_LIMIT = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID 0000:0000."
)
RATE_LIMIT_DOCS = (
    "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"
    "#about-secondary-rate-limits"
)


@dataclass(frozen=True, slots=True)
class Fault:
    status: int  # 500-599, or 403/429 for a secondary rate limit
    retry_after: int | None = None  # seconds, sent as Retry-After
    after: bool = False  # the request is carried out, and then answered with the error

    @property
    def body(self) -> dict[str, str]:
        if self.status in (403, 429):
            return {"message": SECONDARY_RATE_LIMIT, "documentation_url": RATE_LIMIT_DOCS}
        return {"message": "Server Error"} if self.status == 500 else {"message": "Bad Gateway"}


@dataclass
class Faults:
    """What goes wrong next. ``rate``: the share of requests that fail at random (seeded)."""

    queued: deque[Fault] = field(default_factory=deque)
    rate: float = 0.0
    retry_after: int = 0  # for random rate limits; 0 keeps tests fast, as GitHub may send
    delay_s: float = 0.0
    only: re.Pattern[str] | None = None  # faults hit only "METHOD /path" lines that match
    seed: int = 0
    injected: int = 0
    _random: random.Random = field(default_factory=random.Random)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail_next(
        self,
        count: int = 1,
        *,
        status: int = 502,
        retry_after: int | None = None,
        after: bool = False,
    ) -> None:
        self.queued.extend(Fault(status, retry_after, after) for _ in range(count))

    def rate_limit_next(self, count: int = 1, *, retry_after: int | None = 0) -> None:
        self.fail_next(count, status=403, retry_after=retry_after)

    def chaos(self, rate: float, *, seed: int = 0, only: str | None = None) -> None:
        """Fail ``rate`` of the requests, half with a 5xx and half with a secondary rate limit;
        half of the 5xx on writes are ``after`` faults."""
        self.rate = rate
        self.seed = seed
        self._random.seed(seed)
        self.only = re.compile(only) if only else None

    def next_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            if self.only is not None and not self.only.search(f"{method} {path}"):
                return None
            if self.queued:
                fault: Fault | None = self.queued.popleft()
            elif self.rate and self._random.random() < self.rate:
                kind = self._random.random()
                if kind < 0.5:  # half of the 5xx on writes come after the work was done
                    after = method != "GET" and self._random.random() < 0.5
                    fault = Fault(self._random.choice((500, 502, 503)), after=after)
                else:
                    fault = Fault(403 if kind < 0.85 else 429, retry_after=self.retry_after)
            else:
                fault = None
            if fault is not None:
                self.injected += 1
            return fault

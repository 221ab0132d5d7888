"""Fuzz: mutated deliveries (payloads and headers) never get a 5xx, and the server lives.

The suite sends 200 (about 0.1 s each on a busy 2-core machine, where 1,000 took two minutes);
GRADGATE_TEST_FUZZ_EXAMPLES=1000 sends that many.
"""

from __future__ import annotations

import json
import os
from typing import Any

from gradgate.bot.app.signature import sign
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bot.app.conftest import SECRET, LiveServer, on_pull_request, payload

EXAMPLES = int(os.environ.get("GRADGATE_TEST_FUZZ_EXAMPLES", "200"))

BASES = [
    ("pull_request", payload("pull_request/opened")),
    ("pull_request", payload("pull_request/synchronize")),
    ("pull_request", payload("pull_request/closed")),
    ("issue_comment", on_pull_request(payload("issue_comment/created.with-installation"))),
    ("issue_comment", payload("issue_comment/edited")),
    ("ping", payload("ping/")),
]
# What an HTTP client can put in a header: printable ASCII.
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80).map(
    str.strip
)  # an HTTP client will not send a value with outer spaces
EVENTS = st.sampled_from(["pull_request", "issue_comment", "ping", "push", "", "PULL", "a" * 80])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes, dict[str, str]]:
    event, base = draw(st.sampled_from(BASES))
    body: Any = json.loads(json.dumps(base))
    paths = _paths(body)
    for _ in range(draw(st.integers(0, 4))):
        path = draw(st.sampled_from(paths))
        parent = body
        for key in path[:-1]:  # an earlier mutation may have removed or replaced the way
            in_dict = isinstance(parent, dict) and key in parent
            in_list = isinstance(parent, list) and isinstance(key, int) and key < len(parent)
            if in_dict or in_list:
                parent = parent[key]
            else:
                parent = None
                break
        if isinstance(parent, dict) and path[-1] in parent:
            if draw(st.booleans()):
                del parent[path[-1]]
            else:
                parent[path[-1]] = draw(JSON)
        elif isinstance(parent, list) and isinstance(path[-1], int) and path[-1] < len(parent):
            parent[path[-1]] = draw(JSON)
    raw = json.dumps(body).encode()
    how = draw(st.sampled_from(["json", "truncate", "bytes", "top-level"]))
    if how == "truncate":
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif how == "bytes":
        raw = draw(st.binary(max_size=64)) + raw[:200]
    elif how == "top-level":
        raw = json.dumps(draw(JSON)).encode()
    signature = sign(SECRET, raw)
    signing = draw(st.sampled_from(["right", "right", "right", "wrong", "none", "junk"]))
    if signing == "wrong":
        signature = sign(b"another-secret", raw)
    elif signing == "none":
        signature = ""
    elif signing == "junk":
        signature = draw(HEADER_TEXT)
    headers = {
        "X-GitHub-Event": draw(st.one_of(st.just(event), EVENTS)),
        "X-GitHub-Delivery": draw(
            st.one_of(
                st.uuids().map(str),
                HEADER_TEXT,
            )
        ),
        "X-Hub-Signature-256": signature,
    }
    return event, raw, headers


def test_no_mutated_delivery_gets_a_5xx_and_the_server_stays_up(live: LiveServer) -> None:
    seen: dict[int, int] = {}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutated())
    def send(case: tuple[str, bytes, dict[str, str]]) -> None:
        _, raw, headers = case
        answer = live.client.post("/webhook", content=raw, headers=headers)
        seen[answer.status_code] = seen.get(answer.status_code, 0) + 1
        assert answer.status_code < 500, (answer.status_code, answer.text, headers)

    send()
    assert sum(seen.values()) >= EXAMPLES
    assert {202, 204, 400, 401} <= set(seen), seen  # the fuzz reached every branch
    assert live.client.get("/health").status_code == 200
    good = live.deliver("pull_request", payload("pull_request/opened"))
    assert good.status_code in (200, 202)

"""checks.model.served: what the parent does with a child that misbehaves on its pipes.

The child here is a real process started on the two pipes the parent made (as the sandbox
starts the serve program), playing a revision's code that took over the serve loop: its
requests and replies are the only way it reaches the parent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from gradgate.checks.errors import SandboxError
from gradgate.checks.model.served import ServedChild
from gradgate.checks.sandbox.limits import SandboxLimits
from gradgate.checks.sandbox.outcome import parse_target

TARGET = parse_target("model.py:build", revision="head")
# The child's side: read one request line, then do ``{act}`` with ``replies`` (its reply fd).
CHILD = """\
import json, os, sys, time
pipes = json.loads(sys.argv[1])["session"]
requests, replies = os.fdopen(pipes["requests"], "rb"), pipes["replies"]
asked = json.loads(requests.readline())
{act}
requests.read()  # until the parent closes its end
"""


def served(act: str, *, disk_mb: int | None = 1) -> ServedChild:
    def start(pipes: Mapping[str, Any], fds: Sequence[int], stop: Callable[[], bool]) -> Any:
        script = CHILD.format(act=act)
        child = subprocess.Popen([sys.executable, "-c", script, json.dumps(pipes)], pass_fds=fds)
        while child.poll() is None and not stop():
            time.sleep(0.01)
        child.kill()
        child.wait()
        return {"served": 1}

    limits = SandboxLimits(memory_mb=None, disk_mb=disk_mb)
    return ServedChild(start, revision="head", limits=limits, python=sys.executable,
                       readable=frozenset(), isolations=[])  # fmt: skip


def test_a_line_on_the_reply_pipe_that_is_no_json_is_that_revisions_output_error() -> None:
    child = served("os.write(replies, b'all gradients fine, trust me\\n')")
    try:
        with pytest.raises(SandboxError) as caught:
            child.ask("p:q", {}, target=TARGET, target_path=None, seed=0, timeout_s=30.0)
    finally:
        child.close()
    assert (caught.value.kind, caught.value.revision) == ("output", "head")
    assert "malformed answer" in str(caught.value)
    assert not child.alive


def test_a_file_offered_past_the_disk_cap_is_not_read_and_is_a_disk_error(tmp_path: Any) -> None:
    header = '{"id": asked["id"], "ok": True, "value": {"bytes": 2 << 20}}'
    child = served(f"os.write(replies, json.dumps({header}).encode() + b'\\n')", disk_mb=1)
    into = os.open(tmp_path / "taken", os.O_WRONLY | os.O_CREAT)
    try:
        with pytest.raises(SandboxError) as caught:
            child.take("base-weights.pt", into, target=TARGET, timeout_s=30.0)
    finally:
        os.close(into)
        child.close()
    assert (caught.value.kind, caught.value.revision) == ("disk", "head")
    assert (tmp_path / "taken").stat().st_size == 0


def test_a_file_taken_out_arrives_whole_and_nothing_after_it_is_read(tmp_path: Any) -> None:
    act = (
        "os.write(replies, json.dumps({'id': asked['id'], 'ok': True, 'value': {'bytes': 5}})"
        ".encode() + b'\\nbytes' + b'\\nmore lines')"
    )
    child = served(act)
    into = os.open(tmp_path / "taken", os.O_WRONLY | os.O_CREAT)
    try:
        assert child.take("base-weights.pt", into, target=TARGET, timeout_s=30.0) == 5
    finally:
        os.close(into)
        child.close()
    assert (tmp_path / "taken").read_bytes() == b"bytes"


def test_a_child_that_never_answers_is_stopped_at_the_requests_deadline() -> None:
    child = served("pass")
    started = time.monotonic()
    try:
        with pytest.raises(SandboxError) as caught:
            child.ask("p:q", {"big": "x" * (4 << 20)}, target=TARGET, target_path=None, seed=0,
                      timeout_s=1.0)  # fmt: skip
    finally:
        child.close()
    assert (caught.value.kind, caught.value.revision) == ("timeout", "head")
    assert time.monotonic() - started < 15

"""X-Hub-Signature-256: GitHub's documented test vector, and what must never verify."""

from __future__ import annotations

import json

import pytest
from gradgate.bot.app.signature import sign, verify

from tests.bot.app.conftest import FIXTURES

VECTOR = json.loads((FIXTURES / "signature-test-vector.json").read_text(encoding="utf-8"))


def test_githubs_documented_vector_verifies() -> None:
    secret, body = VECTOR["secret"].encode(), VECTOR["payload"].encode()
    assert sign(secret, body) == VECTOR["X-Hub-Signature-256"]
    assert verify(secret, body, VECTOR["X-Hub-Signature-256"])


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "sha256=",
        VECTOR["X-Hub-Signature-256"].upper(),  # hex is compared as sent
        VECTOR["X-Hub-Signature-256"][:-1] + "0",
        "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59",  # the legacy header's value
        VECTOR["signature"],  # no "sha256=" prefix
        "sha256=ü" + VECTOR["signature"],
    ],
)
def test_anything_but_the_exact_signature_is_refused(header: str | None) -> None:
    assert not verify(VECTOR["secret"].encode(), VECTOR["payload"].encode(), header)


def test_another_body_or_secret_is_refused() -> None:
    header = VECTOR["X-Hub-Signature-256"]
    assert not verify(VECTOR["secret"].encode(), b"Hello, World?", header)
    assert not verify(b"another secret", VECTOR["payload"].encode(), header)
    assert not verify(b"", VECTOR["payload"].encode(), sign(b"", VECTOR["payload"].encode()))

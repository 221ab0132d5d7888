"""Webhook signatures: GitHub's `X-Hub-Signature-256`, checked in constant time (pure).

GitHub signs each delivery with HMAC-SHA256 of the raw body keyed with the webhook secret and
sends ``sha256=<hex digest>`` ("Validating webhook deliveries" in GitHub's docs). The legacy
SHA-1 header is never accepted.
"""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The header value GitHub would send for ``body``."""
    return PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, header: str | None) -> bool:
    """True when ``header`` is the signature of ``body`` under ``secret``.

    ``compare_digest`` takes the same time wherever the first differing byte is, so a sender
    cannot find a valid signature byte by byte from the answer times.
    """
    if not secret or header is None or not header.startswith(PREFIX):
        return False
    try:
        given = header.encode("ascii")
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(sign(secret, body).encode("ascii"), given)

"""Settings of the `protected` check: the markers that protect what they annotate."""

from __future__ import annotations

from typing import Annotated

from gradgate.checks.base import CheckSettings
from pydantic import AfterValidator, Field


def _marker(text: str) -> str:
    # A blank marker would be found in every comment; a marker spans one line of a comment.
    if not text.strip():
        raise ValueError("a marker must contain text, not only whitespace")
    if "\n" in text or "\r" in text:
        raise ValueError("a marker must fit on one line")
    return text


class ProtectedSettings(CheckSettings):
    """Settings of the `protected` check."""

    markers: tuple[Annotated[str, AfterValidator(_marker)], ...] = Field(
        default=("NO_REFAC", "DON'T TOUCH"),
        min_length=1,
        description="Comment markers (a comment's first word) that protect what they annotate.",
    )

"""The examples of one doc, gathered while ``claims.markdown`` walks its tokens.

Python blocks are kept in order and read together at the end (a README's imports carry over
from block to block); each shell block is read as it comes.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradgate.checks.config_docs.claims.blocks import PYTHON, SHELL
from gradgate.checks.config_docs.examples.calls import read_calls
from gradgate.checks.config_docs.examples.commands import read_options
from gradgate.checks.config_docs.examples.model import CallClaim, OptionClaim
from markdown_it.token import Token


class DocExamples:
    def __init__(self, doc: str, lines: Sequence[str]) -> None:
        self._doc = doc
        self._lines = lines
        self._python: list[tuple[str, int]] = []
        self._options: list[OptionClaim] = []

    def block(self, token: Token) -> None:
        """A fenced block (an indented one has no language and is not run)."""
        if token.type != "fence" or token.map is None:
            return
        info = token.info.strip()
        lang = info.split(maxsplit=1)[0].strip("{}.").lower() if info else ""
        first = token.map[0] + 1
        if lang in PYTHON:
            self._python.append((token.content, first))
        elif lang in SHELL:
            self._options += read_options(self._doc, token.content, first, self._lines)

    def claims(self) -> list[CallClaim | OptionClaim]:
        return [*read_calls(self._doc, self._python), *self._options]

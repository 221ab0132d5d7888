"""One Markdown document -> its claims and problems: the token walk that feeds the readers.

markdown-it-py parses (CommonMark with the table rule); each table goes to ``tables``, each code
block to ``blocks``, every other inline run to ``inline``. A fence that never closes turns the
rest of the file into code: that is a problem worth a note, and the walk goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from gradgate.checks.config_docs.claims.blocks import block_claims
from gradgate.checks.config_docs.claims.inline import inline_claims
from gradgate.checks.config_docs.claims.prose import prose_claims
from gradgate.checks.config_docs.claims.tables import table_claims
from gradgate.checks.config_docs.examples.reading import DocExamples
from gradgate.checks.config_docs.model import Claim, Problem
from markdown_it import MarkdownIt
from markdown_it.token import Token

# Inline rules no claim needs. CommonMark gives code spans precedence over all of them
# (spec 6.1: only raw HTML and autolinks bind tighter, and those stay on), so the code spans
# found are the same; parsing links and emphasis was over half of the time spent on a page.
_UNUSED_INLINE = ["emphasis", "link", "image", "entity", "balance_pairs"]


@cache
def parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").disable(_UNUSED_INLINE)


def read_doc(doc: str, text: str) -> tuple[list[Claim], list[Problem]]:
    tokens = parser().parse(text)
    lines = text.splitlines()
    claims: list[Claim] = []
    problems: list[Problem] = []
    rows: list[tuple[int, list[str]]] | None = None  # inside a table
    examples = DocExamples(doc, lines)  # code and commands that must still run
    for token in tokens:
        if token.type == "table_open":
            rows = []
        elif token.type == "table_close" and rows is not None:
            claims += table_claims(doc, rows, lines)
            rows = None
        elif rows is not None:
            if token.type == "tr_open" and token.map is not None:
                rows.append((token.map[0], []))
            elif token.type == "inline" and rows:
                rows[-1][1].append(token.content)
        elif token.type in ("fence", "code_block") and token.map is not None:
            found, trouble = _block(doc, token, lines)
            claims += found
            problems += trouble
            examples.block(token)
        elif token.type == "inline":
            spans = inline_claims(doc, token, lines)
            claims += [*spans, *prose_claims(doc, token, lines, spans)]
    return claims + examples.claims(), problems


def _block(doc: str, token: Token, lines: Sequence[str]) -> tuple[list[Claim], list[Problem]]:
    assert token.map is not None
    start = token.map[0]
    fenced = token.type == "fence"
    lang = (
        token.info.strip().split(maxsplit=1)[0].strip("{}.").lower() if token.info.strip() else ""
    )
    problems = []
    if fenced and not _closed(token, lines):
        why = (
            f"the code fence opened on line {start + 1} never closes, so everything after it "
            "reads as code"
        )
        problems.append(Problem("unclosed-fence", doc, start + 1, why, False))
    claims, trouble = block_claims(doc, lang, token.content, start + 1 if fenced else start, lines)
    return claims, problems + trouble


def _closed(token: Token, lines: Sequence[str]) -> bool:
    assert token.map is not None
    start, end = token.map
    if end - 1 <= start or end > len(lines):
        return False
    last = lines[end - 1].strip()
    return last.startswith(token.markup) and not last.strip(token.markup[0]).strip()

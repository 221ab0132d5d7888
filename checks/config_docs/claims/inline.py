"""Claims in running text and list items: a code span `batch_size: 32` or `lr=3e-4`, and an
option named in code with its default ("`dropout` (default: 0.1)", "`--lr` defaults to `3e-4`").

A command with an override (`python train.py --batch_size=12`) is not `key=value` as a whole and
is no claim; a sentence about another setup or an override is skipped (``words``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gradgate.checks.config_docs.claims.words import (
    about_elsewhere,
    is_setting_key,
    is_setting_value,
    sentence_around,
)
from gradgate.checks.config_docs.model import ValueClaim, key_of
from gradgate.checks.config_docs.values import from_text
from markdown_it.token import Token

_PAIR = re.compile(r"([A-Za-z_][\w.\-]*)\s*(?::\s*|=(?!=)\s*)(\S(?:.*\S)?)")
_DEFAULT = re.compile(
    r"`(-{0,2}[A-Za-z_][\w.\-]*)`[^`\n]{0,80}?\bdefaults?(?:\s+(?:is|to|of|value))?\s*[:=]?\s*"
    r"(`[^`\n]+`|[-+]?\.?\d[\w.+\-]*|true|false|True|False|None|null)"
)
_FORM_PAIR = "inline code"
_FORM_DEFAULT = "option list"


def inline_claims(doc: str, token: Token, lines: Sequence[str]) -> list[ValueClaim]:
    """The claims of one inline token (a paragraph, list item or heading)."""
    raw = token.content
    if "`" not in raw or token.map is None:
        return []
    first = token.map[0]
    claims: list[ValueClaim] = []
    cursor = 0
    for child in token.children or ():
        if child.type != "code_inline":
            continue
        at = raw.find(child.content, cursor)
        at = cursor if at < 0 else at
        cursor = at + len(child.content)
        pair = _PAIR.fullmatch(child.content.strip())
        if pair is None:
            continue
        claim = _claim(doc, lines, first, raw, at, pair.group(1), pair.group(2), _FORM_PAIR)
        if claim is not None:
            claims.append(claim)
    for match in _DEFAULT.finditer(raw):
        value = match.group(2).strip("`").rstrip(".,;:)")
        claim = _claim(doc, lines, first, raw, match.start(), match.group(1), value, _FORM_DEFAULT)
        if claim is not None:
            claims.append(claim)
    return claims


def _claim(
    doc: str,
    lines: Sequence[str],
    first: int,
    raw: str,
    at: int,
    key_text: str,
    value_text: str,
    form: str,
) -> ValueClaim | None:
    key = key_of(key_text)
    if not key or not is_setting_key(key) or not is_setting_value(value_text):
        return None
    if about_elsewhere(sentence_around(raw, at, at + len(key_text) + len(value_text))):
        return None
    value = from_text(value_text)
    if value.kind == "str" and " " in value_text.strip() and value_text.strip()[0] not in "\"'":
        return None  # prose after a colon ("`lr`: the learning rate") is no value
    number = first + raw.count("\n", 0, at)
    line_text = lines[number] if number < len(lines) else ""
    return ValueClaim(
        doc=doc,
        line=number + 1,
        key=key,
        value=value,
        form=form,
        line_text=line_text,
        value_at=locate(line_text, key_text, value_text),
    )


def locate(line: str, key_text: str, value_text: str) -> int | None:
    """The column of ``value_text`` after ``key_text`` in ``line``, if it is there exactly once."""
    after = line.find(key_text)
    start = line.find(value_text, after + len(key_text) if after >= 0 else 0)
    if start < 0 or line.find(value_text, start + 1) >= 0:
        return None
    return start

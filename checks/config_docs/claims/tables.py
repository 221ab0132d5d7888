"""Claims in Markdown tables: a key/option column and a default/value column, one claim a row.

A table without a column headed "default" or "value" (a results table, a list of checks) says
nothing about defaults, and a cell of prose ("depends on the GPU") is no value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gradgate.checks.config_docs.claims.inline import locate
from gradgate.checks.config_docs.claims.words import is_setting_key, is_setting_value
from gradgate.checks.config_docs.model import ValueClaim, key_of
from gradgate.checks.config_docs.values import from_text

_KEY_HEADERS = re.compile(
    r"^(?:option|key|parameter|param|name|setting|flag|argument|arg|field|config|"
    r"hyperparameter|hyper-parameter|variable|knob)s?$"
)
_VALUE_HEADERS = re.compile(r"\bdefaults?\b|^values?$")
_KEY_CELL = re.compile(r"-{0,2}[A-Za-z_][\w.\-]*")
_NUMBER_THEN_NOTE = re.compile(r"([-+]?\.?\d[\w.+\-]*)\s+\(.*\)")
_NOT_VALUES = frozenset({"", "-", "—", "–", "n/a", "na", "required", "?", "…", "..."})


def table_claims(
    doc: str, rows: Sequence[tuple[int, list[str]]], lines: Sequence[str]
) -> list[ValueClaim]:
    """``rows``: (0-based line, cell texts) for the header row first, then the body rows."""
    if len(rows) < 2:
        return []
    headers = [_plain(cell).lower() for cell in rows[0][1]]
    value_col = next((i for i, h in enumerate(headers) if _VALUE_HEADERS.search(h)), None)
    key_col = next((i for i, h in enumerate(headers) if _KEY_HEADERS.match(h)), 0)
    if value_col is None or value_col == key_col:
        return []
    claims = []
    for number, cells in rows[1:]:
        if max(key_col, value_col) >= len(cells):
            continue
        key_text, value_text = _plain(cells[key_col]), _cell_value(cells[value_col])
        if not _KEY_CELL.fullmatch(key_text) or value_text is None:
            continue
        key = key_of(key_text)
        if not key or not is_setting_key(key) or not is_setting_value(value_text):
            continue
        line_text = lines[number] if number < len(lines) else ""
        claims.append(
            ValueClaim(
                doc=doc,
                line=number + 1,
                key=key,
                value=from_text(value_text),
                form="table",
                line_text=line_text,
                value_at=locate(line_text, key_text, value_text),
            )
        )
    return claims


def _plain(cell: str) -> str:
    """A cell without its emphasis or code markup: `` `lr` `` and ``**lr**`` are `lr`."""
    text = cell.strip()
    for mark in ("**", "__", "`", "*"):
        if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
            text = text[len(mark) : -len(mark)].strip()
    return text


def _cell_value(cell: str) -> str | None:
    """The value a default cell states, or None when it states none plainly."""
    text = _plain(cell)
    if text.lower() in _NOT_VALUES:
        return None
    if text.startswith("`") and "`" in text[1:]:  # `32` (per GPU)
        return text[1 : text.index("`", 1)]
    if " " not in text or text[0] in "\"'[{":
        return text
    note = _NUMBER_THEN_NOTE.fullmatch(text)  # 32 (per GPU)
    return note.group(1) if note else None

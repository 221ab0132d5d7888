"""Claims in sentences: a number or literal tied to a setting by a code span or by its name.

``inline`` reads code spans that hold a whole pair (`lr=3e-4`) and "`dim` defaults to `512`";
this reads what else READMEs write: "`n_layer` is 12", "- `--lr`: 3e-4", "n_layer 12",
"a batch size of 32", "learning rate of 3e-4", "trained for 600k iterations". Each value is tied
to the key written right before it (a code span, an identifier, or the words of a phrase), with
only linking words between them ("is", "of", "set to", "=", ":").

A key written in plain words ("batch size") is a guess at a setting's name, so it becomes a
``WordClaim`` with the names it may stand for: it counts only where a config or code defines one
of them (``bind``), and a setting renamed under it is not reported as gone. What stays out:
sentences about other setups or overrides (``words``), approximate or ranged values ("~0.5M",
"32-64", "32 or 64"), values with a unit ("2 GB", "0.5M tokens") and products ("12 x 1024").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gradgate.checks.config_docs.claims.inline import locate
from gradgate.checks.config_docs.claims.phrases import count_keys, phrase_keys
from gradgate.checks.config_docs.claims.words import (
    about_elsewhere,
    is_setting_key,
    sentence_around,
)
from gradgate.checks.config_docs.model import Key, ValueClaim, key_of
from gradgate.checks.config_docs.values import Value, from_text
from markdown_it.token import Token

FORM = "sentence"

# A value: a code span, or a number (`600k`, `3e-4`, `1,000`) standing alone.
_VALUE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|(?<![\w.\-/`~≈<>+])(?P<num>-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?P<suffix>[kKM])?(?![\w%/`]|\.\d|-\d|-[A-Za-z])"  # "0-indexed", "8-bit": no value
)
# What may sit between a key and its value.
_LINK = r"(?:\s*[:=]\s*|\s+(?:(?:is|are|was|of|to|set|equals?|defaults?|default|at)\s+)+)"
_KEY_BEFORE = re.compile(
    r"(?:`(?P<code>-{0,2}[A-Za-z_][\w.\-]*)`"
    r"|(?<![\w`.\-])(?P<ident>-{0,2}[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+)"
    r"|(?<![\w`.\-])(?P<words>[A-Za-z][A-Za-z\-]*(?: [A-Za-z][A-Za-z\-]*){0,3}))"
    rf"(?P<link>{_LINK}|\s+)$"
)
_LINK_WORDS = frozenset({"is", "are", "was", "of", "to", "set", "equal", "equals", "default",
                         "defaults", "at"})  # fmt: skip
_LOOK_BACK = 80
# After a value: a range, a product, a list, a unit or a percentage make it no setting's value.
_BAD_AFTER = re.compile(
    r"\s*(?:[x×*/^%]|-\s*\d|–|—|,\s*\d|(?:to|or)\s+\d)"
    r"|\s+(?:tokens?|samples?|sequences?|images?|examples?|params|parameters|layers?|heads?|"
    r"[KMGT]i?B|bytes?|bits?|ms|s|sec|seconds?|min|minutes?|h|hours?|days?|times|percent|GPUs?|"
    r"nodes?|x|M|B|K|k)\b",
)
# "for 600k iterations": a count whose unit names the setting.
_COUNT = re.compile(r"\bfor\s+$")
_COUNT_UNIT = re.compile(r"\s+([A-Za-z]+)\b")
_NOT_A_RUN_LENGTH = re.compile(
    r"\b(?:warm\w*|decay\w*|eval\w*|log\w*|sav\w*|checkpoint\w*|every)\b"
)
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6}
# A sentence that changes a value ("decrease the number of iterations to 2000") tells a reader
# what to run, not what the defaults are.
_CHANGING = re.compile(
    r"\b(?:decreas\w*|increas\w*|reduc\w*|lower(?:ed|ing)?|rais\w*|chang\w*|bump\w*|halv\w*|"
    r"doubl\w*|down from|up from|rather than|instead|smaller|larger|bigger)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class WordClaim(ValueClaim):
    """A claim whose key is written in words: ``key`` is its first reading; ``names`` are all the
    settings it may stand for, tried in order where a config or code defines one (``bind``)."""

    names: tuple[Key, ...] = ()


def prose_claims(
    doc: str, token: Token, lines: Sequence[str], taken: Sequence[ValueClaim]
) -> list[ValueClaim]:
    """The sentence claims of one inline token; ``taken``: those ``inline`` already found."""
    raw = token.content
    if token.map is None or not any(c.isdigit() for c in raw):
        return []
    first = token.map[0]
    seen = {(c.line, c.key) for c in taken}
    claims: list[ValueClaim] = []
    for match in _VALUE.finditer(raw):
        value = _value(match)
        if value is None or _BAD_AFTER.match(raw, match.end()):
            continue
        before = raw[max(0, match.start() - _LOOK_BACK) : match.start()]
        found = _keyed(before, match, raw) or _counted(before, match, raw)
        if found is None:
            continue
        names, key_text, loose = found
        number = first + raw.count("\n", 0, match.start())
        if (number + 1, names[0]) in seen:
            continue
        sentence = sentence_around(raw, match.start(), match.end())
        if about_elsewhere(sentence) or _CHANGING.search(sentence):
            continue
        seen.add((number + 1, names[0]))
        line_text = lines[number] if number < len(lines) else ""
        value_text = match.group("code") or match.group(0)
        at = locate(line_text, key_text, value_text)
        fields = (doc, number + 1, names[0], value, FORM, line_text, at)
        claims.append(WordClaim(*fields, names=names) if loose else ValueClaim(*fields))
    return claims


def _value(match: re.Match[str]) -> Value | None:
    code = match.group("code")
    if code is not None:
        value = from_text(code)
        quoted = code.strip()[:1] in "\"'"
        return value if value.kind in ("num", "bool", "null") or quoted else None
    text = match.group("num").replace(",", "")
    value = from_text(text)
    if value.kind != "num" or not isinstance(value.data, float):
        return None
    suffix = match.group("suffix")
    if suffix:
        return Value(match.group(0), "num", value.data * _SUFFIX[suffix])
    return Value(match.group(0), "num", value.data)


def _keyed(before: str, match: re.Match[str], raw: str) -> tuple[tuple[Key, ...], str, bool] | None:
    """The key written right before the value: (names it may stand for, as written, loose)."""
    found = _KEY_BEFORE.search(before)
    if found is None:
        return None
    link = found.group("link")
    bare = not link.strip()
    code, ident, words = found.group("code"), found.group("ident"), found.group("words")
    if code is not None or ident is not None:
        text = code or ident
        if match.group("code") is not None and ident is not None and bare:
            return None  # `GPT-2 small` `124M`: two spans side by side say nothing
        key = key_of(text)
        return ((key,), text, False) if key and is_setting_key(key) else None
    spoken = words.split()
    while spoken and spoken[-1].lower() in _LINK_WORDS:  # "a decay of" 0.8: the regex's words
        spoken.pop()  # run took the linking words
        bare = False
    names, text = phrase_keys(" ".join(spoken))
    if not names:
        return None
    if bare and " " not in text:
        return None  # "step 2", "top 5": a single word needs a linking word before its value
    return names, text, True


def _counted(
    before: str, match: re.Match[str], raw: str
) -> tuple[tuple[Key, ...], str, bool] | None:
    """ "for 600k iterations": the unit after the number names the setting."""
    if match.group("num") is None or not _COUNT.search(before):
        return None
    unit = _COUNT_UNIT.match(raw, match.end())
    if unit is None:
        return None
    clause = re.split(r"[,;:(]", before)[-1]  # "we warm up for 2000 iterations"
    if _NOT_A_RUN_LENGTH.search(clause.lower()):
        return None
    names = count_keys(unit.group(1))
    return (names, unit.group(1), True) if names else None

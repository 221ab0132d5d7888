"""Which script a comment is written in (rule `comment-language`), by Unicode character names.

A script is not a language: German comments in an `en` repository pass. What this catches is
what teams have asked for: comments in a script the team does not read.
"""

from __future__ import annotations

import unicodedata

# ISO 639-1 code -> the scripts its text is written in (letters of others are foreign).
_SCRIPTS: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        (
            "en",
            "de",
            "fr",
            "es",
            "it",
            "pt",
            "nl",
            "sv",
            "da",
            "no",
            "fi",
            "pl",
            "cs",
            "tr",
            "ro",
            "hu",
            "id",
            "vi",
        ),
        frozenset({"LATIN"}),
    ),
    **dict.fromkeys(("ru", "uk", "bg", "sr"), frozenset({"CYRILLIC", "LATIN"})),
    "el": frozenset({"GREEK", "LATIN"}),
    "zh": frozenset({"CJK", "LATIN"}),
    "ja": frozenset({"CJK", "HIRAGANA", "KATAKANA", "LATIN"}),
    "ko": frozenset({"HANGUL", "CJK", "LATIN"}),
    "ar": frozenset({"ARABIC", "LATIN"}),
    "he": frozenset({"HEBREW", "LATIN"}),
    "hi": frozenset({"DEVANAGARI", "LATIN"}),
    "th": frozenset({"THAI", "LATIN"}),
}


def foreign(text: str, language: str) -> bool:
    """Are most of the letters of ``text`` in scripts ``language`` is not written in?"""
    allowed = _SCRIPTS.get(language, frozenset({"LATIN"}))
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    outside = sum(1 for c in letters if _script(c) not in allowed)
    return outside * 2 > len(letters)


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else ""

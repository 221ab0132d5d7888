"""How a value is made safe for each output format: nothing a PR controls can forge a report.

A file name, a marker's text or a message may hold a backtick, a newline, `<!--`, `</details>`,
`## ✅ gradgate passed`, an `@mention`, ANSI escapes or bytes that are not UTF-8. In every format
control characters (and bidi overrides, and undecodable bytes) are shown escaped (`\\x1b`); in
markdown, moreover, text cannot open HTML, mention anyone or start a line of its own, and a code
span always holds exactly its value.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, bidi controls ("Trojan source"), zero-width and line/paragraph
# separators, and the surrogates that stand for bytes that are not UTF-8 (surrogateescape).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)
_UNSAFE_BUT_LINES = re.compile(_UNSAFE.pattern.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f"))
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b"}
# Markdown punctuation that can open something mid-line (emphasis, links, images, strikes, code):
# escaped with a backslash. A value never starts a line (newlines are escaped), so `#`, `-` and
# `>` cannot make a heading, a list or a quote; `<` and `&` become entities.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]~])")
_BACKTICKS = re.compile(r"`+")
_ZWSP = "\u200b"  # after `@`, it stops a mention without changing what a reader sees


def _shown(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape carries it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(value: object, *, lines: bool = False) -> str:
    """For terminal text and logs: control characters shown escaped; ``lines`` keeps `\\n`."""
    pattern = _UNSAFE_BUT_LINES if lines else _UNSAFE
    return pattern.sub(lambda m: _shown(m.group()), str(value))


def md_code(value: object) -> str:
    """``value`` as one markdown code span, whatever backticks or newlines it holds."""
    text = plain(value)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_escape(value: object, *, mentions: bool = False) -> str:
    """``value`` as markdown text that renders as itself: no HTML, no structure, and no mention
    unless ``mentions`` (an owner the base config names, who is meant to be notified)."""
    text = plain(value)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text if mentions else text.replace("@", "@" + _ZWSP)


def mermaid_label(value: object, *, limit: int = 40) -> str:
    """A label inside a Mermaid chart's double quotes: no quote, backtick, bracket or line break
    can end the string or the block, and a long name is cut."""
    text = re.sub(r'["`\[\]{}<>;]', "_", plain(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def md_owner(value: object) -> str:
    return md_escape(value, mentions=True)


def md_text(value: object) -> str:
    """A message for markdown: its `code spans` kept as code, everything else escaped text.

    Messages are built by checks with backticks around paths and names (`x.py:3` is protected
    by `NO_REFAC`). The spans are found as CommonMark pairs them (a run of n backticks closes
    at the next run of exactly n; an unmatched run is literal): markdown-it-py parses them the
    same way but gives back tokens, not the text between them.
    """
    text = plain(value)
    out: list[str] = []
    at = 0
    runs = list(_BACKTICKS.finditer(text))
    k = 0
    while k < len(runs):
        opener = runs[k]
        closer = next((r for r in runs[k + 1 :] if len(r.group()) == len(opener.group())), None)
        if closer is None:
            k += 1
            continue
        out.append(md_escape(text[at : opener.start()]))
        code = text[opener.end() : closer.start()]
        out.append(md_code(code.strip(" ") if code.strip(" ") else code))
        at = closer.end()
        k = runs.index(closer) + 1
    out.append(md_escape(text[at:]))
    return "".join(out)


def md_cell(value: object) -> str:
    """Safe markdown (from md_text, md_code or a macro made of them) kept in one table cell."""
    return re.sub(r"(?<!\\)((?:\\\\)*)\|", r"\1\\|", str(value))  # an unescaped `|`


def code(value: object, fmt: str) -> str:
    """A path or name in words shared by all formats: a code span in markdown, else plain."""
    return md_code(value) if fmt == "markdown" else f"`{plain(value)}`"


def url_path(value: object) -> str:
    """A repository path for a URL: every byte percent-encoded as git stores it."""
    from urllib.parse import quote

    raw = str(value).encode("utf-8", "surrogateescape")
    return quote(raw, safe="/")

"""bot.templates.escape, value by value: what each format shows for what a PR controls."""

from __future__ import annotations

import pytest
from gradgate.bot.templates.escape import md_cell, md_code, md_escape, md_text, plain, url_path


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("\x00\x7f\x80\x9f", "\\x00\\x7f\\x80\\x9f"),
        ("caf\udce9", "caf\\xe9"),  # a byte that is not UTF-8, carried as a surrogate
        ("\udc80\udcff", "\\x80\\xff"),
        ("\ud800", "\\ud800"),
        ("\udd00", "\\udd00"),  # a surrogate that stands for no byte
        ("abc\u202edef", "abc\\u202edef"),  # a bidi override ("Trojan source")
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("é ✅ 中", "é ✅ 中"),  # ordinary text stays as it is
    ],
)
def test_plain_shows_control_characters_escaped(value: str, shown: str) -> None:
    assert plain(value) == shown


def test_plain_can_keep_line_breaks_of_a_multi_line_message() -> None:
    assert plain("one\ntwo\x1b", lines=True) == "one\ntwo\\x1b"


@pytest.mark.parametrize(
    ("value", "span"),
    [
        ("a.py", "`a.py`"),
        ("a`b.py", "``a`b.py``"),
        ("`a", "`` `a ``"),
        ("a`", "`` a` ``"),
        (" a", "`  a `"),
        ("a ", "` a  `"),
        ("a``b", "```a``b```"),
        ("a\nb", "`a\\nb`"),
    ],
)
def test_md_code_is_one_code_span_holding_exactly_the_value(value: str, span: str) -> None:
    assert md_code(value) == span


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a &lt; b", "a &amp;lt; b"),
        ("<details>", "&lt;details&gt;"),
        ("*x* _y_ [l](u) ~z~", "\\*x\\* \\_y\\_ \\[l\\](u) \\~z\\~"),
        ("@octocat", "@\u200boctocat"),
        ("back\\slash", "back\\\\slash"),
    ],
)
def test_md_escape_renders_a_value_as_itself(value: str, shown: str) -> None:
    assert md_escape(value) == shown


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("`a.py:3` is protected by `NO_REFAC`", "`a.py:3` is protected by `NO_REFAC`"),
        ("``a`b.py`` moved", "``a`b.py`` moved"),
        ("an unmatched ` stays <text>", "an unmatched \\` stays &lt;text&gt;"),
        ("@team see `@team`", "@\u200bteam see `@team`"),
        ("x `` y ` z ```", "x \\`\\` y \\` z \\`\\`\\`"),  # no run closes: all literal
        ("`` and `b`", "\\`\\` and `b`"),  # an unmatched run before a span
        ("`X `", "`X`"),
    ],
)
def test_md_text_keeps_code_spans_and_escapes_the_rest(message: str, shown: str) -> None:
    assert md_text(message) == shown


def test_md_cell_escapes_only_pipes_not_escaped_yet() -> None:
    assert md_cell("`a|b` and a\\|b and a\\\\|b") == "`a\\|b` and a\\|b and a\\\\\\|b"


def test_url_path_percent_encodes_every_byte_as_git_stores_it() -> None:
    assert url_path("dir/a b#c?.py") == "dir/a%20b%23c%3F.py"
    assert url_path("caf\udce9.py") == "caf%E9.py"

"""Every sentence a user reads, as jinja2 templates, and the one function that renders them.

``StrictUndefined``: a template that names a value the caller did not pass fails loudly instead
of printing nothing. The filters here are the only formatting logic templates may call.
"""

from __future__ import annotations

import re
import shlex
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradgate.bot.templates import escape

if TYPE_CHECKING:
    import jinja2


def _fence(text: str) -> str:
    """A code fence longer than any backtick run inside, so the details cannot close it early."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _cut(value: object, limit: int) -> str:
    """``value`` cut to ``limit`` characters, saying how much was left out."""
    text = str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def _cut_lines(value: object, limit: int, lines: int = 60) -> str:
    """Each line cut to ``limit`` characters, and at most ``lines`` lines (a diff, a trace)."""
    rows = str(value).split("\n")
    shown = [_cut(row, limit) for row in rows[:lines]]
    if len(rows) > lines:
        shown.append(f"… ({len(rows) - lines:,} more lines)")
    return "\n".join(shown)


def _short(sha: str | None) -> str:
    return sha[:7] if sha else "?"


def _duration(seconds: float) -> str:
    if seconds < 0.1:
        return "<0.1 s"
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


@cache
def _environment() -> jinja2.Environment:
    import jinja2  # when a template is first rendered: `gradgate plan --format json` renders none

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # markdown and terminal text, not HTML: the `escape` filters instead
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # The format the shared words (`_words.j2`) quote values for; a template imports them `with
    # context` and sets `fmt` to say otherwise.
    env.globals["fmt"] = "text"
    env.filters.update(
        fence=_fence,
        cut=_cut,
        cut_lines=_cut_lines,
        short=_short,
        duration=_duration,
        md_cell=escape.md_cell,
        md_code=escape.md_code,
        md_text=escape.md_text,
        md_owner=escape.md_owner,
        mermaid_label=escape.mermaid_label,
        plain=escape.plain,
        code=escape.code,
        url_path=escape.url_path,
        shell=shlex.quote,
    )
    return env


def render_template(name: str, **values: Any) -> str:
    return _environment().get_template(name).render(**values)


@cache
def _workflow_environment() -> jinja2.Environment:
    import jinja2

    # GitHub Actions writes its own expressions as ${{ ... }}: workflow templates mark gradgate's
    # values with << ... >> instead, so GitHub's stay verbatim.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        variable_start_string="<<",
        variable_end_string=">>",
        block_start_string="<%",
        block_end_string="%>",
        comment_start_string="<#",
        comment_end_string="#>",
    )


def render_workflow(name: str, **values: Any) -> str:
    """A GitHub Actions workflow template (``*.yml.j2``), whose placeholders are ``<< name >>``."""
    return _workflow_environment().get_template(name).render(**values)

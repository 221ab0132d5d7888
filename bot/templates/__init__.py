"""Every sentence a user reads, as jinja2 templates, and the one function that renders them.

``StrictUndefined``: a template that names a value the caller did not pass fails loudly instead
of printing nothing. The filters here are the only formatting logic templates may call.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2


def _md_cell(value: object) -> str:
    """Keep a value inside one markdown table cell."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _fence(text: str) -> str:
    """A code fence longer than any backtick run inside, so the details cannot close it early."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


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
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # markdown and terminal text, not HTML; cells escaped by md_cell
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(md_cell=_md_cell, fence=_fence, short=_short, duration=_duration)
    return env


def render_template(name: str, **values: Any) -> str:
    return _environment().get_template(name).render(**values)


@cache
def _workflow_environment() -> jinja2.Environment:
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

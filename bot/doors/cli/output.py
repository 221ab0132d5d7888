"""What the `gradgate` command writes: its result on stdout; errors and progress on stderr.

A reader that stops early (`gradgate schema | head -1`) closes stdout: the command then ends
quietly, with the exit code its result has, never as an internal error. With `--format json` an
error is a JSON object on stdout as well, so a script that reads stdout always reads JSON.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, metadata
from typing import TextIO

from gradgate.bot.report.render import Report, render
from gradgate.bot.report.verdict import Verdict
from gradgate.bot.templates import render_template
from gradgate.bot.templates.escape import plain

EXIT_ERROR = Verdict.ERROR.exit_code
# Commands whose `--format json` output is a report: their error object is a report too.
_REPORTS = frozenset({"check", "demo"})


def docs_url(urls: Sequence[str] | None = None) -> str | None:
    """gradgate's docs/ folder as its installed metadata names it (a `Documentation` entry of
    `[project.urls]`), for the report's links to each check's page; None where it names none
    (gradgate itself names none: it knows of no host for them), and then the report links none.
    ``urls``: the metadata's `Project-URL` entries ("Label, URL"); default: the installed ones."""
    if urls is None:
        try:
            urls = metadata("gradgate").get_all("Project-URL") or []
        except PackageNotFoundError:
            return None
    for entry in urls:
        label, _, url = entry.partition(",")
        url = url.strip()
        if label.strip().lower() == "documentation" and url.startswith(("https://", "http://")):
            return url.rstrip("/")
    return None


def escape_streams() -> None:
    """A file name that is not UTF-8 reaches the report as surrogates; print them escaped rather
    than crash on the way out (the report escapes them first; this is the net)."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def emit(text: str) -> None:
    """``text`` on stdout; once the reader has gone, nothing more, and no complaint."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        drop_stdout()


def drop_stdout() -> None:
    """Point stdout at the null device, as Python's documentation advises for SIGPIPE (the
    `signal` module's note), so that the flush at exit does not fail a second time, loudly."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def failed(command: str, fmt: str | None, what: str, message: str = "") -> int:
    """Say on stderr why ``command`` ended without a result (``what``: "error", "internal" or
    "interrupted"); with `--format json`, put a JSON error object on stdout too."""
    shown = plain(message, lines=True)
    text = render_template("cli_error.txt.j2", what=what, message=shown)
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except BrokenPipeError:  # nobody reads stderr either: the exit code still says it
        pass
    if fmt == "json" and what != "interrupted":
        said = shown if what == "error" else " ".join(text.removeprefix("gradgate: ").split())
        emit(json_error(command, said))
    return 130 if what == "interrupted" else EXIT_ERROR


def json_error(command: str, message: str) -> str:
    """The JSON a command prints when it cannot decide: a report for `check` (the shape its other
    output has), else an object with the verdict and the error."""
    if command in _REPORTS:
        return render(Report(verdict=Verdict.ERROR, error=message), "json")
    return json.dumps({"verdict": str(Verdict.ERROR), "error": message}, indent=2) + "\n"


@contextmanager
def progress(stream: TextIO, *, after_s: float = 1.0) -> Iterator[Callable[[str], None]]:
    """Say what gradgate is doing on stderr, but only for steps that take over ``after_s``."""
    timer: list[threading.Timer] = []

    def step(message: str) -> None:
        for t in timer:
            t.cancel()
        timer.clear()
        t = threading.Timer(
            after_s, lambda: print(f"gradgate: {message}…", file=stream, flush=True)
        )
        t.daemon = True
        t.start()
        timer.append(t)

    try:
        yield step
    finally:
        for t in timer:
            t.cancel()

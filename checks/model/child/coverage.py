"""Which of the PR's changed lines ran while the model was built and stepped (issue 20, point 5).

Child-side (stdlib only). The parent asks for ``{"path": [[start, end], ...]}``: the head
revision's changed line spans of the repo's own Python files, relative to the revision's root.
:func:`recording` records, while its block runs, which of those lines ran:

- Python 3.12+: ``sys.monitoring``, a LINE callback switched on only in code objects of the
  changed files (PY_START turns itself off everywhere else), each line reported once;
- Python 3.9-3.11: ``sys.settrace``, whose global function returns None for frames of any
  other file, so only the changed files pay for line events.

Only lines with code in a function count: the line tables (``co_lines()``) of the file's
function code objects, so a comment, a blank line or a function's docstring is never "not run",
nor is module or class level code (imports, constants, decorators), which ran at import, perhaps
before the recording started. The result, per file:
``{"code": [changed lines with code], "ran": [those that ran]}``.
"""

from __future__ import annotations

import contextlib
import dis
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

_TOOL_NAME = "gradgate-coverage"


_CO_OPTIMIZED = 0x0001  # inspect.CO_OPTIMIZED: set on function code, not on module or class code


def executable_lines(source: str, filename: str) -> set[int]:
    """The lines of ``source`` that hold code: every line in its code objects' line tables."""
    try:
        top = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return set()  # not this interpreter's Python: nothing to say about it
    lines: set[int] = set()
    stack = [top]
    while stack:
        code = stack.pop()
        if code.co_flags & _CO_OPTIMIZED:  # a function's body; module and class bodies ran
            lines.update(_own_lines(code))  # when the module was imported, maybe before recording
        stack.extend(const for const in code.co_consts if hasattr(const, "co_code"))
    return lines


def _own_lines(code: Any) -> set[int]:
    """The lines of ``code`` itself (not of the functions and classes inside it)."""
    if hasattr(code, "co_lines"):
        return {line for _, _, line in code.co_lines() if line}
    return {line for _, line in dis.findlinestarts(code) if line}


class Recorder:
    """The changed lines with code, per file, and those that ran (see the module)."""

    def __init__(self, root: str, spans: dict[str, list[list[int]]]) -> None:
        self.code: dict[str, set[int]] = {}
        self.ran: dict[str, set[int]] = {}
        self.files: dict[str, str] = {}  # a filename as code objects spell it -> the rel. path
        for path, ranges in spans.items():
            full = os.path.join(root, path)
            try:
                with open(full, encoding="utf-8") as handle:
                    source = handle.read()
            except (OSError, UnicodeDecodeError):
                continue
            changed = {n for start, end in ranges for n in range(int(start), int(end) + 1)}
            self.code[path] = executable_lines(source, full) & changed
            self.ran[path] = set()
            if self.code[path]:
                for spelling in {full, os.path.realpath(full), os.path.abspath(full)}:
                    self.files[spelling] = path

    def hit(self, filename: str, line: int) -> None:
        path = self.files.get(filename)
        if path is not None and line in self.code[path]:
            self.ran[path].add(line)

    def result(self) -> dict[str, dict[str, Any]]:
        """Per file: its changed lines with code, those that ran, and whether it was imported
        (a module that was not never ran any of its lines: an optional feature's own file)."""
        imported = {
            self.files.get(getattr(module, "__file__", None) or "")
            for module in list(sys.modules.values())
        }
        return {
            path: {
                "code": sorted(code),
                "ran": sorted(self.ran[path]),
                "imported": path in imported,
            }
            for path, code in self.code.items()
        }


@contextlib.contextmanager
def recording(root: str, spans: dict[str, list[list[int]]] | None) -> Iterator[Recorder | None]:
    """Record which changed lines run inside the block; None when nothing was asked for."""
    recorder = Recorder(root, spans) if spans else None
    if recorder is None or not recorder.files:
        yield recorder
        return
    monitoring = getattr(sys, "monitoring", None)
    with _monitor(recorder, monitoring) if monitoring is not None else _settrace(recorder):
        yield recorder


@contextlib.contextmanager
def _settrace(recorder: Recorder) -> Iterator[None]:
    files = recorder.files
    left: dict[Any, set[int]] = {}  # a code object -> its changed lines of code not seen yet

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            code = frame.f_code
            recorder.hit(code.co_filename, frame.f_lineno)
            todo = left[code]
            todo.discard(frame.f_lineno)
            if not todo:
                frame.f_trace_lines = False  # all of them ran: no more line events here
        return local

    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code.co_filename not in files:
            return None  # other files run untraced
        todo = left.get(code)
        if todo is None:
            todo = left[code] = _own_lines(code) & recorder.code[files[code.co_filename]]
        recorder.hit(code.co_filename, frame.f_lineno)  # the `def` line itself
        todo.discard(frame.f_lineno)
        return local if todo else None  # code whose changed lines all ran runs untraced

    previous = sys.gettrace()
    sys.settrace(global_trace)
    threading.settrace(global_trace)
    try:
        yield
    finally:
        sys.settrace(previous)
        threading.settrace(previous)


@contextlib.contextmanager
def _monitor(recorder: Recorder, mon: Any) -> Iterator[None]:
    tool = next((t for t in range(6) if mon.get_tool(t) is None), None)
    if tool is None:  # every tool id is taken (debuggers, profilers): the old way still works
        with _settrace(recorder):
            yield
        return
    events = mon.events
    files = recorder.files
    traced: list[Any] = []  # code objects with LINE events on, switched off again at the end

    def started(code: Any, offset: int) -> Any:
        if code.co_filename not in files:
            return mon.DISABLE
        mon.set_local_events(tool, code, events.LINE)
        traced.append(code)
        for start, end, number in code.co_lines():  # the `def` line: no LINE event for it
            if start <= offset < end and number:
                recorder.hit(code.co_filename, number)
        return mon.DISABLE

    def line(code: Any, number: int) -> Any:
        recorder.hit(code.co_filename, number)
        return mon.DISABLE  # each line once

    mon.use_tool_id(tool, _TOOL_NAME)
    try:
        mon.register_callback(tool, events.PY_START, started)
        mon.register_callback(tool, events.LINE, line)
        mon.set_events(tool, events.PY_START)
        yield
    finally:
        mon.set_events(tool, 0)
        for code in traced:
            mon.set_local_events(tool, code, 0)
        mon.register_callback(tool, events.PY_START, None)
        mon.register_callback(tool, events.LINE, None)
        mon.free_tool_id(tool)

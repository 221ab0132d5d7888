"""A child's answer, stored without the gate's own folders in it, and put back in another gate.

A child may name files by their absolute path in the checkout it ran in (the checkpoint
check's shims and load conditions: the parent makes them relative to that checkout). A
checkout lives in a temporary folder of one gate; the next gate's is elsewhere. So a value
goes into the result cache with each revision's checkout replaced by a mark, and comes back
with the reading gate's checkout in its place (pure).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

_MARK = "\x00gradgate-tree:{}\x00"


def portable(value: Any, trees: Mapping[str, Path]) -> Any:
    """``value`` with each of ``trees``' folders (by revision) replaced by its mark."""
    pairs: list[tuple[str, str]] = []
    for name, root in trees.items():
        for form in {str(root.resolve()), str(root)}:
            pairs.append((form.rstrip(os.sep), _MARK.format(name)))
    pairs.sort(key=lambda pair: -len(pair[0]))  # a longer folder first: it may hold another
    return _strings(value, lambda text: _swap(text, pairs))


def placed(value: Any, trees: Mapping[str, Path]) -> Any:
    """``value`` read back: each mark replaced by that revision's folder in ``trees``."""
    pairs = [(_MARK.format(name), str(root.resolve())) for name, root in trees.items()]
    return _strings(value, lambda text: _swap(text, pairs))


def marked(value: Any) -> bool:
    """Whether ``value`` holds a mark (it named files in a checkout)."""
    if isinstance(value, str):
        return "\x00gradgate-tree:" in value
    if isinstance(value, Mapping):
        return any(marked(k) or marked(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(marked(item) for item in value)
    return False


def _swap(text: str, pairs: list[tuple[str, str]]) -> str:
    for old, new in pairs:
        if old and old in text:
            # The whole folder name only: not /tmp/tree in /tmp/tree2 (the text is no pattern).
            text = re.compile(re.escape(old) + r"(?![\w.-])").sub(new.replace("\\", r"\\"), text)
    return text


def _strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {
            change(k) if isinstance(k, str) else k: _strings(v, change) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_strings(item, change) for item in value]
    return value

"""A few gitignore patterns that cover chosen files of a tree, for the zones `gradgate init` writes.

Pure. A folder becomes one pattern (`/timm/layers/**/*.py`) when most of its files were chosen
and none of its subfolders is mostly unchosen; otherwise the walk goes down into it, and chosen
files left over are named one by one (as many as ``_SINGLES`` per folder, then the folder's
own files by suffix). Patterns are anchored at the root and escaped, so a name never matches
more than itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

_MOSTLY = 0.6  # a folder with this share of chosen files is covered whole
_RARELY = 0.3  # ... unless a subfolder of 3 files or more has less than this share
_SINGLES = 6  # chosen files named one by one in a folder before `/dir/*.py` is used


@dataclass
class _Folder:
    files: list[str] = field(default_factory=list)
    chosen: list[str] = field(default_factory=list)
    children: dict[str, _Folder] = field(default_factory=dict)
    total: int = 0
    picked: int = 0


def cover(chosen: Iterable[str], universe: Sequence[str], *, suffix: str) -> list[str]:
    """Patterns matching every path in ``chosen`` and few other ``universe`` paths that end in
    ``suffix``; ``chosen`` is a subset of ``universe``."""
    picked = set(chosen)
    root = _Folder()
    for path in universe:
        if not path.endswith(suffix):
            continue
        *dirs, _ = path.split("/")
        folder = root
        folder.total += 1
        folder.picked += path in picked
        for name in dirs:
            folder = folder.children.setdefault(name, _Folder())
            folder.total += 1
            folder.picked += path in picked
        folder.files.append(path)
        if path in picked:
            folder.chosen.append(path)
    return _walk(root, "", suffix)


def _walk(folder: _Folder, prefix: str, suffix: str) -> list[str]:
    if not folder.picked:
        return []
    if prefix and _whole(folder):
        return [f"/{literal(prefix)}/**/*{suffix}"]
    patterns: list[str] = []
    for name in sorted(folder.children):
        patterns += _walk(folder.children[name], f"{prefix}/{name}" if prefix else name, suffix)
    if len(folder.chosen) <= _SINGLES or len(folder.chosen) < _MOSTLY * len(folder.files):
        patterns += [f"/{literal(p)}" for p in sorted(folder.chosen)]
    else:
        patterns.append(f"/{literal(prefix)}/*{suffix}" if prefix else f"/*{suffix}")
    return patterns


def _whole(folder: _Folder) -> bool:
    if folder.picked < 2 or folder.picked < _MOSTLY * folder.total:
        return False
    return all(
        child.total < 3 or child.picked >= _RARELY * child.total
        for child in folder.children.values()
    )


def literal(path: str) -> str:
    """``path`` with gitignore's special characters escaped (no leading `/`)."""
    escaped = re.sub(r"([\\*?\[\]])", r"\\\1", path)
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return escaped

"""What a repository's files say about it, for `gradgate init`: model, training, configs, docs.

Pure: ``survey`` takes the tracked paths and a way to read a file, and never imports or runs
user code. Model code is a Python file that defines a subclass of ``torch.nn.Module``: directly
(``nn.Module``, ``nn.Sequential``, any ``nn.<Class>``, ``LightningModule``) or through another
class of the repository that does (timm's layers derive from its own base classes). Class
headers are found with a regular expression and each header is parsed with ``ast``: parsing
every file whole costs ~10 s on a repository the size of timm (1,700 files), the headers
alone well under one. Training code calls ``.backward()`` or ``<optimizer>.step()``. Data code
defines a ``Dataset`` or a ``collate_fn``, uses transforms, or decodes images (``cv2.imread``,
``Image.open``, ``torchvision.io``).
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from configparser import ConfigParser
from dataclasses import dataclass

# Folders whose Python files are not the project's code: tests, docs, vendored environments.
_SKIPPED = frozenset({"tests", "test", "testing", "docs", "doc", "build", "dist", "site-packages",
                      "node_modules", "venv", "__pycache__"})  # fmt: skip
_CONFIG_DIRS = frozenset({"configs", "config", "conf"})
_CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
_DOC_SUFFIXES = (".md", ".mdx", ".rst")
# `class Name(bases):` at any indentation; the bases may span lines.
_CLASS = re.compile(rb"^[ \t]*class[ \t]+(\w+)[ \t]*\(([^()]*(?:\([^()]*\)[^()]*)*)\)[ \t]*:", re.M)
_BACKWARD = re.compile(rb"\.backward\(|\b\w*(?:optim|optimizer|opt)\w*\.step\(")
_DATA = re.compile(
    rb"\bcv2\.imread\(|\bImage\.open\(|\btorchvision\.io\b|\bcollate_fn\b|\btransforms\b"
    rb"|^[ \t]*class[ \t]+\w+[ \t]*\([^)]*\bDataset\b",
    re.M,
)
_TORCH_BASES = frozenset({"Module", "LightningModule"})  # any `nn.X` counts as well


@dataclass(frozen=True, slots=True)
class Survey:
    packages: tuple[str, ...]  # the project's packages, from its packaging files
    model: tuple[str, ...]  # Python files that define nn.Module subclasses
    training: tuple[str, ...]  # Python files that call backward() or an optimizer's step()
    data: tuple[str, ...]  # Python files with datasets, transforms or image decoding
    configs: tuple[str, ...]
    docs: tuple[str, ...]
    python: tuple[str, ...]  # every Python file considered (the model zone's universe)


def survey(paths: Sequence[str], read: Callable[[str], bytes | None]) -> Survey:
    """Sort the tracked ``paths`` into model, training, config and doc files."""
    python = [p for p in paths if p.endswith(".py") and _project_file(p)]
    sources = {p: read(p) or b"" for p in python}
    classes = {p: _class_headers(data) for p, data in sources.items()}
    modules = _module_classes(classes.values())
    model = [p for p, found in classes.items() if any(name in modules for name, _ in found)]
    model_set = set(model)
    training = [p for p, data in sources.items() if _BACKWARD.search(data)]
    data = [p for p, data in sources.items() if p not in model_set and _DATA.search(data)]
    configs = [p for p in paths if _is_config(p)]
    docs = [p for p in paths if _is_doc(p)]
    return Survey(
        packages=_packages(paths, read),
        model=tuple(model),
        training=tuple(p for p in training if p not in model_set),
        data=tuple(data),
        configs=tuple(configs),
        docs=tuple(docs),
        python=tuple(python),
    )


def _project_file(path: str) -> bool:
    parts = path.split("/")
    return not any(p.startswith(".") or p in _SKIPPED for p in parts[:-1]) and not parts[
        -1
    ].startswith("test_")


def _class_headers(source: bytes) -> list[tuple[str, tuple[str, ...]]]:
    """(class name, the last name of each base) for every class header in ``source``."""
    found = []
    for match in _CLASS.finditer(source):
        header = b"class _(" + match.group(2) + b"): pass"
        try:
            node = ast.parse(header.decode("utf-8", "replace")).body[0]
        except (SyntaxError, ValueError):
            continue
        assert isinstance(node, ast.ClassDef)
        found.append((match.group(1).decode("ascii", "replace"), tuple(_names(node.bases))))
    return found


def _names(bases: Iterable[ast.expr]) -> Iterable[str]:
    for base in bases:
        if isinstance(base, ast.Subscript):  # Generic[T], nn.Module[...] in stubs
            base = base.value
        if isinstance(base, ast.Attribute):
            owner = base.value.id if isinstance(base.value, ast.Name) else ""
            yield (
                f"nn.{base.attr}"
                if owner in ("nn", "torch") or base.attr == "Module"
                else base.attr
            )
        elif isinstance(base, ast.Name):
            yield base.id


def _module_classes(files: Iterable[list[tuple[str, tuple[str, ...]]]]) -> set[str]:
    """Names of the repository's classes that are nn.Module subclasses (a fixed point)."""
    bases_of: dict[str, set[str]] = {}
    for found in files:
        for name, bases in found:
            bases_of.setdefault(name, set()).update(bases)
    modules: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, named_bases in bases_of.items():
            if name not in modules and any(
                b.startswith("nn.") or b in _TORCH_BASES or b in modules for b in named_bases
            ):
                modules.add(name)
                changed = True
    return modules


def _is_config(path: str) -> bool:
    parts = path.split("/")
    if any(p.startswith(".") for p in parts) or any(p in _SKIPPED for p in parts[:-1]):
        return False
    in_config_dir = any(p in _CONFIG_DIRS for p in parts[:-1])
    if in_config_dir:
        return parts[-1].endswith((*_CONFIG_SUFFIXES, ".py"))
    return parts[-1].endswith((".yaml", ".yml"))


def _is_doc(path: str) -> bool:
    parts = path.split("/")
    if parts[-1].upper().startswith("README"):
        return not any(p.startswith(".") for p in parts)
    return parts[0] in ("docs", "doc") and parts[-1].endswith(_DOC_SUFFIXES)


def _packages(paths: Sequence[str], read: Callable[[str], bytes | None]) -> tuple[str, ...]:
    """Top-level package folders named by pyproject.toml, setup.cfg or setup.py; else the
    folders at the root (or under src/) that hold an ``__init__.py``."""
    named: list[str] = []
    if (raw := read("pyproject.toml")) is not None:
        named += _from_pyproject(raw)
    if not named and (raw := read("setup.cfg")) is not None:
        named += _from_setup_cfg(raw)
    if not named and (raw := read("setup.py")) is not None:
        named += _from_setup_py(raw)
    inits = {p.rsplit("/", 1)[0] for p in paths if p.endswith("/__init__.py")}
    folders = [
        d
        for d in sorted(inits)
        if d.count("/") == 0 or (d.startswith("src/") and d.count("/") == 1)
    ]
    chosen = [d for d in folders if d.rsplit("/", 1)[-1] in {n.split(".")[0] for n in named}]
    return tuple(chosen or [d for d in folders if d.rsplit("/", 1)[-1] not in _SKIPPED])


def _from_pyproject(raw: bytes) -> list[str]:
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    names: list[str] = []
    setuptools = tool.get("setuptools", {})
    if isinstance(setuptools, dict) and isinstance(setuptools.get("packages"), list):
        names += [p for p in setuptools["packages"] if isinstance(p, str)]
    for table in (tool.get("hatch", {}), tool.get("poetry", {})):
        if isinstance(table, dict) and isinstance(table.get("packages"), list):
            names += [
                p["include"] for p in table["packages"] if isinstance(p, dict) and "include" in p
            ]
    project = data.get("project", {})
    if not names and isinstance(project, dict) and isinstance(project.get("name"), str):
        names.append(project["name"].replace("-", "_"))
    return names


def _from_setup_cfg(raw: bytes) -> list[str]:
    parser = ConfigParser()
    try:
        parser.read_string(raw.decode("utf-8"))
    except Exception:  # configparser raises a family of errors on malformed files
        return []
    listed = parser.get("options", "packages", fallback="")
    name = parser.get("metadata", "name", fallback="").replace("-", "_")
    return [p.strip() for p in listed.split() if p.strip() and not p.startswith("find:")] or (
        [name] if name else []
    )


def _from_setup_py(raw: bytes) -> list[str]:
    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("packages", "name"):
            if isinstance(node.value, ast.List):
                names += [
                    e.value
                    for e in node.value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                ]
            elif isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                names.append(node.value.value.replace("-", "_"))
    return names

"""What a repository's files say about it, for `gradgate init`: model, training, configs, docs.

Pure: ``survey`` takes the tracked paths and a way to read a file, and never imports or runs
user code. Model code is a Python file that defines a subclass of ``torch.nn.Module``: directly
(``nn.Module``, ``nn.Sequential``, any ``nn.<Class>``, ``LightningModule``) or through another
class of the repository that does (timm's layers derive from its own base classes). Class
headers are found with a regular expression and each header is parsed with ``ast``: parsing
every file whole costs ~10 s on a repository the size of timm (1,700 files), the headers
alone well under one. A script (`train*.py`, a `__main__` guard, argparse at the top level) is
not model code even when it defines a module. Training code calls ``.backward()`` or
``<optimizer>.step()``; code that seeds the random generators (a `set_seed` helper) goes with
it. Loss code
(outside those) is named like it (`losses.py`, `criterion.py`) or defines a `..._loss` function.
Described code is the Python files the docs name (`python sample.py`), beside the doc or from
the root: a change there can contradict a doc the pull request never touched. Data code
defines a ``Dataset`` or a ``collate_fn``, uses transforms, or decodes images (``cv2.imread``,
``Image.open``, ``torchvision.io``).
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
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
# Imports that rename torch.nn or one of its classes (`from torch.nn import Module as Base`,
# `import torch.nn as tnn`): a class deriving from the new name is a module all the same.
_FROM_TORCH = re.compile(rb"from[ \t]+torch(?:\.nn)?[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)")
_IMPORT_NN = re.compile(rb"import[ \t]+torch\.nn[ \t]+as[ \t]+\w+")  # literal prefixes: fast scans
_LOSS_DEF = re.compile(rb"^[ \t]*def[ \t]+\w*loss\w*[ \t]*\(", re.M | re.I)
_LOSS_NAME = re.compile(r"loss|criterion", re.I)
_SCRIPT = re.compile(r"(?<![\w/.-])((?:\.{0,2}/)?[\w./-]*\w\.py)\b")  # `python tools/plot.py`
# A file run as a program, not imported as model code (issue 36): a `__main__` guard, or
# argparse at its top level. Training scripts that define a module of their own were put in the
# model zone, where the model checks can run none of their lines.
_MAIN = re.compile(rb"^if[ \t]+__name__[ \t]*==[ \t]*['\"]__main__['\"]", re.M)
_TOP_ARGPARSE = re.compile(
    rb"^(?:\w+[ \t]*=[ \t]*)?argparse\.ArgumentParser\(|^\w+\.(?:add_argument|parse_args)\(",
    re.M,
)
# Seeding: a `set_seed` helper decides what every run draws; a change to it changes training.
_SEED = re.compile(
    rb"\btorch\.(?:cuda\.)?manual_seed(?:_all)?\(|\bnp\.random\.seed\(|\brandom\.seed\("
)


@dataclass(frozen=True, slots=True)
class Survey:
    packages: tuple[str, ...]  # the project's packages, from its packaging files
    model: tuple[str, ...]  # Python files that define nn.Module subclasses
    training: tuple[str, ...]  # Python files that call backward() or an optimizer's step()
    seeding: tuple[str, ...]  # other Python files that seed the random generators
    losses: tuple[str, ...]  # other Python files that define losses
    described: tuple[str, ...]  # other Python files the docs name
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
    model = [p for p in model if not _is_script(p, sources[p])] or model
    model_set = set(model)
    training = [p for p, data in sources.items() if _BACKWARD.search(data)]
    configs = [p for p in paths if _is_config(p)]
    docs = [p for p in paths if _is_doc(p)]
    training = [p for p in training if p not in model_set]
    zoned = model_set | set(training)
    # Data code in the model or training zone is gated there: no zone of the same paths twice.
    data = [p for p, data in sources.items() if p not in zoned and _DATA.search(data)]
    seeding = [p for p, data in sources.items() if p not in zoned and _SEED.search(data)]
    zoned |= set(seeding)
    losses = [p for p, data in sources.items() if p not in zoned and _is_loss(p, data)]
    zoned |= set(losses)
    described = [p for p in _named_in(docs, python, read) if p not in zoned]
    return Survey(
        packages=_packages(paths, read),
        model=tuple(model),
        training=tuple(training),
        seeding=tuple(seeding),
        losses=tuple(losses),
        described=tuple(described),
        data=tuple(data),
        configs=tuple(configs),
        docs=tuple(docs),
        python=tuple(python),
    )


def _is_script(path: str, source: bytes) -> bool:
    """A program, not a module: `train*.py`, a `__main__` guard, argparse at the top level."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith("train") or bool(_MAIN.search(source) or _TOP_ARGPARSE.search(source))


def _is_loss(path: str, source: bytes) -> bool:
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return bool(_LOSS_NAME.search(stem) or _LOSS_DEF.search(source))


def _named_in(
    docs: Sequence[str], python: Sequence[str], read: Callable[[str], bytes | None]
) -> list[str]:
    """The Python files of ``python`` that a doc names: from the doc's folder or the root."""
    known = set(python)
    found: set[str] = set()
    for doc in docs:
        text = (read(doc) or b"").decode("utf-8", "replace")
        folder = doc.rpartition("/")[0]
        for name in _SCRIPT.findall(text):
            for path in (_joined(folder, name), _joined("", name)):
                if path in known:
                    found.add(path)
    return sorted(found)


def _joined(folder: str, name: str) -> str:
    parts: list[str] = folder.split("/") if folder else []
    for part in name.split("/"):
        if part == "..":
            if not parts:
                return ""
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def _project_file(path: str) -> bool:
    parts = path.split("/")
    return not any(p.startswith(".") or p in _SKIPPED for p in parts[:-1]) and not parts[
        -1
    ].startswith("test_")


def _class_headers(source: bytes) -> list[tuple[str, tuple[str, ...]]]:
    """(class name, the last name of each base) for every class header in ``source``; a base
    imported from torch.nn under another name is named as ``nn.<its class>``."""
    found = []
    aliases: dict[str, str] | None = None
    for match in _CLASS.finditer(source):
        if aliases is None:
            aliases = _torch_aliases(source)
        header = b"class _(" + match.group(2) + b"): pass"
        try:
            node = ast.parse(header.decode("utf-8", "replace")).body[0]
        except (SyntaxError, ValueError):
            continue
        assert isinstance(node, ast.ClassDef)
        name = match.group(1).decode("ascii", "replace")
        found.append((name, tuple(_names(node.bases, aliases))))
    return found


def _torch_aliases(source: bytes) -> dict[str, str]:
    """Names that ``source`` binds to torch.nn (``"nn"``) or to one of its classes under
    another name (``"nn.Module"``)."""
    aliases: dict[str, str] = {}
    if b" as " not in source:
        return aliases
    for match in (*_FROM_TORCH.finditer(source), *_IMPORT_NN.finditer(source)):
        if b" as " not in match.group(0):
            continue
        try:
            node = ast.parse(match.group(0).decode("utf-8", "replace").strip()).body[0]
        except (SyntaxError, ValueError, IndexError):
            continue
        for alias in getattr(node, "names", ()):
            if alias.asname is None:
                continue
            module = getattr(node, "module", None)
            if module is None or (module == "torch" and alias.name == "nn"):
                aliases[alias.asname] = "nn"
            elif module == "torch.nn":
                aliases[alias.asname] = f"nn.{alias.name}"
    return aliases


def _names(bases: Iterable[ast.expr], aliases: Mapping[str, str]) -> Iterable[str]:
    for base in bases:
        if isinstance(base, ast.Subscript):  # Generic[T], nn.Module[...] in stubs
            base = base.value
        if isinstance(base, ast.Attribute):
            owner = base.value.id if isinstance(base.value, ast.Name) else ""
            yield (
                f"nn.{base.attr}"
                if owner in ("nn", "torch") or aliases.get(owner) == "nn" or base.attr == "Module"
                else base.attr
            )
        elif isinstance(base, ast.Name):
            yield aliases.get(base.id, base.id)


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


def model_classes(sources: Mapping[str, bytes]) -> list[tuple[str, str]]:
    """(path, class name) of every nn.Module subclass defined in ``sources`` (path -> text)."""
    headers = {path: _class_headers(data) for path, data in sources.items()}
    modules = _module_classes(headers.values())
    return [(path, name) for path, found in headers.items() for name, _ in found if name in modules]

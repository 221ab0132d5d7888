"""The options a script of the repository accepts at one revision, read with ast (static).

argparse: every `add_argument("--lr", ...)` in the script and in the project modules it imports
(prefixes of long options too, as argparse allows, unless `allow_abbrev=False`); click: every
`@click.option("--lr/--no-lr")`; typer: the parameters of the command function (`batch_size` is
`--batch-size`; a bool also `--no-batch-size`); nanoGPT's configurator
(`exec(open('configurator.py').read())`): `--name=value` for each module-level name; Hydra
(`@hydra.main(config_path=..., config_name=...)`): `key=value` overrides whose first part is a
top-level key of the primary config or a config group. A script that reads `parse_known_args`,
`sys.argv` by hand, or none of these, accepts what it likes: unknown, never a finding.
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

import yaml

from gradgate.checks.api_contract.names import bind_import, module_name
from gradgate.checks.config_docs.snapshot import Reader, Snapshot

_ALWAYS = frozenset({"-h", "--help"})
_OTHER_PARSERS = frozenset(
    {"HfArgumentParser", "parse_args_into_dataclasses", "LightningCLI", "tyro", "jsonargparse",
     "simple_parsing", "Fire", "absl", "docopt", "from_cli"}
)  # fmt: skip
_HELPER = re.compile(r"add_\w*arg\w*")
_ARGPARSE = frozenset({"add_argument", "add_argument_group", "add_mutually_exclusive_group"})
_HYDRA_FLAGS = frozenset(
    {"--multirun", "-m", "--cfg", "-c", "--help", "-h", "--hydra-help", "--version",
     "--config-path", "-cp", "--config-name", "-cn", "--config-dir", "-cd", "--info", "-i",
     "--package", "-p", "--resolve", "--run", "-r", "--shell-completion", "-sc",
     "--experimental-rerun"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Accepted:
    """What a script accepts: its options, how they were declared, and where."""

    path: str
    parser: str  # "argparse" | "click" | "typer" | "configurator" | "hydra"
    flags: frozenset[str]
    prefixes: bool  # argparse: an unambiguous prefix of a long option is accepted
    overrides: frozenset[str] = frozenset()  # Hydra: first parts an override may name

    def accepts_flag(self, flag: str) -> bool:
        if flag in self.flags or flag in _ALWAYS:
            return True
        if self.prefixes and flag.startswith("--"):
            return sum(1 for f in self.flags if f.startswith(flag)) == 1
        return False

    def accepts_override(self, key: str) -> bool:
        return key.split(".")[0] in self.overrides


class Scripts:
    """What the project's scripts accept at one revision, each file parsed at most once."""

    def __init__(self, reader: Reader, snapshot: Snapshot) -> None:
        self._reader = reader
        self._snap = snapshot
        self._cache: dict[str, Accepted | None] = {}

    def path_of(self, script: str, *, module: bool) -> str | None:
        if not module:
            return script if script in self._snap.files else None
        base = script.replace(".", "/")
        for candidate in (f"{base}.py", f"src/{base}.py", f"{base}/__main__.py"):
            if candidate in self._snap.files:
                return candidate
        return None

    def accepted(self, path: str) -> Accepted | None:
        if path not in self._cache:
            self._cache[path] = self._read(path)
        return self._cache[path]

    def _tree(self, path: str) -> ast.Module | None:
        text = self._reader.text(self._snap.revision, path)
        try:
            return ast.parse(text) if isinstance(text, str) else None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None

    def _read(self, path: str) -> Accepted | None:
        tree = self._tree(path)
        if tree is None or _reads_argv(tree):
            return None
        hydra = _hydra(tree)
        if hydra is not None:
            return self._hydra(path, *hydra)
        if _configurator(tree):
            names = {f"--{n}" for n in _module_names(tree)}
            return Accepted(path, "configurator", frozenset(names), prefixes=False)
        click = _click(tree)
        if click:
            return Accepted(path, "click", frozenset(click), prefixes=False)
        typer = _typer(tree)
        if typer is not None:
            return Accepted(path, "typer", frozenset(typer), prefixes=False)
        flags, abbrev = _argparse(tree)
        for imported in self._own_imports(path, tree):
            more = self._tree(imported)
            if more is not None:
                extra, still = _argparse(more)
                flags |= extra
                abbrev = abbrev and still
        if not flags:
            return None
        return Accepted(path, "argparse", frozenset(flags), prefixes=abbrev)

    def _own_imports(self, path: str, tree: ast.Module) -> list[str]:
        bound: dict[str, str] = {}
        package = module_name(path).rpartition(".")[0]
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                bind_import(node, package, bound)
        found = []
        for qualified in set(bound.values()):
            parts = qualified.split(".")
            for cut in (len(parts), len(parts) - 1):
                candidate = "/".join(parts[:cut]) + ".py"
                if cut and candidate in self._snap.files and candidate != path:
                    found.append(candidate)
                    break
        return sorted(found)

    def _hydra(self, path: str, config_path: str, config_name: str) -> Accepted | None:
        root = posixpath.normpath(posixpath.join(posixpath.dirname(path), config_path))
        primary = f"{root}/{config_name}.yaml".removeprefix("./")
        text = self._reader.text(self._snap.revision, primary)
        if not isinstance(text, str):
            return None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return None
        if not isinstance(data, dict):
            return None
        keys = {str(k) for k in data if k != "defaults"}
        for entry in data.get("defaults") or ():
            if isinstance(entry, dict):
                keys |= {str(k).split("@")[0].split("/")[0].lstrip("/") for k in entry}
        prefix = f"{root}/".removeprefix("./")
        keys |= {f[len(prefix) :].split("/")[0] for f in self._snap.files if f.startswith(prefix)}
        keys |= {"hydra"}
        return Accepted(path, "hydra", _HYDRA_FLAGS, prefixes=False, overrides=frozenset(keys))


def _calls(tree: ast.Module, name: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Attribute) and n.func.attr == name)
            or (isinstance(n.func, ast.Name) and n.func.id == name)
        )
    ]


def _strings(call: ast.Call) -> list[str]:
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def _reads_argv(tree: ast.Module) -> bool:
    """Whether the script takes options this reading cannot list: unknown ones kept, options made
    in a loop or by a helper of another library, argv read by hand, another parser library."""
    if _calls(tree, "parse_known_args") or _calls(tree, "parse_known_intermixed_args"):
        return True
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute | ast.alias):
            if isinstance(node, ast.alias):
                name = node.name.rsplit(".", 1)[-1]
            else:
                name = node.id if isinstance(node, ast.Name) else node.attr
            if name in _OTHER_PARSERS:
                return True
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func).rsplit(".", 1)[-1]
            if _HELPER.fullmatch(called) and called not in _ARGPARSE and called not in defined:
                return True  # Lightning's `add_argparse_args(parser)` and the like
            if called in ("add_argument", "option") and node.args and not _strings(node):
                return True  # `add_argument(f"--{name}")`: options made in a loop
            if called == "ArgumentParser" and any(k.arg == "parents" for k in node.keywords):
                return True
    return any(
        isinstance(n, ast.Attribute) and n.attr == "argv" and ast.unparse(n.value) == "sys"
        for n in ast.walk(tree)
    ) and not _calls(tree, "add_argument")


def _argparse(tree: ast.Module) -> tuple[set[str], bool]:
    flags = {s for call in _calls(tree, "add_argument") for s in _strings(call) if s[:1] == "-"}
    abbrev = not any(
        isinstance(k.value, ast.Constant) and k.value.value is False
        for call in _calls(tree, "ArgumentParser")
        for k in call.keywords
        if k.arg == "allow_abbrev"
    )
    return flags, abbrev


def _click(tree: ast.Module) -> set[str]:
    flags: set[str] = set()
    for call in _calls(tree, "option"):
        if ast.unparse(call.func).split(".")[0] not in ("click", "option"):
            continue
        for text in _strings(call):
            for part in text.split("/"):
                if part.strip()[:1] == "-":
                    flags.add(part.strip())
    return flags


def _typer(tree: ast.Module) -> set[str] | None:
    commands = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef)
        and any("command" in ast.unparse(d) for d in n.decorator_list)
    ]
    for call in _calls(tree, "run"):
        if ast.unparse(call.func) == "typer.run" and call.args:
            named = ast.unparse(call.args[0])
            commands += [
                n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == named
            ]
    if not commands or "typer" not in ast.dump(tree):
        return None
    flags: set[str] = set()
    for func in commands:
        args = func.args
        defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
        for arg, default in zip(args.args, defaults, strict=True):
            declared = _typer_names(default)
            if declared is None:
                continue  # an Argument: positional
            flags |= declared or {"--" + arg.arg.replace("_", "-")}
            if ast.unparse(arg.annotation or ast.Constant(None)) == "bool" and not declared:
                flags.add("--no-" + arg.arg.replace("_", "-"))
    return flags


def _typer_names(default: ast.expr | None) -> set[str] | None:
    """The names a typer `Option(...)` declares (empty: the parameter's own); None: Argument."""
    if isinstance(default, ast.Call):
        called = ast.unparse(default.func).rsplit(".", 1)[-1]
        if called == "Argument":
            return None
        if called == "Option":
            return {p for s in _strings(default) for p in s.split("/") if p[:1] == "-"}
    return set()


def _configurator(tree: ast.Module) -> bool:
    return any("configurator" in ast.unparse(call) for call in _calls(tree, "exec"))


def _module_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _hydra(tree: ast.Module) -> tuple[str, str] | None:
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) in (
                "hydra.main",
                "main",
            ):
                given = {
                    k.arg: k.value.value
                    for k in decorator.keywords
                    if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
                }
                if "config_name" in given and "hydra" in ast.dump(tree):
                    return given.get("config_path", "."), given["config_name"]
    return None

"""Where the rules of `dl-lint` apply in one Python module (pure: a syntax tree in, hits out).

Names are resolved the way a reader would, statically, through the module's imports
(`np.random.seed` -> `numpy.random.seed`, `from torch import save` -> `torch.save`). Nothing is
imported. A hit says where (its lines) and what (``key``): the same hit in the base's version of
the file is not the PR's doing.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from gradgate.checks.api_contract.names import bind_import, dotted, is_package, module_name
from gradgate.checks.dl_lint.syntax import (
    comment_lines,
    is_cuda,
    is_dataclass,
    kw,
    kw_true,
    last,
    loader_unseeded,
    span,
    takes_device,
    timedelta_seconds,
)

_TORCH_SEEDS = frozenset({"manual_seed", "manual_seed_all", "seed_everything", "set_seed"})
_OTHER_SEEDS = frozenset({"random.seed", "numpy.random.seed"})
# A module's hooks (`register_<kind>_hook`), and the global ones `register_module_<kind>_hook`;
# a tensor's `register_hook` lives one step and is not one of them.
_HOOK_KINDS = ("forward", "forward_pre", "full_backward", "full_backward_pre", "backward")
_MODULE_HOOKS = frozenset(
    f"register_{scope}{kind}_hook" for scope in ("", "module_") for kind in _HOOK_KINDS
)
_NCCL_ENV = ("NCCL", "TIMEOUT")
_MODULE_NAMES = frozenset({"model", "net", "module", "network", "encoder", "decoder", "backbone"})
_NAMESPACE_NAMES = frozenset({"args", "opt", "opts", "hparams", "namespace", "flags"})
_CONFIG_NAMES = frozenset({"config", "cfg", "conf", "configuration"})
# Calls whose result is tensors and plain containers (by the called name's last part).
_PLAIN_CALLS = frozenset({"state_dict", "to_container", "asdict", "vars", "dict", "tolist"})


@dataclass(frozen=True, slots=True)
class Hit:
    rule: str
    line: int
    end: int
    key: str  # the rule and the flagged code: the same key at base is not the PR's doing
    words: Mapping[str, str] = field(default_factory=dict)


# What a module must mention for a rule that reads one revision to apply: a module without any
# is not walked (most changed files of a PR).
NEEDLES = re.compile(
    r"seed|DataLoader|init_process_group|NCCL|DistributedDataParallel|DDP|\bsave\(|\bload\("
    r"|register_\w*hook|cuda"
)


def scan(tree: ast.Module, path: str, source: str) -> list[Hit]:
    """Every place in the module where a rule applies (rules that compare revisions aside)."""
    return list(_Scan(tree, path, source).hits())


class _Scan:
    def __init__(self, tree: ast.Module, path: str, source: str) -> None:
        self.tree, self.source = tree, source
        module = module_name(path)
        package = module if is_package(path) else module.rpartition(".")[0]
        self.names: dict[str, str] = {}
        self.classes: dict[str, str] = {}  # class defined here -> "dataclass" or "module"
        classes: list[ast.ClassDef] = []
        calls: list[ast.Call] = []
        self.assigns: list[ast.Assign] = []
        for node in ast.walk(tree):  # one walk: imports, classes, calls and assignments
            if isinstance(node, ast.Call):
                calls.append(node)
            elif isinstance(node, ast.Assign):
                self.assigns.append(node)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                bind_import(node, package, self.names)
            elif isinstance(node, ast.ClassDef):
                classes.append(node)
        for node in classes:
            kind = self._class_kind(node)
            if kind:
                self.classes[node.name] = kind
        self.called = [(n, self.resolve(n.func)) for n in calls]
        self.seeds_torch = any(last(q, n) in _TORCH_SEEDS for n, q in self.called)
        self.seeds = self.seeds_torch or any(q in _OTHER_SEEDS for _, q in self.called)

    def resolve(self, expr: ast.expr) -> str | None:
        parts = dotted(expr)
        if parts is None:
            return None
        head = self.names.get(parts[0], parts[0])
        return ".".join([head, *parts[1:]])

    def _class_kind(self, node: ast.ClassDef) -> str | None:
        if any(is_dataclass(d) for d in node.decorator_list):
            return "dataclass"
        for base in node.bases:
            name = self.resolve(base) or ""
            if name.endswith(("nn.Module", "nn.modules.module.Module")) or name == "Module":
                return "module"
        return None

    def hits(self) -> Iterator[Hit]:
        for node, qualname in self.called:
            yield from self._call(node, qualname)
        yield from self._environment()
        yield from self._in_functions(self.tree, forward=False, device=False)

    def _hit(self, rule: str, node: ast.AST, **words: str) -> Hit:
        code = ast.get_source_segment(self.source, node) or ast.dump(node)
        line = getattr(node, "lineno", 1)
        end = getattr(node, "end_lineno", None) or line
        return Hit(rule, line, end, f"{rule}:{' '.join(code.split())}", words)

    def _call(self, node: ast.Call, qualname: str | None) -> Iterator[Hit]:
        name = qualname or ""
        if name in _OTHER_SEEDS and not self.seeds_torch:
            yield self._hit("seed-without-torch", node, call=name)
        elif last(name, node) == "DataLoader" and self.seeds and loader_unseeded(node):
            yield self._hit("loader-workers-unseeded", node)
        elif name.endswith("init_process_group"):
            yield from self._process_group(node)
        elif last(name, node) in ("DistributedDataParallel", "DDP") and kw_true(
            node, "find_unused_parameters"
        ):
            yield self._explained(self._hit("find-unused-parameters", node), node)
        elif name == "torch.save":
            saved = node.args[0] if node.args else kw(node, "obj")
            what = None if saved is None else self._pickled(saved)
            if what is not None:
                yield self._hit("save-pickled-objects", node, what=what)
        elif name == "torch.load" and not kw_true(node, "weights_only"):
            where = node.args[0] if node.args else kw(node, "f")
            if where is not None and not self._constant_path(where):
                yield self._hit("load-unsafe", node)

    def _explained(self, hit: Hit, node: ast.AST) -> Hit:
        """The hit, with the lines of the comments that say why (on the statement or the line
        above it) in ``words["explained"]``: the rule's own fix, which the check weighs by
        where the comment stands (issue 34: one the PR adds does not clear a blocking rule)."""
        first = getattr(node, "lineno", 0)
        last = getattr(node, "end_lineno", None) or first
        lines = [n for n in range(first - 1, last + 1) if n in self.comments]
        if not lines:
            return hit
        return replace(hit, words={**hit.words, "explained": ",".join(map(str, lines))})

    def _process_group(self, node: ast.Call) -> Iterator[Hit]:
        timeout = kw(node, "timeout")
        seconds = None if timeout is None else timedelta_seconds(timeout)
        if seconds is None:
            return
        backend_node = kw(node, "backend") or (node.args[0] if node.args else None)
        backend = (
            backend_node.value
            if isinstance(backend_node, ast.Constant) and isinstance(backend_node.value, str)
            else None
        )
        default = 600.0 if backend == "nccl" else 1800.0
        if seconds * 3 <= default or seconds >= default * 3:
            hit = self._hit(
                "dist-timeout",
                node,
                what=f"`init_process_group` with a timeout of {span(seconds)} "
                f"(the `{backend or 'default'}` backend's default is {span(default)})",
                how=span(seconds),
            )
            yield self._explained(hit, node)

    @functools.cached_property
    def comments(self) -> set[int]:
        return comment_lines(self.source)

    def _environment(self) -> Iterator[Hit]:
        nodes: list[ast.Assign | ast.Call] = [*self.assigns, *(n for n, _ in self.called)]
        for node in nodes:
            key: ast.expr | None = None
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and self._is_environ(target.value):
                        key = target.slice
            elif isinstance(node, ast.Call) and node.args:
                name = self.resolve(node.func) or ""
                if name in ("os.environ.setdefault", "os.putenv", "os.environ.__setitem__"):
                    key = node.args[0]
            if (
                isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and all(part in key.value.upper() for part in _NCCL_ENV)
            ):
                hit = self._hit(
                    "dist-timeout",
                    node,
                    what=f"`{key.value}` set in the environment",
                    how="longer or shorter than the backend's default",
                )
                yield self._explained(hit, node)

    def _is_environ(self, expr: ast.expr) -> bool:
        return self.resolve(expr) == "os.environ"

    def _pickled(self, expr: ast.expr) -> str | None:
        """What in a saved value needs unpickling beyond tensors and containers, or None."""
        if isinstance(expr, ast.Dict):
            for value in expr.values:
                found = self._pickled(value)
                if found:
                    return found
            return None
        if isinstance(expr, ast.List | ast.Tuple | ast.Set):
            return next((f for f in map(self._pickled, expr.elts) if f), None)
        if isinstance(expr, ast.Call):
            name = self.resolve(expr.func) or ""
            short = name.rpartition(".")[2]
            if short in _PLAIN_CALLS:
                return None
            if short == "parse_args" or name == "argparse.Namespace":
                return "an `argparse.Namespace`"
            kind = self.classes.get(short)
            if kind == "dataclass":
                return f"a dataclass (`{short}`)"
            if kind == "module":
                return f"a whole `nn.Module` (`{short}`)"
            return None
        parts = dotted(expr)
        if parts is None:
            return None
        bound = self._bound(parts)
        if bound is not None:
            return self._pickled(bound) if not isinstance(bound, ast.Name) else None
        word = parts[-1].lower()
        shown = ".".join(parts)
        if word in _MODULE_NAMES or word.endswith("_model"):
            return f"a whole `nn.Module` (`{shown}`)"
        if word in _NAMESPACE_NAMES:
            return f"an `argparse.Namespace` (`{shown}`)"
        if word in _CONFIG_NAMES or word.endswith("_config"):
            return f"a config object (`{shown}`)"
        return None

    def _bound(self, parts: list[str]) -> ast.expr | None:
        """What a plain name was last assigned in this module, when that is one call or value."""
        if len(parts) != 1:
            return None
        found: ast.expr | None = None
        for node in self.assigns:
            if any(isinstance(t, ast.Name) and t.id == parts[0] for t in node.targets):
                found = node.value
        return found

    def _constant_path(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return True
        if isinstance(expr, ast.JoinedStr):
            return False
        bound = self._bound(dotted(expr) or [])
        return isinstance(bound, ast.Constant) and isinstance(bound.value, str)

    def _in_functions(self, node: ast.AST, *, forward: bool, device: bool) -> Iterator[Hit]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                init = next(
                    (
                        n
                        for n in child.body
                        if isinstance(n, ast.FunctionDef) and n.name == "__init__"
                    ),
                    None,
                )
                yield from self._in_functions(
                    child, forward=False, device=init is not None and takes_device(init)
                )
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from self._in_functions(
                    child,
                    forward=forward or child.name == "forward",
                    device=device or takes_device(child),
                )
            else:
                if isinstance(child, ast.Call):
                    yield from self._inside(child, forward=forward, device=device)
                yield from self._in_functions(child, forward=forward, device=device)

    def _inside(self, node: ast.Call, *, forward: bool, device: bool) -> Iterator[Hit]:
        func = node.func
        if forward and isinstance(func, ast.Attribute) and func.attr in _MODULE_HOOKS:
            yield self._hit("hook-in-forward", node, call=f".{func.attr}(...)")
        if not device:
            return
        if isinstance(func, ast.Attribute) and func.attr == "cuda" and not node.args:
            yield self._hit("hardcoded-cuda", node, what="`.cuda()`")
        for keyword in node.keywords:
            if keyword.arg == "device" and is_cuda(keyword.value):
                yield self._hit("hardcoded-cuda", node, what=f'`device="{keyword.value.value}"`')  # type: ignore[attr-defined]
        if (self.resolve(func) or "") == "torch.device" and node.args and is_cuda(node.args[0]):
            yield self._hit("hardcoded-cuda", node, what='`torch.device("cuda")`')

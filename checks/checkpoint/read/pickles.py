"""Find what a pickle would import and call, by reading its opcodes; nothing is ever unpickled.

``scan(stream)`` walks a pickle with ``pickletools.genops`` and replays the opcodes on a stack
of symbols (strings, numbers, containers, globals, calls), so it knows the shape of the object
without building it. Every global outside the tensor machinery that torch's own
``weights_only`` unpickler allows is *foreign*: a class or function the pickle would import
and call (``argparse.Namespace``, a dataclass config, numpy scalars, ``os.system``). The result
names each foreign object by its key path in the checkpoint (``args``, ``config/optimizer``),
so a finding can say where it sits. A pickle that cannot be replayed (truncated, malformed) is
an UnreadableCheckpoint.

Why static: gradgate's rule is that checkpoints carry tensors only, and a finding must not
depend on running the pickle. Loading it with ``weights_only=True`` would stop at the first
foreign global with an error; this names all of them and where they are, runs no code, and
needs no torch (about 1 µs per opcode; a 1,000-tensor state dict is ~25,000 opcodes).
"""

from __future__ import annotations

import io
import pickletools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from gradgate.checks.errors import UnreadableCheckpoint

# torch's weights_only allow-list (torch/_weights_only_unpickler.py, _get_allowed_globals and
# _tensor_rebuild_functions), as module -> names; "*" suffixes are matched as prefixes.
_TORCH_DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex32",
    "complex64",
    "complex128",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn_x2",
    "qint8",
    "quint8",
    "qint32",
    "quint4x2",
    "quint2x4",
    "bits1x8",
    "bits2x4",
    "bits4x2",
    "bits8",
    "bits16",
    "int1",
    "int2",
    "int3",
    "int4",
    "int5",
    "int6",
    "int7",
    "uint1",
    "uint2",
    "uint3",
    "uint4",
    "uint5",
    "uint6",
    "uint7",
    "per_tensor_affine",
    "per_channel_affine",
    "per_tensor_symmetric",
    "per_channel_symmetric",
    "per_channel_affine_float_qparams",
    "Size",
    "device",
    "Tensor",
]
_ALLOWED: dict[str, tuple[str, ...]] = {
    "torch": (*_TORCH_DTYPES, "*Storage", "*Tensor"),
    "torch.cuda": ("*Storage", "*Tensor"),
    "torch.sparse": ("*Tensor",),
    "torch.cuda.sparse": ("*Tensor",),
    "torch._utils": ("_rebuild_*",),
    "torch._tensor": ("_rebuild_from_type_v2",),
    "torch.storage": ("TypedStorage", "UntypedStorage"),
    "torch.serialization": ("_get_layout",),
    "torch.nn.parameter": ("Parameter",),
    "collections": ("OrderedDict", "Counter"),
    "builtins": ("set", "frozenset", "bytearray", "complex", "slice"),
    "__builtin__": ("set", "frozenset", "bytearray", "complex", "slice"),  # protocol 2's name
    "_codecs": ("encode",),  # how protocol 2 pickles bytes
}
# Modules whose functions run code or touch the system when called: named as such.
_EXECUTES = frozenset(
    [
        "os",
        "posix",
        "nt",
        "subprocess",
        "sys",
        "shutil",
        "socket",
        "runpy",
        "pty",
        "importlib",
        "pickle",
        "marshal",
        "ctypes",
        "code",
        "webbrowser",
        "commands",
        "platform",
        "multiprocessing",
        "threading",
        "asyncio",
        "io",
        "builtins",
        "__builtin__",
    ]
)
_CALLS_CODE = frozenset(
    [
        "eval",
        "exec",
        "compile",
        "getattr",
        "setattr",
        "__import__",
        "open",
        "breakpoint",
        "input",
        "apply",
    ]
)
_MAX_PATH_PARTS = 6


@dataclass(frozen=True, slots=True)
class Global:
    module: str
    name: str

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def allowed(self) -> bool:
        names = _ALLOWED.get(self.module, ())
        return any(
            self.name == n
            or (n.startswith("*") and self.name.endswith(n[1:]))
            or (n.endswith("*") and self.name.startswith(n[:-1]))
            for n in names
        )

    @property
    def executes_code(self) -> bool:
        root = self.module.split(".")[0]
        if root in ("builtins", "__builtin__"):
            return self.name in _CALLS_CODE
        return root in _EXECUTES


@dataclass(eq=False, slots=True)
class _Call:
    func: Any
    args: Any
    items: list[tuple[Any, Any]] = field(default_factory=list)  # SETITEM(S) on the result
    state: Any = None  # BUILD


@dataclass(eq=False, slots=True)
class _Dict:
    items: list[tuple[Any, Any]] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class _Seq:
    items: list[Any] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Persistent:
    value: Any


class _Mark:
    pass


_MARK = _Mark()
_ANY = object()  # a value whose content does not matter here (a float, a buffer)


@dataclass(frozen=True, slots=True)
class Foreign:
    path: str  # where in the checkpoint: "args", "config/optimizer", "" for the top level
    globals: tuple[str, ...]  # what it imports, dotted, in order of appearance
    executes_code: bool  # one of them runs code or touches the system when called


@dataclass(frozen=True, slots=True)
class PickleScan:
    foreign: tuple[Foreign, ...]
    top_keys: tuple[str, ...] | None  # the top-level dict's string keys; None: not a dict
    storages: tuple[tuple[str, str], ...]  # (record key, storage type) of torch storages


class BoundedReader:
    """A binary stream that refuses to read past ``limit`` bytes, so a pickle that claims a
    huge string cannot make the scanner allocate it."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self._raw, self._left = raw, limit

    def read(self, n: int = -1) -> bytes:
        if n < 0 or n > self._left:
            raise UnreadableCheckpoint(
                "its pickle claims more bytes than the file holds.", reason="pickle"
            )
        data = self._raw.read(n)
        self._left -= len(data)
        return data

    def readline(self) -> bytes:
        line = self._raw.readline(min(self._left, 1 << 16))
        self._left -= len(line)
        return line


def scan(stream: BoundedReader | io.BytesIO) -> PickleScan:
    """Replay one pickle from ``stream`` (left just after its STOP opcode)."""
    try:
        root = _replay(stream)
    except UnreadableCheckpoint:
        raise
    except (ValueError, IndexError, KeyError, TypeError, AttributeError, EOFError) as exc:
        raise UnreadableCheckpoint(
            f"its pickle is corrupt or cut short ({exc}).", reason="pickle"
        ) from None
    return _summarise(root)


def _replay(stream: Any) -> Any:
    stack: list[Any] = []
    memo: dict[int, Any] = {}
    for opcode, arg, _pos in pickletools.genops(stream):
        name = opcode.name
        if name == "STOP":
            return stack.pop()
        if name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[int(str(arg))] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            stack.append(memo[int(str(arg))])
        elif name == "MARK":
            stack.append(_MARK)
        elif name == "GLOBAL":
            module, _, attr = str(arg).partition(" ")
            stack.append(Global(module, attr))
        elif name == "STACK_GLOBAL":
            attr, module = stack.pop(), stack.pop()
            stack.append(Global(str(module), str(attr)))
        elif name in ("EXT1", "EXT2", "EXT4"):  # the copyreg extension registry: unknowable
            stack.append(Global("copyreg extension", str(arg)))
        elif name in ("REDUCE", "NEWOBJ"):
            args = stack.pop()
            stack.append(_Call(stack.pop(), args))
        elif name == "NEWOBJ_EX":
            kwargs, args = stack.pop(), stack.pop()
            stack.append(_Call(stack.pop(), _Seq([args, kwargs])))
        elif name == "INST":
            module, _, attr = str(arg).partition(" ")
            stack.append(_Call(Global(module, attr), _Seq(_pop_mark(stack))))
        elif name == "OBJ":
            items = _pop_mark(stack)
            stack.append(_Call(items[0], _Seq(items[1:])))
        elif name == "BUILD":
            state = stack.pop()
            target = stack[-1]
            if isinstance(target, _Call):
                target.state = state
            else:  # unpickling would fail here; keep both parts visible to the summary
                stack[-1] = _Seq([target, state])
        elif name in ("PERSID", "BINPERSID"):
            stack.append(_Persistent(arg if name == "PERSID" else stack.pop()))
        elif name in ("EMPTY_DICT",):
            stack.append(_Dict())
        elif name == "DICT":
            items = _pop_mark(stack)
            stack.append(_Dict(list(zip(items[::2], items[1::2], strict=False))))
        elif name == "SETITEM":
            value, key = stack.pop(), stack.pop()
            _items(stack[-1]).append((key, value))
        elif name == "SETITEMS":
            items = _pop_mark(stack)
            _items(stack[-1]).extend(zip(items[::2], items[1::2], strict=False))
        elif name in ("EMPTY_LIST", "EMPTY_TUPLE", "EMPTY_SET"):
            stack.append(_Seq())
        elif name in ("LIST", "TUPLE", "FROZENSET"):
            stack.append(_Seq(_pop_mark(stack)))
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            count = int(name[-1])
            items = stack[-count:]
            del stack[-count:]
            stack.append(_Seq(items))
        elif name == "APPEND":
            value = stack.pop()
            _seq(stack[-1]).items.append(value)
        elif name in ("APPENDS", "ADDITEMS"):
            items = _pop_mark(stack)
            _seq(stack[-1]).items.extend(items)
        elif name == "POP":
            stack.pop()
        elif name == "POP_MARK":
            _pop_mark(stack)
        elif name == "DUP":
            stack.append(stack[-1])
        elif opcode.stack_after:  # a constant: a string, a number, None, a buffer
            stack.append(arg if isinstance(arg, str | bytes | int) else _ANY)
        # PROTO, FRAME: no effect on the stack
    raise ValueError("no STOP opcode")


def _pop_mark(stack: list[Any]) -> list[Any]:
    for index in range(len(stack) - 1, -1, -1):
        if stack[index] is _MARK:
            items = stack[index + 1 :]
            del stack[index:]
            return items
    raise ValueError("MARK expected")


def _items(target: Any) -> list[tuple[Any, Any]]:
    if isinstance(target, _Dict | _Call):
        return target.items
    raise ValueError("SETITEM on something that is not a mapping")


def _seq(target: Any) -> _Seq:
    if isinstance(target, _Seq):
        return target
    if isinstance(target, _Call):  # list subclasses and sets built by REDUCE
        if not isinstance(target.state, _Seq):
            target.state = _Seq()
        return target.state
    raise ValueError("APPEND on something that is not a list")


def _label(key: Any) -> str:
    return key if isinstance(key, str) else repr(key) if isinstance(key, int) else "?"


def _summarise(root: Any) -> PickleScan:
    foreign: dict[str, list[Global]] = {}
    storages: list[tuple[str, str]] = []
    seen: set[int] = set()
    # (value, its key path, the path of the foreign object it is part of, if any): what a
    # foreign object holds is reported with it, not as objects of its own
    pending: list[tuple[Any, tuple[str, ...], str | None]] = [(root, (), None)]
    while pending:
        value, path, owner = pending.pop()
        if isinstance(value, Global):
            if not value.allowed:
                where = owner if owner is not None else "/".join(path[:_MAX_PATH_PARTS])
                foreign.setdefault(where, []).append(value)
            continue
        if id(value) in seen:  # an object the memo shares: its content is known already
            continue
        if isinstance(value, _Call):
            seen.add(id(value))
            if owner is None and isinstance(value.func, Global) and not value.func.allowed:
                owner = "/".join(path[:_MAX_PATH_PARTS])
            children = [(value.func, path), (value.args, path), (value.state, path)]
            children += [(v, (*path, _label(k))) for k, v in value.items]
            pending.extend((v, p, owner) for v, p in reversed(children))
        elif isinstance(value, _Dict):
            seen.add(id(value))
            pending.extend((v, (*path, _label(k)), owner) for k, v in reversed(value.items))
            pending.extend((k, path, owner) for k, _ in value.items if not isinstance(k, str | int))
        elif isinstance(value, _Seq):
            seen.add(id(value))
            pending.extend((v, path, owner) for v in reversed(value.items))
        elif isinstance(value, _Persistent):
            storages.extend(_storage(value.value))
    return PickleScan(
        foreign=tuple(
            Foreign(
                path=path,
                globals=tuple(dict.fromkeys(g.dotted for g in found)),
                executes_code=any(g.executes_code for g in found),
            )
            for path, found in foreign.items()
        ),
        top_keys=_top_keys(root),
        storages=tuple(storages),
    )


def _storage(value: Any) -> Iterator[tuple[str, str]]:
    # torch.save's persistent id: ("storage", storage type, key, location, numel), and in the
    # legacy format a sixth item, the view metadata
    if isinstance(value, _Seq) and len(value.items) in (5, 6) and value.items[0] == "storage":
        kind, key = value.items[1], value.items[2]
        if isinstance(key, str):
            yield key, kind.name if isinstance(kind, Global) else "?"


def _top_keys(root: Any) -> tuple[str, ...] | None:
    if isinstance(root, _Dict) or (
        isinstance(root, _Call) and root.func == Global("collections", "OrderedDict")
    ):
        return tuple(k for k, _ in root.items if isinstance(k, str))
    return None

"""A pickle's opcodes replayed on symbols: the object's shape without building the object.

``replay`` runs ``pickletools.genops`` over a stream and keeps a stack and a memo as the
unpickler would, but pushes symbols instead of objects: a ``Global`` is only a name, a
``Call`` only records what would be called with what, a ``Persistent`` id only its tuple.
Nothing is imported or called. ``BoundedReader`` caps what a pickle may claim to read.

The replay runs in gradgate's own process, so its work is bounded (issue 18): at most
``MAX_OPCODES`` opcodes, and no value from the stack is ever turned into text, because the
memo lets a 300-byte pickle alias one list into 2**40 nodes and ``str()`` of it would walk
them all.
"""

from __future__ import annotations

import pickletools
from dataclasses import dataclass, field
from typing import IO, Any

from gradgate.checks.checkpoint.read.globals import Global
from gradgate.checks.errors import UnreadableCheckpoint


@dataclass(eq=False, slots=True)
class Call:
    func: Any
    args: Any
    items: list[tuple[Any, Any]] = field(default_factory=list)  # SETITEM(S) on the result
    state: Any = None  # BUILD


@dataclass(eq=False, slots=True)
class Dict:
    items: list[tuple[Any, Any]] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Seq:
    items: list[Any] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Persistent:
    value: Any


class _Mark:
    pass


MARK = _Mark()
# torch.save writes ~30 opcodes per tensor, so this is ~13,000 tensors of state dict; replay
# takes ~2 µs per opcode on an idle core (under 1 s in all), ~8 µs on a loaded one.
MAX_OPCODES = 400_000
ANY = object()  # a value whose content does not matter here (a float, a buffer)


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


def replay(stream: Any) -> Any:
    """The object a pickle describes, as symbols: ``Call``, ``Dict``, ``Seq``, ``Global``,
    ``Persistent``, strings and numbers; other constants are ``ANY``."""
    stack: list[Any] = []
    memo: dict[int, Any] = {}
    for count, (opcode, arg, _pos) in enumerate(pickletools.genops(stream)):
        if count >= MAX_OPCODES:
            raise UnreadableCheckpoint(
                f"its pickle has more than {MAX_OPCODES:,} opcodes (about "
                f"{MAX_OPCODES // 30:,} tensors' worth), more than gradgate reads; save the "
                "weights as safetensors.",
                reason="too-large",
            )
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
            stack.append(MARK)
        elif name == "GLOBAL":
            module, _, attr = str(arg).partition(" ")
            stack.append(Global(module, attr))
        elif name == "STACK_GLOBAL":
            attr, module = stack.pop(), stack.pop()
            if not (isinstance(module, str) and isinstance(attr, str)):
                # Never str() them: an aliased structure expands without end (issue 18).
                raise ValueError("STACK_GLOBAL on something that is not a name")
            stack.append(Global(module, attr))
        elif name in ("EXT1", "EXT2", "EXT4"):  # the copyreg extension registry: unknowable
            stack.append(Global("copyreg extension", str(arg)))
        elif name in ("REDUCE", "NEWOBJ"):
            args = stack.pop()
            stack.append(Call(stack.pop(), args))
        elif name == "NEWOBJ_EX":
            kwargs, args = stack.pop(), stack.pop()
            stack.append(Call(stack.pop(), Seq([args, kwargs])))
        elif name == "INST":
            module, _, attr = str(arg).partition(" ")
            stack.append(Call(Global(module, attr), Seq(_pop_mark(stack))))
        elif name == "OBJ":
            items = _pop_mark(stack)
            stack.append(Call(items[0], Seq(items[1:])))
        elif name == "BUILD":
            state = stack.pop()
            target = stack[-1]
            if isinstance(target, Call):
                target.state = state
            else:  # unpickling would fail here; keep both parts visible to the summary
                stack[-1] = Seq([target, state])
        elif name in ("PERSID", "BINPERSID"):
            stack.append(Persistent(arg if name == "PERSID" else stack.pop()))
        elif name in ("EMPTY_DICT",):
            stack.append(Dict())
        elif name == "DICT":
            items = _pop_mark(stack)
            stack.append(Dict(list(zip(items[::2], items[1::2], strict=False))))
        elif name == "SETITEM":
            value, key = stack.pop(), stack.pop()
            _items(stack[-1]).append((key, value))
        elif name == "SETITEMS":
            items = _pop_mark(stack)
            _items(stack[-1]).extend(zip(items[::2], items[1::2], strict=False))
        elif name in ("EMPTY_LIST", "EMPTY_TUPLE", "EMPTY_SET"):
            stack.append(Seq())
        elif name in ("LIST", "TUPLE", "FROZENSET"):
            stack.append(Seq(_pop_mark(stack)))
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            count = int(name[-1])
            items = stack[-count:]
            del stack[-count:]
            stack.append(Seq(items))
        elif name == "APPEND":
            value = stack.pop()
            _seq(stack[-1]).items.append(value)
        elif name in ("APPENDS", "ADDITEMS"):
            items = _pop_mark(stack)
            _seq(stack[-1]).items.extend(items)
        elif name == "POP":
            stack.pop()
        elif name == "POPMARK":
            _pop_mark(stack)
        elif name == "DUP":
            stack.append(stack[-1])
        elif opcode.stack_after:  # a constant: a string, a number, None, a buffer
            stack.append(arg if isinstance(arg, str | bytes | int) else ANY)
        # PROTO, FRAME: no effect on the stack
    raise ValueError("no STOP opcode")


def _pop_mark(stack: list[Any]) -> list[Any]:
    for index in range(len(stack) - 1, -1, -1):
        if stack[index] is MARK:
            items = stack[index + 1 :]
            del stack[index:]
            return items
    raise ValueError("MARK expected")


def _items(target: Any) -> list[tuple[Any, Any]]:
    if isinstance(target, Dict | Call):
        return target.items
    raise ValueError("SETITEM on something that is not a mapping")


def _seq(target: Any) -> Seq:
    if isinstance(target, Seq):
        return target
    if isinstance(target, Call):  # list subclasses and sets built by REDUCE
        if not isinstance(target.state, Seq):
            target.state = Seq()
        return target.state
    raise ValueError("APPEND on something that is not a list")

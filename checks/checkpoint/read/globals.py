"""Which globals a torch checkpoint's pickle may name: torch's own allow-list, and what runs code.

A pickle names a global (``module.name``) to import it and, usually, call it. torch's
``weights_only`` unpickler allows its tensor machinery and nothing else; the same list decides
here which globals are *foreign*. Calls into the modules below run commands or code on load and
are named as such in a finding.
"""

from __future__ import annotations

from dataclasses import dataclass

# Names torch pickles as globals of the module `torch`: dtypes, qschemes, a few classes.
_TORCH_WORDS = (
    "bool uint8 int8 int16 int32 int64 uint16 uint32 uint64 float16 bfloat16 float32 float64 "
    "complex32 complex64 complex128 float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz "
    "float8_e8m0fnu float4_e2m1fn_x2 qint8 quint8 qint32 quint4x2 quint2x4 bits1x8 bits2x4 "
    "bits4x2 bits8 bits16 int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 "
    "uint7 per_tensor_affine per_channel_affine per_tensor_symmetric per_channel_symmetric "
    "per_channel_affine_float_qparams Size device Tensor"
)
# torch's weights_only allow-list (torch/_weights_only_unpickler.py, _get_allowed_globals and
# _tensor_rebuild_functions), as module -> names; "*" at either end matches a suffix/prefix.
_CONTAINERS = ("set", "frozenset", "bytearray", "complex", "slice")
_ALLOWED: dict[str, tuple[str, ...]] = {
    "torch": (*_TORCH_WORDS.split(), "*Storage", "*Tensor"),
    "torch.cuda": ("*Storage", "*Tensor"),
    "torch.sparse": ("*Tensor",),
    "torch.cuda.sparse": ("*Tensor",),
    "torch._utils": ("_rebuild_*",),
    "torch._tensor": ("_rebuild_from_type_v2",),
    "torch.storage": ("TypedStorage", "UntypedStorage"),
    "torch.serialization": ("_get_layout",),
    "torch.nn.parameter": ("Parameter",),
    "collections": ("OrderedDict", "Counter"),
    "builtins": _CONTAINERS,
    "__builtin__": _CONTAINERS,  # protocol 2's name for builtins
    "_codecs": ("encode",),  # how protocol 2 pickles bytes
}
# Modules whose functions run commands or code, or touch the system, when called.
_EXECUTES_WORDS = (
    "os posix nt subprocess sys shutil socket runpy pty importlib pickle marshal ctypes code "
    "webbrowser commands platform multiprocessing threading asyncio io"
)
_EXECUTES = frozenset(_EXECUTES_WORDS.split())
# builtins that run code or reach out when called; the containers above are harmless.
_CALLS_CODE_WORDS = "eval exec compile getattr setattr __import__ open breakpoint input apply"
_CALLS_CODE = frozenset(_CALLS_CODE_WORDS.split())


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

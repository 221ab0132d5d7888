"""A documented command -> the argv and environment the sandbox runs it with, tiny (pure).

`python train.py --x=1` keeps its words, with the command's ``Shrink.args`` after them and
`python` replaced by the interpreter of the check (``{python}``, resolved in the child).
`torchrun ... train.py` becomes `python -m torch.distributed.run --standalone --nnodes=1
--nproc_per_node=<processes> train.py ...`: the launcher's own node and rendezvous options are
replaced, so the workers meet on this machine, and gloo is told to use the loopback device
(the sandbox has no other). A script that asks `init_process_group` for `nccl` in so many
words cannot run on the CPU: it is not run, and the reason says so.
"""

from __future__ import annotations

import ast
import posixpath
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from gradgate.checks.commands.found import TORCHRUN_MODULES, Command, leading_env
from gradgate.checks.commands.settings import Shrink

PYTHON = "{python}"  # the interpreter of the check, put in by the child
# No logging service, no plotting window, one thread per process: the same for every run.
QUIET = {"WANDB_MODE": "disabled", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
DISTRIBUTED = {"GLOO_SOCKET_IFNAME": "lo", "TP_SOCKET_IFNAME": "lo"}
# torchrun options this check sets itself (each with its value, joined by `=` or next).
_REPLACED = frozenset(
    {"--nproc_per_node", "--nproc-per-node", "--nnodes", "--node_rank", "--node-rank",
     "--master_addr", "--master-addr", "--master_port", "--master-port", "--rdzv_endpoint",
     "--rdzv-endpoint", "--rdzv_backend", "--rdzv-backend", "--rdzv_id", "--rdzv-id"}
)  # fmt: skip
_TORCHRUN = frozenset((m,) for m in TORCHRUN_MODULES)
_FLAGS = frozenset({"--standalone", "--no-python", "--no_python", "-m", "--module"})


@dataclass(frozen=True, slots=True)
class Plan:
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    prepare: tuple[str, ...] | None = None
    processes: int = 1  # more than one: a torchrun launch


@dataclass(frozen=True, slots=True)
class NotRun:
    why: str


def plan(
    command: Command, shrink: Shrink, *, processes: int, script_text: str | None
) -> Plan | NotRun:
    """How ``command`` runs; ``script_text``: its script's source, to see its backend."""
    env, words = leading_env(command.words)
    env = {**QUIET, **env, **shrink.env}
    launcher = posixpath.basename(words[0]) if words else ""
    if launcher in ("accelerate", "deepspeed"):
        return NotRun(
            f"`{launcher}` launches are not run here, only `torchrun` ones (on {processes} CPU "
            "processes); list the command as a `torchrun` or `python` one under `run:`"
        )
    if launcher.startswith("python") and words[1:2] == ("-m",) and words[2:3] in _TORCHRUN:
        words = ("torchrun", *words[3:])
    argv = _python(words)
    workers = 1
    if argv is None:
        nccl = _nccl_line(script_text or "")
        if nccl is not None:
            return NotRun(
                f"`{command.path}:{nccl}` asks `init_process_group` for the nccl backend, which "
                "needs CUDA GPUs; choose the backend from the device (gloo on the CPU) for the "
                f"command to run here with {processes} CPU processes"
            )
        argv, workers = _torchrun(words, processes), processes
        env = {**DISTRIBUTED, **env}
    prepare = None
    if shrink.prepare:
        _, prepare_words = leading_env(tuple(shlex.split(shrink.prepare)))
        prepare = _python(prepare_words) or prepare_words
    return Plan((*argv, *shrink.args), env, prepare, workers)


def _python(words: tuple[str, ...]) -> tuple[str, ...] | None:
    """A `python ...` or `./script.py ...` line with the check's interpreter; None: torchrun."""
    if not words:
        return ()
    program = posixpath.basename(words[0])
    if program == "torchrun":
        return None
    if words[0].startswith("./") and words[0].endswith(".py"):
        return (PYTHON, words[0][2:], *words[1:])
    if program.startswith("python"):
        return (PYTHON, *words[1:])
    return words


def _torchrun(words: tuple[str, ...], processes: int) -> tuple[str, ...]:
    kept: list[str] = []
    rest = list(words[1:])
    while rest and rest[0].startswith("-"):
        word = rest.pop(0)
        name = word.split("=", 1)[0]
        if name in _REPLACED:
            if "=" not in word and rest:
                rest.pop(0)
        elif name == "--standalone":
            continue
        else:
            kept.append(word)
            takes_value = "=" not in word and name not in _FLAGS
            if takes_value and rest and not rest[0].startswith("-") and not rest[0].endswith(".py"):
                kept.append(rest.pop(0))
    return (
        PYTHON, "-m", "torch.distributed.run", "--standalone", "--nnodes=1",
        f"--nproc_per_node={processes}", *kept, *rest,
    )  # fmt: skip


def _nccl_line(text: str) -> int | None:
    """The line of an `init_process_group("nccl")` (or `backend="nccl"`) call, if any."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name != "init_process_group":
            continue
        given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "backend")]
        if any(isinstance(v, ast.Constant) and v.value == "nccl" for v in given):
            return node.lineno
    return None

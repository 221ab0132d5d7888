"""User functions that succeed, fail, hang, crash or misbehave, one way each."""

import ctypes
import importlib.util
import os
import resource
import signal
import sys
import time

NOT_CALLABLE = 42


def returns_kwargs(**kwargs: object) -> dict[str, object]:
    print("user code prints to stdout freely")
    return {"kwargs": kwargs}


class Factory:
    @staticmethod
    def build(n: int) -> list[int]:
        return list(range(n))


def report_environment() -> dict[str, object]:
    return {
        "cwd": os.getcwd(),
        "tree": sorted(os.listdir(".")),
        "sys_path": sys.path,
        "env": dict(os.environ),
        "rlimit_as": resource.getrlimit(resource.RLIMIT_AS)[0],
        "python": list(sys.version_info[:2]),
        "executable": sys.executable,
        "gradgate_importable": importlib.util.find_spec("gradgate") is not None,
    }


def resolves_its_own_name() -> list[object]:
    """What torchrun does to address its workers' rendezvous store: the host's own name."""
    import socket

    name = socket.getfqdn()
    return [name, socket.getaddrinfo(name, 0)[0][4][0]]


def _check_shapes(rows: int) -> None:
    raise ValueError(f"expected 4 rows, got {rows}")


def raises_value_error() -> None:
    _check_shapes(3)


def returns_object() -> object:
    return object()


def returns_nan() -> float:
    return float("nan")


def returns_big(mb: int) -> str:
    return "x" * (mb << 20)


def prints_a_lot(mb: int) -> str:
    line = "y" * 1023
    for _ in range(mb << 10):
        print(line)
    return "done"


def allocates(mb: int) -> int:
    return len(bytearray(mb << 20))


def sleeps_forever_ignoring_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(1)


def segfaults_by_signal() -> None:
    print("about to crash")
    os.kill(os.getpid(), signal.SIGSEGV)


def segfaults_by_null_read() -> None:
    ctypes.string_at(0)


def killed_by_sigkill() -> None:
    """What the kernel's out-of-memory killer does."""
    os.kill(os.getpid(), signal.SIGKILL)


def aborts_after_bad_alloc() -> None:
    """What C++ code does when an allocation fails under the cap and nobody catches it."""
    print("terminate called after throwing an instance of 'std::bad_alloc'", flush=True)
    os.abort()


def exits(code: int) -> None:
    sys.exit(code)


def hard_exits(code: int) -> None:
    os._exit(code)


def writes_file(path: str, text: str) -> str:
    try:
        with open(path, "w") as file:
            file.write(text)
    except OSError as exc:
        return f"not written: {type(exc).__name__}"
    return "written"


def reads_file(path: str) -> str:
    try:
        with open(path) as file:
            return file.read()
    except OSError as exc:
        return f"not read: {type(exc).__name__}"

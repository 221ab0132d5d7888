"""Run gradgate's child-side code on user code in a fresh, sandboxed child; get one JSON value back.

The model checks call ``run_in_sandbox`` (through ``run_user_code``) once per revision and
compare the JSON values. Every way user code can fail ends as a ``SandboxError`` whose ``kind``
says how:

    import     the target is malformed, missing, or raised while being imported
    exception  the function raised
    memory     MemoryError / allocator failure, or the kernel killed a process of the run for
               memory
    disk       it went past its disk cap (``disk``): a write failed with ENOSPC or EFBIG, or the
               supervisor measured too much
    processes  the run could not start another process or thread: it was at its limit
    timeout    the wall-clock limit passed; the child was stopped, with what it started
    crash      killed by a signal, exited before returning, or could not be started
    output     the return value is not JSON, or is too large
    protocol   the interpreter is too old for the child, or speaks another protocol version
    sandbox    bubblewrap is required but not usable here, or could not set the sandbox up

How a run goes: a private run folder (``rundir``) gets an empty HOME and /tmp, and under
bubblewrap a copy of the revision's tree without `.git`. The child runs under the user's
interpreter (``python``), which need not have gradgate installed, as ``python -s -B -u -c
BOOTSTRAP`` (no user site-packages, no bytecode written), in its own session, with the tree
(``root``, or under bubblewrap its copy shown at the same path) as cwd and first on
``sys.path``, and an environment built from an allow-list (``env``). Under bubblewrap
(``bwrap``; ``probe`` finds it; ``view`` decides what the child sees) it sees only its copy, the
system and the interpreter, read-only, and the folders the check shows it, in its own namespaces,
without network unless the check allows it; without bubblewrap (``sandbox="auto"`` on a machine
without it) it runs process-level only, and the run's ``Isolation`` says so. Memory and process
limits hold for the whole run through a cgroup where one can be made (``cgroup``), else through
rlimits (``limits``). ``supervise`` watches it; ``outcome`` judges how it ended (pure).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox import bwrap, cgroup, disk, probe, rundir
from gradgate.checks.sandbox.child import PACKAGE, PROTOCOL
from gradgate.checks.sandbox.env import NEVER_PASSED, PASSED_THROUGH, child_env
from gradgate.checks.sandbox.isolation import Isolation, SandboxMode
from gradgate.checks.sandbox.limits import (
    SandboxLimits,
    enforcement,
    kernel_version,
    memory_rlimit,
)
from gradgate.checks.sandbox.outcome import (
    MIN_PYTHON,
    Finished,
    Target,
    outcome,
    parse_target,
    target_label,
)
from gradgate.checks.sandbox.rundir import child_modules
from gradgate.checks.sandbox.supervise import supervise
from gradgate.checks.sandbox.view import View, bubblewrapped

__all__ = [
    "BOOTSTRAP",
    "DEFAULT_PROGRAM",
    "NEVER_PASSED",
    "PASSED_THROUGH",
    "Finished",
    "Isolation",
    "SandboxLimits",
    "SandboxMode",
    "Target",
    "child_env",
    "child_modules",
    "outcome",
    "parse_target",
    "run_in_sandbox",
]

DEFAULT_PROGRAM = "sandbox.child:call_target"
# Written for any Python 3: on an interpreter too old for the child modules it still answers,
# with a message the parent words, instead of dying on a SyntaxError.
BOOTSTRAP = f"""\
import sys, os, json
lib, request, fd = sys.argv[1], sys.argv[2], int(sys.argv[3])
if sys.version_info < {MIN_PYTHON!r}:
    message = {{"protocol": {PROTOCOL}, "ok": False, "phase": "start", "error": {{
        "type": "UnsupportedPython", "missing": None, "memory": False, "traceback": "",
        "message": "Python %d.%d at %s" % (sys.version_info[0], sys.version_info[1],
                                           sys.executable)}}}}
    os.write(fd, json.dumps(message).encode())
    sys.exit(0)
sys.path[0] = lib
from {PACKAGE}.sandbox.child import main
main(request, fd)
"""
_DEFAULT_LIMITS = SandboxLimits()  # frozen, so sharing the default is safe


def run_in_sandbox(
    target: str | None,
    *,
    root: Path,
    kwargs: Mapping[str, Any] | None = None,
    program: str = DEFAULT_PROGRAM,
    limits: SandboxLimits = _DEFAULT_LIMITS,
    revision: str | None = None,
    env_allow: Collection[str] = (),
    seed: int | None = 0,
    device: str = "cpu",
    python: str | None = None,
    network: bool = False,
    sandbox: SandboxMode = "auto",
    on_isolation: Callable[[Isolation], None] | None = None,
    readable: Collection[Path] = (),
    stop: Callable[[], bool] | None = None,
    fds: Collection[int] = (),
) -> Any:
    """Run ``program`` on the user's ``target`` in a fresh child, in the tree ``root`` (under
    bubblewrap a copy of it without `.git`, at the same path).

    ``program`` is a child-side function (``"sandbox.child:call_target"``, module path below
    gradgate.checks) called with the request and the target; the default calls
    ``target(**kwargs)``. Programs read their own settings from ``kwargs``. ``target`` may be
    None for programs that build the model another way (a ``_target_`` spec). ``python`` is the
    interpreter to run (default: the one gradgate runs under). ``seed`` seeds ``random`` before
    the target is imported, and numpy and torch after. ``device`` reaches the child as
    GRADGATE_DEVICE. ``network``: let user code reach the network (under bubblewrap; without
    it nothing blocks the network). ``sandbox``: see ``SandboxMode``. ``on_isolation`` is
    called with how the run was isolated, before its outcome is judged. ``readable``: files and
    folders outside the tree that user code may read, shown read-only at their own paths under
    bubblewrap; none may hold the source repository or gradgate's HOME. A child writes only to
    its own /tmp, HOME and tree, all under its disk cap. JSON turns tuples into lists; NaN and
    infinity are allowed. ``stop``: asked while the child runs; True stops it as its deadline
    would. ``fds``: descriptors the child inherits at the same numbers (a long-lived child's
    pipes, the only way it and its caller talk besides the result).
    Raises SandboxError for anything user code does wrong (and when
    ``sandbox="require"`` finds no usable bubblewrap), CheckError for a refused ``env_allow``,
    TypeError for kwargs that are not JSON.
    """
    parsed = parse_target(target, revision=revision)
    where = target_label(parsed.text, revision)
    found = _bubblewrap(sandbox, where=where, revision=revision)
    interpreter = python or sys.executable
    root = root.resolve()
    if not root.is_dir():
        raise SandboxError(
            f"could not start a sandbox process for {where}: the tree `{root}` does not exist",
            kind="crash",
            revision=revision,
        )
    memory = limits.memory_mb << 20 if limits.memory_mb and memory_rlimit(device) else None
    with contextlib.ExitStack() as stack:
        temp = tempfile.TemporaryDirectory(prefix="gradgate-sandbox-", ignore_cleanup_errors=True)
        run, lib = rundir.RunDir(Path(stack.enter_context(temp))), rundir.child_package()
        view = View.of(run, lib, root=root, bubblewrap=found.path is not None)
        env = child_env(os.environ, home=view.home, tmp=view.tmp, device=device,
                        env_allow=env_allow)  # fmt: skip
        group = None
        if limits.cgroup:
            group = cgroup.run_group(memory_bytes=memory, processes=limits.processes)
        if group is not None:
            stack.callback(group.remove)
        held = enforcement(
            limits,
            device=device,
            cgroup=group is not None,
            user_namespace=found.path is not None,
            root=os.geteuid() == 0,
            kernel=kernel_version(os.uname().release),
        )
        path = None if parsed.path is None else str((root / parsed.path).resolve())
        disk_bytes = None if limits.disk_mb is None else limits.disk_mb << 20
        capped_copy = found.path is not None and disk_bytes is not None
        request = {
            "protocol": PROTOCOL,
            "program": program,
            "root": str(view.tree),
            "module": parsed.module,
            "path": path,
            "attr": parsed.attr,
            "kwargs": dict(kwargs or {}),
            "seed": seed,
            "device": device,
            "memory_bytes": held.memory_bytes,
            "memory_rlimit": held.memory_rlimit,
            "processes_rlimit": held.processes_rlimit,
            "disk_bytes": disk_bytes,
            # Under bubblewrap with a disk cap, the child copies the tree into its capped one.
            "copy_tree": [str(bwrap.SOURCE), str(root)] if capped_copy else None,
        }
        try:
            rundir.prepare(run, root=root, request=json.dumps(request), copy=bool(found.path))
        except OSError as exc:
            raise SandboxError(
                f"could not prepare the sandbox for {where}: {exc}", kind="crash", revision=revision
            ) from exc
        argv = [interpreter, "-s", "-B", "-u", "-c", BOOTSTRAP, str(view.lib), str(view.request)]
        if found.path:
            argv = bubblewrapped(found, argv, run=run, lib=lib, root=root, env=env, device=device,
                                 network=network, target_file=path, readable=readable,
                                 disk_bytes=disk_bytes)  # fmt: skip
        if group is not None:
            argv = ["/bin/sh", "-c", cgroup.JOIN, "sh", *group.procs, "--", *argv]
        watch = None
        if disk_bytes is not None and not found.path:  # no filesystem of its own: measured
            watch = disk.Watch(disk_bytes, fresh=(run.tmp, run.home), growing=(root,))
        # Known before the child starts: a long-lived child's callers read it while it runs.
        isolation = Isolation(
            sandbox="bubblewrap" if found.path else "process",
            reason=found.reason,
            memory=held.memory,
            processes=held.processes,
            network=network or not found.path,
            contained=found.path is not None or group is not None,
            cgroup=None if group is None else group.version,
            disk=None if disk_bytes is None else "tmpfs" if found.path else "watched",
            disk_mb=limits.disk_mb,
        )
        if on_isolation is not None:
            on_isolation(isolation)
        finished = supervise(
            argv,
            cwd=root,
            env=env,
            limits=limits,
            where=where,
            kill_all=group.kill if group else lambda: None,
            over_disk=watch,
            stop=stop,
            fds=tuple(fds),
        )
        if group is not None:
            finished = dataclasses.replace(finished, oom_kills=group.oom_kills())
    if found.path:
        finished = dataclasses.replace(finished, returncode=bwrap.signal_of(finished.returncode))
    capped = held.memory is not None
    return outcome(
        finished,
        parsed,
        revision=revision,
        limits=limits,
        capped=capped,
        python=interpreter,
        isolation=isolation,
    )


def _bubblewrap(mode: SandboxMode, *, where: str, revision: str | None) -> probe.Bubblewrap:
    if mode == "process":
        return probe.Bubblewrap(None, reason="process-level isolation was asked for")
    found = probe.bubblewrap()
    if found.path is None and mode == "untrusted":
        raise SandboxError(
            f"{where} was not run: code from a fork runs only under bubblewrap, whatever the "
            f"config's `sandbox:` says, and {found.reason}. Install bubblewrap where the checks "
            "run (Debian/Ubuntu: `apt-get install bubblewrap`).",
            kind="sandbox",
            revision=revision,
        )
    if found.path is None and mode == "require":
        raise SandboxError(
            f"{where} was not run: `sandbox: require` needs bubblewrap, and {found.reason}. "
            "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`), or set "
            "`sandbox: auto` to run user code with process-level isolation only.",
            kind="sandbox",
            revision=revision,
        )
    return found

"""The bubblewrap command line for one run (pure): what the child may see, and nothing more.

Inside, the child has its own user, PID, IPC, UTS (host name `localhost`) and cgroup
namespaces (and network, unless the check allows it); all capabilities are dropped, even for
root; it dies with its parent, and when its first process exits the kernel kills everything it
started. It sees:

    /usr, /bin, /lib*, /sbin      the system, read-only
    /etc/<a few files>            what Python, DNS and TLS need; not shadow, not ssh keys
    the interpreter's folders     its prefixes and sys.path, read-only (none that holds a
                                  secret place: the source repository, gradgate's HOME)
    /proc, /dev                   its own: only its processes; null, zero, random, tty, shm
    /sys/devices/system/cpu       read-only (torch sizes its thread pools from it); all of
                                  /sys and /dev/nvidia* for CUDA runs
    /tmp                          the run's empty tmp, writable; with a disk cap a tmpfs of
                                  that size, which also holds HOME (``checks.sandbox.disk``)
    the tree's own path           the export of the revision (no .git), writable: the cwd. At
                                  the path of the checkout it copies, so paths a check passes
                                  in, and paths the child reports, mean the same on both sides.
                                  With a disk cap, a tmpfs the child copies the export into
                                  from /sandbox/tree (or a folder in /tmp's, under /tmp)
    folders the check shows it    at their own paths, read-only (no folder of the host is
                                  ever writable: what a child writes stays under its cap)
    /sandbox/home                 the run's empty HOME, writable
    /sandbox/lib, request.json    gradgate's child code and the request, read-only
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

INSIDE = PurePosixPath("/sandbox")
HOME, LIB, REQUEST = (INSIDE / n for n in ("home", "lib", "request.json"))
TMP = PurePosixPath("/tmp")
SOURCE = INSIDE / "tree"  # with a disk cap: the export, read-only, that the child copies
CAPPED_HOME = TMP / ".gradgate-home"  # with a disk cap: HOME on /tmp's tmpfs

# --unshare-all: user (if it can), ipc, pid, net, uts, cgroup (if it can). --unshare-user:
# always a user namespace, also for root, whose capabilities would otherwise stay with it.
NAMESPACES = (
    "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
)  # fmt: skip
# The UTS namespace's name. The host's own may resolve only through the host's DNS, which a
# child without the network cannot reach: torchrun gives its workers socket.getfqdn() as the
# address of their rendezvous store, and `localhost` is in every /etc/hosts.
HOSTNAME = "localhost"
SYSTEM_BINDS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
ETC = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "passwd", "group",
    "nsswitch.conf", "hosts", "host.conf", "resolv.conf", "gai.conf", "ssl", "pki",
    "ca-certificates", "ca-certificates.conf", "alternatives", "mime.types", "os-release",
    "fonts", "matplotlibrc",
)  # fmt: skip
DISABLE_USERNS = (0, 8)  # the first bubblewrap with --disable-userns


def system_binds(paths: Iterable[str], *, links: Iterable[str] = ()) -> list[str]:
    """Read-only binds of the system folders; the ones in ``links`` (symlinks on the host, as
    on merged-/usr systems, `/bin -> usr/bin`) become the same symlinks inside."""
    linked = set(links)
    argv: list[str] = []
    for path in paths:
        argv += ["--ro-bind-try", path, path] if path not in linked else []
    return argv


def exposable(path: str, secret_places: Sequence[Path]) -> bool:
    """A folder may be bound read-only unless it is, or holds, a secret place, or is a system
    folder bound already."""
    candidate = Path(path)
    if candidate == Path("/") or any(candidate.is_relative_to(s) for s in SYSTEM_BINDS):
        return False
    return not any(s == candidate or s.is_relative_to(candidate) for s in secret_places)


def readonly(paths: Iterable[str], secret_places: Sequence[Path]) -> list[str]:
    """The interpreter's folders to bind: the exposable ones, none inside another."""
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if exposable(path, secret_places) and not any(Path(path).is_relative_to(k) for k in kept):
            kept.append(path)
    return kept


def command(
    bwrap: str,
    argv: Sequence[str],
    *,
    version: tuple[int, ...],
    run_dir: Path,
    tree: Path,
    lib: Path,
    links: dict[str, str],
    readonly: Sequence[str],
    network: bool,
    devices: Sequence[str] = (),
    disk_bytes: int | None = None,
) -> list[str]:
    """``argv`` (the interpreter and its arguments) run under bubblewrap.

    ``run_dir``: the run's folder (``checks.sandbox.rundir``), whose copy of the tree is shown
    at ``tree``; ``lib``: gradgate's child package. ``links``: system folders that are
    symlinks on the host -> their targets. ``readonly``: the interpreter's folders and those
    the check shows the child, all filtered by :func:`exposable` already. ``devices``: device
    nodes to pass through (/dev/nvidia*); with them, all of /sys is shown, read-only.
    ``disk_bytes``: the disk cap; None: the run's folders on the host's disk, uncapped.
    """
    out = [bwrap, *NAMESPACES, "--hostname", HOSTNAME]
    if network:
        out.append("--share-net")
    if version >= DISABLE_USERNS:
        out.append("--disable-userns")  # no user namespaces of its own inside
    out += system_binds(SYSTEM_BINDS, links=links)
    for name, target in links.items():
        out += ["--symlink", target, name]
    for name in ETC:
        out += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    out += ["--proc", "/proc", "--dev", "/dev"]
    for device in devices:
        out += ["--dev-bind", device, device]
    if devices:
        out += ["--ro-bind", "/sys", "/sys"]
    else:
        for folder in ("/sys/devices/system/cpu", "/sys/devices/system/node"):
            out += ["--ro-bind-try", folder, folder]
    if disk_bytes is None:
        out += ["--bind", str(run_dir / "tmp"), str(TMP)]
    else:
        out += ["--size", str(disk_bytes), "--tmpfs", str(TMP), "--dir", str(CAPPED_HOME)]
        # Before the folders below: what lies inside the tree (a virtualenv in the checkout)
        # is bound on top of the empty tmpfs, and the child's copy leaves it be.
        in_tmp = PurePosixPath(tree).is_relative_to(TMP)
        out += ["--dir", str(tree)] if in_tmp else ["--size", str(disk_bytes), "--tmpfs", str(tree)]
    # After /tmp: an interpreter that lives in a temp folder is bound on top of the new /tmp.
    for path in readonly:
        out += ["--ro-bind", path, path]
    if disk_bytes is None:
        out += ["--bind", str(run_dir / "tree"), str(tree)]
        out += ["--bind", str(run_dir / "home"), str(HOME)]
    else:
        out += ["--ro-bind", str(run_dir / "tree"), str(SOURCE)]
        out += ["--symlink", str(CAPPED_HOME), str(HOME)]
    out += ["--ro-bind", str(lib), str(LIB)]
    out += ["--ro-bind", str(run_dir / "request.json"), str(REQUEST), "--chdir", str(tree)]
    return [*out, "--", *argv]


def signal_of(returncode: int) -> int:
    """bwrap exits with 128 + N when the command was killed by signal N: turn that back into
    Popen's -N. (A program that calls exit(128 + N) itself reads the same; nothing tells them
    apart from outside.)"""
    return -(returncode - 128) if 128 < returncode < 128 + 65 else returncode

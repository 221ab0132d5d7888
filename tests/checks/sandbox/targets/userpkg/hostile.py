"""A hostile pull request's model code: each function tries one attack on the machine it runs on.

Each returns what it got its hands on (or raises, or hangs), so a test can assert that the
sandbox kept it all away. Secrets planted by the tests contain MARK.
"""

import contextlib
import os
import pwd
import resource
import signal
import subprocess
import sys
import time

MARK = "gradgatetestsecret"


def _read(path):
    try:
        with open(path, "rb") as file:
            return file.read(1 << 20).decode("utf-8", "replace")
    except OSError as exc:
        return "unreadable: " + type(exc).__name__


def _stack_of(pid):
    """The [stack] of a process: where the kernel put its environment when it started."""
    found = ""
    try:
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb") as mem:
            for line in maps:
                if line.rstrip().endswith("[stack]"):
                    start, end = (int(x, 16) for x in line.split()[0].split("-"))
                    mem.seek(start)
                    found += mem.read(end - start).decode("latin-1")
    except (OSError, ValueError, OverflowError) as exc:
        return "unreadable: " + type(exc).__name__
    return found


def steals_secrets(home, source, repository):
    """Tokens from its own environment, every visible process's, its parent's memory; the git
    credentials file; the checkout token in the source repository's git config."""
    seen = {"own environment": repr(dict(os.environ))}
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
        seen[f"/proc/{pid}/environ"] = _read(f"/proc/{pid}/environ")
    seen["parent's stack"] = _stack_of(os.getppid())
    homes = {os.path.expanduser("~"), pwd.getpwuid(os.getuid()).pw_dir, home}
    for folder in homes:
        seen[f"{folder}/.git-credentials"] = _read(os.path.join(folder, ".git-credentials"))
    folder = os.getcwd()
    while True:  # the .git of the tree it runs in, and of any folder above it
        seen[f"{folder}/.git"] = _read(os.path.join(folder, ".git"))
        seen[f"{folder}/.git/config"] = _read(os.path.join(folder, ".git", "config"))
        if folder == os.path.dirname(folder):
            break
        folder = os.path.dirname(folder)
    seen[f"{source}/.git"] = _read(os.path.join(source, ".git"))
    seen[f"{repository}/.git/config"] = _read(os.path.join(repository, ".git", "config"))
    return {
        "leaks": sorted(where for where, text in seen.items() if MARK in text),
        "cwd": os.getcwd(),
        "tree": sorted(os.listdir(".")),
        "parent_stack_read": not seen["parent's stack"].startswith("unreadable"),
    }


def vandalises(victims, kill_everything):
    """Deletes and overwrites files outside its tree, writes into its own, kills gradgate."""
    done = []
    for path in victims:
        try:
            os.remove(path)
            done.append("removed " + path)
        except OSError:
            pass
        try:
            with open(path, "w") as file:
                file.write("vandalised")
            done.append("wrote " + path)
        except OSError:
            pass
    with open("written-by-user-code.txt", "w") as file:  # its own copy: allowed
        file.write("mine")
    if kill_everything and _in_own_pid_namespace():
        with contextlib.suppress(OSError):  # OSError: it sees none
            os.kill(-1, signal.SIGKILL)  # every process it can see, gradgate included
    parent = os.getppid()
    if parent > 1:
        try:
            os.kill(parent, signal.SIGKILL)
            done.append("killed its parent")
        except OSError:
            pass
    return done


def _in_own_pid_namespace():
    """Only ever kill(-1) inside a sandbox: outside one it would kill the whole machine."""
    return os.getppid() in (0, 1) and _read("/proc/1/comm").strip() == "bwrap"


def _sleeper(mark):
    return [sys.executable, "-c", "import time; time.sleep(600)", mark]


def starts_daemons(mark, then):
    """Starts processes that leave its session and its process group (setsid, setpgid), the
    way a daemon does, and one that stays, then hangs ("hang") or returns ("return")."""
    subprocess.Popen(_sleeper(mark))
    subprocess.Popen(_sleeper(mark), start_new_session=True)
    subprocess.Popen(_sleeper(mark), process_group=0)
    if os.fork() == 0:  # the classic double fork
        os.setsid()
        if os.fork() == 0:
            subprocess.Popen(_sleeper(mark), start_new_session=True)
            os._exit(0)
        os._exit(0)
    time.sleep(0.5)  # long enough for the test to see them
    if then == "hang":
        while True:
            time.sleep(1)
    return "returned"


def forks_without_end(mark, most):
    """A fork bomb, stopped at ``most`` processes so it cannot hurt a machine without limits;
    each one a small shell, not a Python, for the same reason."""
    for _ in range(most):
        try:
            pid = os.fork()
        except OSError:  # at the limit: held there a moment, so that a test polling for the
            time.sleep(0.5)  # processes sees how many there were however busy the machine
            raise
        if pid == 0:
            os.execv("/bin/sh", ["/bin/sh", "-c", "while :; do sleep 1; done", mark])
    time.sleep(1.0)
    return f"started {most} processes"


def allocates_in_processes(mark, processes, mb):
    """``processes`` processes that each allocate (and touch) ``mb`` MB, under a cap meant for
    the whole run; each alone is under the cap."""
    code = f"import time; data = b'x' * ({mb} << 20); time.sleep(1)"
    children = [subprocess.Popen([sys.executable, "-c", code, mark]) for _ in range(processes)]
    return [child.wait() for child in children]


def raises_its_memory_cap():
    """Tries to lift the address-space cap the sandbox set."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        raised = True
    except (ValueError, OSError):
        raised = False
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))  # the soft limit up to the hard
    return {"soft": soft, "hard": hard, "raised": raised}


def result_fd_in_a_grandchild():
    """Hands the result fd's number to a process it starts, which tries to write a result."""
    fd = int(sys.argv[-1])
    code = (
        "import os, sys\n"
        "try:\n"
        '    os.write(int(sys.argv[1]), b\'{"protocol": 1, "ok": true, "value": "forged"}\')\n'
        "except OSError as exc:\n"
        "    sys.exit(exc.errno)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(fd)], close_fds=False)
    return {"grandchild_exit": done.returncode}


def forges_its_result():
    """Writes a passing result on the result fd itself, then exits before gradgate's own."""
    fd = int(sys.argv[-1])
    os.write(fd, b'{"protocol": 1, "ok": true, "value": "all gradients fine"}')
    os._exit(0)


def reaches_the_network(port):
    """Connects to a server on the host's loopback."""
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            return connection.recv(64).decode()
    except OSError as exc:
        return "unreachable: " + type(exc).__name__

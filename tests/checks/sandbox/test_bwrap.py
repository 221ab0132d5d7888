"""checks.sandbox.bwrap and probe: the command line, the network, and a machine without bwrap."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from gradgate.checks.errors import SandboxError
from gradgate.checks.sandbox import bwrap, probe
from gradgate.checks.sandbox.isolation import Isolation
from gradgate.checks.sandbox.run import SandboxLimits, run_in_sandbox

ROOT = Path(__file__).parent / "targets"
LIMITS = SandboxLimits(timeout_s=20, memory_mb=1024)
SECRET = [Path("/home/u"), Path("/work/repo"), Path("/work/repo/.git")]


@pytest.mark.parametrize(
    ("path", "exposable"),
    [
        ("/home/u/.pyenv/versions/3.11.7", True),  # inside HOME: only that folder
        ("/home/u", False),  # HOME itself: credentials, ssh keys
        ("/home", False),  # holds HOME
        ("/work", False),  # holds the repository and its .git
        ("/work/repo/.venv", True),  # a venv in the repository: no .git inside
        ("/work/repo", False),
        ("/", False),
        ("/usr/lib/python3/dist-packages", False),  # the system is bound already
        ("/opt/conda/envs/train", True),
    ],
)
def test_a_folder_is_shown_to_the_child_only_if_it_holds_no_secret_place(
    path: str, exposable: bool
) -> None:
    assert bwrap.exposable(path, SECRET) is exposable


def test_the_interpreters_folders_are_bound_once_without_nesting() -> None:
    paths = ["/opt/py/lib/python3.11/site-packages", "/opt/py", "/home/u", "/opt/py/lib"]
    assert bwrap.readonly(paths, SECRET) == ["/opt/py"]


def command(*, network: bool, devices: tuple[str, ...] = ()) -> list[str]:
    return bwrap.command(
        "/usr/bin/bwrap",
        ["/opt/py/bin/python", "-c", "pass"],
        version=(0, 8, 0),
        run_dir=Path("/tmp/run"),
        tree=Path("/tmp/checkout/tree"),
        lib=Path("/tmp/lib"),
        links={"/bin": "usr/bin"},
        readonly=["/opt/py"],
        network=network,
        devices=devices,
    )


def has(argv: list[str], *words: str) -> bool:
    """``words`` appear in ``argv`` one after the other."""
    n = len(words)
    return any(tuple(argv[i : i + n]) == words for i in range(len(argv)))


def test_the_command_unshares_everything_and_drops_every_capability() -> None:
    argv = command(network=False)
    for flag in ("--unshare-all", "--unshare-user", "--die-with-parent", "--disable-userns"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert "--share-net" not in argv
    assert argv[-4:] == ["--", "/opt/py/bin/python", "-c", "pass"]
    assert has(argv, "--symlink", "usr/bin", "/bin")
    assert has(argv, "--bind", "/tmp/run/tree", "/tmp/checkout/tree")  # the copy, where it was
    assert has(argv, "--chdir", "/tmp/checkout/tree")
    assert has(argv, "--ro-bind", "/opt/py", "/opt/py")


def test_network_is_shared_only_when_the_check_allows_it() -> None:
    assert "--share-net" in command(network=True)


def test_gpu_devices_and_sys_are_passed_through_for_cuda_runs_only() -> None:
    argv = command(network=False, devices=("/dev/nvidia0", "/dev/nvidiactl"))
    assert has(argv, "--dev-bind", "/dev/nvidia0", "/dev/nvidia0")
    assert "/sys" in argv
    assert "/sys" not in command(network=False)


@pytest.mark.parametrize(("code", "status"), [(137, -9), (139, -11), (1, 1), (0, 0), (255, 255)])
def test_bwraps_exit_status_for_a_signal_is_read_back_as_the_signal(code: int, status: int) -> None:
    assert bwrap.signal_of(code) == status


# --- a machine without bubblewrap ----------------------------------------------------------


def test_a_missing_bwrap_is_reported_with_what_to_install(no_bwrap: None) -> None:
    found = probe.bubblewrap()
    assert found.path is None
    assert found.reason == "`bwrap` is not installed"


def test_sandbox_require_refuses_to_run_user_code_without_bubblewrap(no_bwrap: None) -> None:
    with pytest.raises(SandboxError) as caught:
        run_in_sandbox("userpkg.behaviours:returns_kwargs", root=ROOT, sandbox="require",
                       revision="head")  # fmt: skip
    assert caught.value.kind == "sandbox"
    assert "`sandbox: require` needs bubblewrap" in str(caught.value)
    assert "apt-get install bubblewrap" in str(caught.value)


def test_sandbox_auto_runs_process_level_and_says_why(no_bwrap: None) -> None:
    seen: list[Isolation] = []
    value = run_in_sandbox("userpkg.behaviours:returns_kwargs", root=ROOT, kwargs={"a": 1},
                           on_isolation=seen.append)  # fmt: skip
    assert value == {"kwargs": {"a": 1}}
    assert [(i.sandbox, i.reason, i.network) for i in seen] == [
        ("process", "`bwrap` is not installed", True)
    ]


# --- the network --------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[int]:
    """A TCP server on the host's loopback that greets whoever connects."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)

    def serve() -> None:
        try:
            while True:
                connection, _ = listener.accept()
                with connection:
                    connection.sendall(b"hello")
        except OSError:
            return

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1]
    listener.close()


def reach(port: int, **options: object) -> object:
    return run_in_sandbox(
        "userpkg.hostile:reaches_the_network", root=ROOT, kwargs={"port": port}, limits=LIMITS,
        **options,  # type: ignore[arg-type]
    )  # fmt: skip


def test_under_bubblewrap_user_code_has_no_network_unless_allowed(
    server: int, bubblewrap: str
) -> None:
    assert str(reach(server, sandbox="require")).startswith("unreachable")
    assert reach(server, sandbox="require", network=True) == "hello"


def test_process_level_isolation_cannot_block_the_network_and_says_so(server: int) -> None:
    seen: list[Isolation] = []
    assert reach(server, sandbox="process", on_isolation=seen.append) == "hello"
    assert seen[0].network is True


# --- folders a check shows the child -----------------------------------------------------


def run_on(target: str, **options: object) -> object:
    return run_in_sandbox(f"userpkg.behaviours:{target}", root=ROOT, limits=LIMITS, **options)  # type: ignore[arg-type]


def test_without_the_network_the_child_still_resolves_its_own_name(bubblewrap: str) -> None:
    # A host whose name only its DNS knows: torchrun would hand its workers that name for their
    # store and they would wait for it until the timeout.
    assert run_on("resolves_its_own_name", sandbox="require") == ["localhost", "127.0.0.1"]


def test_a_folder_the_check_shows_is_read_only_and_one_it_does_not_show_is_not_seen(
    tmp_path: Path, bubblewrap: str
) -> None:
    shown = tmp_path / "inbox"
    shown.mkdir()
    weights = shown / "base-weights.txt"
    weights.write_text("w=1")
    written = {"path": str(weights), "text": "forged"}
    assert run_on("reads_file", kwargs={"path": str(weights)}, readable=[shown]) == "w=1"
    assert run_on("writes_file", kwargs=written, readable=[shown]) == "not written: OSError"
    assert run_on("reads_file", kwargs={"path": str(weights)}) == "not read: FileNotFoundError"
    assert weights.read_text() == "w=1"


@pytest.mark.parametrize("shared", ["home", "parent of root"])
def test_a_shared_folder_that_holds_a_secret_place_is_refused(shared: str, bubblewrap: str) -> None:
    folder = Path.home() if shared == "home" else ROOT.parent
    with pytest.raises(SandboxError) as caught:
        run_on("returns_kwargs", readable=[folder])
    assert caught.value.kind == "sandbox"
    assert f"`{folder.resolve()}` cannot be shown to user code" in str(caught.value)


@pytest.fixture
def locked_down(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A runner where bwrap is installed but may not make namespaces (seccomp, AppArmor)."""
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\n'
        'echo "bwrap: setting up uid map: Permission denied" >&2\n'
        "exit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    probe.bubblewrap.cache_clear()
    yield
    probe.bubblewrap.cache_clear()


def test_a_bwrap_that_cannot_make_a_sandbox_falls_back_and_says_why(locked_down: None) -> None:
    found = probe.bubblewrap()
    assert found.path is None
    assert found.reason is not None
    assert found.reason.endswith(
        "cannot make a sandbox here: bwrap: setting up uid map: Permission denied"
    )
    seen: list[Isolation] = []
    run_in_sandbox("userpkg.behaviours:returns_kwargs", root=ROOT, on_isolation=seen.append)
    assert seen[0].sandbox == "process"
    with pytest.raises(SandboxError, match="setting up uid map"):
        run_in_sandbox("userpkg.behaviours:returns_kwargs", root=ROOT, sandbox="require")


def test_sharing_the_tree_itself_is_no_error(bubblewrap: str) -> None:
    # A check may share both revisions' trees with each run: its own is its copy already.
    readme = str(ROOT.resolve() / "README.md")
    text = run_on("reads_file", kwargs={"path": readme}, readable=[ROOT, ROOT / "userpkg"])
    assert str(text).startswith("User code for tests/checks/sandbox")

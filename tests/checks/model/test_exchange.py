"""Issue 33's attacks on the model children's exchange, planted from the PR's factory.

Each attack runs the way an attacker's would: code in the head revision's factory, run by the
checkpoint check through the pipeline (one served child per revision, base weights handed to
head for the equivalence test), under bubblewrap. Head's model multiplies by a transposed
weight, so the check fails with "behaviour changed" exactly when base's weights and outputs
reached head's comparison intact: that result is base's half of the A/B, unaffected.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from gradgate.checks.base import Outcome
from gradgate.checks.errors import SandboxError
from gradgate.checks.model.children import fresh_file

from tests.checks.checkpoint.scenario import MODEL, kinds, only, run
from tests.gitrepo import GitRepo

SQUARE = MODEL.replace(
    "self.embed = nn.Linear(8, 16)",
    "self.embed = nn.Linear(8, 16)\n        self.mix = nn.Linear(16, 16)",
).replace(
    "return self.fc(torch.relu(self.embed(x)))",
    "return self.fc(self.mix(torch.relu(self.embed(x))))",
)
TRANSPOSED = SQUARE.replace(
    "self.mix(torch.relu(self.embed(x)))",
    "torch.relu(self.embed(x)) @ self.mix.weight + self.mix.bias",
)
# Where the attack looks: its own exchange, and where the runs' shared exchange used to be (the
# host's temp folder, seen at its own path), every folder below them.
PLACES = """\
def places():
    import glob, os, tempfile
    found = [os.path.join(tempfile.gettempdir(), "gradgate-exchange")]
    for top in {{tempfile.gettempdir(), {host_tmp!r}}}:
        found += glob.glob(os.path.join(top, "gradgate-*"))
        found += glob.glob(os.path.join(top, "gradgate-*", "**"), recursive=True)
    return [p for p in found if os.path.isdir(p)]

"""
LINKS = """\
def attack():
    import os
    for place in places():
        names = ["base-weights.pt", "requests", "replies"]
        names += ["request-%d.json" % n for n in range(1, 40)]
        for n, name in enumerate(names):
            path = os.path.join(place, name)
            try:
                if os.path.lexists(path) and not os.path.isdir(path):
                    os.unlink(path)
                os.symlink({precious!r} if n % 2 == 0 else {created!r}, path)
            except OSError:
                pass

"""
OTHER_SIDE = """\
def attack():
    import os
    for place in places():
        for name in os.listdir(place):
            path = os.path.join(place, name)
            try:
                if os.path.isdir(path):
                    continue
                flags = os.O_WRONLY | os.O_NONBLOCK | os.O_APPEND
                fd = os.open(path, flags)
                os.write(fd, b'{{"id": 1, "ok": true, "value": {{"forged": true}}}}\\n')
                os.close(fd)
            except OSError:
                pass
        try:
            with open(os.path.join(place, "base-weights.pt"), "wb") as file:
                file.write(b"not the base weights")
        except OSError:
            pass

"""
FILLS = """\
def attack():
    import errno, os
    exchanges = [p for p in places() if "gradgate-exchange" in p or "gradgate-models-" in p]
    for place in exchanges:
        try:
            for n in range(3):
                with open(os.path.join(place, "fill-%d.bin" % n), "wb") as file:
                    for _ in range({chunks}):
                        file.write(bytes(1 << 20))
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
                raise

"""


def attacking(attack: str, *, model: str = TRANSPOSED) -> str:
    """``model`` (head's), whose factory runs ``attack`` every time it is called."""
    with_places = PLACES.format(host_tmp=tempfile.gettempdir()) + attack
    return model.replace("def build():\n", with_places + "def build():\n    attack()\n")


def assert_base_weights_reached_head(result: object) -> None:
    assert kinds(result) == ["checkpoint-behaviour-changed"], result  # type: ignore[arg-type]
    finding = only(result, "checkpoint-behaviour-changed")  # type: ignore[arg-type]
    assert "differs by up to" in finding.message


def test_symlinks_planted_where_requests_and_weights_go_change_nothing_on_the_host(
    repo: GitRepo, tmp_path: Path, bubblewrap: str
) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("the user's work\n")
    created = tmp_path / "created.txt"
    head = attacking(LINKS.format(precious=str(precious), created=str(created)))

    result = run(repo, base={"model.py": SQUARE}, head={"model.py": head})

    assert precious.read_text() == "the user's work\n"
    assert not created.exists()
    assert result.outcome is Outcome.FAIL
    assert_base_weights_reached_head(result)


def test_head_cannot_write_into_base_requests_replies_or_weights(
    repo: GitRepo, bubblewrap: str
) -> None:
    result = run(repo, base={"model.py": SQUARE}, head={"model.py": attacking(OTHER_SIDE)})

    assert result.outcome is Outcome.FAIL
    assert_base_weights_reached_head(result)


def test_three_large_files_in_the_exchange_are_a_disk_error_of_head(
    repo: GitRepo, bubblewrap: str
) -> None:
    head = attacking(FILLS.format(chunks=20))  # 3 x 20 MB, past a cap of 48 MB

    result = run(repo, base={"model.py": SQUARE}, head={"model.py": head}, settings={"disk_mb": 48})

    assert result.outcome is Outcome.ERROR
    assert [f.revision for f in result.findings] == ["head"], result.findings  # base's half held
    finding = result.findings[0]
    assert "went past its disk cap of 48 MB" in finding.message, finding.message
    host = Path(tempfile.gettempdir())
    assert not [*host.glob("fill-*.bin"), *host.glob("gradgate-*/**/fill-*.bin")]  # not on host


LINKED_WEIGHTS = """\
def attack():
    import os, tempfile
    exchange = os.path.join(tempfile.gettempdir(), "gradgate-exchange")
    path = os.path.join(exchange, "base-weights.pt")
    if os.path.isdir(exchange) and not os.path.lexists(path):
        os.symlink(os.path.join(tempfile.gettempdir(), "elsewhere.pt"), path)

"""


def test_a_link_base_planted_for_its_weights_is_not_followed_and_is_bases_error(
    repo: GitRepo, bubblewrap: str
) -> None:
    base = attacking(LINKED_WEIGHTS, model=SQUARE)
    result = run(repo, base={"model.py": base}, head={"model.py": TRANSPOSED})

    assert result.outcome is Outcome.ERROR
    finding = result.findings[0]
    assert finding.revision == "base"
    assert "could not hand over `base-weights.pt`" in finding.message, finding.message
    assert "a symbolic link, not a file the child wrote itself" in finding.message


# Base's factory wraps torch.save: once the check's program has saved the weights, the planted
# thing takes their place, just before gradgate asks for them.
AFTER_SAVE = """\
def attack():
    import os, torch
    if getattr(torch.save, "planted", False):
        return
    saving = torch.save

    def save(obj, f, *args, **kwargs):
        saving(obj, f, *args, **kwargs)
        if isinstance(f, str) and os.path.basename(f) == "base-weights.pt":
            plant(f)

    save.planted = True
    torch.save = save


def plant(path):
    import os
{plant}
"""
PLANTED = {
    "fifo": ("    os.unlink(path)\n    os.mkfifo(path)\n", "(a FIFO, a folder, a hard link)"),
    "hard-link": ("    os.link(path, path + '.twin')\n", "(a FIFO, a folder, a hard link)"),
    "rename": (
        "    os.symlink({precious!r}, path + '.new')\n    os.rename(path + '.new', path)\n",
        "a symbolic link, not a file the child wrote itself",
    ),
}


@pytest.mark.parametrize("planted", list(PLANTED))
def test_a_fifo_hard_link_or_rename_base_plants_on_its_weights_is_bases_sandbox_error(
    repo: GitRepo, tmp_path: Path, bubblewrap: str, planted: str
) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("the user's work\n")
    plant, words = PLANTED[planted]
    attack = AFTER_SAVE.format(plant=plant.format(precious=str(precious)))
    base = attacking(attack, model=SQUARE)

    result = run(repo, base={"model.py": base}, head={"model.py": TRANSPOSED})

    assert precious.read_text() == "the user's work\n"
    assert result.outcome is Outcome.ERROR
    assert [f.revision for f in result.findings] == ["base"], result.findings
    (finding,) = result.findings
    assert "could not hand over `base-weights.pt`" in finding.message, finding.message
    assert words in finding.message, finding.message


def test_with_process_level_isolation_base_weights_still_reach_head(
    repo: GitRepo, no_bwrap: None
) -> None:
    result = run(repo, base={"model.py": SQUARE}, head={"model.py": TRANSPOSED})

    assert result.outcome is Outcome.FAIL
    assert_base_weights_reached_head(result)
    assert result.isolation is not None and result.isolation.sandbox == "process"


# --- the parent's one write into a folder a child may reach (process-level isolation) -------


def test_the_parent_replaces_what_lies_in_an_inbox_and_never_follows_a_link(
    tmp_path: Path,
) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("the user's work\n")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "base-weights.pt").symlink_to(precious)
    (inbox / "gone").symlink_to(tmp_path / "created.txt")

    for name in ("base-weights.pt", "gone"):
        fd = fresh_file(inbox, name, revision="head")
        os.write(fd, b"weights")
        os.close(fd)

    assert precious.read_text() == "the user's work\n"
    assert not (tmp_path / "created.txt").exists()
    assert (inbox / "base-weights.pt").read_bytes() == b"weights"
    assert not (inbox / "base-weights.pt").is_symlink()


def test_a_folder_planted_in_an_inbox_is_a_sandbox_error_of_the_receiving_revision(
    tmp_path: Path,
) -> None:
    (tmp_path / "base-weights.pt").mkdir()
    with pytest.raises(SandboxError) as caught:
        fresh_file(tmp_path, "base-weights.pt", revision="head")
    assert (caught.value.kind, caught.value.revision) == ("sandbox", "head")

"""The sandbox child's environment: an allow-list, fixed settings, never gradgate's credentials.

Pure: ``child_env`` takes the parent's environment as a mapping and returns the child's whole
environment. ``checks.sandbox.run`` starts the child with it.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from fnmatch import fnmatchcase
from pathlib import Path

from gradgate.checks.errors import CheckError

# Copied from the parent's environment when set. Everything else is dropped unless the caller
# names it in ``env_allow``. LD_LIBRARY_PATH: some CUDA installs need it to find libcuda.
PASSED_THROUGH = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH",
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
)  # fmt: skip
# gradgate's own credentials; ``env_allow`` (which comes from a repo's config) cannot pass them.
NEVER_PASSED = (
    "GITHUB_TOKEN", "GH_TOKEN", "GH_APP_*", "GITHUB_APP_*", "GRADGATE_*",
    "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_*",
)  # fmt: skip


def child_env(
    parent: Mapping[str, str], *, home: Path, tmp: Path, device: str, env_allow: Collection[str]
) -> dict[str, str]:
    """The child's whole environment: the allow-list, ``env_allow``, and the fixed settings."""
    refused = sorted(n for n in env_allow if any(fnmatchcase(n, p) for p in NEVER_PASSED))
    if refused:
        raise CheckError(f"env_allow may not pass {', '.join(refused)} to user code")
    env = {name: parent[name] for name in (*PASSED_THROUGH, *env_allow) if name in parent}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env |= {
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",  # never write __pycache__ into the revision's tree
        "PYTHONUNBUFFERED": "1",  # output printed just before a crash still reaches the tail
        "GRADGATE_DEVICE": device,
    }
    if memory_rlimit(device) is not None:
        # Hide GPUs from a CPU run, so a factory that picks cuda when available stays on CPU.
        env["CUDA_VISIBLE_DEVICES"] = ""
        # glibc reserves 64 MB of address space per malloc arena, up to 8 per core (mallopt(3));
        # on a many-core runner that alone would exhaust an RLIMIT_AS cap.
        env.setdefault("MALLOC_ARENA_MAX", "4")
    return env


def memory_rlimit(device: str) -> str | None:
    """The ``resource`` limit that caps the child's memory on ``device``; None: no cap there.

    Only CPU runs are capped: see ``SandboxLimits.memory_mb`` for why CUDA is not.
    """
    return "RLIMIT_AS" if device.partition(":")[0] == "cpu" else None


def without_credentials(parent: Mapping[str, str]) -> dict[str, str]:
    """``parent`` less every variable ``NEVER_PASSED`` names.

    For the process that supervises the checks (the GitHub Action starts `gradgate check` so):
    it keeps PATH, locale and the rest, but holds no token a PR's code could find.
    """
    return {k: v for k, v in parent.items() if not any(fnmatchcase(k, p) for p in NEVER_PASSED)}

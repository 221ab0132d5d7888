"""Environments without credentials: the sandbox child's (an allow-list), and the supervisor's.

Pure: both take an environment as a mapping and return a new one.

``child_env`` is the whole environment of user code: a short allow-list, the names a check's
``env_allow`` adds (never a credential), and fixed settings. ``without_credentials`` is for the
doors: the process that runs checks (and so supervises PR code) is started with it, so it holds
no token for PR code to find, while the process that publishes keeps its own.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from fnmatch import fnmatchcase
from pathlib import Path

from gradgate.checks.errors import CheckError
from gradgate.checks.sandbox.limits import memory_rlimit

__all__ = [
    "CREDENTIALS",
    "NEVER_PASSED",
    "PASSED_THROUGH",
    "child_env",
    "is_credential",
    "memory_rlimit",
    "without_credentials",
]

# Copied from the parent's environment when set. Everything else is dropped unless the caller
# names it in ``env_allow``. LD_LIBRARY_PATH: some CUDA installs need it to find libcuda.
PASSED_THROUGH = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH",
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
)  # fmt: skip
# Names of credentials, matched case-insensitively: GitHub's (the App's key and id, the Actions
# runtime's URLs and tokens for caches, artifacts and OIDC) and anything named like a secret.
# `*TOKEN` covers GITHUB_TOKEN, GH_TOKEN, ACTIONS_RUNTIME_TOKEN, HF_TOKEN; `*_TOKEN_*` covers
# ACTIONS_ID_TOKEN_REQUEST_*; not `*TOKEN*`: TOKENIZERS_PARALLELISM is no secret.
CREDENTIALS = (
    "*TOKEN", "*_TOKEN_*", "GH_APP_*", "GITHUB_APP_*", "ACTIONS_RUNTIME_*", "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", "*API_KEY*",
    "*ACCESS_KEY*", "*PRIVATE_KEY*", "SSH_AUTH_SOCK", "*ASKPASS*",
)  # fmt: skip
# ``env_allow`` (which comes from a repo's config) can pass none of these to user code: no
# credential, and none of gradgate's own settings.
NEVER_PASSED = (*CREDENTIALS, "GRADGATE_*")


def is_credential(name: str, patterns: Collection[str] = CREDENTIALS) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, pattern) for pattern in patterns)


def without_credentials(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` less every credential: the environment to start `gradgate check` with, so
    the process that supervises PR code holds no token it could read from ``/proc``."""
    return {name: value for name, value in environ.items() if not is_credential(name)}


def child_env(
    parent: Mapping[str, str], *, home: Path, tmp: Path, device: str, env_allow: Collection[str]
) -> dict[str, str]:
    """The child's whole environment: the allow-list, ``env_allow``, and the fixed settings."""
    refused = sorted(n for n in env_allow if is_credential(n, NEVER_PASSED))
    if refused:
        raise CheckError(
            f"env_allow may not pass {', '.join(refused)} to user code: credentials and "
            "gradgate's own settings never reach it"
        )
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

#!/usr/bin/env bash
# Set up a virtual environment with gradgate, its dev tools and the pinned CPU torch, then run
# the linters, the import contracts and the test suite but its `slow` group; `--all` runs that
# group too. The README's second command; .ci/run calls it with `--all`.
set -euo pipefail
cd "$(dirname "$0")/.."
# The sandbox's strong path runs user code under bubblewrap: install it where the platform's
# package manager can (Debian/Ubuntu; sudo only when not root), so CI tests that path instead of
# skipping it. Where bwrap then works, its tests must pass: GRADGATE_TEST_SANDBOX makes a skip
# of the strong path a failure.
if ! command -v bwrap >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo -n)
    apt=(${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get -q -y)
    "${apt[@]}" install bubblewrap >/dev/null 2>&1 ||
        { "${apt[@]}" update >/dev/null 2>&1 && "${apt[@]}" install bubblewrap >/dev/null 2>&1; } ||
        echo "test.sh: could not install bubblewrap; the sandbox's bubblewrap tests will skip" >&2
fi
if command -v bwrap >/dev/null 2>&1 &&
    bwrap --unshare-all --unshare-user --ro-bind / / true >/dev/null 2>&1; then
    export GRADGATE_TEST_SANDBOX=bubblewrap
fi
python3 -m venv .venv
# torch is pinned for the test set-up only (gradgate itself never installs or replaces torch).
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' 'torch==2.13.0'
# mypy cannot see through the editable install's renaming (bot/ -> gradgate.bot); it reads the
# packages through this tree of two symlinks instead (pyproject.toml: tool.mypy.mypy_path).
mkdir -p build/typecheck/gradgate
ln -sfn ../../../bot build/typecheck/gradgate/bot
ln -sfn ../../../checks build/typecheck/gradgate/checks
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports
# The shipped action and workflows: GitHub's schemas, then zizmor's security audits (offline: no
# token, no network). tests/bot/github/test_workflows.py checks the ones `init --workflows` writes.
.venv/bin/check-jsonschema -q --builtin-schema vendor.github-actions action.yml
.venv/bin/check-jsonschema -q --builtin-schema vendor.github-workflows .github/workflows/*.yml
.venv/bin/zizmor -q --offline action.yml .github/workflows/
# The App's multi-worker tests run a real redis-server. Where this script may install packages
# (root with apt-get, as in CI on a fresh Debian), it installs one and those tests must run:
# GRADGATE_TEST_REDIS=required makes them fail, not skip, without it.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    if ! command -v redis-server >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
    fi
    export GRADGATE_TEST_REDIS=required
fi
# The suite runs on every core (pytest-xdist; GRADGATE_TEST_WORKERS=0 runs it in one process):
# each worker has its own fake GitHub, redis-server and temp dirs, on free ports. `loadgroup`
# hands out tests one by one, the longest first (tests/conftest.py): none runs alone at the end.
# By default every test but the `slow` group (tests/conftest.py: SLOW); `--all` runs that group
# after the rest (CI does). Other arguments go to pytest.
all=false
if [ "${1:-}" = "--all" ]; then
    all=true
    shift
fi
workers=${GRADGATE_TEST_WORKERS:-auto}
status=0
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
cpu_s() { # sets cpu: the CPU seconds (user + system) of every process this shell waited for
    times >"$times_file" # here, not in $( ): a subshell would not count this shell's children
    cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } }
               END { printf "%d", s }' "$times_file")
}
suite() { # $1: the group's name, then the marker expression and pytest's arguments
    local name=$1 started before code=0
    shift
    started=$(date +%s)
    cpu_s
    before=$cpu
    .venv/bin/python -m pytest -q -p no:cacheprovider -n "$workers" --dist loadgroup -m "$@" ||
        code=$?
    # 5: none of the tests asked for is in this group (`--all tests/bot/plan` has no slow test).
    if [ "$code" -eq 5 ]; then
        echo "test.sh: none of the tests asked for is in $name$([ "$all" = true ] ||
            echo ' (--all runs the slow group too)')"
    elif [ "$code" -ne 0 ]; then
        status=$code
    fi
    # The wall time, and what it depends on: the CPU it took and how busy the machine was.
    cpu_s
    echo "test.sh: $name took $(($(date +%s) - started)) s on $(nproc) cores ($((cpu - before))" \
        "s of CPU; load average $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'))"
}
suite "the test suite (without the slow group)" "not slow" "$@"
if [ "$all" = true ]; then
    suite "the slow group" slow "$@"
fi
exit "$status"

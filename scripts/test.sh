#!/usr/bin/env bash
# Set up a virtual environment with gradgate, its dev tools and the pinned CPU torch, then run
# the linters, the import contracts and the whole test suite. The README's second command;
# .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
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
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"

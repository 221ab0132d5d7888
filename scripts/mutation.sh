#!/usr/bin/env bash
# Mutation runs, by hand (issue 39): does a test fail when the code is wrong? For each module,
# mutmut mutates it in place and runs its own package's tests (checks/gradient/compare.py ->
# tests/checks/gradient, but the slow group), then the module is restored and the run's figures
# printed: mutants, killed, survived, timeout, and each survivor's line. Not part of
# scripts/test.sh or CI: a module takes minutes to an hour on 2 cores.
#
#   bash scripts/mutation.sh checks/gradient/compare.py [MODULE...] [--budget SECONDS]
#        [--tests PATH] [--fresh]
#
# --budget: wall seconds per module (default 1800); a run cut short keeps what it tested, and the
#   next run goes on from there (each module's mutmut cache is kept under build/mutation/).
# --tests: the tests to run instead of the module's package's, for every module: one path or
#   several in one quoted argument ("tests/a/test_x.py tests/b"); the pure comparisons' own test
#   files take seconds a mutant where their package takes tens of seconds.
# --fresh: forget what earlier runs of these modules found.
# A mutant that cannot change behaviour is listed in scripts/mutation-equivalent.txt with the
# reason (its module, the mutated line, why): counted as equivalent, not as a survivor.
set -euo pipefail
cd "$(dirname "$0")/.."

budget=1800
tests_override=
fresh=false
modules=()
while [ $# -gt 0 ]; do
    case $1 in
    --budget) budget=$2 && shift 2 ;;
    --tests) tests_override=$2 && shift 2 ;;
    --fresh) fresh=true && shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' && exit 0 ;;
    -*) echo "mutation.sh: unknown option $1" >&2 && exit 2 ;;
    *) modules+=("${1%.py}.py") && shift ;;
    esac
done
if [ ${#modules[@]} -eq 0 ]; then
    echo "mutation.sh: name at least one module, e.g. checks/gradient/compare.py" >&2
    exit 2
fi
for module in "${modules[@]}"; do
    case $module in
    bot/*.py | checks/*.py) ;;
    *) echo "mutation.sh: $module is not a module under bot/ or checks/" >&2 && exit 2 ;;
    esac
    [ -f "$module" ] || { echo "mutation.sh: no such module: $module" >&2 && exit 2; }
done
[ -e .mutmut-cache ] && { echo "mutation.sh: a .mutmut-cache is here: another run?" >&2 && exit 2; }

# mutmut's runner and its own imports: this checkout's virtual environment.
export PATH="$PWD/.venv/bin:$PATH"
state=build/mutation
mkdir -p "$state"
original=
restore() { # the module as it was before the run, whatever stopped it
    if [ -n "$original" ] && [ -f "$state/original" ]; then
        cp "$state/original" "$original"
        rm -f "$state/original" "$original.bak" # mutmut's own copy, left beside the module
    fi
    [ -e .mutmut-cache ] && [ -n "$original" ] && mv .mutmut-cache "$state/$(key "$original").cache"
    original=
}
key() { echo "$1" | tr '/' '_'; }
trap restore EXIT
trap 'restore; exit 130' INT TERM

tests_for() { # the module's package's tests: the nearest folder under tests/ that mirrors it
    local dir
    dir=tests/$(dirname "$1")
    while [ ! -d "$dir" ] && [ "$dir" != tests ]; do dir=$(dirname "$dir"); done
    echo "$dir"
}

runner='import sys, pytest; sys.exit(pytest.main(sys.argv[1:]) != 0)'
status=0
for module in "${modules[@]}"; do
    tests=${tests_override:-$(tests_for "$module")}
    cache=$state/$(key "$module").cache
    [ "$fresh" = true ] && rm -f "$cache"
    [ -f "$cache" ] && mv "$cache" .mutmut-cache
    cp "$module" "$state/original"
    original=$module
    echo "== $module against $tests (budget ${budget}s)"
    # -m 'not slow': the package's tests but the slow group (tests/conftest.py), as test.sh runs.
    # A mutant gets 3x the unmutated run plus 10 s before it counts as a timeout: the machine is
    # shared. timeout signals mutmut's whole process group, the test run it started included.
    # mutmut 2 counts a mutant as killed only when the runner exits 1, so a mutant that breaks
    # the module's import (pytest's exit 2, a collection error) would read as a survivor: the
    # runner says 1 for any failure.
    code=0
    nice -n 19 timeout -k 30 "$budget" python -m mutmut run \
        --paths-to-mutate "$module" --tests-dir "${tests%% *}" \
        --runner "python -c '$runner' -x -q -p no:cacheprovider -n 0 -m 'not slow' $tests" \
        --test-time-multiplier 3 --test-time-base 10 --simple-output --no-progress \
        >"$state/$(key "$module").log" 2>&1 || code=$?
    restore
    # mutmut's exit: a sum of 2 (survivors), 4 (timeouts), 8 (slow mutants); 1 is its own failure.
    if [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then
        echo "   budget spent: the figures below are the mutants tested so far"
    elif [ $((code % 2)) -eq 1 ] || [ "$code" -ge 16 ]; then
        echo "   mutmut failed (exit $code); its output: $state/$(key "$module").log"
        tail -5 "$state/$(key "$module").log" | sed 's/^/   /'
        status=1
        continue
    fi
    python scripts/mutation_report.py "$state/$(key "$module").cache" "$module" || status=1
done
exit $status

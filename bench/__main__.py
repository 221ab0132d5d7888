"""`python -m bench`: run every bench/*.py script, echo its output, then list all figures.

Exits non-zero when a script fails. A MISSED figure is reported, not a failure.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Run only by hand: realworld needs its own environment and the registry, and takes about an
# hour; behaviour runs the gate on 21 changes, about three minutes.
ON_REQUEST = frozenset({"realworld", "behaviour"})


def scripts() -> list[str]:
    return sorted(
        p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_") and p.stem not in ON_REQUEST
    )


def main(argv: list[str]) -> int:
    """Run the named scripts (default: all) from the repository root."""
    names = argv or scripts()
    failed: list[str] = []
    figures: list[str] = []
    for name in names:
        print(f"== bench/{name}.py", flush=True)
        done = subprocess.run(
            [sys.executable, "-m", f"bench.{name}"],
            cwd=HERE.parent,
            stdout=subprocess.PIPE,
            text=True,
            check=False,
        )
        print(done.stdout, end="", flush=True)
        figures += [line for line in done.stdout.splitlines() if line.startswith("figure: ")]
        if done.returncode != 0:
            failed.append(name)
            print(f"== bench/{name}.py FAILED (exit {done.returncode})", flush=True)
    print("== figures")
    print("\n".join(figures) if figures else "(none)")
    if failed:
        print(f"== failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

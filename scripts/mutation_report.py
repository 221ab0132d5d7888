"""One module's mutation figures from its mutmut cache, for scripts/mutation.sh: mutants,
killed, survived, equivalent, timeout, and each survivor as the line it changed (mutmut 2's own
mutator rebuilds it from the cache's line and index, so no mutant is written to disk here).

A survivor listed in scripts/mutation-equivalent.txt (module | mutated line | reason) cannot
change behaviour: it is counted as equivalent, with its reason, not as a survivor."""

from __future__ import annotations

import sqlite3
import sys
from collections import Counter
from pathlib import Path

from mutmut import Context, RelativeMutationID, mutate

WORDS = {
    "ok_killed": "killed",
    "bad_survived": "survived",
    "bad_timeout": "timeout",
    "ok_suspicious": "suspicious",
    "untested": "untested",
    "skipped": "skipped",
}


EQUIVALENT = Path(__file__).with_name("mutation-equivalent.txt")


def equivalents(module: str) -> dict[str, str]:
    """The mutated lines of ``module`` known to change nothing, with the reason."""
    found = {}
    for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            # The mutated line may hold " | " itself (`str | None`); the reason does not.
            where, rest = line.split(" | ", 1)
            mutated, reason = rest.rsplit(" | ", 1)
            where, mutated, reason = where.strip(), mutated.strip(), reason.strip()
            if where == module:
                found[mutated] = reason
    return found


def main(cache: str, module: str) -> int:
    if not Path(cache).is_file():
        print(f"   no figures: mutmut wrote no cache for {module}")
        return 1
    with sqlite3.connect(cache) as db:
        rows = db.execute(
            "SELECT m.status, l.line, l.line_number, m.`index` FROM Mutant m"
            " JOIN Line l ON m.line = l.id JOIN SourceFile s ON l.sourcefile = s.id"
            " WHERE s.filename = ? ORDER BY l.line_number, m.`index`",
            (module,),
        ).fetchall()
    source = Path(module).read_text()
    known = equivalents(module)
    counts: Counter[str] = Counter()
    listed = []
    for status, line, number, index in rows:
        word = WORDS.get(status, status)
        if status in ("bad_survived", "bad_timeout"):
            mutant = RelativeMutationID(line=line, index=index, line_number=number)
            mutated, _ = mutate(Context(source=source, mutation_id=mutant, filename=module))
            lines = mutated.splitlines()
            changed = lines[number].strip() if number < len(lines) else "(a line removed)"
            if status == "bad_survived" and changed in known:
                word = "equivalent"
                listed.append(f"   equivalent {module}:{number + 1}: {changed}  ({known[changed]})")
            else:
                listed.append(f"   {word} {module}:{number + 1}: {changed}")
        counts[word] += 1
    order = ["killed", "survived", "equivalent", *list(WORDS.values())[2:]]
    figures = ", ".join(f"{counts[w]} {w}" for w in order if counts[w])
    print(f"   {len(rows)} mutants: {figures or 'none'}")
    tested = len(rows) - counts["equivalent"] - counts["untested"] - counts["skipped"]
    if tested:
        print(f"   killed {counts['killed'] / tested:.0%} of the non-equivalent mutants tested")
    print("\n".join(listed))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""One module's mutation figures from its mutmut cache, for scripts/mutation.sh: mutants,
killed, survived, timeout, and each survivor as the line it changed (mutmut 2's own mutator
rebuilds it from the cache's line and index, so no mutant is written to disk here)."""

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
    counts = Counter(WORDS.get(status, status) for status, *_ in rows)
    figures = ", ".join(f"{counts[w]} {w}" for w in WORDS.values() if counts[w])
    print(f"   {len(rows)} mutants: {figures or 'none'}")
    source = Path(module).read_text()
    for status, line, number, index in rows:
        if status not in ("bad_survived", "bad_timeout"):
            continue
        mutant = RelativeMutationID(line=line, index=index, line_number=number)
        mutated, _ = mutate(Context(source=source, mutation_id=mutant, filename=module))
        lines = mutated.splitlines()
        changed = lines[number] if mutated != source and number < len(lines) else "(a line removed)"
        print(f"   {WORDS[status]} {module}:{number + 1}: {changed.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

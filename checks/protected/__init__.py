"""The `protected` check: statements marked `# NO_REFAC` must not change.

``markers`` finds marker comments (a comment's first word, or a `#` segment's) and the text lines
they protect, ``text_blocks`` how far a text line reaches (a YAML block, a shell statement);
``statements`` and ``python_units`` turn a Python file into protected statements (ast +
tokenize) with their context; ``scan`` reads both revisions of a file and refuses what it
cannot compare; ``lines`` maps base lines to head lines; ``match`` (Python) and ``text_match``
pair base units with head units, the original position first; ``findings`` words the result,
and what it says of a file it could not compare (``diffs``: the diffs it shows);
``check`` is the entry point the registry lists (``settings``: what a config may set, read
without loading the check); ``advice`` warns about what the user marked that protects nothing
(a marker word that is no marker, a marker with no statement to guard).
``head_side`` adds to a blocking finding the head line of its statement, which GitHub can mark.
"""

"""The `protected` check: statements marked `# NO_REFAC` must not change.

``markers`` finds marker comments and the text lines they protect; ``python_units`` turns a
Python file into protected statements (ast + tokenize); ``scan`` reads both revisions of a file;
``match`` pairs base units with head units; ``findings`` words the result; ``check`` is the
entry point the registry lists.
``head_side`` adds to a blocking finding the head line of its statement, which GitHub can mark.
"""

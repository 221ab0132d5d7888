"""The `config-docs` check: README and docs claims must agree with configs and code defaults.

``snapshot`` reads one revision: the docs into claims (``claims``: tables, inline code,
sentences, code blocks, via markdown-it-py; ``examples``: calls in Python blocks, options in
shell blocks) and the configs and code into facts (``sources``: YAML, JSON, TOML, Python read
with ast); ``values`` normalises what both say; ``bind`` ties claims written in words to the
settings a revision defines; ``compare`` finds the disagreements at a revision (``resolve``
answers imports and paths, ``examples.judge`` calls and options); ``verdict`` blocks only those
the PR introduced; ``findings`` words them; ``check`` is the entry point the registry lists.
"""

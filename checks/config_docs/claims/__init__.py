"""Claims: what the docs say, read from Markdown with markdown-it-py (the table rule enabled).

``markdown`` walks the tokens of one document and hands each construct to its reader:
``tables`` (a key column and a default/value column), ``inline`` (code spans such as
`batch_size: 32`, and "`lr` (default: 3e-4)"), ``blocks`` (fenced yaml/json/toml, Python imports,
shell commands). ``words`` holds what is not a claim: overrides, other setups, versions, dates.
"""

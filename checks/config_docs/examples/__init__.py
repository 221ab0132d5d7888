"""Examples in the docs that must still run: Python calls and shell commands, judged statically.

``model`` holds the claims; ``calls`` reads each doc's Python blocks into calls of the project's
own functions and classes (imports followed across blocks, instances tracked), ``commands``
reads shell blocks into the options passed to the project's scripts. At each revision, ``defs``
finds what a call names and ``options`` what a script accepts (argparse, click, typer, Hydra,
nanoGPT's configurator); ``judge`` compares, and keeps the verdict's rule: only what the PR broke
blocks. ``words`` says it, with the corrected line as a suggestion where one can be written.
"""

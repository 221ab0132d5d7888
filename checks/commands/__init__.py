"""The `commands` check: what the README tells a reader to run still starts, for one step.

found     which commands: the docs' shell blocks and code spans (config-docs' reading of
          commands), the config's `run:`, less `exclude:`
launch    each made tiny with its overrides; torchrun on two CPU processes over gloo (pure)
child     inside the sandbox: run it, report the uncaught exception as data
verdict   head against base: what blocks, what is a note (pure)
findings  the words
check     the protocol: both revisions, the sandbox, the result
"""

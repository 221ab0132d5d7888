"""The `behaviour` check: with the same weights, the model still does what it did (issue 35).

check.py      the entry point: base's child, then head's, through the gate's model session
settings.py   `checks.behaviour`: seed, rtol, max_parameters, per-variant opt-outs
facts.py      the children's answers as values
compare.py    base against head -> findings, each at the line that explains it (pure)
words.py      those findings in words (pure)
child/        the probes, run in the revisions' served children (stdlib + torch)
"""

"""The `checkpoint` check: will checkpoints saved before a PR still load, and mean the same?

Parent side (gradgate's interpreter, never torch):
  check.py       the Check: exports base and head, runs a session, picks the outcome
  settings.py    `checks.checkpoint`: references, from_base, migrations, equivalence
  references.py  configured paths -> files read in this process, or findings why not
  read/          safetensors headers, torch.save structure, pickle opcodes; no weights
  session.py     the children (base, head, verification) and their JSON
  results.py     that JSON as values
  judge.py       sorts a dry run: regressions, tied names, non-persistent and environment keys
  infer.py       renames (legacy, prefix, module signature) and fused/split conversions
  findings.py    words for a judgement, with the `migrations:` map to paste
  failures.py    words for what failed in a child (torch too old, outputs that differ)
  variants.py    each variant's findings named; a variant at one revision only, a note
  tensors.py     shape and dtype without tensors

Child side (the user's interpreter: stdlib and torch, Python 3.9+): child/, see its docstring.
"""

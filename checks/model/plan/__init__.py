"""The model plan: what a change does to the model, variant by variant, before it merges.

Like `terraform plan` for infrastructure: parameters per top-level module and in total,
state-dict keys added, removed, renamed and reshaped, dtype changes, the module tree where it
changed, and forward FLOPs on the factory's inputs, at base and head. Not a check: it decides
nothing, and costs no child start (it asks the children the model checks used).

  child.py    child side: the facts of each variant (the model built on meta; FLOPs counted
              by torch's own ``FlopCounterMode``)
  compare.py  the values, and base against head (pure); their JSON
  ask.py      asks the gate's running children once the checks are done
"""

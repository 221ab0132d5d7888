"""How the model checks reach the user's model: the `model:` block, and building it in the child.

Parent side (gradgate's interpreter):
  spec.py       ModelSpec: the top-level `model:` block of `.gradgate.yml` (and a check's own)
  settings.py   ModelCheckSettings (a check's own `model:` overrides the top level) and
                effective_model(ctx): the spec a check uses
  device.py     `device: auto | cpu | cuda` -> the device a run uses
  run.py        run_model_program: a child-side program on the model at one revision; the
                child's own problems (no inputs, wrong return type, no CUDA) become ModelError
  beside.py     the config's folder as the child sees it (copies of the factory when the folder
                holds the source repository: an uncommitted config in the working tree)
  problems.py   those problems in words
  session.py    ModelSessions: one long-lived sandboxed child per revision for every model
                check of a gate (ctx.models), each check's request with its own deadline; the
                revisions' checkouts and a folder every child may write
  served.py     the parent's handle on one such child: requests as files named on a pipe,
                answers as JSON lines; a request past its deadline stops the child
  coverage.py   the PR's changed lines the head child is asked about, and the changed code the
                model did not run (``child/coverage.py`` records it)

Child side (the user's interpreter: stdlib and torch only, Python 3.9+):
  child/        prepare (seeds, determinism, device), load (factory or `_target_` spec ->
                model, inputs, loss; DDP / torch.compile unwrapped), call_model;
                serve.py: the long-lived child's loop (run_one is where a tracer wraps a
                check's user code)
"""

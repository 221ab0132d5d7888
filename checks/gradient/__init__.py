"""The `gradient` check: do the same parameters still receive finite, non-zero gradients?

Parent side: ``settings`` (`checks.gradient`), ``check`` (the entry point the registry lists),
``facts`` (the child's JSON as values), ``variants`` (a factory's named variants paired across
revisions), ``classify`` (each parameter's state), ``compare`` (base vs head), ``group``
(module prefixes), ``findings`` and ``words`` (what the report says), ``untested`` (changed
code the model did not run), ``summary`` (the model summary and the chart's data).
Child side: the ``child`` package, run by the user's interpreter in the sandbox.
"""

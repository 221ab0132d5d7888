"""The `data` check: does the same input still come out of the data path the same?

Parent side: ``spec`` (the top-level `data:` block), ``settings`` (`checks.data`), ``check``
(the entry point the registry lists; runs base and head), ``compare`` (base vs head, named
differences: ``outputs`` their values, ``differ`` one output's, with ``image`` outputs as
images and the geometries tried, ``geometry`` a small rotation, crop or resize estimated;
``labels`` targets and class indices), ``findings`` (what the report says), ``problems`` (the
child's problems in words).
Child side: the ``child`` package, run by the user's interpreter in the sandbox.
"""

"""The `api-contract` check: a function's calling convention must not change under its callers.

``names`` says what a module-level name stands for; ``bindings`` what a local name, parameter
or attribute of `self` stands for (aliases, partials, instances); ``calls`` resolves every call
of a module in one walk; ``sources`` reads, parses and walks each file once; ``signatures``
reads the functions and methods of a module; ``changes`` compares a signature at base and head
and judges one call against the change; ``callsites`` finds the affected calls across the
repository in one pass; ``losses`` spots asymmetric torch losses with swapped arguments;
``findings`` words it all, the call sites it lists included; ``check`` is the entry
point the registry lists, ``settings`` what a config may set (read without loading the check).
"""

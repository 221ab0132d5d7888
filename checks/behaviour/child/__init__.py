"""Inside the sandbox child: the behaviour check's probes of one revision (stdlib + torch).

``probe``       the programs (``behaviour.child.probe:base`` and ``:head``): each variant built
                from the seed, its invariants probed, and base's runs recorded or head's
                compared with them
``invariants``  eval output independent of the random state, eval changing no buffer,
                causality along a sequence dimension
``trace``       every module's inputs and outputs in one forward, by name and call order, and
                the first module whose output differs while its inputs agree
"""

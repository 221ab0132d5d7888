"""Inside the sandbox child: the gradient check's measurements of one revision (stdlib + torch).

``probe``   the program (``gradient.child.probe:probe``): build the model, run ``steps`` plain
            SGD steps, and return the facts the parent classifies
``watch``   what happens while it runs: which modules ran and in which grad mode (a global
            forward hook), gradient accumulations (post-accumulate-grad hooks), hook counts
``graph``   the autograd graph from the loss to its leaves; trainable tensors that are not
            registered parameters, named where the model keeps them
``loss``    the user's loss, or a seeded random projection of every floating output
``anomaly`` re-running a step to name the op behind a non-finite gradient or a failed backward
"""

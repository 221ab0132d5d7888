"""The result cache (issue 37): per-revision facts of the model checks, keyed by content.

``store``: where entries live (a folder for the CLI and the Action, the App's queue store);
``results``: what goes in an entry, its key, and the checks that make a hit trustworthy.
"""

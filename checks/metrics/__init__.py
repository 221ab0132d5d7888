"""The `metrics` check: the team's own eval numbers at base and head, held to the config's rules.

``settings`` parses the rules; ``child`` runs the user's entrypoint (a function returning named
numbers, or a script writing JSON) in the sandbox; ``compare`` judges base and head against the
rules (pure); ``check`` runs both revisions and words the result.
"""

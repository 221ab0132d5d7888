"""Steps 3 and 4, pure: changed paths -> touched zones -> the checks to run, each with its reason.

``zone_index`` compiles the zones' gitignore patterns into an index; ``zones`` matches paths
with it; ``comment_only`` decides which Python edits leave the program the same; ``plan``
combines them into the ``Plan``.
"""
